// What a cell gains or loses besides its faces: rain, point sources, and the stage,
// outfall, open, normal-depth and rating lines drawn inside the domain. Part of the flux
// kernel (flux.wgsl).

// g n^2 of cell `tid` of a block whose entry in `friction` is `code` (see common.wgsl).
fn friction_of(code: u32, tid: u32) -> f32 {
    if ((code & FRICTION_PER_CELL) == 0u) {
        return bitcast<f32>(code);
    }
    return bitcast<f32>(friction[(code & ~FRICTION_PER_CELL) + tid]);
}

// Depth rate (m/s) the block's sources add to cell `tid` in this stage. A culvert's or
// weir's delivering end takes its discharge from each cell in proportion to the cell's
// depth at the step's start, `depth` (its rate is Q / the end's area, times depth / the
// end's mean depth, forcing's w holding 1 / that mean): the end's cells all lose the same
// share of their water. A negative `depth` spreads it evenly over the end instead.
fn source_rate(span: vec4<u32>, tid: u32, stage: u32, depth: f32) -> f32 {
    var rate = 0.0;
    for (var k = span.x; k < span.x + span.y; k++) {
        let s = sources[k];
        if (s.x == tid) {
            let f = forcing[s.y];
            var r = select(f.x, f.y, stage == 2u) * bitcast<f32>(s.z);
            if (s.y >= params.n_series && r < 0.0 && depth >= 0.0) {
                r *= depth * f.w;
            }
            rate += r;
        }
    }
    return rate;
}

// A line's cell takes a structure's discharge spread evenly over the end (its level is
// the line's).
const EVENLY: f32 = -1.0;

// Rain (m/s of depth) on one cell in this stage.
fn rain_rate(code: u32, tid: u32, stage: u32) -> f32 {
    var s = code;
    if (s == NONE) {
        return 0.0;
    }
    if ((s & RAIN_PER_CELL) != 0u) {
        s = sources[(s & ~RAIN_PER_CELL) + tid / 4u][tid % 4u];
        if (s == NONE) {
            return 0.0;
        }
    }
    let f = forcing[s];
    return select(f.x, f.y, stage == 2u);
}

// Depth rate (m/s) that water enters cell `tid` with, from rain and sources (`depth`: see
// source_rate).
fn inflow_rate(span: vec4<u32>, tid: u32, stage: u32, depth: f32) -> f32 {
    return source_rate(span, tid, stage, depth) + rain_rate(span.w, tid, stage);
}

// The entry of the stage or outfall line on cell `tid`, NONE when none is.
fn level_entry(span: vec4<u32>, tid: u32) -> u32 {
    for (var k = span.x; k < span.x + span.y; k++) {
        if (sources[k].x == (tid | LEVEL_ENTRY)) {
            return k;
        }
    }
    return NONE;
}

// The momentum of a cell on an open or normal-depth line after its update. An open line's
// cell moves as its inner neighbour did (zero gradient). A normal-depth line's cell moves
// outwards, away from its inner neighbour, at the speed its outflow leaves at, so that the
// face to that neighbour sees the flow leaving rather than water stopped by the edge.
fn line_momentum(b: u32, tid: u32, stage: u32, entry: vec4<u32>, next: vec4<f32>) -> vec4<f32> {
    if (next.x <= params.dry_depth) {
        return vec4<f32>(next.x, 0.0, 0.0, next.w);
    }
    let side = entry.z & 0xfu;
    if ((entry.z & OUTFLOW_LINE) == 0u) {
        let inner = open_neighbour(tid, side);
        return vec4<f32>(next.x, next.x * inner.y, next.x * inner.z, next.w);
    }
    let q = line_outflow(b, tid, load_own(stage, b, tid), entry);
    // Outwards is away from the inner side: west inner (1) leaves eastwards, and so on.
    let outward = select(1.0, -1.0, side == 2u || side == 4u);
    if (side <= 2u) {
        return vec4<f32>(next.x, outward * q, next.z, next.w);
    }
    return vec4<f32>(next.x, next.y, outward * q, next.w);
}

// A normal-depth line's entry: `.z` holds this flag with the inner side, `.w` the slope.
const NORMAL_DEPTH_LINE: u32 = 0x10u;
// A rating line's entry: `.z` holds this flag with the inner side, `.y` is its rating
// curve, `.w` 1 / the line's length.
const RATING_LINE: u32 = 0x20u;
// Lines that pass their own discharge out: normal-depth and rating lines.
const OUTFLOW_LINE: u32 = 0x30u;

