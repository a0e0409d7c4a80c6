// Second-order face states: MUSCL slopes with a limiter, then the hydrostatic reconstruction
// of Audusse et al. (2004) at the face, then HLLC. Cells are (h, un, ut, eta), already
// turned so that un is normal to the face; the bed is eta - h.
//
// The momentum flux is returned split per side as D = F - g/2 h*^2, where h* is that side's
// hydrostatic depth. The cell update then reads
//     d(hu)/dt = -(D_east - D_west + g h dEta) / dx,
// which is Audusse's scheme rearranged so that a lake at rest gives exactly zero in f32:
// there every term is an exact zero rather than a difference of equal pressures.

// Van Albada's limiter, smooth where minmod clips, so that smooth flows converge at second
// order (docs/validation.md), unless the scenario asks for minmod. A pipeline constant:
// each kernel is compiled with one limiter and no branch between them.
override MINMOD_LIMITER: bool = false;

fn limit(a: f32, b: f32) -> f32 {
    let ab = a * b;
    if (MINMOD_LIMITER) {
        return select(0.0, select(b, a, abs(a) < abs(b)), ab > 0.0);
    }
    // Zero unless a and b share a sign; the floor only keeps 0 / 0 away (below it a and b
    // are under 1e-18, slopes of nothing).
    return max(ab, 0.0) * (a + b) / max(a * a + b * b, 1.0e-36);
}

// Limited slopes (dh, d_eta, dun, dut) of cell c between m and p. A cell touching a dry
// cell falls back to first order: that keeps depth non-negative and shorelines at rest.
fn slopes(m: vec4<f32>, c: vec4<f32>, p: vec4<f32>) -> vec4<f32> {
    let hd = params.dry_depth;
    if (m.x <= hd || c.x <= hd || p.x <= hd) {
        if (EDGE_LINES && c.x > hd && is_line_outside(p) && m.x > hd) {
            return slopes_beyond(m, c, c.x);
        }
        if (EDGE_LINES && c.x > hd && is_line_outside(m) && p.x > hd) {
            return slopes_beyond(c, p, c.x);
        }
        return wall_slopes(m, c, p);
    }
    return vec4<f32>(
        limit(c.x - m.x, p.x - c.x),
        limit(c.w - m.w, p.w - c.w),
        limit(c.y - m.y, p.y - c.y),
        limit(c.z - m.z, p.z - c.z),
    );
}

// The nodata cell beyond a line that lets water out (src/scenario/model.rs,
// LINE_OUTSIDE_BED): a plain wall to the faces, but not a mirror to the line's cell.
const LINE_OUTSIDE_BED: f32 = 1.3e6;

fn is_line_outside(s: vec4<f32>) -> bool {
    return s.w == LINE_OUTSIDE_BED;
}

// Slopes of a line's cell, `h` deep, from the difference between two wet cells along the
// axis, a then b, itself and its inner neighbour: the ground and the water go on beyond the
// line as they come to it. Taken for a wall's mirror, the cell stood first order, flat on
// a bed a cell's fall below its neighbour's, and where a sheet is thinner than that fall
// the face between them saw a dry cell below a step: the discharge through it was a dry
// bed's, and the cells before the line carried 44-72% of the flow passing (hunt 14). The
// depth's slope keeps both faces' depths non-negative.
fn slopes_beyond(a: vec4<f32>, b: vec4<f32>, h: f32) -> vec4<f32> {
    let dh = clamp(b.x - a.x, -2.0 * h, 2.0 * h);
    return vec4<f32>(dh, b.w - a.w, b.y - a.y, b.z - a.z);
}

// A wall inside the domain that is not a structure's: nodata, a levee without a crest.
fn is_plain_wall_bed(z: f32) -> bool {
    return z >= WALL_BED_TEST && z < STRUCTURE_WALL_TEST;
}

