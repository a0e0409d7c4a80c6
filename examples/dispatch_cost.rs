//! What one dispatch costs the host in wgpu, against how many storage buffers its bind group
//! holds and over how many buffers its writable bindings lie: the measurement behind the
//! solver's binding count. Records steps of three dispatches (the solver's one-level step:
//! two indirect, one direct) into one compute pass per batch of 50 steps, as the solver
//! does, and prints µs per dispatch for recording and submitting.
//!
//! `cargo run --release --example dispatch_cost -- [ADAPTER]`

use quadflood::gpu::Gpu;
use std::time::Instant;

const STEPS: usize = 2000;
const PER_BATCH: usize = 50;

fn main() {
    let filter = std::env::args().nth(1);
    let gpu = Gpu::open(filter.as_deref()).expect("an adapter");
    println!("adapter: {}", gpu.describe());
    println!(
        "bindings  read-write  in buffers  args written  record us/dispatch  submit us/dispatch"
    );
    for &(count, read_write, distinct, args_written) in &[
        (1, 1, 1, false),
        (4, 4, 4, false),
        (8, 8, 8, false),
        (8, 8, 1, false),
        (18, 8, 8, false),
        (18, 8, 3, false),
        (18, 8, 1, false),
        (18, 18, 18, false),
        (8, 1, 1, false),
        (18, 1, 1, false),
        (1, 1, 1, true),
        (8, 8, 8, true),
        (18, 8, 8, true),
        (18, 8, 3, true),
        (18, 8, 1, true),
    ] {
        let shape = Shape {
            count,
            read_write,
            distinct,
            args_written,
        };
        let (record, submit) = time_dispatches(&gpu, &shape);
        println!(
            "{count:8}  {read_write:10}  {distinct:10}  {args_written:12}  {record:18.2}  {submit:18.2}"
        );
    }
}

/// A kernel that binds `count` storage buffers, the first `read_write` of them writable,
/// and touches each only in a branch no invocation takes; `args`: it also writes the
/// indirect arguments in group 1, as the solver's step end does.
fn shader(count: usize, read_write: usize, args: bool) -> String {
    let mut text = String::new();
    let mut body = String::new();
    for k in 0..count {
        let access = if k < read_write { "read_write" } else { "read" };
        text += &format!("@group(0) @binding({k}) var<storage, {access}> b{k}: array<u32>;\n");
        body += &if k < read_write {
            format!("        b{k}[gid.x] = {k}u;\n")
        } else {
            format!("        b0[gid.x] += b{k}[gid.x];\n")
        };
    }
    if args {
        text += "@group(1) @binding(0) var<storage, read_write> args: array<u32>;\n";
        body += "        args[0] = b0[0];\n";
    }
    text + &format!(
        "@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) gid: vec3<u32>) {{\n    if (gid.x == 0xffffffffu) {{\n{body}    }}\n}}\n"
    )
}

/// A bind group: `count` storage buffer bindings, the first `read_write` of them writable
/// and those spread over `distinct` buffers (ranges of one buffer are tracked, and given
/// barriers, as that one buffer); `args_written`: the step end writes the indirect arguments.
struct Shape {
    count: usize,
    read_write: usize,
    distinct: usize,
    args_written: bool,
}

/// Steps of three dispatches: two indirect, then one direct that, with `args_written`,
/// writes the arguments the next step's indirect dispatches read.
fn time_dispatches(gpu: &Gpu, shape: &Shape) -> (f64, f64) {
    let &Shape {
        count,
        read_write,
        distinct,
        args_written,
    } = shape;
    let device = &gpu.device;
    let entries: Vec<wgpu::BindGroupLayoutEntry> = (0..count)
        .map(|k| wgpu::BindGroupLayoutEntry {
            binding: k as u32,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage {
                    read_only: k >= read_write,
                },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        })
        .collect();
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: None,
        entries: &entries,
    });
    let args_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: None,
        entries: &[wgpu::BindGroupLayoutEntry {
            binding: 0,
            ..entries[0]
        }],
    });
    let pipeline = |args: bool| {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: None,
            source: wgpu::ShaderSource::Wgsl(shader(count, read_write, args).into()),
        });
        let groups = [Some(&layout), Some(&args_layout)];
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: None,
            bind_group_layouts: if args { &groups[..] } else { &groups[..1] },
            immediate_size: 0,
        });
        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: None,
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        })
    };
    let stage = pipeline(false);
    let step_end = pipeline(args_written);
    let buffers: Vec<wgpu::Buffer> = (0..count)
        .map(|_| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: 1 << 16,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            })
        })
        .collect();
    const RANGE: u64 = 4096;
    let group_entries: Vec<wgpu::BindGroupEntry> = (0..count)
        .map(|k| {
            let (buffer, offset) = if k < read_write {
                (&buffers[k % distinct], RANGE * (k / distinct) as u64)
            } else {
                (&buffers[k], 0)
            };
            wgpu::BindGroupEntry {
                binding: k as u32,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer,
                    offset,
                    size: std::num::NonZeroU64::new(RANGE),
                }),
            }
        })
        .collect();
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &layout,
        entries: &group_entries,
    });
    let indirect = gpu.buffer_with(
        "args",
        &[4u32, 1, 1],
        wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::STORAGE,
    );
    let args_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &args_layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: indirect.as_entire_binding(),
        }],
    });
    let mut record = 0.0;
    let mut submit = 0.0;
    for batch in 0..STEPS / PER_BATCH + 1 {
        let started = Instant::now();
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_bind_group(0, &bind_group, &[]);
            if args_written {
                pass.set_bind_group(1, &args_group, &[]);
            }
            for _ in 0..PER_BATCH {
                pass.set_pipeline(&stage);
                pass.dispatch_workgroups_indirect(&indirect, 0);
                pass.set_pipeline(&stage);
                pass.dispatch_workgroups_indirect(&indirect, 0);
                pass.set_pipeline(&step_end);
                pass.dispatch_workgroups(4, 1, 1);
            }
        }
        let commands = encoder.finish();
        let recorded = Instant::now();
        gpu.queue.submit([commands]);
        let submitted = Instant::now();
        device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
        if batch > 0 {
            // The first batch warms the caches up.
            record += (recorded - started).as_secs_f64();
            submit += (submitted - recorded).as_secs_f64();
        }
    }
    let dispatches = (3 * STEPS) as f64;
    (1e6 * record / dispatches, 1e6 * submit / dispatches)
}
