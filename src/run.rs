//! A whole run: scenario in, results out. Used by `quadflood run` and by the tests.

mod checkpoints;
mod profile;
mod progress;
mod record;
mod samples;

pub use profile::{profile_json, profile_table};

use crate::balance::{self, Balance};
use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::io::animation::Animation;
use crate::io::checkpoint::{Fingerprint, Restart};
use crate::io::elapsed::Resolution;
use crate::io::names::TimeLabels;
use crate::io::outdir::OutDir;
use crate::io::outputs;
use crate::io::series::Series;
use crate::io::writer::BackgroundWriter;
use crate::provenance::Provenance;
use crate::scenario::model::Model;
use crate::solver::{Fields, Simulation, Status, Stepper};
use progress::Reporter;
use samples::{record_balance, sample_gauges, Probes};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// How a run reports progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// A bar on a terminal, periodic lines otherwise.
    Auto,
    Quiet,
}

pub struct RunOptions {
    pub out_dir: PathBuf,
    pub progress: Progress,
    /// Simulated seconds between checkpoints.
    pub checkpoint_every: Option<f64>,
    /// GPU timestamps around every kernel (`--profile`), where the adapter has them.
    pub profile: bool,
    /// Seconds spent loading the scenario (and a restart's checkpoint) before the run's
    /// clock started; reported beside the run's own wall clock.
    pub loading_s: f64,
    /// What the checkpoint of a restart (`--restart`) recorded beside the state, which
    /// `io::checkpoint::restore` has put into the model.
    pub restart: Option<Restart>,
    /// The build, command line, start and host, for `summary.json` and `run.log`.
    pub provenance: Provenance,
}

/// Totals of a finished run (also written to `summary.json`).
#[derive(Clone, Debug)]
pub struct Summary {
    pub status: Status,
    pub wall_s: f64,
    pub mass_initial: f64,
    pub mass_final: f64,
    pub mass_inflow: f64,
    pub mass_outflow: f64,
    pub mass_rain: f64,
    /// Lost to the ground (`[losses]`).
    pub mass_losses: f64,
    pub max_depth: f64,
    pub host_us_per_step: f64,
    pub json: serde_json::Value,
}

impl Summary {
    /// (final − initial − in + out − rain + losses) / (initial + in + rain).
    pub fn mass_error_rel(&self) -> f64 {
        Balance {
            initial: self.mass_initial,
            inflow: self.mass_inflow,
            outflow: self.mass_outflow,
            rain: self.mass_rain,
            losses: self.mass_losses,
            storage: self.mass_final,
        }
        .error_rel()
    }
}

fn io_err(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Io(format!("{}: {e}", path.display()))
}

/// A map writer's error, which names its file.
fn map_err(e: std::io::Error) -> Error {
    Error::Io(e.to_string())
}

/// What rank 0 writes with: the output folder, claimed for this run, and the scenario's
/// fingerprint for checkpoints (when the run writes them).
struct Writing {
    out: OutDir,
    fingerprint: Option<Fingerprint>,
    /// Why `event.nc`, on by default, will not be written (`record::inputs`).
    event_left_out: Option<String>,
}

/// Claims the output folder for this run (`io::outdir`) before anything else is done;
/// returns the series files to append to.
fn claim(model: &Model, opts: &RunOptions) -> Result<(Writing, Series)> {
    let say = opts.progress != Progress::Quiet;
    let restart = opts.restart.as_ref();
    let (out, series) = OutDir::claim(&opts.out_dir, model, restart, say)?;
    let event_left_out = record::inputs(&opts.out_dir, model, opts)?;
    let fingerprint = opts.checkpoint_every.map(|_| match restart {
        Some(r) => r.fingerprint.clone(),
        None => Fingerprint::of(model),
    });
    let writing = Writing {
        out,
        fingerprint,
        event_left_out,
    };
    Ok((writing, series))
}

/// Runs the model to its end time on one GPU, writing outputs into `opts.out_dir`.
pub fn run(gpu: &Gpu, model: &Model, opts: &RunOptions) -> Result<Summary> {
    let started = Instant::now();
    let (writing, series) = claim(model, opts)?;
    let mut sim =
        Simulation::new(gpu, model).map_err(|e| unstable_report(e, model, None, &opts.out_dir))?;
    if opts.profile && !sim.enable_profiling() {
        crate::say!(
            "--profile: {} has no timestamp queries; timing the host only",
            gpu.info.name
        );
    }
    let run = Run::new(gpu, model, opts, 1, Some(&writing), started);
    let summary = drive(&mut sim, &run, Some(series))?;
    Ok(summary.expect("a single rank is rank 0"))
}

