// The flux kernel: one workgroup per active block, one thread per cell (regular blocks add
// a 17th row of threads for the faces: see stage_threads).
//
// Each workgroup loads its block and a two-cell halo into workgroup memory, fills ghost
// cells on the domain edge from the boundary conditions, computes every face flux of the
// block once, then updates its cells. Faces on a block border are computed by both blocks
// from the same inputs with the same code, so they agree bit for bit and mass is conserved.
//
// Across a level change (multi-resolution grids) the fine side sees the coarse cell as
// virtual fine cells, and the coarse side computes the same fine faces and uses their mean:
// one flux, computed identically from both sides (levels.wgsl).
//
// Entry points: `init_speeds` (wave speeds and wet flags of the initial state),
// `stage1` (U* = U^n + dt L(U^n), into state_b) and
// `stage2` (U^{n+1} = (U^n + U* + dt L(U*)) / 2, in place in state_a; `stage2_end` also
// ends the step, on small grids), each for one class
// of blocks (CLASS_* in common.wgsl): plain names for regular blocks, `_levels` for blocks
// with a level change (or every internal block, on a grid without a regular class),
// `_border` for blocks beside another rank.

const X_FACES: u32 = 272u;      // 17 faces per row x 16 rows
const REGULAR_FACES: u32 = 544u;
const SIDE_CELLS: u32 = 64u;    // own cells along the 4 sides
const FACE_ROW: i32 = 17;
const SIDE_W: u32 = 0u;
const SIDE_E: u32 = 1u;
const SIDE_S: u32 = 2u;
const SIDE_N: u32 = 3u;
const EDGE_MASS: u32 = 256u;    // face[EDGE_MASS..]: mass flux of the 16 edge faces of each side

var<workgroup> tile: array<vec4<f32>, 400>;   // (h, u, v, eta) over the block and its halo
// The faces of one direction at a time: x-faces (face west of (li, lj) at li + 17 lj), then
// y-faces (face south of (li, lj) at li + 16 lj), then each cell's depth divergence and the
// edge faces' mass fluxes (EDGE_MASS). One array instead of two keeps workgroup memory at
// 10.8 KB instead of 15.1: registers hold an H100 SM to 4 workgroups now, and past ~16 KB
// workgroup memory would hold it to 3 (docs/benchmarks-history.md).
var<workgroup> face: array<vec4<f32>, 272>;
var<workgroup> wg_block: u32;
var<workgroup> wg_staged_halo: u32;           // see load_cell
var<workgroup> wg_dt_bits: atomic<u32>;       // min over cells of dx / wave speed
var<workgroup> wg_wet: atomic<u32>;

// The block being computed, in cells of its own level.
struct Geometry {
    i0: i32,
    j0: i32,
    level: u32,
    nx: i32,        // domain size at this level
    ny: i32,
    dx: f32,        // cell size at this level
    coarser: u32,   // bit per side (W, E, S, N): the neighbour there is coarser
    finer: u32,     // bit per side: the neighbours there are finer
}
var<private> geo: Geometry;

// `levels` is a constant of each kernel: false, the level bits are constant zeros and the
// compiler drops every multi-resolution branch, with the registers they would hold.
fn set_geometry(info: BlockInfo, levels: bool) {
    let coarser = select(0u, (info.flags >> COARSER_SIDES_SHIFT) & 15u, levels);
    let finer = select(0u, (info.flags >> FINER_SIDES_SHIFT) & 15u, levels);
    geo = Geometry(i32(info.i0), i32(info.j0), info.level, i32(params.nx >> info.level),
                   i32(params.ny >> info.level), params.dx * f32(1u << info.level),
                   coarser, finer);
}

fn tile_index(li: i32, lj: i32) -> i32 {
    return (li + HALO) + (lj + HALO) * TILE;
}

// Both face arrays run along x first, so that the threads of a subgroup touch consecutive
// tile cells: along y, a stride of one tile row would put 16 threads on the same banks of
// workgroup memory.
fn xface_index(li: i32, lj: i32) -> i32 {
    return li + FACE_ROW * lj;
}

fn yface_index(li: i32, lj: i32) -> i32 {
    return li + BLOCK * lj;
}

// (h, u, v, eta) from the stored (h, hu, hv, z). The tile holds the free surface eta rather
// than the bed: a value loaded from memory is opaque to the compiler, so on a lake at rest
// every eta difference is an exact zero instead of a reassociated (h1 + z1) - (h2 + z2).
fn to_primitive(s: vec4<f32>) -> vec4<f32> {
    let eta = s.x + s.w;
    if (s.x > params.dry_depth) {
        return vec4<f32>(s.x, s.y / s.x, s.z / s.x, eta);
    }
    return vec4<f32>(s.x, 0.0, 0.0, eta);
}

// Stage 2 reads the stage-1 result of launched blocks; a block left out this step is dry
// with dry neighbours, so its U* equals its U^n. Both are loaded at once: waiting for the
// launch flag first put one more global load in the chain before the faces (stage 2 took
// 6% longer). When every block was launched, the level-change and border kernels load U*
// alone (wg_staged_halo): that took stage2_levels from 74 to 64 registers on an H100 (4
// workgroups per SM instead of 3) and the 3-level grid at 4096² 2% faster; the regular
// kernels ran 0.5% slower with it (docs/benchmarks-history.md).
fn load_cell(stage: u32, block: u32, cell: u32) -> vec4<f32> {
    let i = block * CELLS_PER_BLOCK + cell;
    if (stage == 2u) {
        if (wg_staged_halo == 1u) {
            return state_b[i];
        }
        return select(state_a[i], state_b[i], staged(block));
    }
    return state_a[i];
}

// A cell of the workgroup's own block, which was launched this step: stage 2 reads its U*
// without asking.
fn load_own(stage: u32, block: u32, cell: u32) -> vec4<f32> {
    if (stage == 2u) {
        return state_b[block * CELLS_PER_BLOCK + cell];
    }
    return state_a[block * CELLS_PER_BLOCK + cell];
}

// The cell at coordinates (gi, gj) of block nb's level, as primitive values. Blocks are
// aligned to 16 cells of their level, so the cell's place in nb is the coordinates mod 16.
fn load_global(stage: u32, nb: u32, gi: i32, gj: i32) -> vec4<f32> {
    let local = u32((gi & 15) + BLOCK * (gj & 15));
    return to_primitive(load_cell(stage, nb, local));
}

