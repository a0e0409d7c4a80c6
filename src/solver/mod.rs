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

pub(crate) mod forcing;
pub mod kernels;
mod loss_table;
pub mod profile;
pub mod ranks;
mod structure_table;

use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::grid::{CELLS_PER_BLOCK, NONE};
use crate::scenario::maxima::Peak;
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
/// without a replan. Measured on dam breaks (docs/benchmarks.md): 0.99 planned 2-3% of a
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
    pad: [u32; 3],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
struct Control {
    target_hi: f32,
    target_lo: f32,
    pad: [u32; 2],
}

/// How a kernel of the step is launched: from the GPU's dispatch arguments at a byte
/// offset, or with a fixed number of workgroups.
#[derive(Clone, Copy)]
enum Launch {
    Indirect(u64),
    Groups(u32),
}

/// One dispatch of a step: the entry point's name, the RK stage it computes (None for the
/// step's end), its pipeline and launch.
struct StepKernel {
    name: &'static str,
    stage: Option<u32>,
    pipeline: wgpu::ComputePipeline,
    launch: Launch,
}

/// The dispatches of one step for `split`, in order: each stage over the internal blocks
/// of each class that has any, then the dry-map and the step's end, which on one rank the
/// last workgroup of the last stage-2 dispatch takes on (`Split::end_in_stage2`). Building
/// it compiles the stage pipelines the split runs, before the time loop.
fn step_kernels(
    gpu: &Gpu,
    k: &Kernels,
    split: Split,
    scan_groups: u32,
    structures: bool,
) -> Vec<StepKernel> {
    let classes = [
        (
            split.regular,
            ["stage1", "stage2", "stage2_end"],
            REGULAR_ARGS,
        ),
        (
            split.levels_class(),
            ["stage1_levels", "stage2_levels", "stage2_levels_end"],
            LEVELS_ARGS,
        ),
    ];
    let present: Vec<_> = classes.iter().filter(|c| c.0 > 0).collect();
    let mut kernels = Vec::with_capacity(6);
    if structures {
        kernels.push(StepKernel {
            name: "structure_flows",
            stage: None,
            pipeline: k.structure_flows.clone(),
            launch: Launch::Groups(1),
        });
    }
    for stage in [1, 2] {
        for (i, &&(_, names, args)) in present.iter().enumerate() {
            let last_of_stage = i + 1 == present.len();
            let ends_step = stage == 2 && split.end_in_stage2 && last_of_stage;
            let name = if ends_step {
                names[2]
            } else {
                names[stage as usize - 1]
            };
            kernels.push(StepKernel {
                name,
                stage: Some(stage),
                pipeline: k.stage(gpu, name),
                launch: Launch::Indirect(args),
            });
        }
    }
    if !split.end_in_stage2 {
        kernels.push(StepKernel {
            name: "scan_then_finalize",
            stage: None,
            pipeline: k.scan_then_finalize.clone(),
            launch: Launch::Groups(scan_groups),
        });
    }
    kernels
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

/// Depth and momentum of every domain cell, row-major from the south edge.
pub struct Fields {
    pub depth: Vec<f32>,
    pub hu: Vec<f32>,
    pub hv: Vec<f32>,
}

impl Fields {
    /// The fields of a state in storage layout.
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
    /// Indirect dispatch arguments. A run whose steps end in stage 2 alternates: each step
    /// reads one and writes the other (a dispatch may not read its own arguments).
    dispatch: [wgpu::Buffer; 2],
    block_volume: wgpu::Buffer,
    maxima: wgpu::Buffer,
    losses: wgpu::Buffer,
    /// Every buffer of the bind group, in binding order.
    all: Vec<wgpu::Buffer>,
}

/// How a simulation's blocks divide: [0, border) are border blocks (beside another rank),
/// [border, own) internal ones, and from own on ghosts copied from other ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Split {
    pub own: u32,
    pub border: u32,
    /// Internal blocks that run the lean kernels (`CLASS_REGULAR`): those without a level
    /// change on any side, or none (see `SPLIT_MIN_REGULAR_BLOCKS`).
    pub regular: u32,
    /// Stage 2's last workgroup ends the step, in place of a dispatch of its own (see
    /// `END_IN_STAGE2_MAX_BLOCKS`).
    pub end_in_stage2: bool,
    /// One rank of several: a step's end plans the next dt from the lagged CFL limit alone,
    /// before the ranks agree on the new one (timestep.wgsl, src/solver/ranks.rs `settle`).
    pub plans_ahead: bool,
}

/// Blocks up to which a one-rank grid ends its steps in stage 2 (`Split::end_in_stage2`):
/// each stage-2 workgroup then marks the next step's blocks and counts itself done, which
/// lengthens every workgroup by a few round trips to memory, and saves the dispatch of the
/// dry-map and step end. On an H100 (docs/benchmarks.md, "The dry-map in stage 2") that won
/// 11% at 256 blocks and 3% at 1,024, and lost 3% at 2,304, 6% at 4,096 and 12% at 65,536.
const END_IN_STAGE2_MAX_BLOCKS: u32 = 1024;

/// Regular internal blocks from which the blocks at a level change get stage kernels of
/// their own. The split makes the regular blocks' kernels leaner (on an H100, 43-45
/// registers against 64-74, and 272 threads) but adds two dispatches per step, whose fixed
/// cost only a large grid repays: on an H100 (docs/benchmarks.md, multi-resolution) it
/// came within the noise with 7,000 regular blocks and won 3% with 28,000. A grid of one
/// level always gets the lean kernels, with no extra dispatch.
/// QUADFLOOD_LEVEL_CLASSES=split|one overrides, for measuring.
const SPLIT_MIN_REGULAR_BLOCKS: u32 = 16384;