/// Runs the model as `pieces` sub-domains on one GPU, each a rank on a thread with buffers
/// of its own (a grid larger than one storage binding); writes what `run` writes.
pub fn run_split(gpu: &Gpu, model: &Model, pieces: usize, opts: &RunOptions) -> Result<Summary> {
    let p = crate::partition::partition(
        &model.grid,
        pieces,
        model.partition,
        &crate::partition::per_block,
    );
    let (writing, series) = claim(model, opts)?;
    let series = std::sync::Mutex::new(Some(series));
    let mut summary = crate::comm::threads::on_threads(pieces, |c| {
        let root = (crate::comm::Comm::rank(c) == 0).then(|| {
            let series = series.lock().expect("the series").take();
            (&writing, series.expect("rank 0 takes the series once"))
        });
        ranked(gpu, model, &p, c, opts, root)
    })?;
    summary.json["sub_domains_on_one_gpu"] = pieces.into();
    outputs::write_json_atomic(&opts.out_dir.join("summary.json"), &summary.json)
        .map_err(|e| io_err(&opts.out_dir, e))?;
    Ok(summary)
}

/// Runs this rank's share of a run split over `comm`; rank 0 writes the outputs and gets
/// the summary.
pub fn run_ranked(
    gpu: &Gpu,
    model: &Model,
    partition: &crate::partition::Partition,
    comm: &dyn crate::comm::Comm,
    opts: &RunOptions,
) -> Result<Option<Summary>> {
    match comm.rank() {
        0 => {
            let (writing, series) = claim(model, opts)?;
            ranked(gpu, model, partition, comm, opts, Some((&writing, series)))
        }
        _ => ranked(gpu, model, partition, comm, opts, None),
    }
}

/// `run_ranked` with the output folder claimed (rank 0).
fn ranked(
    gpu: &Gpu,
    model: &Model,
    partition: &crate::partition::Partition,
    comm: &dyn crate::comm::Comm,
    opts: &RunOptions,
    root: Option<(&Writing, Series)>,
) -> Result<Option<Summary>> {
    let started = Instant::now();
    let mut ranked = crate::solver::ranks::Ranked::new(gpu, model, partition, comm)
        .map_err(|e| unstable_report(e, model, None, &opts.out_dir))?;
    let (writing, series) = match root {
        Some((w, s)) => (Some(w), Some(s)),
        None => (None, None),
    };
    if writing.is_some() && model.write_png {
        ranked.draw_partitions(&opts.out_dir)?;
    }
    let opts = RunOptions {
        out_dir: opts.out_dir.clone(),
        progress: match writing {
            Some(_) => opts.progress,
            None => Progress::Quiet,
        },
        checkpoint_every: opts.checkpoint_every,
        profile: opts.profile,
        loading_s: opts.loading_s,
        restart: opts.restart.clone(),
        provenance: opts.provenance.clone(),
    };
    if opts.profile && !ranked.enable_profiling() && writing.is_some() {
        crate::say!(
            "--profile: {} has no timestamp queries; the per-rank compute and wait times are in summary.json",
            gpu.describe()
        );
    }
    let run = Run::new(gpu, model, &opts, comm.size(), writing, started);
    drive(&mut ranked, &run, series)
}

struct Run<'a> {
    gpu: &'a Gpu,
    model: &'a Model,
    opts: &'a RunOptions,
    ranks: usize,
    /// Rank 0's: the one that writes files.
    writing: Option<&'a Writing>,
    started: Instant,
    /// Output times in file names: the same as the checkpoint's run's on a restart.
    labels: TimeLabels,
    /// Output times in titles: likewise.
    title_times: Resolution,
}

