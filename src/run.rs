//! A whole run: scenario in, results out. Used by `quadflood run` and by the tests.

use crate::balance::{self, Balance};
use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::io::animation::Animation;
use crate::io::outputs::{self, GaugeFiles};
use crate::io::writer::BackgroundWriter;
use crate::scenario::model::Model;
use crate::solver::{Fields, Simulation, Snapshot, Status, Stepper};
use serde_json::json;
use std::io::IsTerminal;
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
    pub max_depth: f64,
    pub host_us_per_step: f64,
    pub json: serde_json::Value,
}

impl Summary {
    /// (final − initial − in + out − rain) / (initial + in + rain).
    pub fn mass_error_rel(&self) -> f64 {
        Balance {
            initial: self.mass_initial,
            inflow: self.mass_inflow,
            outflow: self.mass_outflow,
            rain: self.mass_rain,
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

/// Runs the model to its end time on one GPU, writing outputs into `opts.out_dir`.
pub fn run(gpu: &Gpu, model: &Model, opts: &RunOptions) -> Result<Summary> {
    let started = Instant::now();
    let mut sim =
        Simulation::new(gpu, model).map_err(|e| unstable_report(e, model, None, &opts.out_dir))?;
    if opts.profile && !sim.enable_profiling() {
        eprintln!(
            "--profile: {} has no timestamp queries; timing the host only",
            gpu.info.name
        );
    }
    let summary = drive(
        &mut sim,
        &Run {
            gpu,
            model,
            opts,
            ranks: 1,
            root: true,
            started,
        },
    )?;
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
    let mut summary =
        crate::comm::threads::on_threads(pieces, |c| run_ranked(gpu, model, &p, c, opts))?;
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
    let started = Instant::now();
    let mut ranked = crate::solver::ranks::Ranked::new(gpu, model, partition, comm)
        .map_err(|e| unstable_report(e, model, None, &opts.out_dir))?;
    let root = comm.rank() == 0;
    if root && model.write_png {
        std::fs::create_dir_all(&opts.out_dir).map_err(|e| io_err(&opts.out_dir, e))?;
        ranked.draw_partitions(&opts.out_dir)?;
    }
    let opts = RunOptions {
        out_dir: opts.out_dir.clone(),
        progress: if root { opts.progress } else { Progress::Quiet },
        checkpoint_every: opts.checkpoint_every,
        profile: opts.profile,
        loading_s: opts.loading_s,
    };
    if opts.profile && !ranked.enable_profiling() && root {
        eprintln!(
            "--profile: {} has no timestamp queries; the per-rank compute and wait times are in summary.json",
            gpu.describe()
        );
    }
    drive(
        &mut ranked,
        &Run {
            gpu,
            model,
            opts: &opts,
            ranks: comm.size(),
            root,
            started,
        },
    )
}

struct Run<'a> {
    gpu: &'a Gpu,
    model: &'a Model,
    opts: &'a RunOptions,
    ranks: usize,
    /// Rank 0: the one that writes files.
    root: bool,
    started: Instant,
}

/// What rank 0 writes as the run goes: maps, gauges and the mass balance.
struct Files<'a> {
    maps: &'a outputs::Maps,
    gauges: GaugeFiles,
    sections: outputs::SectionFiles,
    balance: outputs::BalanceFile,
    animation: Option<Animation>,
    /// The last state known to be sound, for the diagnostic map if the run goes unstable.
    last_good: Option<(f64, Arc<Fields>)>,
}

impl<'a> Files<'a> {
    /// Opens the series files in `dir`, after removing a summary left by an earlier run.
    fn create(model: &Model, maps: &'a outputs::Maps, dir: &Path) -> Result<Files<'a>> {
        std::fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
        let summary_path = dir.join("summary.json");
        if summary_path.exists() {
            std::fs::remove_file(&summary_path).map_err(|e| io_err(&summary_path, e))?;
        }
        let animation = model.write_animation.then(|| {
            Animation::new(
                model.nx(),
                model.ny(),
                model.cell_size,
                &maps.valid,
                &maps.bed,
                model.numerics.arrival_depth as f32,
            )
        });
        Ok(Files {
            maps,
            gauges: GaugeFiles::create(dir, model).map_err(|e| io_err(dir, e))?,
            sections: outputs::SectionFiles::create(dir, model).map_err(|e| io_err(dir, e))?,
            balance: outputs::BalanceFile::create(dir, model).map_err(|e| io_err(dir, e))?,
            animation,
            last_good: None,
        })
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
fn drive(sim: &mut dyn Stepper, run: &Run) -> Result<Option<Summary>> {
    let maps = run.root.then(|| outputs::Maps::new(run.model));
    std::thread::scope(|scope| {
        let mut writer = BackgroundWriter::new(scope);
        let mut clock = WallClock {
            setup: run.started.elapsed().as_secs_f64(),
            ..Default::default()
        };
        let mut files = match &maps {
            Some(maps) => Some(Files::create(run.model, maps, &run.opts.out_dir)?),
            None => None,
        };
        step_through(sim, run, &mut files, &mut writer, &mut clock)?;
        finish(sim, run, files, writer, clock)
    })
}

/// Every stop of the run: gauges, maps, the mass balance and checkpoints where due.
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
            sample_gauges(sim, files, model, &probes, model.t_start, dir)
        })?;
        let fields = timed(&mut clock.reading, || sim.fields()).map(Arc::new);
        record_balance(sim, files, model, model.t_start, fields, dir)?;
    }
    let stops = targets(model);
    let checkpoints = run
        .opts
        .checkpoint_every
        .map(|every| crate::io::checkpoint::times(model, &stops, every))
        .unwrap_or_default();
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
        if model.gauge_times.contains(&target) {
            timed(&mut clock.reading, || {
                sample_gauges(sim, files, model, &probes, target, dir)
            })?;
        }
        if model.output_times.contains(&target) {
            let fields = timed(&mut clock.reading, || sim.fields()).map(Arc::new);
            // A state whose mass balance broke is no result: checked before its maps.
            record_balance(sim, files, model, target, fields.clone(), dir)?;
            if let (Some(fields), Some(f)) = (fields.as_ref(), files.as_mut()) {
                if let Some(a) = f.animation.as_mut() {
                    // Fixed-width titles keep the frames one size.
                    a.push(format!("depth  t = {target:>10.1} s"), &fields.depth);
                }
                let (maps, fields) = (f.maps, fields.clone());
                writer.write(move || write_outputs(dir, model, maps, &fields, target))?;
            }
        }
        if checkpoints.contains(&target) {
            // Every rank takes part in reading the state; rank 0 gets it and hands it over.
            if let Some(snapshot) = timed(&mut clock.reading, || sim.snapshot()) {
                writer.write(move || write_checkpoint(model, dir, &snapshot))?;
            }
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
    let reports = sim.rank_reports();
    let rebalancing = sim.rebalancing();
    let (Some(snapshot), Some(mut files)) = (snapshot, files) else {
        return Ok(None);
    };
    let grid = &model.grid;
    let fields = Fields::from_stored(grid, &snapshot.state);
    let mass_initial = files
        .balance
        .initial()
        .unwrap_or_else(|| model.stored_volume(&model.depth));
    files.gauges.finish().map_err(|e| io_err(dir, e))?;
    files.sections.finish().map_err(|e| io_err(dir, e))?;
    files.balance.finish().map_err(|e| io_err(dir, e))?;
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
    writer.finish()?;
    clock.files += writer.waited_s;
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
        max_depth: max_depth.iter().cloned().fold(0.0f32, f32::max) as f64,
        host_us_per_step: sim.host_us_per_step(),
        status,
        wall_s: run.started.elapsed().as_secs_f64(),
        json: serde_json::Value::Null,
    };
    summary.json = summary_json(run.gpu, model, &summary);
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
            eprint!("{}", profile_table(&p, summary.host_us_per_step));
        }
    }
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