// Halo cell k in [0, 128): four strips (W, E, S, N), two cells deep, 16 long.
fn halo_cell(k: u32) -> vec2<i32> {
    let strip = k / 32u;
    let depth = i32((k % 32u) / 16u);
    let along = i32(k % 16u);
    switch (strip) {
        case 0u: { return vec2<i32>(-2 + depth, along); }
        case 1u: { return vec2<i32>(BLOCK + depth, along); }
        case 2u: { return vec2<i32>(along, -2 + depth); }
        default: { return vec2<i32>(along, BLOCK + depth); }
    }
}

const OUTSIDE: vec4<f32> = vec4<f32>(0.0, 0.0, 0.0, WALL_BED);

// The side (W, E, S, N) of a halo cell, and its first neighbour slot.
fn halo_side(l: vec2<i32>) -> u32 {
    if (l.x < 0) {
        return SIDE_W;
    } else if (l.x >= BLOCK) {
        return SIDE_E;
    } else if (l.y < 0) {
        return SIDE_S;
    }
    return SIDE_N;
}

// First neighbour slot of a side: W, E, S, N are slots 6, 4, 2, 0.
fn side_slot(side: u32) -> u32 {
    return 6u - 2u * side;
}

fn load_halo(stage: u32, b: u32, l: vec2<i32>) -> vec4<f32> {
    let side = halo_side(l);
    let nb = neighbours[b * NB_SLOTS + side_slot(side)];
    if (nb == NONE) {
        return OUTSIDE;
    }
    let gi = geo.i0 + l.x;
    let gj = geo.j0 + l.y;
    if ((geo.coarser & (1u << side)) != 0u) {
        return virtual_halo(stage, b, nb, side, l);
    }
    if ((geo.finer & (1u << side)) != 0u) {
        return finer_halo(stage, b, side, l);
    }
    return load_global(stage, nb, gi, gj);
}

// Forcing value of a boundary condition at the stage's time.
fn bc_value(bc: BcDef, stage: u32) -> f32 {
    if (bc.series == NONE) {
        return bc.offset;
    }
    let f = forcing[bc.series];
    return select(f.x, f.y, stage == 2u) * bc.scale + bc.offset;
}

// The largest value the boundary's forcing takes until dt_max past the step's end.
fn bc_peak(bc: BcDef) -> f32 {
    if (bc.series == NONE) {
        return bc.offset;
    }
    return forcing[bc.series].z * bc.scale + bc.offset;
}

// The ghost cell of a stage edge: a body of water standing at `level` beyond the edge,
// beside the edge cell's state `nearest` (its bed is nearest.w - nearest.x). Water that
// leaves the domain leaves through the level, held at the edge: the normal velocity keeps
// the Riemann invariant that leaves the domain, so outgoing waves pass out instead of
// bouncing back (and a steady outflow ends at the level). Water that enters comes in as
// from a reservoir at rest at that level: the edge state takes the reservoir's invariant
// (u + 2c = 2c at the level) and the domain's, and at most critical flow on the
// reservoir's (a dry bed fills as in Ritter's dam break, not at the 2c the held level
// would drive into it). The two meet at rest, continuously.
fn stage_ghost(level: f32, nearest: vec4<f32>, normal: u32, inward: f32) -> vec4<f32> {
    let h_in = nearest.x;
    let z = nearest.w - h_in;
    // Not level - z: on a lake at rest at the level, h is then h_in exactly, and so the
    // velocity below an exact zero.
    let h = max(0.0, h_in + (level - nearest.w));
    if (h <= params.dry_depth) {
        return vec4<f32>(h, 0.0, 0.0, z + h);
    }
    let c = sqrt(params.g * h);
    // Velocities below are along the inward normal.
    let leaving = inward * nearest[normal] - 2.0 * sqrt(params.g * h_in);
    var u = leaving + 2.0 * c;
    var depth = h;
    // The held level itself, not z + h: on a lake at rest at the level every eta
    // difference across the edge is then an exact zero.
    var eta = level;
    if (u > 0.0) {
        u = c + 0.5 * leaving;
        var c_edge = 0.5 * c - 0.25 * leaving;
        if (u > c_edge) {
            u = 2.0 / 3.0 * c;
            c_edge = u;
        }
        depth = c_edge * c_edge / params.g;
        eta = z + depth;
    }
    var s = vec4<f32>(depth, nearest.y, nearest.z, eta);
    s[normal] = inward * u;
    return s;
}

// The bed of the edge cell e0 carried `k` cells out along the line through the next cell
// in, e1.
fn bed_beyond(e0: vec4<f32>, e1: vec4<f32>, k: f32) -> f32 {
    let z0 = e0.w - e0.x;
    return z0 + k * (z0 - (e1.w - e1.x));
}

// The edge cell e0's state carried `k` cells out along the line through e1: free surface,
// bed and velocities extrapolated linearly, the depth their difference. k = 0.5 is the
// edge face. On a lake at rest eta comes out exactly e0's.
fn extrapolated(e0: vec4<f32>, e1: vec4<f32>, k: f32) -> vec4<f32> {
    let eta = e0.w + k * (e0.w - e1.w);
    return vec4<f32>(eta - bed_beyond(e0, e1, k), e0.y + k * (e0.y - e1.y), e0.z + k * (e0.z - e1.z), eta);
}

// Ghost d (0, 1) on the line from the edge cell e0 through `at_edge`, the state on the
// edge face, with the bed extrapolated from e0 and e1: the reconstruction then gives the
// ghost side of the face `at_edge` and the edge cell its slope (and so its share of the
// bed-slope source) as inside the domain.
fn ghost_through(at_edge: vec4<f32>, e0: vec4<f32>, e1: vec4<f32>, d: i32) -> vec4<f32> {
    let s = at_edge + f32(2 * d + 1) * (at_edge - e0);
    return vec4<f32>(s.w - bed_beyond(e0, e1, f32(d + 1)), s.y, s.z, s.w);
}

