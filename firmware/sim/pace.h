/* Simulated time kept to the wall clock, so the station talks to a simulated board in real time. */
#ifndef SIM_PACE_H
#define SIM_PACE_H

#include "cable.h"

typedef struct {
    double start;   /* wall time at simulated time 0 */
    double max_lag; /* how far simulated time ever fell behind wall time, s */
} pace_t;

void pace_start(pace_t *p);
void pace_keep(pace_t *p, double sim_t); /* sleep while ahead of the wall; note how far behind */
/* The closing line on stderr: where the simulation stopped, the cable's bytes, the worst lag. */
void pace_report(const pace_t *p, const char *prog, double sim_t, const cable_t *c);

#endif
