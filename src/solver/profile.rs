//! `--profile`: GPU timestamps around each kernel of a step, where the adapter offers
//! timestamp queries. Each kernel then runs in a compute pass of its own, with a timestamp
//! written at the pass's start and end; the first `TIMED_STEPS` steps of every batch are
//! timed, into a query set per ring slot so that batches in flight never share one.

use crate::gpu::Gpu;

/// Steps timed per batch.
pub const TIMED_STEPS: u32 = 64;

struct Slot {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
    /// Steps the slot's batch timed.
    timed: u32,
}

pub struct Profiler {
    slots: Vec<Slot>,
    period_ns: f64,
    /// The kernels of one step, in dispatch order.
    kernels: Vec<&'static str>,
    totals_ns: Vec<f64>,
    steps: u64,
}

/// Mean GPU time per step of each kernel (of each pass, on a rank of a ranked run).
#[derive(Clone, Debug)]
pub struct Profile {
    pub kernel_us: Vec<(&'static str, f64)>,
    /// On a rank: the GPU's mean time per step before each pass, idle or copying
    /// (submission boundaries, host waits); empty on one GPU, whose step is one submission.
    pub idle_before_us: Vec<(&'static str, f64)>,
    pub steps: u64,
}

impl Profile {
    pub fn gpu_us_per_step(&self) -> f64 {
        self.kernel_us.iter().map(|k| k.1).sum()
    }
}

impl Profiler {
    /// None when the adapter has no timestamp queries.
    pub fn new(gpu: &Gpu, ring_slots: usize, kernels: Vec<&'static str>) -> Option<Profiler> {
        if !gpu.features.contains(wgpu::Features::TIMESTAMP_QUERY) {
            return None;
        }
        let queries = 2 * kernels.len() as u32 * TIMED_STEPS;
        let bytes = 8 * queries as u64;
        let slot = |_| Slot {
            queries: gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("kernel timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count: queries,
            }),
            resolve: gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("resolved timestamps"),
                size: bytes,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            readback: gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("timestamps readback"),
                size: bytes,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            timed: 0,
        };
        Some(Profiler {
            slots: (0..ring_slots).map(slot).collect(),
            period_ns: gpu.queue.get_timestamp_period() as f64,
            totals_ns: vec![0.0; kernels.len()],
            kernels,
            steps: 0,
        })
    }

    /// The timestamp writes around kernel `k` of step `step` of the batch in `slot`, if
    /// that step is timed.
    pub fn writes(
        &self,
        slot: usize,
        step: u32,
        k: usize,
    ) -> Option<wgpu::ComputePassTimestampWrites<'_>> {
        (step < TIMED_STEPS).then(|| {
            let first = 2 * (step * self.kernels.len() as u32 + k as u32);
            wgpu::ComputePassTimestampWrites {
                query_set: &self.slots[slot].queries,
                beginning_of_pass_write_index: Some(first),
                end_of_pass_write_index: Some(first + 1),
            }
        })
    }

    /// Resolves the batch's timestamps into the slot's readback buffer.
    pub fn resolve(&mut self, encoder: &mut wgpu::CommandEncoder, slot: usize, steps: u32) {
        let s = &mut self.slots[slot];
        s.timed = steps.min(TIMED_STEPS);
        let count = 2 * self.kernels.len() as u32 * s.timed;
        encoder.resolve_query_set(&s.queries, 0..count, &s.resolve, 0);
        encoder.copy_buffer_to_buffer(&s.resolve, 0, &s.readback, 0, 8 * count as u64);
    }

    pub fn request_read(&self, slot: usize) {
        crate::gpu::request_read(&self.slots[slot].readback);
    }

    /// Adds the first `ran` steps of the slot's batch (the rest idled at the target), once
    /// the GPU is done with it.
    pub fn collect(&mut self, slot: usize, ran: u64) {
        let s = &self.slots[slot];
        let timed = (s.timed as u64).min(ran) as usize;
        let Ok(view) = s.readback.get_mapped_range(..) else {
            return;
        };
        let stamps: &[u64] = bytemuck::cast_slice(&view);
        let kernels = self.kernels.len();
        for (pass, t) in stamps.chunks(2).take(timed * kernels).enumerate() {
            self.totals_ns[pass % kernels] += t[1].saturating_sub(t[0]) as f64 * self.period_ns;
        }
        drop(view);
        s.readback.unmap();
        self.steps += timed as u64;
    }

    pub fn profile(&self) -> Profile {
        let per_step = |ns: f64| ns / 1e3 / self.steps.max(1) as f64;
        Profile {
            kernel_us: self
                .kernels
                .iter()
                .zip(&self.totals_ns)
                .map(|(name, ns)| (*name, per_step(*ns)))
                .collect(),
            idle_before_us: Vec::new(),
            steps: self.steps,
        }
    }
}
