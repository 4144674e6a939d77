/*
 * radio-sim: a radio table in simavr.  The real radio hub firmware and the real node firmware run
 * together in one process, each MCU with its own nRF24L01+ model (nrf24_model.c) on one shared air
 * (air.c), in simulated time paced to the wall clock.  The hub's UART is bridged to a
 * pseudo-terminal at a stable symlink (cable.c), so the station opens it like a wired hub.
 *
 * Usage: radio-sim --link PATH --hub HUB.elf --node node-RL1.elf [--node ...] [--script FILE]
 *                  [--loss FRACTION] [--latency-us N] [--seed N] [--stats FILE]
 * A node's name is its ELF's (node-NAME.elf); script steps name the board (script.h).  --stats
 * writes, at the end, each board's time awake and asleep and its radio's time in each mode (the
 * current budget is made from it) with the air's counts, as JSON.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air.h"
#include "cable.h"
#include "nrf24_model.h"
#include "pace.h"
#include "script.h"
#include "sim_avr.h"
#include "sim_elf.h"

#define PROG "radio-sim"
#define MAX_BOARDS 12
#define QUANTUM 10e-6 /* the boards run in lockstep, 10 us at a time */

typedef struct {
    char name[16];
    avr_t *avr;
    nrf24_t *radio;
    double clock_offset; /* simulated seconds before the last reset */
    double asleep;       /* seconds the CPU spent in a sleep mode */
    int is_hub;
} board_t;

static board_t boards[MAX_BOARDS];
static int n_boards;
static air_t *air;
static cable_t cable;
static script_t script;
static volatile sig_atomic_t running = 1;

static double board_now(void *ctx)
{
    board_t *b = ctx;
    return b->clock_offset + (double)b->avr->cycle / b->avr->frequency;
}

static void on_signal(int sig)
{
    (void)sig;
    running = 0;
}

/* simavr's default sleep waits in real time while the MCU sleeps; the table keeps its own pace. */
static void no_wait(avr_t *avr, avr_cycle_count_t how_long)
{
    (void)avr;
    (void)how_long;
}

static board_t *add_board(const char *elf, int is_hub)
{
    elf_firmware_t fw;
    if (n_boards == MAX_BOARDS)
        sim_fail(PROG, "too many boards");
    board_t *b = &boards[n_boards++];
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(elf, &fw) != 0) {
        fprintf(stderr, PROG ": cannot read the firmware ELF %s\n", elf);
        exit(2);
    }
    if (is_hub) {
        strcpy(b->name, "hub");
    } else { /* node-NAME.elf */
        const char *base = strrchr(elf, '/') ? strrchr(elf, '/') + 1 : elf;
        if (strncmp(base, "node-", 5) || strlen(base) - 9 >= sizeof b->name)
            sim_fail(PROG, "a node's firmware is named node-NAME.elf");
        snprintf(b->name, sizeof b->name, "%.*s", (int)(strlen(base) - 9), base + 5);
    }
    b->is_hub = is_hub;
    b->avr = avr_make_mcu_by_name("atmega328p");
    avr_init(b->avr);
    /* A node is a 3.3 V / 8 MHz Pro Mini, whose ceramic resonator is off by up to 0.5 %: each node
     * runs a little fast or slow (-0.2 % to +0.3 %), so the hub's clock mapping is tested. */
    b->avr->frequency = is_hub ? 16000000 : (uint32_t)(8000000 * (1 + 0.001 * ((n_boards * 7) % 6 - 2) / 2));
    b->avr->vcc = b->avr->avcc = is_hub ? 5000 : 3300;
    b->avr->aref = 3300;
    b->avr->log = LOG_ERROR;
    b->avr->sleep = no_wait;
    avr_load_firmware(b->avr, &fw);
    script_idle_inputs(b->avr, is_hub ? "" : "D", is_hub ? 0 : 3);
    if (!is_hub)
        script_drive_battery(b->avr, 3.9);
    b->radio = nrf24_attach(air, b->avr, b->name, board_now, b);
    return b;
}

static board_t *board_named(const char *name)
{
    for (int i = 0; i < n_boards; i++)
        if (!strcmp(boards[i].name, name))
            return &boards[i];
    fprintf(stderr, PROG ": the script names a board '%s' that is not on the table\n", name);
    exit(2);
}

