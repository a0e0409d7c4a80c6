// Level changes in a multi-resolution grid: a coarse cell seen from a finer block, and the
// fine faces a coarse block shares with its finer neighbours.
//
// A fine block sees the coarse cell C beside it as two layers of "virtual" fine cells,
// reconstructed from C with C's limited slopes: across the level change (between the next
// coarse cell C2 and the mean of the 2x2 fine cells beside C) and along it (between C's
// coarse neighbours on the same side). A coarse block computes the same virtual cells from
// the same inputs, then the two fine faces with the fine block's own stencil, and takes
// their mean as its face: one flux, the same bits on both sides.
//
// Along the side, coarse cell C's slope comes from its two coarse neighbours on the same
// side, except at the ends of the coarse block's side, where the outer neighbour is out of
// sight of the fine block: there the fine cells beside C, half a coarse cell apart along the
// side, give the missing difference.

// Limited slopes of (h, u, v, eta) of c between m and p, zero next to a dry cell.
fn cell_slopes(m: vec4<f32>, c: vec4<f32>, p: vec4<f32>) -> vec4<f32> {
    let hd = params.dry_depth;
    if (m.x <= hd || c.x <= hd || p.x <= hd) {
        return vec4<f32>(0.0);
    }
    return vec4<f32>(limit(c.x - m.x, p.x - c.x), limit(c.y - m.y, p.y - c.y),
                     limit(c.z - m.z, p.z - c.z), limit(c.w - m.w, p.w - c.w));
}

// Mean of the 2x2 fine cells beside a coarse cell: (depth 0, 1) x (position 0, 1) along
// the side, summed in one fixed order.
fn fine_mean(d0t0: vec4<f32>, d1t0: vec4<f32>, d0t1: vec4<f32>, d1t1: vec4<f32>) -> vec4<f32> {
    return ((d0t0 + d1t0) + (d0t1 + d1t1)) * 0.25;
}

// Slopes along the side of coarse cell C, the a-th (0..15) of its block's side, limited
// between C's neighbours `c_low` and `c_high`; at the ends (a = 0 or 15), where the outer
// one lies beyond the block (it is C itself there), between the inner one and the fine
// cells beside C, f(depth, position): f0 = (0, 0), f1 = (1, 0), f2 = (0, 1), f3 = (1, 1).
fn along_slopes(a: i32, c_low: vec4<f32>, c: vec4<f32>, c_high: vec4<f32>,
                f0: vec4<f32>, f1: vec4<f32>, f2: vec4<f32>, f3: vec4<f32>) -> vec4<f32> {
    if (a > 0 && a < 15) {
        return cell_slopes(c_low, c, c_high);
    }
    let hd = params.dry_depth;
    let inner = select(c_low, c_high, a == 0);
    if (c.x <= hd || inner.x <= hd || min(min(f0.x, f1.x), min(f2.x, f3.x)) <= hd) {
        return vec4<f32>(0.0);
    }
    // The fine pairs' means are half a coarse cell apart: their difference doubled.
    let fine_rise = (f2 + f3) - (f0 + f1);
    let inner_rise = select(c - c_low, c_high - c, a == 0);
    return vec4<f32>(limit(fine_rise.x, inner_rise.x), limit(fine_rise.y, inner_rise.y),
                     limit(fine_rise.z, inner_rise.z), limit(fine_rise.w, inner_rise.w));
}

// The virtual fine cell a quarter coarse cell from C's centre: `toward` is +1/4 for the layer
// next to the fine block, -1/4 for the far one; `along` is -1/4 or +1/4 along the side.
fn virtual_fine(c: vec4<f32>, c_far: vec4<f32>, fine: vec4<f32>, slope_along: vec4<f32>,
                toward: f32, along: f32) -> vec4<f32> {
    let across = cell_slopes(c_far, c, fine);
    var g = c + across * toward + slope_along * along;
    g.x = max(g.x, 0.0);
    return g;
}

// Unit steps for a side: `out` leaves the block through that side, `run` goes along it.
fn side_out(side: u32) -> vec2<i32> {
    switch (side) {
        case SIDE_W: { return vec2<i32>(-1, 0); }
        case SIDE_E: { return vec2<i32>(1, 0); }
        case SIDE_S: { return vec2<i32>(0, -1); }
        default: { return vec2<i32>(0, 1); }
    }
}

fn side_run(side: u32) -> vec2<i32> {
    return select(vec2<i32>(1, 0), vec2<i32>(0, 1), side < SIDE_S);
}

