#include "fw_core.h"

/* A contact counts as changed once its raw level has held for hold_ms without bouncing. */
uint8_t fw_debounce(fw_debounce_t *d, uint8_t raw, uint32_t now_ms, uint16_t hold_ms)
{
    if (raw != d->last_raw) {
        d->last_raw = raw;
        d->changed_at = now_ms;
        return 0;
    }
    if (raw != d->stable && now_ms - d->changed_at >= hold_ms) {
        d->stable = raw;
        return 1;
    }
    return 0;
}
