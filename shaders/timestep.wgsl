// The step kernel, run by a single thread after each step: it advances the clock, reduces
// the blocks' CFL limits to the next global dt (clamped so output times are hit exactly),
// evaluates the forcing series for the next step and writes the indirect dispatch
// arguments. Nothing here goes back to the host.

const MAX_GROUPS_X: u32 = 65535u;

fn advance_clock(dt: f32) {
    if (sim.clamped == 1u) {
        // The step was cut to reach the target: land on it exactly, not within round-off.
        sim.t_hi = control.target_hi;
        sim.t_lo = control.target_lo;
    } else {
        let t = df_add(vec2<f32>(sim.t_hi, sim.t_lo), dt, params.one);
        sim.t_hi = t.x;
        sim.t_lo = t.y;
    }
    sim.step_lo += 1u;
    if (sim.step_lo == 0u) {
        sim.step_hi += 1u;
    }
    let updates = (sim.dispatched + sim.dispatched_border) * CELLS_PER_BLOCK;
    let lo = sim.upd_lo + updates;
    if (lo < sim.upd_lo) {
        sim.upd_hi += 1u;
    }
    sim.upd_lo = lo;
    for (var k = 0u; k < params.rain_count; k++) {
        let rain = bc_defs[params.rain_first + k];
        let f = forcing[rain.series];
        let r = df_add(vec2<f32>(sim.rain_hi, sim.rain_lo), 0.5 * dt * (f.x + f.y) * rain.scale, params.one);
        sim.rain_hi = r.x;
        sim.rain_lo = r.y;
    }
}

fn next_dt() -> f32 {
    let remaining = df_diff(vec2<f32>(control.target_hi, control.target_lo), vec2<f32>(sim.t_hi, sim.t_lo), params.one);
    let dt = min(sim.dt_cfl, params.dt_max);
    sim.clamped = 0u;
    sim.done = 0u;
    if (remaining <= 0.0) {
        sim.done = 1u;
        return 0.0;
    }
    if (dt >= remaining) {
        sim.clamped = 1u;
        return remaining;
    }
    return dt;
}

// Workgroups for `count` blocks, from `at` in the dispatch arguments.
fn set_groups(at: u32, count: u32) {
    dispatch[at] = min(count, MAX_GROUPS_X);
    dispatch[at + 1u] = select(0u, (count + MAX_GROUPS_X - 1u) / MAX_GROUPS_X, count > 0u);
    dispatch[at + 2u] = 1u;
}

@compute @workgroup_size(1)
fn finalize_step() {
    let dt = sim.dt;
    if (dt != 0.0) {
        // dt > 0: a step ran. dt < 0: the initial scan ran, nothing to advance.
        if (dt > 0.0) {
            advance_clock(dt);
        }
        sim.list_count = atomicExchange(&sim.scan_count, 0u);
        sim.list_count_border = atomicExchange(&sim.scan_count_border, 0u);
        let bits = atomicExchange(&sim.dt_min_bits, INF_BITS);
        if (bits != INF_BITS) {
            sim.dt_cfl = params.cfl * bitcast<f32>(bits);
        }
    }
    let dt_next = next_dt();
    sim.dt = dt_next;
    let t0 = sim.t_hi + sim.t_lo;
    for (var s = 0u; s < params.n_series; s++) {
        forcing[s] = vec2<f32>(series_value(s, t0), series_value(s, t0 + dt_next));
    }
    var raining = false;
    for (var k = 0u; k < params.rain_count; k++) {
        let r = forcing[bc_defs[params.rain_first + k].series];
        raining = raining || r.x > 0.0 || r.y > 0.0;
    }
    let all = (params.flags & FLAG_SKIP_DRY) == 0u || raining;
    sim.all_active = select(0u, 1u, all);
    var internal = select(sim.list_count, params.own_blocks - params.border_blocks, all);
    var border = select(sim.list_count_border, params.border_blocks, all);
    if (dt_next <= 0.0) {
        internal = 0u;
        border = 0u;
    }
    sim.dispatched = internal;
    sim.dispatched_border = border;
    set_groups(0u, internal);
    set_groups(6u, border);
    dispatch[3] = select(0u, params.scan_groups, dt_next > 0.0);
    dispatch[4] = 1u;
    dispatch[5] = 1u;
}
