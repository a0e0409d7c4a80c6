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
    BORDER_ARGS, INF_BITS,
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
    /// The next step's stage 1, recorded during this one (see `step`); dropped wherever
    /// the next step may differ (a rebalance, the end of a run of steps).
    next_stage1: Option<[wgpu::CommandBuffer; 2]>,
    /// The next step's stage 1, submitted with this step's end where that step is not
    /// timed: one submission boundary fewer per step (see `step`).
    started_stage1: Option<Submitted>,
    /// The status copy of the last step, whose end planned the next step from the lagged
    /// CFL limit before the ranks agreed on the new one (see `settle`).
    unsettled: Option<Submitted>,
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
    "stage1_border_and_pack",
    "stage1_internal",
    "stage2_unpack_border_and_pack",
    "stage2_internal",
    "unpack_dry_map_and_clock",
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
/// spinning one (weak scaling 77% against 87%, docs/benchmarks.md). Not on a CPU adapter,
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
            next_stage1: None,
            started_stage1: None,
            unsettled: None,
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
        self.unsettled = None;
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

    /// Pass `k` of the step `ahead` steps from now (0: this one), timed when the balancer
    /// measures that step on the GPU.
    fn pass(&self, k: u32, ahead: u32) -> wgpu::ComputePassDescriptor<'_> {
        assert!(
            k < pass_clock::PASSES,
            "a step's passes are counted in pass_clock::PASSES"
        );
        wgpu::ComputePassDescriptor {
            label: None,
            timestamp_writes: match &self.pass_timing {
                Some(t) => t.clock.writes(t.step + ahead, k),
                None => self.balancer.as_ref().and_then(|b| b.pass_writes(k, ahead)),
            },
        }
    }

    /// Reads the packed strips (and flags) of a finished submission, sends them, and puts
    /// what arrives where the unpack kernel reads it.
    fn swap(&self, submitted: &Submitted, with_flags: bool) -> Result<()> {
        if self.transfer.peers.is_empty() {
            return Ok(());
        }
        self.wait(submitted)?;
        let t = &self.transfer;
        let cells: Vec<u8> = read_mapped(&t.host_strips, 16 * total(&t.send_cells));
        let flags: Vec<u8> = if with_flags {
            read_mapped(&t.host_flags, 4 * total(&t.send_flags))
        } else {
            Vec::new()
        };
        let mut messages = Vec::with_capacity(t.peers.len());
        let (mut c, mut f) = (0, 0);
        for k in 0..t.peers.len() {
            let mut m = cells[c..c + 16 * t.send_cells[k]].to_vec();
            c += 16 * t.send_cells[k];
            if with_flags {
                m.extend_from_slice(&flags[f..f + 4 * t.send_flags[k]]);
                f += 4 * t.send_flags[k];
            }
            messages.push(m);
        }
        let start = Instant::now();
        let got = self.comm.exchange(&t.peers, &messages);
        self.add_wait(|w| w.exchange_s += start.elapsed().as_secs_f64());
        let mut recv_cells = Vec::with_capacity(16 * total(&t.recv_cells));
        let mut recv_flags = Vec::with_capacity(4 * total(&t.recv_flags));
        for (k, m) in got.iter().enumerate() {
            let n = 16 * t.recv_cells[k];
            let expected = n + if with_flags { 4 * t.recv_flags[k] } else { 0 };
            if m.len() != expected {
                return Err(Error::Gpu(format!(
                    "rank {}: expected {expected} bytes from rank {}, got {}",
                    self.comm.rank(),
                    t.peers[k],
                    m.len()
                )));
            }
            recv_cells.extend_from_slice(&m[..n]);
            recv_flags.extend_from_slice(&m[n..]);
        }
        let maps = if t.copies_strips {
            None
        } else {
            // None only where a step failed between this exchange's maps and the next.
            let pending = t.received_maps.borrow_mut().take();
            Some(pending.unwrap_or_else(|| map_received(t, self.sim.gpu.queue.submit([]))))
        };
        if let Some(maps) = &maps {
            self.wait(maps)?;
        }
        let received = [
            (&t.recv, &recv_cells, total(&t.recv_cells) > 0),
            (&t.recv_flag, &recv_flags, total(&t.recv_flags) > 0),
        ];
        for (buffer, bytes, mapped) in received {
            if maps.is_none() {
                if !bytes.is_empty() {
                    self.sim.gpu.queue.write_buffer(buffer, 0, bytes);
                }
            } else if mapped {
                // Unmapped even when nothing came (the flags after stage 1): the next
                // unpack pass binds it.
                if !bytes.is_empty() {
                    buffer
                        .get_mapped_range_mut(..bytes.len() as u64)
                        .map_err(|e| Error::Gpu(format!("writing the received strips: {e}")))?
                        .copy_from_slice(bytes);
                }
                buffer.unmap();
            }
        }
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
    /// A step's end plans the next dt from the limit agreed a step earlier (timestep.wgsl,
    /// `lagged_cfl_step`), so the next step's stage 1 follows on the GPU at once, and the
    /// ranks agree on the new limit while it runs (`settle`). Where the plan does not hold
    /// (the limit fell by more than the margin), the step is planned again and its stage 1
    /// runs again before stage 2 writes anything: one rank takes the same dt at once.
    ///
    /// Every command buffer is recorded while the GPU is busy with earlier work, the next
    /// step's stage 1 included, so that no recording sits between a host wait and the work
    /// it releases (the border blocks' passes take microseconds). On two H100s this alone
    /// was within the noise of sleeping waits (docs/benchmarks.md).
    fn step(&mut self) -> Result<Option<SimRecord>> {
        let mut a = match self.started_stage1.take() {
            Some(started) => started,
            None => {
                let [border1, internal1] = match self.next_stage1.take() {
                    Some(recorded) => recorded,
                    None => self.record_stage1(0),
                };
                self.submit_stage1(border1, internal1)
            }
        };
        let settled = self.settle()?;
        if let Some((record, replan)) = &settled {
            if record.bad_block != 0 {
                return Ok(settled.map(|(r, _)| r));
            }
            if *replan {
                a = self.run_stage1_again(a)?;
            }
        }
        let [border2, internal2] = self.record_stage2();
        self.swap(&a, false)?;
        let t = &self.transfer;
        let (sends_cells, sends_flags) = (total(&t.send_cells) > 0, total(&t.send_flags) > 0);
        let filled = [(&t.host_strips, sends_cells), (&t.host_flags, sends_flags)];
        let c = self.submit_reading([border2], &filled);
        self.received_read_by(c.index.clone());
        let dd = self.submit_reading([internal2], &[(&self.staging_sim, true)]);
        self.swap(&c, true)?;
        let tail = self.record_tail();
        let next_timed = self.pass(0, 1).timestamp_writes.is_some();
        let [border1, internal1] = self.record_stage1(1);
        if next_timed {
            // Timestamps are recorded for a step's window: the next step may need them
            // recorded again (`count_timed_step`), so it submits its stage 1 itself.
            let index = self.sim.gpu.queue.submit([tail]);
            self.received_read_by(index);
            self.next_stage1 = Some([border1, internal1]);
        } else {
            // The next step's border pass in the same submission as this step's end: the
            // GPU goes from one to the other without a submission boundary between them.
            let sends_cells = total(&self.transfer.send_cells) > 0;
            let a = self.submit_reading(
                [tail, border1],
                &[(&self.transfer.host_strips, sends_cells)],
            );
            self.received_read_by(a.index.clone());
            self.sim.gpu.queue.submit([internal1]);
            self.started_stage1 = Some(a);
        }
        self.unsettled = Some(dd);
        Ok(settled.map(|(r, _)| r))
    }

    /// Forgets the next step's stage 1, recorded or already running (a stage 1 writes only
    /// U* and its blocks' stage-1 discharge, which the next stage 1 writes again); its
    /// strips, if it packed any, are unmapped unread.
    fn drop_next_stage1(&mut self) {
        self.next_stage1 = None;
        if let Some(started) = self.started_stage1.take() {
            // A GPU that fails here fails the next submission too, with its error.
            let _ = self.discard_strips(&started);
        }
    }

    /// Submits a stage 1: the border blocks with their strips (returned, to be swapped),
    /// then the internal blocks.
    fn submit_stage1(
        &self,
        border: wgpu::CommandBuffer,
        internal: wgpu::CommandBuffer,
    ) -> Submitted {
        let sends_cells = total(&self.transfer.send_cells) > 0;
        let a = self.submit_reading([border], &[(&self.transfer.host_strips, sends_cells)]);
        self.sim.gpu.queue.submit([internal]);
        a
    }

    /// Waits for a stage 1's strips and unmaps them unread.
    fn discard_strips(&self, stage1: &Submitted) -> Result<()> {
        if !stage1.maps.is_empty() {
            self.wait(stage1)?;
            read_mapped(&self.transfer.host_strips, 0);
        }
        Ok(())
    }

    /// The step planned again from the agreed limits (`settle` wrote them) and its stage 1
    /// run again; the strips of the first run, `first`, are dropped unsent.
    fn run_stage1_again(&mut self, first: Submitted) -> Result<Submitted> {
        self.discard_strips(&first)?;
        self.submit_replan();
        let [border1, internal1] = self.record_stage1(0);
        Ok(self.submit_stage1(border1, internal1))
    }

    /// Agrees with the other ranks on the CFL limit the last step's end left, from its
    /// status copy; returns that record (with `bad_block` set where any rank went
    /// unstable) and whether the step planned from the lagged limit must be planned again,
    /// in which case the limits `replan_step` reads are written. None when no step is
    /// waiting.
    fn settle(&mut self) -> Result<Option<(SimRecord, bool)>> {
        let Some(status) = self.unsettled.take() else {
            return Ok(None);
        };
        self.wait(&status)?;
        let size = std::mem::size_of::<SimRecord>();
        let mut record: SimRecord = *bytemuck::from_bytes(&read_mapped(&self.staging_sim, size));
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

    /// Settles the last step (see `settle`) at the end of a run of steps, planning the
    /// next one again where needed, so the GPU holds the clock one rank would.
    fn settle_last_step(&mut self) -> Result<()> {
        let Some((record, replan)) = self.settle()? else {
            return Ok(());
        };
        self.check(&record)?;
        if replan {
            self.submit_replan();
        }
        Ok(())
    }

    /// Submits `commands` (one submission) and asks for the buffers they copy to (those
    /// marked true; a rank with no peers copies no strips) to be mapped once it is done.
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

    /// Stage 1 of the step `ahead` steps from now: the border blocks, their strips packed
    /// and copied for the host; then the internal blocks.
    fn record_stage1(&self, ahead: u32) -> [wgpu::CommandBuffer; 2] {
        let (s, k, t) = (&self.sim, &self.kernels, &self.transfer);
        let n_send = total(&t.send_cells);
        let mut e = self.encoder();
        {
            let mut pass = e.begin_compute_pass(&self.pass(0, ahead));
            pass.set_bind_group(0, &s.bind_group, &[]);
            pass.set_pipeline(&k.stage1_border);
            pass.dispatch_workgroups_indirect(&s.buffers.dispatch[0], BORDER_ARGS);
            if n_send > 0 {
                pass.set_bind_group(0, &t.state_group, &[]);
                pass.set_bind_group(2, &t.pack_group, &[]);
                pass.set_pipeline(&k.pack_stage1);
                pass.dispatch_workgroups(groups(n_send), 1, 1);
            }
        }
        if n_send > 0 && t.copies_strips {
            e.copy_buffer_to_buffer(&t.send, 0, &t.host_strips, 0, 16 * n_send as u64);
        }
        [e.finish(), self.record_internal(1, ahead).finish()]
    }

    /// Stage 2: the ghosts' U* unpacked, the border blocks, their strips and wet flags packed
    /// and copied for the host; then the internal blocks and the status record's copy.
    fn record_stage2(&self) -> [wgpu::CommandBuffer; 2] {
        let (s, k, t) = (&self.sim, &self.kernels, &self.transfer);
        let (n_send, n_recv) = (total(&t.send_cells), total(&t.recv_cells));
        let n_flags = total(&t.send_flags).max(total(&t.recv_flags));
        let mut e = self.encoder();
        {
            let mut pass = e.begin_compute_pass(&self.pass(2, 0));
            pass.set_bind_group(0, &t.state_group, &[]);
            pass.set_bind_group(2, &t.unpack_group, &[]);
            if n_recv > 0 {
                pass.set_pipeline(&k.unpack_stage1);
                pass.dispatch_workgroups(groups(n_recv), 1, 1);
            }
            pass.set_bind_group(0, &s.bind_group, &[]);
            pass.set_pipeline(&k.stage2_border);
            pass.dispatch_workgroups_indirect(&s.buffers.dispatch[0], BORDER_ARGS);
            if n_send.max(n_flags) > 0 {
                pass.set_bind_group(0, &t.state_group, &[]);
                pass.set_bind_group(2, &t.pack_group, &[]);
                pass.set_pipeline(&k.pack_stage2);
                pass.dispatch_workgroups(groups(n_send.max(n_flags)), 1, 1);
            }
        }
        if n_send > 0 && t.copies_strips {
            e.copy_buffer_to_buffer(&t.send, 0, &t.host_strips, 0, 16 * n_send as u64);
        }
        let n_send_flags = total(&t.send_flags);
        if n_send_flags > 0 && t.copies_strips {
            e.copy_buffer_to_buffer(&t.send_flag, 0, &t.host_flags, 0, 4 * n_send_flags as u64);
        }
        let mut internal = self.record_internal(2, 0);
        let size = std::mem::size_of::<SimRecord>() as u64;
        internal.copy_buffer_to_buffer(&s.buffers.sim, 0, &self.staging_sim, 0, size);
        [e.finish(), internal.finish()]
    }

    /// The internal blocks' stage (passes 1 and 3).
    fn record_internal(&self, stage: u32, ahead: u32) -> wgpu::CommandEncoder {
        let mut e = self.encoder();
        {
            let mut pass = e.begin_compute_pass(&self.pass(2 * stage - 1, ahead));
            pass.set_bind_group(0, &self.sim.bind_group, &[]);
            self.sim.dispatch_internal(&mut pass, stage);
        }
        e
    }

    /// The step's end, once dt is agreed: ghosts' new state and wet flags, dry-map, clock.
    fn record_tail(&self) -> wgpu::CommandBuffer {
        let (s, k, t) = (&self.sim, &self.kernels, &self.transfer);
        let n_recv = total(&t.recv_cells);
        let n_flags = total(&t.send_flags).max(total(&t.recv_flags));
        let mut e = self.encoder();
        {
            let mut pass = e.begin_compute_pass(&self.pass(4, 0));
            if n_recv.max(n_flags) > 0 {
                pass.set_bind_group(0, &t.state_group, &[]);
                pass.set_bind_group(2, &t.unpack_group, &[]);
                pass.set_pipeline(&k.unpack_stage2);
                pass.dispatch_workgroups(groups(n_recv.max(n_flags)), 1, 1);
            }
            pass.set_bind_group(0, &s.bind_group, &[]);
            pass.set_bind_group(1, &s.dispatch_groups[0], &[]);
            pass.set_pipeline(&s.kernels.scan_then_finalize);
            pass.dispatch_workgroups(s.scan_groups, 1, 1);
        }
        e.finish()
    }

    /// Steps until the clock sits exactly on `target` (every rank calls this together), or
    /// short of it when a signal asks the run to stop.
    pub fn advance_to(&mut self, target: f64, progress: &mut dyn FnMut(&Status)) -> Result<()> {
        if target <= self.status.t && self.status.at_target {
            return Ok(());
        }
        self.drop_next_stage1(); // an earlier call may have stopped on an error
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
                self.drop_next_stage1();
                self.settle_last_step()?;
                self.balance()?;
                self.sim.set_target(target);
            }
        }
        self.drop_next_stage1();
        self.settle_last_step()?;
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
        self.drop_next_stage1(); // an earlier call may have stopped on an error
        self.sim.set_target(f64::MAX / 4.0);
        for _ in 0..n {
            if let Some(r) = self.step()? {
                self.check(&r)?;
            }
            self.count_timed_step();
        }
        self.drop_next_stage1();
        self.settle_last_step()?;
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
        self.drop_next_stage1();
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
    /// next begins (the next step's stage 1 is recorded again, with the new window's).
    fn count_timed_step(&mut self) {
        let Some(t) = self.pass_timing.as_mut() else {
            return;
        };
        t.step += 1;
        if t.step == pass_clock::TIMED_STEPS && t.totals.is_some() {
            self.drop_next_stage1();
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
        let own = self.own_cell_updates(mine.resume.cell_updates);
        let cell_updates = self.resumed_cell_updates() + self.comm.sum_f64(own as f64) as u64;
        Some(Snapshot {
            state: state?,
            resume: Resume {
                block_volume: block_volume?,
                maxima: maxima.map_or(Some(Vec::new()), |m| m)?,
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
