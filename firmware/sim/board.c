/*
 * board-sim: runs the real hub firmware (an AVR ELF) in simavr, in real time, with UART0 bridged
 * to a pseudo-terminal reachable at a stable symlink (cable.c), and plays timed stimuli from a
 * script (script.h says the steps: pin, adc, unplug, reset, end).
 *
 * Usage: board-sim FIRMWARE.elf --link PATH [--script FILE] [--hub-id HHHH]
 * --hub-id writes the board's id into its EEPROM, as `station hub-id` would have, so several
 * simulated boards (whose first-boot "noise" is alike) say different ids.
 * It prints "pty /dev/pts/N" each time the cable is (re)plugged, and "ready" once running.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avr_eeprom.h"
#include "cable.h"
#include "pace.h"
#include "script.h"
#include "sim_avr.h"
#include "sim_elf.h"

#define PROG "board-sim"

static avr_t *avr;
static cable_t cable;
static script_t script;
static volatile sig_atomic_t running = 1;
static double clock_offset; /* simulated seconds before the last MCU reset (which zeroes the cycle count) */

static double sim_now(void)
{
    return clock_offset + (double)avr->cycle / avr->frequency;
}

static void apply(const step_t *s, double sim_t)
{
    switch (s->kind) {
    case STEP_PIN:
        script_drive_pin(avr, s);
        break;
    case STEP_ADC:
        script_drive_adc(avr, s);
        break;
    case STEP_UNPLUG:
        cable_pull(&cable, sim_t, s->value);
        break;
    case STEP_RESET: /* RAM and registers start over; EEPROM (the boot counter) stays */
        avr_reset(avr);
        clock_offset = sim_t - (double)avr->cycle / avr->frequency;
        script_idle_inputs(avr, "BCD", 6); /* the reset forgets what drives the pins; the wiring has not changed */
        printf("reset\n");
        fflush(stdout);
        break;
    case STEP_END:
        running = 0;
        break;
    default:
        sim_fail(PROG, "a radio step in a wired board's script (use radio-sim)");
    }
}

static void on_signal(int sig)
{
    (void)sig;
    running = 0;
}

int main(int argc, char **argv)
{
    elf_firmware_t fw;
    unsigned hub_id = 0;
    if (argc < 4 || argc % 2 || strcmp(argv[2], "--link"))
        sim_fail(PROG, "usage: board-sim FIRMWARE.elf --link PATH [--script FILE] [--hub-id HHHH]");
    for (int i = 4; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--script"))
            script_load(&script, PROG, argv[i + 1], 0);
        else if (!strcmp(argv[i], "--hub-id") && sscanf(argv[i + 1], "%4x", &hub_id) == 1 && hub_id && hub_id != 0xFFFF)
            continue;
        else
            sim_fail(PROG, "usage: board-sim FIRMWARE.elf --link PATH [--script FILE] [--hub-id HHHH]");
    }
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(argv[1], &fw) != 0)
        sim_fail(PROG, "cannot read the firmware ELF");
    avr = avr_make_mcu_by_name("atmega328p");
    if (!avr)
        sim_fail(PROG, "simavr has no atmega328p");
    avr_init(avr);
    avr->frequency = 16000000;
    avr->vcc = avr->avcc = 5000;
    avr->aref = 3300; /* the board wires 3.3 V to AREF, as the accelerometers run at 3.3 V */
    avr->log = LOG_ERROR;
    avr_load_firmware(avr, &fw);
    if (hub_id) { /* EEPROM word 2 (firmware/avr/sensors.h EE_HUB_ID), little-endian */
        uint8_t bytes[2] = {(uint8_t)hub_id, (uint8_t)(hub_id >> 8)};
        avr_eeprom_desc_t desc = {bytes, 2, 2};
        avr_ioctl(avr, AVR_IOCTL_EEPROM_SET, &desc);
    }
    script_idle_inputs(avr, "BCD", 6);

    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    signal(SIGPIPE, SIG_IGN);
    cable_attach(&cable, avr, argv[3]);
    printf("ready\n");
    fflush(stdout);
    pace_t pace;
    pace_start(&pace);
    while (running) {
        for (int i = 0; i < 400; i++) { /* about 25 us of AVR time per pass */
            int state = avr_run(avr);
            if (state == cpu_Done || state == cpu_Crashed) {
                fprintf(stderr, PROG ": the firmware stopped (state %d)\n", state);
                cable_remove_link(&cable);
                return 3;
            }
        }
        double sim_t = sim_now();
        const step_t *step;
        while ((step = script_due(&script, sim_t)))
            apply(step, sim_t);
        cable_replug_due(&cable, sim_t);
        cable_pump(&cable);
        pace_keep(&pace, sim_t);
    }
    pace_report(&pace, PROG, sim_now(), &cable);
    cable_remove_link(&cable);
    return 0;
}
