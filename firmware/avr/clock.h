/* The board's clocks (Timer0: milliseconds, Timer1: microseconds), at 16 MHz (the hub) or 8 MHz
 * (a 3.3 V radio node): F_CPU picks the dividers. */
#ifndef CLOCK_H
#define CLOCK_H

#include <stdint.h>

void clock_init(void);
uint32_t millis(void);
uint32_t millis_us(uint16_t *us); /* the millisecond clock and the microseconds into it, read together */
uint32_t micros(void);
extern volatile uint32_t ms_ticks; /* for interrupt handlers, which may read it directly */

#endif
