/* Protocol v1, hub side: numbered events kept until ACKed, resent after SYNC or NAK (go-back-N),
 * a heartbeat every second, OVF when the ring was full, the clock's answer (CLK) to the
 * station's TIME, and the board's id in HELLO (set by ID).  Pull model: the platform asks for
 * the next line whenever its UART is free, so no transmit queue is needed. */
#include <stddef.h>
#include <string.h>
#include "fw_core.h"

/* Tables and words read-only at run time live in flash (FW_FLASH, FW_STR), leaving the AVR's
 * 2 KB of RAM for the event ring, the edge queue and the two transmit buffers. */
static const FW_FLASH char SHELL[] = "shell", BOMB[] = "bomb", ROCKET[] = "rocket";
static const FW_FLASH char *const FW_FLASH CHARGE_NAMES[] = {SHELL, BOMB, ROCKET};
static const FW_FLASH char UPRIGHT[] = "upright", LEANING[] = "leaning", FALLEN[] = "fallen";
static const FW_FLASH char *const FW_FLASH TILT_NAMES[] = {UPRIGHT, LEANING, FALLEN};
static const FW_FLASH char HEX[] = "0123456789ABCDEF";

void fw_line_str(fw_line_t *l, const FW_FLASH char *s)
{
    while (*s && l->len < FW_LINE_MAX - 6)
        l->buf[l->len++] = *s++;
}

/* A string in RAM (a radio node's name, learnt over the air). */
void fw_line_ram_str(fw_line_t *l, const char *s, uint8_t max)
{
    for (uint8_t i = 0; i < max && s[i] && l->len < FW_LINE_MAX - 6; i++)
        l->buf[l->len++] = s[i];
}

/* A node's id, from the flash table of a wired hub or the RAM table of a radio hub. */
static void put_node_id(fw_line_t *l, const fw_hub_t *hub, uint8_t node)
{
    if (hub->ram_nodes)
        fw_line_ram_str(l, hub->ram_nodes[node].id, sizeof hub->ram_nodes[node].id);
    else
        fw_line_str(l, hub->nodes[node].id);
}

static uint8_t node_kind(const fw_hub_t *hub, uint8_t node, uint8_t *barrels)
{
    if (hub->ram_nodes) {
        *barrels = hub->ram_nodes[node].barrels;
        return hub->ram_nodes[node].kind;
    }
    *barrels = hub->nodes[node].barrels;
    return hub->nodes[node].kind;
}

void fw_line_hex16(fw_line_t *l, uint16_t v)
{
    for (int8_t shift = 12; shift >= 0 && l->len < FW_LINE_MAX - 6; shift -= 4)
        l->buf[l->len++] = HEX[(v >> shift) & 0xF];
}

/* Decimal by subtracting powers of ten: the AVR has no divider, and a 32-bit division by ten
 * costs hundreds of cycles a digit, which at 1 Mbaud was most of the time a line took. */
static const FW_FLASH uint32_t POWERS_OF_TEN[] = {1000000000UL, 100000000UL, 10000000UL, 1000000UL, 100000UL,
                                         10000UL, 1000UL, 100UL, 10UL, 1UL};

void fw_line_u32(fw_line_t *l, uint32_t v)
{
    uint8_t leading = 1;
    for (uint8_t i = 0; i < 10; i++) {
        char digit = '0';
        while (v >= POWERS_OF_TEN[i]) {
            v -= POWERS_OF_TEN[i];
            digit++;
        }
        if (digit != '0' || !leading || i == 9) {
            leading = 0;
            if (l->len < FW_LINE_MAX - 6)
                l->buf[l->len++] = digit;
        }
    }
}

void fw_line_field(fw_line_t *l, const FW_FLASH char *key, uint32_t v)
{
    fw_line_str(l, FW_STR(" "));
    fw_line_str(l, key);
    fw_line_str(l, FW_STR("="));
    fw_line_u32(l, v);
}

void fw_line_start(fw_line_t *l, char *buf, const FW_FLASH char *type, uint32_t seq)
{
    l->buf = buf;
    l->len = 0;
    fw_line_str(l, type);
    fw_line_str(l, FW_STR(" "));
    fw_line_u32(l, seq);
}

uint8_t fw_line_finish(fw_line_t *l)
{
    uint16_t crc = fw_crc16(l->buf, l->len);
    l->buf[l->len++] = '*';
    for (int8_t shift = 12; shift >= 0; shift -= 4)
        l->buf[l->len++] = HEX[(crc >> shift) & 0xF];
    l->buf[l->len++] = '\n';
    return l->len;
}

