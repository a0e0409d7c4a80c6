//! The time loop on one GPU.
//!
//! Each step is three dispatches in one compute pass: `stage1`, `stage2` (indirect, over the
//! active blocks) and `scan_then_finalize` (the dry-map, then, in its last workgroup, the
//! clock, next dt and dispatch arguments); the stages run as one dispatch per class of
//! internal block that has blocks (`stage1`, `stage2` for regular ones, `stage1_levels`,
//! `stage2_levels` for those at a level change; see `Split`). Many steps go into
//! one submission; dt never leaves the GPU. The host only reads a small status record
//! after each submission, through a ring of two mappable buffers, so the GPU works on the
//! next batch while the host looks at the last one.
//!
//! The rooms: this file holds the time loop (`Simulation`: submit, wait, plan the batch);
//! `buffers` builds the tables the GPU starts from and uploads them; `kernels` the
//! pipelines; `split` the block classes and active lists; `readback` what the host reads
//! back; `stepper` the interface a run drives, which `ranks` implements for many GPUs.

mod buffers;
mod encode;
pub(crate) mod forcing;
pub mod kernels;
mod loss_table;
pub mod profile;
pub mod ranks;
mod readback;
use readback::sum_volumes;
mod split;
mod stepper;
mod structure_table;

use buffers::*;
pub(crate) use encode::grid_2d;
use encode::{step_kernels, StepKernel};
use split::active_lists;
pub use split::Split;
pub use stepper::Stepper;

use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::grid::{CELLS_PER_BLOCK, NONE};
use crate::scenario::maxima::{Peak, Spells};
use crate::scenario::model::{BcDef, BcKind, Model, Resume};
use bytemuck::{Pod, Zeroable};
use kernels::{binding, Kernels};
use std::collections::VecDeque;
use std::time::Instant;

/// Minimal memory traffic of one cell update (one full Heun step), in bytes: each of the two
/// stages must read h, hu, hv and z (16 B) and write h, hu, hv (12 B). Halo re-reads, the
/// stage-2 read of U^n, friction and the running maximum come on top, so a kernel at this
/// figure would be at the scheme's floor.
pub const MIN_BYTES_PER_CELL_UPDATE: u64 = 2 * (16 + 12);

const MAX_GROUPS_X: u32 = 65535;
const FLAG_SKIP_DRY: u32 = 1;
const FLAG_TRACK_MAX: u32 = 2;
const FLAG_END_IN_STAGE2: u32 = 8;
const FLAG_CLASSES_IN_ORDER: u32 = 16;
const FLAG_PLAN_AHEAD: u32 = 32;
const FLAG_GREEN_AMPT: u32 = 128;
const INF_BITS: u32 = 0x7f80_0000;
/// `sim.dt` of a restart's initial scan (timestep.wgsl).
const RESUMED_SCAN: f32 = -2.0;
/// The share of the last state's CFL limit a step takes (timestep.wgsl, `lagged_cfl_step`):
/// the price of ranks that plan a step before they agree on the limit it must keep (at
/// most 1% more steps), and what lets a limit that falls by less than 1% a step pass
/// without a replan. Measured on dam breaks (docs/benchmarks-history.md): 0.99 planned 2-3% of a
/// coarse grid's steps again and 0.2% of a fine one's; 0.98 cost 1.8% more steps for few
/// fewer replans, 0.995 three times the replans.
pub const CFL_MARGIN: f32 = 0.99;