impl Split {
    /// Own blocks [0, own) of `grid`, the first `border` of them beside other ranks.
    pub fn new(grid: &crate::grid::BlockGrid, own: u32, border: u32) -> Split {
        let levels = grid.blocks[border as usize..own as usize]
            .iter()
            .filter(|b| b.has_level_change())
            .count() as u32;
        let internal = own - border;
        let by_size = levels == 0 || internal - levels >= SPLIT_MIN_REGULAR_BLOCKS;
        let split = match env_choice("QUADFLOOD_LEVEL_CLASSES", &["split", "one"]) {
            Some("one") => levels == 0,
            Some(_) => true,
            None => by_size,
        };
        Split {
            own,
            border,
            regular: if split { internal - levels } else { 0 },
            end_in_stage2: false,
            plans_ahead: false,
        }
    }

    /// The split of a one-rank run, whose steps end in stage 2's last workgroup on small
    /// grids: stage 2 marks the next step's blocks as it goes, and no dispatch of the
    /// dry-map and the step's end follows (a rank's steps end with the CFL minimum agreed
    /// over every rank, between stage 2 and the step's end, so never there).
    /// QUADFLOOD_STEP_END=stage2|apart overrides, for testing and measuring.
    fn one_rank(grid: &crate::grid::BlockGrid) -> Split {
        let split = Split::new(grid, grid.nblocks() as u32, 0);
        let end_in_stage2 = match env_choice("QUADFLOOD_STEP_END", &["stage2", "apart"]) {
            Some(choice) => choice == "stage2",
            None => split.own <= END_IN_STAGE2_MAX_BLOCKS,
        };
        Split {
            end_in_stage2,
            ..split
        }
    }

    /// Whether an internal block runs the kernel with the multi-resolution code: when it
    /// has a level change, or when every internal block does (no regular class).
    fn in_levels_class(&self, info: &crate::grid::BlockInfo) -> bool {
        info.has_level_change() || self.regular == 0
    }

    /// Whether the internal blocks are numbered class by class, regular ones first (as on a
    /// grid of one class): each class's fixed list is then a range of block numbers.
    fn classes_in_order(&self, grid: &crate::grid::BlockGrid) -> bool {
        let levels = |b: u32| self.in_levels_class(&grid.blocks[b as usize]);
        let first_levels = (self.border..self.own)
            .find(|&b| levels(b))
            .unwrap_or(self.own);
        !(first_levels..self.own).any(|b| !levels(b))
    }

    /// Internal blocks that run the `_levels` kernels (`CLASS_LEVELS`): those with a level
    /// change, or all of them when there is no regular class.
    pub fn levels_class(&self) -> u32 {
        self.own - self.border - self.regular
    }
}