// Unit discharge (m²/s) an outflow line's cell passes out of the domain: a normal-depth
// line's or a rating line's.
fn line_outflow(b: u32, tid: u32, own: vec4<f32>, entry: vec4<u32>) -> f32 {
    if ((entry.z & RATING_LINE) != 0u) {
        return rating_line_outflow(tid, own, entry);
    }
    return normal_depth_outflow(b, tid, own, entry);
}

// A rating line's cell passes what a rating edge's cell would at its own level, and at
// most half its water in one stage.
fn rating_line_outflow(tid: u32, own: vec4<f32>, entry: vec4<u32>) -> f32 {
    let h = own.x;
    if (h <= params.dry_depth) {
        return 0.0;
    }
    let law = rating_discharge(entry.y, own.w + h) * bitcast<f32>(entry.w);
    return min(line_law_outflow(tid, law, h, entry, true), 0.5 * h * geo.dx / sim.dt);
}

// Unit discharge (m²/s) a normal-depth line's cell passes out of the domain: uniform flow
// on the friction slope, q = h^(5/3) √S / n (as line_law_outflow takes it), and at most
// half the cell's water in one stage, so no cell is emptied below zero.
fn normal_depth_outflow(b: u32, tid: u32, own: vec4<f32>, entry: vec4<u32>) -> f32 {
    let h = own.x;
    if (h <= params.dry_depth) {
        return 0.0;
    }
    let n = sqrt(friction_of(friction[b], tid) / params.g);
    let manning = pow(h, 5.0 / 3.0) * sqrt(bitcast<f32>(entry.w)) / n;
    return min(line_law_outflow(tid, manning, h, entry, false), 0.5 * h * geo.dx / sim.dt);
}

// What an outflow line's cell `h` deep passes where its law gives `law`: at most critical
// flow (a free overfall's); but where the inner neighbour's water arrives supercritically
// the outlet is no control, and a normal-depth line passes its law: held to critical flow
// it stood at critical depth, above the normal depth the water came at (41% under rain).
// A rating line (`rated`) then passes at most its depth at the speed the water arrives at:
// its curve, made for the whole section, would let a film on a high bank out at what it
// gives for the bank's level.
fn line_law_outflow(tid: u32, law: f32, h: f32, entry: vec4<u32>, rated: bool) -> f32 {
    let side = entry.z & 0xfu;
    let inner = open_neighbour(tid, side);
    // Towards the line: away from the inner side (west inner (1) flows east, and so on).
    let towards = select(inner.y, inner.z, side >= 3u) * select(1.0, -1.0, side == 2u || side == 4u);
    let critical = h * sqrt(params.g * h);
    if (inner.x > params.dry_depth && towards > 0.0 && towards * towards > params.g * inner.x) {
        return select(law, min(law, max(critical, h * towards)), rated);
    }
    return min(law, critical);
}

// The neighbour, in the tile, whose state a cell of an open line takes: `side` 1..4 is
// west, east, south, north.
fn open_neighbour(tid: u32, side: u32) -> vec4<f32> {
    return line_inner(tid, side, 1);
}

// The cell `k` cells in from cell `tid` of a line towards its inner side, in the tile.
fn line_inner(tid: u32, side: u32, k: i32) -> vec4<f32> {
    let li = i32(tid) % BLOCK;
    let lj = i32(tid) / BLOCK;
    let di = select(select(0, 1, side == 2u), -1, side == 1u);
    let dj = select(select(0, 1, side == 4u), -1, side == 3u);
    return tile[tile_index(li + k * di, lj + k * dj)];
}

