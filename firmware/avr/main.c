/* Hub firmware for the ATmega328P at 16 MHz: the platform around the portable core.
 * Timer0 gives milliseconds, Timer1 microseconds, and a pin-change interrupt stamps trigger and
 * gate edges; the UART runs at HUB_BAUD (1 Mbaud, board_config.h),
 * both directions interrupt-driven; the ADC is sampled without blocking; shot
 * counters and the boot number live in EEPROM; the watchdog restarts a hung board. */
#include <avr/eeprom.h>
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/wdt.h>
#include <util/atomic.h>

#include "board_config.h"

#if (F_CPU % (8UL * HUB_BAUD)) != 0
#error "HUB_BAUD does not divide the clock exactly: use 1000000, 500000 or 250000 at 16 MHz"
#endif
#define UBRR_VALUE (F_CPU / (8UL * HUB_BAUD) - 1)  /* with U2X */

#define EE_BOOT ((uint16_t *)0)
#define EE_HUB_ID ((uint16_t *)2)  /* the board's own id (HELLO hub=): made at first boot, or set by ID */
#define EE_COUNT(i) ((uint32_t *)(4 + 4 * (i)))

static volatile uint32_t ms_ticks;
static volatile uint16_t t1_overflows;
static volatile uint8_t rx_buf[32];
static volatile uint8_t rx_head, rx_tail;

/* Trigger and gate edges, stamped in the pin-change interrupt so gate timing does not depend on
 * how long a main-loop pass takes. */
typedef struct { uint8_t pins; uint32_t ms, us; } edge_t;
#define EDGE_QUEUE 8
static volatile edge_t edges[EDGE_QUEUE];
static volatile uint8_t edge_head, edge_tail;
static volatile uint16_t edges_dropped;

static fw_hub_t hub;
static fw_barrel_t barrels[N_BARRELS];
static uint32_t saved_count[N_BARRELS];
static fw_tilt_t tilts[N_TILTS];
/* Two line buffers: the interrupt sends one while the main loop formats the next line into the
 * other, so formatting overlaps the wire instead of waiting for it (issue: 1,000 events/s).  A
 * buffer is free when its length is 0; the interrupt frees the one it finished and goes on to the
 * other if a line waits there. */
static char tx_line[2][FW_LINE_MAX];
static volatile uint8_t tx_len[2], tx_cur, tx_pos;

ISR(TIMER0_COMPA_vect) { ms_ticks++; }
ISR(TIMER1_OVF_vect) { t1_overflows++; }
/* Transmit from the interrupt, so the wire stays busy however long a main-loop pass takes. */
ISR(USART_UDRE_vect)
{
    if (tx_pos >= tx_len[tx_cur]) { /* this line is sent: free its buffer, go on to the other */
        tx_len[tx_cur] = 0;
        tx_cur ^= 1;
        tx_pos = 0;
        if (!tx_len[tx_cur]) {
            UCSR0B &= (uint8_t)~_BV(UDRIE0);
            return;
        }
    }
    UDR0 = (uint8_t)tx_line[tx_cur][tx_pos++];
}

ISR(USART_RX_vect)
{
    uint8_t byte = UDR0, next = (uint8_t)((rx_head + 1) & 31);
    if (next != rx_tail) {
        rx_buf[rx_head] = byte;
        rx_head = next;
    }
}

static uint32_t millis(void)
{
    uint32_t v;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { v = ms_ticks; }
    return v;
}

/* The millisecond clock and the microseconds into it (Timer0 counts 4 us steps to 250), read
 * together: what a CLK answer says. */
static uint32_t millis_us(uint16_t *us)
{
    uint32_t ms;
    uint8_t count;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        ms = ms_ticks;
        count = TCNT0;
        if ((TIFR0 & _BV(OCF0A)) && count < 125)
            ms++; /* the millisecond ended after interrupts were disabled */
    }
    *us = (uint16_t)count * 4;
    return ms;
}

static uint32_t micros(void)
{
    uint16_t high, low;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        low = TCNT1;
        high = t1_overflows;
        if ((TIFR1 & _BV(TOV1)) && low < 0x8000)
            high++; /* overflowed after interrupts were disabled */
    }
    return (((uint32_t)high << 16) | low) >> 1; /* 0.5 us ticks */
}

ISR(PCINT2_vect)
{
    uint8_t next = (uint8_t)((edge_head + 1) % EDGE_QUEUE);
    if (next == edge_tail) {
        edges_dropped++;
        return;
    }
    edges[edge_head].pins = PIND;
    edges[edge_head].ms = ms_ticks;
    edges[edge_head].us = micros();
    edge_head = next;
}

