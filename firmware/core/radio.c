/* The radio option's delivery, node and hub sides (fw_radio.h says the scheme). */
#include <string.h>
#include "fw_radio.h"

/* ---- Packet bytes: little-endian, no padding, the same on the AVR and the host ---------------- */
static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, (uint16_t)v);
    put16(p + 2, (uint16_t)(v >> 16));
}

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t get32(const uint8_t *p)
{
    return get16(p) | ((uint32_t)get16(p + 2) << 16);
}

/* Every node packet begins: kind, nid, boot (2), seq (4), the node's clock as it was written (4). */
#define HEADER 12
#define EVENT_LEN (HEADER + 11)  /* t (4), value (4), type, barrel, code */
#define BEACON_LEN (HEADER + 16) /* battery mV, retries, failed (2 each), kind, barrels, name (8) */
#define ACK_ENTRY 5              /* nid, boot (2), last event taken (2, low half) */

/* ---- Node ------------------------------------------------------------------------------------ */
void fw_radio_node_init(fw_radio_node_t *n, uint8_t nid, const char *name, uint8_t kind, uint8_t barrels,
                        uint16_t boot, uint32_t now_ms)
{
    memset(n, 0, sizeof *n);
    fw_ring_init(&n->ring, 1);
    n->send_seq = 1;
    n->nid = nid;
    for (uint8_t i = 0; i < sizeof n->name && name[i]; i++) /* 8 characters, no terminator needed */
        n->name[i] = name[i];
    n->kind = kind;
    n->barrels = barrels;
    n->boot = boot;
    n->rand = 0x9E3779B9UL ^ ((uint32_t)nid << 16) ^ boot;
    n->next_beacon_ms = now_ms; /* introduce itself at once: the hub names its events from this */
    n->progress_ms = now_ms;
}

uint8_t fw_radio_node_push(fw_radio_node_t *n, uint8_t type, uint8_t barrel, uint8_t code, uint32_t value,
                           uint32_t t)
{
    if (n->ring.count >= FW_RING_SIZE - 1) { /* the last slot is kept for the OVF that reports this */
        n->lost++;
        return 0;
    }
    fw_event_t ev = {t, value, (uint8_t)(type & 7), 0, (uint8_t)(barrel & 15), (uint8_t)(code & 15)};
    if (!n->ring.count)
        n->progress_ms = t; /* the retry clock starts with the first unacknowledged event */
    return fw_ring_push(&n->ring, &ev);
}

uint8_t fw_radio_node_pending(const fw_radio_node_t *n)
{
    return n->ring.count;
}

static uint8_t header(const fw_radio_node_t *n, uint8_t *pkt, uint8_t kind, uint32_t seq, uint32_t now_ms)
{
    pkt[0] = kind;
    pkt[1] = n->nid;
    put16(pkt + 2, n->boot);
    put32(pkt + 4, seq);
    put32(pkt + 8, now_ms);
    return HEADER;
}

static uint32_t next_random(fw_radio_node_t *n)
{
    n->rand ^= n->rand << 13;
    n->rand ^= n->rand >> 17;
    n->rand ^= n->rand << 5;
    return n->rand;
}

