/* A model of the nRF24L01+ for simavr, as much of it as the firmware uses, after Nordic's nRF24L01+
 * Product Specification v1.0 (section numbers in brackets):
 *  - the SPI commands R/W_REGISTER, R_RX_PAYLOAD, W_TX_PAYLOAD, W_TX_PAYLOAD_NOACK, W_ACK_PAYLOAD,
 *    R_RX_PL_WID, FLUSH_TX, FLUSH_RX, NOP, with STATUS shifted out on every command's first byte [8.3];
 *  - the registers CONFIG, EN_AA, EN_RXADDR, SETUP_AW, SETUP_RETR, RF_CH, RF_SETUP, STATUS,
 *    OBSERVE_TX, RX_ADDR_P0, TX_ADDR, FIFO_STATUS, DYNPD, FEATURE [9.1];
 *  - the three-deep TX and RX FIFOs [7.7], the IRQ pin (active low, maskable in CONFIG) [8.4];
 *  - CE: a pulse of 10 us or more sends from standby; a PRX listens while it is high [6.1.5, 6.1.6];
 *    130 us to settle into TX or RX [6.1.7 Table 16];
 *  - Enhanced ShockBurst on pipe 0: the packet ID, duplicate packets dropped but acknowledged again,
 *    the ACK (with an ACK payload when EN_ACK_PAY) 130 us after the packet, auto-retransmission
 *    after ARD up to ARC times, then MAX_RT and PLOS_CNT [7.4, 7.5, 7.6 Figures 9-11];
 *  - a full RX FIFO: the packet is dropped and not acknowledged [7.5.2].
 * Dynamic payload lengths only (the firmware sets EN_DPL); pipes 1-5 are not modelled.
 * It also keeps the time spent in each mode, for the current budget (bench/radio_in_the_loop.py). */
#ifndef SIM_NRF24_MODEL_H
#define SIM_NRF24_MODEL_H

#include <stdio.h>

#include "air.h"
#include "sim_avr.h"

enum { NRF_PD, NRF_STBY1, NRF_STBY2, NRF_TX_SETTLE, NRF_TX, NRF_WAIT_ACK, NRF_RX_SETTLE, NRF_RX, NRF_ACK_TURN,
       NRF_ACK_TX, NRF_MODES };

/* Time on this board's clock, in seconds. */
typedef double (*nrf24_clock_t)(void *ctx);

nrf24_t *nrf24_attach(air_t *air, avr_t *avr, const char *name, nrf24_clock_t clock, void *ctx);
void nrf24_power_on(nrf24_t *n, double now); /* registers to their reset values, FIFOs empty */
void nrf24_step(nrf24_t *n, double now);     /* timed transitions due by now */
int nrf24_receive(nrf24_t *n, const frame_t *frame, double at); /* 1 if the radio took it in */
int nrf24_away(const nrf24_t *n);
void nrf24_set_away(nrf24_t *n, double until);
void nrf24_report(nrf24_t *n, double now, FILE *out);

#endif
