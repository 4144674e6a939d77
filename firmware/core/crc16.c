#include "fw_core.h"

/* Bitwise, table-free: 16 bytes of code size matter more on the AVR than speed at 115200 baud. */
uint16_t fw_crc16(const char *data, uint16_t len)
{
    uint16_t crc = 0xFFFF;
    while (len--) {
        crc ^= (uint16_t)((uint8_t)*data++) << 8;
        for (uint8_t i = 0; i < 8; i++)
            crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
    }
    return crc;
}