pub fn profile_json(p: &crate::solver::profile::Profile, host_us: f64) -> serde_json::Value {
    let kernels: serde_json::Map<String, serde_json::Value> = p
        .kernel_us
        .iter()
        .map(|(name, us)| (format!("{name}_us_per_step"), (*us).into()))
        .collect();
    let mut profile = json!({
        "timed_steps": p.steps,
        "gpu_us_per_step": p.gpu_us_per_step(),
        "kernels": kernels,
    });
    if host_us > 0.0 {
        profile["host_us_per_step"] = host_us.into(); // not counted on ranks
    }
    if !p.idle_before_us.is_empty() {
        let idle: serde_json::Map<String, serde_json::Value> = p
            .idle_before_us
            .iter()
            .map(|(name, us)| (format!("{name}_us_per_step"), (*us).into()))
            .collect();
        profile["gpu_idle_before_pass"] = idle.into();
    }
    profile
}

/// The profile as a table: GPU time per step of each kernel, its share, and the host's.
pub fn profile_table(p: &crate::solver::profile::Profile, host_us: f64) -> String {
    let total = p.gpu_us_per_step();
    let w = p
        .kernel_us
        .iter()
        .map(|k| k.0.len())
        .max()
        .unwrap_or(0)
        .max(14);
    let whose = if p.idle_before_us.is_empty() {
        ""
    } else {
        ", rank 0; every rank's in summary.json"
    };
    let mut out = format!("GPU time per step ({} steps timed{whose})\n", p.steps);
    for (name, us) in &p.kernel_us {
        out += &format!(
            "  {name:<w$} {us:>10.2} us  {:>5.1}%\n",
            100.0 * us / total.max(1e-12)
        );
    }
    out += &format!("  {:<w$} {total:>10.2} us\n", "all kernels");
    if !p.idle_before_us.is_empty() {
        let idle: f64 = p.idle_before_us.iter().map(|k| k.1).sum();
        out += "GPU idle or copying before each pass\n";
        for (name, us) in &p.idle_before_us {
            out += &format!("  {name:<w$} {us:>10.2} us\n");
        }
        out += &format!("  {:<w$} {idle:>10.2} us\n", "in all");
    }
    if host_us > 0.0 {
        out += &format!(
            "  {:<w$} {host_us:>10.2} us  (recording and submitting)\n",
            "host"
        );
    }
    out
}

