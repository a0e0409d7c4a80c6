//! GPU timestamps around every pass of a ranked step: what the load balancer weighs the
//! ranks by, what `bench` reports under mpirun and what `run --profile` reports on ranks.

use super::{PassTiming, Ranked};
use crate::error::Result;

/// Compute passes of a ranked step (see `Ranked::step`).
pub const PASSES: u32 = 4;
/// Steps of a window timed on the GPU (its first ones): enough for a mean.
pub const TIMED_STEPS: u32 = 32;

/// GPU timestamps around every pass of the first steps of a window: the GPU's busy time,
/// free of the host's own work and waits. Only where the adapter has timestamp queries.
pub struct PassClock {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
    period_ns: f64,
}

impl PassClock {
    pub fn new(gpu: &crate::gpu::Gpu) -> Option<PassClock> {
        if !gpu.features.contains(wgpu::Features::TIMESTAMP_QUERY) {
            return None;
        }
        let count = 2 * PASSES * TIMED_STEPS;
        let buffer = |label, usage| {
            gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: 8 * count as u64,
                usage,
                mapped_at_creation: false,
            })
        };
        use wgpu::BufferUsages as U;
        Some(PassClock {
            queries: gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("pass timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count,
            }),
            resolve: buffer("resolved pass timestamps", U::QUERY_RESOLVE | U::COPY_SRC),
            readback: buffer("pass timestamps readback", U::MAP_READ | U::COPY_DST),
            period_ns: gpu.queue.get_timestamp_period() as f64,
        })
    }

    /// The writes around pass `k` of the window's step `step`, if that step is timed.
    pub fn writes(&self, step: u32, k: u32) -> Option<wgpu::ComputePassTimestampWrites<'_>> {
        (step < TIMED_STEPS).then(|| wgpu::ComputePassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: Some(2 * (step * PASSES + k)),
            end_of_pass_write_index: Some(2 * (step * PASSES + k) + 1),
        })
    }

    /// Mean GPU time per step (s) over the first `steps` steps of the window.
    pub fn per_step_s(&self, gpu: &crate::gpu::Gpu, steps: u32) -> f64 {
        self.per_pass_s(gpu, steps).busy.iter().sum()
    }

    /// Mean GPU time (s) of each pass of a step over the first `steps` timed steps, and
    /// the mean time before each pass (see `PassSums`).
    pub fn per_pass_s(&self, gpu: &crate::gpu::Gpu, steps: u32) -> PassTimes {
        self.per_pass_sums(gpu, steps).means()
    }

    /// The sums behind `per_pass_s`, for adding windows together.
    pub fn per_pass_sums(&self, gpu: &crate::gpu::Gpu, steps: u32) -> PassSums {
        let timed = steps.min(TIMED_STEPS);
        if timed == 0 {
            return PassSums::default();
        }
        let count = 2 * PASSES * timed;
        let mut e = gpu.device.create_command_encoder(&Default::default());
        e.resolve_query_set(&self.queries, 0..count, &self.resolve, 0);
        e.copy_buffer_to_buffer(&self.resolve, 0, &self.readback, 0, 8 * count as u64);
        gpu.queue.submit([e.finish()]);
        gpu.map_and_wait(&self.readback);
        let sums = {
            let view = self
                .readback
                .get_mapped_range(..)
                .expect("mapped timestamps");
            let stamps: &[u64] = bytemuck::cast_slice(&view);
            PassSums::of_stamps(&stamps[..count as usize], self.period_ns)
        };
        self.readback.unmap();
        sums
    }
}

/// Seconds per pass of a ranked step, as the GPU's timestamps measured them.
#[derive(Clone, Copy, Debug, Default)]
pub struct PassTimes {
    /// From each pass's start to its end.
    pub busy: [f64; PASSES as usize],
    /// From the end of the pass before to each pass's start: copies, and the GPU waiting
    /// for work.
    pub before: [f64; PASSES as usize],
}

/// Sums of `PassTimes` over timed steps. Every timed step has each pass and the gap before
/// passes 1.., but the gap before pass 0 (from the previous step's last pass) only from a
/// window's second step on, so it is counted apart.
#[derive(Clone, Copy, Debug, Default)]
pub struct PassSums {
    sums: PassTimes,
    steps: u64,
    first_gaps: u64,
}

impl PassSums {
    /// From the begin and end timestamps of every pass of consecutive steps, in ticks of
    /// `period_ns`.
    pub fn of_stamps(stamps: &[u64], period_ns: f64) -> PassSums {
        let passes = PASSES as usize;
        let s = |ticks: u64| ticks as f64 * period_ns * 1e-9;
        let mut out = PassSums {
            steps: (stamps.len() / (2 * passes)) as u64,
            ..Default::default()
        };
        out.first_gaps = out.steps.saturating_sub(1);
        for (i, t) in stamps.chunks_exact(2).enumerate() {
            out.sums.busy[i % passes] += s(t[1].saturating_sub(t[0]));
            if i > 0 {
                out.sums.before[i % passes] += s(t[0].saturating_sub(stamps[2 * i - 1]));
            }
        }
        out
    }

