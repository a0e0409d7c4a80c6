//! One rank of a run split over several GPUs (or over threads sharing one).
//!
//! Each step, per stage: the border blocks run first and their strips are packed and
//! copied to the host while the internal blocks run; the strips travel to the neighbour
//! ranks and are unpacked into the ghost blocks before the next stage's border blocks.
//! After stage 2 the ranks also agree on the smallest CFL limit, so every rank takes the
//! same dt. The result does not depend on the number of ranks: each block's update reads
//! exactly the values it reads on one rank.

use super::kernels::RankKernels;
use super::{
    lagged_plan_holds, Fields, SimRecord, Simulation, Snapshot, Split, Status, Stepper,
    BORDER_ARGS, GHOST_ARGS, INF_BITS,
};
use crate::comm::Comm;
use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::grid::{BlockGrid, CELLS_PER_BLOCK, NONE};

mod gather;
mod migrate;
mod pass_clock;
mod record;
mod stepper;
mod transfer;
use crate::partition::local::LocalGrid;
use crate::partition::Partition;
use crate::scenario::model::{Model, Resume};
pub use pass_clock::{PassSums, PassTimes};
use std::time::Instant;
pub use stepper::named;
use transfer::{map_received, transfer, Transfer};

/// Time one rank spent waiting, by cause (seconds).
#[derive(Clone, Copy, Debug, Default)]
pub struct Waits {
    /// Waiting for the GPU (compute, pack, copies).
    pub compute_s: f64,
    /// In the ghost exchange.
    pub exchange_s: f64,
    /// In the dt reduction.
    pub reduce_s: f64,
}

pub struct Ranked<'g, 'c> {
    sim: Simulation<'g>,
    comm: &'c dyn Comm,
    /// The whole run's model: every rank holds it, so a rebalance re-derives the static
    /// fields (terrain, friction, boundaries, sources, rain) of the blocks it receives.
    model: &'g Model,
    partition: Partition,
    kernels: RankKernels,
    transfer: Transfer,
    staging_sim: wgpu::Buffer,
    /// Every rank's own blocks (global ids, local order), on rank 0.
    owned: Option<Vec<Vec<u32>>>,
    /// Own blocks' cells by global storage index, for reading single cells.
    local_cell: std::collections::HashMap<u32, u32>,
    /// Global id of each local block.
    global_ids: Vec<u32>,
    waits: std::cell::Cell<Waits>,
    status: Status,
    balancer: Option<migrate::Balancer>,
    /// The last step's second submission (see `step`): its strips and status record, to be
    /// read by the next step.
    pending: Option<Exchanged>,
    /// Whether the last step's end (dry-map, clock) is still to be submitted: the next
    /// step's first submission does it.
    step_end_due: bool,
    /// The agreed CFL limit of the state the next step starts from, as `sim.cfl_limit`
    /// holds it on one rank (f32 bits; INF_BITS where no block set one).
    cfl_limit: u32,
    /// Timestamps around every pass of the steps `gpu_pass_seconds` times, or of every
    /// step when profiling.
    pass_timing: Option<PassTiming>,
    /// Wait for the GPU by asking again and again instead of sleeping until the driver
    /// wakes the thread: see `spins_while_waiting`.
    spin_waits: bool,
}

/// How long a rank spins for its GPU before it sleeps until the GPU is done: far longer
/// than any step, so only a stuck GPU gets there.
const SPIN_AT_MOST: std::time::Duration = std::time::Duration::from_secs(1);

/// The passes of a ranked step (see `Ranked::step`), as profiles and benchmarks name them.
pub const PASS_NAMES: [&str; pass_clock::PASSES as usize] = [
    "dry_map_and_clock",
    "stage1_internal",
    "unpack_and_stage1_border",
    "stage2_and_pack",
];

/// Timestamps around every pass of the steps of a window (at most pass_clock::TIMED_STEPS).
struct PassTiming {
    clock: pass_clock::PassClock,
    /// The window's step being recorded.
    step: u32,
    /// When profiling a run, window after window: the sums over the closed windows.
    totals: Option<PassSums>,
}

/// A submission and the maps of the buffers it fills.
struct Submitted {
    index: wgpu::SubmissionIndex,
    maps: Vec<crate::gpu::MapRequest>,
}