static void hardware_init(void)
{
    MCUSR = 0;
    wdt_disable();
    TCCR0A = _BV(WGM01);                 /* CTC */
    TCCR0B = _BV(CS01) | _BV(CS00);      /* /64 */
    OCR0A = 249;                         /* 16 MHz / 64 / 250 = 1 kHz */
    TIMSK0 = _BV(OCIE0A);
    TCCR1A = 0;
    TCCR1B = _BV(CS11);                  /* /8: 0.5 us */
    TIMSK1 = _BV(TOIE1);
    UCSR0A = _BV(U2X0);
    UBRR0 = UBRR_VALUE;                  /* HUB_BAUD exactly (board_config.h) */
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);  /* 8N1 */
    DDRD &= (uint8_t)~0xFC;              /* D2-D7 inputs; pull-ups on the trigger switches only, */
    for (uint8_t i = 0; i < N_BARRELS; i++) { /* the gates have external pull-downs (hardware.md) */
        PORTD |= _BV(BARRELS[i].trigger_bit);
        if (BARRELS[i].breech_bit != NO_BREECH) /* breech selectors: inputs with pull-ups */
            PORTB |= (uint8_t)(_BV(BARRELS[i].breech_bit) | _BV(BARRELS[i].breech_bit + 1));
    }
    ADMUX = 0;                           /* external AREF (3.3 V), channel 0 */
    ADCSRA = _BV(ADEN) | _BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0); /* 125 kHz ADC clock */
    DIDR0 = 0x3F;
    PCMSK2 = 0xFC;                       /* pin-change interrupts on D2-D7 */
    PCICR = _BV(PCIE2);
    wdt_enable(WDTO_1S);
}

/* The charge set on a barrel's breech selector, or FW_NO_BREECH (hardware.md, "Breech switch"). */
static uint8_t breech(uint8_t i)
{
    uint8_t bit = BARRELS[i].breech_bit;
    if (bit == NO_BREECH)
        return FW_NO_BREECH;
    uint8_t first = !(PINB & _BV(bit)), second = !(PINB & _BV(bit + 1));
    if (first && second)
        return FW_CHARGE_ROCKET;
    return first ? FW_CHARGE_SHELL : second ? FW_CHARGE_BOMB : FW_NO_BREECH;
}

/* Launchers: every stamped edge is fed in order with its own time; then one more update with the
 * current time, for the timeouts (dry fire, jam), read after the queue is drained: an edge stamped
 * after the loop read its clock is later than that clock. */
static void feed_launchers(uint8_t pins, uint32_t now_ms, uint32_t now_us)
{
    for (uint8_t i = 0; i < N_BARRELS; i++) {
        fw_barrel_out_t out;
        uint8_t pressed = !(pins & _BV(BARRELS[i].trigger_bit));
        uint8_t blocked = !(pins & _BV(BARRELS[i].gate_bit));
        uint8_t kind = fw_barrel_update(&barrels[i], &LAUNCHER_CFG, pressed, blocked, breech(i),
                                        now_ms, now_us, &out);
        if (kind != FW_BARREL_NONE)
            fw_hub_push_event(&hub, kind == FW_BARREL_SHOT ? FW_EV_SHOT : FW_EV_DRY, BARRELS[i].node,
                              BARRELS[i].barrel, out.charge, fw_shot_value(out.count, out.block_us), out.t_ms);
    }
}

static void poll_launchers(void)
{
    static uint8_t pins = 0xFC;
    while (edge_tail != edge_head) {
        edge_t e;
        ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { e = *(edge_t *)&edges[edge_tail]; }
        edge_tail = (uint8_t)((edge_tail + 1) % EDGE_QUEUE);
        pins = e.pins;
        feed_launchers(pins, e.ms, e.us);
    }
    feed_launchers(pins, millis(), micros());
}

/* Tilt nodes: one ADC conversion in flight at a time, a full sweep every TILT_SAMPLE_MS. */
static void poll_tilts(uint32_t now_ms)
{
    static uint8_t index = N_TILTS * 3, busy;
    static int16_t raw[N_TILTS][3];
    static uint32_t next_sweep;
    if (busy) {
        if (ADCSRA & _BV(ADSC))
            return;
        raw[index / 3][index % 3] = (int16_t)ADC;
        busy = 0;
        if (index % 3 == 2) {
            uint8_t t = index / 3, state, angle;
            uint16_t g10;
            uint8_t what = fw_tilt_update(&tilts[t], &TILT_CFG, raw[t], now_ms, &state, &angle, &g10);
            if (what & FW_TILT_IMPACT)
                fw_hub_push_event(&hub, FW_EV_IMPACT, TILTS[t].node, 0, 0, g10, now_ms);
            if (what & FW_TILT_CHANGED)
                fw_hub_push_event(&hub, FW_EV_TILT, TILTS[t].node, 0, state, angle, now_ms);
        }
        index++;
    }
    if (index >= N_TILTS * 3) {
        if ((int32_t)(now_ms - next_sweep) < 0)
            return;
        next_sweep = now_ms + TILT_SAMPLE_MS;
        index = 0;
    }
    ADMUX = TILTS[index / 3].channel[index % 3];
    ADCSRA |= _BV(ADSC);
    busy = 1;
}

