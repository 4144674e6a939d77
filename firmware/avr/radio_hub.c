/* Radio hub firmware for the ATmega328P at 16 MHz with an nRF24L01+: it listens for every radio
 * node of the table on one channel and address, takes their events in order per node (core/radio.c)
 * and puts them on the serial link as protocol v1 events, with the same clocks (clock.c), serial
 * link (uart.c) and board id as the wired hub.  It has no sensors of its own. */
#include <avr/eeprom.h>
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/wdt.h>

#include "board_id.h"
#include "clock.h"
#include "fw_radio.h"
#include "nrf24.h"
#include "sensors.h"
#include "uart.h"

#define FW_NAME "bronehub-radio/1.1"

static fw_hub_t hub;
static fw_radio_hub_t radio;

static uint8_t radio_lines(char *buf)
{
    return fw_radio_hub_next_line(&radio, &hub, millis(), buf);
}

/* The hub's table rides on the next ACK.  Every ACK takes the payload waiting in the FIFO (TX_DS
 * says so), and a new one is written once the packets have been read, so each ACK carries the table
 * as it stood after the packet before.  Never flushed: a flush while the radio is turning round to
 * send an ACK would send that ACK empty. */
static void load_table(void)
{
    uint8_t table[FW_RADIO_PAYLOAD];
    nrf_ack_payload(table, fw_radio_hub_acks(&radio, table));
}

static void listen(uint32_t now)
{
    if (!nrf_irq())
        return;
    uint8_t status = nrf_status();
    nrf_clear(status & (NRF_RX_DR | NRF_TX_DS | NRF_MAX_RT)); /* before reading: a packet landing now sets it again */
    if (status & NRF_RX_DR) {
        uint8_t pkt[FW_RADIO_PAYLOAD], len;
        while ((len = nrf_read(pkt)))
            fw_radio_hub_packet(&radio, &hub, pkt, len, now);
    }
    if (nrf_tx_empty())
        load_table();
}

int main(void)
{
    MCUSR = 0;
    wdt_disable();
    clock_init();
    uart_init();
    nrf_init(1, 0);
    uint16_t boot = eeprom_read_word(EE_BOOT) + 1;
    eeprom_write_word(EE_BOOT, boot);
    fw_hub_init(&hub, 0, 0, FW_STR(FW_NAME), boot);
    fw_radio_hub_init(&radio, &hub);
    fw_hub_set_baud(&hub, HUB_BAUD);
    fw_hub_set_id(&hub, board_id());
    load_table();
    wdt_enable(WDTO_1S);
    sei();
    for (;;) {
        uint32_t now = millis();
        listen(now);
        fw_hub_tick(&hub, now);
        fw_radio_hub_tick(&radio, &hub);
        uart_serve(&hub, radio_lines);
        board_id_persist(&hub);
        wdt_reset();
    }
}
