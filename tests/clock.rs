//! Simulated time must not drift: 80 hours of 0.1 s steps, added on the GPU with the
//! solver's own double-f32 arithmetic, land within 1 ms of the exact sum.

mod common;

use quadflood::gpu::shaders;
use wgpu::util::DeviceExt;

fn accumulate_on_gpu(dt: f32, dispatches: u32, steps_each: u32) -> f64 {
    let gpu = common::gpu();
    let d = &gpu.device;
    let io = [dt.to_bits(), steps_each, 0, 0, 1.0f32.to_bits()];
    let buffer = d.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("clock"),
        contents: bytemuck::cast_slice(&io),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    });
    let pipeline = gpu.compute_pipeline("clock_check", shaders::CLOCK_CHECK, "accumulate");
    let bind_group = d.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: buffer.as_entire_binding(),
        }],
    });
    let mut encoder = d.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        for _ in 0..dispatches {
            pass.dispatch_workgroups(1, 1, 1);
        }
    }
    gpu.queue.submit([encoder.finish()]);
    let out: Vec<u32> = gpu.read_buffer(&buffer, 0, 4);
    f32::from_bits(out[2]) as f64 + f32::from_bits(out[3]) as f64
}

#[test]
fn eighty_hours_of_tenth_second_steps_do_not_drift() {
    let dt = 0.1f32;
    let steps = 80 * 3600 * 10;
    let exact = dt as f64 * steps as f64;
    let t = accumulate_on_gpu(dt, 60, steps / 60);
    let drift = (t - exact).abs();
    println!("GPU clock {t} s, exact {exact} s, drift {drift:e} s");
    assert!(drift < 1e-3, "drift {drift} s");
    // A plain f32 sum drifts by far more: the test could fail.
    let mut naive = 0.0f32;
    for _ in 0..steps {
        naive += dt;
    }
    assert!((naive as f64 - exact).abs() > 1.0);
}