/// A submission that packed strips for the next exchange, and, at a step's end, copied the
/// status record for `settle`.
struct Exchanged {
    submitted: Submitted,
    /// The status record's copy is mapped and not read yet.
    status_unread: bool,
}

/// The dt limit an unstable rank offers in the global reduction.
const UNSTABLE_SOMEWHERE: u32 = 0;
/// `bad_block` on a rank told by the reduction that another rank went unstable.
const ON_ANOTHER_RANK: u32 = u32::MAX;
/// Steps between the ranks' agreements on whether a signal asked the run to stop: one more
/// reduction per this many steps, and a stop within as many steps of the signal.
const STOP_POLL_STEPS: u64 = 32;

fn total(v: &[usize]) -> usize {
    v.iter().sum()
}

fn groups(n: usize) -> u32 {
    (n as u32).div_ceil(256)
}

/// Whether a rank spins while it waits for its GPU. A rank waits three times a step, and on
/// two H100s (one rank per process) a sleeping wait cost 0.1-0.27 ms more per step than a
/// spinning one (weak scaling 77% against 87%, docs/benchmarks-history.md). Not on a CPU adapter,
/// whose kernels need the cores a spinning rank would take, and not for ranks on threads
/// of one process (`--split`), which would poll one device together, unmeasured.
/// QUADFLOOD_GPU_WAIT=spin|sleep overrides.
fn spins_while_waiting(gpu: &Gpu, comm: &dyn Comm) -> bool {
    match super::env_choice("QUADFLOOD_GPU_WAIT", &["spin", "sleep"]) {
        Some(choice) => choice == "spin",
        None => !gpu.is_cpu() && !comm.threads_of_one_process(),
    }
}

/// A rank's split. Unlike `Split::one_rank`, it never ends steps in stage 2: a rank's
/// steps end after the CFL minimum is agreed, and read and write dispatch arguments buffer 0.
fn split_of(local: &LocalGrid) -> Split {
    Split {
        plans_ahead: true,
        ..Split::new(&local.grid, local.own as u32, local.border as u32)
    }
}

/// Every rank's own blocks in its local order, for gathering on rank 0.
fn owned_lists(model: &Model, p: &Partition) -> Vec<Vec<u32>> {
    (0..p.ranks)
        .map(|r| LocalGrid::new(&model.grid, p, r).global[..p.blocks_of(r).len()].to_vec())
        .collect()
}

fn local_cells(local: &LocalGrid) -> std::collections::HashMap<u32, u32> {
    local.global[..local.own]
        .iter()
        .enumerate()
        .map(|(l, &g)| (g, l as u32))
        .collect()
}

impl<'g, 'c> Ranked<'g, 'c> {
    pub fn new(
        gpu: &'g Gpu,
        model: &'g Model,
        p: &Partition,
        comm: &'c dyn Comm,
    ) -> Result<Ranked<'g, 'c>> {
        let local = LocalGrid::new(&model.grid, p, comm.rank());
        let local_model = model.localize(&local.global, local.grid.clone());
        let sim = Simulation::with_split(gpu, &local_model, split_of(&local))?;
        let kernels = RankKernels::new(gpu, &sim.kernels);
        let transfer = transfer(gpu, &sim, &kernels, &local);
        let mut ranked = Ranked {
            sim,
            comm,
            model,
            partition: p.clone(),
            kernels,
            transfer,
            staging_sim: map_buffer(gpu, "rank status", std::mem::size_of::<SimRecord>()),
            owned: (comm.rank() == 0).then(|| owned_lists(model, p)),
            local_cell: local_cells(&local),
            global_ids: local.global.clone(),
            waits: Default::default(),
            status: Status::default(),
            balancer: model
                .balance
                .filter(|_| comm.size() > 1)
                .map(|s| migrate::Balancer::new(s, model, comm.size(), gpu)),
            pending: None,
            step_end_due: false,
            cfl_limit: INF_BITS,
            pass_timing: None,
            spin_waits: spins_while_waiting(gpu, comm),
        };
        ranked.initialise()?;
        ranked.status = ranked.sim.status().clone();
        Ok(ranked)
    }