// The ghosts of an open, inflow or stage edge at second order: the edge face's state from
// the edge cell e0 and the next cell in, e1 (for a stage edge, the level held there with
// the bed extrapolated), and the two ghosts on the line from e0 through it. A zero-gradient
// ghost left the edge cell without a slope, so without its share of the bed-slope source
// while friction acted on the whole cell: the edge cells slowed and deepened by 5-14%
// (docs/validation.md, MacDonald). None (a zero depth) where e0, e1, the face state or
// either ghost is dry: those edges keep their first-order ghosts.
fn linear_ghost(bc: BcDef, stage: u32, e0: vec4<f32>, e1: vec4<f32>, d: i32, normal: u32, inward: f32) -> vec4<f32> {
    let hd = params.dry_depth;
    if (e0.x <= hd || e1.x <= hd) {
        return vec4<f32>(0.0);
    }
    // An open edge extrapolates only a flow that leaves it supercritically, which no wave
    // re-enters. Where waves can come back in, the extrapolated ghost follows the edge
    // cell with a gain: water piling against the edge deepens the ghost, which sends more
    // in (a dam break's front reaching an open edge grew until it blew up).
    let leaving = -inward * e0[normal];
    if (bc.kind == BC_OPEN && (leaving <= 0.0 || leaving * leaving < params.g * e0.x)) {
        return vec4<f32>(0.0);
    }
    var at_edge = extrapolated(e0, e1, 0.5);
    if (at_edge.x <= hd) {
        return vec4<f32>(0.0);
    }
    if (bc.kind == BC_STAGE) {
        at_edge = stage_ghost(bc_value(bc, stage), at_edge, normal, inward);
    }
    let g0 = ghost_through(at_edge, e0, e1, 0);
    let g1 = ghost_through(at_edge, e0, e1, 1);
    if (min(at_edge.x, min(g0.x, g1.x)) <= hd) {
        return vec4<f32>(0.0);
    }
    return select(g0, g1, d == 1);
}

// A ghost cell outside the domain edge, d cells out (d = 0, 1), built from the cells
// inside. `mirror` is the cell reflected across the edge, `nearest` the edge cell itself
// and `inner` the next cell in (dry where the domain is one cell across); `normal` selects
// the velocity component that crosses the edge (1 = u, 2 = v) and `inward` is +1 when the
// domain lies towards +x (+y) of the edge, else -1.
fn ghost_state(bc: BcDef, stage: u32, mirror: vec4<f32>, nearest: vec4<f32>, inner: vec4<f32>, d: i32, normal: u32, inward: f32) -> vec4<f32> {
    if (bc.kind == BC_WALL) {
        var s = mirror;
        s[normal] = -s[normal];
        return s;
    }
    let linear = linear_ghost(bc, stage, nearest, inner, d, normal, inward);
    if (linear.x > 0.0) {
        return linear;
    }
    // First order beside dry cells: the level held against the edge cell, or a copy of
    // the edge cell (zero gradient) for open edges, and for inflow edges, whose face flux
    // is imposed from Q(t) rather than solved.
    if (bc.kind == BC_STAGE) {
        return stage_ghost(bc_value(bc, stage), nearest, normal, inward);
    }
    return nearest;
}

// Index into bc_edge of the edge cell at level coordinate `along` (finest positions).
fn edge_entry(offset: u32, along: i32) -> u32 {
    return offset + (u32(along) << geo.level);
}

// Fills tile cell t if it lies just outside one domain edge.
fn fill_ghost(stage: u32, t: i32) {
    let li = t % TILE - HALO;
    let lj = t / TILE - HALO;
    let gi = geo.i0 + li;
    let gj = geo.j0 + lj;
    let out_x = gi < 0 || gi >= geo.nx;
    let out_y = gj < 0 || gj >= geo.ny;
    if (out_x == out_y) {
        return; // inside, or beyond a corner where no stencil reaches
    }
    var d: i32;          // distance out from the edge: 0 for the first ghost
    var inward: vec2<i32>; // unit step back into the domain
    var edge: u32;
    var across: i32;     // domain cells between this edge and the opposite one
    if (gi < 0) {
        d = -1 - gi; inward = vec2<i32>(1, 0); edge = edge_entry(params.edge_w, gj); across = geo.nx;
    } else if (gi >= geo.nx) {
        d = gi - geo.nx; inward = vec2<i32>(-1, 0); edge = edge_entry(params.edge_e, gj); across = geo.nx;
    } else if (gj < 0) {
        d = -1 - gj; inward = vec2<i32>(0, 1); edge = edge_entry(params.edge_s, gi); across = geo.ny;
    } else {
        d = gj - geo.ny; inward = vec2<i32>(0, -1); edge = edge_entry(params.edge_n, gi); across = geo.ny;
    }
    if (d > 1) {
        return;
    }
    let step = inward.x + inward.y * TILE;
    let nearest = tile[t + (d + 1) * step];
    let mirror = tile[t + (2 * d + 1) * step];
    // A domain one cell across has no next cell: there it is the opposite edge's ghost,
    // which another thread is writing.
    var inner = OUTSIDE;
    if (across >= 2) {
        inner = tile[t + (d + 2) * step];
    }
    let normal = select(2u, 1u, inward.x != 0);
    let sign = f32(inward.x + inward.y);
    tile[t] = ghost_state(bc_defs[bc_edge[edge]], stage, mirror, nearest, inner, d, normal, sign);
}

// Imposed inflow through an edge face: unit discharge q (m^2/s, into the domain) enters at
// least at critical depth, so a dry edge cell can take any Q. `depth` is the edge cell's
// depth on the face, as the face's reconstruction has it, so that the momentum flux goes
// with the state the cell's slope and bed-slope source assume. `sign` is +1 when inflow
// runs along +x (+y).
fn inflow_face(q: f32, depth: f32, sign: f32) -> vec4<f32> {
    let g = params.g;
    let h_crit = pow(q * q / g, 1.0 / 3.0);
    let h = max(depth, h_crit);
    if (h <= 0.0) {
        return vec4<f32>(0.0);
    }
    let u = q / h;
    let mom = q * u + 0.5 * g * h * h;
    let d = mom - 0.5 * g * depth * depth;
    return vec4<f32>(sign * q, d, d, 0.0);
}

// The depth of edge cell `cell` (a tile index) on its edge face: its limited slope between
// the ghost beyond it and the next cell in, `step` further into the domain.
fn edge_face_depth(cell: i32, step: i32) -> f32 {
    let e0 = tile[cell];
    return e0.x - 0.5 * slopes(tile[cell - step], e0, tile[cell + step]).x;
}

fn note_speed(speed: f32) {
    if (speed > 0.0) {
        atomicMin(&wg_dt_bits, bitcast<u32>(geo.dx / speed));
    }
}

// The wave speed of unit discharge q through an edge face beside an edge cell of depth h,
// at least critical as inflow_face has it.
fn discharge_speed(q: f32, h: f32) -> f32 {
    let g = params.g;
    let depth = max(h, pow(q * q / g, 1.0 / 3.0));
    return select(0.0, abs(q) / depth + sqrt(g * depth), depth > 0.0);
}

// The fastest wave a forcing can send into the domain before the next step ends, from the
// peak of its forcing: the wave speed of the water at the edge face, on the same footing
// as the cells' (|u| + c). `inner` is the edge cell, turned so that .y crosses the edge.
fn forced_speed(bc: BcDef, inner: vec4<f32>, inward: f32) -> f32 {
    let peak = bc_peak(bc);
    if (bc.kind == BC_INFLOW) {
        return discharge_speed(max(peak, 0.0), inner.x);
    }
    let ghost = stage_ghost(peak, inner, 1u, inward);
    return max(abs(ghost.y), abs(ghost.z)) + sqrt(params.g * ghost.x);
}