impl<'a> Run<'a> {
    fn new(
        gpu: &'a Gpu,
        model: &'a Model,
        opts: &'a RunOptions,
        ranks: usize,
        writing: Option<&'a Writing>,
        started: Instant,
    ) -> Run<'a> {
        let recorded = opts.restart.as_ref().map_or(1, |r| r.label_decimals);
        Run {
            gpu,
            model,
            opts,
            ranks,
            writing,
            started,
            labels: TimeLabels::for_times(&model.output_times, recorded),
            title_times: opts.restart.as_ref().map_or_else(
                || {
                    let times = &model.output_times;
                    let reference = model.time_reference.as_ref();
                    Resolution::for_run(model.t_start, model.t_end, times, reference)
                },
                |r| r.title_times,
            ),
        }
    }
}

/// What rank 0 writes as the run goes: maps, gauges and the mass balance.
struct Files<'a> {
    maps: &'a outputs::Maps,
    writing: &'a Writing,
    series: Series,
    labels: TimeLabels,
    /// How titles write output times.
    title_times: Resolution,
    animation: Option<Animation>,
    /// The last state known to be sound, for the diagnostic map if the run goes unstable.
    last_good: Option<(f64, Arc<Fields>)>,
}

impl<'a> Files<'a> {
    fn new(
        run: &Run<'a>,
        maps: &'a outputs::Maps,
        writing: &'a Writing,
        series: Series,
    ) -> Files<'a> {
        let model = run.model;
        let animation = model.write_animation.then(|| {
            Animation::new(
                model.nx(),
                model.ny(),
                model.cell_size,
                &maps.valid,
                &maps.bed,
            )
        });
        Files {
            maps,
            writing,
            series,
            labels: run.labels,
            title_times: run.title_times,
            animation,
            last_good: None,
        }
    }
}

/// Where a run's wall clock went, in seconds (rank 0's view).
#[derive(Clone, Copy, Debug, Default)]
struct WallClock {
    /// The GPU's buffers and pipelines (and on ranks the partition); loading the scenario
    /// comes before the run's clock starts.
    setup: f64,
    /// Inside the time loop's steps, until each stop's state is on the GPU.
    stepping: f64,
    /// Reading fields, gauges and checkpoints back from the GPU (gathered from every rank).
    reading: f64,
    /// Waiting for the writer of earlier output times' files, and writing the last ones.
    files: f64,
}

impl WallClock {
    fn json(&self, wall_s: f64) -> serde_json::Value {
        let counted = self.setup + self.stepping + self.reading + self.files;
        json!({
            "setup": self.setup,
            "stepping": self.stepping,
            "reading_results": self.reading,
            "writing_files": self.files,
            "other": (wall_s - counted).max(0.0),
        })
    }
}

/// Adds the seconds `f` takes to `*into`.
fn timed<T>(into: &mut f64, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let value = f();
    *into += start.elapsed().as_secs_f64();
    value
}

/// The time loop of a run: stop at every output and gauge time, write what is due. Files
/// are written on a thread of their own while the GPU steps on.
fn drive(sim: &mut dyn Stepper, run: &Run, series: Option<Series>) -> Result<Option<Summary>> {
    let maps = run.writing.map(|_| outputs::Maps::new(run.model));
    std::thread::scope(|scope| {
        let mut writer = BackgroundWriter::new(scope);
        let mut clock = WallClock {
            setup: run.started.elapsed().as_secs_f64(),
            ..Default::default()
        };
        let mut files = match (&maps, run.writing, series) {
            (Some(maps), Some(writing), Some(series)) => {
                Some(Files::new(run, maps, writing, series))
            }
            _ => None,
        };
        if let Err(e) = step_through(sim, run, &mut files, &mut writer, &mut clock) {
            // However the run ends, its series keep every sample it took (whole rows).
            if let Some(f) = files.as_mut() {
                let _ = f.series.flush();
            }
            return Err(e);
        }
        finish(sim, run, files, writer, clock)
    })
}