/// Whether a dt planned from the lagged CFL limit `before` is the one `lagged_cfl_step`
/// (timestep.wgsl) takes once the new limit `next` is known: the same comparison in the
/// same f32 arithmetic (f32 bits; INF_BITS where no block set a limit).
pub(crate) fn lagged_plan_holds(before: u32, next: u32) -> bool {
    if before == INF_BITS {
        return next == INF_BITS;
    }
    let lagged = CFL_MARGIN * f32::from_bits(before);
    next == INF_BITS || lagged <= f32::from_bits(next)
}
const FRICTION_PER_CELL: u32 = 0x8000_0000;
/// Byte offsets in the dispatch buffer of the stage kernels' workgroup counts, on regular
/// internal blocks, border blocks and internal blocks with a level change (see `dispatch`
/// in `shaders/common.wgsl`).
const REGULAR_ARGS: u64 = 0;
pub(crate) const BORDER_ARGS: u64 = 12;
/// Where a rank's stage 1 on its ghosts and border blocks finds its dispatch arguments.
pub(crate) const GHOST_ARGS: u64 = 36;
pub(crate) const LEVELS_ARGS: u64 = 24;
/// Threads of the dry-map and finalize kernels (`FINALIZE_THREADS` in `shaders/timestep.wgsl`).
const SCAN_THREADS: u32 = 64;
/// In a source entry's cell: the cell holds the series' water level (a stage or outfall
/// line) rather than taking its discharge.
const LEVEL_ENTRY: u32 = 0x100;
/// Marks a normal-depth line's entry among the level lines' (`shaders/flux.wgsl`).
const NORMAL_DEPTH_LINE: u32 = 0x10;
const RATING_LINE: u32 = 0x20;
/// In a block's rain code: its cells' series are listed one by one (see `block_rain`).
const RAIN_PER_CELL: u32 = 0x8000_0000;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
struct Params {
    nx: u32,
    ny: u32,
    nblocks: u32,
    flags: u32,
    g: f32,
    cfl: f32,
    dx: f32,
    dt_max: f32,
    dry_depth: f32,
    n_series: u32,
    rain_first: u32,
    edge_w: u32,
    edge_e: u32,
    edge_s: u32,
    edge_n: u32,
    /// 1.0, read at run time so the compiler cannot fold the double-f32 arithmetic.
    one: f32,
    own_blocks: u32,
    border_blocks: u32,
    arrival_depth: f32,
    rain_count: u32,
    regular_blocks: u32,
    /// The maxima's time codes: (t - peak_origin) * peak_rate (see scenario::maxima).
    peak_origin: f32,
    peak_rate: f32,
    /// The share of the last state's CFL limit a step may take (see `CFL_MARGIN`).
    cfl_margin: f32,
    structure_count: u32,
    /// Depth from which a cell counts as flooded, for the inundation duration.
    duration_depth: f32,
    /// The UK hazard rating's debris factors (io::hazard::LandUse::debris_factors).
    debris_mid: f32,
    debris_high: f32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
struct Control {
    target_hi: f32,
    target_lo: f32,
    pad: [u32; 2],
}

/// Mirror of `Sim` in `shaders/common.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
struct SimRecord {
    t_hi: f32,
    t_lo: f32,
    dt: f32,
    clamped: u32,
    step_lo: u32,
    step_hi: u32,
    upd_lo: u32,
    upd_hi: u32,
    rain_hi: f32,
    rain_lo: f32,
    dispatched: u32,
    all_active: u32,
    dt_min_bits: u32,
    scan_count: u32,
    list_count: u32,
    dt_cfl: f32,
    done: u32,
    dispatched_border: u32,
    scan_count_border: u32,
    list_count_border: u32,
    bad_block: u32,
    scanned_groups: u32,
    dispatched_levels: u32,
    scan_count_levels: u32,
    list_count_levels: u32,
    list_parity: u32,
    launch_mark: u32,
    /// f32 bits of the CFL limit (min dx / speed) of the state the next step starts from;
    /// INF_BITS where none is known.
    cfl_limit: u32,
    /// Steps whose dt came from their own state's limit, not from the lagged one.
    cfl_replans: u32,
}

/// Splits an f64 into the double-f32 pair the GPU clock uses.
pub fn split_f64(t: f64) -> (f32, f32) {
    let hi = t as f32;
    (hi, (t - hi as f64) as f32)
}

/// Where the run stands, as last read from the GPU.
#[derive(Clone, Debug, Default)]
pub struct Status {
    pub t: f64,
    /// The step the GPU will take next (0 when it sits on its target).
    pub dt: f64,
    pub steps: u64,
    pub cell_updates: u64,
    /// Rain depth fallen so far (m).
    pub rain_depth: f64,
    /// Blocks the next step launches.
    pub active_blocks: u32,
    /// The next step launches every block, through the fixed lists: with rain, with
    /// skipping off, or when the dry-map launched every own block (each wet, beside a wet
    /// one, or always active).
    pub all_launched: bool,
    pub at_target: bool,
    /// Steps whose dt came from their own state's CFL limit, which fell by more than the
    /// margin, rather than from the lagged one: those a run on several ranks planned again.
    pub steps_planned_again: u64,
}

impl SimRecord {
    fn clock(&self) -> (f32, f32) {
        (self.t_hi, self.t_lo)
    }