// Discharge (m^3/s) of rating s (a series of (level, discharge) points) at water level eta:
// none below the first level, linear between levels, linear on from the last two beyond.
fn rating_discharge(s: u32, eta: f32) -> f32 {
    let span = series_span(s);
    let zero = vec2<f32>(0.0);
    if (eta < series_point(span, 0u, zero).x) {
        return 0.0;
    }
    var k = span.y - 2u;
    if (eta < series_point(span, span.y - 1u, zero).x) {
        k = series_piece(span, zero, eta);
    }
    let p0 = series_point(span, k, zero);
    let p1 = series_point(span, k + 1u, zero);
    return p0.y + (eta - p0.x) / (p1.x - p0.x) * (p1.y - p0.y);
}

// Unit discharge (m²/s) of a cell `h` deep at `level` on a rating edge or line: the curve's
// discharge of the whole section times `scale` (1 / its length), at most critical flow (a
// free overfall's), or a film on a high bank would leave at the discharge the curve gives
// for the bank's level. Curves are checked non-negative when read.
fn rating_unit_discharge(series: u32, level: f32, scale: f32, h: f32) -> f32 {
    return min(rating_discharge(series, level) * scale, h * sqrt(params.g * h));
}

// An outflow edge (normal depth, rating): unit discharge q out of edge cell `cell` from its
// own depth and level, through a face as inflow_face builds one, carrying the cell's
// tangential velocity. The discharge bounds the next step as an inflow's does; a stage takes
// at most half the cell's water, so that no cell is emptied below zero (the balance reads
// this same flux).
fn outflow_face(stage: u32, bc: BcDef, cell: i32, step: i32, sign: f32) -> vec4<f32> {
    var e = tile[cell];
    if (abs(step) != 1) {
        e = turn(e);
    }
    if (e.x <= params.dry_depth) {
        return vec4<f32>(0.0);
    }
    var q: f32;
    if (bc.kind == BC_NORMAL) {
        let own = u32(cell % TILE - HALO + BLOCK * (cell / TILE - HALO));
        let gn2 = friction_of(friction[wg_block], own);
        q = pow(e.x, 5.0 / 3.0) * sqrt(bc.scale * params.g / gn2);
    } else {
        q = rating_unit_discharge(bc.series, e.w, bc.scale, e.x);
    }
    if (stage != 1u) {
        note_speed(discharge_speed(q, e.x));
    }
    if (sim.dt > 0.0) {
        q = min(q, 0.5 * e.x * geo.dx / sim.dt);
    }
    let f = inflow_face(-q, edge_face_depth(cell, step), sign);
    return vec4<f32>(f.xyz, f.x * e.z);
}

// Edge faces: a wall passes no water, exactly (the mirrored Riemann problem gives zero
// only up to fused multiply-adds); an inflow imposes its discharge, an outflow edge
// (normal depth, rating) takes its own (outflow_face). Inflow and stage faces bound the
// next step by the waves their forcing can create (forced_speed).
// `cell` is the edge cell's tile index, `step` the tile offset into the domain.
fn edge_face(stage: u32, edge: u32, cell: i32, step: i32, sign: f32, face: vec4<f32>) -> vec4<f32> {
    let bc = bc_defs[bc_edge[edge]];
    if (bc.kind == BC_WALL) {
        return vec4<f32>(0.0, face.y, face.z, 0.0);
    }
    if (OUTFLOW_EDGES && (bc.kind == BC_NORMAL || bc.kind == BC_RATING)) {
        return outflow_face(stage, bc, cell, step, sign);
    }
    if (bc.kind != BC_INFLOW && bc.kind != BC_STAGE) {
        return face;
    }
    if (stage != 1u) {
        var inner = tile[cell];
        if (abs(step) != 1) {
            inner = turn(inner);
        }
        note_speed(forced_speed(bc, inner, sign));
    }
    if (bc.kind == BC_STAGE) {
        return face;
    }
    return inflow_face(max(bc_value(bc, stage), 0.0), edge_face_depth(cell, step), sign);
}

fn turn(s: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(s.x, s.z, s.y, s.w);
}

// The stencil of a face (l2, l1 | r1, r2), oriented so that un is normal to the face.
struct Stencil {
    l2: vec4<f32>,
    l1: vec4<f32>,
    r1: vec4<f32>,
    r2: vec4<f32>,
}

// Faces [0, 272) are x-faces, [272, 544) y-faces of the block's own level.
fn regular_stencil(f: u32) -> Stencil {
    if (f < X_FACES) {
        let c = tile_index(i32(f) % FACE_ROW, i32(f) / FACE_ROW);
        return Stencil(tile[c - 2], tile[c - 1], tile[c], tile[c + 1]);
    }
    let k = f - X_FACES;
    let c = tile_index(i32(k) % BLOCK, i32(k) / BLOCK);
    return Stencil(turn(tile[c - 2 * TILE]), turn(tile[c - TILE]), turn(tile[c]), turn(tile[c + TILE]));
}

fn stencil_flux(s: Stencil) -> vec4<f32> {
    return face_flux(s.l2, s.l1, s.r1, s.r2);
}

// Whether regular face f lies on a side whose neighbours are finer: that face is the mean
// of two fine faces instead.
fn on_finer_side(f: u32) -> bool {
    if (geo.finer == 0u) {
        return false;
    }
    let x = f < X_FACES;
    let k = select(f - X_FACES, f, x);
    let across = select(i32(k) / BLOCK, i32(k) % FACE_ROW, x);
    let low = select(SIDE_S, SIDE_W, x);
    let high = select(SIDE_N, SIDE_E, x);
    return (across == 0 && (geo.finer & (1u << low)) != 0u)
        || (across == BLOCK && (geo.finer & (1u << high)) != 0u);
}

fn compute_face(stage: u32, info: BlockInfo, f: u32) {
    if (on_finer_side(f)) {
        return;
    }
    var flux = stencil_flux(regular_stencil(f));
    if ((info.flags & BLOCK_ON_EDGE) != 0u) {
        flux = domain_edge_face(stage, f, flux);
    }
    face[select(f - X_FACES, f, f < X_FACES)] = flux;
}

