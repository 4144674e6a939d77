#include <fcntl.h>
#include <pty.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "avr_uart.h"
#include "cable.h"
#include "script.h"

void cable_plug(cable_t *c)
{
    char name[128], tmp[600];
    struct termios tio;
    if (openpty(&c->master, &c->slave, name, NULL, NULL) < 0)
        sim_fail("sim", "openpty failed");
    tcgetattr(c->slave, &tio);
    cfmakeraw(&tio);
    tcsetattr(c->slave, TCSANOW, &tio);
    fcntl(c->master, F_SETFL, fcntl(c->master, F_GETFL) | O_NONBLOCK);
    snprintf(tmp, sizeof tmp, "%s.new", c->link_path);
    unlink(tmp);
    if (symlink(name, tmp) < 0 || rename(tmp, c->link_path) < 0)
        sim_fail("sim", "cannot create the link path");
    printf("pty %s\n", name);
    fflush(stdout);
}

void cable_unplug(cable_t *c)
{
    unlink(c->link_path);
    if (c->master >= 0)
        close(c->master);
    if (c->slave >= 0)
        close(c->slave);
    c->master = c->slave = -1;
    c->head = c->tail = 0;
    printf("unplugged\n");
    fflush(stdout);
}

int cable_plugged(const cable_t *c)
{
    return c->master >= 0;
}

void cable_pull(cable_t *c, double now, double seconds)
{
    if (!cable_plugged(c))
        return;
    cable_unplug(c);
    c->replug_at = now + seconds;
}

void cable_replug_due(cable_t *c, double now)
{
    if (c->replug_at >= 0 && now >= c->replug_at) {
        c->replug_at = -1;
        cable_plug(c);
    }
}

void cable_remove_link(const cable_t *c)
{
    unlink(c->link_path);
}

static void uart_out(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    cable_t *c = param;
    uint8_t byte = (uint8_t)value;
    if (c->master >= 0 && write(c->master, &byte, 1) == 1)
        c->bytes_out++; /* while unplugged the bytes go nowhere, as on a real cable */
}

static void uart_xon(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)value;
    ((cable_t *)param)->xon = 1;
}

static void uart_xoff(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)value;
    ((cable_t *)param)->xon = 0;
}

void cable_attach(cable_t *c, avr_t *avr, const char *link_path)
{
    memset(c, 0, sizeof *c);
    c->link_path = link_path;
    c->master = c->slave = -1;
    c->xon = 1;
    c->replug_at = -1;
    uint32_t flags = 0;
    avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
    flags &= ~(uint32_t)(AVR_UART_FLAG_STDIO | AVR_UART_FLAG_POLL_SLEEP);
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT), uart_out, c);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON), uart_xon, c);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF), uart_xoff, c);
    c->uart_in = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
    cable_plug(c);
}

void cable_pump(cable_t *c)
{
    if (c->master >= 0) {
        uint8_t buf[256];
        ssize_t n = read(c->master, buf, sizeof buf);
        for (ssize_t i = 0; i < n; i++)
            if (((c->head + 1) % sizeof c->fifo) != c->tail) {
                c->fifo[c->head] = buf[i];
                c->head = (c->head + 1) % sizeof c->fifo;
            }
    }
    while (c->xon && c->tail != c->head) {
        avr_raise_irq(c->uart_in, c->fifo[c->tail]);
        c->tail = (c->tail + 1) % sizeof c->fifo;
        c->bytes_in++;
    }
}
