//! The single-GPU benchmark: a uniform, fully wet circular dam break on N×N cells, timed
//! against a plain copy kernel on the same device.

use crate::error::Result;
use crate::gpu::{shaders, Gpu};
use crate::scenario::model::Model;
use crate::solver::profile::Profile;
use crate::solver::{Simulation, MIN_BYTES_PER_CELL_UPDATE};
use serde_json::json;
use std::time::Instant;

#[derive(Clone, Debug)]
pub struct BenchResult {
    pub nx: usize,
    pub ny: usize,
    /// Cells the grid stores: its blocks' cells (fewer than nx × ny on several levels).
    pub cells: usize,
    pub levels: usize,
    pub steps: u64,
    pub seconds: f64,
    pub cell_updates_per_s: f64,
    /// Host time per step recording commands, and inside queue.submit.
    pub record_us_per_step: f64,
    /// Whether the timed run tracked the run's maxima (as scenario runs do by default).
    pub maxima: bool,
    /// GPU memory the simulation holds, per stored cell, with the maxima off and on.
    pub gpu_bytes_per_cell: f64,
    pub gpu_bytes_per_cell_maxima: f64,
    pub submit_us_per_step: f64,
    pub dispatches_per_step: usize,
    pub copy_bytes_per_s: f64,
    pub effective_bytes_per_s: f64,
    pub adapter: String,
}

impl BenchResult {
    pub fn ms_per_step(&self) -> f64 {
        1e3 * self.seconds / self.steps.max(1) as f64
    }

    pub fn ratio(&self) -> f64 {
        self.effective_bytes_per_s / self.copy_bytes_per_s
    }

    pub fn to_json(&self) -> serde_json::Value {
        json!({
            "nx": self.nx,
            "ny": self.ny,
            "cells": self.cells,
            "levels": self.levels,
            "steps": self.steps,
            "seconds": self.seconds,
            "ms_per_step": self.ms_per_step(),
            "cell_updates_per_s": self.cell_updates_per_s,
            "host_record_us_per_step": self.record_us_per_step,
            "dispatches_per_step": self.dispatches_per_step,
            "host_submit_us_per_step": self.submit_us_per_step,
            "bytes_per_cell_update": MIN_BYTES_PER_CELL_UPDATE,
            "effective_bytes_per_s": self.effective_bytes_per_s,
            "copy_bytes_per_s": self.copy_bytes_per_s,
            "effective_over_copy": self.ratio(),
            "gpu_bytes_per_cell": self.gpu_bytes_per_cell,
            "gpu_bytes_per_cell_maxima": self.gpu_bytes_per_cell_maxima,
            "maxima_tracked": self.maxima,
            "adapter": self.adapter,
        })
    }

    pub fn report(&self) -> String {
        format!(
            "adapter              {}\n\
             grid                 {nx}x{ny} ({cells} cells on {levels} level(s)), {steps} steps in {s:.3} s ({ms:.3} ms/step){tracked}\n\
             cell updates/s       {cu:.3e}\n\
             host time per step   {record:.2} us recording + {submit:.2} us in queue.submit ({dispatches} dispatches)\n\
             effective bandwidth  {eff:.1} GB/s at {b} B per cell update\n\
             copy bandwidth       {copy:.1} GB/s (read + write, same device)\n\
             effective / copy     {ratio:.3}\n\
             GPU memory per cell  {mem:.1} B (maxima off), {mem_max:.1} B with maxima",
            self.adapter,
            nx = self.nx,
            ny = self.ny,
            cells = self.cells,
            levels = self.levels,
            steps = self.steps,
            ms = self.ms_per_step(),
            s = self.seconds,
            tracked = if self.maxima { ", maxima tracked" } else { "" },
            cu = self.cell_updates_per_s,
            record = self.record_us_per_step,
            submit = self.submit_us_per_step,
            dispatches = self.dispatches_per_step,
            eff = self.effective_bytes_per_s / 1e9,
            b = MIN_BYTES_PER_CELL_UPDATE,
            copy = self.copy_bytes_per_s / 1e9,
            ratio = self.ratio(),
            mem = self.gpu_bytes_per_cell,
            mem_max = self.gpu_bytes_per_cell_maxima,
        )
    }
}

