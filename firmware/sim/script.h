/* Timed stimuli for the simulated boards, shared by board-sim (one wired hub) and radio-sim (a
 * radio hub and its nodes).  One step a line:
 *
 *   t=1.200 [BOARD] pin D2 low [4ms]     a pin driven low or high (for 4 ms, then back)
 *   t=1.700 [BOARD] adc A0 x=0.1 y=0.9 z=0.2   an accelerometer on A0/A1/A2, in g
 *   t=2.000 [BOARD] battery 3.45         the cell, in volts, through the node's divider to A7
 *   t=5.000 [BOARD] unplug 2.0           the USB cable pulled for 2 s (a hub)
 *   t=6.000 [BOARD] reset                the MCU resets; EEPROM stays
 *   t=7.000 [BOARD] away 10              out of radio range for 10 s (radio-sim)
 *   t=8.000 loss 0.3                     the air loses 30 % of packets from now on (radio-sim)
 *   t=30 end                             stop
 *
 * BOARD (radio-sim only) is a node's name or "hub". */
#ifndef SIM_SCRIPT_H
#define SIM_SCRIPT_H

#include "sim_avr.h"

enum { STEP_PIN, STEP_ADC, STEP_BATTERY, STEP_UNPLUG, STEP_RESET, STEP_AWAY, STEP_LOSS, STEP_END };
typedef struct {
    double t;
    int kind;
    char board[16];
    char port;
    int bit, level, channel;
    double g[3], value;
} step_t;

typedef struct {
    step_t *steps;
    int n, next, cap;
} script_t;

void sim_fail(const char *prog, const char *what);
void script_load(script_t *s, const char *prog, const char *path, int named_boards);
const step_t *script_due(script_t *s, double now); /* the next step due by now, or NULL */
void script_drive_pin(avr_t *avr, const step_t *step);
void script_drive_adc(avr_t *avr, const step_t *step);  /* ADXL335 at 3.3 V: 1.65 V at 0 g, 330 mV/g */
void script_drive_battery(avr_t *avr, double volts);     /* 1 MOhm / 330 kOhm divider to A7 */
/* Nothing pressed, no gate blocked (the pins of each port in ports, D0/D1 the UART's kept out), and
 * every accelerometer upright. */
void script_idle_inputs(avr_t *avr, const char *ports, int tilt_channels);

#endif