/// The `active_list` buffer as the kernels expect it at the start: room for the step's
/// lists, then every internal block, regular ones first, then room for the internal lists
/// of the other parity (see `shaders/common.wgsl`).
fn active_lists(grid: &crate::grid::BlockGrid, split: Split) -> Vec<u32> {
    let nb = grid.nblocks();
    let internal = split.border..split.own;
    let (levels, regular): (Vec<u32>, Vec<u32>) =
        internal.partition(|&b| split.in_levels_class(&grid.blocks[b as usize]));
    let mut lists = vec![0u32; 2 * nb];
    lists.extend(regular);
    lists.extend(levels);
    lists.resize(4 * nb, 0);
    lists
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

    /// Stage `stage`'s kernels over internal blocks: regular ones, then those at a level
    /// change.
    pub(crate) fn dispatch_internal(&self, pass: &mut wgpu::ComputePass, stage: u32) {
        for kernel in self.steps.iter().filter(|k| k.stage == Some(stage)) {
            self.dispatch(pass, kernel, self.parity.get());
        }
    }

    /// The `dispatch` buffers the next step reads its arguments from and writes the next
    /// step's to, and the step after it then reads.
    fn step_args(&self) -> (usize, usize) {
        let reads = self.parity.get();
        let writes = if self.split.end_in_stage2 {
            1 - reads
        } else {
            reads
        };
        (reads, writes)
    }

    fn dispatch(&self, pass: &mut wgpu::ComputePass, kernel: &StepKernel, args: usize) {
        pass.set_pipeline(&kernel.pipeline);
        match kernel.launch {
            Launch::Indirect(offset) => {
                pass.dispatch_workgroups_indirect(&self.buffers.dispatch[args], offset)
            }
            Launch::Groups(n) => pass.dispatch_workgroups(n, 1, 1),
        }
    }

    /// A pass with the solver's bind group, and group 1 on the `dispatch` buffer `writes`.
    fn begin_pass<'e>(
        &self,
        encoder: &'e mut wgpu::CommandEncoder,
        desc: &wgpu::ComputePassDescriptor,
        writes: usize,
    ) -> wgpu::ComputePass<'e> {
        let mut pass = encoder.begin_compute_pass(desc);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.set_bind_group(1, &self.dispatch_groups[writes], &[]);
        pass
    }

    /// `n` steps in one compute pass.
    fn encode_steps(&self, encoder: &mut wgpu::CommandEncoder, n: u32) {
        let (_, writes) = self.step_args();
        let mut pass = self.begin_pass(encoder, &Default::default(), writes);
        for _ in 0..n {
            let (reads, writes) = self.step_args();
            if writes != reads {
                pass.set_bind_group(1, &self.dispatch_groups[writes], &[]);
            }
            for kernel in &self.steps {
                self.dispatch(&mut pass, kernel, reads);
            }
            self.parity.set(writes);
        }
    }

    /// `n` steps with each kernel in a pass of its own, between timestamps.
    fn encode_timed_steps(
        &self,
        p: &profile::Profiler,
        encoder: &mut wgpu::CommandEncoder,
        n: u32,
        slot: usize,
    ) {
        for step in 0..n {
            let (reads, writes) = self.step_args();
            for (k, kernel) in self.steps.iter().enumerate() {
                let desc = wgpu::ComputePassDescriptor {
                    label: Some(kernel.name),
                    timestamp_writes: p.writes(slot, step, k),
                };
                self.dispatch(&mut self.begin_pass(encoder, &desc, writes), kernel, reads);
            }
            self.parity.set(writes);
        }
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

    /// Depth and momentum of every domain cell.
    pub fn read_fields(&self) -> Fields {
        let cells = self.grid.stored_cells();
        self.gpu
            .read_buffer_with(&self.buffers.state_a, 0, cells, |stored| {
                Fields::from_stored(&self.grid, stored)
            })
    }

    /// This simulation's own blocks as they stand: state, maxima, edge volumes and clock,
    /// in storage layout.
    pub fn read_snapshot(&self) -> Snapshot {
        let own = self.split.own as usize;
        let cells = own * CELLS_PER_BLOCK;
        let r: SimRecord = self.gpu.read_buffer(&self.buffers.sim, 0, 1)[0];
        let tracked = self.buffers.maxima.size() as usize >= cells * size_of::<Peak>();
        let (infiltrated, loss_volume) = self.read_losses();
        Snapshot {
            state: self.gpu.read_buffer(&self.buffers.state_a, 0, cells),
            resume: Resume {
                t: (r.t_hi, r.t_lo),
                steps: ((r.step_hi as u64) << 32) | r.step_lo as u64,
                dt_cfl: r.dt_cfl,
                cfl_limit: f32::from_bits(r.cfl_limit),
                cell_updates: ((r.upd_hi as u64) << 32) | r.upd_lo as u64,
                rain: (r.rain_hi, r.rain_lo),
                steps_planned_again: r.cfl_replans,
                block_volume: self.gpu.read_buffer(&self.buffers.block_volume, 0, own),
                maxima: if tracked {
                    self.gpu.read_buffer(&self.buffers.maxima, 0, cells)
                } else {
                    Vec::new()
                },
                infiltrated,
                loss_volume,
                structure_flows: self.read_structure_flows(),
            },
        }
    }

    /// (h, hu, hv) at the given domain cells, in one copy and one wait.
    pub fn read_cells(&self, cells: &[(usize, usize)]) -> Vec<[f32; 3]> {
        let stored: Vec<usize> = cells
            .iter()
            .map(|&(i, j)| self.grid.storage_index(i, j))
            .collect();
        self.read_stored_cells(&stored)
    }

    /// (h, hu, hv) of the given stored cells (indices into this simulation's storage), in
    /// one submission and one wait, however many there are.
    pub(crate) fn read_stored_cells(&self, stored: &[usize]) -> Vec<[f32; 3]> {
        if stored.is_empty() {
            return Vec::new();
        }
        let staging = self.gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("gauges"),
            size: (stored.len() * 16) as u64,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
        for (k, &index) in stored.iter().enumerate() {
            let (from, to) = ((index * 16) as u64, (k * 16) as u64);
            encoder.copy_buffer_to_buffer(&self.buffers.state_a, from, &staging, to, 16);
        }
        self.gpu.queue.submit([encoder.finish()]);
        self.gpu.map_and_wait(&staging);
        let values: Vec<[f32; 4]> = {
            let view = staging.get_mapped_range(..).expect("mapped gauge buffer");
            bytemuck::cast_slice(&view).to_vec()
        };
        staging.unmap();
        values.iter().map(|s| [s[0], s[1], s[2]]).collect()
    }

    /// The own blocks' cumulative loss per cell and lost volume per block; empty without
    /// losses.
    fn read_losses(&self) -> (Vec<f32>, Vec<[f32; 2]>) {
        if !self.has_losses {
            return (Vec::new(), Vec::new());
        }
        let own = self.split.own as usize;
        let words: Vec<u32> = self.gpu.read_buffer(
            &self.buffers.losses,
            0,
            self.buffers.losses.size() as usize / 4,
        );
        let (offset, count) = loss_table::volume_range(self.nblocks as usize, own);
        let start = offset as usize / 4;
        let volumes = bytemuck::cast_slice(&words[start..start + 2 * count]).to_vec();
        (loss_table::infiltrated(&words, own), volumes)
    }

    /// The own blocks' volumes (m³) lost to the ground so far, per block (double-f32).
    pub fn block_losses(&self) -> Vec<[f32; 2]> {
        if !self.has_losses {
            return Vec::new();
        }
        let (offset, count) =
            loss_table::volume_range(self.nblocks as usize, self.split.own as usize);
        self.gpu.read_buffer(&self.buffers.losses, offset, count)
    }

    /// The discharge (m³/s) each culvert and weir structure carries in the step about to
    /// be taken (0 for one this rank holds no end of).
    pub fn read_structure_flows(&self) -> Vec<f32> {
        let (first, count) = self.structure_slots;
        let forcing = &self.buffers.all[binding::FORCING as usize];
        let slots: Vec<[f32; 4]> = self.gpu.read_buffer(forcing, 16 * first as u64, count);
        slots.iter().map(|s| s[0]).collect()
    }

    /// Volume (m³) lost to the ground so far, summed in f64.
    pub fn lost_volume(&self) -> f64 {
        loss_table::sum(&self.block_losses())
    }

    /// Volumes (m³) that entered and left through the domain edge so far, summed in f64.
    pub fn edge_volumes(&self) -> (f64, f64) {
        let v: Vec<[f32; 4]> =
            self.gpu
                .read_buffer(&self.buffers.block_volume, 0, self.nblocks as usize);
        sum_volumes(&v)
    }
}