/// Every stop of the run: gauges, maps, the mass balance and checkpoints where due; a
/// clean stop where a signal asks for one.
fn step_through<'s>(
    sim: &mut dyn Stepper,
    run: &Run<'s>,
    files: &mut Option<Files<'s>>,
    writer: &mut BackgroundWriter<'s>,
    clock: &mut WallClock,
) -> Result<()> {
    let (model, dir) = (run.model, &run.opts.out_dir);
    let mut reporter = Reporter::new(model, run.opts.progress);
    let probes = Probes::new(model);
    if model.resume.is_none() {
        timed(&mut clock.reading, || {
            sample_gauges(sim, files, model, &probes, model.t_start)
        })?;
        let fields = timed(&mut clock.reading, || sim.fields()).map(Arc::new);
        record_balance(sim, files, model, model.t_start, fields)?;
    }
    let stops = targets(model);
    let checkpoints = checkpoints::Due::new(model, &stops, run.opts.checkpoint_every);
    let mut poison_at = test_poison_time();
    for target in stops {
        if poison_at.is_some_and(|t| target > t) {
            sim.poison_for_test();
            poison_at = None;
        }
        let stepped = timed(&mut clock.stepping, || {
            sim.advance_to(target, &mut |s| reporter.update(s))
        });
        if let Err(e) = stepped {
            return Err(unstable_report(e, model, files.as_mut(), dir));
        }
        if sim.status().t < target {
            reporter.abandon();
            return Err(checkpoints.stopped(sim, run, files, writer));
        }
        if model.gauge_times.contains(&target) {
            timed(&mut clock.reading, || {
                sample_gauges(sim, files, model, &probes, target)
            })?;
        }
        if model.output_times.contains(&target) {
            let fields = timed(&mut clock.reading, || sim.fields()).map(Arc::new);
            // A state whose mass balance broke is no result: checked before its maps.
            record_balance(sim, files, model, target, fields.clone())?;
            if let (Some(fields), Some(f)) = (fields.as_ref(), files.as_mut()) {
                let when = f.title_times.title(target, model.time_reference.as_ref());
                let title = format!("depth  {when}");
                if let Some(a) = f.animation.as_mut() {
                    a.push(title.clone(), &fields.depth);
                }
                let (maps, fields) = (f.maps, fields.clone());
                let label = f.labels.label(target);
                writer.write(move || write_outputs(dir, model, maps, &fields, &label, title))?;
            }
            if let Some(f) = files.as_mut() {
                f.series.flush()?;
            }
        }
        checkpoints.at(target, sim, run, files, writer, clock)?;
        if sim.stop_requested() {
            reporter.abandon();
            return Err(checkpoints.stopped(sim, run, files, writer));
        }
    }
    reporter.finish(sim.status());
    Ok(())
}

