/* Hub firmware for the ATmega328P at 16 MHz, with its launchers and tilt nodes wired to it: the
 * platform around the portable core.  Clocks (clock.c), the serial link (uart.c) and the sensors
 * (sensors.c) are modules shared with the radio builds; the boot number and the board's id live
 * in EEPROM; the watchdog restarts a hung board. */
#include <avr/eeprom.h>
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/wdt.h>

#include "board_id.h"
#include "clock.h"
#include "sensors.h"
#include "uart.h"
#include BOARD_CONFIG

static fw_hub_t hub;

static uint8_t to_hub(uint8_t type, uint8_t node, uint8_t barrel, uint8_t code, uint32_t value, uint32_t t)
{
    return fw_hub_push_event(&hub, type, node, barrel, code, value, t);
}

#ifdef STRESS_RATE
/* The link stress build (`make -C firmware build/hub-stress.elf`): besides its sensors, the hub
 * makes STRESS_RATE dry-fire events a second on its first launcher, to test the wire, the ring and
 * the station at a rate no board's launchers reach (bench/firmware_in_the_loop.py --stress). */
static void stress(uint32_t now_ms)
{
    static uint32_t made, started;
    static uint8_t running;
    if (!running) {
        running = 1;
        started = now_ms;
    }
    uint32_t due = (uint32_t)(((uint64_t)(now_ms - started) * STRESS_RATE) / 1000UL);
    while (made < due) {
        fw_hub_push_event(&hub, FW_EV_DRY, 0, 1, 0, 0, now_ms);
        made++;
    }
}
#endif

int main(void)
{
    MCUSR = 0;
    wdt_disable();
    clock_init();
    uart_init();
    sensors_init();
    wdt_enable(WDTO_1S);
    uint16_t boot = eeprom_read_word(EE_BOOT) + 1;
    eeprom_write_word(EE_BOOT, boot);
    fw_hub_init(&hub, NODES, N_NODES, FW_STR(FW_NAME), boot);
    fw_hub_set_baud(&hub, HUB_BAUD);
    fw_hub_set_id(&hub, board_id());
    sei();
    for (;;) {
        uint32_t now = millis();
        sensors_poll(now, to_hub);
        fw_hub_tick(&hub, now);
#ifdef STRESS_RATE
        stress(now);
#endif
        hub.edge_drops = sensors_edge_drops();
        uart_serve(&hub, 0);
        sensors_persist();
        board_id_persist(&hub);
        wdt_reset();
    }
}