/// Total (in, out) of per-block double-f32 edge volumes, in block order.
fn sum_volumes(v: &[[f32; 4]]) -> (f64, f64) {
    v.iter().fold((0.0, 0.0), |(vin, vout), b| {
        (
            vin + b[0] as f64 + b[1] as f64,
            vout + b[2] as f64 + b[3] as f64,
        )
    })
}

/// Workgroups for `count` blocks as (x, y): as few rows y as keep x at most MAX_GROUPS_X,
/// of equal length, so that fewer than y workgroups find no block (as `set_groups` in
/// `shaders/timestep.wgsl`).
pub(crate) fn grid_2d(count: u32) -> (u32, u32) {
    if count == 0 {
        return (0, 0);
    }
    let rows = count.div_ceil(MAX_GROUPS_X);
    (count.div_ceil(rows), rows)
}

fn check_size(gpu: &Gpu, model: &Model) -> Result<()> {
    let bytes = (model.grid.stored_cells() * 16) as u64;
    let limit = gpu
        .limits
        .max_storage_buffer_binding_size
        .min(gpu.limits.max_buffer_size);
    if model.grid.stored_cells() + model.grid.nblocks() >= FRICTION_PER_CELL as usize {
        return Err(Error::Gpu(format!(
            "the grid has {} cells, more than one sub-domain can index (2^31): run it as \
             sub-domains (quadflood run --split K, or mpirun -n K)",
            model.grid.stored_cells()
        )));
    }
    if bytes > limit {
        return Err(Error::Gpu(format!(
            "the grid needs a {} MiB state buffer; {} allows {} MiB per binding: run it as \
             at least {} sub-domains (quadflood run --split K on this GPU, or mpirun -n K)",
            bytes >> 20,
            gpu.info.name,
            limit >> 20,
            bytes.div_ceil(limit) + 1
        )));
    }
    Ok(())
}

fn params_of(model: &Model, split: Split) -> Params {
    let n = &model.numerics;
    let mut flags = 0;
    if n.skip_dry_blocks {
        flags |= FLAG_SKIP_DRY;
    }
    if n.track_maxima {
        flags |= FLAG_TRACK_MAX;
    }
    if split.end_in_stage2 {
        flags |= FLAG_END_IN_STAGE2;
    }
    if split.classes_in_order(&model.grid) {
        flags |= FLAG_CLASSES_IN_ORDER;
    }
    if split.plans_ahead {
        flags |= FLAG_PLAN_AHEAD;
    }
    if model.losses.model == Some(crate::scenario::losses::LossModel::GreenAmpt) {
        flags |= FLAG_GREEN_AMPT;
    }
    let [edge_w, edge_e, edge_s, edge_n] = model.edge_offsets();
    Params {
        nx: model.nx() as u32,
        ny: model.ny() as u32,
        nblocks: model.grid.nblocks() as u32,
        flags,
        g: n.gravity as f32,
        cfl: n.cfl as f32,
        dx: model.cell_size as f32,
        dt_max: forcing::dt_max(model) as f32,
        dry_depth: n.dry_depth as f32,
        n_series: model.series.len() as u32,
        rain_first: model.bc_defs.len() as u32,
        edge_w,
        edge_e,
        edge_s,
        edge_n,
        one: 1.0,
        own_blocks: split.own,
        border_blocks: split.border,
        arrival_depth: n.arrival_depth as f32,
        rain_count: model.rain.weights.len() as u32,
        regular_blocks: split.regular,
        peak_origin: model.peak_clock.origin as f32,
        peak_rate: (1.0 / model.peak_clock.quantum) as f32,
        cfl_margin: CFL_MARGIN,
        structure_count: model.structures.len() as u32,
        pad: [0; 3],
    }
}

fn initial_record(model: &Model, split: Split) -> SimRecord {
    let (t_hi, t_lo) = match &model.resume {
        Some(r) => r.t,
        None => split_f64(model.t_start),
    };
    let (steps, updates, rain, dt_cfl, cfl_limit) = match &model.resume {
        Some(r) => (r.steps, r.cell_updates, r.rain, r.dt_cfl, r.cfl_limit),
        None => (
            0,
            0,
            (0.0, 0.0),
            model.numerics.dt_max as f32,
            f32::INFINITY,
        ),
    };
    SimRecord {
        t_hi,
        t_lo,
        step_lo: steps as u32,
        step_hi: (steps >> 32) as u32,
        upd_lo: updates as u32,
        upd_hi: (updates >> 32) as u32,
        rain_hi: rain.0,
        rain_lo: rain.1,
        // Tells finalize_step that the initial scan ran, with nothing to advance; a
        // restart keeps its CFL step and limit.
        dt: if model.resume.is_some() {
            RESUMED_SCAN
        } else {
            -1.0
        },
        all_active: 1,
        dispatched: split.regular,
        dispatched_border: split.border,
        dispatched_levels: split.levels_class(),
        dt_min_bits: INF_BITS,
        dt_cfl,
        cfl_limit: cfl_limit.to_bits(),
        cfl_replans: model.resume.as_ref().map_or(0, |r| r.steps_planned_again),
        launch_mark: 1,
        ..Default::default()
    }
}