// The depth an open line's cell (`own`, its state with its bed) holds: the level its inner
// neighbour's surface runs on to across the line, as the surface falls from the next cell
// in, but no further than the bed falls (the depth carried over, the zero gradient of
// uniform flow), and never above the neighbour's level (a lake at rest, water running away
// from the line). Carrying the depth alone, a line at the shallow end of a sloping lake
// stood higher than the lake by the bed's fall and poured water in without end: 67,821 m³
// into a lake of 7,554 in 600 s (a hunt).
fn open_line_depth(tid: u32, side: u32, own: vec4<f32>) -> f32 {
    let inner = line_inner(tid, side, 1);
    if (inner.x <= params.dry_depth) {
        return inner.x;
    }
    let next = line_inner(tid, side, 2);
    let bed = own.w;
    let fall = bed - (inner.w - inner.x); // the bed's change from the inner neighbour
    var surface = 0.0;
    if (next.x > params.dry_depth) {
        surface = inner.w - next.w;
    }
    let level = inner.w + clamp(surface, min(fall, 0.0), 0.0);
    if (level == own.x + bed) {
        return own.x; // unchanged: exactly, where the level is its own (a lake at rest)
    }
    return max(level - bed, 0.0);
}

// The whole depth rate of cell `tid` on a line (`entry`, its `sources` entry). On a stage,
// outfall or open line it makes up for the cell's fluxes, so that the stage ends at the
// depth the line holds exactly, and replaces its rain and sources: a stage or outfall line
// holds its level, an open line the depth its inner neighbour had when the stage began
// (zero gradient), so water leaves across the domain's edge as it arrives. On a
// normal-depth or rating line it is the cell's rain and sources less its outflow, the
// fluxes acting as on any cell. Thread 0 recomputes the rate for the volume balance from
// the same inputs.
fn level_rate(b: u32, tid: u32, stage: u32, entry: vec4<u32>, span: vec4<u32>) -> f32 {
    let own = load_own(stage, b, tid);
    if (EDGE_LINES && (entry.z & OUTFLOW_LINE) != 0u) {
        return inflow_rate(span, tid, stage, EVENLY) - line_outflow(b, tid, own, entry) / geo.dx;
    }
    var held: f32;
    if (EDGE_LINES && entry.z != 0u) {
        held = open_line_depth(tid, entry.z & 0xfu, own);
    } else {
        held = stage_line_depth(tid, stage, forcing[entry.y], own.w);
    }
    return (held - own.x) / sim.dt + depth_divergence(tid) / geo.dx;
}

// The depth a stage or outfall line's cell ends the stage at before stage 2 averages it with
// U^n: the line's level at the step's start in stage 1 (as the rates of rain and sources
// are taken there), and in stage 2 the depth whose mean with U^n is the level at the step's
// end, so the step ends at that level itself. Held at the level in stage
// 2 as well, the cell ended each step halfway from its last depth to the new level, a step
// behind a rising or falling series (2.1 mm at a rise of 2 cm/s, a hunt). Where the level
// falls by more than half the depth in a step, the cell ends the step at half its depth.
fn stage_line_depth(tid: u32, stage: u32, f: vec4<f32>, bed: f32) -> f32 {
    let depth = max(select(f.x, f.y, stage == 2u) - bed, 0.0);
    if (stage != 2u) {
        return depth;
    }
    let start = face[tid].y; // U^n's depth, parked there by run_stage
    return max(2.0 * depth - start, 0.0);
}

// The wave speed of a cell on a stage line once the line's level reaches its peak before
// the next step ends: the next step must not outrun the water the line will hold.
fn level_speed(series: u32, s: vec4<f32>) -> f32 {
    let h = max(forcing[series].z - s.w, 0.0);
    var u = 0.0;
    if (s.x > params.dry_depth) {
        u = max(abs(s.y), abs(s.z)) / s.x;
    }
    return u + sqrt(params.g * h);
}

// Discharge (m³/s, in and out) of the block's sources and level lines in this stage, for
// the volume balance.
fn source_discharge(b: u32, span: vec4<u32>, stage: u32) -> vec2<f32> {
    var q = vec2<f32>(0.0);
    for (var k = span.x; k < span.x + span.y; k++) {
        let s = sources[k];
        if ((s.x & LEVEL_ENTRY) != 0u) {
            // The line's water is what it adds beyond the rain and sources it replaces,
            // which the balance counts on their own.
            let tid = s.x & ~LEVEL_ENTRY;
            let rate = level_rate(b, tid, stage, s, span) - inflow_rate(span, tid, stage, EVENLY);
            q += split_flow(rate * geo.dx * geo.dx);
        } else {
            let f = forcing[s.y];
            q.x += select(f.x, f.y, stage == 2u) * bitcast<f32>(s.w);
        }
    }
    return q;
}
