/*
 * board-sim: runs the real hub firmware (an AVR ELF) in simavr, in real time, with UART0 bridged
 * to a pseudo-terminal reachable at a stable symlink, and plays timed stimuli from a script:
 *
 *   t=1.200 pin D2 low            trigger pressed (stays low)
 *   t=1.230 pin D3 low 4ms        IR gate blocked for 4 ms, then released
 *   t=1.700 adc A0 x=0.1 y=0.9 z=0.2   accelerometer on A0/A1/A2, in g
 *   t=5.000 unplug 2.0            the USB cable is pulled for 2 s (the pty closes, then returns)
 *   t=6.000 reset                 the MCU resets (brown-out, watchdog) while the cable stays in
 *   t=30    end                   stop
 *
 * Usage: board-sim FIRMWARE.elf --link PATH [--script FILE]
 * It prints "pty /dev/pts/N" each time the cable is (re)plugged, and "ready" once running.
 */
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "avr_adc.h"
#include "avr_ioport.h"
#include "avr_uart.h"
#include "sim_avr.h"
#include "sim_elf.h"

enum { STEP_PIN, STEP_ADC, STEP_UNPLUG, STEP_RESET, STEP_END };
typedef struct {
    double t;
    int kind;
    char port;
    int bit, level, channel;
    double g[3], seconds;
} step_t;

#define MAX_STEPS 16384
static step_t steps[MAX_STEPS];
static int n_steps, next_step;
static avr_t *avr;
static int master = -1, slave = -1;
static const char *link_path;
static volatile sig_atomic_t running = 1;
static uint8_t fifo[8192];
static unsigned fifo_head, fifo_tail;
static int xon = 1;
static double replug_at = -1;
static double clock_offset; /* simulated seconds before the last MCU reset (which zeroes the cycle count) */

static double sim_now(void)
{
    return clock_offset + (double)avr->cycle / avr->frequency;
}
static unsigned long bytes_out, bytes_in;
static double max_lag; /* how far simulated time ever fell behind wall time, s */

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fail(const char *what)
{
    fprintf(stderr, "board-sim: %s\n", what);
    exit(2);
}

static void add_step(step_t s)
{
    if (n_steps >= MAX_STEPS)
        fail("too many script steps");
    int i = n_steps++;
    while (i > next_step && steps[i - 1].t > s.t) { /* keep sorted, stable */
        steps[i] = steps[i - 1];
        i--;
    }
    steps[i] = s;
}

static void load_script(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[256], word[32], arg[32];
    int number = 0;
    if (!f)
        fail("cannot open the script");
    while (fgets(line, sizeof line, f)) {
        number++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        step_t s = {0};
        int used = 0;
        if (sscanf(line, " t=%lf %31s %n", &s.t, word, &used) < 2) {
            if (strspn(line, " \t\r\n") == strlen(line))
                continue;
            fprintf(stderr, "board-sim: %s:%d: expected 't=SECONDS ACTION ...'\n", path, number);
            exit(2);
        }
        const char *rest = line + used;
        if (!strcmp(word, "pin")) {
            char port;
            int bit;
            double ms = 0;
            if (sscanf(rest, "%c%d %31s %lfms", &port, &bit, arg, &ms) < 3 || port < 'B' || port > 'D' ||
                bit < 0 || bit > 7 || (strcmp(arg, "low") && strcmp(arg, "high"))) {
                fprintf(stderr, "board-sim: %s:%d: expected 'pin D2 low|high [4ms]'\n", path, number);
                exit(2);
            }
            s.kind = STEP_PIN;
            s.port = port;
            s.bit = bit;
            s.level = !strcmp(arg, "high");
            add_step(s);
            if (ms > 0) {
                s.t += ms / 1000.0;
                s.level = !s.level;
                add_step(s);
            }
        } else if (!strcmp(word, "adc")) {
            if (sscanf(rest, "A%d x=%lf y=%lf z=%lf", &s.channel, &s.g[0], &s.g[1], &s.g[2]) != 4 ||
                s.channel < 0 || s.channel > 5) {
                fprintf(stderr, "board-sim: %s:%d: expected 'adc A0 x=G y=G z=G'\n", path, number);
                exit(2);
            }
            s.kind = STEP_ADC;
            add_step(s);
        } else if (!strcmp(word, "unplug")) {
            if (sscanf(rest, "%lf", &s.seconds) != 1 || s.seconds <= 0) {
                fprintf(stderr, "board-sim: %s:%d: expected 'unplug SECONDS'\n", path, number);
                exit(2);
            }
            s.kind = STEP_UNPLUG;
            add_step(s);
        } else if (!strcmp(word, "reset")) {
            s.kind = STEP_RESET;
            add_step(s);
        } else if (!strcmp(word, "end")) {
            s.kind = STEP_END;
            add_step(s);
        } else {
            fprintf(stderr, "board-sim: %s:%d: unknown action '%s'\n", path, number, word);
            exit(2);
        }
    }
    fclose(f);
}

/* ---- the cable ------------------------------------------------------------------------------ */
static void plug(void)
{
    char name[128], tmp[600];
    struct termios tio;
    if (openpty(&master, &slave, name, NULL, NULL) < 0)
        fail("openpty failed");
    tcgetattr(slave, &tio);
    cfmakeraw(&tio);
    tcsetattr(slave, TCSANOW, &tio);
    fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
    snprintf(tmp, sizeof tmp, "%s.new", link_path);
    unlink(tmp);
    if (symlink(name, tmp) < 0 || rename(tmp, link_path) < 0)
        fail("cannot create the link path");
    printf("pty %s\n", name);
    fflush(stdout);
}

