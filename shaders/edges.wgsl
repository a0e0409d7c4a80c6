// The domain's edge: boundary conditions as ghost cells (fill_ghost) and as faces
// (edge_face, domain_edge_face), the dt bounds the forcing on the edge imposes, and the
// edge's volume balance (edge_discharge). Part of the flux kernel (flux.wgsl).

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
// bouncing back (and a steady outflow ends at the level); supercritical outflow leaves as
// through an open edge. Water that enters comes in from
// a reservoir at rest at that level, keeping its energy: the edge state has the domain's
// invariant and h + u²/2g = the reservoir's depth (Bernoulli), at most critical flow, two
// thirds of that depth (a dry bed fills from a critical edge section, as a broad crest
// passes water). The reservoir's invariant in its place (Ritter's dam break, 4/9 of the
// depth on a dry bed) lost head at first order in the speed: a steady inflow at Froude
// 0.15 stood 13% of its depth below the stage, and a weir below passed a third too little
// (a hunt). The two meet at rest, continuously.
fn stage_ghost(level: f32, nearest: vec4<f32>, normal: u32, inward: f32) -> vec4<f32> {
    let h_in = nearest.x;
    let z = nearest.w - h_in;
    // Water leaving faster than its waves: nothing downstream reaches it, the level
    // included, and the edge passes it as an open one (held, the last cells of a steep
    // channel stood 12% too deep; a hunt).
    let un = inward * nearest[normal];
    if (h_in > params.dry_depth && un < 0.0 && un * un > params.g * h_in) {
        return nearest;
    }
    // Not level - z: on a lake at rest at the level, h is then h_in exactly, and so the
    // velocity below an exact zero.
    let h = max(0.0, h_in + (level - nearest.w));
    if (h <= params.dry_depth) {
        return vec4<f32>(h, 0.0, 0.0, z + h);
    }
    let c = sqrt(params.g * h);
    let c_in = sqrt(params.g * h_in);
    // Velocities below are along the inward normal. u = leaving + 2 c, with the outgoing
    // invariant leaving = u_in - 2 c_in, written without the difference of the two
    // celerities, and the Bernoulli edge state below as its departure x from c: taken as
    // differences of near-equal numbers, a ripple of a few ulps came back with errors of
    // their own size that did not cancel between the water entering and leaving, and a
    // 1 µm ripple on a lake grew a circulation through the edge (a hunt).
    var u = inward * nearest[normal] - 2.0 * params.g * (nearest.w - level) / (c_in + c);
    var depth = h;
    // The held level itself, not z + h: on a lake at rest at the level every eta
    // difference across the edge is then an exact zero.
    var eta = level;
    if (u > 0.0) {
        // With c_e = c - x: u_e = u - 2 x and c_e² + u_e²/2 = c², a quadratic in x.
        let b = c + u;
        let disc = b * b - 1.5 * u * u;
        let x = 0.5 * u * u / (b + sqrt(max(disc, 0.0)));
        var c_edge = c - x;
        var u_edge = u - 2.0 * x;
        var drop = x * (2.0 * c - x) / params.g;
        if (disc < 0.0 || u_edge > c_edge) {
            c_edge = c * sqrt(2.0 / 3.0);
            u_edge = c_edge;
            drop = h / 3.0;
        }
        u = u_edge;
        depth = h - drop;
        eta = level - drop;
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

// The edge cell e0's state carried `k` cells out along the line through e1: free surface
// and velocities on their limited slope (e0 - e1 against e1 - e2, none where e2 is dry),
// the bed on its own line, the depth their difference. k = 0.5 is the edge face. On a lake
// at rest eta comes out exactly e0's. Unlimited, the line through e0 and e1 doubled a
// checkerboard ripple at the face, and a stage edge answered with twice the outgoing wave:
// a 1 µm ripple on a lake grew along the edge into a checkerboard of ±6 mm and currents of
// 15 mm/s (a hunt; tests/lake_at_rest.rs).
fn extrapolated(e0: vec4<f32>, e1: vec4<f32>, e2: vec4<f32>, k: f32) -> vec4<f32> {
    var slope = vec3<f32>(0.0);
    if (e2.x > params.dry_depth) {
        slope = vec3<f32>(limit(e0.w - e1.w, e1.w - e2.w), limit(e0.y - e1.y, e1.y - e2.y), limit(e0.z - e1.z, e1.z - e2.z));
    }
    let eta = e0.w + k * slope.x;
    return vec4<f32>(eta - bed_beyond(e0, e1, k), e0.y + k * slope.y, e0.z + k * slope.z, eta);
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
// the edge cell e0 and the next cells in, e1 and e2 (for a stage edge, the level held there
// with the bed extrapolated), and the two ghosts on the line from e0 through it. A zero-gradient
// ghost left the edge cell without a slope, so without its share of the bed-slope source
// while friction acted on the whole cell: the edge cells slowed and deepened by 5-14%
// (docs/validation.md, MacDonald). None (a zero depth) where e0, e1, the face state or
// either ghost is dry: those edges keep their first-order ghosts.
fn linear_ghost(bc: BcDef, stage: u32, e0: vec4<f32>, e1: vec4<f32>, e2: vec4<f32>, d: i32, normal: u32, inward: f32) -> vec4<f32> {
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
    var at_edge = extrapolated(e0, e1, e2, 0.5);
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
// inside. `mirror` is the cell reflected across the edge, `nearest` the edge cell itself,
// `inner` and `inner2` the next cells in (dry where the domain is too narrow for them);
// `normal` selects the velocity component that crosses the edge (1 = u, 2 = v) and
// `inward` is +1 when the domain lies towards +x (+y) of the edge, else -1.
fn ghost_state(bc: BcDef, stage: u32, mirror: vec4<f32>, nearest: vec4<f32>, inner: vec4<f32>, inner2: vec4<f32>, d: i32, normal: u32, inward: f32) -> vec4<f32> {
    if (bc.kind == BC_WALL || passes_nothing(bc, stage, nearest)) {
        if (EDGE_LINES && bc.series == LINE_BEYOND) {
            return beyond_line(nearest, inner, d, mirror, normal);
        }
        var s = mirror;
        s[normal] = -s[normal];
        return s;
    }
    let linear = linear_ghost(bc, stage, nearest, inner, inner2, d, normal, inward);
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

// Ghost d (0, 1) of a wall edge beyond a line's cell e0 (an open, normal-depth or rating
// line drawn on the edge cells), e1 its inner neighbour: the ground and the water go on
// as they come to the line (as beside nodata, reconstruct.wgsl `slopes_beyond`), not as
// the wall's mirror, which left a thin sheet a step down to a dry cell at the line (hunt
// 14). The face stays a wall's: the line lets the water out. Beside dry cells, the mirror.
fn beyond_line(e0: vec4<f32>, e1: vec4<f32>, d: i32, mirror: vec4<f32>, normal: u32) -> vec4<f32> {
    let s = e0 + f32(d + 1) * (e0 - e1);
    if (e0.x <= params.dry_depth || e1.x <= params.dry_depth || s.x <= params.dry_depth) {
        var m = mirror;
        m[normal] = -m[normal];
        return m;
    }
    return s;
}

// Whether an inflow or rating edge passes no water beside edge cell `edge_cell` this stage
// (a hydrograph at 0, a level below the curve's first): it is then a wall, ghosts and face
// alike. Its own ghosts (on the line through the next cells in) and the imposed flux's face
// met water running into it with its hydrostatic pressure alone, as a dry bank does: the
// water ran on along the edge, and where the edge met a stage edge a circulation grew
// through the corner (a hunt; tests/walls.rs).
fn passes_nothing(bc: BcDef, stage: u32, edge_cell: vec4<f32>) -> bool {
    if (bc.kind == BC_INFLOW) {
        return bc_value(bc, stage) <= 0.0;
    }
    return OUTFLOW_EDGES && bc.kind == BC_RATING && rating_discharge(bc.series, edge_cell.w) <= 0.0;
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
    var inner2 = OUTSIDE;
    if (across >= 3) {
        inner2 = tile[t + (d + 3) * step];
    }
    let normal = select(2u, 1u, inward.x != 0);
    let sign = f32(inward.x + inward.y);
    tile[t] = ghost_state(bc_defs[bc_edge[edge]], stage, mirror, nearest, inner, inner2, d, normal, sign);
}

// Imposed inflow through an edge face: unit discharge q (m^2/s, into the domain) enters at
// least at critical depth, so a dry edge cell can take any Q. `depth` is the edge cell's
// depth on the face, as the face's reconstruction has it, so that the momentum flux goes
// with the state the cell's slope and bed-slope source assume. `sign` is +1 when inflow
// runs along +x (+y). A discharge of 0 is a wall instead (passes_nothing).
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
    var law: f32; // what the edge's law passes at the cell's depth and level
    if (bc.kind == BC_NORMAL) {
        let own = u32(cell % TILE - HALO + BLOCK * (cell / TILE - HALO));
        let gn2 = friction_of(friction[wg_block], own);
        law = pow(e.x, 5.0 / 3.0) * sqrt(bc.scale * params.g / gn2);
    } else {
        law = rating_discharge(bc.series, e.w) * bc.scale;
    }
    let critical = e.x * sqrt(params.g * e.x);
    let outward = -sign * e.y; // the cell's velocity out of the domain
    if (law > critical && outward > 0.0 && outward * outward > params.g * e.x) {
        // A steep outlet (its law passes more than critical flow) that supercritical water
        // reaches is no control: the water leaves as it arrives, as through an `open` edge.
        // Held to critical flow, the cell stood at critical depth, kept the momentum of the
        // faster water arriving, and read 1.8 times the discharge it passed (hunt 14).
        return supercritical_outflow(e, edge_face_depth(cell, step), outward, sign);
    }
    // At most critical flow, as a free overfall passes (a rating's curve would let a film on
    // a high bank out at the discharge it gives for the bank's level): a steeper outlet's
    // discharge left supercritically through a face built at critical depth, whose
    // momentum flux drove the edge cell's water back inwards, and the cell passed out more
    // than it held (a sloping outlet made water from nothing).
    var q = min(law, critical);
    if (stage != 1u) {
        note_speed(discharge_speed(q, e.x));
    }
    if (sim.dt > 0.0) {
        q = min(q, 0.5 * e.x * geo.dx / sim.dt);
    }
    let f = inflow_face(-q, edge_face_depth(cell, step), sign);
    return vec4<f32>(f.xyz, f.x * e.z);
}

// The face of edge cell `e` (turned) whose water leaves supercritically at speed `outward`,
// `depth` deep on the face: its own flux, with the momentum less the pressure (the D of
// reconstruct.wgsl) q u, at most half the cell's water in a stage.
fn supercritical_outflow(e: vec4<f32>, depth: f32, outward: f32, sign: f32) -> vec4<f32> {
    var q = depth * outward;
    if (sim.dt > 0.0) {
        q = min(q, 0.5 * e.x * geo.dx / sim.dt);
    }
    let mass = -sign * q;
    return vec4<f32>(mass, q * outward, q * outward, mass * e.z);
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
        if (passes_nothing(bc, stage, tile[cell])) {
            return vec4<f32>(0.0, face.y, face.z, 0.0);
        }
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
    if (passes_nothing(bc, stage, tile[cell])) {
        return vec4<f32>(0.0, face.y, face.z, 0.0);
    }
    return inflow_face(bc_value(bc, stage), edge_face_depth(cell, step), sign);
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
