/* A hub board's own id (HELLO hub=), kept in EEPROM. */
#ifndef BOARD_ID_H
#define BOARD_ID_H

#include "fw_core.h"

uint16_t board_id(void);            /* the stored id, or a new one made from ADC noise at first boot */
void board_id_persist(fw_hub_t *hub); /* an id the station gave (ID), kept for the next power-up */

#endif
