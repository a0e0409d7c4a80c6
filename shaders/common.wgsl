// Shared declarations of every solver kernel: constants, buffer layouts, bindings and the
// double-f32 arithmetic used for simulated time and accumulated volumes.
//
// One bind group serves all kernels, so the host builds one layout and one bind group.

const BLOCK: i32 = 16;              // cells on a block side
const CELLS_PER_BLOCK: u32 = 256u;
const HALO: i32 = 2;                // MUSCL needs two cells beyond each face
const TILE: i32 = 20;               // BLOCK + 2 * HALO
const NONE: u32 = 0xffffffffu;      // "no block": outside the domain
const INF_BITS: u32 = 0x7f800000u;  // bit pattern of +inf; positive floats order like their bits
// Bed elevation of cells that are not part of the domain (padding, nodata). The hydrostatic
// reconstruction turns a bed this high into a wall, so such cells need no special case.
const WALL_BED: f32 = 1.0e6;
const WALL_BED_TEST: f32 = 5.0e5;
// The walls of weirs and crested levees (src/scenario/model.rs, STRUCTURE_WALL_BED) stand
// higher: their faces stay dry banks (reconstruct.wgsl, wall_flux).
const STRUCTURE_WALL_TEST: f32 = 1.5e6;
const FRICTION_PER_CELL: u32 = 0x80000000u; // never set in a non-negative f32
// A wave speed (m/s) no flood reaches (sqrt(g h) is 313 m/s in 10 km of water): beyond it
// the run has blown up, even before anything overflows to infinity or NaN.
const MAX_WAVE_SPEED: f32 = 1.0e4;

// Neighbour table: 12 slots per block. A side facing finer blocks (multi-resolution) lists
// two of them; on a single level the second slot is NONE.
const NB_N0: u32 = 0u; const NB_N1: u32 = 1u;
const NB_S0: u32 = 2u; const NB_S1: u32 = 3u;
const NB_E0: u32 = 4u; const NB_E1: u32 = 5u;
const NB_W0: u32 = 6u; const NB_W1: u32 = 7u;
const NB_NE: u32 = 8u; const NB_NW: u32 = 9u;
const NB_SE: u32 = 10u; const NB_SW: u32 = 11u;
const NB_SLOTS: u32 = 12u;

// Params.flags
const FLAG_SKIP_DRY: u32 = 1u;      // launch only wet blocks and their neighbours
const FLAG_TRACK_MAX: u32 = 2u;     // keep the run's maxima and arrival time per cell
const FLAG_END_IN_STAGE2: u32 = 8u; // stage 2's last workgroup ends the step (stage2_then_end)
const FLAG_CLASSES_IN_ORDER: u32 = 16u; // internal blocks are numbered regular ones first
const FLAG_PLAN_AHEAD: u32 = 32u;   // one rank of several: a step's end plans from the lagged limit alone
const FLAG_GREEN_AMPT: u32 = 128u;  // losses by Green-Ampt; else initial and continuing (losses.wgsl)

// BlockInfo.flags
const BLOCK_ALWAYS_ACTIVE: u32 = 1u; // touches an inflow or stage boundary
const BLOCK_ON_EDGE: u32 = 2u;       // touches the domain edge: needs ghost cells
const COARSER_SIDES_SHIFT: u32 = 8u; // 4 bits (W, E, S, N): that side faces a coarser block
const FINER_SIDES_SHIFT: u32 = 12u;  // 4 bits: that side faces two finer blocks
const LEVEL_CHANGE_SIDES: u32 = 0xff00u; // the coarser and finer bits together

// Classes of own blocks, each with a stage kernel and an active list of its own. Internal
// blocks with a level change on a side get the kernel with the multi-resolution code;
// the others get one without it, which the compiler gives fewer registers (more
// workgroups resident per compute unit: docs/benchmarks-history.md).
const CLASS_REGULAR: u32 = 0u;  // internal, every side facing blocks of its own level
const CLASS_BORDER: u32 = 1u;   // beside another rank's blocks (any levels)
const CLASS_LEVELS: u32 = 2u;   // internal, with a level change on a side (every internal
                                // block when there is no regular class: Params.regular_blocks)
// Sim.all_active: a rank whose dry-map launched every internal block, before its border
// blocks are scanned (scan_border), and after, where some of them are not launched.
const INTERNAL_LAUNCHED_BORDER_UNSCANNED: u32 = 2u;
const INTERNAL_LAUNCHED: u32 = 3u;
const CLASS_GHOST: u32 = 3u;    // a rank's stage 1 on its ghosts (every one), then on its
                                // launched border blocks, in one dispatch