/* The board's id: kept in EEPROM; at the first boot (erased EEPROM) made from ADC noise and the
 * two timers' phase, so two boards flashed alike still differ (`station hub-id` sets one). */
static uint16_t board_id(void)
{
    uint16_t id = eeprom_read_word(EE_HUB_ID);
    if (id != 0xFFFF && id != 0)
        return id;
    uint16_t seed = TCNT1;
    for (uint8_t i = 0; i < 24; i++) {
        ADMUX = (uint8_t)(i % 6);
        ADCSRA |= _BV(ADSC);
        while (ADCSRA & _BV(ADSC))
            ;
        seed = (uint16_t)(seed * 31 + ADC + TCNT1);
    }
    id = fw_hub_new_id(seed);
    eeprom_write_word(EE_HUB_ID, id);
    return id;
}

/* An id the station gave (ID): kept for the next power-up. */
static void persist_id(void)
{
    if (hub.id_changed && eeprom_is_ready()) {
        hub.id_changed = 0;
        eeprom_update_word(EE_HUB_ID, hub.hub_id);
    }
}

/* Shot counters survive power-off.  One byte at a time, only while no barrel is mid-shot and the
 * EEPROM is idle, so a 3.4 ms write never blurs a gate measurement. */
static void persist_counters(void)
{
    for (uint8_t i = 0; i < N_BARRELS; i++)
        if (barrels[i].state != FW_BARREL_IDLE)
            return;
    for (uint8_t i = 0; i < N_BARRELS; i++) {
        if (saved_count[i] == barrels[i].count)
            continue;
        if (!eeprom_is_ready())
            return;
        for (uint8_t b = 0; b < 4; b++) {
            uint8_t want = (uint8_t)(barrels[i].count >> (8 * b));
            uint8_t *addr = (uint8_t *)EE_COUNT(i) + b;
            if (eeprom_read_byte(addr) != want) {
                eeprom_write_byte(addr, want);
                return;
            }
        }
        saved_count[i] = barrels[i].count;
    }
}

#ifdef STRESS_RATE
/* The link stress build (`make -C firmware build/hub-stress.elf`): besides its sensors, the hub
 * makes STRESS_RATE dry-fire events a second on its first launcher, to test the wire, the ring and
 * the station at a rate no board's launchers reach (bench/firmware_in_the_loop.py --stress). */
static void stress(uint32_t now_ms)
{
    static uint32_t made, started;
    static uint8_t running;
    if (!running) {
        running = 1;
        started = now_ms;
    }
    uint32_t due = (uint32_t)(((uint64_t)(now_ms - started) * STRESS_RATE) / 1000UL);
    while (made < due) {
        fw_hub_push_event(&hub, FW_EV_DRY, 0, 1, 0, 0, now_ms);
        made++;
    }
}
#endif

static void serve_uart(void)
{
    if (rx_tail != rx_head) { /* a question read now is answered with the clock of now */
        uint16_t us;
        uint32_t ms = millis_us(&us);
        fw_hub_set_time(&hub, ms, us);
    }
    while (rx_tail != rx_head) {
        fw_hub_rx_byte(&hub, rx_buf[rx_tail]);
        rx_tail = (uint8_t)((rx_tail + 1) & 31);
    }
    /* The buffer being sent if it is free (the wire is idle), else the other one, if free. */
    uint8_t cur = tx_cur; /* read once: the interrupt may move on meanwhile, which is safe */
    uint8_t free = tx_len[cur] ? (uint8_t)(cur ^ 1) : cur;
    if (tx_len[free])
        return; /* a line is being sent and the next one waits: the wire is the limit now */
    uint8_t len = fw_hub_next_line(&hub, tx_line[free]);
    if (!len)
        return;
    tx_len[free] = len; /* one byte: the interrupt sees all of it or none */
    UCSR0B |= _BV(UDRIE0);
}

int main(void)
{
    hardware_init();
    uint16_t boot = eeprom_read_word(EE_BOOT) + 1;
    eeprom_write_word(EE_BOOT, boot);
    for (uint8_t i = 0; i < N_BARRELS; i++) {
        uint32_t count = eeprom_read_dword(EE_COUNT(i));
        saved_count[i] = count == 0xFFFFFFFFUL ? 0 : count; /* erased EEPROM reads all ones */
        fw_barrel_init(&barrels[i], saved_count[i]);
    }
    for (uint8_t i = 0; i < N_TILTS; i++)
        fw_tilt_init(&tilts[i]);
    fw_hub_init(&hub, NODES, N_NODES, FW_STR(FW_NAME), boot);
    fw_hub_set_baud(&hub, HUB_BAUD);
    fw_hub_set_id(&hub, board_id());
    sei();
    for (;;) {
        uint32_t now = millis();
        poll_launchers();
        poll_tilts(now);
        fw_hub_tick(&hub, now);
#ifdef STRESS_RATE
        stress(now);
#endif
        ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { hub.edge_drops = edges_dropped; }
        serve_uart();
        persist_counters();
        persist_id();
        wdt_reset();
    }
}
