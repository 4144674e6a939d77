#include <stdlib.h>
#include <string.h>

#include "avr_ioport.h"
#include "nrf24_model.h"

#define SETTLE 130e-6 /* Tstby2a [6.1.7 Table 16] */
#define FIFO_DEPTH 3

enum { CONFIG = 0x00, EN_AA = 0x01, EN_RXADDR = 0x02, SETUP_AW = 0x03, SETUP_RETR = 0x04, RF_CH = 0x05,
       RF_SETUP = 0x06, STATUS = 0x07, OBSERVE_TX = 0x08, RPD = 0x09, RX_ADDR_P0 = 0x0A, TX_ADDR = 0x10,
       RX_PW_P0 = 0x11, FIFO_STATUS = 0x17, DYNPD = 0x1C, FEATURE = 0x1D };
#define PRIM_RX 0x01
#define PWR_UP 0x02
#define RX_DR 0x40
#define TX_DS 0x20
#define MAX_RT 0x10
#define EN_ACK_PAY 0x02

typedef struct {
    uint8_t data[32];
    uint8_t len, noack, pipe;
} payload_t;

typedef struct {
    payload_t slot[FIFO_DEPTH];
    int count;
} fifo_t;

struct nrf24 {
    air_t *air;
    avr_t *avr;
    const char *name;
    nrf24_clock_t clock;
    void *ctx;
    avr_irq_t *irq_pin;
    uint8_t spi_out;
    uint8_t reg[0x20], rx_addr_p0[5], tx_addr[5];
    uint8_t flags; /* RX_DR | TX_DS | MAX_RT */
    fifo_t tx, rx;
    /* the SPI transaction */
    int csn_low, pos;
    uint8_t cmd;
    payload_t incoming;
    /* the radio */
    int ce, mode, pid, arc_cnt, plos_cnt, in_progress, irq_level;
    double t_next, listen_since, away_until, mode_since;
    uint8_t last_pid, last_crc_valid;
    uint8_t last_payload[32], last_len;
    uint8_t ack_pid;
    double time_in[NRF_MODES];
    unsigned long packets, retransmits, max_rt, received, duplicates, rx_full_drops, acks_sent;
};

static const char *MODE_NAMES[NRF_MODES] = {"power_down", "standby_1", "standby_2", "tx_settle", "tx",
                                            "wait_ack", "rx_settle", "rx", "ack_turnaround", "ack_tx"};

static void set_mode(nrf24_t *n, int mode, double now)
{
    if (now > n->mode_since)
        n->time_in[n->mode] += now - n->mode_since;
    n->mode_since = now;
    n->mode = mode;
}

static uint8_t status(const nrf24_t *n)
{
    uint8_t pipe = n->rx.count ? (uint8_t)(n->rx.slot[0].pipe << 1) : 0x0E; /* RX_P_NO: 111 when empty */
    return (uint8_t)(n->flags | pipe | (n->tx.count == FIFO_DEPTH ? 1 : 0));
}

/* IRQ is active low while an unmasked flag is set [8.4]; CONFIG bits 6..4 mask them. */
static void update_irq(nrf24_t *n)
{
    int level = (n->flags & (uint8_t)~n->reg[CONFIG] & 0x70) ? 0 : 1;
    if (level != n->irq_level) {
        n->irq_level = level;
        avr_raise_irq(n->irq_pin, (uint32_t)level);
    }
}

static void pop(fifo_t *f)
{
    if (!f->count)
        return;
    memmove(&f->slot[0], &f->slot[1], sizeof f->slot[0] * (FIFO_DEPTH - 1));
    f->count--;
}

static int powered(const nrf24_t *n)
{
    return n->reg[CONFIG] & PWR_UP;
}

static double retransmit_delay(const nrf24_t *n)
{
    return 250e-6 * (1 + (n->reg[SETUP_RETR] >> 4)); /* ARD [9.1 SETUP_RETR] */
}