// A cell of such a wall (dry, so its level is its bed).
fn is_plain_wall(s: vec4<f32>) -> bool {
    return is_plain_wall_bed(s.w);
}

// Slopes of a wet cell beside a plain wall (wall_flux): the wall is the cell's mirror, as
// at the domain's wall edges, so only the velocity towards it has a slope.
fn wall_slopes(m: vec4<f32>, c: vec4<f32>, p: vec4<f32>) -> vec4<f32> {
    let hd = params.dry_depth;
    if (c.x <= hd || !((is_plain_wall(m) || m.x > hd) && (is_plain_wall(p) || p.x > hd))) {
        return vec4<f32>(0.0);
    }
    let un_m = select(m.y, -c.y, is_plain_wall(m));
    let un_p = select(p.y, -c.y, is_plain_wall(p));
    return vec4<f32>(0.0, 0.0, limit(c.y - un_m, un_p - c.y), 0.0);
}

// Flux through the face between l1 and r1; l2 and r2 are the next cells out.
// Returns (mass flux, D on the left side, D on the right side, tangential momentum flux).
fn face_flux(l2: vec4<f32>, l1: vec4<f32>, r1: vec4<f32>, r2: vec4<f32>) -> vec4<f32> {
    let g = params.g;
    let sl = slopes(l2, l1, r1);
    let sr = slopes(l1, r1, r2);
    let h_l = l1.x + 0.5 * sl.x;
    let eta_l = l1.w + 0.5 * sl.y;
    let u_l = l1.y + 0.5 * sl.z;
    let v_l = l1.z + 0.5 * sl.w;
    let h_r = r1.x - 0.5 * sr.x;
    let eta_r = r1.w - 0.5 * sr.y;
    let u_r = r1.y - 0.5 * sr.z;
    let v_r = r1.z - 0.5 * sr.w;
    let z_face = max(eta_l - h_l, eta_r - h_r);
    let hs_l = max(0.0, eta_l - z_face);
    let hs_r = max(0.0, eta_r - z_face);
    if (hs_l == hs_r && u_l == u_r && v_l == v_r) {
        // Equal states: the flux is exact and its pressure cancels in D without round-off.
        let q = hs_l * u_l;
        return vec4<f32>(q, q * u_l, q * u_l, q * v_l);
    }
    if (is_plain_wall_bed(z_face)) {
        return wall_flux(h_l, u_l, v_l, h_r, u_r, v_r, eta_r - h_r >= WALL_BED_TEST);
    }
    let f = hllc(hs_l, u_l, v_l, hs_r, u_r, v_r, g);
    return vec4<f32>(f.x, f.y - 0.5 * g * hs_l * hs_l, f.y - 0.5 * g * hs_r * hs_r, f.z);
}

// The face between water and a wall inside the domain (nodata, a levee without a crest):
// the water's Riemann problem against its mirror, as at the domain's wall edges, so that
// water running into the wall is stopped by the wall's pressure at once. As a dry bank (the
// hydrostatic reconstruction's zero depth on the wall's side) the wall pushed back with the
// water's hydrostatic pressure alone, and a front kept running into the wall's cell until
// its own depth grew: 4.97 m/s at the wall against 3.46 at a wall edge (a hunt). The walls
// of weirs and crested levees keep the dry bank: the water their ends give over the crest
// leaves with its momentum, and stopped at the wall as well, it stood 9.5% higher over a
// levee's crest than the weir equation has it (tests/levees.rs).
fn wall_flux(h_l: f32, u_l: f32, v_l: f32, h_r: f32, u_r: f32, v_r: f32, wall_right: bool) -> vec4<f32> {
    let g = params.g;
    let h = select(h_r, h_l, wall_right);
    let towards = select(-u_r, u_l, wall_right);
    let along = select(v_r, v_l, wall_right);
    // Water moving along the wall only: the wall takes its hydrostatic pressure, exactly
    // (HLLC's sum of equal pressures is off by an ulp, a push every step).
    if (towards == 0.0) {
        return vec4<f32>(0.0);
    }
    // The mirror's flux is the same whichever side the wall is on; D is the water's side's.
    let flux = hllc(h, towards, along, h, -towards, along, g).y;
    let d = flux - 0.5 * g * h * h;
    return vec4<f32>(0.0, select(flux, d, wall_right), select(d, flux, wall_right), 0.0);
}

