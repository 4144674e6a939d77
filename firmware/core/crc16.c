#include "fw_core.h"

/* Byte at a time, table-free: the shifts below are the eight bit steps of polynomial 0x1021
 * folded together.  At 1 Mbaud the hub checksums every line it sends and receives, and the
 * bitwise loop (8 iterations a byte) cost more than the wire; this costs about a tenth as much,
 * in a few bytes more code and no table. */
uint16_t fw_crc16(const char *data, uint16_t len)
{
    uint16_t crc = 0xFFFF;
    while (len--) {
        uint8_t x = (uint8_t)((crc >> 8) ^ (uint8_t)*data++);
        x ^= (uint8_t)(x >> 4);
        crc = (uint16_t)((crc << 8) ^ ((uint16_t)x << 12) ^ ((uint16_t)x << 5) ^ x);
    }
    return crc;
}
