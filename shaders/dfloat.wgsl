// Double-f32 arithmetic: an unevaluated sum hi + lo carries about 48 bits, enough to add
// 0.1 s steps for 80 simulated hours without drift. f32 alone would lose seconds.
// Kept free of bindings so that both the solver and its unit-test kernel include it.
fn two_sum(a: f32, b: f32) -> vec2<f32> {
    let s = a + b;
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    return vec2<f32>(s, err);
}

fn df_add(x: vec2<f32>, y: f32) -> vec2<f32> {
    let s = two_sum(x.x, y);
    let lo = s.y + x.y;
    let hi = s.x + lo;
    return vec2<f32>(hi, lo - (hi - s.x));
}

// (a_hi + a_lo) - (b_hi + b_lo), rounded to one f32.
fn df_diff(a: vec2<f32>, b: vec2<f32>) -> f32 {
    let s = two_sum(a.x, -b.x);
    return s.x + (s.y + (a.y - b.y));
}