// BcDef.kind
const BC_WALL: u32 = 0u;
const BC_OPEN: u32 = 1u;
const BC_INFLOW: u32 = 2u;   // discharge hydrograph Q(t), imposed as the face mass flux
const BC_STAGE: u32 = 3u;    // water level hydrograph eta(t)
const BC_RAIN: u32 = 4u;     // not a boundary: a rain series and its share of the domain (scale)
const BC_NORMAL: u32 = 5u;   // outflow at Manning's normal depth, friction slope `scale`
const BC_RATING: u32 = 6u;   // outflow Q(level) of a rating (a series of levels), per width `scale`
// BcDef.series of a wall edge's cells beyond an open, normal-depth or rating line's cells
// (src/scenario/model.rs, LINE_BEYOND).
const LINE_BEYOND: u32 = 0xfffffffeu;

// In a source entry's cell: the cell holds the series' water level (relative to the datum).
const LEVEL_ENTRY: u32 = 0x100u;

// In a block's rain code (sources[b].w): its cells' series follow one by one.
const RAIN_PER_CELL: u32 = 0x80000000u;

struct Params {
    nx: u32,            // domain size in cells
    ny: u32,
    nblocks: u32,
    flags: u32,
    g: f32,
    cfl: f32,
    dx: f32,            // cell size (m)
    dt_max: f32,
    dry_depth: f32,     // below this depth a cell has no velocity
    n_series: u32,
    rain_first: u32,    // rain_count entries of bc_defs from here: (BC_RAIN, series, share of the domain)
    edge_w: u32,        // offsets of each domain edge in bc_edge (W, E: ny entries; S, N: nx)
    edge_e: u32,
    edge_s: u32,
    edge_n: u32,
    one: f32,           // 1.0, opaque to the compiler: see dfloat.wgsl
    own_blocks: u32,    // blocks this rank computes: [0, border_blocks) border, then internal;
    border_blocks: u32, // blocks from own_blocks on are ghosts (copies from other ranks)
    arrival_depth: f32, // depth (m) at which a cell counts as reached by the flood
    rain_count: u32,
    regular_blocks: u32, // internal blocks of CLASS_REGULAR; 0: every internal block is CLASS_LEVELS
    peak_origin: f32,   // time code of the maxima: (t - peak_origin) * peak_rate, rounded
    peak_rate: f32,
    cfl_margin: f32,    // the lagged CFL limit's share that a step may take (timestep.wgsl)
    structure_count: u32, // culverts and weirs (structures.wgsl), whose discharges follow the series in `forcing`
    duration_depth: f32, // depth (m) from which a cell counts as flooded (inundation duration)
    debris_mid: f32,    // the UK hazard rating's debris factors (uk_rating in update.wgsl)
    debris_high: f32,
}

// What the host changes between submissions.
struct Control {
    target_hi: f32,     // next time the run must stop at exactly (double-f32)
    target_lo: f32,
    pad0: u32,
    pad1: u32,
}

// The run's clock and counters, owned by the GPU.
struct Sim {
    t_hi: f32,
    t_lo: f32,
    dt: f32,            // step about to be taken; 0 = idle (target reached); < 0 = initialise
                        // (RESUMED_SCAN: a restart, whose CFL step and limit are kept)
    clamped: u32,       // 1 when dt was cut to land exactly on the target
    step_lo: u32,
    step_hi: u32,
    upd_lo: u32,        // cell updates so far (64-bit)
    upd_hi: u32,
    rain_hi: f32,       // domain-mean rain depth fallen so far (m), double-f32
    rain_lo: f32,
    dispatched: u32,    // regular internal blocks launched by the step about to be taken
    all_active: u32,    // 1 = the step launches every block (rain, skipping off, or all launched);
                        // a rank that launches every internal block: 2 before its border
                        // blocks are scanned (scan_border), 3 where some of them are not
    dt_min_bits: atomic<u32>, // min over blocks of dx / wave speed, as f32 bits
    scan_count: atomic<u32>,  // regular internal blocks the dry-map launches
    list_count: u32,    // length of the regular internal active list the next step uses
    dt_cfl: f32,        // last CFL-limited step
    done: u32,          // 1 when the clock sits on the target
    dispatched_border: u32,  // the same three for border blocks
    scan_count_border: atomic<u32>,
    list_count_border: u32,
    bad_block: atomic<u32>,  // 1 + the highest block that produced NaN or infinity; 0 = none
    scanned_groups: atomic<u32>, // workgroups of scan_then_finalize (or stage2_then_end) done this step
    dispatched_levels: u32,  // the same three for internal blocks with a level change
    scan_count_levels: atomic<u32>,
    list_count_levels: u32,
    list_parity: u32,   // which moving lists and launch marks the step about to be taken reads
    launch_mark: u32,   // the mark (in block_flags) of blocks that step launches
    cfl_limit: u32,     // dt_min_bits of the state the step about to be taken starts from
    cfl_replans: u32,   // steps whose dt came from that limit rather than the lagged one
}