/// The benchmark's grid size for this device: small on a CPU adapter.
pub fn default_n(gpu: &Gpu) -> usize {
    if gpu.is_cpu() {
        512
    } else {
        4096
    }
}

/// The end of every benchmark scenario: no outputs, and no end in sight.
const BENCH_RUN: &str =
    "[output]\nmaxima = false\nrasters = false\npng = false\n\n[time]\nend = 1e9\n";

/// A flat, frictionless square with walls: 1 m of water inside a circle of radius R,
/// 0.1 m outside, on `levels` levels with the finest within 2R of the centre.
fn dam_break_toml(nx: usize, ny: usize, radius: f64, levels: usize) -> String {
    let (cx, cy) = (nx as f64 / 2.0, ny as f64 / 2.0);
    format!(
        r#"
[domain]
cell_size = 1.0
nx = {nx}
ny = {ny}

[refinement]
levels = {levels}

[[refinement.region]]
shape = "circle"
center = [{cx}, {cy}]
radius = {fine}
level = 0

[terrain]
type = "flat"

[initial]
water_level = 0.1

[[initial.region]]
shape = "circle"
center = [{cx}, {cy}]
radius = {radius}
water_level = 1.0

{BENCH_RUN}"#,
        fine = 2.0 * radius
    )
}

fn model_of(toml: &str) -> Result<Model> {
    Ok(crate::scenario::from_str(toml, std::path::Path::new("."))?)
}

/// The fully wet nx × ny dam break (radius a quarter of the shorter side): every block is
/// computed every step.
pub fn dam_break_model(nx: usize, ny: usize) -> Model {
    dam_break_on_levels(nx, ny, 1)
}

/// The wet dam break on `levels` levels: finest cells within N/8 of the centre and a
/// reservoir of radius N/16 as in `multires` (N the shorter side); one level is
/// `dam_break_model`.
pub fn dam_break_on_levels(nx: usize, ny: usize, levels: usize) -> Model {
    let radius = nx.min(ny) as f64 / if levels > 1 { 16.0 } else { 4.0 };
    model_of(&dam_break_toml(nx, ny, radius, levels)).expect("the benchmark scenario is valid")
}

/// (wall s, steps, cell updates) of one run.
pub type Timing = (f64, u64, u64);

/// Time to solution of the same dam break (radius N/16) on uniform finest cells and on
/// three levels (finest within N/8 of the centre), run until the wave has spread N/4:
/// the time stepping, from an initialised simulation (pipelines compiled, buffers filled).
/// And, since small grids cost more per cell than large ones whatever their levels, the
/// same dam break on a uniform grid of about as many cells as the 3-level one.
#[derive(Clone, Debug)]
pub struct MultiresResult {
    pub n: usize,
    pub t_end: f64,
    /// Uniform, then multi-level.
    pub uniform: Timing,
    pub multi: Timing,
    /// Side of the uniform grid with about the 3-level grid's cells, and its run.
    pub n_same_cells: usize,
    pub uniform_same_cells: Timing,
    pub multi_blocks_per_level: Vec<usize>,
    /// Blocks of the 3-level grid with a level change on a side.
    pub level_change_blocks: usize,
}