    /// Blocks the step about to be taken launches, in every class.
    pub(crate) fn active_blocks(&self) -> u32 {
        self.dispatched + self.dispatched_border + self.dispatched_levels
    }
}

impl Status {
    fn from_record(r: &SimRecord) -> Status {
        Status {
            t: r.t_hi as f64 + r.t_lo as f64,
            dt: r.dt as f64,
            steps: ((r.step_hi as u64) << 32) | r.step_lo as u64,
            cell_updates: ((r.upd_hi as u64) << 32) | r.upd_lo as u64,
            rain_depth: r.rain_hi as f64 + r.rain_lo as f64,
            active_blocks: r.active_blocks(),
            all_launched: r.all_active == 1,
            at_target: r.done == 1,
            steps_planned_again: r.cfl_replans as u64,
        }
    }
}

/// Everything a checkpoint holds: the state (h, hu, hv, bed) in storage layout, and the
/// clock, counters and maxima a restart needs.
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub state: Vec<[f32; 4]>,
    pub resume: Resume,
}

/// Depth and unit discharge (hu, hv) of every domain cell, row-major from the south edge:
/// the momentum each cell holds (`read_fields`), or the discharge its faces pass, as a run
/// reports it (`read_reported_fields`).
pub struct Fields {
    pub depth: Vec<f32>,
    pub hu: Vec<f32>,
    pub hv: Vec<f32>,
}

impl Fields {
    /// The fields of a state in storage layout (as `reported_state` gives it, for the
    /// discharge a run reports).
    pub fn from_stored(grid: &crate::grid::BlockGrid, stored: &[[f32; 4]]) -> Fields {
        Fields {
            depth: grid.from_storage_map(stored, |s| s[0]),
            hu: grid.from_storage_map(stored, |s| s[1]),
            hv: grid.from_storage_map(stored, |s| s[2]),
        }
    }
}

struct Buffers {
    control: wgpu::Buffer,
    sim: wgpu::Buffer,
    state_a: wgpu::Buffer,
    /// U* within a step; between steps, the discharge a run reports (`report_discharge`).
    state_b: wgpu::Buffer,
    /// Indirect dispatch arguments. A run whose steps end in stage 2 alternates: each step
    /// reads one and writes the other (a dispatch may not read its own arguments).
    dispatch: [wgpu::Buffer; 2],
    block_volume: wgpu::Buffer,
    maxima: wgpu::Buffer,
    losses: wgpu::Buffer,
    /// Every buffer of the bind group, in binding order.
    all: Vec<wgpu::Buffer>,
}

