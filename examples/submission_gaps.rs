//! How long the GPU idles between two pieces of work, by what separates them: passes of one
//! command buffer, command buffers of one submission, or submissions of their own (each
//! queued before the GPU gets to it, so the host never makes the GPU wait). The measurement
//! behind the ranked step's shape (`src/solver/ranks.rs`): a rank cuts its step into
//! submissions wherever the host must read something before the GPU goes on.
//!
//! Each piece is one dispatch of a kernel that writes `bytes` of a buffer (tiny: 1 KB;
//! large: 64 MB, which leaves that much dirty in the caches when the piece ends). The gap
//! is measured twice: with timestamps around every pass, and with timestamps only at the
//! first pass's start and the last pass's end (the span less the pieces' own time).
//!
//! `cargo run --release --example submission_gaps -- [ADAPTER]`

use quadflood::gpu::Gpu;

/// Pieces in a row; piece 0 is not counted.
const PIECES: u32 = 64;
/// Dispatches of the 64 MB kernel before a row, so that the host has queued the whole row
/// before the GPU gets to it (about 2 ms on an H100).
const HOLD: u32 = 40;
/// Rows of pieces per case; the median row is reported.
const ROWS: usize = 7;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Separation {
    Passes,
    CommandBuffers,
    Submissions,
}

fn main() {
    let filter = std::env::args().nth(1);
    let gpu = Gpu::open(filter.as_deref()).expect("an adapter");
    println!("adapter: {}", gpu.describe());
    if !gpu.features.contains(wgpu::Features::TIMESTAMP_QUERY) {
        eprintln!("this adapter has no timestamp queries: nothing to measure");
        std::process::exit(2);
    }
    println!("writes      separated by     piece us  gap us (timed)  gap us (untimed)");
    for bytes in [1u64 << 10, 64 << 20] {
        let work = Work::new(&gpu, bytes);
        let hold = Work::new(&gpu, 64 << 20);
        for separation in [
            Separation::Passes,
            Separation::CommandBuffers,
            Separation::Submissions,
        ] {
            let timed = median(|| work.row(&gpu, &hold, separation, true));
            let span = median(|| work.row(&gpu, &hold, separation, false));
            // The span covers pieces 1.. and the gaps between them.
            let untimed = (span.1 - (PIECES - 1) as f64 * timed.0) / (PIECES - 2) as f64;
            println!(
                "{:>9}   {:<15} {:9.2}  {:14.2}  {:16.2}",
                if bytes < 1 << 20 { "1 KB" } else { "64 MB" },
                format!("{separation:?}"),
                timed.0,
                timed.1,
                untimed
            );
        }
    }
}

/// The median row by its second figure.
fn median(mut row: impl FnMut() -> (f64, f64)) -> (f64, f64) {
    let mut rows: Vec<(f64, f64)> = (0..ROWS).map(|_| row()).collect();
    rows.sort_by(|a, b| a.1.total_cmp(&b.1));
    rows[ROWS / 2]
}

struct Work {
    pipeline: wgpu::ComputePipeline,
    group: wgpu::BindGroup,
    groups: u32,
    /// Timestamps around every piece.
    queries: wgpu::QuerySet,
    /// Only the start of piece 1 and the end of the last (a query never written must not
    /// be resolved).
    span_queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
    period_ns: f64,
}