/* What the chip does next when nothing timed is under way: settle into RX, or start sending. */
static void evaluate(nrf24_t *n, double now)
{
    if (!powered(n)) {
        set_mode(n, NRF_PD, now);
        return;
    }
    if (n->reg[CONFIG] & PRIM_RX) {
        if (!n->ce)
            set_mode(n, NRF_STBY1, now);
        else if (n->mode != NRF_RX && n->mode != NRF_RX_SETTLE && n->mode != NRF_ACK_TURN && n->mode != NRF_ACK_TX) {
            set_mode(n, NRF_RX_SETTLE, now);
            n->t_next = now + SETTLE;
        }
        return;
    }
    if (n->mode == NRF_TX_SETTLE || n->mode == NRF_TX || n->mode == NRF_WAIT_ACK)
        return; /* a transaction finishes whatever CE does */
    if (n->ce && n->tx.count && !(n->flags & MAX_RT)) {
        set_mode(n, NRF_TX_SETTLE, now);
        n->t_next = now + SETTLE;
        n->in_progress = 0;
    } else {
        set_mode(n, n->ce ? NRF_STBY2 : NRF_STBY1, now);
    }
}

static void send_frame(nrf24_t *n, double now, const payload_t *p, int is_ack, uint8_t pid)
{
    frame_t f;
    memset(&f, 0, sizeof f);
    f.start = now;
    f.end = now + air_time(p ? p->len : 0);
    f.channel = n->reg[RF_CH];
    memcpy(f.addr, n->reg[CONFIG] & PRIM_RX ? n->rx_addr_p0 : n->tx_addr, 5);
    if (p) {
        memcpy(f.payload, p->data, p->len);
        f.len = p->len;
        f.noack = p->noack;
    }
    f.pid = pid;
    f.is_ack = (uint8_t)is_ack;
    f.from = n;
    air_transmit(n->air, &f);
    n->t_next = f.end;
}

static void start_tx(nrf24_t *n, double now)
{
    if (!n->in_progress) { /* a new payload: a new packet ID, the retransmission count from 0 */
        n->in_progress = 1;
        n->pid = (n->pid + 1) & 3;
        n->arc_cnt = 0;
        n->packets++;
    }
    set_mode(n, NRF_TX, now);
    send_frame(n, now, &n->tx.slot[0], 0, (uint8_t)n->pid);
}

static void tx_done(nrf24_t *n, double now)
{
    pop(&n->tx);
    n->in_progress = 0;
    n->flags |= TX_DS;
    update_irq(n);
    set_mode(n, NRF_STBY1, now);
    evaluate(n, now);
}

void nrf24_step(nrf24_t *n, double now)
{
    if (n->away_until && now >= n->away_until)
        n->away_until = 0;
    while (n->t_next && n->t_next <= now) {
        double t = n->t_next;
        n->t_next = 0;
        switch (n->mode) {
        case NRF_TX_SETTLE:
            if (n->tx.count)
                start_tx(n, t);
            else
                evaluate(n, t);
            break;
        case NRF_TX:
            if (n->tx.slot[0].noack || !(n->reg[EN_AA] & 1)) {
                tx_done(n, t);
            } else { /* listen for the ACK until the retransmit delay runs out [7.4.2] */
                set_mode(n, NRF_WAIT_ACK, t);
                n->t_next = t + retransmit_delay(n);
            }
            break;
        case NRF_WAIT_ACK:
            if (n->arc_cnt < (n->reg[SETUP_RETR] & 0x0F)) {
                n->arc_cnt++;
                n->retransmits++;
                start_tx(n, t);
            } else { /* given up: MAX_RT, the payload stays until flushed [7.4.2] */
                n->flags |= MAX_RT;
                n->max_rt++;
                if (n->plos_cnt < 15)
                    n->plos_cnt++;
                n->in_progress = 0;
                update_irq(n);
                set_mode(n, n->ce ? NRF_STBY2 : NRF_STBY1, t);
            }
            break;
        case NRF_RX_SETTLE:
            set_mode(n, NRF_RX, t);
            n->listen_since = t;
            break;
        case NRF_ACK_TURN: { /* the ACK, with the pipe's ACK payload if one waits [7.4.1] */
            payload_t *p = (n->reg[FEATURE] & EN_ACK_PAY) && n->tx.count ? &n->tx.slot[0] : NULL;
            set_mode(n, NRF_ACK_TX, t);
            send_frame(n, t, p, 1, n->ack_pid);
            n->acks_sent++;
            if (p) {
                pop(&n->tx);
                n->flags |= TX_DS; /* a PRX says TX_DS when an ACK payload has gone [8.4] */
                update_irq(n);
            }
            break;
        }
        case NRF_ACK_TX:
            set_mode(n, NRF_RX, t);
            n->listen_since = t;
            evaluate(n, t);
            break;
        default:
            break;
        }
    }
}

