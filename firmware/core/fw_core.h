/*
 * Portable core of the hub firmware: no AVR headers, so it builds for the ATmega328P and for
 * the host, where pytest drives it through ctypes (firmware/build/libfwcore.so).
 *
 * Protocol v1 is specified in docs/protocol.md; station/devices/protocol.py is its Python twin.
 */
#ifndef FW_CORE_H
#define FW_CORE_H

#include <stdint.h>

/* Constant tables live in flash on the AVR (GCC's __flash address space, no AVR header needed),
 * and so do the protocol's words: FW_STR("HELLO") is a string in flash, where a plain literal
 * would be copied to the 2 KB of RAM at start-up. */
#if defined(__AVR__)
#define FW_FLASH __flash
#else
#define FW_FLASH
#endif
#define FW_STR(s) (__extension__({ static const FW_FLASH char fw_str_[] = (s); &fw_str_[0]; }))

/* ---- CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF); check value "123456789" = 0x29B1 ---- */
uint16_t fw_crc16(const char *data, uint16_t len);

/* ---- Events ------------------------------------------------------------------------------ */
enum { FW_EV_SHOT = 1, FW_EV_DRY, FW_EV_TILT, FW_EV_IMPACT, FW_EV_OVF, FW_EV_JOIN /* radio hubs */ };
enum { FW_CHARGE_SHELL = 0, FW_CHARGE_BOMB, FW_CHARGE_ROCKET };
enum { FW_TILT_UPRIGHT = 0, FW_TILT_LEANING, FW_TILT_FALLEN, FW_TILT_UNKNOWN /* before the first settled reading */ };
#define FW_TILT_FIRST 4 /* or'ed into a TILT's code: the node's first settled posture since it started */

/* One buffered event, 10 bytes; its sequence number is implied by its ring slot. */
typedef struct {
    uint32_t t;         /* hub uptime, ms */
    uint32_t value;     /* SHOT: fw_shot_value(); TILT: angle (deg); IMPACT: peak g x 10; OVF: lost */
    uint8_t type : 3;   /* FW_EV_* */
    uint8_t node : 5;   /* index into the node table (up to 32 nodes) */
    uint8_t barrel : 4; /* SHOT, DRY: 1..9 */
    uint8_t code : 4;   /* SHOT: FW_CHARGE_*; TILT: FW_TILT_*, with FW_TILT_FIRST */
} fw_event_t;

/* ---- Node table ---------------------------------------------------------------------------- */
enum { FW_NODE_LAUNCHER = 0, FW_NODE_TILT = 1 };
typedef struct {
    char id[8];      /* as in HELLO and in the army files, e.g. "L1" */
    uint8_t kind;    /* FW_NODE_* */
    uint8_t barrels; /* launchers: 1..9 */
} fw_node_t;

/* ---- Ring buffer of unacknowledged events ---------------------------------------------- */
#ifndef FW_RING_SIZE /* the radio hub's build takes fewer, for its node table (firmware/Makefile) */
#define FW_RING_SIZE 64
#endif
typedef struct {
    fw_event_t slot[FW_RING_SIZE];
    uint8_t head;        /* index of the oldest event */
    uint8_t count;
    uint32_t first_seq;  /* sequence number of slot[head] */
} fw_ring_t;

void fw_ring_init(fw_ring_t *ring, uint32_t first_seq);
uint8_t fw_ring_push(fw_ring_t *ring, const fw_event_t *ev);       /* 0 when full */
const fw_event_t *fw_ring_get(const fw_ring_t *ring, uint32_t seq); /* NULL if not held */
void fw_ring_ack(fw_ring_t *ring, uint32_t upto);                   /* drop seq <= upto */
uint32_t fw_ring_next_seq(const fw_ring_t *ring);
/* Events that could not be kept, reported as one OVF event as soon as the ring has room for it
 * with ``spare`` slots still free; ``*lost`` goes back to 0 once it is. */
void fw_ring_report_lost(fw_ring_t *ring, uint32_t *lost, uint32_t now_ms, uint8_t spare);