/// The cells read at gauge times: the gauges', then every cell a cross-section samples,
/// each once.
struct Probes {
    cells: Vec<(usize, usize)>,
    /// Per section: (index into `cells`, normal times length) per sample.
    sections: Vec<Vec<(usize, [f64; 2])>>,
}

impl Probes {
    fn new(model: &Model) -> Probes {
        let mut cells: Vec<(usize, usize)> = model.gauges.iter().map(|g| g.cell).collect();
        let mut index = std::collections::HashMap::new();
        let sections = model
            .sections
            .iter()
            .map(|s| {
                s.samples
                    .iter()
                    .map(|&(cell, w)| {
                        let k = *index.entry(cell).or_insert_with(|| {
                            cells.push(cell);
                            cells.len() - 1
                        });
                        (k, w)
                    })
                    .collect()
            })
            .collect();
        Probes { cells, sections }
    }

    /// Discharge through each section from the probed (h, hu, hv).
    fn discharges(&self, values: &[[f32; 3]]) -> Vec<f64> {
        self.sections
            .iter()
            .map(|s| {
                s.iter()
                    .map(|&(k, w)| values[k][1] as f64 * w[0] + values[k][2] as f64 * w[1])
                    .sum()
            })
            .collect()
    }
}

fn sample_gauges(
    sim: &dyn Stepper,
    files: &mut Option<Files<'_>>,
    model: &Model,
    probes: &Probes,
    t: f64,
    dir: &Path,
) -> Result<()> {
    if probes.cells.is_empty() {
        return Ok(());
    }
    if let (Some(values), Some(f)) = (sim.cells(&probes.cells), files.as_mut()) {
        let gauges = &values[..model.gauges.len()];
        f.gauges
            .record(model, t, gauges)
            .map_err(|e| io_err(dir, e))?;
        f.sections
            .record(t, &probes.discharges(&values))
            .map_err(|e| io_err(dir, e))?;
    }
    Ok(())
}

/// A mass-balance row at time t, from the fields just read, and the check that the balance
/// holds (every rank calls this: the edge volumes are gathered from every rank, and all
/// stop together when it broke).
fn record_balance(
    sim: &dyn Stepper,
    files: &mut Option<Files<'_>>,
    model: &Model,
    t: f64,
    fields: Option<Arc<Fields>>,
    dir: &Path,
) -> Result<()> {
    let (inflow, outflow) = sim.edge_volumes();
    let rain = sim.status().rain_depth * model.valid_cells() as f64 * model.cell_area();
    let mut verdict = Ok(());
    if let (Some(fields), Some(f)) = (fields, files.as_mut()) {
        let storage = model.volume(&fields.depth);
        // A restart knows its run's initial water only from that run's balance file.
        let initial = f
            .balance
            .initial()
            .or(model.resume.is_none().then_some(storage));
        f.balance
            .record(t, inflow, outflow, rain, storage)
            .map_err(|e| io_err(dir, e))?;
        if let Some(initial) = initial {
            let account = Balance {
                initial,
                inflow,
                outflow,
                rain,
                storage,
            };
            verdict = balance::check(model, t, &account, sim.status());
        }
        if verdict.is_ok() {
            f.last_good = Some((t, fields));
        }
    }
    if !sim.all_sound(verdict.is_ok()) {
        return Err(verdict.err().unwrap_or_else(|| {
            Error::MassBalance(format!(
                "the mass balance broke by t = {t:.3} s (rank 0 reports the volumes)"
            ))
        }));
    }
    Ok(())
}