int nrf24_receive(nrf24_t *n, const frame_t *f, double at)
{
    nrf24_step(n, at);
    if (!powered(n) || f->channel != n->reg[RF_CH])
        return 0;
    if (n->mode == NRF_WAIT_ACK && f->is_ack && !memcmp(f->addr, n->tx_addr, 5) && f->pid == n->pid) {
        if (f->len) {
            if (n->rx.count < FIFO_DEPTH) {
                payload_t *p = &n->rx.slot[n->rx.count++];
                memcpy(p->data, f->payload, f->len);
                p->len = f->len;
                p->pipe = 0;
                n->flags |= RX_DR;
            }
        }
        tx_done(n, at);
        return 1;
    }
    if (n->mode != NRF_RX || f->is_ack || n->listen_since > f->start || !(n->reg[EN_RXADDR] & 1) ||
        memcmp(f->addr, n->rx_addr_p0, 5))
        return 0;
    int duplicate = n->last_crc_valid && f->pid == n->last_pid && f->len == n->last_len &&
                    !memcmp(f->payload, n->last_payload, f->len); /* same PID and CRC: a resend [7.4.2] */
    if (duplicate) {
        n->duplicates++;
    } else {
        if (n->rx.count == FIFO_DEPTH) { /* no room: dropped, and not acknowledged */
            n->rx_full_drops++;
            return 0;
        }
        payload_t *p = &n->rx.slot[n->rx.count++];
        memcpy(p->data, f->payload, f->len);
        p->len = f->len;
        p->pipe = 0;
        n->flags |= RX_DR;
        n->received++;
        n->last_pid = f->pid;
        n->last_len = f->len;
        memcpy(n->last_payload, f->payload, f->len);
        n->last_crc_valid = 1;
        update_irq(n);
    }
    if (!f->noack && (n->reg[EN_AA] & 1)) {
        set_mode(n, NRF_ACK_TURN, at);
        n->ack_pid = f->pid;
        n->t_next = at + SETTLE;
    }
    return 1;
}

/* ---- SPI ------------------------------------------------------------------------------------- */
static uint8_t read_register(nrf24_t *n, uint8_t r, int index)
{
    switch (r) {
    case STATUS:
        return status(n);
    case OBSERVE_TX:
        return (uint8_t)((n->plos_cnt << 4) | n->arc_cnt);
    case RX_ADDR_P0:
        return n->rx_addr_p0[index % 5];
    case TX_ADDR:
        return n->tx_addr[index % 5];
    case FIFO_STATUS:
        return (uint8_t)((n->tx.count == FIFO_DEPTH) << 5 | (n->tx.count == 0) << 4 |
                         (n->rx.count == FIFO_DEPTH) << 1 | (n->rx.count == 0));
    default:
        return n->reg[r];
    }
}

static void write_register(nrf24_t *n, uint8_t r, int index, uint8_t v, double now)
{
    switch (r) {
    case STATUS:
        n->flags &= (uint8_t)~(v & 0x70); /* write 1 to clear */
        update_irq(n);
        evaluate(n, now);               /* MAX_RT cleared: a waiting payload may go */
        return;
    case RX_ADDR_P0:
        n->rx_addr_p0[index % 5] = v;
        return;
    case TX_ADDR:
        n->tx_addr[index % 5] = v;
        return;
    case RF_CH:
        n->plos_cnt = 0; /* writing RF_CH resets PLOS_CNT [9.1] */
        break;
    case OBSERVE_TX:
    case RPD:
    case FIFO_STATUS:
        return; /* read-only */
    default:
        break;
    }
    if (index == 0) {
        n->reg[r] = v;
        if (r == CONFIG) {
            update_irq(n);
            evaluate(n, now);
        }
    }
}

