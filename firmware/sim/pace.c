#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "pace.h"

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

void pace_start(pace_t *p)
{
    p->start = wall_now();
    p->max_lag = 0;
}

void pace_keep(pace_t *p, double sim_t)
{
    double ahead = sim_t - (wall_now() - p->start);
    if (ahead > 0.001)
        usleep((useconds_t)(ahead * 1e6));
    else if (-ahead > p->max_lag)
        p->max_lag = -ahead;
}

void pace_report(const pace_t *p, const char *prog, double sim_t, const cable_t *c)
{
    fprintf(stderr, "%s: stopped at %.3f s simulated, %lu bytes out, %lu in, max lag %.1f ms\n", prog, sim_t,
            c->bytes_out, c->bytes_in, p->max_lag * 1000);
}
