/* One launcher barrel.  A debounced trigger press arms it; the projectile crossing the IR gate at
 * the muzzle is the shot, and how long it blocks the beam tells its length, hence the charge
 * (unless a breech switch says which charge was loaded).  A press with nothing through the gate
 * within window_ms is a dry fire.  A gate block without a press still counts: the gate is the
 * witness that a projectile left. */
#include "fw_core.h"

const fw_launcher_cfg_t FW_LAUNCHER_DEFAULTS = {
    .debounce_ms = 5,
    .window_ms = 400,
    .min_block_us = 800,
    .bomb_us = 5000,
    .rocket_us = 7500,
    .jam_ms = 200,
};

void fw_barrel_init(fw_barrel_t *b, uint32_t count)
{
    b->trigger.stable = b->trigger.last_raw = 0;
    b->trigger.changed_at = 0;
    b->state = FW_BARREL_IDLE;
    b->armed = b->gate_last = 0;
    b->armed_at_ms = b->block_ms = b->block_us = 0;
    b->count = count;
}

uint8_t fw_charge_from_block(const fw_launcher_cfg_t *cfg, uint32_t block_us)
{
    if (block_us >= cfg->rocket_us)
        return FW_CHARGE_ROCKET;
    if (block_us >= cfg->bomb_us)
        return FW_CHARGE_BOMB;
    return FW_CHARGE_SHELL;
}

uint8_t fw_barrel_update(fw_barrel_t *b, const fw_launcher_cfg_t *cfg, uint8_t trigger_pressed,
                         uint8_t gate_blocked, uint8_t breech, uint32_t now_ms, uint32_t now_us,
                         fw_barrel_out_t *out)
{
    if (fw_debounce(&b->trigger, trigger_pressed, now_ms, cfg->debounce_ms) && b->trigger.stable &&
        b->state == FW_BARREL_IDLE) {
        b->state = FW_BARREL_ARMED;
        b->armed = 1;
        b->armed_at_ms = now_ms;
    }
    uint8_t edge_on = gate_blocked && !b->gate_last, edge_off = !gate_blocked && b->gate_last;
    b->gate_last = gate_blocked;

    if (edge_on && b->state != FW_BARREL_BLOCKED) {
        b->state = FW_BARREL_BLOCKED;
        b->block_ms = now_ms;
        b->block_us = now_us;
        return FW_BARREL_NONE;
    }
    if (b->state == FW_BARREL_BLOCKED) {
        if (edge_off) {
            uint32_t block = now_us - b->block_us;
            if (block < cfg->min_block_us) { /* a flicker, not a projectile */
                b->state = b->armed ? FW_BARREL_ARMED : FW_BARREL_IDLE;
                return FW_BARREL_NONE;
            }
            b->state = FW_BARREL_IDLE;
            b->armed = 0;
            out->kind = FW_BARREL_SHOT;
            out->charge = breech != FW_NO_BREECH ? breech : fw_charge_from_block(cfg, block);
            out->count = ++b->count;
            out->t_ms = b->block_ms;
            out->block_us = block;
            return FW_BARREL_SHOT;
        }
        /* Signed: an edge stamped after the caller read its clock makes now_ms a moment older than
         * block_ms, which unsigned is a 49-day jam (the shot lost at 270 shots/s was that). */
        if ((int32_t)(now_ms - b->block_ms) > (int32_t)cfg->jam_ms) { /* stuck in the muzzle: nothing left */
            if (!gate_blocked)
                b->gate_last = 0;
            b->state = FW_BARREL_IDLE;
            b->armed = 0;
            out->kind = FW_BARREL_DRY;
            out->t_ms = now_ms;
            return FW_BARREL_DRY;
        }
        return FW_BARREL_NONE;
    }
    if (b->state == FW_BARREL_ARMED && (int32_t)(now_ms - b->armed_at_ms) > (int32_t)cfg->window_ms) {
        b->state = FW_BARREL_IDLE;
        b->armed = 0;
        out->kind = FW_BARREL_DRY;
        out->t_ms = b->armed_at_ms;
        return FW_BARREL_DRY;
    }
    return FW_BARREL_NONE;
}