uint8_t fw_radio_node_next(fw_radio_node_t *n, uint32_t now_ms, uint8_t *pkt)
{
    if (n->in_flight || (int32_t)(now_ms - n->quiet_until) < 0)
        return 0;
    fw_ring_report_lost(&n->ring, &n->lost, now_ms, 0); /* push keeps the last slot for this */
    if ((int32_t)(now_ms - n->next_beacon_ms) >= 0) {
        /* A second, give or take 32 ms at random: two nodes switched on together would otherwise
         * beacon in step, collide every time, and one could take the other's ACK for its own. */
        n->next_beacon_ms = now_ms + FW_RADIO_BEACON_MS - 32 + next_random(n) % 64;
        header(n, pkt, FW_PKT_BEACON, n->send_seq - 1, now_ms);
        put16(pkt + HEADER, n->bat_mv);
        put16(pkt + HEADER + 2, n->retries);
        put16(pkt + HEADER + 4, n->failed);
        pkt[HEADER + 6] = n->kind;
        pkt[HEADER + 7] = n->barrels;
        memcpy(pkt + HEADER + 8, n->name, sizeof n->name);
        n->in_flight = FW_PKT_BEACON;
        return BEACON_LEN;
    }
    if (n->ring.count && (int32_t)(now_ms - n->progress_ms) >= FW_RADIO_RETRY_MS) {
        n->send_seq = n->ring.first_seq; /* no word from the hub: go back to the oldest */
        n->progress_ms = now_ms;
    }
    const fw_event_t *ev = fw_ring_get(&n->ring, n->send_seq);
    if (ev) {
        header(n, pkt, FW_PKT_EVENT, n->send_seq, now_ms);
        put32(pkt + HEADER, ev->t);
        put32(pkt + HEADER + 4, ev->value);
        pkt[HEADER + 8] = ev->type;
        pkt[HEADER + 9] = ev->barrel;
        pkt[HEADER + 10] = ev->code;
        n->in_flight = FW_PKT_EVENT;
        return EVENT_LEN;
    }
    if (n->poll_at && (int32_t)(now_ms - n->poll_at) >= 0) {
        n->poll_at = 0;
        n->in_flight = FW_PKT_POLL;
        return header(n, pkt, FW_PKT_POLL, n->send_seq - 1, now_ms);
    }
    return 0;
}

void fw_radio_node_sent(fw_radio_node_t *n, uint8_t delivered, uint8_t retries, uint32_t now_ms)
{
    uint8_t kind = n->in_flight;
    n->in_flight = 0;
    n->retries = (uint16_t)(n->retries + retries);
    if (!delivered) {
        /* The radio gave up (MAX_RT): out of range or a crowded channel.  Wait a random while that
         * doubles with every failure in a row, so two nodes that collided stop colliding. */
        n->failed++;
        if (n->fails_in_row < 8)
            n->fails_in_row++;
        uint16_t span = (uint16_t)(2U << n->fails_in_row);
        if (span > FW_RADIO_BACKOFF_MAX_MS)
            span = FW_RADIO_BACKOFF_MAX_MS;
        n->quiet_until = now_ms + 1 + next_random(n) % span;
        if (kind == FW_PKT_POLL)
            n->poll_at = n->quiet_until;
        else if (kind == FW_PKT_BEACON) /* the hub names a node's events from it: again soon, not in a second */
            n->next_beacon_ms = n->quiet_until;
        return;
    }
    n->fails_in_row = 0;
    if (kind == FW_PKT_EVENT) {
        n->send_seq++;
        if (!fw_ring_get(&n->ring, n->send_seq)) /* the last one out: ask for the table shortly */
            n->poll_at = now_ms + FW_RADIO_POLL_MS;
    } else if (kind == FW_PKT_POLL && n->ring.count) {
        n->poll_at = now_ms + FW_RADIO_POLL_MS; /* keep asking until the table says or the retry comes */
    }
}

void fw_radio_node_acks(fw_radio_node_t *n, const uint8_t *pkt, uint8_t len, uint32_t now_ms)
{
    if (len < 1 || pkt[0] != FW_PKT_ACKS)
        return;
    for (uint8_t i = 1; i + ACK_ENTRY <= len; i += ACK_ENTRY) {
        if (pkt[i] != n->nid || get16(pkt + i + 1) != n->boot)
            continue; /* another node's, or what the hub knew of this node's previous boot */
        /* The low half of the last event taken, read against the events still held. */
        uint32_t base = n->ring.first_seq - 1;
        int16_t ahead = (int16_t)(get16(pkt + i + 3) - (uint16_t)base);
        if (ahead <= 0)
            return;
        uint32_t upto = base + (uint32_t)ahead;
        if (upto >= fw_ring_next_seq(&n->ring))
            upto = fw_ring_next_seq(&n->ring) - 1;
        fw_ring_ack(&n->ring, upto);
        if (n->send_seq < n->ring.first_seq)
            n->send_seq = n->ring.first_seq;
        n->progress_ms = now_ms;
        if (!n->ring.count)
            n->poll_at = 0;
        return;
    }
}