    pub fn add(&mut self, other: &PassSums) {
        for k in 0..PASSES as usize {
            self.sums.busy[k] += other.sums.busy[k];
            self.sums.before[k] += other.sums.before[k];
        }
        self.steps += other.steps;
        self.first_gaps += other.first_gaps;
    }

    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Means per step.
    pub fn means(&self) -> PassTimes {
        let per = |v: f64, n: u64| v / n.max(1) as f64;
        let mut m = PassTimes {
            busy: self.sums.busy.map(|v| per(v, self.steps)),
            before: self.sums.before.map(|v| per(v, self.steps)),
        };
        m.before[0] = per(self.sums.before[0], self.first_gaps);
        m
    }
}

impl Ranked<'_, '_> {
    /// GPU time of each pass of a step and before each pass (s; see `step`), the mean over
    /// `steps` more steps (at most TIMED_STEPS); None where the adapter has no
    /// timestamp queries.
    /// Every rank runs the steps, timed or not, since they exchange and reduce together.
    pub fn gpu_pass_seconds(&mut self, steps: u32) -> Result<Option<PassTimes>> {
        let steps = steps.clamp(1, TIMED_STEPS);
        let profile = self.pass_timing.take();
        self.pass_timing = PassClock::new(self.sim.gpu).map(|clock| PassTiming {
            clock,
            step: 0,
            totals: None,
        });
        let run = self.run_steps(steps as u64);
        let timing = std::mem::replace(&mut self.pass_timing, profile);
        run?;
        Ok(timing.map(|t| t.clock.per_pass_s(self.sim.gpu, steps)))
    }

    /// Times every pass of every step from now on (`run --profile`), where the adapter has
    /// timestamp queries (false where not). The balancer's own timestamps are then off: it
    /// weighs the ranks by the time their hosts waited for the GPU instead.
    pub fn enable_profiling(&mut self) -> bool {
        let Some(clock) = PassClock::new(self.sim.gpu) else {
            return false;
        };
        self.abandon_steps();
        self.pass_timing = Some(PassTiming {
            clock,
            step: 0,
            totals: Some(PassSums::default()),
        });
        if let Some(b) = self.balancer.as_mut() {
            b.clock = None;
        }
        true
    }

    /// The whole run's cell updates before a restart: every rank's counter starts there.
    pub(super) fn resumed_cell_updates(&self) -> u64 {
        self.model.resume.as_ref().map_or(0, |r| r.cell_updates)
    }

    /// This rank's own blocks' cell updates since the run (or restart) began, from its
    /// counter's value `counted`.
    pub(super) fn own_cell_updates(&self, counted: u64) -> u64 {
        counted.saturating_sub(self.resumed_cell_updates())
    }

    /// The mean GPU time of each pass and before it (s per step) over the profiled steps.
    pub fn pass_profile(&self) -> Option<(PassTimes, u64)> {
        let totals = self.pass_timing.as_ref()?.totals?;
        Some((totals.means(), totals.steps()))
    }

    /// Counts a step done; when profiling, a full window of timestamps is read and the
    /// next begins.
    pub(super) fn count_timed_step(&mut self) {
        let Some(t) = self.pass_timing.as_mut() else {
            return;
        };
        t.step += 1;
        if t.step == TIMED_STEPS && t.totals.is_some() {
            self.close_profile_window();
        }
    }

    /// Adds the steps timed so far to the profile's totals and starts a new window.
    pub(super) fn close_profile_window(&mut self) {
        let gpu = self.sim.gpu;
        let Some(t) = self.pass_timing.as_mut() else {
            return;
        };
        let Some(totals) = t.totals.as_mut() else {
            return;
        };
        if t.step == 0 {
            return;
        }
        totals.add(&t.clock.per_pass_sums(gpu, t.step));
        t.step = 0;
    }
}

#[cfg(test)]
mod pass_tests {
    use super::*;

    /// Steps of passes k = 0..PASSES lasting 10 + k ticks, each after a gap of 3 ticks.
    fn stamps(steps: usize, start: u64) -> Vec<u64> {
        let mut t = start;
        let mut out = Vec::new();
        for _ in 0..steps {
            for k in 0..PASSES as u64 {
                t += 3;
                out.push(t);
                t += 10 + k;
                out.push(t);
            }
        }
        out
    }

    #[test]
    fn pass_times_are_means_per_step_whatever_the_windows() {
        let ns = 1e-9;
        let mut total = PassSums::of_stamps(&stamps(1, 100), 1.0);
        for window in [3, 2, 1] {
            total.add(&PassSums::of_stamps(&stamps(window, 5000), 1.0));
        }
        assert_eq!(total.steps(), 7);
        let m = total.means();
        for k in 0..PASSES as usize {
            assert!((m.busy[k] - (10.0 + k as f64) * ns).abs() < 1e-15, "{m:?}");
            assert!((m.before[k] - 3.0 * ns).abs() < 1e-15, "{m:?}");
        }
        // A timestamp period other than 1 ns scales every figure.
        let m2 = PassSums::of_stamps(&stamps(2, 0), 2.5).means();
        assert!((m2.before[0] - 7.5 * ns).abs() < 1e-15, "{m2:?}");
    }
}
