/* Radio node firmware for an ATmega328P Pro Mini at 3.3 V / 8 MHz with an nRF24L01+: the
 * launcher or tilt logic of firmware/core for its own sensors (sensors.c), its events kept until
 * the hub takes them (core/radio.c), its battery and link in a beacon every second, and the CPU
 * asleep (idle) whenever a pass of the loop has nothing left to do. */
#include <avr/eeprom.h>
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <avr/wdt.h>

#include "clock.h"
#include "fw_radio.h"
#include "nrf24.h"
#include "sensors.h"
#include BOARD_CONFIG

#define BATTERY_EVERY_MS 10000

static fw_radio_node_t node;

static uint8_t to_node(uint8_t type, uint8_t index, uint8_t barrel, uint8_t code, uint32_t value, uint32_t t)
{
    (void)index; /* one node a board */
    return fw_radio_node_push(&node, type, barrel, code, value, t);
}

/* They only wake the CPU: the radio's IRQ line (PB0) and a finished conversion. */
EMPTY_INTERRUPT(PCINT0_vect);
EMPTY_INTERRUPT(ADC_vect);

/* The cell's voltage in mV: two conversions against the 1.1 V reference, the first one thrown
 * away because the reference has just been switched (ATmega328P datasheet §24.5.2). */
static uint16_t battery_mv(void)
{
    uint16_t counts = 0;
    for (uint8_t i = 0; i < 2; i++) {
        ADMUX = (uint8_t)(_BV(REFS1) | _BV(REFS0) | BATTERY_CHANNEL);
        ADCSRA |= _BV(ADSC);
        while (ADCSRA & _BV(ADSC))
            ;
        counts = ADC;
    }
    return (uint16_t)((uint32_t)counts * 1100UL * BATTERY_DIVIDER_NUM / BATTERY_DIVIDER_DEN / 1024UL);
}

/* The radio finished a packet: delivered (TX_DS, perhaps with the hub's table as its ACK payload)
 * or given up after its retransmissions (MAX_RT, the payload flushed). */
static void radio_done(uint32_t now)
{
    uint8_t status = nrf_status();
    if (!(status & (NRF_TX_DS | NRF_MAX_RT)))
        return;
    uint8_t retries = nrf_retries();
    if (status & NRF_RX_DR) {
        uint8_t buf[32], len;
        while ((len = nrf_read(buf)))
            fw_radio_node_acks(&node, buf, len, now);
    }
    if (status & NRF_MAX_RT)
        nrf_flush_tx();
    nrf_clear(status & (NRF_RX_DR | NRF_TX_DS | NRF_MAX_RT));
    fw_radio_node_sent(&node, (status & NRF_TX_DS) != 0, retries, now);
}

int main(void)
{
    MCUSR = 0;
    wdt_disable();
    clock_init();
    sensors_init();
    ADCSRA |= _BV(ADIE);
    uint16_t boot = eeprom_read_word(EE_BOOT) + 1;
    eeprom_write_word(EE_BOOT, boot);
    /* ARD differs per node (0.5-1.75 ms), so two nodes that collided retransmit apart. */
    nrf_init(0, (uint8_t)(1 + NODE_NID % 6));
    PCMSK0 |= _BV(PCINT0);
    PCICR |= _BV(PCIE0);
    fw_radio_node_init(&node, NODE_NID, NODE_NAME, NODE_KIND, N_BARRELS, fw_hub_new_id(boot), millis());
    node.bat_mv = battery_mv();
    uint32_t next_battery = BATTERY_EVERY_MS;
    wdt_enable(WDTO_1S);
    sei();
    for (;;) {
        uint32_t now = millis();
        sensors_poll(now, to_node);
        if ((int32_t)(now - next_battery) >= 0 && sensors_adc_idle()) {
            node.bat_mv = battery_mv();
            next_battery = now + BATTERY_EVERY_MS;
        }
        if (node.in_flight) {
            if (nrf_irq())
                radio_done(now);
        } else {
            uint8_t pkt[FW_RADIO_PAYLOAD];
            uint8_t len = fw_radio_node_next(&node, now, pkt);
            if (len)
                nrf_send(pkt, len);
        }
        sensors_persist();
        wdt_reset();
        /* Sleep until the next interrupt: the 1 kHz tick, a pin edge, the radio, the ADC. */
        cli();
        if (!nrf_irq()) {
            set_sleep_mode(SLEEP_MODE_IDLE);
            sleep_enable();
            sei();
            sleep_cpu();
            sleep_disable();
        }
        sei();
    }
}
