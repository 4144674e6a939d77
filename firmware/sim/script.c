#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avr_adc.h"
#include "avr_ioport.h"
#include "script.h"

void sim_fail(const char *prog, const char *what)
{
    fprintf(stderr, "%s: %s\n", prog, what);
    exit(2);
}

static void add_step(script_t *s, const char *prog, step_t step)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 256;
        s->steps = realloc(s->steps, (size_t)s->cap * sizeof *s->steps);
        if (!s->steps)
            sim_fail(prog, "out of memory");
    }
    int i = s->n++;
    while (i > s->next && s->steps[i - 1].t > step.t) { /* keep sorted, stable */
        s->steps[i] = s->steps[i - 1];
        i--;
    }
    s->steps[i] = step;
}

static void bad(const char *prog, const char *path, int number, const char *expected)
{
    fprintf(stderr, "%s: %s:%d: expected '%s'\n", prog, path, number, expected);
    exit(2);
}

static int parse_action(script_t *s, const char *prog, const char *path, int number, step_t step,
                        const char *word, const char *rest)
{
    char arg[32];
    if (!strcmp(word, "pin")) {
        double ms = 0;
        if (sscanf(rest, "%c%d %31s %lfms", &step.port, &step.bit, arg, &ms) < 3 || step.port < 'B' ||
            step.port > 'D' || step.bit < 0 || step.bit > 7 || (strcmp(arg, "low") && strcmp(arg, "high")))
            bad(prog, path, number, "pin D2 low|high [4ms]");
        step.kind = STEP_PIN;
        step.level = !strcmp(arg, "high");
        add_step(s, prog, step);
        if (ms > 0) {
            step.t += ms / 1000.0;
            step.level = !step.level;
            add_step(s, prog, step);
        }
        return 1;
    }
    if (!strcmp(word, "adc")) {
        if (sscanf(rest, "A%d x=%lf y=%lf z=%lf", &step.channel, &step.g[0], &step.g[1], &step.g[2]) != 4 ||
            step.channel < 0 || step.channel > 5)
            bad(prog, path, number, "adc A0 x=G y=G z=G");
        step.kind = STEP_ADC;
    } else if (!strcmp(word, "battery")) {
        if (sscanf(rest, "%lf", &step.value) != 1 || step.value < 0 || step.value > 5)
            bad(prog, path, number, "battery VOLTS");
        step.kind = STEP_BATTERY;
    } else if (!strcmp(word, "unplug") || !strcmp(word, "away")) {
        if (sscanf(rest, "%lf", &step.value) != 1 || step.value <= 0)
            bad(prog, path, number, "unplug|away SECONDS");
        step.kind = !strcmp(word, "unplug") ? STEP_UNPLUG : STEP_AWAY;
    } else if (!strcmp(word, "loss")) {
        if (sscanf(rest, "%lf", &step.value) != 1 || step.value < 0 || step.value > 1)
            bad(prog, path, number, "loss FRACTION");
        step.kind = STEP_LOSS;
    } else if (!strcmp(word, "reset")) {
        step.kind = STEP_RESET;
    } else if (!strcmp(word, "end")) {
        step.kind = STEP_END;
    } else {
        return 0;
    }
    add_step(s, prog, step);
    return 1;
}

void script_load(script_t *s, const char *prog, const char *path, int named_boards)
{
    FILE *f = fopen(path, "r");
    char line[256], word[32], action[32];
    int number = 0;
    if (!f)
        sim_fail(prog, "cannot open the script");
    while (fgets(line, sizeof line, f)) {
        number++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        step_t step;
        memset(&step, 0, sizeof step);
        int used = 0;
        if (sscanf(line, " t=%lf %31s %n", &step.t, word, &used) < 2) {
            if (strspn(line, " \t\r\n") == strlen(line))
                continue;
            bad(prog, path, number, "t=SECONDS [BOARD] ACTION ...");
        }
        const char *rest = line + used;
        if (parse_action(s, prog, path, number, step, word, rest))
            continue;
        int more = 0; /* the word was a board's name: the action follows */
        if (named_boards && strlen(word) < sizeof step.board && sscanf(rest, "%31s %n", action, &more) == 1) {
            strcpy(step.board, word);
            if (parse_action(s, prog, path, number, step, action, rest + more))
                continue;
        }
        fprintf(stderr, "%s: %s:%d: unknown action '%s'\n", prog, path, number, named_boards ? action : word);
        exit(2);
    }
    fclose(f);
}

const step_t *script_due(script_t *s, double now)
{
    return s->next < s->n && s->steps[s->next].t <= now ? &s->steps[s->next++] : NULL;
}

void script_drive_pin(avr_t *avr, const step_t *step)
{
    avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(step->port), step->bit), (uint32_t)step->level);
}

static void drive_mv(avr_t *avr, int channel, double mv)
{
    mv = mv < 0 ? 0 : mv > 3300 ? 3300 : mv;
    avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_ADC0 + channel), (uint32_t)mv);
}

void script_drive_adc(avr_t *avr, const step_t *step)
{
    for (int axis = 0; axis < 3; axis++)
        drive_mv(avr, step->channel + axis, 1650.0 + 330.0 * step->g[axis]);
}

void script_drive_battery(avr_t *avr, double volts)
{
    drive_mv(avr, 7, volts * 1000.0 * 330.0 / 1330.0);
}

void script_idle_inputs(avr_t *avr, const char *ports, int tilt_channels)
{
    for (const char *port = ports; *port; port++)
        for (int bit = 0; bit < 8; bit++)
            if (!(*port == 'D' && bit < 2))
                avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(*port), bit), 1);
    for (int ch = 0; ch < tilt_channels; ch += 3) { /* every tilt node upright: z = 1 g */
        step_t upright;
        memset(&upright, 0, sizeof upright);
        upright.channel = ch;
        upright.g[2] = 1;
        script_drive_adc(avr, &upright);
    }
}
