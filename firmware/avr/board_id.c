#include <avr/eeprom.h>
#include <avr/io.h>

#include "board_id.h"
#include "sensors.h"

/* At the first boot (erased EEPROM) the id is made from ADC noise and Timer1's phase, so two
 * boards flashed alike still differ (`station hub-id` sets one). */
uint16_t board_id(void)
{
    uint16_t id = eeprom_read_word(EE_HUB_ID);
    if (id != 0xFFFF && id != 0)
        return id;
    uint8_t adcsra = ADCSRA;
    ADCSRA = _BV(ADEN) | _BV(ADPS2) | _BV(ADPS1);
    uint16_t seed = TCNT1;
    for (uint8_t i = 0; i < 24; i++) {
        ADMUX = (uint8_t)(i % 6);
        ADCSRA |= _BV(ADSC);
        while (ADCSRA & _BV(ADSC))
            ;
        seed = (uint16_t)(seed * 31 + ADC + TCNT1);
    }
    ADCSRA = adcsra;
    id = fw_hub_new_id(seed);
    eeprom_write_word(EE_HUB_ID, id);
    return id;
}

void board_id_persist(fw_hub_t *hub)
{
    if (hub->id_changed && eeprom_is_ready()) {
        hub->id_changed = 0;
        eeprom_update_word(EE_HUB_ID, hub->hub_id);
    }
}