/// Creates every buffer, in binding order, and returns the ones the host touches again.
fn upload(gpu: &Gpu, model: &Model, split: Split) -> (Buffers, Vec<wgpu::Buffer>) {
    use wgpu::BufferUsages as U;
    let grid = &model.grid;
    let nb = grid.nblocks();
    let state: Vec<[f32; 4]> = (0..grid.stored_cells())
        .map(|k| [model.depth[k], model.hu[k], model.hv[k], model.bed[k]])
        .collect();
    let (meta, pts) = forcing::pack_series(model);
    let (t_hi, t_lo) = initial_record(model, split).clock();
    let maxima = initial_maxima(model);
    let block_volume = match &model.resume {
        Some(r) => r.block_volume.clone(),
        None => vec![[0.0f32; 4]; nb],
    };
    // Then each block's stage-1 discharge (flux.wgsl).
    let block_volume = [block_volume, vec![[0.0f32; 4]; nb]].concat();
    let control = Control {
        target_hi: t_hi,
        target_lo: t_lo,
        pad: [0; 2],
    };
    let storage = U::STORAGE | U::COPY_DST | U::COPY_SRC;
    let all = vec![
        gpu.buffer_with(
            "params",
            &[params_of(model, split)],
            U::UNIFORM | U::COPY_DST,
        ),
        gpu.buffer_with("control", &[control], U::UNIFORM | U::COPY_DST),
        gpu.buffer_with("sim", &[initial_record(model, split)], storage),
        gpu.buffer_with("state_a", &state, storage),
        gpu.buffer_with("state_b", &state, storage),
        gpu.buffer_with("friction", &friction_table(model), storage),
        gpu.buffer_with("blocks", &grid.blocks, storage),
        gpu.buffer_with("neighbours", &grid.neighbours, storage),
        gpu.buffer_with("block_flags", &initial_flags(model, split), storage),
        gpu.buffer_with("active_list", &active_lists(grid, split), storage),
        gpu.buffer_with("bc_edge", &model.bc_edge, storage),
        gpu.buffer_with("bc_defs", &bc_and_rain_defs(model), storage),
        gpu.buffer_with("series_meta", &meta, storage),
        gpu.buffer_with("series_pts", &pts, storage),
        gpu.buffer_with(
            "forcing",
            &initial_forcing(model, t_hi as f64 + t_lo as f64),
            storage,
        ),
        gpu.buffer_with("block_volume", &block_volume, storage),
        gpu.buffer_with("maxima", &maxima, storage),
        gpu.buffer_with("sources", &source_table(model), storage),
        gpu.buffer_with("losses", &loss_table::words(model), storage),
        gpu.buffer_with("structures", &structure_table::words(model), storage),
    ];
    debug_assert_eq!(all.len() as u32, binding::COUNT);
    let pick = |b: u32| all[b as usize].clone();
    let dispatch = [0, 1].map(|_| gpu.buffer_with("dispatch", &[0u32; 12], storage | U::INDIRECT));
    let buffers = Buffers {
        control: pick(binding::CONTROL),
        sim: pick(binding::SIM),
        state_a: pick(binding::STATE_A),
        dispatch,
        block_volume: pick(binding::BLOCK_VOLUME),
        maxima: pick(binding::MAXIMA),
        losses: pick(binding::LOSSES),
        all: Vec::new(),
    };
    (buffers, all)
}

