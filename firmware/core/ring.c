#include <stddef.h>
#include "fw_core.h"

void fw_ring_init(fw_ring_t *ring, uint32_t first_seq)
{
    ring->head = 0;
    ring->count = 0;
    ring->first_seq = first_seq;
}

uint32_t fw_ring_next_seq(const fw_ring_t *ring)
{
    return ring->first_seq + ring->count;
}

uint8_t fw_ring_push(fw_ring_t *ring, const fw_event_t *ev)
{
    if (ring->count >= FW_RING_SIZE)
        return 0;
    ring->slot[(uint8_t)((ring->head + ring->count) % FW_RING_SIZE)] = *ev;
    ring->count++;
    return 1;
}

const fw_event_t *fw_ring_get(const fw_ring_t *ring, uint32_t seq)
{
    if (seq < ring->first_seq || seq >= ring->first_seq + ring->count)
        return NULL;
    return &ring->slot[(uint8_t)((ring->head + (seq - ring->first_seq)) % FW_RING_SIZE)];
}

void fw_ring_ack(fw_ring_t *ring, uint32_t upto)
{
    while (ring->count && ring->first_seq <= upto) {
        ring->head = (uint8_t)((ring->head + 1) % FW_RING_SIZE);
        ring->count--;
        ring->first_seq++;
    }
}

void fw_ring_report_lost(fw_ring_t *ring, uint32_t *lost, uint32_t now_ms, uint8_t spare)
{
    if (*lost && ring->count + spare < FW_RING_SIZE) {
        fw_event_t ovf = {now_ms, *lost, FW_EV_OVF, 0, 0, 0};
        if (fw_ring_push(ring, &ovf))
            *lost = 0;
    }
}
