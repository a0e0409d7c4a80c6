// The end of a step, by one workgroup (the last one of scan_then_finalize, or
// finalize_step on its own): it advances the clock, reduces the blocks' CFL limits to the
// next global dt (clamped so output times are hit exactly), evaluates the forcing series
// for the next step and writes the indirect dispatch arguments. Nothing here goes back to
// the host.

const MAX_GROUPS_X: u32 = 65535u;
const RESUMED_SCAN: f32 = -2.0; // sim.dt of a restart's initial scan (an initial one: -1)

// The clock's part of the end of a step, by one thread: the clock advanced by `dt` (> 0:
// a step ran; < 0: the initial scan ran, nothing to advance; 0: an idle step), the active
// counts and CFL minimum collected, and the next dt. Returns the next dt and the time it
// starts from (a double-f32 pair, for the forcing series). The clock and counter fields are
// loaded first and stored last, so that the trips to memory overlap instead of queueing
// one behind another.
fn end_step(dt: f32, replan: bool) -> vec3<f32> {
    var t = vec2<f32>(sim.t_hi, sim.t_lo);
    let clamped = sim.clamped;
    var step = vec2<u32>(sim.step_lo, sim.step_hi);
    var updates = vec2<u32>(sim.upd_lo, sim.upd_hi);
    let launched = sim.dispatched + sim.dispatched_border + sim.dispatched_levels;
    var dt_cfl = sim.dt_cfl;
    let target_t = vec2<f32>(control.target_hi, control.target_lo);
    if (dt > 0.0) {
        // A step cut to reach the target lands on it exactly, not within round-off.
        t = select(df_add(t, dt, params.one), target_t, clamped == 1u);
        step.x += 1u;
        step.y += select(0u, 1u, step.x == 0u);
        let lo = updates.x + launched * CELLS_PER_BLOCK;
        updates.y += select(0u, 1u, lo < updates.x);
        updates.x = lo;
        add_rain();
    }
    if (dt > 0.0 && (params.flags & FLAG_END_IN_STAGE2) != 0u) {
        // The step marked the next one's blocks in the lists and marks of the other parity.
        sim.list_parity = 1u - sim.list_parity;
        sim.launch_mark = next_mark(sim.launch_mark);
    }
    if (dt != 0.0) {
        sim.list_count = atomicExchange(&sim.scan_count, 0u);
        sim.list_count_border = atomicExchange(&sim.scan_count_border, 0u);
        sim.list_count_levels = atomicExchange(&sim.scan_count_levels, 0u);
    }
    if ((dt != 0.0 || replan) && dt != RESUMED_SCAN) {
        // One rank of several ends a step before the ranks agree on its limit: it plans
        // from the lagged one alone, and the host plans again where that does not hold.
        let bits = atomicExchange(&sim.dt_min_bits, INF_BITS);
        let ahead = (params.flags & FLAG_PLAN_AHEAD) != 0u && dt > 0.0 && !replan;
        dt_cfl = lagged_cfl_step(select(bits, INF_BITS, ahead), dt_cfl);
    }
    let remaining = df_diff(target_t, t, params.one);
    let wanted = min(dt_cfl, params.dt_max);
    var next = wanted;
    if (remaining <= 0.0) {
        next = 0.0;
    } else if (wanted >= remaining) {
        next = remaining;
    }
    sim.t_hi = t.x;
    sim.t_lo = t.y;
    sim.step_lo = step.x;
    sim.step_hi = step.y;
    sim.upd_lo = updates.x;
    sim.upd_hi = updates.y;
    sim.dt_cfl = dt_cfl;
    sim.done = select(0u, 1u, remaining <= 0.0);
    sim.clamped = select(0u, 1u, remaining > 0.0 && wanted >= remaining);
    sim.dt = next;
    return vec3<f32>(next, t);
}

