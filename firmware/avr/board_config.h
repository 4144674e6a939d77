/* The default wiring of one hub board (hardware.md "Wiring").  Edit here for another layout:
 * the node ids must match the army files. */
#ifndef BOARD_CONFIG_H
#define BOARD_CONFIG_H

#include "fw_core.h"

#define FW_NAME "bronehub/1.2"

/* The serial rate.  It must divide the 16 MHz clock exactly (with U2X: F_CPU / (8 * baud) a whole
 * number): 1000000, 500000 or 250000.  1 Mbaud carries about 1,400 of the hub's lines a second,
 * which the 1,000 events a second a busy table can make need; 115200 is 2.1 % off at 16 MHz and
 * carries 166.  The station's --baud must match (hardware.md "The serial link"). */
#define HUB_BAUD 1000000UL

static const FW_FLASH fw_node_t NODES[] = {
    {"L1", FW_NODE_LAUNCHER, 2},
    {"L2", FW_NODE_LAUNCHER, 1},
    {"T1", FW_NODE_TILT, 0},
    {"T2", FW_NODE_TILT, 0},
};
#define N_NODES (sizeof NODES / sizeof NODES[0])

/* Launcher barrels: node index, barrel number, trigger and gate pins on PORTD (active low), and
 * the first of two breech-switch pins on PORTB (NO_BREECH: the charge comes from gate timing).
 * Breech selector, common to GND: first pin low = shell, second low = bomb, both low = rocket,
 * neither = not fitted or not set, so gate timing decides. */
#define NO_BREECH 0xFF
typedef struct { uint8_t node, barrel, trigger_bit, gate_bit, breech_bit; } barrel_pins_t;
static const FW_FLASH barrel_pins_t BARRELS[] = {
    {0, 1, 2, 3, NO_BREECH},  /* L1 barrel 1: trigger D2, gate D3 */
    {0, 2, 4, 5, NO_BREECH},  /* L1 barrel 2: trigger D4, gate D5 */
    {1, 1, 6, 7, 0},          /* L2 barrel 1 (the mortar): trigger D6, gate D7, breech D8/D9 */
};
#define N_BARRELS (sizeof BARRELS / sizeof BARRELS[0])

/* Tilt nodes: node index and the ADC channels of its X, Y and Z outputs. */
typedef struct { uint8_t node, channel[3]; } tilt_pins_t;
static const FW_FLASH tilt_pins_t TILTS[] = {
    {2, {0, 1, 2}},  /* T1: A0 A1 A2 */
    {3, {3, 4, 5}},  /* T2: A3 A4 A5 */
};
#define N_TILTS (sizeof TILTS / sizeof TILTS[0])
#define TILT_SAMPLE_MS 5

/* Thresholds (hardware.md "Calibration").  The defaults are in core/launcher.c and core/tilt.c;
 * to change them, define your own struct here, e.g.
 *   static const fw_tilt_cfg_t MY_TILT = {{510, 515, 508}, {101, 103, 100}, 25, 60, 5, 300, 2000, 150};
 *   #define TILT_CFG MY_TILT */
#define LAUNCHER_CFG FW_LAUNCHER_DEFAULTS
#define TILT_CFG FW_TILT_DEFAULTS

#endif