/* ---- Hub --------------------------------------------------------------------------------------- */
void fw_radio_hub_init(fw_radio_hub_t *r, fw_hub_t *hub)
{
    memset(r, 0, sizeof *r);
    hub->ram_nodes = r->nodes;
    hub->n_nodes = 0;
}

static fw_radio_peer_t *peer_of(fw_radio_hub_t *r, uint8_t nid, uint8_t *index)
{
    for (uint8_t i = 0; i < r->n_peers; i++)
        if (r->peer[i].nid == nid) {
            *index = i;
            return &r->peer[i];
        }
    if (r->n_peers >= FW_RADIO_NODES_MAX)
        return NULL;
    *index = r->n_peers;
    fw_radio_peer_t *p = &r->peer[r->n_peers++];
    memset(p, 0, sizeof *p);
    p->nid = nid;
    return p;
}

/* The node's clock onto the hub's.  Every packet carries the node's clock as it was written, and
 * the hub reads it a little later: the air time, the retransmissions, the hub's loop.  So the
 * smallest (hub - node) seen is the best offset, as in NTP's minimum filter.  Between two such
 * minima the estimate rises by 1 ms every 256 ms (0.4 %, more than a ceramic resonator's drift),
 * so a node whose clock runs slow is followed; one that runs fast gives lower samples, taken at once. */
static int32_t clock_offset(const fw_radio_peer_t *p, uint32_t now_ms)
{
    return p->offset + (int32_t)((now_ms - p->offset_at) >> 8);
}

static void clock_sample(fw_radio_peer_t *p, uint32_t node_ms, uint32_t now_ms, uint8_t fresh)
{
    int32_t sample = (int32_t)(now_ms - node_ms);
    if (fresh || sample <= clock_offset(p, now_ms)) {
        p->offset = sample;
        p->offset_at = now_ms;
    }
}

static void take_event(fw_radio_peer_t *p, uint8_t index, fw_hub_t *hub, const uint8_t *pkt, uint32_t seq,
                       uint32_t now_ms)
{
    if (seq < p->expected) {
        p->dups++; /* its acknowledgement was lost: the table says so again */
        return;
    }
    if (seq > p->expected || !p->known || p->join_due || fw_hub_room(hub) == 0)
        return; /* a gap, a node not introduced yet, or no room: left with the node, which resends */
    uint8_t type = pkt[HEADER + 8];
    uint32_t t = get32(pkt + HEADER), value = get32(pkt + HEADER + 4);
    t = type == FW_EV_OVF ? now_ms : (uint32_t)((int32_t)t + clock_offset(p, now_ms));
    if (fw_hub_push_event(hub, type, index, pkt[HEADER + 9], pkt[HEADER + 10], value, t))
        p->expected++;
}

static void introduce(fw_radio_hub_t *r, fw_radio_peer_t *p, uint8_t index, const uint8_t *pkt)
{
    fw_node_t *node = &r->nodes[index];
    memcpy(node->id, pkt + HEADER + 8, sizeof node->id);
    node->kind = pkt[HEADER + 6];
    node->barrels = pkt[HEADER + 7];
    p->bat_mv = get16(pkt + HEADER);
    p->retries = get16(pkt + HEADER + 2);
    p->failed = get16(pkt + HEADER + 4);
    p->known = 1;
}