/// The value of environment variable `name` when it is one of `choices` (overrides for
/// measuring); None when unset, and with a warning when it is something else.
fn env_choice(name: &str, choices: &[&'static str]) -> Option<&'static str> {
    let value = std::env::var(name).ok()?;
    let choice = choices.iter().copied().find(|&c| c == value);
    if choice.is_none() {
        eprintln!("quadflood: {name}={value} is none of {choices:?}: ignored");
    }
    choice
}

/// The `friction` table the stage kernel reads (see `shaders/common.wgsl`): g n² per block
/// where its cells share one value (cells outside the domain never use theirs), else per
/// cell. QUADFLOOD_FRICTION=per-cell stores every block's cells, for measuring what the
/// per-block values save.
fn friction_table(model: &Model) -> Vec<u32> {
    let per_cell = env_choice("QUADFLOOD_FRICTION", &["per-cell"]).is_some();
    friction_entries(model, per_cell)
}

fn friction_entries(model: &Model, per_cell_everywhere: bool) -> Vec<u32> {
    let g = model.numerics.gravity as f32;
    let gn2 = |c: usize| (g * model.manning[c] * model.manning[c]).to_bits();
    let nb = model.grid.nblocks();
    let mut per_cell = Vec::new();
    let mut table: Vec<u32> = (0..nb)
        .map(|b| {
            let cells = b * CELLS_PER_BLOCK..(b + 1) * CELLS_PER_BLOCK;
            let mut inside = cells.clone().filter(|&c| model.is_valid(c)).map(gn2);
            let first = inside.next().unwrap_or(0);
            if !per_cell_everywhere && inside.all(|v| v == first) {
                return first;
            }
            let at = nb + per_cell.len();
            per_cell.extend(cells.map(gn2));
            // Below the flag bit: check_size refuses grids whose table could reach it.
            FRICTION_PER_CELL | at as u32
        })
        .collect();
    table.append(&mut per_cell);
    table
}

/// The boundary conditions, then one entry per rain series with its share of the domain:
/// the step kernel sums `series value * share` into the domain-mean rain depth.
fn bc_and_rain_defs(model: &Model) -> Vec<BcDef> {
    let rain = model.rain.weights.iter().map(|&(series, share)| BcDef {
        kind: BcKind::Rain as u32,
        series,
        scale: share as f32,
        offset: 0.0,
    });
    model.bc_defs.iter().copied().chain(rain).collect()
}

/// The series' forcing at time t, then a slot per culvert (its discharge, set each step).
fn initial_forcing(model: &Model, t: f64) -> Vec<[f32; 4]> {
    let mut forcing = forcing::initial_forcing(model, t);
    let flows = model
        .resume
        .as_ref()
        .filter(|r| r.structure_flows.len() == model.structures.len())
        .map_or(vec![0.0; model.structures.len()], |r| {
            r.structure_flows.clone()
        });
    forcing.extend(flows.iter().map(|&q| [q, q, q, 0.0]));
    forcing
}

/// The `sources` table the stage kernel reads (see `shaders/common.wgsl`).
fn source_table(model: &Model) -> Vec<[u32; 4]> {
    let nb = model.grid.nblocks();
    let mut by_block: Vec<Vec<[u32; 4]>> = vec![Vec::new(); nb];
    let mut speed = vec![0.0f64; nb];
    for s in &model.sources {
        let (b, c) = (s.cell / CELLS_PER_BLOCK, s.cell % CELLS_PER_BLOCK);
        if s.level {
            // `.z`: the inner side, with NORMAL_DEPTH_LINE where the line has a slope (`.w`)
            // or RATING_LINE where it has a rating (`.y` its curve, `.w` 1 / its length).
            let (kind, w) = if s.slope > 0.0 {
                (NORMAL_DEPTH_LINE, s.slope)
            } else if s.rating_scale > 0.0 {
                (RATING_LINE, s.rating_scale)
            } else {
                (0, 0.0)
            };
            by_block[b].push([
                c as u32 | LEVEL_ENTRY,
                s.series,
                s.inner as u32 | kind,
                w.to_bits(),
            ]);
            continue;
        }
        let width = model.cell_size * model.grid.cell_footprint(s.cell).2 as f64;
        let rate = s.fraction / (width * width);
        by_block[b].push([
            c as u32,
            s.series,
            (rate as f32).to_bits(),
            (s.fraction as f32).to_bits(),
        ]);
        let peak = model.series[s.series as usize]
            .values
            .iter()
            .cloned()
            .fold(0.0, f64::max);
        speed[b] = speed[b].max(source_speed(rate * peak, width, model.numerics.gravity));
    }
    // Culverts and weirs bound dt by the discharge they carry (structures.wgsl), not by a peak.
    for (b, entry) in structure_table::source_entries(model) {
        by_block[b].push(entry);
    }
    let entries: usize = by_block.iter().map(Vec::len).sum();
    let mut table = Vec::with_capacity(nb + entries);
    let mut next = nb as u32;
    let mut per_cell_rain = Vec::new();
    let rain_base = (nb + entries) as u32;
    for (b, (entries, speed)) in by_block.iter().zip(speed).enumerate() {
        let rain = block_rain(model, b, rain_base, &mut per_cell_rain);
        table.push([next, entries.len() as u32, (speed as f32).to_bits(), rain]);
        next += entries.len() as u32;
    }
    table.extend(by_block.into_iter().flatten());
    table.extend(per_cell_rain);
    table
}

/// A block's rain code: the series on all its cells (or NONE), or RAIN_PER_CELL plus the
/// table entry where its 256 cells' series start (four to an entry), appended to
/// `per_cell`, which the table holds from entry `base` on.
fn block_rain(model: &Model, b: usize, base: u32, per_cell: &mut Vec<[u32; 4]>) -> u32 {
    let cells = &model.rain.cells;
    if cells.is_empty() {
        return NONE;
    }
    let block = &cells[b * CELLS_PER_BLOCK..(b + 1) * CELLS_PER_BLOCK];
    if block.iter().all(|&s| s == block[0]) {
        return block[0];
    }
    let at = base + per_cell.len() as u32;
    per_cell.extend(block.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]));
    RAIN_PER_CELL | at
}

/// The wave speed a step must respect where a source pours `rate` (m/s of depth) into a
/// cell of `width` m: in a step dt the cell fills to depth rate dt, whose gravity wave
/// must cross at most one cell, dt sqrt(g rate dt) <= width. Without this bound a dry
/// domain would take steps of dt_max while a source floods one cell.
fn source_speed(rate: f64, width: f64, g: f64) -> f64 {
    width / forcing::fill_time(rate, width, g)
}

/// The run's maxima so far: from the checkpoint on a restart, else the initial state's.
/// A run that tracks none gets a one-element placeholder (bindings cannot be empty).
fn initial_maxima(model: &Model) -> Vec<Peak> {
    if !model.numerics.track_maxima {
        return vec![Peak::default()];
    }
    if let Some(r) = &model.resume {
        return r.maxima.clone();
    }
    let dry = model.numerics.dry_depth as f32;
    let code = model.peak_clock.code(model.t_start);
    let reached = model.numerics.arrival_depth as f32;
    (0..model.depth.len())
        .map(|k| {
            let h = model.depth[k];
            let speed = if h > dry {
                model.hu[k].hypot(model.hv[k]) / h
            } else {
                0.0
            };
            Peak::initial(h, speed, code, h >= reached)
        })
        .collect()
}

/// Wet and launched flags: own blocks get theirs from the first scan; ghosts are wet if any
/// cell holds water, and always count as launched, since the rank runs their stage 1 itself
/// every step (a ghost its owner left out is dry among dry blocks: its U* is its U^n).
fn initial_flags(model: &Model, split: Split) -> Vec<u32> {
    let nb = model.grid.nblocks();
    let mut flags = vec![0u32; 3 * nb];
    for g in split.own as usize..nb {
        let cells = &model.depth[g * CELLS_PER_BLOCK..(g + 1) * CELLS_PER_BLOCK];
        flags[g] = u32::from(cells.iter().any(|&h| h > 0.0));
        flags[nb + g] = 1;
    }
    flags
}

