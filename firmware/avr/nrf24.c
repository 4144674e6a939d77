/* nRF24L01+ driver: SPI commands [8.3.1 Table 20] on the registers of [9.1 Table 28]. */
#include <avr/io.h>
#include <util/delay.h>

#include "nrf24.h"

#define CE _BV(PB1)
#define CSN _BV(PB2)
#define IRQ _BV(PB0)

enum { /* commands */
    R_REGISTER = 0x00, W_REGISTER = 0x20, R_RX_PAYLOAD = 0x61, W_TX_PAYLOAD = 0xA0, FLUSH_TX = 0xE1,
    FLUSH_RX = 0xE2, R_RX_PL_WID = 0x60, W_ACK_PAYLOAD = 0xA8, NOP = 0xFF
};
enum { /* registers */
    CONFIG = 0x00, EN_AA = 0x01, EN_RXADDR = 0x02, SETUP_AW = 0x03, SETUP_RETR = 0x04, RF_CH = 0x05,
    RF_SETUP = 0x06, STATUS = 0x07, OBSERVE_TX = 0x08, RX_ADDR_P0 = 0x0A, TX_ADDR = 0x10, FIFO_STATUS = 0x17,
    DYNPD = 0x1C, FEATURE = 0x1D
};
#define EN_CRC 0x08
#define CRCO 0x04
#define PWR_UP 0x02
#define PRIM_RX 0x01

/* The table's one address: every node sends to it, and the hub listens on it (pipe 0). */
static const uint8_t ADDRESS[5] = {0xB7, 0x0E, 0x9E, 0x1A, 0x24};

static uint8_t spi(uint8_t byte)
{
    SPDR = byte;
    while (!(SPSR & _BV(SPIF)))
        ;
    return SPDR;
}

static uint8_t command(uint8_t cmd, const uint8_t *out, uint8_t *in, uint8_t len)
{
    PORTB &= (uint8_t)~CSN;
    uint8_t status = spi(cmd); /* the STATUS register comes back on every command's first byte */
    for (uint8_t i = 0; i < len; i++) {
        uint8_t got = spi(out ? out[i] : NOP);
        if (in)
            in[i] = got;
    }
    PORTB |= CSN;
    return status;
}

static void write_reg(uint8_t reg, uint8_t value)
{
    command((uint8_t)(W_REGISTER | reg), &value, 0, 1);
}

static uint8_t read_reg(uint8_t reg)
{
    uint8_t value;
    command((uint8_t)(R_REGISTER | reg), 0, &value, 1);
    return value;
}

void nrf_init(uint8_t receiver, uint8_t retransmit_delay)
{
    DDRB |= CE | CSN | _BV(PB3) | _BV(PB5); /* MOSI, SCK out; MISO in */
    DDRB &= (uint8_t)~IRQ;
    PORTB |= CSN | IRQ;                     /* CSN idle high; a pull-up on the open IRQ line */
    PORTB &= (uint8_t)~CE;
    SPCR = _BV(SPE) | _BV(MSTR);            /* mode 0, F_CPU/4 (2 or 4 MHz; the radio takes 10) */
    _delay_ms(100);                         /* power on reset [6.1.7 Table 16: 100 ms] */
    write_reg(SETUP_AW, 3);                 /* 5-byte addresses */
    command(W_REGISTER | TX_ADDR, ADDRESS, 0, 5);
    command(W_REGISTER | RX_ADDR_P0, ADDRESS, 0, 5); /* a PTX hears its ACKs on pipe 0 [7.4.2] */
    write_reg(EN_AA, 0x01);
    write_reg(EN_RXADDR, 0x01);
    write_reg(SETUP_RETR, (uint8_t)((retransmit_delay << 4) | 5)); /* up to 5 retransmissions [7.4.3] */
    write_reg(RF_CH, NRF_CHANNEL);
    write_reg(RF_SETUP, 0x06);              /* 1 Mbps, 0 dBm */
    write_reg(FEATURE, 0x06);               /* dynamic payload lengths, ACK payloads [7.4.1] */
    write_reg(DYNPD, 0x01);
    command(FLUSH_TX, 0, 0, 0);
    command(FLUSH_RX, 0, 0, 0);
    nrf_clear(NRF_RX_DR | NRF_TX_DS | NRF_MAX_RT);
    write_reg(CONFIG, (uint8_t)(EN_CRC | CRCO | PWR_UP | (receiver ? PRIM_RX : 0))); /* 2-byte CRC */
    _delay_ms(5);                           /* Tpd2stby, 1.5 ms at most [6.1.7] */
    if (receiver)
        PORTB |= CE;                        /* a PRX listens while CE is high [6.1.6] */
}

uint8_t nrf_status(void)
{
    return command(NOP, 0, 0, 0);
}

void nrf_clear(uint8_t flags)
{
    write_reg(STATUS, flags); /* write 1 to clear [9.1] */
}

uint8_t nrf_irq(void)
{
    return !(PINB & IRQ);
}

uint8_t nrf_read(uint8_t *buf)
{
    if (read_reg(FIFO_STATUS) & 0x01) /* RX_EMPTY */
        return 0;
    uint8_t len;
    command(R_RX_PL_WID, 0, &len, 1);
    if (len > 32) { /* a corrupt width: the datasheet says flush [8.3.1] */
        command(FLUSH_RX, 0, 0, 0);
        return 0;
    }
    command(R_RX_PAYLOAD, 0, buf, len);
    return len;
}

void nrf_send(const uint8_t *buf, uint8_t len)
{
    command(W_TX_PAYLOAD, buf, 0, len);
    PORTB |= CE;
    _delay_us(15); /* a CE pulse of at least 10 us starts the transmission [6.1.5] */
    PORTB &= (uint8_t)~CE;
}

void nrf_ack_payload(const uint8_t *buf, uint8_t len)
{
    command(W_ACK_PAYLOAD, buf, 0, len); /* pipe 0 */
}

void nrf_flush_tx(void)
{
    command(FLUSH_TX, 0, 0, 0);
}

uint8_t nrf_tx_empty(void)
{
    return (read_reg(FIFO_STATUS) & 0x10) != 0;
}

uint8_t nrf_retries(void)
{
    return read_reg(OBSERVE_TX) & 0x0F;
}
