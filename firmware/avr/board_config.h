/* The default wiring of one hub board (hardware.md "Wiring").  Edit here for another layout:
 * the node ids must match the army files. */
#ifndef BOARD_CONFIG_H
#define BOARD_CONFIG_H

#include "fw_core.h"
#include "pins.h"

#define FW_NAME "bronehub/1.3"

static const FW_FLASH fw_node_t NODES[] = {
    {"L1", FW_NODE_LAUNCHER, 2},
    {"L2", FW_NODE_LAUNCHER, 1},
    {"T1", FW_NODE_TILT, 0},
    {"T2", FW_NODE_TILT, 0},
};
#define N_NODES (sizeof NODES / sizeof NODES[0])

/* Launcher barrels (pins.h says the fields). */
static const FW_FLASH barrel_pins_t BARRELS[] = {
    {0, 1, 2, 3, NO_BREECH},  /* L1 barrel 1: trigger D2, gate D3 */
    {0, 2, 4, 5, NO_BREECH},  /* L1 barrel 2: trigger D4, gate D5 */
    {1, 1, 6, 7, 0},          /* L2 barrel 1 (the mortar): trigger D6, gate D7, breech D8/D9 */
};
#define N_BARRELS 3

/* Tilt nodes: node index and the ADC channels of its X, Y and Z outputs. */
static const FW_FLASH tilt_pins_t TILTS[] = {
    {2, {0, 1, 2}},  /* T1: A0 A1 A2 */
    {3, {3, 4, 5}},  /* T2: A3 A4 A5 */
};
#define N_TILTS 2
#define TILT_SAMPLE_MS 5

/* Thresholds (hardware.md "Calibration").  The defaults are in core/launcher.c and core/tilt.c;
 * to change them, define your own struct here, e.g.
 *   static const fw_tilt_cfg_t MY_TILT = {{510, 515, 508}, {101, 103, 100}, 25, 60, 5, 300, 2000, 150};
 *   #define TILT_CFG MY_TILT */
#define LAUNCHER_CFG FW_LAUNCHER_DEFAULTS
#define TILT_CFG FW_TILT_DEFAULTS

#endif
