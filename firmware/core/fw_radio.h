/*
 * The radio option's portable core: what a radio node sends over an nRF24L01+ and how the radio
 * hub takes it in.  No AVR or radio headers: the host builds it too (libfwcore.so), so pytest
 * drives both ends through ctypes, and firmware/avr only moves bytes between it and the radio.
 *
 * Delivery, end to end (docs/protocol.md "Radio nodes"):
 *  - a node numbers its events per boot (1, 2, ...) and keeps each one in its ring until the hub
 *    says it holds it; Enhanced ShockBurst's own ACK only says that the hub's radio heard the
 *    packet, not that the hub took it;
 *  - the hub's end-to-end acknowledgement rides in the ESB ACK payload: a table of
 *    (node, boot, last event taken) that the hub rewrites after every packet it reads;
 *  - a node sends its events in order, then polls for the table, and goes back to its oldest
 *    unacknowledged event (go-back-N) when no progress comes, with a back-off after a packet the
 *    radio gave up on;
 *  - the hub takes a node's events strictly in order per boot, drops duplicates, and maps the
 *    node's clock onto its own from the send stamp every packet carries.
 */
#ifndef FW_RADIO_H
#define FW_RADIO_H

#include "fw_core.h"

#define FW_RADIO_PAYLOAD 32        /* nRF24L01+ largest payload (datasheet §7.3.4) */
#define FW_RADIO_BEACON_MS 1000    /* a node's heartbeat */
#define FW_RADIO_POLL_MS 4         /* after its last event went out, ask for the hub's table */
#define FW_RADIO_RETRY_MS 60       /* no progress for this long: go back to the oldest unacknowledged */
#define FW_RADIO_BACKOFF_MAX_MS 512
#define FW_RADIO_NODES_MAX 8       /* radio nodes one hub tracks (its RAM, hardware.md) */
#define FW_RADIO_SILENT_MS 3000    /* a node unheard this long is silent (3 beacons missed) */

enum { FW_PKT_EVENT = 1, FW_PKT_BEACON, FW_PKT_POLL, FW_PKT_ACKS };

/* ---- Node ------------------------------------------------------------------------------------ */
typedef struct {
    fw_ring_t ring;       /* events not yet acknowledged by the hub, numbered from 1 */
    uint32_t send_seq;    /* next event to put on the air */
    uint32_t lost;        /* events the ring could not hold, not yet reported (OVF) */
    uint32_t progress_ms; /* when the hub's table last moved our acknowledgement on (or we last went back) */
    uint32_t quiet_until; /* back-off: nothing is sent before this */
    uint32_t next_beacon_ms;
    uint32_t poll_at;     /* when to poll for the table (0: no poll owed) */
    uint32_t rand;        /* xorshift state, for the back-off's jitter */
    uint16_t boot;
    uint16_t bat_mv;
    uint16_t retries;     /* ESB retransmissions, summed (OBSERVE_TX ARC_CNT) */
    uint16_t failed;      /* packets the radio gave up on (MAX_RT) */
    uint8_t fails_in_row; /* for the back-off */
    uint8_t nid;          /* radio number, 1..254, unique on the table */
    uint8_t kind, barrels;
    uint8_t in_flight;    /* the kind of packet the radio is sending now (0: none) */
    char name[8];         /* the node id of the army files, e.g. "RL1" */
} fw_radio_node_t;

void fw_radio_node_init(fw_radio_node_t *n, uint8_t nid, const char *name, uint8_t kind, uint8_t barrels,
                        uint16_t boot, uint32_t now_ms);
uint8_t fw_radio_node_push(fw_radio_node_t *n, uint8_t type, uint8_t barrel, uint8_t code, uint32_t value,
                           uint32_t t);                       /* 1 kept, 0 lost (counted, OVF later) */
uint8_t fw_radio_node_next(fw_radio_node_t *n, uint32_t now_ms, uint8_t *pkt); /* length to send, or 0 */
void fw_radio_node_sent(fw_radio_node_t *n, uint8_t delivered, uint8_t retries, uint32_t now_ms);
void fw_radio_node_acks(fw_radio_node_t *n, const uint8_t *pkt, uint8_t len, uint32_t now_ms);
uint8_t fw_radio_node_pending(const fw_radio_node_t *n);

/* ---- Hub --------------------------------------------------------------------------------------- */
typedef struct {
    uint32_t expected;    /* next event number taken from this node's boot */
    uint32_t heard_ms;    /* hub clock at its last packet */
    int32_t offset;       /* hub ms - node ms: the smallest seen lately (radio.c clock_offset) */
    uint32_t offset_at;   /* when it was seen */
    uint16_t boot;
    uint16_t bat_mv, retries, failed, dups;
    uint8_t nid, known, join_due, status_due;
} fw_radio_peer_t;

typedef struct {
    fw_node_t nodes[FW_RADIO_NODES_MAX]; /* names as in HELLO; the hub core formats from here */
    fw_radio_peer_t peer[FW_RADIO_NODES_MAX];
    uint8_t n_peers;
    uint8_t last_peer;   /* who sent the latest packet: first in the next table */
    uint16_t refused;    /* packets from a node beyond FW_RADIO_NODES_MAX, or malformed */
} fw_radio_hub_t;

void fw_radio_hub_init(fw_radio_hub_t *r, fw_hub_t *hub);
void fw_radio_hub_packet(fw_radio_hub_t *r, fw_hub_t *hub, const uint8_t *pkt, uint8_t len, uint32_t now_ms);
uint8_t fw_radio_hub_acks(const fw_radio_hub_t *r, uint8_t *pkt);  /* the ESB ACK payload; its length */
void fw_radio_hub_tick(fw_radio_hub_t *r, const fw_hub_t *hub); /* with the hub's heartbeat */
uint8_t fw_radio_hub_next_line(fw_radio_hub_t *r, const fw_hub_t *hub, uint32_t now_ms, char *buf);
uint16_t fw_sizeof_radio_node(void);
uint16_t fw_sizeof_radio_hub(void);

#endif
