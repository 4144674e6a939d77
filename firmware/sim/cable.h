/* A simulated board's USB cable: UART0 bridged to a pseudo-terminal at a stable symlink, which the
 * station opens as it opens /dev/ttyACM0.  It can be pulled and plugged back. */
#ifndef SIM_CABLE_H
#define SIM_CABLE_H

#include "sim_avr.h"

typedef struct {
    const char *link_path;
    int master, slave;
    avr_irq_t *uart_in;
    uint8_t fifo[8192];
    unsigned head, tail;
    int xon;
    double replug_at; /* simulated time the pulled cable goes back in (-1: not pulled) */
    unsigned long bytes_out, bytes_in;
} cable_t;

void cable_attach(cable_t *c, avr_t *avr, const char *link_path); /* and plug it in */
void cable_plug(cable_t *c);
void cable_unplug(cable_t *c);
int cable_plugged(const cable_t *c);
void cable_pull(cable_t *c, double now, double seconds); /* unplugged for a while (a script's unplug) */
void cable_replug_due(cable_t *c, double now);          /* plugged back once its time has come */
void cable_pump(cable_t *c); /* the station's bytes into the UART, as fast as the UART takes them */
void cable_remove_link(const cable_t *c);

#endif