pub struct Simulation<'g> {
    gpu: &'g Gpu,
    kernels: Kernels,
    bind_group: wgpu::BindGroup,
    /// Group 1 of the kernels that write dispatch arguments, one per `dispatch` buffer.
    dispatch_groups: [wgpu::BindGroup; 2],
    /// The `dispatch` buffer the next step reads (always 0 unless steps end in stage 2).
    parity: std::cell::Cell<usize>,
    buffers: Buffers,
    ring: [wgpu::Buffer; 2],
    next_slot: usize,
    grid: crate::grid::BlockGrid,
    nblocks: u32,
    split: Split,
    scan_groups: u32,
    /// Some cells lose water to the ground (`[losses]`).
    has_losses: bool,
    has_structures: bool,
    /// Turns the maxima's running inundation durations into durations.
    spells: Spells,
    /// Where the structures' discharges sit in `forcing` (first slot) and how many.
    structure_slots: (usize, usize),
    /// The dispatches of each step, in order.
    steps: Vec<StepKernel>,
    /// Continuing from a checkpoint.
    resumed: bool,
    status: Status,
    target: Option<f64>,
    steps_per_batch: u32,
    /// Host time spent recording steps into command buffers, in queue.submit, and the
    /// steps they covered. (A software adapter may run the work inside submit.)
    pub host_record_s: f64,
    pub host_submit_s: f64,
    pub host_steps: u64,
    /// GPU timestamps per kernel (`--profile`).
    profiler: Option<profile::Profiler>,
}

