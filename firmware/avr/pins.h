/* How a board's configuration names its sensors' pins (board_config.h, node_config.h). */
#ifndef PINS_H
#define PINS_H

#include <stdint.h>

/* Launcher barrels: node index, barrel number, trigger and gate pins on PORTD (active low), and
 * the first of two breech-switch pins on PORTB (NO_BREECH: the charge comes from gate timing).
 * Breech selector, common to GND: first pin low = shell, second low = bomb, both low = rocket,
 * neither = not fitted or not set, so gate timing decides. */
#define NO_BREECH 0xFF
typedef struct { uint8_t node, barrel, trigger_bit, gate_bit, breech_bit; } barrel_pins_t;

/* Tilt nodes: node index and the ADC channels of its X, Y and Z outputs. */
typedef struct { uint8_t node, channel[3]; } tilt_pins_t;

#endif