static void apply(const step_t *s, double now)
{
    if (s->kind == STEP_END) {
        running = 0;
        return;
    }
    if (s->kind == STEP_LOSS) {
        air_set_loss(air, s->value);
        return;
    }
    board_t *b = board_named(s->board[0] ? s->board : "hub");
    switch (s->kind) {
    case STEP_PIN:
        script_drive_pin(b->avr, s);
        break;
    case STEP_ADC:
        script_drive_adc(b->avr, s);
        break;
    case STEP_BATTERY:
        script_drive_battery(b->avr, s->value);
        break;
    case STEP_AWAY:
        nrf24_set_away(b->radio, now + s->value);
        printf("away %s\n", b->name);
        fflush(stdout);
        break;
    case STEP_UNPLUG:
        if (b->is_hub)
            cable_pull(&cable, now, s->value);
        break;
    case STEP_RESET: /* the MCU and its radio power-cycle (a cell reconnected); EEPROM stays */
        avr_reset(b->avr);
        b->clock_offset = now - (double)b->avr->cycle / b->avr->frequency;
        nrf24_power_on(b->radio, now);
        script_idle_inputs(b->avr, b->is_hub ? "" : "D", b->is_hub ? 0 : 3);
        printf("reset %s\n", b->name);
        fflush(stdout);
        break;
    default:
        break;
    }
}

static void run_board(board_t *b, double until)
{
    while (board_now(b) < until) {
        avr_cycle_count_t before = b->avr->cycle;
        int state = avr_run(b->avr);
        /* One instruction and an interrupt's entry take at most a dozen cycles; simavr jumps a
         * sleeping CPU to its next timer in one step, so a longer step was sleep. */
        avr_cycle_count_t step = b->avr->cycle - before;
        if (step > 12)
            b->asleep += (double)step / b->avr->frequency;
        if (state == cpu_Done || state == cpu_Crashed) {
            fprintf(stderr, PROG ": the firmware of %s stopped (state %d)\n", b->name, state);
            cable_remove_link(&cable);
            exit(3);
        }
    }
}

static void write_stats(const char *path, double now)
{
    FILE *out = fopen(path, "w");
    if (!out)
        sim_fail(PROG, "cannot write the stats file");
    fprintf(out, "{\"simulated_s\": %.6f, ", now);
    air_report(air, out);
    fprintf(out, ", \"boards\": [");
    for (int i = 0; i < n_boards; i++) {
        board_t *b = &boards[i];
        fprintf(out, "%s{\"name\": \"%s\", \"mhz\": %u, \"asleep_s\": %.6f, ", i ? ", " : "", b->name,
                (unsigned)(b->avr->frequency / 1000000), b->asleep);
        nrf24_report(b->radio, now, out);
        fprintf(out, "}");
    }
    fprintf(out, "]}\n");
    fclose(out);
}

int main(int argc, char **argv)
{
    const char *link = NULL, *stats = NULL, *hub = NULL, *script_path = NULL;
    const char *nodes[MAX_BOARDS];
    int n_nodes = 0;
    double loss = 0, latency_us = 0;
    unsigned seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!value)
            sim_fail(PROG, "every option takes a value");
        i++;
        if (!strcmp(arg, "--link"))
            link = value;
        else if (!strcmp(arg, "--hub"))
            hub = value;
        else if (!strcmp(arg, "--node") && n_nodes < MAX_BOARDS - 1)
            nodes[n_nodes++] = value;
        else if (!strcmp(arg, "--script"))
            script_path = value;
        else if (!strcmp(arg, "--loss"))
            loss = atof(value);
        else if (!strcmp(arg, "--latency-us"))
            latency_us = atof(value);
        else if (!strcmp(arg, "--seed"))
            seed = (unsigned)atoi(value);
        else if (!strcmp(arg, "--stats"))
            stats = value;
        else
            sim_fail(PROG, "usage: radio-sim --link PATH --hub HUB.elf --node node-NAME.elf ... [--script FILE] "
                           "[--loss F] [--latency-us N] [--seed N] [--stats FILE]");
    }
    if (!link || !hub)
        sim_fail(PROG, "--link and --hub are needed");
    if (loss < 0 || loss > 1)
        sim_fail(PROG, "--loss is a fraction from 0 to 1");
    air = air_new(loss, latency_us / 1e6, seed);
    board_t *hub_board = add_board(hub, 1);
    for (int i = 0; i < n_nodes; i++)
        add_board(nodes[i], 0);
    if (script_path)
        script_load(&script, PROG, script_path, 1);

    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    signal(SIGPIPE, SIG_IGN);
    cable_attach(&cable, hub_board->avr, link);
    printf("ready\n");
    fflush(stdout);
    pace_t pace;
    double now = 0;
    pace_start(&pace);
    while (running) {
        now += QUANTUM;
        for (int i = 0; i < n_boards; i++)
            run_board(&boards[i], now);
        for (int i = 0; i < n_boards; i++)
            nrf24_step(boards[i].radio, now);
        air_step(air, now);
        const step_t *step;
        while ((step = script_due(&script, now)))
            apply(step, now);
        cable_replug_due(&cable, now);
        if (((long)(now / QUANTUM)) % 20 == 0) { /* every 200 us: the station's bytes, the pace */
            cable_pump(&cable);
            pace_keep(&pace, now);
        }
    }
    if (stats)
        write_stats(stats, now);
    pace_report(&pace, PROG, now, &cable);
    cable_remove_link(&cable);
    return 0;
}