void fw_radio_hub_packet(fw_radio_hub_t *r, fw_hub_t *hub, const uint8_t *pkt, uint8_t len, uint32_t now_ms)
{
    uint8_t index;
    uint8_t kind = len >= HEADER ? pkt[0] : 0;
    if ((kind == FW_PKT_EVENT && len < EVENT_LEN) || (kind == FW_PKT_BEACON && len < BEACON_LEN) ||
        kind < FW_PKT_EVENT || kind > FW_PKT_POLL) {
        r->refused++;
        return;
    }
    fw_radio_peer_t *p = peer_of(r, pkt[1], &index);
    if (!p) {
        r->refused++;
        return;
    }
    uint16_t boot = get16(pkt + 2);
    uint8_t fresh = p->expected == 0; /* never heard in this boot of the hub */
    if (boot != p->boot || fresh) { /* first heard, or the node restarted: its numbering begins again */
        p->boot = boot;
        p->expected = 1;
        p->join_due = 1;
        fresh = 1;
    }
    clock_sample(p, get32(pkt + 8), now_ms, fresh);
    p->heard_ms = now_ms;
    r->last_peer = index;
    if (kind == FW_PKT_BEACON) {
        introduce(r, p, index, pkt);
        if (index >= hub->n_nodes)
            hub->n_nodes = (uint8_t)(index + 1);
    }
    if (p->join_due && p->known && fw_hub_room(hub)) {
        /* A sequenced JOIN goes before the new boot's events, so the station sees the restart in
         * order and does not take event 1 of the new boot for a resend. */
        if (fw_hub_push_event(hub, FW_EV_JOIN, index, 0, 0, p->boot, now_ms)) {
            p->join_due = 0;
            hub->want_hello = 1; /* the inventory grew, or says a new boot: say it */
        }
    }
    if (kind == FW_PKT_EVENT)
        take_event(p, index, hub, pkt, get32(pkt + 4), now_ms);
}

uint8_t fw_radio_hub_acks(const fw_radio_hub_t *r, uint8_t *pkt)
{
    uint8_t len = 1;
    pkt[0] = FW_PKT_ACKS;
    /* The node heard last first (it is the one polling), then the others, as many as fit. */
    for (uint8_t k = 0; k < r->n_peers && len + ACK_ENTRY <= FW_RADIO_PAYLOAD; k++) {
        const fw_radio_peer_t *p = &r->peer[(uint8_t)((r->last_peer + k) % r->n_peers)];
        pkt[len] = p->nid;
        put16(pkt + len + 1, p->boot);
        put16(pkt + len + 3, (uint16_t)(p->expected - 1));
        len += ACK_ENTRY;
    }
    return len;
}

void fw_radio_hub_tick(fw_radio_hub_t *r, const fw_hub_t *hub)
{
    if (!hub->hb_due)
        return;
    for (uint8_t i = 0; i < r->n_peers; i++) /* each node's state, once a second with the heartbeat */
        r->peer[i].status_due = r->peer[i].known;
}

/* RADIO SEQ node=ID boot=HHHH bat=MV age=MS taken=N retries=N failed=N dups=N (SEQ: the last event issued,
 * as in HB).  Not sequenced: a lost one is followed by the next a second later. */
uint8_t fw_radio_hub_next_line(fw_radio_hub_t *r, const fw_hub_t *hub, uint32_t now_ms, char *buf)
{
    for (uint8_t i = 0; i < r->n_peers; i++) {
        fw_radio_peer_t *p = &r->peer[i];
        if (!p->status_due)
            continue;
        p->status_due = 0;
        fw_line_t l;
        fw_line_start(&l, buf, FW_STR("RADIO"), fw_ring_next_seq(&hub->ring) - 1);
        fw_line_str(&l, FW_STR(" node="));
        fw_line_ram_str(&l, r->nodes[i].id, sizeof r->nodes[i].id);
        fw_line_str(&l, FW_STR(" boot="));
        fw_line_hex16(&l, p->boot);
        fw_line_field(&l, FW_STR("bat"), p->bat_mv);
        fw_line_field(&l, FW_STR("age"), now_ms - p->heard_ms);
        fw_line_field(&l, FW_STR("taken"), p->expected - 1);
        fw_line_field(&l, FW_STR("retries"), p->retries);
        fw_line_field(&l, FW_STR("failed"), p->failed);
        fw_line_field(&l, FW_STR("dups"), p->dups);
        return fw_line_finish(&l);
    }
    return 0;
}

uint16_t fw_sizeof_radio_node(void) { return sizeof(fw_radio_node_t); }
uint16_t fw_sizeof_radio_hub(void) { return sizeof(fw_radio_hub_t); }