// The CFL step from the state's limit `bits` (min dx / speed, as f32 bits; INF_BITS where no
// block set one) and the limit of the state before, `sim.cfl_limit`: the lagged limit times
// params.cfl_margin, unless the new limit is shorter (a replan). Since a dt planned from
// the lagged limit stays right unless the new limit fell by more than the margin, ranks
// plan each step before they have agreed on the limit, and agree on it while the step
// runs (src/solver/ranks.rs, `settle`); one rank takes the same steps. No infinity enters
// the arithmetic: WGSL lets compilers assume finite floats. `kept` (the last CFL step)
// stays when no limit is known.
fn lagged_cfl_step(bits: u32, kept: f32) -> f32 {
    let before = sim.cfl_limit;
    sim.cfl_limit = bits;
    var limit = bits;
    if (before != INF_BITS) {
        let lagged = params.cfl_margin * bitcast<f32>(before);
        if (bits == INF_BITS || lagged <= bitcast<f32>(bits)) {
            limit = bitcast<u32>(lagged);
        } else {
            sim.cfl_replans += 1u;
        }
    }
    if (limit == INF_BITS) {
        return kept;
    }
    return params.cfl * bitcast<f32>(limit);
}

// Each thread's share of the step's rain, added in thread order: the same bits on every
// run. Summed in registers: a running sum in storage would make each addition wait for
// the last one's trip to memory. A run without rain adds only zeros.
fn add_rain() {
    if (params.rain_count == 0u) {
        return;
    }
    var rain = vec2<f32>(sim.rain_hi, sim.rain_lo);
    for (var k = 0u; k < FINALIZE_THREADS; k++) {
        rain = df_add(rain, wg_rain[k], params.one);
    }
    sim.rain_hi = rain.x;
    sim.rain_lo = rain.y;
}

// Workgroups for `count` blocks, from `at` in the dispatch arguments. When stage 2 ends
// the step, a step with no block still launches one workgroup, the one that ends it.
fn set_groups(at: u32, blocks: u32) {
    var count = blocks;
    if ((params.flags & FLAG_END_IN_STAGE2) != 0u) {
        count = max(count, 1u);
    }
    // As few rows as the limit allows, of equal length: fewer than `rows` workgroups find
    // no block. (Rows of MAX_GROUPS_X left 65,534 idle workgroups at 65,536 blocks, 8%
    // of a 4096² step on an H100.)
    let rows = (count + MAX_GROUPS_X - 1u) / MAX_GROUPS_X;
    let divisor = max(rows, 1u); // no blocks: no rows, no workgroups
    dispatch[at] = (count + divisor - 1u) / divisor;
    dispatch[at + 1u] = rows;
    dispatch[at + 2u] = 1u;
}

// Rain gridded from rasters makes a series per rain cell: the threads share the series.
const FINALIZE_THREADS: u32 = 64u;
var<workgroup> wg_rain: array<f32, 64>;     // domain-mean rain depth of the step, per thread
var<workgroup> wg_raining: atomic<u32>;
var<workgroup> wg_dt_next: f32;
var<workgroup> wg_t0: vec2<f32>;

// Each thread's part of the step's domain-mean rain depth, from the forcing it used.
fn rain_share(lid: u32, dt: f32) -> f32 {
    var depth = 0.0;
    for (var k = lid; k < params.rain_count; k += FINALIZE_THREADS) {
        let rain = bc_defs[params.rain_first + k];
        let f = forcing[rain.series];
        depth += 0.5 * dt * (f.x + f.y) * rain.scale;
    }
    return depth;
}

@compute @workgroup_size(FINALIZE_THREADS)
fn finalize_step(@builtin(local_invocation_index) lid: u32) {
    finalize(lid, false);
}

// The step about to be taken planned again, once the host has put the agreed limits in
// `sim.cfl_limit` (the state before) and `sim.dt_min_bits` (the state it starts from):
// the clock stays, the dt, the forcing and the dispatch arguments are made anew.
@compute @workgroup_size(FINALIZE_THREADS)
fn replan_step(@builtin(local_invocation_index) lid: u32) {
    finalize(lid, true);
}

var<workgroup> wg_groups_before: u32;

// Whether this workgroup is the last of `groups` to get here (each counts itself once its
// storage writes are released by the storage barrier; see scan_then_finalize).
fn last_to_finish(lid: u32, groups: u32) -> bool {
    storageBarrier();
    if (lid == 0u) {
        wg_groups_before = atomicAdd(&sim.scanned_groups, 1u);
    }
    if (workgroupUniformLoad(&wg_groups_before) != groups - 1u) {
        return false;
    }
    storageBarrier();
    if (lid == 0u) {
        atomicStore(&sim.scanned_groups, 0u);
    }
    return true;
}