impl MultiresResult {
    pub fn report(&self) -> String {
        let rate = |r: &Timing| r.2 as f64 / r.0;
        format!(
            "multi-resolution    {n}x{n} finest, 3 levels {levels:?} blocks ({changes} at a level change), to t = {t:.0} s\n\
             uniform finest      {us:.3} s, {usteps} steps, {ucu:.3e} cell updates/s\n\
             3 levels            {ms:.3} s, {msteps} steps, {mcu:.3e} cell updates/s\n\
             time to solution    {speedup:.2}x faster on 3 levels ({cells:.2}x fewer cell updates)\n\
             cost per cell       3 levels / uniform: {ratio:.3}; / uniform {ne}x{ne} (as many cells): {ratio_same:.3}",
            n = self.n,
            levels = self.multi_blocks_per_level,
            changes = self.level_change_blocks,
            t = self.t_end,
            us = self.uniform.0,
            usteps = self.uniform.1,
            ucu = rate(&self.uniform),
            ms = self.multi.0,
            msteps = self.multi.1,
            mcu = rate(&self.multi),
            speedup = self.uniform.0 / self.multi.0,
            cells = self.uniform.2 as f64 / self.multi.2 as f64,
            ratio = rate(&self.uniform) / rate(&self.multi),
            ne = self.n_same_cells,
            ratio_same = rate(&self.uniform_same_cells) / rate(&self.multi),
        )
    }

    pub fn to_json(&self) -> serde_json::Value {
        json!({
            "n": self.n,
            "t_end_s": self.t_end,
            "uniform": { "wall_s": self.uniform.0, "steps": self.uniform.1, "cell_updates": self.uniform.2 },
            "three_levels": { "wall_s": self.multi.0, "steps": self.multi.1, "cell_updates": self.multi.2,
                              "blocks_per_level": self.multi_blocks_per_level,
                              "level_change_blocks": self.level_change_blocks },
            "speedup": self.uniform.0 / self.multi.0,
            "uniform_same_cells": { "n": self.n_same_cells, "wall_s": self.uniform_same_cells.0,
                                    "steps": self.uniform_same_cells.1, "cell_updates": self.uniform_same_cells.2 },
        })
    }
}

pub fn multires(gpu: &Gpu, n: usize) -> Result<MultiresResult> {
    // The front of a 1 m / 0.1 m dam break runs at about 2.5 m/s.
    let t_end_of = |n: usize| (n as f64 / 4.0) / 2.5;
    let t_end = t_end_of(n);
    let time = |n: usize, levels: usize| -> Result<(Timing, Vec<usize>, usize)> {
        let (radius, t_end) = (n as f64 / 16.0, t_end_of(n));
        let model = model_of(&dam_break_toml(n, n, radius, levels))?;
        let mut sim = Simulation::new(gpu, &model)?;
        warm_up(gpu);
        let started = Instant::now();
        sim.advance_to(t_end, &mut |_| {})?;
        let s = sim.status();
        let changes = model.grid.blocks.iter().filter(|b| b.has_level_change());
        Ok((
            (started.elapsed().as_secs_f64(), s.steps, s.cell_updates),
            model.grid.blocks_per_level(),
            changes.count(),
        ))
    };
    let (uniform, _, _) = time(n, 1)?;
    let (multi, multi_blocks_per_level, level_change_blocks) = time(n, 3)?;
    let cells = multi_blocks_per_level.iter().sum::<usize>() * crate::grid::CELLS_PER_BLOCK;
    let n_same_cells = ((cells as f64).sqrt() / 16.0).round().max(1.0) as usize * 16;
    let (uniform_same_cells, _, _) = time(n_same_cells, 1)?;
    Ok(MultiresResult {
        n,
        t_end,
        uniform,
        multi,
        n_same_cells,
        uniform_same_cells,
        multi_blocks_per_level,
        level_change_blocks,
    })
}