void fw_hub_init(fw_hub_t *hub, const FW_FLASH fw_node_t *nodes, uint8_t n_nodes, const FW_FLASH char *fw_name,
                 uint16_t boot)
{
    memset(hub, 0, sizeof *hub);
    fw_ring_init(&hub->ring, 1); /* event numbers start at 1 after every power-up */
    hub->nodes = nodes;
    hub->n_nodes = n_nodes;
    hub->fw_name = fw_name;
    for (int8_t i = 3; i >= 0; i--, boot >>= 4)
        hub->boot[i] = HEX[boot & 0xF];
    hub->send_seq = 1;
    hub->next_hb_ms = FW_HEARTBEAT_MS;
    hub->want_hello = 1; /* introduce every power-up: a reset mid-game restarts SEQ at 1 */
}

void fw_hub_set_baud(fw_hub_t *hub, uint32_t baud)
{
    hub->baud = baud;
}

void fw_hub_set_id(fw_hub_t *hub, uint16_t id)
{
    hub->hub_id = id;
}

void fw_hub_set_time(fw_hub_t *hub, uint32_t now_ms, uint16_t now_us)
{
    hub->now_ms = now_ms;
    hub->now_us = now_us;
}

/* A 16-bit id from whatever noise the platform gathered (ADC bits, timer phase): CRC-16 spreads
 * it; 0 and FFFF (an erased EEPROM) are never given. */
uint16_t fw_hub_new_id(uint16_t seed)
{
    char bytes[2] = {(char)(seed >> 8), (char)seed};
    uint16_t id = fw_crc16(bytes, 2);
    return id == 0 || id == 0xFFFF ? 0x1D1D : id;
}

static uint32_t last_issued(const fw_hub_t *hub)
{
    return fw_ring_next_seq(&hub->ring) - 1;
}

static void report_overflow(fw_hub_t *hub)
{
    /* OVF needs a slot of its own; leave one more for the event that triggered the check */
    fw_ring_report_lost(&hub->ring, &hub->lost, hub->now_ms, 1);
}

uint32_t fw_shot_value(uint32_t count, uint32_t block_us)
{
    uint32_t tenths = (block_us + 50) / 100;
    return (count & 0xFFFFFFUL) | ((tenths > 255 ? 255UL : tenths) << 24);
}

uint16_t fw_sizeof_hub(void) { return sizeof(fw_hub_t); }
uint16_t fw_sizeof_barrel(void) { return sizeof(fw_barrel_t); }
uint16_t fw_sizeof_tilt(void) { return sizeof(fw_tilt_t); }

uint8_t fw_hub_push_event(fw_hub_t *hub, uint8_t type, uint8_t node, uint8_t barrel, uint8_t code,
                          uint32_t value, uint32_t t)
{
    fw_event_t ev;
    ev.t = t;
    ev.value = value;
    ev.type = type & 7;
    ev.node = node & 31;
    ev.barrel = barrel & 15;
    ev.code = code & 15;
    return fw_hub_push(hub, &ev);
}

uint8_t fw_hub_room(const fw_hub_t *hub)
{
    return (uint8_t)(FW_RING_SIZE - 1 - hub->ring.count); /* one slot kept for an OVF */
}

uint8_t fw_hub_push(fw_hub_t *hub, const fw_event_t *ev)
{
    report_overflow(hub);
    if (fw_ring_push(&hub->ring, ev))
        return 1;
    hub->lost++;
    hub->lost_total++;
    return 0;
}

void fw_hub_tick(fw_hub_t *hub, uint32_t now_ms)
{
    hub->now_ms = now_ms;
    if ((int32_t)(now_ms - hub->next_hb_ms) >= 0) {
        hub->hb_due = 1;
        hub->next_hb_ms = now_ms + FW_HEARTBEAT_MS;
    }
    report_overflow(hub);
}

static uint8_t parse_u32(const char *s, const char *end, uint32_t *out)
{
    uint32_t v = 0;
    if (s >= end || *s < '0' || *s > '9')
        return 0;
    while (s < end && *s >= '0' && *s <= '9')
        v = v * 10 + (uint32_t)(*s++ - '0');
    *out = v;
    return s == end || *s == ' ';
}

static uint8_t hex_value(char c)
{
    if (c >= '0' && c <= '9') return (uint8_t)(c - '0');
    if (c >= 'A' && c <= 'F') return (uint8_t)(c - 'A' + 10);
    return 0xFF;
}

/* Whether ``s`` begins with the flash word ``word``. */
static uint8_t begins(const char *s, const char *end, const FW_FLASH char *word)
{
    for (; *word; word++, s++)
        if (s >= end || *s != *word)
            return 0;
    return 1;
}