// Own cell k along the sides (side k / 16) facing finer blocks: its face there is the mean
// of the two fine faces, as the fine blocks compute them.
fn compute_side_face(stage: u32, b: u32, k: u32) {
    let side = k / 16u;
    if ((geo.finer & (1u << side)) == 0u) {
        return;
    }
    let a = i32(k % 16u);
    let flux = coarse_side_face(stage, b, side, a);
    switch (side) {
        case SIDE_W: { face[xface_index(0, a)] = flux; }
        case SIDE_E: { face[xface_index(BLOCK, a)] = flux; }
        case SIDE_S: { face[yface_index(a, 0)] = flux; }
        default: { face[yface_index(a, BLOCK)] = flux; }
    }
}

// Faces [first, end) and, on sides facing finer blocks, their own faces there: the x-faces
// with the W and E sides, the y-faces with S and N.
fn compute_faces(stage: u32, b: u32, info: BlockInfo, tid: u32, threads: u32, first: u32, end: u32) {
    for (var f = first + tid; f < end; f += threads) {
        compute_face(stage, info, f);
    }
    let side_first = select(32u, 0u, first == 0u);
    if (geo.finer != 0u && tid >= side_first && tid < side_first + 32u) {
        compute_side_face(stage, b, tid);
    }
}

// Boundary conditions that act on the face itself (walls, inflows) on the domain edge.
fn domain_edge_face(stage: u32, f: u32, face: vec4<f32>) -> vec4<f32> {
    if (f < X_FACES) {
        let li = i32(f) % FACE_ROW;
        let lj = i32(f) / FACE_ROW;
        let c = tile_index(li, lj);
        let gi = geo.i0 + li;
        let gj = geo.j0 + lj;
        if (gj >= 0 && gj < geo.ny) {
            if (gi == 0) {
                return edge_face(stage, edge_entry(params.edge_w, gj), c, 1, 1.0, face);
            } else if (gi == geo.nx) {
                return edge_face(stage, edge_entry(params.edge_e, gj), c - 1, -1, -1.0, face);
            }
        }
        return face;
    }
    let k = f - X_FACES;
    let li = i32(k) % BLOCK;
    let lj = i32(k) / BLOCK;
    let c = tile_index(li, lj);
    let gi = geo.i0 + li;
    let gj = geo.j0 + lj;
    if (gi >= 0 && gi < geo.nx) {
        if (gj == 0) {
            return edge_face(stage, edge_entry(params.edge_s, gi), c, TILE, 1.0, face);
        } else if (gj == geo.ny) {
            return edge_face(stage, edge_entry(params.edge_n, gi), c - TILE, -TILE, -1.0, face);
        }
    }
    return face;
}

// By the exponent bits: a compiler may assume that x != x never holds.
fn is_finite3(s: vec4<f32>) -> bool {
    let e = bitcast<vec3<u32>>(s.xyz) & vec3<u32>(0x7f800000u);
    return all(e != vec3<u32>(0x7f800000u));
}

fn is_valid_cell(li: i32, lj: i32, z: f32) -> bool {
    return geo.i0 + li < geo.nx && geo.j0 + lj < geo.ny && z < WALL_BED_TEST;
}

// Net mass flux out of cell `tid` through its four faces, per unit face length (m²/s),
// once both directions are done.
fn depth_divergence(tid: u32) -> f32 {
    return face[tid].x;
}

// The x-faces' share of cell (li, lj)'s balance: (mass out, x-momentum with the bed
// slope source, y-momentum carried across).
fn x_balance(li: i32, lj: i32) -> vec3<f32> {
    let c = tile_index(li, lj);
    let fe = face[xface_index(li + 1, lj)];
    let fw = face[xface_index(li, lj)];
    let p = tile[c];
    let deta = eta_slope(tile[c - 1], p, tile[c + 1]);
    return vec3<f32>(fe.x - fw.x, fe.y - fw.z + params.g * p.x * deta, fe.w - fw.w);
}

// The y-faces' share, in the same order: (mass out, x-momentum carried across,
// y-momentum with the bed slope source).
fn y_balance(li: i32, lj: i32) -> vec3<f32> {
    let c = tile_index(li, lj);
    let fn_ = face[yface_index(li, lj + 1)];
    let fs = face[yface_index(li, lj)];
    let p = tile[c];
    let deta = eta_slope(turn(tile[c - TILE]), turn(p), turn(tile[c + TILE]));
    return vec3<f32>(fn_.x - fs.x, fn_.w - fs.w, fn_.y - fs.z + params.g * p.x * deta);
}

// dt L(U) applied to the thread's own cell from its balance (mass out, x- and y-momentum
// out; `dh` the depth change, rain included), then implicit Manning friction.
fn advance_cell(u: vec4<f32>, dh: f32, out: vec3<f32>, dt: f32, gn2: f32) -> vec4<f32> {
    let k = dt / geo.dx;
    var h = u.x + dh;
    var hu = u.y - k * out.y;
    var hv = u.z - k * out.z;
    h = max(h, 0.0);
    if (h > params.dry_depth) {
        // Implicit in the friction term: it can slow the flow to rest, never reverse it.
        let speed = sqrt(hu * hu + hv * hv) / h;
        let factor = 0.5 + sqrt(0.25 + dt * gn2 * speed / pow(h, 4.0 / 3.0));
        hu /= factor;
        hv /= factor;
    } else {
        hu = 0.0;
        hv = 0.0;
    }
    return vec4<f32>(h, hu, hv, u.w);
}

// A draw in [0, 1) fixed by the cell's place on the grid, the step and the stage, so that
// every rank count and block order draws the same number for the same cell update.
fn cell_draw(lid: vec2<i32>, stage: u32) -> f32 {
    var x = (u32(geo.i0 + lid.x) * 0x9E3779B1u) ^ (u32(geo.j0 + lid.y) * 0x85EBCA77u);
    x ^= (geo.level * 4u + stage) * 0xC2B2AE3Du ^ sim.step_lo * 0x27D4EB2Fu;
    x ^= x >> 15u;
    x *= 0x2C1B3C6Du;
    x ^= x >> 12u;
    x *= 0x297A2D39u;
    x ^= x >> 15u;
    return f32(x >> 8u) * (1.0 / 16777216.0);
}

// `value + rest` rounded to one of the two f32 either side, up with probability rest / gap.
// Rounding to nearest drops a steady cell's sub-ulp depth change the same way every step,
// and a steady through-flow then counts out more water than in (issue 22: 7.5e-5 of the
// volume passed over a bump in 140 s). Rounding this way drops nothing on average.
fn round_unbiased(value: f32, rest: f32, draw: f32) -> f32 {
    if (rest == 0.0 || !(value > 0.0)) {
        return value;
    }
    let toward = bitcast<f32>(bitcast<u32>(value) + select(0xFFFFFFFFu, 1u, rest > 0.0));
    let gap = abs(toward - value);
    return select(value, toward, draw * gap < abs(rest));
}