/// Times `steps` steps after a warm-up, with or without the run's maxima tracked, and the
/// copy kernel on a buffer of the state's size.
pub fn run(gpu: &Gpu, mut model: Model, steps: u64, maxima: bool) -> Result<BenchResult> {
    let (nx, ny) = (model.nx(), model.ny());
    model.numerics.track_maxima = maxima;
    let mut sim = Simulation::new(gpu, &model)?;
    warm_up(gpu);
    sim.run_steps(10.min(steps))?;
    let before = sim.status().clone();
    let host_before = (sim.host_record_s, sim.host_submit_s, sim.host_steps);
    let started = Instant::now();
    sim.run_steps(steps)?;
    let seconds = started.elapsed().as_secs_f64();
    let after = sim.status().clone();
    let updates = (after.cell_updates - before.cell_updates) as f64;
    let host_steps = (sim.host_steps - host_before.2).max(1) as f64;
    let record_us_per_step = 1e6 * (sim.host_record_s - host_before.0) / host_steps;
    let submit_us_per_step = 1e6 * (sim.host_submit_s - host_before.1) / host_steps;
    let cells = model.grid.stored_cells() as f64;
    let timed = sim.gpu_bytes() as f64 / cells;
    let dispatches_per_step = sim.dispatches_per_step();
    drop(sim);
    let copy_bytes_per_s = copy_bandwidth(gpu, (model.grid.stored_cells() * 16) as u64);
    let other = memory_with_maxima(gpu, &model, !maxima)? as f64 / cells;
    let (gpu_bytes_per_cell, gpu_bytes_per_cell_maxima) = if maxima {
        (other, timed)
    } else {
        (timed, other)
    };
    let cell_updates_per_s = updates / seconds;
    Ok(BenchResult {
        maxima,
        gpu_bytes_per_cell,
        gpu_bytes_per_cell_maxima,
        nx,
        ny,
        cells: model.grid.stored_cells(),
        levels: model.grid.levels,
        steps: after.steps - before.steps,
        seconds,
        cell_updates_per_s,
        record_us_per_step,
        submit_us_per_step,
        dispatches_per_step,
        copy_bytes_per_s,
        effective_bytes_per_s: cell_updates_per_s * MIN_BYTES_PER_CELL_UPDATE as f64,
        adapter: gpu.describe(),
    })
}

/// GPU memory of a simulation of the model with the maxima tracked or not.
fn memory_with_maxima(gpu: &Gpu, model: &Model, maxima: bool) -> Result<u64> {
    let mut other = model.clone();
    other.numerics.track_maxima = maxima;
    Ok(Simulation::new(gpu, &other)?.gpu_bytes())
}

/// How the water of the wet-fraction sweep behaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WetSweep {
    /// A dam break onto dry ground: the wet area grows as the front spreads.
    Spreading,
    /// A dam break held in its strip by a wall: the wet area stays the strip, as a river
    /// stays in its valley.
    Confined,
}

/// Time per step of a dam break whose water covers `fraction` of the N × N domain at the
/// start (a strip along the west side), dry blocks skipped; timed over `steps` steps after
/// a warm-up. Returns (ms per step, share of blocks launched).
pub fn wet_fraction(
    gpu: &Gpu,
    n: usize,
    fraction: f64,
    steps: u64,
    kind: WetSweep,
) -> Result<(f64, f64)> {
    let x = fraction * n as f64;
    let strip = |level: f64, width: f64| {
        format!(
            "[[initial.region]]\nshape = \"rectangle\"\nmin = [0.0, 0.0]\nmax = [{width}, {n}]\nwater_level = {level}\n\n"
        )
    };
    let water = match kind {
        WetSweep::Spreading => strip(1.0, x),
        WetSweep::Confined => {
            // A levee one cell east of the strip; the all-wet run needs none.
            let wall = if fraction < 1.0 {
                format!(
                    "[[levee]]\nline = [[{w}, 0.5], [{w}, {top}]]\n\n",
                    w = x + 0.5,
                    top = n as f64 - 0.5
                )
            } else {
                String::new()
            };
            format!("{wall}{}{}", strip(0.1, x), strip(1.0, x / 2.0))
        }
    };
    let toml = format!(
        r#"
[domain]
cell_size = 1.0
nx = {n}
ny = {n}

[terrain]
type = "flat"

{water}{BENCH_RUN}"#
    );
    let model = model_of(&toml)?;
    let mut sim = Simulation::new(gpu, &model)?;
    warm_up(gpu);
    sim.run_steps(10.min(steps))?;
    let started = Instant::now();
    let before = sim.status().cell_updates;
    sim.run_steps(steps)?;
    let seconds = started.elapsed().as_secs_f64();
    let launched = (sim.status().cell_updates - before) as f64
        / (steps * model.grid.stored_cells() as u64) as f64;
    Ok((1e3 * seconds / steps as f64, launched))
}

