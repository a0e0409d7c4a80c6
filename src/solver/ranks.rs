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

mod migrate;
mod pass_clock;
mod transfer;
use crate::partition::local::LocalGrid;
use crate::partition::Partition;
use crate::scenario::model::{Model, Resume};
pub use pass_clock::{PassSums, PassTimes};
use std::time::Instant;
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

    fn encoder(&self) -> wgpu::CommandEncoder {
        self.sim
            .gpu
            .device
            .create_command_encoder(&Default::default())
    }

    /// The first submission of a step (see `step`): the step before's end, when it is
    /// due (pass 0), then stage 1 of the internal blocks (pass 1).
    fn record_first_submission(&self, ends_step_before: bool) -> wgpu::CommandBuffer {
        self.record_first_submission_timed(ends_step_before, true)
    }

    /// `record_first_submission`, with its passes timed where the step is (`timed`) or not.
    fn record_first_submission_timed(
        &self,
        ends_step_before: bool,
        timed: bool,
    ) -> wgpu::CommandBuffer {
        let s = &self.sim;
        let descriptor = |k| {
            if timed {
                self.pass(k)
            } else {
                Default::default()
            }
        };
        let mut e = self.encoder();
        {
            let mut pass = e.begin_compute_pass(&descriptor(0));
            if ends_step_before {
                self.end_step_before(&mut pass);
            }
        }
        {
            let mut pass = e.begin_compute_pass(&descriptor(1));
            pass.set_bind_group(0, &s.bind_group, &[]);
            s.dispatch_internal(&mut pass, 1);
        }
        e.finish()
    }

    /// The end of the step before: the internal blocks' dry-map, the clock and the next
    /// dt (scan_then_finalize; the border blocks are scanned at the next step's start).
    fn end_step_before(&self, pass: &mut wgpu::ComputePass) {
        let s = &self.sim;
        pass.set_bind_group(0, &s.bind_group, &[]);
        pass.set_bind_group(1, &s.dispatch_groups[0], &[]);
        pass.set_pipeline(&s.kernels.scan_then_finalize);
        pass.dispatch_workgroups(s.scan_groups, 1, 1);
    }

    /// The second submission of a step (see `step`): the ghosts' U^n and wet flags
    /// unpacked, the border blocks' dry-map, stage 1 on the ghosts and the border
    /// blocks (pass 2); stage 2 on every own block and the new strips packed (pass 3);
    /// the strips and the status record copied for the host.
    fn record_second_submission(&self) -> wgpu::CommandBuffer {
        let (s, k, t) = (&self.sim, &self.kernels, &self.transfer);
        let n_recv = total(&t.recv_cells).max(total(&t.recv_flags));
        let mut e = self.encoder();
        {
            let mut pass = e.begin_compute_pass(&self.pass(2));
            if n_recv > 0 {
                pass.set_bind_group(0, &t.state_group, &[]);
                pass.set_bind_group(2, &t.unpack_group, &[]);
                pass.set_pipeline(&k.unpack);
                pass.dispatch_workgroups(groups(n_recv), 1, 1);
            }
            pass.set_bind_group(0, &s.bind_group, &[]);
            pass.set_bind_group(1, &s.dispatch_groups[0], &[]);
            if s.has_structures {
                // Both ends' U^n are here now (a culvert's blocks are border blocks).
                pass.set_pipeline(&s.kernels.structure_flows);
                pass.dispatch_workgroups(1, 1, 1);
            }
            pass.set_pipeline(&k.scan_border);
            pass.dispatch_workgroups(1, 1, 1);
            pass.set_pipeline(&k.stage1_ghosts_and_border);
            pass.dispatch_workgroups_indirect(&s.buffers.dispatch[0], GHOST_ARGS);
        }
        {
            let mut pass = e.begin_compute_pass(&self.pass(3));
            pass.set_bind_group(0, &s.bind_group, &[]);
            pass.set_pipeline(&k.stage2_border);
            pass.dispatch_workgroups_indirect(&s.buffers.dispatch[0], BORDER_ARGS);
            s.dispatch_internal(&mut pass, 2);
            self.pack_strips(&mut pass);
        }
        self.copy_strips(&mut e);
        let size = std::mem::size_of::<SimRecord>() as u64;
        e.copy_buffer_to_buffer(&s.buffers.sim, 0, &self.staging_sim, 0, size);
        e.finish()
    }

    /// The own blocks' U^n and wet flags that other ranks read, packed.
    fn pack_strips(&self, pass: &mut wgpu::ComputePass) {
        let t = &self.transfer;
        let n_send = total(&t.send_cells).max(total(&t.send_flags));
        if n_send > 0 {
            pass.set_bind_group(0, &t.state_group, &[]);
            pass.set_bind_group(2, &t.pack_group, &[]);
            pass.set_pipeline(&self.kernels.pack);
            pass.dispatch_workgroups(groups(n_send), 1, 1);
        }
    }

    /// Where the host cannot map the pack kernel's buffer: its copy for it.
    fn copy_strips(&self, e: &mut wgpu::CommandEncoder) {
        let t = &self.transfer;
        let bytes: usize = t.send_bytes().sum();
        if t.copies_strips && bytes > 0 {
            e.copy_buffer_to_buffer(&t.send, 0, &t.host_strips, 0, bytes as u64);
        }
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

    /// GPU time of each pass of a step and before each pass (s; see `step`), the mean over
    /// `steps` more steps (at most pass_clock::TIMED_STEPS); None where the adapter has no
    /// timestamp queries.
    /// Every rank runs the steps, timed or not, since they exchange and reduce together.
    pub fn gpu_pass_seconds(&mut self, steps: u32) -> Result<Option<PassTimes>> {
        let steps = steps.clamp(1, pass_clock::TIMED_STEPS);
        let profile = self.pass_timing.take();
        self.pass_timing = pass_clock::PassClock::new(self.sim.gpu).map(|clock| PassTiming {
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
        let Some(clock) = pass_clock::PassClock::new(self.sim.gpu) else {
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
    fn resumed_cell_updates(&self) -> u64 {
        self.model.resume.as_ref().map_or(0, |r| r.cell_updates)
    }

    /// This rank's own blocks' cell updates since the run (or restart) began, from its
    /// counter's value `counted`.
    fn own_cell_updates(&self, counted: u64) -> u64 {
        counted.saturating_sub(self.resumed_cell_updates())
    }

    /// The mean GPU time of each pass and before it (s per step) over the profiled steps.
    pub fn pass_profile(&self) -> Option<(PassTimes, u64)> {
        let totals = self.pass_timing.as_ref()?.totals?;
        Some((totals.means(), totals.steps()))
    }

    /// Counts a step done; when profiling, a full window of timestamps is read and the
    /// next begins.
    fn count_timed_step(&mut self) {
        let Some(t) = self.pass_timing.as_mut() else {
            return;
        };
        t.step += 1;
        if t.step == pass_clock::TIMED_STEPS && t.totals.is_some() {
            self.close_profile_window();
        }
    }

    /// Adds the steps timed so far to the profile's totals and starts a new window.
    fn close_profile_window(&mut self) {
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

    /// Own blocks' stored values, gathered into the global layout on rank 0.
    fn gather_stored<T: bytemuck::Pod + Default>(&self, buffer: &wgpu::Buffer) -> Option<Vec<T>> {
        let own = self.sim.split.own as usize * CELLS_PER_BLOCK;
        self.gather_blocks(self.sim.gpu.read_buffer(buffer, 0, own), CELLS_PER_BLOCK)
    }

    /// Every rank's per-block values (`per_block` of them for each own block), in global
    /// block order, on rank 0.
    fn gather_blocks<T: bytemuck::Pod + Default>(
        &self,
        mine: Vec<T>,
        per_block: usize,
    ) -> Option<Vec<T>> {
        let all = self.comm.gather(bytemuck::cast_slice(&mine).to_vec())?;
        let owned = self
            .owned
            .as_ref()
            .expect("rank 0 holds every rank's blocks");
        let mut stored = vec![T::default(); self.model.grid.nblocks() * per_block];
        for (r, (bytes, blocks)) in all.iter().zip(owned).enumerate() {
            let expected = blocks.len() * per_block * std::mem::size_of::<T>();
            if bytes.len() != expected {
                self.not_the_same_model(r, "its blocks' values", bytes.len(), expected);
            }
            let values: &[T] = bytemuck::cast_slice(bytes);
            for (l, &g) in blocks.iter().enumerate() {
                let g = g as usize;
                stored[g * per_block..(g + 1) * per_block]
                    .copy_from_slice(&values[l * per_block..(l + 1) * per_block]);
            }
        }
        Some(stored)
    }

    /// The whole run's snapshot, on rank 0; every rank must call this.
    pub fn read_snapshot(&self) -> Option<Snapshot> {
        let mine = self.sim.read_snapshot();
        let state = self.gather_blocks(mine.state, CELLS_PER_BLOCK);
        let block_volume = self.gather_blocks(mine.resume.block_volume, 1);
        let tracked = !mine.resume.maxima.is_empty();
        let maxima = tracked.then(|| self.gather_blocks(mine.resume.maxima, CELLS_PER_BLOCK));
        let losing = self.model.losses.any();
        let infiltrated =
            losing.then(|| self.gather_blocks(mine.resume.infiltrated, CELLS_PER_BLOCK));
        let loss_volume = losing.then(|| self.gather_blocks(mine.resume.loss_volume, 1));
        let own = self.own_cell_updates(mine.resume.cell_updates);
        let cell_updates = self.resumed_cell_updates() + self.comm.sum_f64(own as f64) as u64;
        // Every rank gathers, before any leaves on a value only rank 0 has.
        let structure_flows = Stepper::structure_flows(self);
        Some(Snapshot {
            state: state?,
            resume: Resume {
                block_volume: block_volume?,
                maxima: maxima.map_or(Some(Vec::new()), |m| m)?,
                infiltrated: infiltrated.map_or(Some(Vec::new()), |m| m)?,
                loss_volume: loss_volume.map_or(Some(Vec::new()), |m| m)?,
                structure_flows: structure_flows?,
                cell_updates,
                ..mine.resume
            },
        })
    }

    /// Finest-level fields on rank 0; every rank must call this.
    pub fn read_fields(&self) -> Option<Fields> {
        let stored: Vec<[f32; 4]> = self.gather_stored(&self.sim.buffers.state_a)?;
        Some(Fields::from_stored(&self.model.grid, &stored))
    }

    /// (h, hu, hv) at finest cells (i, j), on rank 0: each rank reads the ones it owns.
    pub fn read_cells(&self, grid: &BlockGrid, cells: &[(usize, usize)]) -> Option<Vec<[f32; 3]>> {
        // This rank's cells, each with its place in `cells`, read in one submission.
        let (places, stored): (Vec<u32>, Vec<usize>) = cells
            .iter()
            .enumerate()
            .filter_map(|(k, &(i, j))| {
                let g = grid.storage_index(i, j);
                let l = self.local_cell.get(&((g / CELLS_PER_BLOCK) as u32))?;
                Some((
                    k as u32,
                    *l as usize * CELLS_PER_BLOCK + g % CELLS_PER_BLOCK,
                ))
            })
            .unzip();
        let values = self.sim.read_stored_cells(&stored);
        let mine: Vec<u8> = places
            .iter()
            .zip(&values)
            .flat_map(|(k, v)| [&k.to_le_bytes()[..], bytemuck::cast_slice(&v[..])].concat())
            .collect();
        let all = self.comm.gather(mine)?;
        let mut out = vec![[0.0f32; 3]; cells.len()];
        for (r, bytes) in all.iter().enumerate() {
            if bytes.len() % 16 != 0 || bytes.len() > 16 * cells.len() {
                self.not_the_same_model(r, "cell values", bytes.len(), 16 * cells.len());
            }
            for chunk in bytes.chunks_exact(16) {
                let k = u32::from_le_bytes(chunk[..4].try_into().expect("4 bytes")) as usize;
                if k >= cells.len() {
                    self.not_the_same_model(r, "cell values", bytes.len(), 16 * cells.len());
                }
                out[k] = *bytemuck::from_bytes(&chunk[4..16]);
            }
        }
        Some(out)
    }

    /// Ends every rank when rank `r`'s share of a gather (`got` bytes of `what`) is not what
    /// this rank's model expects: the ranks do not run the same model. Ranks agree on their
    /// models at start-up (`comm::agree`), so this is the last line, not a panic.
    fn not_the_same_model(&self, r: usize, what: &str, got: usize, expected: usize) -> ! {
        use std::io::Write;
        let line = format!(
            "quadflood: rank {r} sent {got} bytes of {what} where rank {} expected {expected}: \
             the ranks do not run the same model; ending every rank\n",
            self.comm.rank()
        );
        let _ = std::io::stderr().write_all(line.as_bytes());
        self.comm.abort(1)
    }

    /// Volume lost to the ground, summed in global block order on rank 0 (the same bits
    /// on any number of ranks); 0 on other ranks.
    pub fn lost_volume(&self) -> f64 {
        let mine = self.sim.block_losses();
        if mine.is_empty() {
            return 0.0;
        }
        self.gather_blocks(mine, 1)
            .map_or(0.0, |all| super::loss_table::sum(&all))
    }

    /// Volumes in and out through the domain edge, summed in global block order on rank 0
    /// (so the sum has the same bits on any number of ranks); (0, 0) on other ranks.
    pub fn edge_volumes(&self) -> (f64, f64) {
        let own = self.sim.split.own as usize;
        let mine: Vec<[f32; 4]> = self
            .sim
            .gpu
            .read_buffer(&self.sim.buffers.block_volume, 0, own);
        match self.gather_blocks(mine, 1) {
            Some(all) => super::sum_volumes(&all),
            None => (0.0, 0.0),
        }
    }
}

impl Stepper for Ranked<'_, '_> {
    /// The last rank's own first cell, so that the tests see a fault on another rank than
    /// the one that reports.
    fn poison_for_test(&self) {
        if self.comm.rank() + 1 == self.comm.size() {
            self.sim.poison_for_test()
        }
    }
    fn advance_to(&mut self, target: f64, progress: &mut dyn FnMut(&Status)) -> Result<()> {
        Ranked::advance_to(self, target, progress)
    }
    fn status(&self) -> &Status {
        Ranked::status(self)
    }
    fn fields(&self) -> Option<Fields> {
        self.read_fields()
    }
    fn snapshot(&self) -> Option<Snapshot> {
        self.read_snapshot()
    }
    fn cells(&self, cells: &[(usize, usize)]) -> Option<Vec<[f32; 3]>> {
        self.read_cells(&self.model.grid, cells)
    }
    fn edge_volumes(&self) -> (f64, f64) {
        Ranked::edge_volumes(self)
    }
    fn lost_volume(&self) -> f64 {
        Ranked::lost_volume(self)
    }
    fn structure_flows(&self) -> Option<Vec<f32>> {
        let mine = self.sim.read_structure_flows();
        if mine.is_empty() {
            return (self.comm.rank() == 0).then(Vec::new);
        }
        let all = self.comm.gather(bytemuck::cast_slice(&mine).to_vec())?;
        Some(held_flows(&all, mine.len()))
    }
    fn host_us_per_step(&self) -> f64 {
        1e6 * (self.sim.host_record_s + self.sim.host_submit_s) / self.sim.host_steps.max(1) as f64
    }
    fn stop_requested(&self) -> bool {
        self.stop_agreed()
    }
    fn rebalancing(&self) -> Option<Vec<serde_json::Value>> {
        let b = self.balancer.as_ref()?;
        (self.comm.rank() == 0).then(|| b.log.clone())
    }
    fn all_sound(&self, sound: bool) -> bool {
        self.comm.min_u32(sound as u32) == 1
    }
    fn profile(&self) -> Option<super::profile::Profile> {
        let (t, steps) = self.pass_profile()?;
        let us = |v: [f64; pass_clock::PASSES as usize]| {
            PASS_NAMES.into_iter().zip(v.map(|s| 1e6 * s)).collect()
        };
        Some(super::profile::Profile {
            kernel_us: us(t.busy),
            idle_before_us: us(t.before),
            steps,
        })
    }
    fn rank_reports(&self) -> Option<Vec<serde_json::Value>> {
        let w = self.waits();
        let mut mine = vec![
            w.compute_s,
            w.exchange_s,
            w.reduce_s,
            self.sim.split.own as f64,
            self.sim.split.border as f64,
            self.own_cell_updates(self.status.cell_updates) as f64,
        ];
        if let Some((t, _)) = self.pass_profile() {
            mine.extend(t.busy.iter().chain(&t.before).map(|s| 1e6 * s));
        }
        let all = self.comm.gather(bytemuck::cast_slice(&mine).to_vec())?;
        for (r, b) in all.iter().enumerate() {
            if b.len() % 8 != 0 || b.len() < 6 * 8 {
                self.not_the_same_model(r, "its timings", b.len(), 6 * 8);
            }
        }
        Some(
            all.iter()
                .enumerate()
                .map(|(r, b)| {
                    let v: &[f64] = bytemuck::cast_slice(b);
                    let mut report = serde_json::json!({
                        "rank": r,
                        "blocks": v[3] as u64,
                        "border_blocks": v[4] as u64,
                        "gpu_wait_s": v[0],
                        "exchange_wait_s": v[1],
                        "dt_reduction_wait_s": v[2],
                        "cell_updates": v[5] as u64,
                    });
                    if v.len() == 6 + 2 * PASS_NAMES.len() {
                        let (busy, before) = v[6..].split_at(PASS_NAMES.len());
                        report["gpu_us_per_step"] = named(busy).into();
                        report["gpu_idle_before_us_per_step"] = named(before).into();
                    }
                    report
                })
                .collect(),
        )
    }
}

/// Figures per pass, by the passes' names.
pub fn named(per_pass: &[f64]) -> serde_json::Map<String, serde_json::Value> {
    PASS_NAMES
        .iter()
        .zip(per_pass)
        .map(|(&name, &v)| (name.to_string(), v.into()))
        .collect()
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

/// Each structure's discharge from every rank's (bytes of f32 each): every rank holding a
/// structure computes the same one, the others none, so the largest in size is it.
pub(crate) fn held_flows(all: &[Vec<u8>], count: usize) -> Vec<f32> {
    let mut flows = vec![0.0f32; count];
    for bytes in all {
        let theirs: Vec<f32> = bytemuck::pod_collect_to_vec(bytes);
        for (q, &t) in flows.iter_mut().zip(&theirs) {
            if t.abs() > q.abs() {
                *q = t;
            }
        }
    }
    flows
}
