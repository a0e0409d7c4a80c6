// Double-f32 arithmetic: an unevaluated sum hi + lo carries about 48 bits, enough to add
// 0.1 s steps for 80 simulated hours without drift. f32 alone would lose seconds.
// Kept free of bindings so that both the solver and its unit-test kernel include it.
//
// `one` must be 1.0 read from a buffer at run time. GPU compilers treat float arithmetic as
// reassociable and fold (a + b) - a into b, which erases the rounding error these functions
// exist to capture; multiplying by a value they cannot see keeps every step as written.
fn two_sum(a: f32, b: f32, one: f32) -> vec2<f32> {
    let s = (a + b) * one;
    let bb = (s - a) * one;
    let err = (a - (s - bb)) + (b - bb);
    return vec2<f32>(s, err);
}

fn df_add(x: vec2<f32>, y: f32, one: f32) -> vec2<f32> {
    let s = two_sum(x.x, y, one);
    let lo = s.y + x.y;
    let hi = (s.x + lo) * one;
    return vec2<f32>(hi, lo - (hi - s.x));
}

// (a_hi + a_lo) - (b_hi + b_lo), rounded to one f32.
fn df_diff(a: vec2<f32>, b: vec2<f32>, one: f32) -> f32 {
    let s = two_sum(a.x, -b.x, one);
    return s.x + (s.y + (a.y - b.y));
}