/// After the last stop: the maxima, the animation, the series files closed, and the
/// summary (rank 0) once every file is written.
fn finish<'s>(
    sim: &mut dyn Stepper,
    run: &Run<'s>,
    files: Option<Files<'s>>,
    mut writer: BackgroundWriter<'s>,
    mut clock: WallClock,
) -> Result<Option<Summary>> {
    let (model, dir) = (run.model, &run.opts.out_dir);
    let snapshot = timed(&mut clock.reading, || sim.snapshot());
    let (mass_inflow, mass_outflow) = sim.edge_volumes();
    let mass_losses = sim.lost_volume();
    let reports = sim.rank_reports();
    let rebalancing = sim.rebalancing();
    let (Some(snapshot), Some(mut files)) = (snapshot, files) else {
        return Ok(None);
    };
    let grid = &model.grid;
    let fields = Fields::from_stored(grid, &snapshot.state);
    let mass_initial = files
        .series
        .initial()
        .unwrap_or_else(|| model.stored_volume(&model.depth));
    files.series.flush()?;
    // The last maps and the animation are written beside the writer's last output time.
    let animation = files.animation.take().filter(|a| a.len() > 1);
    let peaks = model
        .numerics
        .track_maxima
        .then(|| grid.from_storage(&snapshot.resume.maxima));
    let max_depth: Vec<f32> = match &peaks {
        Some(peaks) => peaks.iter().map(|p| p.depth).collect(),
        None => fields.depth.clone(),
    };
    let gif = animation.map(|a| move || a.write(&dir.join("flood.gif")).map_err(Error::Io));
    timed(&mut clock.files, || {
        beside(gif, || match &peaks {
            Some(peaks) => write_maxima(dir, model, files.maps, peaks, &max_depth),
            None => Ok(()),
        })
    })?;
    if model.losses.any() {
        let infiltrated = grid.from_storage(&snapshot.resume.infiltrated);
        timed(&mut clock.files, || {
            outputs::write_infiltration(dir, model, files.maps, &infiltrated).map_err(map_err)
        })?;
    }
    writer.finish()?;
    clock.files += writer.waited_s;
    if files.writing.event_left_out.is_none() {
        timed(&mut clock.files, || {
            record::event(dir, model, run.opts, &files.labels)
        })?;
    }
    let status = Status {
        // On ranks the status is rank 0's own; the snapshot counts every rank's updates.
        cell_updates: snapshot.resume.cell_updates,
        ..sim.status().clone()
    };
    let mut summary = Summary {
        mass_initial,
        mass_final: model.volume(&fields.depth),
        mass_inflow,
        mass_outflow,
        mass_rain: status.rain_depth * model.valid_cells() as f64 * model.cell_area(),
        mass_losses,
        max_depth: max_depth.iter().cloned().fold(0.0f32, f32::max) as f64,
        host_us_per_step: sim.host_us_per_step(),
        status,
        wall_s: run.started.elapsed().as_secs_f64(),
        json: serde_json::Value::Null,
    };
    summary.json = summary_json(run.gpu, model, &summary);
    summary.json["provenance"] = run.opts.provenance.json();
    if let Some(why) = &files.writing.event_left_out {
        summary.json["event_nc_left_out"] = why.clone().into();
    }
    summary.json["provenance"]["adapter"] = run.gpu.describe().into();
    summary.json["wall_clock_s"] = clock.json(summary.wall_s);
    // Before the run's clock started, so not a part of wall_s.
    summary.json["wall_clock_s"]["loading_scenario"] = run.opts.loading_s.into();
    summary.json["ranks"] = run.ranks.into();
    if let Some(reports) = reports {
        summary.json["per_rank"] = reports.into();
    }
    if let Some(log) = rebalancing {
        summary.json["rebalancing"] = log.into();
    }
    if let Some(p) = sim.profile() {
        summary.json["profile"] = profile_json(&p, summary.host_us_per_step);
        if run.opts.progress != Progress::Quiet {
            crate::console::text_to_stderr(format_args!(
                "{}",
                profile_table(&p, summary.host_us_per_step)
            ));
        }
    }
    let gauge_files: serde_json::Map<String, serde_json::Value> = files
        .series
        .gauge_files(model)
        .into_iter()
        .map(|(gauge, file)| (gauge.to_string(), file.into()))
        .collect();
    summary.json["gauge_files"] = gauge_files.into();
    // Every file the run wrote but this one, written last.
    summary.json["files"] = files
        .writing
        .out
        .run_files()
        .map_err(|e| io_err(dir, e))?
        .into();
    let summary_path = dir.join("summary.json");
    outputs::write_json_atomic(&summary_path, &summary.json)
        .map_err(|e| io_err(&summary_path, e))?;
    Ok(Some(summary))
}

/// The maxima's maps and, where asked, the quick-look of the maximum depth.
fn write_maxima(
    dir: &Path,
    model: &Model,
    maps: &outputs::Maps,
    peaks: &[crate::scenario::maxima::Peak],
    max_depth: &[f32],
) -> Result<()> {
    let quicklook = model.write_png.then_some(|| {
        let title = "maximum depth".into();
        outputs::write_depth_png(dir, "max_depth.png", title, model, maps, max_depth)
            .map_err(Error::Io)
    });
    beside(quicklook, || {
        outputs::write_maxima(dir, model, maps, peaks).map_err(map_err)
    })
}

/// Turns an unstable run into a report with the place, and writes the last sound state as
/// a diagnostic map (on rank 0, when it holds one).
fn unstable_report(e: Error, model: &Model, files: Option<&mut Files<'_>>, dir: &Path) -> Error {
    let Error::Unstable { t, block } = e else {
        return e;
    };
    let mut message = match model.grid.blocks.get(block as usize) {
        Some(_) => format!(
            "NaN, infinity or a wave speed over 10 km/s by t = {t:.3} s in {}; try a smaller time.cfl or check the inputs there",
            balance::place_of_block(model, Some(block))
        ),
        // Another rank went unstable; its own report names the block.
        None => format!(
            "NaN, infinity or a wave speed over 10 km/s by t = {t:.3} s on another rank (its report names the block); try a smaller time.cfl or check the inputs"
        ),
    };
    if let Some(Files {
        maps,
        labels,
        last_good: Some((t_good, fields)),
        ..
    }) = files
    {
        let name = format!("diagnostic_last_good_{}", labels.label(*t_good));
        let depth = outputs::Band::new("water depth, the last sound state", "m", |c| {
            Some(fields.depth[c] as f64)
        });
        match maps.write(dir, model, &name, &[depth]) {
            Ok(path) => {
                message += &format!(
                    "; the depth of the last sound state is in {}",
                    path.display()
                )
            }
            Err(e) => message += &format!("; could not write the diagnostic map: {e}"),
        }
    }
    Error::Diverged(message)
}