static void unplug(void)
{
    unlink(link_path);
    if (master >= 0)
        close(master);
    if (slave >= 0)
        close(slave);
    master = slave = -1;
    fifo_head = fifo_tail = 0;
    printf("unplugged\n");
    fflush(stdout);
}

static void uart_out(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    uint8_t c = (uint8_t)value;
    if (master >= 0 && write(master, &c, 1) == 1)
        bytes_out++; /* while unplugged the bytes go nowhere, as on a real cable */
}

static void uart_xon(struct avr_irq_t *irq, uint32_t value, void *param) { (void)irq; (void)value; (void)param; xon = 1; }
static void uart_xoff(struct avr_irq_t *irq, uint32_t value, void *param) { (void)irq; (void)value; (void)param; xon = 0; }

static void pump_input(avr_irq_t *in)
{
    if (master >= 0) {
        uint8_t buf[256];
        ssize_t n = read(master, buf, sizeof buf);
        for (ssize_t i = 0; i < n; i++)
            if (((fifo_head + 1) % sizeof fifo) != fifo_tail) {
                fifo[fifo_head] = buf[i];
                fifo_head = (fifo_head + 1) % sizeof fifo;
            }
    }
    while (xon && fifo_tail != fifo_head) {
        avr_raise_irq(in, fifo[fifo_tail]);
        fifo_tail = (fifo_tail + 1) % sizeof fifo;
        bytes_in++;
    }
}

/* ---- stimuli --------------------------------------------------------------------------------- */
static void apply(const step_t *s, double sim_t);

static void idle_inputs(void)
{
    for (char port = 'B'; port <= 'D'; port++) /* nothing pressed, no gate blocked */
        for (int bit = 0; bit < 8; bit++)
            if (!(port == 'D' && bit < 2))
                avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(port), bit), 1);
    for (int ch = 0; ch < 6; ch += 3) { /* every tilt node upright: z = 1 g */
        step_t upright = {0, STEP_ADC, 0, 0, 0, ch, {0, 0, 1}, 0};
        apply(&upright, 0);
    }
}

static void apply(const step_t *s, double sim_t)
{
    switch (s->kind) {
    case STEP_PIN:
        avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(s->port), s->bit), (uint32_t)s->level);
        break;
    case STEP_ADC:
        for (int axis = 0; axis < 3; axis++) {
            double mv = 1650.0 + 330.0 * s->g[axis]; /* ADXL335 at 3.3 V: 1.65 V at 0 g, 330 mV/g */
            mv = mv < 0 ? 0 : mv > 3300 ? 3300 : mv;
            avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_ADC0 + s->channel + axis), (uint32_t)mv);
        }
        break;
    case STEP_UNPLUG:
        if (master >= 0) {
            unplug();
            replug_at = sim_t + s->seconds;
        }
        break;
    case STEP_RESET: /* RAM and registers start over; EEPROM (the boot counter) stays */
        avr_reset(avr);
        clock_offset = sim_t - (double)avr->cycle / avr->frequency;
        idle_inputs(); /* the reset forgets what drives the pins; the wiring has not changed */
        printf("reset\n");
        fflush(stdout);
        break;
    case STEP_END:
        running = 0;
        break;
    }
}

static void on_signal(int sig)
{
    (void)sig;
    running = 0;
}

int main(int argc, char **argv)
{
    const char *script = NULL;
    elf_firmware_t fw;
    if (argc < 4 || strcmp(argv[2], "--link"))
        fail("usage: board-sim FIRMWARE.elf --link PATH [--script FILE]");
    link_path = argv[3];
    if (argc >= 6 && !strcmp(argv[4], "--script"))
        script = argv[5];
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(argv[1], &fw) != 0)
        fail("cannot read the firmware ELF");
    avr = avr_make_mcu_by_name("atmega328p");
    if (!avr)
        fail("simavr has no atmega328p");
    avr_init(avr);
    avr->frequency = 16000000;
    avr->vcc = avr->avcc = 5000;
    avr->aref = 3300; /* the board wires 3.3 V to AREF, as the accelerometers run at 3.3 V */
    avr->log = LOG_ERROR;
    avr_load_firmware(avr, &fw);
    if (script)
        load_script(script);

    uint32_t flags = 0;
    avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
    flags &= ~(uint32_t)(AVR_UART_FLAG_STDIO | AVR_UART_FLAG_POLL_SLEEP);
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT), uart_out, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON), uart_xon, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF), uart_xoff, NULL);
    avr_irq_t *uart_in = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);

    idle_inputs();

    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    signal(SIGPIPE, SIG_IGN);
    plug();
    printf("ready\n");
    fflush(stdout);
    double start = wall_now();
    while (running) {
        for (int i = 0; i < 400; i++) { /* about 25 us of AVR time per pass */
            int state = avr_run(avr);
            if (state == cpu_Done || state == cpu_Crashed) {
                fprintf(stderr, "board-sim: the firmware stopped (state %d)\n", state);
                unlink(link_path);
                return 3;
            }
        }
        double sim_t = sim_now();
        while (next_step < n_steps && steps[next_step].t <= sim_t)
            apply(&steps[next_step++], sim_t);
        if (replug_at >= 0 && sim_t >= replug_at) {
            replug_at = -1;
            plug();
        }
        pump_input(uart_in);
        double ahead = sim_t - (wall_now() - start);
        if (ahead > 0.001)
            usleep((useconds_t)(ahead * 1e6));
        else if (-ahead > max_lag)
            max_lag = -ahead;
    }
    fprintf(stderr, "board-sim: stopped at %.3f s simulated, %lu bytes out, %lu in, max lag %.1f ms\n",
            sim_now(), bytes_out, bytes_in, max_lag * 1000);
    unlink(link_path);
    return 0;
}