static const char *find_field(const char *s, const char *end, const FW_FLASH char *key)
{
    for (; s < end; s++)
        if (s[-1] == ' ' && begins(s, end, key)) {
            while (*key++)
                s++;
            return s;
        }
    return NULL;
}

static uint8_t parse_hex16(const char *s, const char *end, uint16_t *out)
{
    uint16_t v = 0;
    for (uint8_t i = 0; i < 4; i++) {
        uint8_t digit = s + i < end ? hex_value(s[i]) : 0xFF;
        if (digit == 0xFF)
            return 0;
        v = (uint16_t)((v << 4) | digit);
    }
    *out = v;
    return s + 4 == end || s[4] == ' ';
}

/* One complete line from the station: verify, then act on SYNC, ACK or NAK. */
static void station_line(fw_hub_t *hub, const char *line, uint8_t len)
{
    uint16_t expected = 0;
    if (len < 6 || line[len - 5] != '*') {
        hub->rx_errors++;
        return;
    }
    for (uint8_t i = len - 4; i < len; i++) {
        uint8_t v = hex_value(line[i]);
        if (v == 0xFF) {
            hub->rx_errors++;
            return;
        }
        expected = (uint16_t)((expected << 4) | v);
    }
    const char *end = line + len - 5;
    if (fw_crc16(line, (uint16_t)(end - line)) != expected) {
        hub->rx_errors++;
        return;
    }
    uint32_t value;
    uint16_t id;
    const char *field;
    if (begins(line, end, FW_STR("SYNC "))) {
        hub->want_hello = 1;
        hub->send_seq = hub->ring.first_seq; /* resend everything not yet acknowledged */
    } else if (begins(line, end, FW_STR("TIME ")) && parse_u32(line + 5, end, &value)) {
        hub->clock_n = value; /* the clock as the question was read: the station knows when it asked */
        hub->clock_ms = hub->now_ms;
        hub->clock_us = hub->now_us;
        hub->clock_due = 1;
    } else if (begins(line, end, FW_STR("ID ")) && (field = find_field(line + 3, end, FW_STR("hub="))) &&
               parse_hex16(field, end, &id) && id != 0 && id != 0xFFFF) {
        hub->hub_id = id;
        hub->id_changed = 1;
        hub->want_hello = 1; /* say the new id at once */
    } else if (begins(line, end, FW_STR("ACK ")) && (field = find_field(line + 4, end, FW_STR("upto="))) &&
               parse_u32(field, end, &value)) {
        fw_ring_ack(&hub->ring, value);
        if (hub->send_seq < hub->ring.first_seq)
            hub->send_seq = hub->ring.first_seq;
    } else if (begins(line, end, FW_STR("NAK ")) && (field = find_field(line + 4, end, FW_STR("start="))) &&
               parse_u32(field, end, &value)) {
        if (value < hub->ring.first_seq)
            value = hub->ring.first_seq;
        if (value < hub->send_seq)
            hub->send_seq = value; /* go-back-N */
    } else {
        hub->rx_errors++;
    }
}

void fw_hub_rx_byte(fw_hub_t *hub, uint8_t byte)
{
    if (byte == '\n') {
        uint8_t len = hub->rx_len;
        if (len && hub->rx[len - 1] == '\r')
            len--;
        if (len < FW_RX_MAX)
            station_line(hub, hub->rx, len);
        hub->rx_len = 0;
    } else if (hub->rx_len < FW_RX_MAX) {
        hub->rx[hub->rx_len++] = (char)byte;
    } else {
        hub->rx_len = FW_RX_MAX; /* overlong: judged (and rejected) at its newline */
    }
}