// The new depth of a wet cell whose update adds `dh` to `own`: stage 1 U* = own + dh,
// stage 2 U^{n+1} = (start + own + dh) / 2, each carried exactly (two_sum) and rounded once
// without bias.
fn conserved_depth(stage: u32, start: f32, own: f32, dh: f32, draw: f32) -> f32 {
    let one = params.one;
    let star = two_sum(own, dh, one);
    if (stage == 1u) {
        return round_unbiased(star.x, star.y, draw);
    }
    let sum = two_sum(start, star.x, one);
    return round_unbiased(0.5 * sum.x, 0.5 * (sum.y + star.y), draw);
}

// g n^2 of cell `tid` of a block whose entry in `friction` is `code` (see common.wgsl).
fn friction_of(code: u32, tid: u32) -> f32 {
    if ((code & FRICTION_PER_CELL) == 0u) {
        return bitcast<f32>(code);
    }
    return bitcast<f32>(friction[(code & ~FRICTION_PER_CELL) + tid]);
}

// Depth rate (m/s) the block's sources add to cell `tid` in this stage.
fn source_rate(span: vec4<u32>, tid: u32, stage: u32) -> f32 {
    var rate = 0.0;
    for (var k = span.x; k < span.x + span.y; k++) {
        let s = sources[k];
        if (s.x == tid) {
            let f = forcing[s.y];
            rate += select(f.x, f.y, stage == 2u) * bitcast<f32>(s.z);
        }
    }
    return rate;
}

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

// Depth rate (m/s) that water enters cell `tid` with, from rain and sources.
fn inflow_rate(span: vec4<u32>, tid: u32, stage: u32) -> f32 {
    return source_rate(span, tid, stage) + rain_rate(span.w, tid, stage);
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
        return rating_line_outflow(own, entry);
    }
    return normal_depth_outflow(b, tid, own, entry);
}

// A rating line's cell passes what a rating edge's cell would at its own level, and at
// most half its water in one stage.
fn rating_line_outflow(own: vec4<f32>, entry: vec4<u32>) -> f32 {
    let h = own.x;
    if (h <= params.dry_depth) {
        return 0.0;
    }
    let q = rating_unit_discharge(entry.y, own.w + h, bitcast<f32>(entry.w), h);
    return min(q, 0.5 * h * geo.dx / sim.dt);
}

// Unit discharge (m²/s) a normal-depth line's cell passes out of the domain: uniform flow
// on the friction slope, q = h^(5/3) √S / n, at most critical flow (a free overfall's),
// and at most half the cell's water in one stage, so no cell is emptied below zero.
fn normal_depth_outflow(b: u32, tid: u32, own: vec4<f32>, entry: vec4<u32>) -> f32 {
    let h = own.x;
    if (h <= params.dry_depth) {
        return 0.0;
    }
    let n = sqrt(friction_of(friction[b], tid) / params.g);
    let manning = pow(h, 5.0 / 3.0) * sqrt(bitcast<f32>(entry.w)) / n;
    let critical = h * sqrt(params.g * h);
    return min(min(manning, critical), 0.5 * h * geo.dx / sim.dt);
}

// The neighbour, in the tile, whose state a cell of an open line takes: `side` 1..4 is
// west, east, south, north.
fn open_neighbour(tid: u32, side: u32) -> vec4<f32> {
    let li = i32(tid) % BLOCK;
    let lj = i32(tid) / BLOCK;
    let di = select(select(0, 1, side == 2u), -1, side == 1u);
    let dj = select(select(0, 1, side == 4u), -1, side == 3u);
    return tile[tile_index(li + di, lj + dj)];
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
        return inflow_rate(span, tid, stage) - line_outflow(b, tid, own, entry) / geo.dx;
    }
    var held: f32;
    if (EDGE_LINES && entry.z != 0u) {
        held = open_neighbour(tid, entry.z & 0xfu).x;
    } else {
        let f = forcing[entry.y];
        held = max(select(f.x, f.y, stage == 2u) - own.w, 0.0);
    }
    return (held - own.x) / sim.dt + depth_divergence(tid) / geo.dx;
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
            let rate = level_rate(b, tid, stage, s, span) - inflow_rate(span, tid, stage);
            q += split_flow(rate * geo.dx * geo.dx);
        } else {
            let f = forcing[s.y];
            q.x += select(f.x, f.y, stage == 2u) * bitcast<f32>(s.w);
        }
    }
    return q;
}

const NEVER_CODE: u32 = 0xffffu;
const LAST_CODE: f32 = 65534.0;
const F16_MAX: f32 = 65504.0;

// The time code of time t (f32: a few ms over days is plenty).
fn peak_code(t: f32) -> u32 {
    return u32(clamp(round((t - params.peak_origin) * params.peak_rate), 0.0, LAST_CODE));
}

// The run's maxima at the end of a step, stored only where one grew: most steps of a
// receding flood change none.
fn track_maxima(cell: u32, s: vec4<f32>) {
    let t = sim.t_hi + sim.t_lo + sim.dt;
    let m = maxima[cell];
    var speed = 0.0;
    if (s.x > params.dry_depth) {
        speed = sqrt(s.y * s.y + s.z * s.z) / s.x;
    }
    let deeper = s.x > m.depth;
    var times = m.times;
    if (deeper) {
        times = (times & 0xffff0000u) | peak_code(t);
    }
    if (s.x >= params.arrival_depth && (times >> 16u) == NEVER_CODE) {
        times = (times & 0xffffu) | (peak_code(t) << 16u);
    }
    let peaks = min(vec2<f32>(speed, s.x * speed), vec2<f32>(F16_MAX));
    let speed_hazard = pack2x16float(max(unpack2x16float(m.speed_hazard), peaks));
    if (deeper || times != m.times || speed_hazard != m.speed_hazard) {
        maxima[cell] = Peak(max(s.x, m.depth), speed_hazard, times);
    }
}

fn wave_speed(s: vec4<f32>) -> f32 {
    if (s.x <= params.dry_depth) {
        return 0.0;
    }
    return max(abs(s.y), abs(s.z)) / s.x + sqrt(params.g * s.x);
}