/// GPU time per kernel over `steps` steps of the same dam break, after a warm-up; None
/// without timestamp queries.
pub fn profile(gpu: &Gpu, nx: usize, ny: usize, steps: u64) -> Result<Option<Profile>> {
    let model = dam_break_model(nx, ny);
    let mut sim = Simulation::new(gpu, &model)?;
    warm_up(gpu);
    sim.run_steps(10.min(steps))?;
    if !sim.enable_profiling() {
        return Ok(None);
    }
    sim.run_steps(steps)?;
    Ok(sim.profile())
}

/// Bytes read plus written per second by a vec4 copy kernel over `bytes` of data.
pub fn copy_bandwidth(gpu: &Gpu, bytes: u64) -> f64 {
    let copy = CopyKernel::new(gpu, bytes);
    warm_up(gpu);
    copy.run(2);
    let reps = if gpu.is_cpu() { 5 } else { 50 };
    let started = Instant::now();
    copy.run(reps);
    2.0 * bytes as f64 * reps as f64 / started.elapsed().as_secs_f64()
}

/// Seconds of work a GPU gets before each timed section. An idle GPU drops its clock and
/// needs time under load to raise it again: between runs the H100 sat at 345–765 MHz
/// against 1980 MHz under load (nvidia-smi), and a run timed straight after such a pause
/// came out up to three times slower than the same run a moment later.
const WARM_UP_S: f64 = 0.5;

/// Keeps a GPU busy with copies for `WARM_UP_S` (a CPU adapter has no clock to raise).
pub fn warm_up(gpu: &Gpu) {
    if gpu.is_cpu() {
        return;
    }
    let copy = CopyKernel::new(gpu, 64 << 20);
    let started = Instant::now();
    while started.elapsed().as_secs_f64() < WARM_UP_S {
        copy.run(10);
    }
}

/// A vec4 copy between two storage buffers of `bytes` each.
struct CopyKernel<'g> {
    gpu: &'g Gpu,
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    groups: (u32, u32),
    // Held for the bind group.
    _buffers: [wgpu::Buffer; 2],
}

impl<'g> CopyKernel<'g> {
    fn new(gpu: &'g Gpu, bytes: u64) -> CopyKernel<'g> {
        let d = &gpu.device;
        let make = |label| {
            d.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            })
        };
        let (src, dst) = (make("copy src"), make("copy dst"));
        let pipeline = gpu.compute_pipeline("copy", shaders::COPY, "copy");
        let bind_group = d.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("copy"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: src.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: dst.as_entire_binding(),
                },
            ],
        });
        CopyKernel {
            gpu,
            pipeline,
            bind_group,
            groups: crate::solver::grid_2d((bytes / 16).div_ceil(256) as u32),
            _buffers: [src, dst],
        }
    }

    /// `reps` copies in one submission, waited for.
    fn run(&self, reps: u32) {
        let d = &self.gpu.device;
        let mut encoder = d.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.bind_group, &[]);
            for _ in 0..reps {
                pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
            }
        }
        self.gpu.queue.submit([encoder.finish()]);
        d.poll(wgpu::PollType::wait_indefinitely())
            .expect("wait for the copy kernel");
    }
}