/* ---- Hub: protocol v1 state machine ------------------------------------------------------- */
#ifndef FW_LINE_MAX /* HELLO with the default 4-node inventory, baud=1000000 and hub=ABCD: 128 at most */
#define FW_LINE_MAX 128
#endif
#define FW_RX_MAX 40     /* ACK/NAK with 10-digit numbers is 35 */
#define FW_HEARTBEAT_MS 1000
typedef struct {
    fw_ring_t ring;
    const FW_FLASH fw_node_t *nodes;
    const fw_node_t *ram_nodes; /* a radio hub's table, learnt over the air (NULL: use nodes) */
    uint8_t n_nodes;
    const FW_FLASH char *fw_name;
    uint32_t baud;       /* the serial rate, told in HELLO (0: not told) */
    uint16_t hub_id;     /* the board's own id, told in HELLO as 4 hex digits (0: none) */
    uint8_t id_changed;  /* the station gave a new id (ID): the platform keeps it (EEPROM) */
    char boot[5];
    uint32_t send_seq;   /* next event sequence number to put on the wire */
    uint32_t lost;       /* events discarded because the ring was full, not yet reported */
    uint32_t lost_total;
    uint32_t now_ms;
    uint16_t now_us;     /* microseconds into now_ms, when the platform says (fw_hub_set_time) */
    uint32_t next_hb_ms;
    uint32_t clock_n;    /* the station's TIME question (its SEQ) waiting for its CLK answer */
    uint32_t clock_ms;   /* the hub's clock when it read the question */
    uint16_t clock_us;
    uint8_t clock_due;
    uint8_t want_hello;
    uint8_t hb_due;
    char rx[FW_RX_MAX];
    uint8_t rx_len;
    uint16_t rx_errors;  /* station lines with a bad CRC or shape */
    uint16_t edge_drops; /* pin edges the platform's queue could not hold, told in HB (0: not said) */
} fw_hub_t;

void fw_hub_init(fw_hub_t *hub, const FW_FLASH fw_node_t *nodes, uint8_t n_nodes, const FW_FLASH char *fw_name,
                 uint16_t boot);
void fw_hub_set_baud(fw_hub_t *hub, uint32_t baud);
void fw_hub_set_id(fw_hub_t *hub, uint16_t id);                         /* the board's id, from EEPROM */
void fw_hub_set_time(fw_hub_t *hub, uint32_t now_ms, uint16_t now_us); /* before station bytes are fed */
uint16_t fw_hub_new_id(uint16_t seed);  /* a random-looking nonzero id from the platform's noise */
uint8_t fw_hub_push(fw_hub_t *hub, const fw_event_t *ev);  /* 1 stored, 0 lost (counted, OVF later) */
uint8_t fw_hub_room(const fw_hub_t *hub);  /* events the ring can take now, an OVF's slot kept */
uint8_t fw_hub_push_event(fw_hub_t *hub, uint8_t type, uint8_t node, uint8_t barrel, uint8_t code,
                          uint32_t value, uint32_t t);
uint32_t fw_shot_value(uint32_t count, uint32_t block_us); /* count (24 bits) + gate time (0.1 ms) */
uint16_t fw_sizeof_hub(void);    /* for hosts that allocate the state themselves (ctypes) */
uint16_t fw_sizeof_barrel(void);
uint16_t fw_sizeof_tilt(void);
void fw_hub_rx_byte(fw_hub_t *hub, uint8_t byte);
void fw_hub_tick(fw_hub_t *hub, uint32_t now_ms);
uint8_t fw_hub_next_line(fw_hub_t *hub, char *buf);  /* fills buf (FW_LINE_MAX), returns length or 0 */

/* ---- Building a protocol line (hub.c): fields, numbers and the CRC at the end ------------------ */
typedef struct {
    char *buf;
    uint8_t len;
} fw_line_t;
void fw_line_start(fw_line_t *l, char *buf, const FW_FLASH char *type, uint32_t seq);
void fw_line_str(fw_line_t *l, const FW_FLASH char *s);
void fw_line_ram_str(fw_line_t *l, const char *s, uint8_t max);
void fw_line_hex16(fw_line_t *l, uint16_t v);
void fw_line_u32(fw_line_t *l, uint32_t v);
void fw_line_field(fw_line_t *l, const FW_FLASH char *key, uint32_t v);
uint8_t fw_line_finish(fw_line_t *l);

