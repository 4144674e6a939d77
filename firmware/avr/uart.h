/* The hub's serial link to the station: interrupt-driven both ways, two line buffers. */
#ifndef UART_H
#define UART_H

#include "fw_core.h"

/* The serial rate.  It must divide the 16 MHz clock exactly (with U2X: F_CPU / (8 * baud) a whole
 * number): 1000000, 500000 or 250000.  1 Mbaud carries about 1,400 of the hub's lines a second,
 * which the 1,000 events a second a busy table can make need; 115200 is 2.1 % off at 16 MHz and
 * carries 166.  The station's --baud must match (hardware.md "The serial link"). */
#define HUB_BAUD 1000000UL

/* A line the platform has besides the hub core's (a radio hub's node states): its length, or 0. */
typedef uint8_t (*uart_more_lines_t)(char *buf);

void uart_init(void);
void uart_serve(fw_hub_t *hub, uart_more_lines_t more);

#endif