static uint8_t spi_byte(nrf24_t *n, uint8_t in, double now)
{
    if (n->pos++ == 0) {
        n->cmd = in;
        if (in == 0xE1)
            n->tx.count = 0, n->in_progress = 0; /* FLUSH_TX */
        else if (in == 0xE2)
            n->rx.count = 0;                     /* FLUSH_RX */
        if (in == 0xA0 || in == 0xB0 || (in & 0xF8) == 0xA8) {
            memset(&n->incoming, 0, sizeof n->incoming);
            n->incoming.noack = in == 0xB0;
        }
        return status(n);
    }
    int index = n->pos - 2;
    uint8_t cmd = n->cmd;
    if (cmd < 0x20)
        return read_register(n, cmd & 0x1F, index);
    if (cmd < 0x40) {
        write_register(n, cmd & 0x1F, index, in, now);
        return 0;
    }
    if (cmd == 0x61)
        return n->rx.count && index < n->rx.slot[0].len ? n->rx.slot[0].data[index] : 0;
    if (cmd == 0x60)
        return n->rx.count ? n->rx.slot[0].len : 0;
    if ((cmd == 0xA0 || cmd == 0xB0 || (cmd & 0xF8) == 0xA8) && n->incoming.len < 32)
        n->incoming.data[n->incoming.len++] = in;
    return 0;
}

static void spi_end(nrf24_t *n, double now)
{
    uint8_t cmd = n->cmd;
    if (n->pos == 0)
        return;
    if (cmd == 0x61 && n->pos > 1) { /* the payload was read: it leaves the FIFO */
        pop(&n->rx);
        if (!n->rx.count)
            update_irq(n);
    } else if ((cmd == 0xA0 || cmd == 0xB0 || (cmd & 0xF8) == 0xA8) && n->incoming.len && n->tx.count < FIFO_DEPTH) {
        n->incoming.pipe = (uint8_t)(cmd & 7);
        n->tx.slot[n->tx.count++] = n->incoming;
        evaluate(n, now);
    }
    n->pos = 0;
}

/* The ATmega328P's SPI master, in place of simavr's: simavr 1.6 takes a fixed 100 us a byte,
 * fifty times the 2 us of a real transfer at F_CPU/4, which would make the hub read a packet in
 * 2.5 ms instead of 50 us.  A write to SPDR shifts a byte out and the radio's byte in, and SPIF is
 * set 8 SPI clocks later (ATmega328P datasheet §19.5). */
#define SPCR 0x4C
#define SPSR 0x4D
#define SPDR 0x4E
#define SPIF 0x80

static avr_cycle_count_t spi_done(avr_t *avr, avr_cycle_count_t when, void *param)
{
    (void)when;
    nrf24_t *n = param;
    avr->data[SPDR] = n->spi_out;
    avr->data[SPSR] |= SPIF;
    return 0;
}

static void spdr_write(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
    (void)addr;
    static const uint8_t DIVIDER[4] = {4, 16, 64, 128};
    nrf24_t *n = param;
    double now = n->clock(n->ctx);
    nrf24_step(n, now);
    avr->data[SPSR] &= (uint8_t)~SPIF;
    n->spi_out = n->csn_low ? spi_byte(n, v, now) : 0xFF;
    unsigned divider = DIVIDER[avr->data[SPCR] & 3] >> (avr->data[SPSR] & 1); /* SPI2X halves it */
    avr_cycle_timer_register(avr, 8 * divider, spi_done, n);
}

static uint8_t spdr_read(avr_t *avr, avr_io_addr_t addr, void *param)
{
    (void)param;
    avr->data[SPSR] &= (uint8_t)~SPIF; /* reading SPSR with SPIF set, then SPDR, clears it */
    return avr->data[addr];
}