/// What a run needs from a solver, on one rank or many. Every rank calls these in the same
/// order; the reads return `Some` on rank 0 only.
pub trait Stepper {
    fn advance_to(&mut self, target: f64, progress: &mut dyn FnMut(&Status)) -> Result<()>;
    fn status(&self) -> &Status;
    fn fields(&self) -> Option<Fields>;
    /// The whole run's state, clock and maxima in global storage layout (for checkpoints
    /// and the maxima maps).
    fn snapshot(&self) -> Option<Snapshot>;
    /// (h, hu, hv) at the given finest cells.
    fn cells(&self, cells: &[(usize, usize)]) -> Option<Vec<[f32; 3]>>;
    fn edge_volumes(&self) -> (f64, f64);
    /// Volume (m³) lost to the ground so far (0 without losses).
    fn lost_volume(&self) -> f64;
    /// Each culvert and weir structure's discharge (m³/s), at rank 0.
    fn structure_flows(&self) -> Option<Vec<f32>>;
    fn host_us_per_step(&self) -> f64;
    /// GPU time per kernel and step, when profiling.
    fn profile(&self) -> Option<profile::Profile> {
        None
    }
    /// Per-rank timings, at rank 0.
    fn rank_reports(&self) -> Option<Vec<serde_json::Value>>;
    /// Whether a signal asked the run to stop (on ranks: any rank's; every rank calls
    /// this together).
    fn stop_requested(&self) -> bool {
        crate::interrupt::requested().is_some()
    }
    /// One entry per rebalance, at rank 0 (None when the run does not balance).
    fn rebalancing(&self) -> Option<Vec<serde_json::Value>> {
        None
    }
    /// Whether every rank found its part sound (`sound` on this one), so that all stop
    /// together when one cannot go on.
    fn all_sound(&self, sound: bool) -> bool {
        sound
    }
    /// See [`Simulation::poison_for_test`].
    fn poison_for_test(&self);
}