    /// Wave speeds, dry-map and dt of a freshly placed simulation, agreed over the ranks.
    fn initialise(&mut self) -> Result<()> {
        let comm = self.comm;
        let global = &self.global_ids;
        self.sim
            .initialise_with(&mut |bits| comm.min_u32(bits))
            .map_err(|e| match e {
                Error::Unstable { t, block } => Error::Unstable {
                    t,
                    block: global[block as usize],
                },
                e => e,
            })?;
        self.cfl_limit = self.sim.record().cfl_limit;
        Ok(())
    }

    pub fn status(&self) -> &Status {
        &self.status
    }

    /// Draws the partition into `dir` (rank 0) at the start and after every rebalance.
    pub fn draw_partitions(&mut self, dir: &std::path::Path) -> Result<()> {
        match self.balancer.as_mut() {
            Some(b) if self.comm.rank() == 0 => {
                b.draw_partitions(dir, self.model, &self.partition, self.status.steps)
            }
            _ => Ok(()),
        }
    }

    /// Bytes of GPU memory this rank's simulation holds (exchange buffers aside).
    pub fn gpu_bytes(&self) -> u64 {
        self.sim.gpu_bytes()
    }

    /// Time spent waiting so far, by cause.
    pub fn waits(&self) -> Waits {
        self.waits.get()
    }

    fn add_wait(&self, f: impl FnOnce(&mut Waits)) {
        let mut w = self.waits.get();
        f(&mut w);
        self.waits.set(w);
    }

    /// Waits until a submission is done and the buffers it fills are mapped. A spinning
    /// wait polls without a submission index: wgpu's wait with a zero timeout asserts on a
    /// race when ranks on threads share one device.
    fn wait(&self, submitted: &Submitted) -> Result<()> {
        let start = Instant::now();
        let device = &self.sim.gpu.device;
        let mapped = || submitted.maps.iter().all(|m| m.is_done());
        let mut polled = Ok(wgpu::PollStatus::Poll);
        if self.spin_waits && !submitted.maps.is_empty() {
            while polled.is_ok() && !mapped() && start.elapsed() < SPIN_AT_MOST {
                std::hint::spin_loop();
                polled = device.poll(wgpu::PollType::Poll);
            }
        }
        if polled.is_ok() && !mapped() {
            polled = device.poll(wgpu::PollType::Wait {
                submission_index: Some(submitted.index.clone()),
                timeout: None,
            });
        }
        polled.map_err(|e| {
            Error::Gpu(format!(
                "rank {}: waiting for the GPU: {e}",
                self.comm.rank()
            ))
        })?;
        self.add_wait(|w| w.compute_s += start.elapsed().as_secs_f64());
        Ok(())
    }