static void on_csn(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    nrf24_t *n = param;
    double now = n->clock(n->ctx);
    if (!value && !n->csn_low) {
        n->csn_low = 1;
        n->pos = 0;
    } else if (value && n->csn_low) {
        n->csn_low = 0;
        spi_end(n, now);
    }
}

static void on_ce(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    nrf24_t *n = param;
    double now = n->clock(n->ctx);
    nrf24_step(n, now);
    if ((int)(value != 0) == n->ce)
        return;
    n->ce = value != 0;
    evaluate(n, now);
}

/* simavr 1.6 copies PORTB into PINB whenever the firmware writes PORTB (every CSN toggle), which
 * would show the IRQ line's pull-up instead of the radio holding it low: the line is put back. */
#define PINB 0x23
static void on_port_b(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)value;
    nrf24_t *n = param;
    n->avr->data[PINB] = (uint8_t)((n->avr->data[PINB] & ~1) | (n->irq_level == 0 ? 0 : 1));
}

void nrf24_power_on(nrf24_t *n, double now)
{
    set_mode(n, NRF_PD, now);
    memset(n->reg, 0, sizeof n->reg);
    n->reg[CONFIG] = 0x08;       /* reset values [9.1] */
    n->reg[EN_AA] = 0x3F;
    n->reg[EN_RXADDR] = 0x03;
    n->reg[SETUP_AW] = 0x03;
    n->reg[SETUP_RETR] = 0x03;
    n->reg[RF_CH] = 0x02;
    n->reg[RF_SETUP] = 0x0E;
    memset(n->rx_addr_p0, 0xE7, 5);
    memset(n->tx_addr, 0xE7, 5);
    n->flags = 0;
    n->tx.count = n->rx.count = 0;
    n->in_progress = n->arc_cnt = n->plos_cnt = 0;
    n->t_next = 0;
    n->last_crc_valid = 0;
    n->irq_level = -1;
    update_irq(n);
}

nrf24_t *nrf24_attach(air_t *air, avr_t *avr, const char *name, nrf24_clock_t clock, void *ctx)
{
    nrf24_t *n = calloc(1, sizeof *n);
    n->air = air;
    n->avr = avr;
    n->name = name;
    n->clock = clock;
    n->ctx = ctx;
    n->irq_pin = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('B'), 0);
    avr->io[AVR_DATA_TO_IO(SPDR)].w.c = spdr_write; /* the SPI module's own handlers replaced */
    avr->io[AVR_DATA_TO_IO(SPDR)].w.param = n;
    avr->io[AVR_DATA_TO_IO(SPDR)].r.c = spdr_read;
    avr->io[AVR_DATA_TO_IO(SPDR)].r.param = n;
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('B'), 2), on_csn, n);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('B'), 1), on_ce, n);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('B'), IOPORT_IRQ_PIN_ALL), on_port_b, n);
    n->csn_low = 0;
    nrf24_power_on(n, clock(ctx));
    air_join(air, n);
    return n;
}

int nrf24_away(const nrf24_t *n)
{
    return n->away_until > 0;
}

void nrf24_set_away(nrf24_t *n, double until)
{
    n->away_until = until;
}

void nrf24_report(nrf24_t *n, double now, FILE *out)
{
    set_mode(n, n->mode, now); /* close the current mode's account */
    fprintf(out, "\"radio\": {");
    for (int m = 0; m < NRF_MODES; m++)
        fprintf(out, "\"%s_s\": %.6f, ", MODE_NAMES[m], n->time_in[m]);
    fprintf(out,
            "\"packets\": %lu, \"retransmits\": %lu, \"max_rt\": %lu, \"received\": %lu, \"duplicates\": %lu, "
            "\"rx_full_drops\": %lu, \"acks_sent\": %lu}",
            n->packets, n->retransmits, n->max_rt, n->received, n->duplicates, n->rx_full_drops, n->acks_sent);
}