impl<'g> Simulation<'g> {
    /// A simulation of every block of the model on one GPU.
    pub fn new(gpu: &'g Gpu, model: &Model) -> Result<Simulation<'g>> {
        let mut sim = Self::with_split(gpu, model, Split::one_rank(&model.grid))?;
        sim.initialise()?;
        Ok(sim)
    }

    /// A simulation of one rank's blocks (the model holds its own blocks and ghosts), not
    /// yet initialised: the first dt needs every rank (see `ranks`).
    pub(crate) fn with_split(gpu: &'g Gpu, model: &Model, split: Split) -> Result<Simulation<'g>> {
        Self::with_kernels(
            gpu,
            model,
            split,
            Kernels::new(gpu, kernels::KernelOptions::of(model)),
        )
    }

    /// As `with_split`, reusing pipelines already built (a rank rebuilt after a rebalance).
    pub(crate) fn with_kernels(
        gpu: &'g Gpu,
        model: &Model,
        split: Split,
        kernels: Kernels,
    ) -> Result<Simulation<'g>> {
        check_size(gpu, model)?;
        let nblocks = model.grid.nblocks() as u32;
        let scan_groups = split.own.div_ceil(SCAN_THREADS);
        let (buffers, entries_buffers) = upload(gpu, model, split);
        let entries: Vec<wgpu::BindGroupEntry> = entries_buffers
            .iter()
            .enumerate()
            .map(|(b, buf)| wgpu::BindGroupEntry {
                binding: b as u32,
                resource: buf.as_entire_binding(),
            })
            .collect();
        let bind_group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("solver"),
            layout: &kernels.layout,
            entries: &entries,
        });
        let dispatch_groups = buffers.dispatch.each_ref().map(|args| {
            gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("dispatch"),
                layout: &kernels.dispatch_layout,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: args.as_entire_binding(),
                }],
            })
        });
        let ring_buffer = || {
            gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("status"),
                size: std::mem::size_of::<SimRecord>() as u64,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        };
        let steps = step_kernels(
            gpu,
            &kernels,
            split,
            scan_groups,
            !model.structures.is_empty(),
        );
        let sim = Simulation {
            gpu,
            steps,
            kernels,
            bind_group,
            dispatch_groups,
            parity: Default::default(),
            buffers: Buffers {
                all: entries_buffers,
                ..buffers
            },
            ring: [ring_buffer(), ring_buffer()],
            profiler: None,
            next_slot: 0,
            grid: model.grid.clone(),
            nblocks,
            split,
            scan_groups,
            has_losses: model.losses.any(),
            has_structures: !model.structures.is_empty(),
            spells: spells(model),
            structure_slots: (model.series.len(), model.structures.len()),
            resumed: model.resume.is_some(),
            status: Status {
                t: model.t_start,
                ..Default::default()
            },
            target: None,
            steps_per_batch: 4,
            host_record_s: 0.0,
            host_submit_s: 0.0,
            host_steps: 0,
        };
        Ok(sim)
    }

    pub fn status(&self) -> &Status {
        &self.status
    }

    pub fn grid(&self) -> &crate::grid::BlockGrid {
        &self.grid
    }

    /// Initial wave speeds, wet flags, active list and first dt, all on the GPU.
    fn initialise(&mut self) -> Result<()> {
        self.initialise_with(&mut |bits| bits)
    }

    /// Initial wave speeds and dry-map, then the first dt from the CFL minimum, which
    /// `reduce` turns into the minimum over every rank.
    pub(crate) fn initialise_with(&mut self, reduce: &mut dyn FnMut(u32) -> u32) -> Result<()> {
        let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_bind_group(0, &self.bind_group, &[]);
            if self.has_structures {
                // The first step's dt respects the structures' discharges too.
                pass.set_pipeline(&self.kernels.structure_flows);
                pass.dispatch_workgroups(1, 1, 1);
            }
            pass.set_pipeline(&self.kernels.init_speeds);
            let (x, y) = grid_2d(self.split.own);
            pass.dispatch_workgroups(x, y, 1);
            pass.set_pipeline(&self.kernels.scan_blocks);
            pass.dispatch_workgroups(self.scan_groups, 1, 1);
        }
        self.gpu.queue.submit([encoder.finish()]);
        let local: Vec<SimRecord> = self.gpu.read_buffer(&self.buffers.sim, 0, 1);
        // A restart keeps the checkpoint's CFL step: no new minimum.
        let bits = if self.resumed {
            INF_BITS
        } else {
            local[0].dt_min_bits
        };
        self.set_dt_min(reduce(bits));
        self.finalize_only();
        self.refresh_status()
    }

    /// Overwrites the GPU's CFL minimum (f32 bits of min dx / speed), before the step ends.
    pub(crate) fn set_dt_min(&self, bits: u32) {
        let offset = std::mem::offset_of!(SimRecord, dt_min_bits) as u64;
        self.gpu
            .queue
            .write_buffer(&self.buffers.sim, offset, &bits.to_le_bytes());
    }

    /// Overwrites the CFL limit the next step's end lags from (`sim.cfl_limit`).
    pub(crate) fn set_cfl_limit(&self, bits: u32) {
        let offset = std::mem::offset_of!(SimRecord, cfl_limit) as u64;
        self.gpu
            .queue
            .write_buffer(&self.buffers.sim, offset, &bits.to_le_bytes());
    }

    /// The GPU's status record as it stands.
    fn record(&self) -> SimRecord {
        self.gpu.read_buffer(&self.buffers.sim, 0, 1)[0]
    }

    fn finalize_only(&self) {
        let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_bind_group(0, &self.bind_group, &[]);
            pass.set_bind_group(1, &self.dispatch_groups[self.parity.get()], &[]);
            pass.set_pipeline(&self.kernels.finalize_step);
            pass.dispatch_workgroups(1, 1, 1);
        }
        self.gpu.queue.submit([encoder.finish()]);
    }

    fn refresh_status(&mut self) -> Result<()> {
        let record = self.record();
        self.accept(&record)
    }

    fn accept(&mut self, r: &SimRecord) -> Result<()> {
        if r.bad_block != 0 {
            return Err(Error::Unstable {
                t: r.t_hi as f64 + r.t_lo as f64,
                block: r.bad_block - 1,
            });
        }
        if !r.dt.is_finite() || !r.dt_cfl.is_finite() || !r.t_hi.is_finite() {
            return Err(Error::Gpu(format!(
                "the solution diverged near t = {:.3} s (dt = {}): check the scenario's CFL and inputs",
                r.t_hi, r.dt
            )));
        }
        self.status = Status::from_record(r);
        Ok(())
    }

    /// Moves the target the GPU clock runs to. A clock sitting on its old target has
    /// planned an idle step, so it plans again at once rather than wasting a step.
    fn set_target(&mut self, t: f64) {
        if self.target == Some(t) {
            return;
        }
        self.target = Some(t);
        let (hi, lo) = split_f64(t);
        let control = Control {
            target_hi: hi,
            target_lo: lo,
            pad: [0; 2],
        };
        self.gpu
            .queue
            .write_buffer(&self.buffers.control, 0, bytemuck::bytes_of(&control));
        if self.status.at_target {
            self.finalize_only();
            self.status.at_target = false;
        }
    }

    /// Times every kernel from now on, where the adapter has timestamp queries (false
    /// otherwise). Each kernel then runs in a compute pass of its own.
    pub fn enable_profiling(&mut self) -> bool {
        let names = self.steps.iter().map(|k| k.name).collect();
        self.profiler = profile::Profiler::new(self.gpu, self.ring.len(), names);
        self.profiler.is_some()
    }

    /// Dispatches each step records (one rank): two when stage 2 ends the step, three on
    /// grids of one class, five with regular and level-change blocks apart.
    pub fn dispatches_per_step(&self) -> usize {
        self.steps.len()
    }

    /// Bytes of GPU memory the simulation holds: every buffer of its bind groups, the
    /// dispatch arguments and the status ring.
    pub fn gpu_bytes(&self) -> u64 {
        let ring: u64 = self.ring.iter().map(|b| b.size()).sum();
        let args: u64 = self.buffers.dispatch.iter().map(|b| b.size()).sum();
        self.buffers.all.iter().map(|b| b.size()).sum::<u64>() + args + ring
    }

    /// Mean GPU time per step of each kernel, when profiling.
    pub fn profile(&self) -> Option<profile::Profile> {
        self.profiler.as_ref().map(|p| p.profile())
    }

    /// Records `n` steps and a copy of the status into the next ring slot.
    fn submit_batch(&mut self, n: u32) -> (wgpu::SubmissionIndex, usize) {
        let start = Instant::now();
        let slot = self.next_slot;
        self.next_slot = (slot + 1) % self.ring.len();
        let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
        match self.profiler.take() {
            Some(mut p) => {
                self.encode_timed_steps(&p, &mut encoder, n, slot);
                p.resolve(&mut encoder, slot, n);
                self.profiler = Some(p);
            }
            None => self.encode_steps(&mut encoder, n),
        }
        let size = std::mem::size_of::<SimRecord>() as u64;
        encoder.copy_buffer_to_buffer(&self.buffers.sim, 0, &self.ring[slot], 0, size);
        let commands = encoder.finish();
        let recorded = Instant::now();
        let index = self.gpu.queue.submit([commands]);
        crate::gpu::request_read(&self.ring[slot]);
        if let Some(p) = &self.profiler {
            p.request_read(slot);
        }
        self.host_record_s += recorded.duration_since(start).as_secs_f64();
        self.host_submit_s += recorded.elapsed().as_secs_f64();
        self.host_steps += n as u64;
        (index, slot)
    }

    fn wait_batch(&mut self, index: wgpu::SubmissionIndex, slot: usize) -> Result<()> {
        self.gpu
            .device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(index),
                timeout: None,
            })
            .map_err(|e| Error::Gpu(format!("waiting for the GPU: {e}")))?;
        let record: SimRecord = {
            let view = self.ring[slot]
                .get_mapped_range(..)
                .map_err(|e| Error::Gpu(format!("reading the step status: {e}")))?;
            *bytemuck::from_bytes(&view)
        };
        self.ring[slot].unmap();
        if let Some(p) = self.profiler.as_mut() {
            // Steps past the target are idle (empty dispatches): only the ones that ran count.
            let ran = Status::from_record(&record)
                .steps
                .saturating_sub(self.status.steps);
            p.collect(slot, ran);
        }
        self.accept(&record)
    }

    /// Steps until the clock sits exactly on `target`, calling `progress` after each batch;
    /// short of it when a signal asks the run to stop.
    pub fn advance_to(&mut self, target: f64, progress: &mut dyn FnMut(&Status)) -> Result<()> {
        if target <= self.status.t && self.status.at_target {
            return Ok(());
        }
        self.set_target(target);
        let mut in_flight: VecDeque<(wgpu::SubmissionIndex, usize, u32)> = VecDeque::new();
        let mut batch_started = Instant::now();
        loop {
            let queued: u32 = in_flight.iter().map(|b| b.2).sum();
            if in_flight.len() < self.ring.len()
                && (in_flight.is_empty() || self.steps_left(target) > queued as f64)
            {
                let n = self.batch_size(target, queued);
                let (index, slot) = self.submit_batch(n);
                in_flight.push_back((index, slot, n));
                continue;
            }
            let (index, slot, n) = in_flight.pop_front().expect("a batch in flight");
            let steps_before = self.status.steps;
            self.wait_batch(index, slot)?;
            if std::env::var_os("QUADFLOOD_TRACE").is_some() {
                eprintln!("batch of {n}: {:?}", self.status);
            }
            progress(&self.status);
            self.tune_batch(
                n,
                self.status.steps - steps_before,
                batch_started.elapsed().as_secs_f64(),
            );
            batch_started = Instant::now();
            // A signal stops the run short of the target (`crate::interrupt`): the caller
            // finds the clock before it.
            if self.status.at_target || crate::interrupt::requested().is_some() {
                for (index, slot, _) in in_flight.drain(..) {
                    self.wait_batch(index, slot)?;
                }
                if self.status.at_target {
                    // The GPU clock holds the target as a double-f32 pair; report the f64
                    // the pair stands for.
                    self.status.t = target;
                }
                return Ok(());
            }
        }
    }

    /// Takes exactly `n` steps, with no target in sight (benchmarks).
    pub fn run_steps(&mut self, n: u64) -> Result<()> {
        self.set_target(f64::MAX / 4.0);
        let mut left = n;
        let mut in_flight: VecDeque<(wgpu::SubmissionIndex, usize)> = VecDeque::new();
        while left > 0 || !in_flight.is_empty() {
            if left > 0 && in_flight.len() < self.ring.len() {
                let batch = left.min(self.steps_per_batch.max(64) as u64) as u32;
                in_flight.push_back(self.submit_batch(batch));
                left -= batch as u64;
                continue;
            }
            let (index, slot) = in_flight.pop_front().expect("a batch in flight");
            self.wait_batch(index, slot)?;
        }
        Ok(())
    }

    fn steps_left(&self, target: f64) -> f64 {
        if self.status.dt <= 0.0 {
            return 1.0;
        }
        ((target - self.status.t) / self.status.dt).ceil() + 1.0
    }

    fn batch_size(&self, target: f64, queued: u32) -> u32 {
        let left = (self.steps_left(target) - queued as f64).max(1.0);
        (left as u32).clamp(1, self.steps_per_batch)
    }

    /// Grows batches while they finish quickly, so that progress still comes a few times a
    /// second but the host submits rarely.
    fn tune_batch(&mut self, submitted: u32, ran: u64, wall_s: f64) {
        if ran < submitted as u64 {
            return; // cut short by the target: says nothing about speed
        }
        if wall_s < 0.1 {
            self.steps_per_batch = (self.steps_per_batch * 2).min(1024);
        } else if wall_s > 0.4 && self.steps_per_batch > 1 {
            self.steps_per_batch /= 2;
        }
    }

    /// Writes NaN into the depth of stored cell 0 (block 0, at the domain's south-west
    /// corner), as a fault no sound input produces: lets the tests reach the path that
    /// reports an unstable run (`QUADFLOOD_TEST_POISON_AT`, see run.rs).
    pub fn poison_for_test(&self) {
        self.gpu
            .queue
            .write_buffer(&self.buffers.state_a, 0, &f32::NAN.to_le_bytes());
    }
}

#[cfg(test)]
mod tests;