// --- The fine side: halo cell `l` (own-level local coordinates) of a side facing a coarser
// block `nb`.
fn virtual_halo(stage: u32, b: u32, nb: u32, side: u32, l: vec2<i32>) -> vec4<f32> {
    let out = side_out(side);
    let run = side_run(side);
    let g = vec2<i32>(geo.i0, geo.j0) + l;       // fine coordinates
    let cc = vec2<i32>(g.x >> 1u, g.y >> 1u);    // coarse cell C
    let pos = dot(l, run);                       // fine position along the side, 0..15
    let k = pos >> 1u;                           // coarse cell along the side, 0..7
    let c = load_global(stage, nb, cc.x, cc.y);
    let c_far = load_global(stage, nb, cc.x + out.x, cc.y + out.y);
    // Own fine cells beside C: depth 0 is the block's edge row or column.
    let edge = select(vec2<i32>(0, 0), vec2<i32>(BLOCK - 1, BLOCK - 1), out.x + out.y > 0) * abs(out);
    // An array, not four variables: the NVIDIA compiler keeps it in local memory, which
    // holds this kernel at 64 registers; as scalars it takes 80-96 and the stages run 40%
    // slower (docs/benchmarks-history.md, "Registers, not workgroup memory").
    var f: array<vec4<f32>, 4>;
    for (var n = 0; n < 4; n++) {
        let d = n & 1;
        let t = n >> 1u;
        let cell = edge - out * d + run * (2 * k + t);
        f[n] = to_primitive(load_own(stage, b, u32(cell.x + BLOCK * cell.y)));
    }
    let fine = fine_mean(f[0], f[1], f[2], f[3]);
    let a = dot(cc, run) & 15;                   // C along the coarse block's side
    var c_low = c;
    var c_high = c;
    if (a > 0) {
        c_low = load_global(stage, nb, cc.x - run.x, cc.y - run.y);
    }
    if (a < 15) {
        c_high = load_global(stage, nb, cc.x + run.x, cc.y + run.y);
    }
    let slope_along = along_slopes(a, c_low, c, c_high, f[0], f[1], f[2], f[3]);
    // Layers beyond the block: 0 next to it, 1 further out.
    let beyond = dot(l, out) - select(1, BLOCK, out.x + out.y > 0);
    let toward = select(-0.25, 0.25, beyond == 0);
    let along = select(-0.25, 0.25, (pos & 1) == 1);
    return virtual_fine(c, c_far, fine, slope_along, toward, along);
}

// --- The coarse side: own cell `a` (0..15) along a side facing finer blocks.

// Fine cell at depth d (0, 1) from the level change and position t (0, 1) beside coarse
// cell a, read from the finer neighbour that holds it.
fn fine_beside(stage: u32, b: u32, side: u32, a: i32, d: i32, t: i32) -> vec4<f32> {
    let out = side_out(side);
    let run = side_run(side);
    // Fine coordinates of the first fine cell past the side, at the side's start.
    let start = 2 * vec2<i32>(geo.i0, geo.j0) + select(vec2<i32>(0), 2 * BLOCK * out, out.x + out.y > 0)
        + select(vec2<i32>(0), out, out.x + out.y < 0);
    let fine = start + out * d + run * (2 * a + t);
    let nb = neighbours[b * NB_SLOTS + side_slot(side) + select(0u, 1u, a >= 8)];
    return load_global(stage, nb, fine.x, fine.y);
}

// Own edge cell a and the cell inward from it, from the tile.
fn own_edge(side: u32, a: i32, inward: i32) -> vec4<f32> {
    let out = side_out(side);
    let run = side_run(side);
    let edge = select(vec2<i32>(0, 0), vec2<i32>(BLOCK - 1, BLOCK - 1), out.x + out.y > 0) * abs(out);
    let cell = edge - out * inward + run * a;
    return tile[tile_index(cell.x, cell.y)];
}

// Halo value of a coarse block on a side facing finer blocks: the mean of the fine cells.
fn finer_halo(stage: u32, b: u32, side: u32, l: vec2<i32>) -> vec4<f32> {
    let a = dot(l, side_run(side));
    return fine_mean(fine_beside(stage, b, side, a, 0, 0), fine_beside(stage, b, side, a, 1, 0),
                     fine_beside(stage, b, side, a, 0, 1), fine_beside(stage, b, side, a, 1, 1));
}

// The face of own edge cell a on a side facing finer blocks: the mean of the two fine faces.
fn coarse_side_face(stage: u32, b: u32, side: u32, a: i32) -> vec4<f32> {
    let c = own_edge(side, a, 0);
    let c_far = own_edge(side, a, 1);
    var c_low = c;
    var c_high = c;
    if (a > 0) {
        c_low = own_edge(side, a - 1, 0);
    }
    if (a < 15) {
        c_high = own_edge(side, a + 1, 0);
    }
    // An array on purpose: see virtual_halo.
    var f: array<vec4<f32>, 4>;
    for (var n = 0; n < 4; n++) {
        f[n] = fine_beside(stage, b, side, a, n & 1, n >> 1u);
    }
    let fine = fine_mean(f[0], f[1], f[2], f[3]);
    let slope_along = along_slopes(a, c_low, c, c_high, f[0], f[1], f[2], f[3]);
    var sum = vec4<f32>(0.0);
    for (var t = 0; t < 2; t++) {
        let along = select(-0.25, 0.25, t == 1);
        let g1 = virtual_fine(c, c_far, fine, slope_along, 0.25, along);
        let g2 = virtual_fine(c, c_far, fine, slope_along, -0.25, along);
        let f1 = f[2 * t];
        let f2 = f[2 * t + 1];
        // The stencil the fine block uses for this face, in its orientation.
        var s: Stencil;
        switch (side) {
            case SIDE_W: { s = Stencil(f2, f1, g1, g2); }
            case SIDE_E: { s = Stencil(g2, g1, f1, f2); }
            case SIDE_S: { s = Stencil(turn(f2), turn(f1), turn(g1), turn(g2)); }
            default: { s = Stencil(turn(g2), turn(g1), turn(f1), turn(f2)); }
        }
        sum += stencil_flux(s);
    }
    return 0.5 * sum;
}
