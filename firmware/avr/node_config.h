/* A radio node's wiring (hardware.md "Radio option").  One node board is one node of the army
 * files: a launcher of 1-2 barrels or a tilt node.  The build names it:
 *   make -C firmware build/node-RL1.elf     (RADIO_NODES in firmware/Makefile: name, radio number, kind)
 * NODE_NAME (up to 8 characters), NODE_NID (1-254, unique on the table), and NODE_BARRELS (a
 * launcher) or NODE_TILT (a tilt node). */
#ifndef NODE_CONFIG_H
#define NODE_CONFIG_H

#include "fw_core.h"
#include "pins.h"

#define FW_NAME "bronenode/1.1"
#if !defined(NODE_NAME) || !defined(NODE_NID)
#error "a radio node needs NODE_NAME and NODE_NID (firmware/Makefile RADIO_NODES)"
#endif

#ifdef NODE_TILT
#define NODE_KIND FW_NODE_TILT
#define N_BARRELS 0
static const FW_FLASH tilt_pins_t TILTS[] = {{0, {0, 1, 2}}}; /* ADXL335 X/Y/Z on A0 A1 A2 */
#define N_TILTS 1
#else
#define NODE_KIND FW_NODE_LAUNCHER
#if NODE_BARRELS < 1 || NODE_BARRELS > 2
#error "a radio launcher node has 1 or 2 barrels"
#endif
#define N_BARRELS NODE_BARRELS
/* Triggers D2/D4, gates D3/D5; D8-D13 belong to the radio, so a node has no breech switch. */
static const FW_FLASH barrel_pins_t BARRELS[2] = {{0, 1, 2, 3, NO_BREECH}, {0, 2, 4, 5, NO_BREECH}};
#define N_TILTS 0
#endif
#define TILT_SAMPLE_MS 5

/* The accelerometer runs from the node's 3.3 V, which is also AVCC: measure against it. */
#define ADC_REF _BV(REFS0)
/* The cell through a 1 MOhm / 330 kOhm divider to A7, against the internal 1.1 V reference:
 * 4.2 V reads 1.04 V. */
#define BATTERY_CHANNEL 7
#define BATTERY_DIVIDER_NUM 1330UL
#define BATTERY_DIVIDER_DEN 330UL

#define LAUNCHER_CFG FW_LAUNCHER_DEFAULTS
#define TILT_CFG FW_TILT_DEFAULTS

#endif
