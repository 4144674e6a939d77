/* Timer0 counts milliseconds in CTC mode; Timer1 free-runs at F_CPU/8 for microseconds. */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

#include "clock.h"

#if F_CPU != 16000000UL && F_CPU != 8000000UL
#error "the clock runs at 16 MHz (the hub) or 8 MHz (a radio node)"
#endif
#define T0_TOP (F_CPU / 64 / 1000 - 1)     /* 249 at 16 MHz, 124 at 8 MHz */
#define T0_US (64000000UL / F_CPU)         /* microseconds per Timer0 step: 4 or 8 */
#define T1_SHIFT (F_CPU == 16000000UL ? 1 : 0) /* Timer1 /8 steps: 0.5 us or 1 us */

volatile uint32_t ms_ticks;
static volatile uint16_t t1_overflows;

ISR(TIMER0_COMPA_vect) { ms_ticks++; }
ISR(TIMER1_OVF_vect) { t1_overflows++; }

void clock_init(void)
{
    TCCR0A = _BV(WGM01);            /* CTC */
    TCCR0B = _BV(CS01) | _BV(CS00); /* /64 */
    OCR0A = T0_TOP;                 /* 1 kHz */
    TIMSK0 = _BV(OCIE0A);
    TCCR1A = 0;
    TCCR1B = _BV(CS11);             /* /8 */
    TIMSK1 = _BV(TOIE1);
}

uint32_t millis(void)
{
    uint32_t v;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { v = ms_ticks; }
    return v;
}

uint32_t millis_us(uint16_t *us)
{
    uint32_t ms;
    uint8_t count;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        ms = ms_ticks;
        count = TCNT0;
        if ((TIFR0 & _BV(OCF0A)) && count < (T0_TOP + 1) / 2)
            ms++; /* the millisecond ended after interrupts were disabled */
    }
    *us = (uint16_t)(count * T0_US);
    return ms;
}

uint32_t micros(void)
{
    uint16_t high, low;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        low = TCNT1;
        high = t1_overflows;
        if ((TIFR1 & _BV(TOV1)) && low < 0x8000)
            high++; /* overflowed after interrupts were disabled */
    }
    return (((uint32_t)high << 16) | low) >> T1_SHIFT;
}