static uint8_t format_event(const fw_hub_t *hub, const fw_event_t *ev, uint32_t seq, char *buf)
{
    static const FW_FLASH char NONE[] = "", SHOT[] = "SHOT", DRY[] = "DRY", TILT[] = "TILT", IMPACT[] = "IMPACT",
                               OVF[] = "OVF", JOIN[] = "JOIN";
    static const FW_FLASH char *const FW_FLASH TYPES[] = {NONE, SHOT, DRY, TILT, IMPACT, OVF, JOIN};
    fw_line_t l;
    fw_line_start(&l, buf, TYPES[ev->type], seq);
    if (ev->type != FW_EV_OVF) {
        fw_line_str(&l, FW_STR(" node="));
        put_node_id(&l, hub, ev->node);
    }
    switch (ev->type) {
    case FW_EV_SHOT:
        fw_line_field(&l, FW_STR("barrel"), ev->barrel);
        fw_line_str(&l, FW_STR(" charge="));
        fw_line_str(&l, CHARGE_NAMES[ev->code]);
        fw_line_field(&l, FW_STR("count"), ev->value & 0xFFFFFFUL);
        fw_line_field(&l, FW_STR("t"), ev->t);
        fw_line_field(&l, FW_STR("gate"), (ev->value >> 24) / 10); /* informational, for calibrating thresholds */
        l.buf[l.len++] = '.';
        fw_line_u32(&l, (ev->value >> 24) % 10);
        return fw_line_finish(&l);
    case FW_EV_DRY:
        fw_line_field(&l, FW_STR("barrel"), ev->barrel);
        break;
    case FW_EV_TILT:
        fw_line_str(&l, FW_STR(" state="));
        fw_line_str(&l, TILT_NAMES[ev->code & 3]);
        fw_line_field(&l, FW_STR("angle"), ev->value);
        fw_line_field(&l, FW_STR("t"), ev->t);
        if (ev->code & FW_TILT_FIRST) /* bronehub/1.3: a report of how it lies, not a change */
            fw_line_field(&l, FW_STR("first"), 1);
        return fw_line_finish(&l);
    case FW_EV_IMPACT:
        fw_line_field(&l, FW_STR("g"), ev->value / 10);
        l.buf[l.len++] = '.';
        fw_line_u32(&l, ev->value % 10);
        break;
    case FW_EV_OVF:
        fw_line_field(&l, FW_STR("lost"), ev->value);
        return fw_line_finish(&l);
    case FW_EV_JOIN: /* a radio node's new boot (fw_radio.h): its boot id, as HELLO says a hub's */
        fw_line_str(&l, FW_STR(" boot="));
        fw_line_hex16(&l, (uint16_t)ev->value);
        break;
    }
    fw_line_field(&l, FW_STR("t"), ev->t);
    return fw_line_finish(&l);
}

static uint8_t format_hello(const fw_hub_t *hub, char *buf)
{
    fw_line_t l;
    fw_line_start(&l, buf, FW_STR("HELLO"), last_issued(hub));
    fw_line_str(&l, FW_STR(" fw="));
    fw_line_str(&l, hub->fw_name);
    fw_line_field(&l, FW_STR("proto"), 1);
    fw_line_str(&l, FW_STR(" boot="));
    for (uint8_t i = 0; i < 4; i++) /* in RAM: made at power-up */
        l.buf[l.len++] = hub->boot[i];
    fw_line_str(&l, FW_STR(" nodes="));
    for (uint8_t i = 0, listed = 0; i < hub->n_nodes; i++) {
        if (hub->ram_nodes && !hub->ram_nodes[i].id[0])
            continue; /* a radio node heard, but not yet introduced by its beacon */
        if (listed++)
            fw_line_str(&l, FW_STR(","));
        uint8_t barrels;
        put_node_id(&l, hub, i);
        if (node_kind(hub, i, &barrels) == FW_NODE_LAUNCHER) {
            fw_line_str(&l, FW_STR(":launcher:"));
            fw_line_u32(&l, barrels);
        } else {
            fw_line_str(&l, FW_STR(":tilt"));
        }
    }
    if (hub->baud) /* a field added in v1.1 */
        fw_line_field(&l, FW_STR("baud"), hub->baud);
    if (hub->hub_id) { /* added in v1.2: the board's own id */
        fw_line_str(&l, FW_STR(" hub="));
        fw_line_hex16(&l, hub->hub_id);
    }
    return fw_line_finish(&l);
}

uint8_t fw_hub_next_line(fw_hub_t *hub, char *buf)
{
    if (hub->want_hello) {
        hub->want_hello = 0;
        return format_hello(hub, buf);
    }
    if (hub->clock_due) { /* before the events: the sooner it goes, the tighter the station's bound */
        fw_line_t l;
        hub->clock_due = 0;
        fw_line_start(&l, buf, FW_STR("CLK"), last_issued(hub));
        fw_line_field(&l, FW_STR("n"), hub->clock_n);
        fw_line_field(&l, FW_STR("up"), hub->clock_ms);
        fw_line_field(&l, FW_STR("us"), hub->clock_us);
        return fw_line_finish(&l);
    }
    const fw_event_t *ev = fw_ring_get(&hub->ring, hub->send_seq);
    if (ev) {
        return format_event(hub, ev, hub->send_seq++, buf);
    }
    if (hub->hb_due) {
        fw_line_t l;
        hub->hb_due = 0;
        fw_line_start(&l, buf, FW_STR("HB"), last_issued(hub));
        fw_line_field(&l, FW_STR("up"), hub->now_ms);
        fw_line_field(&l, FW_STR("pend"), hub->ring.count);
        if (hub->edge_drops) /* added in v1.2: a sign the launchers outran the pin-change queue */
            fw_line_field(&l, FW_STR("drops"), hub->edge_drops);
        return fw_line_finish(&l);
    }
    return 0;
}