// Mass flux through edge face `k` of a block (k / 16: W, E, S, N; k % 16 along the side)
// where the domain edge runs there, read by thread k while the faces of its direction are
// in workgroup memory. The east and north edges may cut through a block.
fn edge_face_mass(k: u32) -> f32 {
    let a = i32(k % 16u);
    switch (k / 16u) {
        case SIDE_W: { return face[xface_index(0, a)].x; }
        case SIDE_E: { return face[xface_index(clamp(geo.nx - geo.i0, 0, BLOCK), a)].x; }
        case SIDE_S: { return face[yface_index(a, 0)].x; }
        default: { return face[yface_index(a, clamp(geo.ny - geo.j0, 0, BLOCK))].x; }
    }
}

fn edge_mass(side: u32, a: i32) -> f32 {
    let k = side * 16u + u32(a);
    return face[EDGE_MASS + k / 4u][k % 4u];
}

// Boundary volume of this stage (m^3/s, in and out), summed in a fixed order so that
// reruns give the same bits.
fn edge_discharge() -> vec2<f32> {
    var flow = vec2<f32>(0.0);   // (in, out)
    let li_e = geo.nx - geo.i0;
    let lj_n = geo.ny - geo.j0;
    for (var a = 0; a < BLOCK; a++) {
        if (geo.j0 + a < geo.ny) {
            if (geo.i0 == 0) {
                flow += split_flow(edge_mass(SIDE_W, a));
            }
            if (li_e >= 1 && li_e <= BLOCK) {
                flow += split_flow(-edge_mass(SIDE_E, a));
            }
        }
        if (geo.i0 + a < geo.nx) {
            if (geo.j0 == 0) {
                flow += split_flow(edge_mass(SIDE_S, a));
            }
            if (lj_n >= 1 && lj_n <= BLOCK) {
                flow += split_flow(-edge_mass(SIDE_N, a));
            }
        }
    }
    return flow * geo.dx;
}

fn split_flow(q_in: f32) -> vec2<f32> {
    return vec2<f32>(max(q_in, 0.0), max(-q_in, 0.0));
}

// `kind` picks the class of blocks (CLASS_*): the kernel of regular blocks has no
// multi-resolution code, since their geometry has no level change (see set_geometry).
fn run_stage(stage: u32, kind: u32, ids: Invocation) {
    let tid = ids.tid;
    let threads = stage_threads(kind);
    let cell_thread = tid < CELLS_PER_BLOCK;
    let lid = ids.lid;
    if (tid == 0u) {
        let linear = ids.wid.x + ids.wid.y * ids.nwg.x;
        var b = NONE;
        if (stage == 0u) {
            // The initial pass covers every own block.
            b = select(NONE, linear, linear < params.own_blocks);
        } else if (linear < dispatched_in(kind)) {
            b = block_of_list(kind, linear);
        }
        wg_block = b;
        wg_staged_halo = select(0u, sim.all_active, kind != CLASS_REGULAR);
        atomicStore(&wg_dt_bits, INF_BITS);
        atomicStore(&wg_wet, 0u);
    }
    let b = workgroupUniformLoad(&wg_block);
    if (b == NONE) {
        return;
    }
    let info = blocks[b];
    set_geometry(info, kind != CLASS_REGULAR);
    // What the cell update needs from memory besides the tile, loaded now so that the wait
    // overlaps the halo loads instead of following the faces.
    let cell = b * CELLS_PER_BLOCK + tid;
    let span = sources[b];
    let friction_code = friction[b];
    var start = vec4<f32>(0.0); // U^n of the own cell, which stage 2 averages with
    if (stage == 2u && cell_thread) {
        start = state_a[cell];
    }
    let li = i32(lid.x);
    let lj = i32(lid.y);

    // 1. Own cell and halo into workgroup memory.
    var own = vec4<f32>(0.0);
    if (cell_thread) {
        own = load_own(stage, b, tid);
        tile[tile_index(li, lj)] = to_primitive(own);
    }
    if (tid < 128u) {
        let l = halo_cell(tid);
        tile[tile_index(l.x, l.y)] = load_halo(stage, b, l);
    }
    workgroupBarrier();

    // 2. Ghost cells beyond the domain edge.
    if ((info.flags & BLOCK_ON_EDGE) != 0u) {
        for (var t = tid; t < u32(TILE * TILE); t += threads) {
            fill_ghost(stage, i32(t));
        }
    }
    workgroupBarrier();

    // 3. Every face of the block, once: the x-faces, then the y-faces in the same array.
    // The initial pass needs only the inflow faces' wave speeds. (Off the domain edge it
    // then leaves the face array unwritten, and the balances below read it unused:
    // workgroup memory is not zeroed.)
    let faces = stage != 0u || (info.flags & BLOCK_ON_EDGE) != 0u;
    if (faces) {
        compute_faces(stage, b, info, tid, threads, 0u, X_FACES);
    }
    workgroupBarrier();
    var x_out = vec3<f32>(0.0);
    if (cell_thread) {
        x_out = x_balance(li, lj);
    }
    var edge = 0.0;
    if (tid < 32u) {
        edge = edge_face_mass(tid);
    }
    workgroupBarrier();
    if (faces) {
        compute_faces(stage, b, info, tid, threads, X_FACES, REGULAR_FACES);
    }
    workgroupBarrier();
    var y_out = vec3<f32>(0.0);
    if (cell_thread) {
        y_out = y_balance(li, lj);
    }
    if (tid >= 32u && tid < SIDE_CELLS) {
        edge = edge_face_mass(tid);
    }
    workgroupBarrier();
    let out = vec3<f32>(x_out.x + y_out.x, x_out.y + y_out.y, y_out.z + x_out.z);
    if (cell_thread) {
        face[tid].x = out.x;
    }
    if (tid < SIDE_CELLS) {
        face[EDGE_MASS + tid / 4u][tid % 4u] = edge;
    }

    // 4. Update the own cell.
    let valid = cell_thread && is_valid_cell(li, lj, own.w);
    var next = own;
    var lost = 0.0; // m³ the ground took from the cell (stage 2 with losses)
    var level = NONE;
    if (valid && span.y > 0u) {
        level = level_entry(span, tid);
    }
    if (stage != 0u && valid) {
        let dt = sim.dt;
        var rate: f32;
        if (level != NONE) {
            rate = level_rate(b, tid, stage, sources[level], span);
        } else {
            rate = inflow_rate(span, tid, stage);
        }
        let dh = dt * rate - (dt / geo.dx) * out.x;
        next = advance_cell(own, dh, out, dt, friction_of(friction_code, tid));
        let wet = next.x > params.dry_depth;
        if (stage == 1u && wet) {
            next.x = conserved_depth(1u, 0.0, own.x, dh, cell_draw(vec2<i32>(li, lj), 1u));
        }
        if (stage == 2u) {
            next = 0.5 * (start + next);
            next.w = own.w;
            if (wet) {
                next.x = conserved_depth(2u, start.x, own.x, dh, cell_draw(vec2<i32>(li, lj), 2u));
            }
            if (LOSSES && level == NONE) {
                let before = next.x;
                next = apply_losses(b, tid, next, dt);
                lost = (before - next.x) * geo.dx * geo.dx;
            }
            if (next.x <= params.dry_depth) {
                next.y = 0.0;
                next.z = 0.0;
            }
        }
        if (EDGE_LINES && level != NONE && sources[level].z != 0u) {
            next = line_momentum(b, tid, stage, sources[level], next);
        }
    }
    if (stage == 1u && cell_thread) {
        state_b[cell] = next;
    } else if (stage == 2u && cell_thread) {
        state_a[cell] = next;
        if ((params.flags & FLAG_TRACK_MAX) != 0u && valid) {
            track_maxima(cell, next);
        }
    }
    if (stage != 1u && valid) {
        let speed = wave_speed(next);
        if (!(speed <= MAX_WAVE_SPEED) || !is_finite3(next)) {
            atomicMax(&sim.bad_block, b + 1u);
        }
        note_speed(speed);
        if (level != NONE && !(EDGE_LINES && sources[level].z != 0u)) {
            note_speed(level_speed(sources[level].y, next));
        }
        if (next.x > 0.0) {
            atomicOr(&wg_wet, 1u);
        }
    }
    workgroupBarrier();
    if (LOSSES && stage == 2u) {
        add_block_loss(b, tid, lost);
    }
    // (Without skipping dry blocks every step launches every block: nothing to mark.)
    let marking = FLAG_END_IN_STAGE2 | FLAG_SKIP_DRY;
    if (stage == 2u && (params.flags & marking) == marking && tid <= NB_SLOTS) {
        mark_next_step(b, tid, atomicLoad(&wg_wet) != 0u);
    }

    // 5. Block totals.
    if (tid == 0u) {
        if (stage != 1u) {
            var bits = atomicLoad(&wg_dt_bits);
            if (span.y > 0u) {
                bits = min(bits, bitcast<u32>(geo.dx / bitcast<f32>(span.z)));
            }
            atomicMin(&sim.dt_min_bits, bits);
            atomicStore(&block_flags[b], atomicLoad(&wg_wet));
        }
        if (stage != 0u && ((info.flags & BLOCK_ON_EDGE) != 0u || span.y > 0u)) {
            var flow = source_discharge(b, span, stage);
            if ((info.flags & BLOCK_ON_EDGE) != 0u) {
                flow += edge_discharge();
            }
            // Stage 1 only notes its flow: a step planned again (timestep.wgsl,
            // replan_step) runs stage 1 again, and must not count it twice.
            if (stage == 1u) {
                block_volume[params.nblocks + b] = vec4<f32>(flow, 0.0, 0.0);
            } else {
                let half_dt = 0.5 * sim.dt;
                let first = half_dt * block_volume[params.nblocks + b].xy;
                var acc = block_volume[b];
                let vin = df_add(df_add(acc.xy, first.x, params.one), half_dt * flow.x, params.one);
                let vout = df_add(df_add(acc.zw, first.y, params.one), half_dt * flow.y, params.one);
                block_volume[b] = vec4<f32>(vin, vout);
            }
        }
    }
}