impl Stepper for Simulation<'_> {
    fn poison_for_test(&self) {
        Simulation::poison_for_test(self)
    }
    fn advance_to(&mut self, target: f64, progress: &mut dyn FnMut(&Status)) -> Result<()> {
        Simulation::advance_to(self, target, progress)
    }
    fn status(&self) -> &Status {
        Simulation::status(self)
    }
    fn fields(&self) -> Option<Fields> {
        Some(self.read_fields())
    }
    fn snapshot(&self) -> Option<Snapshot> {
        Some(self.read_snapshot())
    }
    fn cells(&self, cells: &[(usize, usize)]) -> Option<Vec<[f32; 3]>> {
        Some(self.read_cells(cells))
    }
    fn edge_volumes(&self) -> (f64, f64) {
        Simulation::edge_volumes(self)
    }
    fn lost_volume(&self) -> f64 {
        Simulation::lost_volume(self)
    }
    fn structure_flows(&self) -> Option<Vec<f32>> {
        Some(self.read_structure_flows())
    }
    fn host_us_per_step(&self) -> f64 {
        1e6 * (self.host_record_s + self.host_submit_s) / self.host_steps.max(1) as f64
    }
    fn profile(&self) -> Option<profile::Profile> {
        Simulation::profile(self)
    }
    fn rank_reports(&self) -> Option<Vec<serde_json::Value>> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::{
        active_lists, friction_entries, grid_2d, Split, FRICTION_PER_CELL, MAX_GROUPS_X,
        SCAN_THREADS,
    };
    use crate::gpu::shaders;
    use crate::grid::CELLS_PER_BLOCK;
    use crate::grid::{BlockGrid, COARSER_SIDES_SHIFT, FINER_SIDES_SHIFT};

    /// Every block gets a workgroup, rows stay within the limit, and fewer workgroups than
    /// rows find no block (65,536 blocks once launched 131,070).
    #[test]
    fn workgroup_grids_leave_fewer_idle_than_rows() {
        assert_eq!(grid_2d(0), (0, 0));
        for count in [
            1,
            4096,
            MAX_GROUPS_X,
            MAX_GROUPS_X + 1,
            65_536,
            262_144,
            4_194_304,
        ] {
            let (x, y) = grid_2d(count);
            let launched = x as u64 * y as u64;
            assert!(x <= MAX_GROUPS_X, "{count}: {x} per row");
            assert!(launched >= count as u64, "{count}: {x} x {y}");
            assert!(launched - (count as u64) < y as u64, "{count}: {x} x {y}");
        }
    }

    /// A uniform grid of `side`² blocks, every tenth of them flagged as facing another
    /// level (alternately coarser and finer).
    fn grid_with_level_changes(side: usize) -> BlockGrid {
        let mut grid = BlockGrid::uniform(16 * side, 16 * side);
        for (k, b) in grid.blocks.iter_mut().step_by(10).enumerate() {
            let shift = if k % 2 == 0 {
                COARSER_SIDES_SHIFT
            } else {
                FINER_SIDES_SHIFT
            };
            b.flags |= 1 << shift;
        }
        grid
    }

    /// The list of every internal block that steps launching all blocks read: regular
    /// blocks first, then those at a level change, each in block order, after the two
    /// regions the dry-map fills.
    #[test]
    fn a_large_grid_lists_its_internal_blocks_by_class() {
        let grid = grid_with_level_changes(144);
        let nb = grid.nblocks();
        let (own, border) = (nb as u32, 100u32);
        let split = Split::new(&grid, own, border);
        let changes: Vec<u32> = (border..own).filter(|b| b % 10 == 0).collect();
        assert_eq!(split.levels_class() as usize, changes.len());
        let lists = active_lists(&grid, split);
        assert_eq!(
            lists.len(),
            4 * nb,
            "two parities of moving lists, border, fixed"
        );
        let (regular, levels) =
            lists[2 * nb..3 * nb - border as usize].split_at(split.regular as usize);
        assert_eq!(levels, &changes[..]);
        let expected: Vec<u32> = (border..own).filter(|b| b % 10 != 0).collect();
        assert_eq!(regular, &expected[..]);
    }

    /// The kernels take block numbers for list entries only where the fixed list is the
    /// range of internal blocks: on a grid of one class, not where classes interleave.
    #[test]
    fn classes_are_in_order_exactly_when_the_fixed_list_is_a_range() {
        let cases = [
            (BlockGrid::uniform(16 * 30, 16 * 30), 40),
            (grid_with_level_changes(20), 7),
            (grid_with_level_changes(144), 100),
        ];
        let mut seen = Vec::new();
        for (grid, border) in cases {
            let nb = grid.nblocks();
            let split = Split::new(&grid, nb as u32, border);
            let lists = active_lists(&grid, split);
            let range: Vec<u32> = (border..nb as u32).collect();
            let is_range = lists[2 * nb..3 * nb - border as usize] == range[..];
            assert_eq!(split.classes_in_order(&grid), is_range, "{nb} blocks");
            seen.push(is_range);
        }
        assert_eq!(seen, [true, true, false]);
    }

    /// Below SPLIT_MIN_REGULAR_BLOCKS a grid with level changes has no regular class:
    /// every internal block is listed for the `_levels` kernels, in block order.
    #[test]
    fn a_small_grid_runs_every_internal_block_with_the_level_code() {
        let grid = grid_with_level_changes(20);
        let nb = grid.nblocks();
        let split = Split::new(&grid, nb as u32, 7);
        assert_eq!((split.regular, split.levels_class()), (0, nb as u32 - 7));
        let lists = active_lists(&grid, split);
        let all: Vec<u32> = (7..nb as u32).collect();
        assert_eq!(&lists[2 * nb..3 * nb - 7], &all[..]);
        let uniform = BlockGrid::uniform(16 * 20, 16 * 20);
        let split = Split::new(&uniform, nb as u32, 7);
        assert_eq!((split.regular, split.levels_class()), (nb as u32 - 7, 0));
    }

    /// The host sizes the dry-map's dispatch with SCAN_THREADS blocks per workgroup: a
    /// shader with other workgroups would leave blocks unscanned, without any error.
    #[test]
    fn the_dry_map_kernels_have_the_workgroups_the_host_counts_on() {
        let module = shaders::validate("solver", shaders::SOLVER).unwrap();
        for name in ["scan_blocks", "scan_then_finalize", "finalize_step"] {
            let entry = module.entry_points.iter().find(|e| e.name == name).unwrap();
            assert_eq!(entry.workgroup_size, [SCAN_THREADS, 1, 1], "{name}");
        }
    }

    /// g n² of cell `tid` of block `b`, read as `friction_of` in flux.wgsl reads it.
    fn decode_friction(table: &[u32], b: usize, tid: usize) -> f32 {
        let code = table[b];
        if code & FRICTION_PER_CELL == 0 {
            return f32::from_bits(code);
        }
        f32::from_bits(table[(code & !FRICTION_PER_CELL) as usize + tid])
    }

    /// Blocks whose domain cells share one n hold it once (whatever their padding holds);
    /// others hold every cell's; every domain cell reads back its own g n².
    #[test]
    fn friction_is_stored_per_block_where_the_block_is_uniform() {
        let mut model = crate::bench::dam_break_model(40, 40);
        let nb = model.grid.nblocks();
        assert_eq!(nb, 9);
        let padded = (0..nb)
            .find(|&b| (b * CELLS_PER_BLOCK..(b + 1) * CELLS_PER_BLOCK).any(|c| !model.is_valid(c)))
            .unwrap();
        let mixed = (padded + 1) % nb;
        for c in 0..model.manning.len() {
            let b = c / CELLS_PER_BLOCK;
            model.manning[c] = match () {
                _ if !model.is_valid(c) => 0.5,
                _ if b == mixed => 0.02 + 0.001 * (c % 7) as f32,
                _ => 0.03,
            };
        }
        let g = model.numerics.gravity as f32;
        for everywhere in [false, true] {
            let table = friction_entries(&model, everywhere);
            let stored_blocks = if everywhere { nb } else { 1 };
            assert_eq!(table.len(), nb + stored_blocks * CELLS_PER_BLOCK);
            assert_eq!(table[padded] & FRICTION_PER_CELL != 0, everywhere);
            assert!(table[mixed] & FRICTION_PER_CELL != 0);
            for c in (0..model.manning.len()).filter(|&c| model.is_valid(c)) {
                let (b, tid) = (c / CELLS_PER_BLOCK, c % CELLS_PER_BLOCK);
                let n = model.manning[c];
                assert_eq!(decode_friction(&table, b, tid), g * n * n, "cell {c}");
            }
        }
    }

    #[test]
    fn fields_from_storage_match_the_grid_cell_by_cell() {
        // Three levels, a domain that ends inside blocks, more cells than the cores divide.
        let grid = crate::grid::quadtree::build(300, 203, 3, &|f| f.i0 < 64);
        assert!(grid.levels == 3 && grid.blocks_per_level().iter().all(|&n| n > 0));
        let stored: Vec<[f32; 4]> = (0..grid.stored_cells())
            .map(|k| [k as f32, -(k as f32), 0.5 * k as f32, 7.0])
            .collect();
        let fields = super::Fields::from_stored(&grid, &stored);
        assert_eq!(fields.depth.len(), 300 * 203);
        for j in 0..203 {
            for i in 0..300 {
                let (c, e) = (i + 300 * j, stored[grid.storage_index(i, j)]);
                let got = [fields.depth[c], fields.hu[c], fields.hv[c]];
                assert_eq!(got, [e[0], e[1], e[2]], "cell ({i}, {j})");
            }
        }
    }
}
