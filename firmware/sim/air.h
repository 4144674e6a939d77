/* The air that simulated nRF24L01+ radios share (nrf24_model.c): every packet is a frame with a
 * start and an end; frames on one channel that overlap in time destroy each other (no capture
 * effect), and each frame is lost on its way to a receiver with the configured probability.
 * A radio "away" (out of range) neither hears nor is heard. */
#ifndef SIM_AIR_H
#define SIM_AIR_H

#include <stdint.h>
#include <stdio.h>

typedef struct nrf24 nrf24_t;

typedef struct {
    double start, end;
    int channel;
    uint8_t addr[5];
    uint8_t payload[32];
    uint8_t len, pid, noack, is_ack;
    nrf24_t *from;
    int collided;
} frame_t;

typedef struct air air_t;

air_t *air_new(double loss, double latency_s, unsigned seed);
void air_set_loss(air_t *air, double loss);
void air_join(air_t *air, nrf24_t *radio);
void air_transmit(air_t *air, const frame_t *frame);
void air_step(air_t *air, double now); /* delivers the frames that have ended by now */
double air_time(uint8_t payload_len); /* on the air at 1 Mbps, seconds [datasheet 7.3] */
void air_report(const air_t *air, FILE *out);

#endif
