/* A tilt node: a 3-axis analog accelerometer (ADXL335-class) in a model.  The angle from
 * vertical classifies upright / leaning / fallen, with hysteresis so a model resting near a
 * threshold does not chatter, and a settle time so a wobble is not reported.  An acceleration
 * magnitude above impact_mg is an impact: what tells a hit that left the model standing. */
#include "fw_core.h"

const fw_tilt_cfg_t FW_TILT_DEFAULTS = {
    .zero = {512, 512, 512},          /* ADXL335 at 3.3 V, ADC reference 3.3 V: 1.65 V = 512 */
    .counts_per_g = {102, 102, 102},  /* 330 mV/g / (3300 mV / 1024) */
    .lean_deg = 20,
    .fall_deg = 60,
    .hysteresis_deg = 5,
    .settle_ms = 300,
    .impact_mg = 2000,
    .impact_gap_ms = 150,
};

/* cos(d) x 10000 for d = 0..90 degrees; sin(d) is COS[90 - d]. */
static const FW_FLASH int16_t COS[91] = {
    10000, 9998, 9994, 9986, 9976, 9962, 9945, 9925, 9903, 9877, 9848, 9816,
    9781, 9744, 9703, 9659, 9613, 9563, 9511, 9455, 9397, 9336, 9272, 9205,
    9135, 9063, 8988, 8910, 8829, 8746, 8660, 8572, 8480, 8387, 8290, 8192,
    8090, 7986, 7880, 7771, 7660, 7547, 7431, 7314, 7193, 7071, 6947, 6820,
    6691, 6561, 6428, 6293, 6157, 6018, 5878, 5736, 5592, 5446, 5299, 5150,
    5000, 4848, 4695, 4540, 4384, 4226, 4067, 3907, 3746, 3584, 3420, 3256,
    3090, 2924, 2756, 2588, 2419, 2250, 2079, 1908, 1736, 1564, 1392, 1219,
    1045, 872, 698, 523, 349, 175, 0};

static uint32_t isqrt(uint32_t v)
{
    uint32_t root = 0, bit = 1UL << 30;
    while (bit > v)
        bit >>= 2;
    while (bit) {
        if (v >= root + bit) {
            v -= root + bit;
            root = (root >> 1) + bit;
        } else {
            root >>= 1;
        }
        bit >>= 2;
    }
    return root;
}

static uint8_t acos_deg(int16_t c) /* c = cos x 10000, 0..10000 -> 90..0 degrees, nearest */
{
    uint8_t d = 0;
    while (d < 90 && COS[d + 1] >= c)
        d++;
    if (d < 90 && COS[d] - c > c - COS[d + 1])
        d++;
    return d;
}

/* Angle from vertical.  Near vertical acos is ill-conditioned (cos is flat there), so below 45
 * degrees the angle comes from the horizontal component through asin instead. */
uint8_t fw_tilt_angle(int32_t x_mg, int32_t y_mg, int32_t z_mg)
{
    uint32_t h2 = (uint32_t)(x_mg * x_mg) + (uint32_t)(y_mg * y_mg);
    uint32_t mag = isqrt(h2 + (uint32_t)(z_mg * z_mg));
    if (mag == 0)
        return 0;
    int32_t vertical = (int32_t)((uint32_t)(z_mg < 0 ? -z_mg : z_mg) * 10000UL / mag);
    int32_t horizontal = (int32_t)(isqrt(h2) * 10000UL / mag);
    if (vertical > 10000) vertical = 10000;
    if (horizontal > 10000) horizontal = 10000;
    uint8_t from_axis = vertical >= horizontal ? (uint8_t)(90 - acos_deg((int16_t)horizontal))
                                               : acos_deg((int16_t)vertical);
    return z_mg >= 0 ? from_axis : (uint8_t)(180 - from_axis);
}

/* A node starts knowing nothing of its posture: its first settled reading is reported (with
 * FW_TILT_FIRST), whatever it is, so a station learns how a model lies after a restart; a model
 * stood up while its node was off was otherwise believed still lying. */
void fw_tilt_init(fw_tilt_t *t)
{
    t->state = t->candidate = FW_TILT_UNKNOWN;
    t->angle = 0;
    t->in_impact = 0;
    t->candidate_since = 0;
    t->last_impact_ms = 0;
    t->peak_mg = 0;
}

/* The zone the angle puts the model in, leaning on the current state for hysteresis. */
static uint8_t zone(const fw_tilt_cfg_t *cfg, uint8_t current, uint8_t angle)
{
    uint8_t lean = cfg->lean_deg, fall = cfg->fall_deg;
    if (current == FW_TILT_LEANING || current == FW_TILT_FALLEN)
        lean = (uint8_t)(lean - cfg->hysteresis_deg);
    if (current == FW_TILT_FALLEN)
        fall = (uint8_t)(fall - cfg->hysteresis_deg);
    if (angle >= fall)
        return FW_TILT_FALLEN;
    return angle >= lean ? FW_TILT_LEANING : FW_TILT_UPRIGHT;
}

uint8_t fw_tilt_update(fw_tilt_t *t, const fw_tilt_cfg_t *cfg, const int16_t raw[3], uint32_t now_ms,
                       uint8_t *state_out, uint8_t *angle_out, uint16_t *impact_g10_out)
{
    int32_t mg[3];
    for (uint8_t i = 0; i < 3; i++)
        mg[i] = ((int32_t)raw[i] - cfg->zero[i]) * 1000 / cfg->counts_per_g[i];
    uint8_t result = FW_TILT_NONE;

    uint32_t mag = isqrt((uint32_t)(mg[0] * mg[0]) + (uint32_t)(mg[1] * mg[1]) + (uint32_t)(mg[2] * mg[2]));
    if (mag > cfg->impact_mg) { /* over the threshold: an impact starts, or goes on */
        if (!t->in_impact) {
            t->in_impact = 1;
            t->peak_mg = 0;
        }
        if (mag > t->peak_mg)
            t->peak_mg = mag > 65000 ? 65000 : (uint16_t)mag;
        t->last_impact_ms = now_ms;
    } else if (t->in_impact && now_ms - t->last_impact_ms >= cfg->impact_gap_ms) {
        t->in_impact = 0;
        *impact_g10_out = (uint16_t)((t->peak_mg + 50) / 100);
        result |= FW_TILT_IMPACT;
    }

    uint8_t angle = fw_tilt_angle(mg[0], mg[1], mg[2]);
    uint8_t z = zone(cfg, t->state, angle);
    if (z != t->candidate) {
        t->candidate = z;
        t->candidate_since = now_ms;
    }
    if (t->candidate != t->state && !t->in_impact && now_ms - t->candidate_since >= cfg->settle_ms) {
        uint8_t first = t->state == FW_TILT_UNKNOWN ? FW_TILT_FIRST : 0;
        t->state = t->candidate;
        t->angle = angle;
        *state_out = (uint8_t)(t->state | first);
        *angle_out = angle;
        result |= FW_TILT_CHANGED;
    }
    return result;
}