/// Writes a checkpoint of `snapshot` and keeps the last two.
fn write_checkpoint(model: &Model, dir: &Path, snapshot: &Snapshot) -> Result<()> {
    let t = snapshot.resume.t.0 as f64 + snapshot.resume.t.1 as f64;
    let path = dir.join(crate::io::checkpoint::file_name(t));
    crate::io::checkpoint::write(&path, model, snapshot).map_err(|e| {
        io_err(
            &path,
            format!("{e} (the previous checkpoint, if any, is intact)"),
        )
    })?;
    crate::io::checkpoint::prune(dir, 2).map_err(|e| io_err(dir, e))
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
        last_good: Some((t_good, fields)),
        ..
    }) = files
    {
        let name = format!("diagnostic_last_good_{}", outputs::time_label(*t_good));
        match maps.write(dir, model, &name, |c| Some(fields.depth[c] as f64)) {
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

/// The maps and the quick-look of output time t.
fn write_outputs(
    dir: &Path,
    model: &Model,
    maps: &outputs::Maps,
    fields: &Fields,
    t: f64,
) -> Result<()> {
    let quicklook = model.write_png.then_some(|| {
        let name = format!("depth_{}.png", outputs::time_label(t));
        let title = format!("depth  t = {t:.1} s");
        outputs::write_depth_png(dir, &name, title, model, maps, &fields.depth).map_err(Error::Io)
    });
    beside(quicklook, || match model.write_rasters {
        true => outputs::write_rasters(dir, model, maps, t, fields).map_err(map_err),
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
        "mass_error_rel": s.mass_error_rel(),
        "max_depth_m": s.max_depth,
        "adapter": gpu.info.name,
        "backend": format!("{:?}", gpu.info.backend),
        "device_type": format!("{:?}", gpu.info.device_type),
        "output_times_s": model.output_times,
        "gauges": model.gauges.iter().map(|g| g.name.clone()).collect::<Vec<_>>(),
    })
}

/// Progress on the terminal: a bar when stderr is a terminal, a line every few seconds
/// when it is not (logs, CI).
struct Reporter {
    bar: Option<indicatif::ProgressBar>,
    plain: bool,
    t_start: f64,
    t_end: f64,
    started: Instant,
    last_line: Instant,
    last_steps: u64,
    last_time: Instant,
    steps_per_s: f64,
}

impl Reporter {
    fn new(model: &Model, mode: Progress) -> Reporter {
        let terminal = std::io::stderr().is_terminal();
        let bar = (mode == Progress::Auto && terminal).then(|| {
            let bar = indicatif::ProgressBar::new(1000);
            bar.set_style(
                indicatif::ProgressStyle::with_template("{bar:40.cyan/blue} {msg} ETA {eta}")
                    .expect("a valid progress template"),
            );
            bar
        });
        Reporter {
            bar,
            plain: mode == Progress::Auto && !terminal,
            t_start: model.t_start,
            t_end: model.t_end,
            started: Instant::now(),
            last_line: Instant::now(),
            last_steps: 0,
            last_time: Instant::now(),
            steps_per_s: 0.0,
        }
    }

    fn update(&mut self, s: &Status) {
        let now = Instant::now();
        let dt_wall = now.duration_since(self.last_time).as_secs_f64();
        if dt_wall > 0.2 {
            self.steps_per_s = (s.steps - self.last_steps) as f64 / dt_wall;
            self.last_steps = s.steps;
            self.last_time = now;
        }
        let fraction = ((s.t - self.t_start) / (self.t_end - self.t_start)).clamp(0.0, 1.0);
        let message = format!("t = {:.1} s  {:.0} steps/s", s.t, self.steps_per_s);
        if let Some(bar) = &self.bar {
            bar.set_position((fraction * 1000.0) as u64);
            bar.set_message(message);
        } else if self.plain && now.duration_since(self.last_line).as_secs_f64() > 5.0 {
            let elapsed = self.started.elapsed().as_secs_f64();
            let eta = if fraction > 0.0 {
                elapsed * (1.0 - fraction) / fraction
            } else {
                0.0
            };
            eprintln!("[{:5.1}%] {message}  ETA {:.0} s", fraction * 100.0, eta);
            self.last_line = now;
        }
    }

    /// The time loop's end; the last maps may take a while yet, so say so.
    fn finish(&mut self, s: &Status) {
        let had_bar = self.bar.take().map(|bar| bar.finish_and_clear()).is_some();
        if had_bar || self.plain {
            eprintln!(
                "done: t = {:.3} s after {} steps in {:.1} s; writing the last results",
                s.t,
                s.steps,
                self.started.elapsed().as_secs_f64()
            );
        }
    }
}
