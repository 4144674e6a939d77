/* The nRF24L01+ over SPI, as the radio node and the radio hub use it: Enhanced ShockBurst with
 * auto-acknowledgement, auto-retransmission, dynamic payload lengths and ACK payloads.  Numbers
 * in brackets are sections of Nordic's nRF24L01+ Product Specification v1.0.
 *
 * Wiring (hardware.md "Radio option"): CE D9 (PB1), CSN D10 (PB2), MOSI D11, MISO D12, SCK D13,
 * IRQ D8 (PB0, active low, also a pin-change interrupt to wake a sleeping node). */
#ifndef NRF24_H
#define NRF24_H

#include <stdint.h>

/* STATUS bits [9.1] */
#define NRF_RX_DR 0x40
#define NRF_TX_DS 0x20
#define NRF_MAX_RT 0x10

#define NRF_CHANNEL 76 /* 2476 MHz, above most Wi-Fi (channel 11 ends at 2473 MHz); hardware.md */

void nrf_init(uint8_t receiver, uint8_t retransmit_delay); /* delay in 250 us steps (0-15) [9.1 SETUP_RETR] */
uint8_t nrf_status(void);
void nrf_clear(uint8_t flags);
uint8_t nrf_irq(void);                          /* the IRQ pin is asserted (low) */
uint8_t nrf_read(uint8_t *buf);                 /* the oldest RX payload, its length (0: none) */
void nrf_send(const uint8_t *buf, uint8_t len); /* PTX: load and pulse CE [6.1.5] */
void nrf_ack_payload(const uint8_t *buf, uint8_t len); /* PRX: the payload of the next ACK on pipe 0 */
void nrf_flush_tx(void);
uint8_t nrf_tx_empty(void);                     /* no payload waits in the TX FIFO [9.1 FIFO_STATUS] */
uint8_t nrf_retries(void);                      /* ARC_CNT of the last packet [9.1 OBSERVE_TX] */

#endif
