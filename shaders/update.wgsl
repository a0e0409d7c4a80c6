// A cell's new state: the update from its balance with implicit friction, its depth
// rounded without bias, and the run's maxima. Part of the flux kernel (flux.wgsl).

// dt L(U) applied to the thread's own cell from its balance (mass out, x- and y-momentum
// out; `dh` the depth change, rain included), then implicit Manning friction.
fn advance_cell(u: vec4<f32>, dh: f32, out: vec3<f32>, dt: f32, gn2: f32) -> vec4<f32> {
    let k = dt / geo.dx;
    var h = u.x + dh;
    var hu = u.y - k * out.y;
    var hv = u.z - k * out.z;
    h = max(h, 0.0);
    // A film thinner than half the last bit of its surface (h + z rounds to z) is invisible
    // to the faces, which move none of its water: left with its momentum, the bed-slope
    // source sped it up without end while it stood still (265 m/s on a frictionless beach
    // after 300 s, a hunt), and the time step followed. (`one`: a compiler may not fold
    // h + z != z into h != 0, as it would over the reals.)
    if (h > params.dry_depth && (h + u.w) * params.one != u.w) {
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

// The draw of a step's losses: stages 1 and 2 take 1 and 2.
const LOSS_DRAW: u32 = 3u;

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

const NEVER_CODE: u32 = 0xffffu;
const LAST_CODE: f32 = 65534.0;
const F16_MAX: f32 = 65504.0;

// The time code of time t (f32: a few ms over days is plenty).
fn peak_code(t: f32) -> u32 {
    return u32(clamp(round((t - params.peak_origin) * params.peak_rate), 0.0, LAST_CODE));
}

// The UK hazard rating HR = d (v + 0.5) + DF (src/io/hazard.rs, `uk_rating`).
fn uk_rating(depth: f32, speed: f32) -> f32 {
    var debris = 0.0;
    if (depth > 0.75 || (depth > 0.25 && speed > 2.0)) {
        debris = params.debris_high;
    } else if (depth > 0.25) {
        debris = params.debris_mid;
    }
    return depth * (speed + 0.5) + debris;
}

// The run's maxima at the end of a step, stored only where one grew: most steps of a
// receding flood change none. The inundation duration is kept running (see
// src/scenario/maxima.rs, `Peak::running`): while a cell stands at least duration_depth
// deep, it holds the duration less the time code its wet spell began at, so that only the
// steps that begin and end a spell write it.
fn track_maxima(cell: u32, s: vec4<f32>, before: f32) {
    let start = sim.t_hi + sim.t_lo;
    let t = start + sim.dt;
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
    let rating = clamp(uk_rating(s.x, speed), 0.0, F16_MAX);
    var hazard_duration = max(pack2x16float(vec2<f32>(rating, 0.0)), m.hazard_duration & 0xffffu);
    var duration = m.hazard_duration >> 16u;
    let flooded = s.x >= params.duration_depth;
    if (flooded != (before >= params.duration_depth)) {
        // A spell that begins counts from this step's start; one that ends, to it.
        let at = peak_code(start);
        duration = select(duration + at, duration - at, flooded) & 0xffffu;
    }
    hazard_duration |= duration << 16u;
    if (deeper || times != m.times || speed_hazard != m.speed_hazard
        || hazard_duration != m.hazard_duration) {
        maxima[cell] = Peak(max(s.x, m.depth), speed_hazard, times, hazard_duration);
    }
}
