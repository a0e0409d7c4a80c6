// Losses: water standing on a cell soaks into the ground (src/scenario/losses.rs).
//
// The ground takes the step's rain on a cell as it falls, as much as it can (`rain_soaked`:
// both stages add only the rest), and then, once a step, of stage 2's result the water that
// is there (run-on and the rain it could not take, as HEC-RAS 2D does), never more, so it
// keeps depths positive and cannot make a step unstable, and it bounds no time step. The `losses` buffer (u32 words):
//   [0, nblocks)          per block, where its cells' cumulative loss F (m, f32 bits)
//                         starts; NONE for a block without losses
//   [nblocks, 2 nblocks)  per block, its cells' class: a class all of them share, or
//                         LOSS_PER_CELL | where its 256 cells' classes start
//   [2 nblocks, 4 nblocks) per block, the volume lost so far (m³, double-f32 bits)
//   [4 nblocks, ...)      per class, two parameters (f32 bits): initial loss (m) and
//                         continuing loss (m/s), or Green-Ampt's conductivity K (m/s) and
//                         suction head times moisture deficit (m); then the cells' classes
//                         and F values the block entries point to.

const LOSS_PER_CELL: u32 = 0x80000000u;

// The class parameters of cell `tid` of block `b`.
fn loss_parameters(b: u32, tid: u32) -> vec2<f32> {
    var entry = losses[params.nblocks + b];
    if ((entry & LOSS_PER_CELL) != 0u) {
        entry = losses[(entry & ~LOSS_PER_CELL) + tid];
    }
    let at = 4u * params.nblocks + 2u * entry;
    return vec2<f32>(bitcast<f32>(losses[at]), bitcast<f32>(losses[at + 1u]));
}

// The depth (m) the ground can take in a step of dt from `depth` of water, where it has
// taken `taken` so far. The continuing loss starts once the initial loss is met.
fn loss_capacity(p: vec2<f32>, taken: f32, depth: f32, dt: f32) -> f32 {
    if ((params.flags & FLAG_GREEN_AMPT) != 0u) {
        return green_ampt_step(p.x, p.y, taken, dt);
    }
    let initial = max(p.x - taken, 0.0);
    return initial + select(0.0, p.y * dt, depth > initial);
}

// Green-Ampt under ponding, dF/dt = K (1 + psi_dtheta / F), integrated by the implicit
// midpoint rule: dF = K dt (1 + psi_dtheta / (F + dF / 2)) is a quadratic in dF whose
// positive root is -b + sqrt(b² + c), written so neither form cancels (second order in
// dt, exact as F grows and the rate tends to K, and finite at F = 0).
fn green_ampt_step(k: f32, psi_dtheta: f32, f: f32, dt: f32) -> f32 {
    let kdt = k * dt;
    if (kdt <= 0.0) {
        return 0.0; // a sealed soil: at F = 0 the quadratic's root was 0 / 0, which took all
    }
    let b = f - 0.5 * kdt;
    let c = 2.0 * kdt * (f + psi_dtheta);
    let root = sqrt(b * b + c);
    if (b >= 0.0) {
        return c / (b + root);
    }
    return root - b;
}

// The depth (m) of the step's rain on cell `tid` of block `b` that the ground takes as it
// falls, and its share of that rain: the stages add only the rest. Left standing until the
// step's end, rain the ground could take all of stood as a film through the step, and the
// second stage carried the film from ridges into hollows (2.13–2.87 mm where 2.5 mm fell
// at dt = 10 s on a steep hillside, a hunt).
fn rain_soaked(b: u32, tid: u32, rain_code: u32, dt: f32) -> vec2<f32> {
    let base = losses[b];
    if (base == NONE) {
        return vec2<f32>(0.0);
    }
    let rain = 0.5 * dt * (rain_rate(rain_code, tid, 1u) + rain_rate(rain_code, tid, 2u));
    if (!(rain > 0.0)) {
        return vec2<f32>(0.0);
    }
    let taken = bitcast<f32>(losses[base + tid]);
    let soaked = min(rain, loss_capacity(loss_parameters(b, tid), taken, rain, dt));
    return vec2<f32>(soaked, soaked / rain);
}

// Cell `tid` of block `b` after its losses in a step of dt, the ground having taken
// `soaked` of the rain as it fell: it takes what it can still take of the water on the
// cell, whose velocity stays as it was. Records the cell's new F.
// The depth left is rounded without bias (`draw`): a step's loss under deep water is
// often below the depth's last bit, and rounding to nearest took a whole bit or nothing
// every step (2 mm/h for 30 min took 1.92 mm under 2 m of water, 0.68 mm under 1 m).
fn apply_losses(b: u32, tid: u32, s: vec4<f32>, dt: f32, soaked: f32, draw: f32) -> vec4<f32> {
    let base = losses[b];
    if (base == NONE) {
        return s;
    }
    let taken = bitcast<f32>(losses[base + tid]);
    if (s.x <= 0.0) {
        if (soaked > 0.0) {
            losses[base + tid] = bitcast<u32>(taken + soaked);
        }
        return s;
    }
    let p = loss_parameters(b, tid);
    let capacity = max(loss_capacity(p, taken, s.x + soaked, dt) - soaked, 0.0);
    let left = two_sum(s.x, -capacity, params.one);
    let h = select(0.0, round_unbiased(left.x, left.y, draw), left.x > 0.0);
    // What the cell lost exactly, in f32: what the balance counts and F adds.
    let lost = s.x - h;
    losses[base + tid] = bitcast<u32>(taken + soaked + lost);
    var out = vec4<f32>(h, s.y, s.z, s.w);
    if (h > params.dry_depth) {
        let keep = h / s.x;
        out.y *= keep;
        out.z *= keep;
    } else {
        out.y = 0.0;
        out.z = 0.0;
    }
    return out;
}

// Adds the block's loss this step, the sum of `lost` (m³ of each thread's cell) over the
// workgroup, to its running volume. Every thread calls it; sums in the faces' third
// component, which the step no longer needs. (Summed in the tile, it overwrote the cells
// an open line's outflow is counted from afterwards: a mass error of 1.1 in a channel.)
fn add_block_loss(b: u32, tid: u32, lost: f32) {
    if (tid < CELLS_PER_BLOCK) {
        face[tid].z = lost;
    }
    workgroupBarrier();
    for (var half = CELLS_PER_BLOCK / 2u; half > 0u; half /= 2u) {
        if (tid < half) {
            face[tid].z += face[tid + half].z;
        }
        workgroupBarrier();
    }
    if (tid == 0u && losses[b] != NONE) {
        let at = 2u * params.nblocks + 2u * b;
        let sum = df_add(vec2<f32>(bitcast<f32>(losses[at]), bitcast<f32>(losses[at + 1u])), face[0].z, params.one);
        losses[at] = bitcast<u32>(sum.x);
        losses[at + 1u] = bitcast<u32>(sum.y);
    }
}