/* ---- Debounce ---------------------------------------------------------------------------- */
typedef struct {
    uint8_t stable, last_raw;
    uint32_t changed_at;
} fw_debounce_t;
uint8_t fw_debounce(fw_debounce_t *d, uint8_t raw, uint32_t now_ms, uint16_t hold_ms); /* 1 on a change */

/* ---- Launcher barrel: trigger, IR gate, charge type, counter, dry fire ---------------------- */
typedef struct {
    uint16_t debounce_ms;   /* trigger contact must hold this long */
    uint16_t window_ms;     /* after a trigger press, a projectile must reach the gate within this */
    uint16_t min_block_us;  /* shorter gate blocks are noise */
    uint16_t bomb_us;       /* block >= this: mortar bomb */
    uint16_t rocket_us;     /* block >= this: rocket (shorter: shell) */
    uint16_t jam_ms;        /* a gate blocked longer than this is a jam, not a shot */
} fw_launcher_cfg_t;
extern const fw_launcher_cfg_t FW_LAUNCHER_DEFAULTS;

enum { FW_BARREL_IDLE = 0, FW_BARREL_ARMED, FW_BARREL_BLOCKED };
enum { FW_BARREL_NONE = 0, FW_BARREL_SHOT, FW_BARREL_DRY };
#define FW_NO_BREECH 0xFF
typedef struct {
    fw_debounce_t trigger;
    uint8_t state, armed, gate_last;
    uint32_t armed_at_ms, block_ms, block_us;
    uint32_t count;  /* only ever increases; persisted by the platform */
} fw_barrel_t;
typedef struct {
    uint8_t kind;    /* FW_BARREL_SHOT or FW_BARREL_DRY */
    uint8_t charge;
    uint32_t count, t_ms, block_us;
} fw_barrel_out_t;

void fw_barrel_init(fw_barrel_t *b, uint32_t count);
uint8_t fw_charge_from_block(const fw_launcher_cfg_t *cfg, uint32_t block_us);
uint8_t fw_barrel_update(fw_barrel_t *b, const fw_launcher_cfg_t *cfg, uint8_t trigger_pressed,
                         uint8_t gate_blocked, uint8_t breech, uint32_t now_ms, uint32_t now_us,
                         fw_barrel_out_t *out);

/* ---- Tilt node: ADXL335-class accelerometer -------------------------------------------------- */
typedef struct {
    int16_t zero[3];         /* ADC counts at 0 g, per axis */
    int16_t counts_per_g[3];
    uint8_t lean_deg;        /* >= lean: leaning */
    uint8_t fall_deg;        /* >= fall: fallen */
    uint8_t hysteresis_deg;  /* to go back, the angle must pass the threshold by this much */
    uint16_t settle_ms;      /* a new state must hold this long before it is reported */
    uint16_t impact_mg;      /* |a| above this is an impact */
    uint16_t impact_gap_ms;  /* an impact ends after this long under impact_mg; closer ones merge */
} fw_tilt_cfg_t;
extern const fw_tilt_cfg_t FW_TILT_DEFAULTS;

enum { FW_TILT_NONE = 0, FW_TILT_CHANGED = 1, FW_TILT_IMPACT = 2 };
typedef struct {
    uint8_t state, candidate, angle, in_impact;
    uint32_t candidate_since, last_impact_ms;
    uint16_t peak_mg;
} fw_tilt_t;

void fw_tilt_init(fw_tilt_t *t);
uint8_t fw_tilt_angle(int32_t x_mg, int32_t y_mg, int32_t z_mg);   /* degrees from vertical, 0..180 */
uint8_t fw_tilt_update(fw_tilt_t *t, const fw_tilt_cfg_t *cfg, const int16_t raw[3], uint32_t now_ms,
                       uint8_t *state_out, uint8_t *angle_out, uint16_t *impact_g10_out);

#endif