impl Work {
    fn new(gpu: &Gpu, bytes: u64) -> Work {
        let device = &gpu.device;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: None,
            source: wgpu::ShaderSource::Wgsl(
                "@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;\n\
                 @compute @workgroup_size(256)\n\
                 fn main(@builtin(global_invocation_id) gid: vec3<u32>) {\n\
                     let i = gid.x + gid.y * 65535u * 256u;\n\
                     if (i < arrayLength(&out)) { out[i] = out[i] * 0.5 + vec4<f32>(1.0); }\n\
                 }\n"
                .into(),
            ),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: None,
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        let out = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: out.as_entire_binding(),
            }],
        });
        let count = 2 * PIECES;
        let buffer = |usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: 8 * count as u64,
                usage,
                mapped_at_creation: false,
            })
        };
        use wgpu::BufferUsages as U;
        Work {
            pipeline,
            group,
            groups: (bytes / 16).div_ceil(256) as u32,
            queries: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: None,
                ty: wgpu::QueryType::Timestamp,
                count,
            }),
            span_queries: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: None,
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            }),
            resolve: buffer(U::QUERY_RESOLVE | U::COPY_SRC),
            readback: buffer(U::MAP_READ | U::COPY_DST),
            period_ns: gpu.queue.get_timestamp_period() as f64,
        }
    }

    fn dispatch(&self, pass: &mut wgpu::ComputePass) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.group, &[]);
        let x = self.groups.min(65535);
        pass.dispatch_workgroups(x, self.groups.div_ceil(65535), 1);
    }

    /// One piece: a pass with its timestamps (all of them when `every`, else only the
    /// start of piece 1 and the end of the last).
    fn piece(&self, encoder: &mut wgpu::CommandEncoder, k: u32, every: bool) {
        let (first, last) = (k == 1, k == PIECES - 1);
        let writes = if every {
            Some(wgpu::ComputePassTimestampWrites {
                query_set: &self.queries,
                beginning_of_pass_write_index: Some(2 * k),
                end_of_pass_write_index: Some(2 * k + 1),
            })
        } else {
            (first || last).then_some(wgpu::ComputePassTimestampWrites {
                query_set: &self.span_queries,
                beginning_of_pass_write_index: first.then_some(0),
                end_of_pass_write_index: last.then_some(1),
            })
        };
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: None,
            timestamp_writes: writes,
        });
        self.dispatch(&mut pass);
    }

    /// A row of pieces after `hold`'s work; returns the mean time of pieces 1.. and the mean
    /// gap before pieces 2.. (µs) when `every` piece is timed, else (0, the span from piece
    /// 1's start to the last one's end).
    fn row(&self, gpu: &Gpu, hold: &Work, separation: Separation, every: bool) -> (f64, f64) {
        let device = &gpu.device;
        let encoder = || device.create_command_encoder(&Default::default());
        let mut buffers = Vec::new();
        let mut current = encoder();
        {
            let mut pass = current.begin_compute_pass(&Default::default());
            for _ in 0..HOLD {
                hold.dispatch(&mut pass);
            }
        }
        for k in 0..PIECES {
            self.piece(&mut current, k, every);
            if separation != Separation::Passes && k + 1 < PIECES {
                buffers.push(std::mem::replace(&mut current, encoder()).finish());
                if separation == Separation::Submissions {
                    gpu.queue.submit(buffers.drain(..));
                }
            }
        }
        let (queries, count) = if every {
            (&self.queries, 2 * PIECES)
        } else {
            (&self.span_queries, 2)
        };
        current.resolve_query_set(queries, 0..count, &self.resolve, 0);
        current.copy_buffer_to_buffer(&self.resolve, 0, &self.readback, 0, 8 * count as u64);
        buffers.push(current.finish());
        gpu.queue.submit(buffers);
        gpu.map_and_wait(&self.readback);
        let stamps: Vec<u64> = {
            let view = self.readback.get_mapped_range(..).expect("mapped");
            bytemuck::cast_slice(&view).to_vec()
        };
        self.readback.unmap();
        let us = |a: u64, b: u64| b.saturating_sub(a) as f64 * self.period_ns * 1e-3;
        if !every {
            return (0.0, us(stamps[0], stamps[1]));
        }
        let n = PIECES as usize;
        let busy: f64 = (1..n).map(|k| us(stamps[2 * k], stamps[2 * k + 1])).sum();
        let gaps: f64 = (2..n).map(|k| us(stamps[2 * k - 1], stamps[2 * k])).sum();
        (busy / (n - 1) as f64, gaps / (n - 2) as f64)
    }
}