/// The wet dam break on nx × ny cells cut into `pieces` sub-domains on one GPU, each with
/// buffers of its own and run as a rank on a thread: a grid larger than one storage
/// binding (2 GiB on an H100: 134 M cells) runs on one GPU this way.
pub fn split(
    gpu: &Gpu,
    pieces: usize,
    nx: usize,
    ny: usize,
    steps: u64,
) -> Result<serde_json::Value> {
    let started = Instant::now();
    let model = dam_break_model(nx, ny);
    let built_s = started.elapsed().as_secs_f64();
    let mut figures = crate::comm::threads::on_threads(pieces, |c| scaling(gpu, c, &model, steps))?;
    figures["sub_domains_on_one_gpu"] = pieces.into();
    figures["model_build_s"] = built_s.into();
    Ok(figures)
}

/// Steps of a ranked benchmark timed pass by pass after the timed run.
const TIMED_PASS_STEPS: u32 = 16;
/// A benchmark dam break (`dam_break_on_levels`) split over the ranks of `comm`, a model
/// every rank shares: time per step and where each rank waits. Every rank calls this;
/// rank 0 gets the result.
pub fn scaling(
    gpu: &Gpu,
    comm: &dyn crate::comm::Comm,
    model: &Model,
    steps: u64,
) -> Result<Option<serde_json::Value>> {
    use crate::partition::{partition, per_block, Method};
    use crate::solver::ranks::{named, PASS_NAMES};
    let (nx, ny) = (model.nx(), model.ny());
    let p = partition(&model.grid, comm.size(), Method::Hilbert, &per_block);
    let mut ranked = crate::solver::ranks::Ranked::new(gpu, model, &p, comm)?;
    warm_up(gpu);
    ranked.run_steps(10.min(steps))?;
    let (before, waits_before) = (ranked.status().clone(), ranked.waits());
    let started = Instant::now();
    ranked.run_steps(steps)?;
    let seconds = started.elapsed().as_secs_f64();
    let w = ranked.waits();
    let per_step = |a: f64, b: f64| 1e3 * (a - b) / steps as f64;
    let updates = (ranked.status().cell_updates - before.cell_updates) as f64;
    let mut mine = vec![
        per_step(w.compute_s, waits_before.compute_s),
        per_step(w.exchange_s, waits_before.exchange_s),
        per_step(w.reduce_s, waits_before.reduce_s),
    ];
    // Then where the GPU's time goes, in steps of their own: timestamps around every pass.
    if let Some(t) = ranked.gpu_pass_seconds(TIMED_PASS_STEPS)? {
        mine.extend(t.busy.iter().chain(&t.before).map(|s| 1e3 * s));
    }
    let all = comm.gather(bytemuck::cast_slice(&mine).to_vec());
    // Cell updates are counted per rank: the total is the sum over ranks.
    let total = comm.sum_f64(updates);
    let gpu_bytes = comm.sum_f64(ranked.gpu_bytes() as f64);
    Ok(all.map(|all| {
        json!({
            "ranks": comm.size(),
            "nx": nx,
            "ny": ny,
            "cells": nx * ny,
            "stored_cells": model.grid.stored_cells(),
            "levels": model.grid.levels,
            "steps": steps,
            "seconds": seconds,
            "ms_per_step": 1e3 * seconds / steps as f64,
            "cell_updates_per_s": total / seconds,
            "gpu_bytes_per_cell": gpu_bytes / model.grid.stored_cells() as f64,
            "adapter": gpu.describe(),
            "per_rank_ms_per_step": all.iter().enumerate().map(|(r, b)| {
                let v: &[f64] = bytemuck::cast_slice(b);
                let mut rank = json!({ "rank": r, "gpu_wait": v[0], "exchange_wait": v[1], "dt_reduction_wait": v[2] });
                if v.len() == 3 + 2 * PASS_NAMES.len() {
                    let (busy, before) = v[3..].split_at(PASS_NAMES.len());
                    rank["gpu_busy"] = busy.iter().sum::<f64>().into();
                    rank["gpu_passes"] = named(busy).into();
                    rank["gpu_between"] = before.iter().sum::<f64>().into();
                    rank["gpu_before_passes"] = named(before).into();
                }
                rank
            }).collect::<Vec<_>>(),
        })
    }))
}