// Limited free-surface slope of c: the cell's share of the bed-slope source (g h dEta).
// Water beside a wall inside the domain (nodata, a levee, a weir's line) sees the wall as
// the domain's wall edges show it, the cell mirrored, whose limited slope is 0: taken for a
// dry bank, the wall put a wet cell on the shoreline rule below, and wherever the bed fell
// away from the wall the source pulled deep water down the bed's slope. A 1 cm bump on a
// lake over a rough bed grew into currents of 0.2-0.3 m/s along a levee (a hunt).
fn eta_slope(m: vec4<f32>, c: vec4<f32>, p: vec4<f32>) -> f32 {
    let hd = params.dry_depth;
    if (m.x <= hd || c.x <= hd || p.x <= hd) {
        return shoreline_eta_slope(m, c, p);
    }
    return slopes(m, c, p).y;
}

// The source's surface slope in a wet cell beside a dry one, whose faces see a flat
// surface (slopes). Water standing above the bed's lower neighbour (a film left on a slope
// as the water recedes, rain on a hillside) lies on the bed's limited slope, and the source
// pulls it down the slope: with the flat surface alone such a film felt only its own
// pressure in the hydrostatic reconstruction, g h² / 6 against g h Δz, drained ever slower
// as it thinned, and left films of millimetres behind a receding shoreline (Thacker's
// bowl). Level with that neighbour (a shore at rest) it feels nothing. Between the two the
// source grows with the cell's height above that neighbour, reaching the bed's slope at the
// lesser of the cell's depth and the bed's fall, and over no less than 4 (√(g h) dt / dx)²
// of the fall, so that one step's push cannot drain the cell past its neighbour's level.
// Taking the whole slope at any height at all, the source kicked shore cells to and fro on
// every ripple, and a 1 µm disturbance of a lake grew into currents of 0.2-0.8 m/s along
// beaches, islands and walls raised in the terrain; reaching it at a sliver of the depth
// (the fall times (depth / fall)³) still let shore cells a few millimetres deep swing, and
// a lake in a bowl with a wavy bed gained energy for 20 minutes (hunts). The price: the
// shoreline recedes a little late over a smooth slope (Thacker's bowls keep films of 0.2
// to 0.6 mm, docs/validation.md). The faces keep the flat surface, and with it the
// positivity of first order.
fn shoreline_eta_slope(m: vec4<f32>, c: vec4<f32>, p: vec4<f32>) -> f32 {
    let hd = params.dry_depth;
    if (c.x <= hd) {
        return 0.0;
    }
    if (EDGE_LINES && ((is_line_outside(p) && m.x > hd) || (is_line_outside(m) && p.x > hd))) {
        return slopes(m, c, p).y; // the faces' own, carried across to the line (slopes_beyond)
    }
    if ((m.w >= WALL_BED_TEST && p.x > hd) || (p.w >= WALL_BED_TEST && m.x > hd)) {
        return 0.0; // a wall beside wet water: the mirrored cell (see eta_slope)
    }
    let bed_c = c.w - c.x;
    let bed = limit(bed_c - (m.w - m.x), (p.w - p.x) - bed_c);
    let fall = select(c.w - p.w, c.w - m.w, bed > 0.0);
    let thin = min(c.x / abs(bed), 1.0);
    let courant = sim.dt * sqrt(params.g * c.x) / geo.dx;
    let ramp = abs(bed) * max(thin, 4.0 * courant * courant);
    return bed * clamp(fall / max(ramp, 1e-30), 0.0, 1.0);
}