// Rows of threads of the regular stage kernels: 17, or 16 on an adapter that allows fewer
// than 272 invocations per workgroup (src/solver/kernels.rs). Any count gives the same bits.
override REGULAR_ROWS: u32 = 17u;

// Constants of a scenario's kernels (src/solver/kernels.rs, KernelOptions): code for
// losses, outflow edges and open or normal-depth lines is compiled only into the kernels
// of scenarios that have them.
override LOSSES: bool = false;
override OUTFLOW_EDGES: bool = false;
override EDGE_LINES: bool = false;

// Threads of a stage workgroup: one per cell and, for regular blocks, a 17th row, so that
// the 272 faces of each direction take one round instead of two. The second round, on 16
// threads, held the whole workgroup for a face's latency (and at 16 rows the driver gives
// the regular kernels 57-59 registers instead of 43-45). The other classes keep 256
// threads: their kernels take 64-74 registers, and at 17 rows an SM would hold one
// workgroup fewer.
fn stage_threads(kind: u32) -> u32 {
    return select(CELLS_PER_BLOCK, u32(BLOCK) * REGULAR_ROWS, kind == CLASS_REGULAR);
}

// Where a stage invocation sits: its workgroup (a block of the class's list) and its
// thread (a cell of the block).
struct Invocation {
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(local_invocation_index) tid: u32,
}

@compute @workgroup_size(16, 16)
fn init_speeds(ids: Invocation) { run_stage(0u, CLASS_LEVELS, ids); }

@compute @workgroup_size(16, REGULAR_ROWS)
fn stage1(ids: Invocation) { run_stage(1u, CLASS_REGULAR, ids); }

@compute @workgroup_size(16, REGULAR_ROWS)
fn stage2(ids: Invocation) { run_stage(2u, CLASS_REGULAR, ids); }

// Stage 2 and, in its last workgroup, the end of the step (FLAG_END_IN_STAGE2): the last
// stage kernel of each step of a one-rank run, which needs no dispatch of its own to end it.
fn stage2_then_end(kind: u32, ids: Invocation) {
    run_stage(2u, kind, ids);
    end_in_stage2(ids.tid, ids.nwg.x * ids.nwg.y);
}

@compute @workgroup_size(16, REGULAR_ROWS)
fn stage2_end(ids: Invocation) { stage2_then_end(CLASS_REGULAR, ids); }

@compute @workgroup_size(16, 16)
fn stage2_levels_end(ids: Invocation) { stage2_then_end(CLASS_LEVELS, ids); }

@compute @workgroup_size(16, 16)
fn stage1_levels(ids: Invocation) { run_stage(1u, CLASS_LEVELS, ids); }

@compute @workgroup_size(16, 16)
fn stage2_levels(ids: Invocation) { run_stage(2u, CLASS_LEVELS, ids); }

@compute @workgroup_size(16, 16)
fn stage2_border(ids: Invocation) { run_stage(2u, CLASS_BORDER, ids); }

// A rank's stage 1 on its ghosts, from the U^n the step's exchange brought (its blocks'
// stage 2 then reads their U* without a second exchange; only the cells within two of its
// blocks are read, and their inputs all arrived: src/partition/local.rs), and on its
// border blocks: one dispatch, whose few workgroups run side by side.
@compute @workgroup_size(16, 16)
fn stage1_ghosts_and_border(ids: Invocation) { run_stage(1u, CLASS_GHOST, ids); }
