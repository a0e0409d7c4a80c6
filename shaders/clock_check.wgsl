// Test kernel: adds a step to a double-f32 clock many times, with the solver's own df_add,
// so a unit test can measure the drift of simulated time on the real GPU compiler.
// io[0] = bits of dt, io[1] = step count, io[4] = bits of 1.0; io[2], io[3] = bits of (hi, lo).
// Words, not floats: a step count read as f32 bits is a denormal, which GPUs flush to zero.
// The clock carries over between dispatches: lavapipe caps a loop at 65535 iterations.

@group(0) @binding(0) var<storage, read_write> io: array<u32>;

@compute @workgroup_size(1)
fn accumulate() {
    let dt = bitcast<f32>(io[0]);
    let n = io[1];
    let one = bitcast<f32>(io[4]);
    var t = vec2<f32>(bitcast<f32>(io[2]), bitcast<f32>(io[3]));
    for (var i = 0u; i < n; i++) {
        t = df_add(t, dt, one);
    }
    io[2] = bitcast<u32>(t.x);
    io[3] = bitcast<u32>(t.y);
}
