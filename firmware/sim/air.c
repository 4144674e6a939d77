#include <stdlib.h>
#include <string.h>

#include "air.h"
#include "nrf24_model.h"

#define MAX_FRAMES 256
#define MAX_RADIOS 16

struct air {
    frame_t frames[MAX_FRAMES];
    int delivered[MAX_FRAMES];
    int n_frames;
    nrf24_t *radios[MAX_RADIOS];
    int n_radios;
    double loss, latency;
    unsigned seed;
    unsigned long sent, collided, lost, heard;
};

air_t *air_new(double loss, double latency_s, unsigned seed)
{
    air_t *air = calloc(1, sizeof *air);
    air->loss = loss;
    air->latency = latency_s;
    air->seed = seed ? seed : 1;
    return air;
}

void air_set_loss(air_t *air, double loss)
{
    air->loss = loss;
}

void air_join(air_t *air, nrf24_t *radio)
{
    if (air->n_radios < MAX_RADIOS)
        air->radios[air->n_radios++] = radio;
}

/* Preamble 1 byte, address 5, packet control field 9 bits, payload, CRC 2 bytes, at 1 Mbps
 * [7.3 Figure 4]. */
double air_time(uint8_t payload_len)
{
    return ((1 + 5 + payload_len + 2) * 8 + 9) / 1e6;
}

static double uniform(air_t *air)
{
    return (double)rand_r(&air->seed) / ((double)RAND_MAX + 1.0);
}

void air_transmit(air_t *air, const frame_t *frame)
{
    if (air->n_frames == MAX_FRAMES) /* the oldest frame has long been delivered */
        air_step(air, frame->start);
    int i = air->n_frames < MAX_FRAMES ? air->n_frames++ : MAX_FRAMES - 1;
    air->frames[i] = *frame;
    air->frames[i].collided = 0;
    air->delivered[i] = 0;
    air->sent++;
    if (nrf24_away(frame->from))
        return; /* out of range: nobody hears it, and it disturbs nobody */
    for (int j = 0; j < i; j++) {
        frame_t *other = &air->frames[j];
        if (other->channel == frame->channel && other->start < frame->end && frame->start < other->end &&
            !nrf24_away(other->from)) {
            if (!other->collided)
                air->collided++;
            if (!air->frames[i].collided)
                air->collided++;
            other->collided = air->frames[i].collided = 1;
        }
    }
}

void air_step(air_t *air, double now)
{
    int kept = 0;
    for (int i = 0; i < air->n_frames; i++) {
        frame_t *f = &air->frames[i];
        if (!air->delivered[i] && f->end + air->latency <= now) {
            air->delivered[i] = 1;
            for (int r = 0; r < air->n_radios; r++) {
                nrf24_t *radio = air->radios[r];
                if (radio == f->from || nrf24_away(radio) || nrf24_away(f->from) || f->collided)
                    continue;
                if (uniform(air) < air->loss) {
                    air->lost++;
                    continue;
                }
                if (nrf24_receive(radio, f, f->end + air->latency))
                    air->heard++;
            }
        }
        /* A frame is kept a while after it ended: a later-registered frame may still overlap it. */
        if (!air->delivered[i] || f->end > now - 0.005) {
            if (kept != i) {
                air->frames[kept] = *f;
                air->delivered[kept] = air->delivered[i];
            }
            kept++;
        }
    }
    air->n_frames = kept;
}

void air_report(const air_t *air, FILE *out)
{
    fprintf(out, "\"air\": {\"frames\": %lu, \"collided\": %lu, \"lost\": %lu, \"heard\": %lu, \"loss\": %.3f}",
            air->sent, air->collided, air->lost, air->heard, air->loss);
}