// The dry-map and the end of the step in one dispatch, one block per thread: the last
// workgroup to finish its blocks finalises the step. It reads only the list counts, which
// are atomics, and the lists themselves are read by later dispatches. Each workgroup's
// count additions must reach memory before it counts itself done: naga writes
// storageBarrier as a SPIR-V barrier with device memory scope and acquire-release
// semantics, which orders them (WGSL itself promises ordering only within a workgroup;
// a new backend should pass tests/drymap.rs before it is trusted with this kernel; else
// run scan_blocks and finalize_step as two dispatches). One kernel fewer per step saves
// the host a dispatch to record and the GPU a kernel boundary.
@compute @workgroup_size(FINALIZE_THREADS)
fn scan_then_finalize(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    if (sim.dt != 0.0) {
        scan_block(gid.x); // an idle step (dt = 0) changed no wet flag: nothing to scan
    }
    if (last_to_finish(lid, groups.x)) {
        finalize(lid, false);
    }
}

// The end of a step by the last of the `groups` workgroups of the step's last stage-2
// dispatch (stage2_then_end), once every workgroup has marked the next step's blocks
// (mark_next_step). Workgroups beyond the list's length count too: none may start after
// the step's end has changed the counts it would compare itself with. As in
// scan_then_finalize, the next step's lengths are atomics and its lists are read by later
// dispatches. A new backend must pass tests/drymap.rs
// (ending_steps_in_stage_2_changes_no_result) before it is trusted with it.
fn end_in_stage2(lid: u32, groups: u32) {
    if (last_to_finish(lid, groups)) {
        finalize(lid, false);
    }
}

// Whether the dry-map launched every internal block: the step then reads the fixed lists,
// in block order, where the dry-map's are in the order its atomics came (3.5% slower on a
// fully wet 4096² grid on one H100, 6% on two). Where every block is launched, stage 2
// reads every neighbour's U* unasked, ghosts included: a rank runs stage 1 on every ghost,
// and a ghost its owner did not launch is dry among dry blocks, so its U* is its U^n.
fn every_internal_block_launched(internal: u32) -> bool {
    return sim.list_count == params.regular_blocks
        && sim.list_count_levels == internal - params.regular_blocks;
}

// Called by every thread of the workgroup; threads from FINALIZE_THREADS on only keep to
// its barriers, so that any workgroup size gives the same bits.
fn finalize(lid: u32, replan: bool) {
    let dt = select(sim.dt, 0.0, replan); // a replan takes no step
    let share = lid < FINALIZE_THREADS;
    if (share) {
        wg_rain[lid] = select(0.0, rain_share(lid, dt), dt > 0.0);
    }
    if (lid == 0u) {
        atomicStore(&wg_raining, 0u); // workgroup memory need not start zeroed
    }
    workgroupBarrier();
    if (lid == 0u) {
        let next = end_step(dt, replan);
        wg_dt_next = next.x;
        wg_t0 = next.yz;
    }
    workgroupBarrier();
    let dt_next = wg_dt_next;
    let t0 = wg_t0;
    for (var s = lid; share && s < params.n_series; s += FINALIZE_THREADS) {
        forcing[s] = series_forcing(s, t0, dt_next);
    }
    storageBarrier();
    for (var k = lid; share && k < params.rain_count; k += FINALIZE_THREADS) {
        let r = forcing[bc_defs[params.rain_first + k].series];
        if (r.x > 0.0 || r.y > 0.0) {
            atomicStore(&wg_raining, 1u);
        }
    }
    workgroupBarrier();
    if (lid != 0u) {
        return;
    }
    let raining = atomicLoad(&wg_raining) == 1u;
    let internal = params.own_blocks - params.border_blocks;
    // A rank's border blocks are scanned at the next step's start (scan_border), which
    // settles all_active 2.
    let internal_all = every_internal_block_launched(internal);
    let all = (params.flags & FLAG_SKIP_DRY) == 0u || raining
        || (internal_all && params.border_blocks == 0u);
    sim.all_active = select(select(0u, INTERNAL_LAUNCHED_BORDER_UNSCANNED, internal_all), 1u, all);
    var regular = select(sim.list_count, params.regular_blocks, all);
    var border = select(sim.list_count_border, params.border_blocks, all);
    var levels = select(sim.list_count_levels, internal - params.regular_blocks, all);
    if (dt_next <= 0.0) {
        regular = 0u;
        border = 0u;
        levels = 0u;
    }
    sim.dispatched = regular;
    sim.dispatched_border = border;
    sim.dispatched_levels = levels;
    set_groups(0u, regular);
    set_groups(3u, border);
    set_groups(6u, levels);
}
