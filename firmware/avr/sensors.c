/* Trigger and gate edges are stamped in the pin-change interrupt; the ADC is sampled without
 * blocking; shot counters live in EEPROM. */
#include <avr/eeprom.h>
#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

#include "clock.h"
#include "sensors.h"
#include BOARD_CONFIG

#ifndef ADC_REF
#define ADC_REF 0 /* external AREF: the wired hub feeds it the accelerometers' 3.3 V */
#endif
#if F_CPU == 16000000UL
#define ADC_PRESCALE (_BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0)) /* /128: 125 kHz */
#else
#define ADC_PRESCALE (_BV(ADPS2) | _BV(ADPS1)) /* /64: 125 kHz */
#endif

/* Trigger and gate edges, stamped in the pin-change interrupt so gate timing does not depend on
 * how long a main-loop pass takes. */
typedef struct { uint8_t pins; uint32_t ms, us; } edge_t;
#define EDGE_QUEUE 8
static volatile edge_t edges[EDGE_QUEUE];
static volatile uint8_t edge_head, edge_tail;
static volatile uint16_t edges_dropped;

#if N_BARRELS
static fw_barrel_t barrels[N_BARRELS];
static uint32_t saved_count[N_BARRELS];
#endif
#if N_TILTS
static fw_tilt_t tilts[N_TILTS];
#endif
static uint8_t adc_busy;

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

void sensors_init(void)
{
    DDRD &= (uint8_t)~0xFC;              /* D2-D7 inputs; pull-ups on the trigger switches only, */
#if N_BARRELS
    for (uint8_t i = 0; i < N_BARRELS; i++) { /* the gates have external pull-downs (hardware.md) */
        PORTD |= _BV(BARRELS[i].trigger_bit);
        if (BARRELS[i].breech_bit != NO_BREECH) /* breech selectors: inputs with pull-ups */
            PORTB |= (uint8_t)(_BV(BARRELS[i].breech_bit) | _BV(BARRELS[i].breech_bit + 1));
        uint32_t count = eeprom_read_dword(EE_COUNT(i));
        saved_count[i] = count == 0xFFFFFFFFUL ? 0 : count; /* erased EEPROM reads all ones */
        fw_barrel_init(&barrels[i], saved_count[i]);
    }
#endif
#if N_TILTS
    for (uint8_t i = 0; i < N_TILTS; i++)
        fw_tilt_init(&tilts[i]);
#endif
    ADMUX = ADC_REF;
    ADCSRA = _BV(ADEN) | ADC_PRESCALE;
    DIDR0 = 0x3F;
    PCMSK2 = 0xFC;                       /* pin-change interrupts on D2-D7 */
    PCICR |= _BV(PCIE2);
}

#if N_BARRELS
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
static void feed_launchers(uint8_t pins, uint32_t now_ms, uint32_t now_us, sensor_push_t push)
{
    for (uint8_t i = 0; i < N_BARRELS; i++) {
        fw_barrel_out_t out = {0, 0, 0, 0, 0};
        uint8_t pressed = !(pins & _BV(BARRELS[i].trigger_bit));
        uint8_t blocked = !(pins & _BV(BARRELS[i].gate_bit));
        uint8_t kind = fw_barrel_update(&barrels[i], &LAUNCHER_CFG, pressed, blocked, breech(i),
                                        now_ms, now_us, &out);
        if (kind != FW_BARREL_NONE)
            push(kind == FW_BARREL_SHOT ? FW_EV_SHOT : FW_EV_DRY, BARRELS[i].node, BARRELS[i].barrel, out.charge,
                 fw_shot_value(out.count, out.block_us), out.t_ms);
    }
}

static void poll_launchers(sensor_push_t push)
{
    static uint8_t pins = 0xFC;
    while (edge_tail != edge_head) {
        edge_t e;
        ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { e = *(edge_t *)&edges[edge_tail]; }
        edge_tail = (uint8_t)((edge_tail + 1) % EDGE_QUEUE);
        pins = e.pins;
        feed_launchers(pins, e.ms, e.us, push);
    }
    feed_launchers(pins, millis(), micros(), push);
}

#endif

#if N_TILTS
/* Tilt nodes: one ADC conversion in flight at a time, a full sweep every TILT_SAMPLE_MS. */
static void poll_tilts(uint32_t now_ms, sensor_push_t push)
{
    static uint8_t index = N_TILTS * 3;
    static int16_t raw[N_TILTS][3];
    static uint32_t next_sweep;
    if (adc_busy) {
        if (ADCSRA & _BV(ADSC))
            return;
        raw[index / 3][index % 3] = (int16_t)ADC;
        adc_busy = 0;
        if (index % 3 == 2) {
            uint8_t t = index / 3, state = 0, angle = 0;
            uint16_t g10 = 0;
            uint8_t what = fw_tilt_update(&tilts[t], &TILT_CFG, raw[t], now_ms, &state, &angle, &g10);
            if (what & FW_TILT_IMPACT)
                push(FW_EV_IMPACT, TILTS[t].node, 0, 0, g10, now_ms);
            if (what & FW_TILT_CHANGED)
                push(FW_EV_TILT, TILTS[t].node, 0, state, angle, now_ms);
        }
        index++;
    }
    if (index >= N_TILTS * 3) {
        if ((int32_t)(now_ms - next_sweep) < 0)
            return;
        next_sweep = now_ms + TILT_SAMPLE_MS;
        index = 0;
    }
    ADMUX = (uint8_t)(ADC_REF | TILTS[index / 3].channel[index % 3]);
    ADCSRA |= _BV(ADSC);
    adc_busy = 1;
}
#endif

void sensors_poll(uint32_t now_ms, sensor_push_t push)
{
#if N_BARRELS
    poll_launchers(push);
#endif
#if N_TILTS
    poll_tilts(now_ms, push);
#else
    (void)now_ms;
#endif
}

uint8_t sensors_adc_idle(void)
{
    return !adc_busy;
}

uint16_t sensors_edge_drops(void)
{
    uint16_t drops;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { drops = edges_dropped; }
    return drops;
}

/* Shot counters survive power-off.  One byte at a time, only while no barrel is mid-shot and the
 * EEPROM is idle, so a 3.4 ms write never blurs a gate measurement. */
void sensors_persist(void)
{
#if N_BARRELS
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
#endif
}
