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
// The kernel's other files: edges.wgsl (boundary conditions on the domain edge),
// sources.wgsl (rain, sources and lines inside the domain), update.wgsl (a cell's new
// state, its rounding and the run's maxima).
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
        let start = state_a[i];
        if (wg_staged_halo == 1u) {
            return with_bed(staged_state(i), start.w);
        }
        return select(start, with_bed(staged_state(i), start.w), staged(block));
    }
    return state_a[i];
}

// U* of cell i. A block's 256 cells hold (hu, hv) as 256 pairs, then h as 128 pairs (two
// cells to a pair): two loads a cell, each coalesced over the block's threads.
fn staged_state(i: u32) -> vec3<f32> {
    let base = (i >> 8u) * STAGED_PER_BLOCK;
    let c = i & (CELLS_PER_BLOCK - 1u);
    let momentum = state_b[base + c];
    let depth = state_b[base + CELLS_PER_BLOCK + (c >> 1u)][c & 1u];
    return vec3<f32>(depth, momentum);
}

fn store_staged(i: u32, s: vec4<f32>) {
    let base = (i >> 8u) * STAGED_PER_BLOCK;
    let c = i & (CELLS_PER_BLOCK - 1u);
    state_b[base + c] = s.yz;
    state_b[base + CELLS_PER_BLOCK + (c >> 1u)][c & 1u] = s.x;
}

fn with_bed(s: vec3<f32>, z: f32) -> vec4<f32> {
    return vec4<f32>(s, z);
}

// A cell of the workgroup's own block, which was launched this step: stage 2 reads its U*
// without asking.
fn load_own(stage: u32, block: u32, cell: u32) -> vec4<f32> {
    let i = block * CELLS_PER_BLOCK + cell;
    if (stage == 2u) {
        return with_bed(staged_state(i), state_a[i].w);
    }
    return state_a[i];
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
    let waves = fastest_wave;
    var flux = stencil_flux(regular_stencil(f));
    if ((info.flags & BLOCK_ON_EDGE) != 0u) {
        flux = domain_edge_face(stage, f, flux);
        if (beyond_the_domain(f)) {
            fastest_wave = waves;
        }
    }
    face[select(f - X_FACES, f, f < X_FACES)] = flux;
}

// Whether regular face f lies past the domain's last edge face (a block holding the east or
// north edge where the domain ends inside it): between ghost cells and the unfilled cells
// beyond them, it bears on no cell, and its waves must not bound the step. Counted, the
// dry-bed speed of the outer ghost against the empty cells past it took 1.67 times the
// steps at an outflow edge, and the results hung on the domain's size modulo 16 (a hunt).
fn beyond_the_domain(f: u32) -> bool {
    if (f < X_FACES) {
        return geo.i0 + i32(f) % FACE_ROW > geo.nx || geo.j0 + i32(f) / FACE_ROW >= geo.ny;
    }
    let k = f - X_FACES;
    return geo.i0 + i32(k) % BLOCK >= geo.nx || geo.j0 + i32(k) / BLOCK > geo.ny;
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

// The cell as a sink (rate < 0: a structure's delivering end, an abstraction) leaves it:
// the water drawn takes its momentum with it. Left behind, the momentum of water flowing
// to a weir's end stayed as the depth fell, and the speed grew without bound (a hunt: 440
// m/s at a weir's end on a valley side, the time step down to a hundredth).
fn drawn_from(own: vec4<f32>, rate: f32, dt: f32) -> vec4<f32> {
    if (rate >= 0.0 || own.x <= params.dry_depth) {
        return own;
    }
    let keep = max(1.0 + dt * rate / own.x, 0.0);
    return vec4<f32>(own.x, own.y * keep, own.z * keep, own.w);
}

fn wave_speed(s: vec4<f32>) -> f32 {
    if (s.x <= params.dry_depth) {
        return 0.0;
    }
    return max(abs(s.y), abs(s.z)) / s.x + sqrt(params.g * s.x);
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
        if (stage == 2u) {
            own = with_bed(staged_state(cell), start.w);
        } else {
            own = load_own(stage, b, tid);
        }
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
    // The initial pass computes them for their wave speeds alone (the first step's bound).
    compute_faces(stage, b, info, tid, threads, 0u, X_FACES);
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
    compute_faces(stage, b, info, tid, threads, X_FACES, REGULAR_FACES);
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
        if (stage == 2u && span.y > 0u) {
            face[tid].y = start.x; // U^n for level lines (stage_line_depth), read after it is overwritten
        }
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
        var soaked = vec2<f32>(0.0); // the step's rain the ground takes as it falls
        if (level != NONE) {
            rate = level_rate(b, tid, stage, sources[level], span);
        } else {
            rate = inflow_rate(span, tid, stage, select(own.x, start.x, stage == 2u));
            if (LOSSES) {
                soaked = rain_soaked(b, tid, span.w, dt);
                rate -= rain_rate(span.w, tid, stage) * soaked.y;
            }
        }
        let dh = dt * rate - (dt / geo.dx) * out.x;
        // Only blocks with sources have sinks; level lines hold their cells' momentum
        // themselves (line_momentum).
        var source_state = own;
        if (span.y > 0u && level == NONE) {
            source_state = drawn_from(own, rate, dt);
        }
        next = advance_cell(source_state, dh, out, dt, friction_of(friction_code, tid));
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
                next = apply_losses(b, tid, next, dt, soaked.x, cell_draw(vec2<i32>(li, lj), LOSS_DRAW));
                lost = ((before - next.x) + soaked.x) * geo.dx * geo.dx;
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
        store_staged(cell, next);
    } else if (stage == 2u && cell_thread) {
        state_a[cell] = next;
        if ((params.flags & FLAG_TRACK_MAX) != 0u && valid) {
            track_maxima(cell, next, start.x);
        }
    }
    // Threads of walls and of cells past the grid's edge computed faces too: their waves
    // count whichever thread a kernel gave them (kernels of different widths share the
    // faces out differently, and one rank must plan the dt that several do).
    if (stage != 1u && !valid) {
        note_speed(fastest_wave);
    }
    if (stage != 1u && valid) {
        let speed = wave_speed(next);
        if (!(speed <= MAX_WAVE_SPEED) || !is_finite3(next)) {
            atomicMax(&sim.bad_block, b + 1u);
        }
        // The faces' waves of this stage's state bound the next step too: a cell's own
        // speed misses the faster waves where a deep cell meets a shallow or dry one.
        note_speed(max(speed, fastest_wave));
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
