/* The launchers and tilt nodes wired to a board (a hub's, or a radio node's), read from the pins
 * its configuration header names (BOARD_CONFIG: board_config.h or node_config.h). */
#ifndef SENSORS_H
#define SENSORS_H

#include <stdint.h>

/* EEPROM: the boot counter, the board's id, then one shot counter per barrel. */
#define EE_BOOT ((uint16_t *)0)
#define EE_HUB_ID ((uint16_t *)2)
#define EE_COUNT(i) ((uint32_t *)(4 + 4 * (i)))

/* Where a sensor's event goes: the hub's ring, or a radio node's. */
typedef uint8_t (*sensor_push_t)(uint8_t type, uint8_t node, uint8_t barrel, uint8_t code, uint32_t value,
                                 uint32_t t);

void sensors_init(void);              /* pins, ADC, pin-change interrupts, counters from EEPROM */
void sensors_poll(uint32_t now_ms, sensor_push_t push);
void sensors_persist(void);           /* shot counters to EEPROM, a byte at a time, between shots */
uint8_t sensors_adc_idle(void);       /* no conversion of the tilt sweep is in flight */
uint16_t sensors_edge_drops(void);

#endif