    /// Pass `k` of the step being recorded, timed when the balancer measures that step on
    /// the GPU.
    fn pass(&self, k: u32) -> wgpu::ComputePassDescriptor<'_> {
        assert!(
            k < pass_clock::PASSES,
            "a step's passes are counted in pass_clock::PASSES"
        );
        wgpu::ComputePassDescriptor {
            label: None,
            timestamp_writes: match &self.pass_timing {
                Some(t) => t.clock.writes(t.step, k),
                None => self.balancer.as_ref().and_then(|b| b.pass_writes(k)),
            },
        }
    }

    /// Reads the messages a finished submission packed, sends them, and puts what arrives
    /// where the unpack kernel reads it: each message is one copy out of the mapped buffer
    /// and one copy into the other.
    fn swap(&self, submitted: &Submitted) -> Result<()> {
        if self.transfer.peers.is_empty() {
            return Ok(());
        }
        self.wait(submitted)?;
        let t = &self.transfer;
        let messages: Vec<Vec<u8>> = if t.sends() {
            let view = t
                .host_strips
                .get_mapped_range(..)
                .map_err(|e| Error::Gpu(format!("reading the packed strips: {e}")))?;
            let mut at = 0;
            let messages = t
                .send_bytes()
                .map(|n| {
                    at += n;
                    view[at - n..at].to_vec()
                })
                .collect();
            drop(view);
            t.host_strips.unmap();
            messages
        } else {
            vec![Vec::new(); t.peers.len()]
        };
        let start = Instant::now();
        let got = self.comm.exchange(&t.peers, &messages);
        self.add_wait(|w| w.exchange_s += start.elapsed().as_secs_f64());
        for ((m, expected), &peer) in got.iter().zip(t.recv_bytes()).zip(&t.peers) {
            if m.len() != expected {
                return Err(Error::Gpu(format!(
                    "rank {}: expected {expected} bytes from rank {peer}, got {}",
                    self.comm.rank(),
                    m.len()
                )));
            }
        }
        if !t.receives() {
            return Ok(());
        }
        if t.copies_strips {
            let mut at = 0;
            for m in &got {
                if !m.is_empty() {
                    self.sim.gpu.queue.write_buffer(&t.recv, at as u64, m);
                }
                at += m.len();
            }
            return Ok(());
        }
        // None only where a step failed between this exchange's map and the next.
        let pending = t.received_maps.borrow_mut().take();
        let maps = pending.unwrap_or_else(|| map_received(t, self.sim.gpu.queue.submit([])));
        self.wait(&maps)?;
        {
            let mut view = t
                .recv
                .get_mapped_range_mut(..)
                .map_err(|e| Error::Gpu(format!("writing the received strips: {e}")))?;
            let mut at = 0;
            for m in &got {
                view.slice(at..at + m.len()).copy_from_slice(m);
                at += m.len();
            }
        }
        t.recv.unmap();
        Ok(())
    }

    /// After submission `index`, which reads the receive buffers: where the host writes
    /// them directly, asks for them to be mapped again once the GPU is done with them.
    fn received_read_by(&self, index: wgpu::SubmissionIndex) {
        let t = &self.transfer;
        if !t.copies_strips {
            *t.received_maps.borrow_mut() = Some(map_received(t, index));
        }
    }

    /// One step on every rank. Returns the status record of the step before it (from
    /// before the clock moved: dt is that step's), once the ranks have agreed on the CFL
    /// limit its end left; None for the first step of a run of steps.
    ///
    /// A step is two submissions and one exchange. The first, submitted at once, ends the
    /// step before (dry-map of the internal blocks, clock, next dt planned from the limit
    /// agreed a step earlier: timestep.wgsl, `lagged_cfl_step`) and runs stage 1 of the
    /// internal blocks, while the host waits for the step before's strips, agrees on its
    /// CFL limit (`settle`) and exchanges the strips (`swap`). The second unpacks the
    /// ghosts' U^n and wet flags, scans the border blocks (`scan_border`), runs stage 1 on
    /// the rank's ghosts and on its border blocks (one dispatch), then stage 2 on every
    /// own block, and packs the new strips and copies the status record for the next
    /// step. Where the planned dt does not hold (the limit fell by more than the margin),
    /// the step is planned again and its internal stage 1 runs again before the second
    /// submission: one rank takes the same dt at once.
    ///
    /// The second submission is recorded while the GPU runs the first, so that no
    /// recording sits between a host wait and the work it releases.
    fn step(&mut self) -> Result<Option<SimRecord>> {
        let ends_step_before = std::mem::take(&mut self.step_end_due);
        self.sim
            .gpu
            .queue
            .submit([self.record_first_submission(ends_step_before)]);
        let mut exchanged = match self.pending.take() {
            Some(pending) => pending,
            None => self.pack_alone(),
        };
        let second = self.record_second_submission();
        let settled = match self.settle(&mut exchanged) {
            Ok(settled) => settled,
            Err(e) => {
                let _ = self.discard(exchanged);
                return Err(e);
            }
        };
        if let Some((record, replan)) = &settled {
            if record.bad_block != 0 {
                self.discard(exchanged)?;
                return Ok(settled.map(|(r, _)| r));
            }
            if *replan {
                self.submit_replan();
                // Untimed: the pass timestamps keep the first run, and the replan and the
                // run again count as the GPU's time before the next pass.
                let again = self.record_first_submission_timed(false, false);
                self.sim.gpu.queue.submit([again]);
            }
        }
        self.swap(&exchanged.submitted)?;
        let filled = [
            (&self.transfer.host_strips, self.transfer.sends()),
            (&self.staging_sim, true),
        ];
        let submitted = self.submit_reading([second], &filled);
        self.received_read_by(submitted.index.clone());
        self.pending = Some(Exchanged {
            submitted,
            status_unread: true,
        });
        self.step_end_due = true;
        Ok(settled.map(|(r, _)| r))
    }

    /// The strips of the state as it stands, packed for the first step of a run of steps
    /// (later steps pack theirs at the end of the step before).
    fn pack_alone(&self) -> Exchanged {
        let mut e = self.encoder();
        {
            let mut pass = e.begin_compute_pass(&Default::default());
            self.pack_strips(&mut pass);
        }
        self.copy_strips(&mut e);
        let filled = [(&self.transfer.host_strips, self.transfer.sends())];
        Exchanged {
            submitted: self.submit_reading([e.finish()], &filled),
            status_unread: false,
        }
    }

    /// Ends the run of steps: the last step's end submitted, its CFL limit agreed (and the
    /// next step planned again where needed), its strips dropped, so that the GPU holds
    /// the clock one rank would and the next run of steps starts afresh.
    fn finish_steps(&mut self) -> Result<()> {
        if std::mem::take(&mut self.step_end_due) {
            let mut e = self.encoder();
            {
                let mut pass = e.begin_compute_pass(&Default::default());
                self.end_step_before(&mut pass);
            }
            self.sim.gpu.queue.submit([e.finish()]);
        }
        let Some(mut exchanged) = self.pending.take() else {
            return Ok(());
        };
        let settled = self.settle(&mut exchanged);
        self.discard(exchanged)?;
        let Some((record, replan)) = settled? else {
            return Ok(());
        };
        self.check(&record)?;
        if replan {
            self.submit_replan();
        }
        Ok(())
    }

    /// Forgets a run of steps that stopped on an error: what its last submission filled
    /// is unmapped unread.
    fn abandon_steps(&mut self) {
        self.step_end_due = false;
        if let Some(exchanged) = self.pending.take() {
            // A GPU that fails here fails the next submission too, with its error.
            let _ = self.discard(exchanged);
        }
    }

    /// Waits for a submission and unmaps what it filled and nobody read: its strips, and
    /// its status copy where `settle` did not read it.
    fn discard(&self, exchanged: Exchanged) -> Result<()> {
        if exchanged.submitted.maps.is_empty() {
            return Ok(());
        }
        self.wait(&exchanged.submitted)?;
        if self.transfer.sends() {
            read_mapped(&self.transfer.host_strips, 0);
        }
        if exchanged.status_unread {
            read_mapped(&self.staging_sim, 0);
        }
        Ok(())
    }

    /// Agrees with the other ranks on the CFL limit the last step's end left, from the
    /// status copy of `exchanged`; returns that record (with `bad_block` set where any rank
    /// went unstable) and whether the step planned from the lagged limit must be planned
    /// again, in which case the limits `replan_step` reads are written. None when
    /// `exchanged` carries no status (the first step of a run of steps).
    fn settle(&mut self, exchanged: &mut Exchanged) -> Result<Option<(SimRecord, bool)>> {
        self.wait(&exchanged.submitted)?;
        if !exchanged.status_unread {
            return Ok(None);
        }
        let size = std::mem::size_of::<SimRecord>();
        let mut record: SimRecord = *bytemuck::from_bytes(&read_mapped(&self.staging_sim, size));
        exchanged.status_unread = false;
        let start = Instant::now();
        // An unstable rank offers 0 (no real step limit is that short): every rank learns
        // of it from the reduction it makes anyway, and all stop together.
        let offer = if record.bad_block != 0 {
            UNSTABLE_SOMEWHERE
        } else {
            record.dt_min_bits
        };
        let global = self.comm.min_u32(offer);
        self.add_wait(|w| w.reduce_s += start.elapsed().as_secs_f64());
        if global == UNSTABLE_SOMEWHERE {
            if record.bad_block == 0 {
                record.bad_block = ON_ANOTHER_RANK;
            }
            return Ok(Some((record, false)));
        }
        // An idle step's end plans nothing from the limits (every rank idles together).
        if record.dt == 0.0 {
            return Ok(Some((record, false)));
        }
        let before = self.cfl_limit;
        let replan = !lagged_plan_holds(before, global);
        self.cfl_limit = global;
        if replan {
            self.sim.set_cfl_limit(before);
            self.sim.set_dt_min(global);
        } else {
            self.sim.set_cfl_limit(global);
        }
        Ok(Some((record, replan)))
    }

    /// The step about to be taken planned again (timestep.wgsl, `replan_step`).
    fn submit_replan(&self) {
        let s = &self.sim;
        let mut e = self.encoder();
        {
            let mut pass = e.begin_compute_pass(&Default::default());
            pass.set_bind_group(0, &s.bind_group, &[]);
            pass.set_bind_group(1, &s.dispatch_groups[0], &[]);
            pass.set_pipeline(&s.kernels.replan_step);
            pass.dispatch_workgroups(1, 1, 1);
        }
        s.gpu.queue.submit([e.finish()]);
    }

    /// Submits `commands` (one submission) and asks for the buffers they fill (those
    /// marked true; a rank with no peers packs no strips) to be mapped once it is done.
    fn submit_reading<const N: usize>(
        &self,
        commands: [wgpu::CommandBuffer; N],
        filled: &[(&wgpu::Buffer, bool)],
    ) -> Submitted {
        let index = self.sim.gpu.queue.submit(commands);
        let maps = filled
            .iter()
            .filter(|(_, copied)| *copied)
            .map(|(buffer, _)| crate::gpu::request_read(buffer))
            .collect();
        Submitted { index, maps }
    }

    /// Steps until the clock sits exactly on `target` (every rank calls this together), or
    /// short of it when a signal asks the run to stop.
    pub fn advance_to(&mut self, target: f64, progress: &mut dyn FnMut(&Status)) -> Result<()> {
        if target <= self.status.t && self.status.at_target {
            return Ok(());
        }
        self.abandon_steps(); // an earlier call may have stopped on an error
        self.sim.set_target(target);
        let mut stopped = false;
        loop {
            let started = Instant::now();
            // The record is of the step before the one just submitted: when that one
            // reached the target, the step after it idles.
            let Some(r) = self.step()? else {
                continue;
            };
            let step_s = started.elapsed().as_secs_f64();
            self.check(&r)?;
            self.status.t = r.t_hi as f64 + r.t_lo as f64 + r.dt as f64;
            self.status.steps = (((r.step_hi as u64) << 32) | r.step_lo as u64) + 1;
            progress(&self.status);
            self.count_timed_step();
            if r.clamped == 1 || r.dt == 0.0 {
                break;
            }
            // Every rank has taken the same steps, so all ask at the same one.
            if self.status.steps.is_multiple_of(STOP_POLL_STEPS) && self.stop_agreed() {
                stopped = true;
                break;
            }
            if self.balance_due(&r, step_s) {
                self.finish_steps()?;
                self.balance()?;
                self.sim.set_target(target);
            }
        }
        self.finish_steps()?;
        self.close_profile_window();
        self.sim.refresh_status()?;
        self.status = self.sim.status().clone();
        if !stopped {
            self.status.t = target;
        }
        Ok(())
    }

    /// Turns a settled record of an unstable or diverged step into the run's error.
    fn check(&self, r: &SimRecord) -> Result<()> {
        if r.bad_block != 0 {
            return Err(Error::Unstable {
                t: r.t_hi as f64 + r.t_lo as f64,
                block: match r.bad_block {
                    ON_ANOTHER_RANK => NONE,
                    b => self.global_ids[b as usize - 1],
                },
            });
        }
        if !r.dt.is_finite() || r.dt < 0.0 {
            return Err(Error::Gpu(format!(
                "rank {}: the solution diverged near t = {} s",
                self.comm.rank(),
                r.t_hi
            )));
        }
        Ok(())
    }

    /// Whether a signal asked any rank to stop (every rank calls this together).
    fn stop_agreed(&self) -> bool {
        let asked = crate::interrupt::requested().is_some();
        self.comm.min_u32(u32::from(!asked)) == 0
    }

    /// Exactly `n` steps, with no target in sight (benchmarks).
    pub fn run_steps(&mut self, n: u64) -> Result<()> {
        self.abandon_steps(); // an earlier call may have stopped on an error
        self.sim.set_target(f64::MAX / 4.0);
        for _ in 0..n {
            if let Some(r) = self.step()? {
                self.check(&r)?;
            }
            self.count_timed_step();
        }
        self.finish_steps()?;
        self.close_profile_window();
        self.sim.refresh_status()?;
        self.status = self.sim.status().clone();
        Ok(())
    }
}

fn map_buffer(gpu: &Gpu, label: &str, bytes: usize) -> wgpu::Buffer {
    gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: bytes.max(16) as u64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

fn read_mapped(buffer: &wgpu::Buffer, bytes: usize) -> Vec<u8> {
    let out = buffer.get_mapped_range(..).expect("a mapped buffer")[..bytes].to_vec();
    buffer.unmap();
    out
}