/// `QUADFLOOD_TEST_POISON_AT=t`: from the first stop after t, the state holds a NaN (a
/// fault no sound input makes), so that the tests can reach the report of an unstable run.
fn test_poison_time() -> Option<f64> {
    std::env::var("QUADFLOOD_TEST_POISON_AT").ok()?.parse().ok()
}

/// Every time the run must stop at: outputs and gauge samples, in order.
fn targets(model: &Model) -> Vec<f64> {
    let mut t: Vec<f64> = model
        .output_times
        .iter()
        .chain(&model.gauge_times)
        .copied()
        .filter(|&t| t > model.t_start)
        .collect();
    t.sort_by(|a, b| a.partial_cmp(b).unwrap());
    t.dedup();
    t
}

/// The maps and the quick-look of an output time (`label` in file names, `title` on the
/// quick-look).
fn write_outputs(
    dir: &Path,
    model: &Model,
    maps: &outputs::Maps,
    fields: &Fields,
    label: &str,
    title: String,
) -> Result<()> {
    let quicklook = model.write_png.then_some(|| {
        let name = format!("depth_{label}.png");
        outputs::write_depth_png(dir, &name, title, model, maps, &fields.depth).map_err(Error::Io)
    });
    beside(quicklook, || match model.write_rasters {
        true => outputs::write_rasters(dir, model, maps, label, fields).map_err(map_err),
        false => Ok(Vec::new()),
    })
}

/// Runs `main` and, when there is one, `side` on a thread beside it (drawing a quick-look
/// or an animation takes as long as writing a map); the first error.
fn beside<A: Send, B>(
    side: Option<impl FnOnce() -> Result<A> + Send>,
    main: impl FnOnce() -> Result<B>,
) -> Result<()> {
    std::thread::scope(|s| {
        let running = side.map(|f| s.spawn(f));
        main()?;
        match running.map(|r| r.join().expect("a file writer panicked")) {
            Some(Err(e)) => Err(e),
            _ => Ok(()),
        }
    })
}

fn summary_json(gpu: &Gpu, model: &Model, s: &Summary) -> serde_json::Value {
    json!({
        "scenario": model.name,
        "cells": model.valid_cells(),
        "blocks": model.grid.nblocks(),
        "levels": model.grid.levels,
        "blocks_per_level": model.grid.blocks_per_level(),
        "raster_resampling": "rasters are at the finest cell size; a coarse cell's value is replicated over the finest cells it covers",
        "nx": model.nx(),
        "ny": model.ny(),
        "cell_size_m": model.cell_size,
        "datum_m": model.datum,
        "steps": s.status.steps,
        "steps_planned_again": s.status.steps_planned_again,
        "t_start_s": model.t_start,
        "t_end_s": s.status.t,
        "wall_s": s.wall_s,
        "cell_updates": s.status.cell_updates,
        "cell_updates_per_s": s.status.cell_updates as f64 / s.wall_s.max(1e-9),
        "host_us_per_step": s.host_us_per_step,
        "mass_initial_m3": s.mass_initial,
        "mass_final_m3": s.mass_final,
        "mass_inflow_m3": s.mass_inflow,
        "mass_outflow_m3": s.mass_outflow,
        "mass_rain_m3": s.mass_rain,
        "mass_infiltrated_m3": s.mass_losses,
        "mass_error_rel": s.mass_error_rel(),
        "max_depth_m": s.max_depth,
        "adapter": gpu.info.name,
        "backend": format!("{:?}", gpu.info.backend),
        "device_type": format!("{:?}", gpu.info.device_type),
        "output_times_s": model.output_times,
        "time_reference": model.time_reference.map(|r| r.iso()),
        "output_times_utc": model.time_reference.map(|r| {
            model.output_times.iter().map(|&t| r.utc(t)).collect::<Vec<_>>()
        }),
        "gauges": model.gauges.iter().map(|g| g.name.clone()).collect::<Vec<_>>(),
    })
}
