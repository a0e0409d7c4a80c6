// Test kernel: adds a step to a double-f32 clock many times, with the solver's own df_add,
// so a unit test can measure the drift of simulated time on the real GPU compiler.

@group(0) @binding(0) var<storage, read_write> io: array<f32>;

@compute @workgroup_size(1)
fn accumulate() {
    let dt = io[0];
    let n = bitcast<u32>(io[1]);
    var t = vec2<f32>(0.0, 0.0);
    for (var i = 0u; i < n; i++) {
        t = df_add(t, dt);
    }
    io[2] = t.x;
    io[3] = t.y;
}