struct BlockInfo {
    i0: u32,            // first cell of the block, in cells of its level
    j0: u32,
    level: u32,
    flags: u32,
}

struct BcDef {
    kind: u32,
    series: u32,        // NONE = constant 0
    scale: f32,         // value used = series value * scale + offset
    offset: f32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<uniform> control: Control;
@group(0) @binding(2) var<storage, read_write> sim: Sim;
// Cell state: the step's start U^n as (h, hu, hv, z), and the stage-1 result U* as
// (h, hu, hv) alone, STAGED_PER_BLOCK pairs a block (`staged_state` in flux.wgsl). The bed
// stays in state_a only: 4 B per cell less memory and less traffic in stage 1.
@group(0) @binding(3) var<storage, read_write> state_a: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> state_b: array<vec2<f32>>;
const STAGED_PER_BLOCK: u32 = 384u;
// g * n^2, precomputed so the friction term costs one multiply. [0, nblocks): per block,
// the f32 bits of the value all its cells share, or FRICTION_PER_CELL | the entry where
// its 256 cells' own values start. Most blocks lie in one land use, so most cells cost
// no friction memory and no load.
@group(0) @binding(5) var<storage, read> friction: array<u32>;
@group(0) @binding(6) var<storage, read> blocks: array<BlockInfo>;
@group(0) @binding(7) var<storage, read> neighbours: array<u32>;
// [0, nblocks): 1 if the block holds water; [nblocks, 2 nblocks) and [2 nblocks, 3 nblocks):
// launch marks of the two list parities, a block being launched this step when its mark
// equals sim.launch_mark (see `launched`). Atomic, for stage 2 marks the next step's
// blocks from every workgroup (mark_next_step).
@group(0) @binding(8) var<storage, read_write> block_flags: array<atomic<u32>>;
// Active blocks of the next step: regular internal ones from 0 up, internal ones with a
// level change from nblocks - 1 down, border ones from nblocks; then, from 2 nblocks, every
// internal block, regular ones first (the lists of a step that launches every block); from
// 3 nblocks, the internal lists of parity 1 (moving_base).
@group(0) @binding(9) var<storage, read_write> active_list: array<u32>;
@group(0) @binding(10) var<storage, read> bc_edge: array<u32>;
@group(0) @binding(11) var<storage, read> bc_defs: array<BcDef>;
// Time series: meta[s] = (first point, point count | SERIES_* flags); points are (t, value).
@group(0) @binding(12) var<storage, read> series_meta: array<vec2<u32>>;
// Per point: (time as a double-f32 pair hi, lo; value; 0).
@group(0) @binding(13) var<storage, read> series_pts: array<vec4<f32>>;
// Per series: what the step's two stages read (see series_forcing), set once per step.
@group(0) @binding(14) var<storage, read_write> forcing: array<vec4<f32>>;
// Per block: volume in and out through the domain edge, double-f32 (in_hi, in_lo, out_hi, out_lo);
// then per block, the discharge in and out of the step's stage 1, added in stage 2.
@group(0) @binding(15) var<storage, read_write> block_volume: array<vec4<f32>>;
// Per cell over the run (src/scenario/maxima.rs): max depth; max speed and max depth x
// speed as two f16; time codes of the max depth (low half) and of the arrival, when the
// depth first reached params.arrival_depth (high half; NEVER_CODE while never); the UK
// hazard rating's maximum as f16 (low half) and the inundation duration in time codes
// (high half).
struct Peak {
    depth: f32,
    speed_hazard: u32,
    times: u32,
    hazard_duration: u32,
}
@group(0) @binding(16) var<storage, read_write> maxima: array<Peak>;
// Sources inside the domain, and rain. [0, nblocks): per block (first entry, entry count,
// the wave speed its sources' peak discharges impose on dt as f32 bits, rain code);
// then entries (cell in block, series, depth rate per m³/s as f32 bits, share of the
// discharge as f32 bits), grouped by block, or for the cells of stage and outfall lines
// (cell in block | LEVEL_ENTRY, level series, 0, 0); then the rain series of each cell of the
// blocks whose cells differ (four cells to an entry). A rain code is the series raining
// on the whole block, NONE, or RAIN_PER_CELL | the entry where its cells' series start.
@group(0) @binding(17) var<storage, read> sources: array<vec4<u32>>;
// Loss parameters, each cell's cumulative loss and each block's lost volume (losses.wgsl).
@group(0) @binding(18) var<storage, read_write> losses: array<u32>;
// Culverts' and weirs' dimensions and end cells (structures.wgsl).
@group(0) @binding(19) var<storage, read> structures: array<u32>;
// Indirect dispatch arguments: workgroups of the stage kernels on regular internal blocks
// [0..3), on border blocks [3..6), on internal blocks with a level change [6..9), and of a
// rank's stage 1 on its ghosts and border blocks [9..12). In a
// group of its own, bound only for the kernels that finalise a step: a buffer may not be
// storage and indirect argument within one dispatch.
@group(1) @binding(0) var<storage, read_write> dispatch: array<u32>;

// Steps that end in stage 2 (FLAG_END_IN_STAGE2) build the next step's lists while the
// current ones are read, so the internal lists and launch marks come in two parities that
// alternate from step to step; otherwise parity 0 serves every step, with mark 1.
fn moving_base(parity: u32) -> u32 {
    return select(0u, 3u * params.nblocks, parity == 1u);
}

fn mark_base(parity: u32) -> u32 {
    return params.nblocks * (1u + parity);
}

// Whether block b is launched by the step being taken. Marks of earlier steps stay in
// place (no clearing): they differ from the current mark.
fn launched(b: u32) -> bool {
    return atomicLoad(&block_flags[mark_base(sim.list_parity) + b]) == sim.launch_mark;
}

// Whether block b's U* (state_b) is this step's: the step launched every block, or b.
// Stage 2 and the stage-1 strips read U^n (state_a) of a block left out.
fn staged(b: u32) -> bool {
    return sim.all_active == 1u || launched(b);
}

// The block a stage workgroup computes: the linear-th active block of its class. When
// every block is launched and the classes are numbered in order (a grid of one class),
// the fixed list is a range and is not read: one load fewer before the halo's, 4% of a
// fully wet step on an H100.
fn block_of_list(kind: u32, linear: u32) -> u32 {
    let nb = params.nblocks;
    if (kind == CLASS_GHOST) {
        let ghosts = nb - params.own_blocks;
        if (linear < ghosts) {
            return params.own_blocks + linear;
        }
        let border = linear - ghosts;
        return select(active_list[nb + border], border, sim.all_active == 1u);
    }
    // all_active 2 or 3: every internal block launched (see Sim). The fixed lists then
    // serve the internal blocks too: the moving ones, in the order the atomics came, made a
    // rank's internal stage 1 7% slower on an H100.
    let internal = sim.all_active == INTERNAL_LAUNCHED_BORDER_UNSCANNED
        || sim.all_active == INTERNAL_LAUNCHED;
    let every = sim.all_active == 1u || (internal && kind != CLASS_BORDER);
    if (every) {
        let in_order = (params.flags & FLAG_CLASSES_IN_ORDER) != 0u;
        switch (kind) {
            case CLASS_BORDER: { return linear; }
            case CLASS_LEVELS: {
                if (in_order) {
                    return params.border_blocks + params.regular_blocks + linear;
                }
                return active_list[2u * nb + params.regular_blocks + linear];
            }
            default: {
                if (in_order) {
                    return params.border_blocks + linear;
                }
                return active_list[2u * nb + linear];
            }
        }
    }
    let base = moving_base(sim.list_parity);
    switch (kind) {
        case CLASS_BORDER: { return active_list[nb + linear]; }
        case CLASS_LEVELS: { return active_list[base + nb - 1u - linear]; }
        default: { return active_list[base + linear]; }
    }
}

// Blocks the step launches in a class.
fn dispatched_in(kind: u32) -> u32 {
    switch (kind) {
        case CLASS_BORDER: { return sim.dispatched_border; }
        case CLASS_LEVELS: { return sim.dispatched_levels; }
        case CLASS_GHOST: { return params.nblocks - params.own_blocks + sim.dispatched_border; }
        default: { return sim.dispatched; }
    }
}

// series_meta[s] = (first point, point count | these flags).
// A series of volumes (discharge, rain): each step uses its mean over the step, so that the
// water a step adds is the series' exact integral: a pulse shorter than a step, or a
// breakpoint inside one, is not stepped over or cut short.
const SERIES_MEAN: u32 = 0x80000000u;
// A series whose forcing bounds dt (inflows, stages, level lines): its peak over the next
// steps is kept too (forcing[s].z), so that a step never outruns the wave it will create.
const SERIES_PEAK: u32 = 0x40000000u;
const SERIES_COUNT: u32 = 0x3fffffffu;

// (first point, point count) of series s.
fn series_span(s: u32) -> vec2<u32> {
    let entry = series_meta[s];
    return vec2<u32>(entry.x, entry.y & SERIES_COUNT);
}

// Series are read at times relative to the step's start t0, a double-f32 pair: an f32
// clock is 8 ms coarse a day into a run, so steps read at f32 times would not tile the
// hydrograph and its integral would not enter. Point k of the span and its time after t0.
fn series_point(span: vec2<u32>, k: u32, t0: vec2<f32>) -> vec2<f32> {
    let p = series_pts[span.x + k];
    return vec2<f32>(df_diff(p.xy, t0, params.one), p.z);
}

// The last point of the span at or before r (after t0), for first <= r < last. Binary
// search: hydrographs can have thousands of points.
fn series_piece(span: vec2<u32>, t0: vec2<f32>, r: f32) -> u32 {
    var lo = 0u;
    var hi = span.y - 1u;
    while (hi - lo > 1u) {
        let mid = (lo + hi) / 2u;
        if (series_point(span, mid, t0).x <= r) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// Series s at time r after t0.
fn series_value(s: u32, t0: vec2<f32>, r: f32) -> f32 {
    if (s == NONE) {
        return 0.0;
    }
    let span = series_span(s);
    let first = series_point(span, 0u, t0);
    if (r <= first.x || span.y == 1u) {
        return first.y;
    }
    let last = series_point(span, span.y - 1u, t0);
    if (r >= last.x) {
        return last.y;
    }
    let lo = series_piece(span, t0, r);
    let p0 = series_point(span, lo, t0);
    let p1 = series_point(span, lo + 1u, t0);
    let w = (r - p0.x) / (p1.x - p0.x);
    return p0.y + w * (p1.y - p0.y);
}

// The first point of the span after time r after t0.
fn series_next_point(span: vec2<u32>, t0: vec2<f32>, r: f32) -> u32 {
    if (r < series_point(span, 0u, t0).x) {
        return 0u;
    }
    if (span.y == 1u || r >= series_point(span, span.y - 1u, t0).x) {
        return span.y;
    }
    return series_piece(span, t0, r) + 1u;
}

// Mean of series s over [t0, t0 + dt]: its integral, piece by piece, over dt.
fn series_mean(s: u32, t0: vec2<f32>, dt: f32) -> f32 {
    let span = series_span(s);
    var k = series_next_point(span, t0, 0.0);
    if (dt <= 0.0 || k == span.y || series_point(span, k, t0).x >= dt) {
        return series_value(s, t0, 0.5 * dt); // one linear piece: its midpoint
    }
    var a = vec2<f32>(0.0, series_value(s, t0, 0.0));
    var integral = 0.0;
    while (k < span.y) {
        let p = series_point(span, k, t0);
        if (p.x >= dt) {
            break;
        }
        integral += 0.5 * (a.y + p.y) * (p.x - a.x);
        a = p;
        k++;
    }
    integral += 0.5 * (a.y + series_value(s, t0, dt)) * (dt - a.x);
    return integral / dt;
}

// Largest value of series s from t0 to r after it.
fn series_peak(s: u32, t0: vec2<f32>, r: f32) -> f32 {
    let span = series_span(s);
    var peak = max(series_value(s, t0, 0.0), series_value(s, t0, r));
    for (var k = series_next_point(span, t0, 0.0); k < span.y; k++) {
        let p = series_point(span, k, t0);
        if (p.x >= r) {
            break;
        }
        peak = max(peak, p.y);
    }
    return peak;
}

// What the stages of a step from t0 to t0 + dt read of series s: (stage 1's value, stage
// 2's value, peak until dt_max past the step's end, 0). The peak covers the whole next
// step, whose dt the speeds noted in this step bound.
fn series_forcing(s: u32, t0: vec2<f32>, dt: f32) -> vec4<f32> {
    let flags = series_meta[s].y;
    var peak = 0.0;
    if ((flags & SERIES_PEAK) != 0u) {
        peak = series_peak(s, t0, max(dt, 0.0) + params.dt_max);
    }
    if ((flags & SERIES_MEAN) != 0u) {
        let mean = series_mean(s, t0, dt);
        return vec4<f32>(mean, mean, peak, 0.0);
    }
    return vec4<f32>(series_value(s, t0, 0.0), series_value(s, t0, dt), peak, 0.0);
}
