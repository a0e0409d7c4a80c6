//! The `quadflood` command line.

use clap::{Parser, Subcommand};
use quadflood::error::{Error, Result};
use quadflood::gpu::{device, Gpu};
use quadflood::run::{self, Progress, RunOptions};
use quadflood::{bench, scenario};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "quadflood",
    version,
    about = "2D shallow-water flood solver on GPU block grids (WGSL through wgpu)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario and write its results.
    Run {
        scenario: PathBuf,
        /// Output directory (created if missing).
        #[arg(long, default_value = "out")]
        out: PathBuf,
        /// Use only adapters whose name contains this text (see `quadflood info`); under
        /// mpirun the ranks of a node share them out.
        #[arg(long)]
        adapter: Option<String>,
        /// No progress output.
        #[arg(long)]
        quiet: bool,
        /// How blocks are shared out under mpirun: hilbert (default) or 1d; overrides
        /// the scenario's [parallel] partition.
        #[arg(long)]
        partition: Option<quadflood::partition::Method>,
        /// Override a scenario key, e.g. --set time.end=600 (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        overrides: Vec<String>,
        /// Write a checkpoint at the first output or gauge time after every SECONDS of
        /// simulated time (the last two are kept).
        #[arg(long, value_name = "SECONDS")]
        checkpoint_every: Option<f64>,
        /// Continue from a checkpoint written by this scenario (any number of ranks).
        #[arg(long, value_name = "FILE")]
        restart: Option<PathBuf>,
        /// Time every kernel with GPU timestamps (each in a pass of its own); under mpirun or
        /// with --split, every pass of each rank's step and the GPU's time before each. The
        /// table goes to the terminal and to summary.json.
        #[arg(long)]
        profile: bool,
        /// Run the grid as K sub-domains with buffers of their own on this one GPU (ranks on
        /// threads): for grids larger than one storage binding allows.
        #[arg(long, value_name = "K", value_parser = at_least_one)]
        split: Option<usize>,
    },
    /// Check a scenario without running it.
    Check {
        scenario: PathBuf,
        #[arg(long = "set", value_name = "KEY=VALUE")]
        overrides: Vec<String>,
    },
    /// Draw a scenario's block grid (grid.png) and summarise it (grid.json); with
    /// --ranks, also its partition (partition.png) and what each rank holds and sends.
    Grid {
        scenario: PathBuf,
        #[arg(long, default_value = "out")]
        out: PathBuf,
        #[arg(long, default_value_t = 1, value_parser = at_least_one)]
        ranks: usize,
        #[arg(long)]
        partition: Option<quadflood::partition::Method>,
    },
    /// List GPU adapters and their limits.
    Info,
    /// Time a fully wet N×N dam break and a plain copy kernel.
    Bench {
        /// Grid side in cells (default: 512 on a CPU adapter, 4096 on a GPU).
        #[arg(long)]
        n: Option<usize>,
        #[arg(long, default_value_t = 200)]
        steps: u64,
        #[arg(long)]
        adapter: Option<String>,
        /// Also write the figures as JSON here.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Also time a dam break on three levels against uniform finest cells (N×N finest).
        #[arg(long)]
        multires: bool,
        /// Cells south-north (default N); under mpirun the N × NY dam break is split over
        /// the ranks and timed step by step.
        #[arg(long)]
        ny: Option<usize>,
        /// Then time every kernel with GPU timestamps, in a second run of the same steps.
        #[arg(long)]
        profile: bool,
        /// Track the run's maxima while timing, as scenario runs do by default.
        #[arg(long)]
        maxima: bool,
        /// The dam break on this many levels (finest cells within N/8 of the centre, as
        /// --multires): a multi-resolution grid's cell updates per second, and under mpirun
        /// its scaling.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=8),
              conflicts_with_all = ["split", "profile"])]
        levels: u32,
        /// Then time dam breaks onto dry ground with 10%, 50% and 100% of the domain wet.
        #[arg(long)]
        wet_sweep: bool,
        /// Cut the N × NY dam break into K sub-domains with buffers of their own, run as
        /// ranks on threads sharing this one GPU: for grids larger than one storage binding.
        #[arg(long, value_name = "K")]
        split: Option<usize>,
    },
}

/// A count of ranks or sub-domains: `--split 0` and `--ranks 0` were taken as one.
fn at_least_one(s: &str) -> std::result::Result<usize, String> {
    match s.parse::<usize>() {
        Ok(k) if k >= 1 => Ok(k),
        _ => Err(format!(
            "expected a whole number of at least 1, found {s:?}"
        )),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = dispatch(cli.command);
    // How the memory limits of `scenario::limits` were measured, and are checked.
    if std::env::var_os("QUADFLOOD_REPORT_PEAK_MEMORY").is_some() {
        let peak = scenario::limits::peak_host_bytes().unwrap_or(0);
        quadflood::say!("quadflood: peak host memory {peak} bytes");
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            quadflood::say!("quadflood: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}

fn dispatch(command: Command) -> Result<()> {
    match command {
        Command::Run {
            scenario,
            out,
            adapter,
            quiet,
            partition,
            overrides,
            checkpoint_every,
            restart,
            profile,
            split,
        } => {
            let loading = std::time::Instant::now();
            let mut model = scenario::load_with(&scenario, &overrides)?;
            let restart = match &restart {
                Some(file) => Some(quadflood::io::checkpoint::restore(file, &mut model)?),
                None => None,
            };
            let loading_s = loading.elapsed().as_secs_f64();
            if let Some(every) = checkpoint_every {
                scenario::limits::check_checkpoint_every(&model, every)?;
            }
            if let Some(method) = partition {
                model.partition = method;
            }
            let progress = if quiet {
                Progress::Quiet
            } else {
                Progress::Auto
            };
            let opts = RunOptions {
                out_dir: out.clone(),
                progress,
                checkpoint_every,
                profile,
                loading_s,
                restart,
                provenance: quadflood::provenance::Provenance::of_this_run(&overrides),
            };
            // SIGTERM and SIGINT stop the run cleanly (see quadflood::interrupt).
            quadflood::interrupt::install();
            #[cfg(feature = "mpi")]
            if quadflood::comm::mpi::launched_with_several_ranks() {
                let options = run_options(&opts, partition);
                return run_mpi(
                    &scenario,
                    &model,
                    adapter.as_deref(),
                    &opts,
                    &options,
                    quiet,
                );
            }
            let gpu = Gpu::open(adapter.as_deref())?;
            scenario::limits::check_run_memory(&model, gpu.is_cpu())
                .map_err(|e| e.in_file(&scenario))?;
            if !quiet {
                quadflood::say!(
                    "{}: {}x{} cells of {} m in {} blocks on {}",
                    scenario.display(),
                    model.nx(),
                    model.ny(),
                    model.cell_size,
                    model.grid.nblocks(),
                    gpu.describe()
                );
            }
            let summary = match split.filter(|&k| k > 1) {
                Some(k) => {
                    quadflood::partition::check_ranks(&model.grid, k, &scenario)?;
                    run::run_split(&gpu, &model, k, &opts)?
                }
                None => run::run(&gpu, &model, &opts)?,
            };
            if !quiet {
                report(&summary, &out);
            }
            Ok(())
        }
        Command::Check {
            scenario,
            overrides,
        } => {
            let model = scenario::load_with(&scenario, &overrides)?;
            let run_bytes = scenario::limits::run_host_bytes(&model, false);
            quadflood::tell!(
                "{}: ok: {}x{} cells of {} m ({} blocks), {} output times to t = {} s, {} gauges, {} boundary conditions; a run takes about {} of host memory",
                scenario.display(),
                model.nx(),
                model.ny(),
                model.cell_size,
                model.grid.nblocks(),
                model.output_times.len(),
                model.t_end,
                model.gauges.len(),
                model.bc_defs.len(),
                scenario::limits::gb(run_bytes)
            );
            Ok(())
        }
        Command::Info => info(),
        Command::Grid {
            scenario,
            out,
            ranks,
            partition,
        } => {
            let model = scenario::load(&scenario)?;
            std::fs::create_dir_all(&out)
                .map_err(|e| Error::Io(format!("{}: {e}", out.display())))?;
            let mut summary = quadflood::io::gridmap::summary(&model.grid, model.cell_size);
            quadflood::io::gridmap::write_grid_png(
                &out.join("grid.png"),
                &model.grid,
                model.cell_size,
            )
            .map_err(Error::Io)?;
            if ranks > 1 {
                quadflood::partition::check_ranks(&model.grid, ranks, &scenario)?;
                let method = partition.unwrap_or(model.partition);
                let p = quadflood::partition::partition(
                    &model.grid,
                    ranks,
                    method,
                    &quadflood::partition::per_block,
                );
                quadflood::io::gridmap::write_partition_png(
                    &out.join("partition.png"),
                    &model.grid,
                    &p,
                )
                .map_err(Error::Io)?;
                summary["partition"] = method.to_string().into();
                summary["ranks"] = serde_json::to_value(quadflood::partition::local::rank_summary(
                    &model.grid,
                    &p,
                ))
                .unwrap_or_default();
            }
            let text = serde_json::to_string_pretty(&summary).unwrap_or_default();
            std::fs::write(out.join("grid.json"), &text).map_err(|e| Error::Io(e.to_string()))?;
            println!("{text}");
            Ok(())
        }
        Command::Bench {
            n,
            steps,
            adapter,
            json,
            multires,
            ny,
            profile,
            wet_sweep,
            split,
            maxima,
            levels,
        } => {
            let levels = levels as usize;
            let args = |gpu: &Gpu, pieces: usize, pieces_flag| {
                let n = n.unwrap_or_else(|| bench::default_n(gpu));
                let args = quadflood::bench_args::BenchArgs {
                    n,
                    ny: ny.unwrap_or(n),
                    steps,
                    pieces,
                    pieces_flag,
                };
                quadflood::bench_args::check(gpu, &args).map(|()| args)
            };
            if let Some(k) = split {
                let gpu = Gpu::open(adapter.as_deref())?;
                let quadflood::bench_args::BenchArgs { n, ny, .. } = args(&gpu, k, "--split")?;
                let figures = bench::split(&gpu, k, n, ny, steps)?;
                let text = serde_json::to_string_pretty(&figures).unwrap_or_default();
                println!("{text}");
                if let Some(path) = json {
                    std::fs::write(&path, text)
                        .map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
                }
                return Ok(());
            }
            #[cfg(feature = "mpi")]
            if quadflood::comm::mpi::launched_with_several_ranks() {
                let (n, ny) = (n.unwrap_or(4096), ny.unwrap_or(n.unwrap_or(4096)));
                return bench_mpi(adapter.as_deref(), (n, ny, levels), steps, json);
            }
            let gpu = Gpu::open(adapter.as_deref())?;
            let quadflood::bench_args::BenchArgs { n, ny, .. } = args(&gpu, 1, "--split")?;
            let model = bench::dam_break_on_levels(n, ny, levels);
            let result = bench::run(&gpu, model, steps, maxima)?;
            println!("{}", result.report());
            let mut figures = result.to_json();
            if profile {
                let host_us = result.record_us_per_step + result.submit_us_per_step;
                match bench::profile(&gpu, n, ny, steps)? {
                    Some(p) => {
                        print!("{}", run::profile_table(&p, host_us));
                        figures["profile"] = run::profile_json(&p, host_us);
                    }
                    None => println!("profile: this adapter has no timestamp queries"),
                }
            }
            if wet_sweep {
                use bench::WetSweep;
                for (kind, key) in [
                    (WetSweep::Spreading, "wet_sweep"),
                    (WetSweep::Confined, "wet_sweep_confined"),
                ] {
                    figures[key] = time_wet_sweep(&gpu, n, steps, kind)?.into();
                }
            }
            if multires {
                let m = bench::multires(&gpu, n)?;
                println!("{}", m.report());
                figures["multires"] = m.to_json();
            }
            if let Some(path) = json {
                std::fs::write(
                    &path,
                    serde_json::to_string_pretty(&figures).unwrap_or_default(),
                )
                .map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
            }
            Ok(())
        }
    }
}

fn report(summary: &run::Summary, out: &std::path::Path) {
    quadflood::tell!(
        "{} steps to t = {:.3} s in {:.2} s ({:.3e} cell updates/s); mass error {:.2e}; max depth {:.3} m; results in {}",
        summary.status.steps,
        summary.status.t,
        summary.wall_s,
        summary.status.cell_updates as f64 / summary.wall_s,
        summary.mass_error_rel(),
        summary.max_depth,
        out.display()
    );
    let clock = &summary.json["wall_clock_s"];
    let part = |key: &str| clock[key].as_f64().unwrap_or(0.0);
    if clock.is_object() {
        quadflood::tell!(
            "wall clock: loading the scenario {:.2} s, then setup {:.2} s, stepping {:.2} s, reading results {:.2} s, writing files {:.2} s",
            part("loading_scenario"),
            part("setup"),
            part("stepping"),
            part("reading_results"),
            part("writing_files")
        );
    }
}

/// Rank 0 writes the maps on threads beside its time loop; mpirun binds each of up to two
/// ranks to a single core by default, where those threads, the driver's and the loop's
/// share it (on two H200s a Sagehen run took 21.8 s so, 9.6 s unbound).
#[cfg(feature = "mpi")]
fn warn_if_on_one_core() {
    if std::thread::available_parallelism().is_ok_and(|n| n.get() == 1) {
        quadflood::say!(
            "note: rank 0 may use one CPU core only (mpirun binds each rank to a core by default for -n 1 or 2); writing the maps then slows the run: use `mpirun --bind-to none` or give each rank several cores (`--map-by slot:PE=8`)"
        );
    }
}

/// The run options that shape a run's results, as ranks compare them (see `run_mpi`).
#[cfg(feature = "mpi")]
fn run_options(
    opts: &RunOptions,
    partition: Option<quadflood::partition::Method>,
) -> Vec<(&'static str, String)> {
    vec![
        ("--checkpoint-every", format!("{:?}", opts.checkpoint_every)),
        ("--partition", format!("{partition:?}")),
        ("--profile", opts.profile.to_string()),
        // The path may differ from node to node; the state it holds is in the digest.
        ("--restart", opts.restart.is_some().to_string()),
    ]
}

/// Every rank shares the digest of what it was given (`comm::agree`); where any differs,
/// rank 0 says what, and every rank ends with exit code 2 before a file is written.
#[cfg(feature = "mpi")]
fn agree_or_stop(
    comm: quadflood::comm::mpi::MpiComm,
    digest: &quadflood::scenario::digest::RunDigest,
) -> quadflood::comm::mpi::MpiComm {
    use quadflood::comm::Comm;
    // Lets a test reach what lies beyond a disagreement (tests/mpi_agreement.rs).
    if std::env::var_os("QUADFLOOD_TEST_SKIP_AGREEMENT").is_some() {
        return comm;
    }
    let Err(e) = quadflood::comm::agree::agree(&comm, digest) else {
        return comm;
    };
    if comm.rank() == 0 {
        say_whole(&format!("quadflood: {e}"));
    }
    // Rank 0 has spoken before any rank leaves (a rank's exit ends the job); then MPI
    // finishes on every rank.
    comm.min_u32(0);
    drop(comm);
    std::process::exit(e.exit_code());
}

/// A run under mpirun: one rank per GPU. Ranks that were given different scenarios or
/// options stop at once (`agree_or_stop`). Any rank's failure ends every rank, with a
/// message naming the rank, so none waits for the others until a job limit.
#[cfg(feature = "mpi")]
fn run_mpi(
    scenario: &std::path::Path,
    model: &scenario::model::Model,
    adapter: Option<&str>,
    opts: &RunOptions,
    options: &[(&str, String)],
    quiet: bool,
) -> Result<()> {
    use quadflood::comm::Comm;
    let comm = quadflood::comm::mpi::MpiComm::init()
        .ok_or_else(|| Error::Gpu("MPI could not start".into()))?;
    let (rank, size) = (comm.rank(), comm.size());
    comm.abort_on_panic();
    let digest = quadflood::scenario::digest::RunDigest::of(model, options);
    let comm = agree_or_stop(comm, &digest);
    let result = (|| -> Result<()> {
        // Lets the tests make one rank fail and check that the others do not hang.
        if std::env::var("QUADFLOOD_TEST_FAIL_RANK").ok() == Some(rank.to_string()) {
            return Err(Error::Gpu(
                "failing on purpose (QUADFLOOD_TEST_FAIL_RANK)".into(),
            ));
        }
        quadflood::partition::check_ranks(&model.grid, size, scenario)?;
        let gpu = open_rank_gpu(&comm, adapter, quiet)?;
        if rank == 0 && !quiet {
            quadflood::say!("{} ranks; rank 0 on {}", size, gpu.describe());
            warn_if_on_one_core();
        }
        let p = quadflood::partition::partition(
            &model.grid,
            size,
            model.partition,
            &quadflood::partition::per_block,
        );
        let summary = run::run_ranked(&gpu, model, &p, &comm, opts)?;
        if let (Some(summary), false) = (summary, quiet) {
            report(&summary, &opts.out_dir);
        }
        Ok(())
    })();
    if let Err(e) = result {
        say_whole(&format!("quadflood: rank {rank} of {size} failed: {e}"));
        if matches!(e, Error::Diverged(_)) {
            // Every rank learns of an instability in the same step (see solver/ranks.rs):
            // wait for all, so that rank 0 has written the diagnostic map before the abort.
            comm.min_u32(0);
        }
        comm.abort(e.exit_code());
    }
    Ok(())
}

/// Opens the GPU this rank drives and, unless quiet, says which and why, so that users can
/// check how the ranks were spread over the GPUs.
#[cfg(feature = "mpi")]
fn open_rank_gpu(
    comm: &quadflood::comm::mpi::MpiComm,
    adapter: Option<&str>,
    quiet: bool,
) -> Result<Gpu> {
    use quadflood::comm::Comm;
    let (gpu, reason) = Gpu::open_for_rank(adapter, comm.node_place())?;
    if !quiet {
        quadflood::say!(
            "rank {} of {} on {}, {reason}",
            comm.rank(),
            comm.size(),
            comm.node_name()
        );
    }
    Ok(gpu)
}

/// One line to stderr in one write: a rank's last words, which mpirun forwards while it
/// prints its own abort notice, must not be split by it (`eprintln!` writes piece by piece).
#[cfg(feature = "mpi")]
fn say_whole(line: &str) {
    quadflood::console::line_to_stderr(format_args!("{line}"));
}

/// The scaling benchmark under mpirun: ranks agree on their arguments (or stop), which
/// must suit each rank's GPU.
#[cfg(feature = "mpi")]
fn bench_mpi(
    adapter: Option<&str>,
    (n, ny, levels): (usize, usize, usize),
    steps: u64,
    json: Option<PathBuf>,
) -> Result<()> {
    use quadflood::comm::Comm;
    let comm = quadflood::comm::mpi::MpiComm::init()
        .ok_or_else(|| Error::Gpu("MPI could not start".into()))?;
    comm.abort_on_panic();
    let given = [
        ("--n", n.to_string()),
        ("--ny", ny.to_string()),
        ("--levels", levels.to_string()),
        ("--steps", steps.to_string()),
    ];
    let digest = quadflood::scenario::digest::RunDigest::of_options(&given);
    let comm = agree_or_stop(comm, &digest);
    let result = open_rank_gpu(&comm, adapter, false).and_then(|gpu| {
        let args = quadflood::bench_args::BenchArgs {
            n,
            ny,
            steps,
            pieces: comm.size(),
            pieces_flag: "mpirun -n",
        };
        quadflood::bench_args::check(&gpu, &args)?;
        let model = bench::dam_break_on_levels(n, ny, levels);
        bench::scaling(&gpu, &comm, &model, steps)
    });
    match result {
        Ok(Some(figures)) => {
            let text = serde_json::to_string_pretty(&figures).unwrap_or_default();
            println!("{text}");
            if let Some(path) = json {
                std::fs::write(&path, text)
                    .map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
            }
            Ok(())
        }
        Ok(None) => Ok(()),
        Err(e) => {
            say_whole(&format!("quadflood: rank {} failed: {e}", comm.rank()));
            comm.abort(e.exit_code())
        }
    }
}

fn info() -> Result<()> {
    let adapters = device::adapters();
    if adapters.is_empty() {
        return Err(device::no_adapter_error());
    }
    for a in adapters {
        let i = a.get_info();
        let l = a.limits();
        let pci = match i.device_pci_bus_id.as_str() {
            "" => String::new(),
            id => format!(", pci {id}"),
        };
        println!(
            "{} ({:?}, {:?}{pci}), driver {} {}",
            i.name, i.backend, i.device_type, i.driver, i.driver_info
        );
        println!(
            "  storage binding {} MiB, buffer {} MiB, workgroup memory {} KiB, {} invocations per workgroup, timestamps: {}, buffer bounds checked by the device: {}",
            l.max_storage_buffer_binding_size >> 20,
            l.max_buffer_size >> 20,
            l.max_compute_workgroup_storage_size >> 10,
            l.max_compute_invocations_per_workgroup,
            a.features().contains(wgpu::Features::TIMESTAMP_QUERY),
            device::bounds_buffers(&a)
        );
    }
    Ok(())
}

/// Time per step at 10%, 50% and 100% of the domain wet, printed and as JSON rows.
fn time_wet_sweep(
    gpu: &Gpu,
    n: usize,
    steps: u64,
    kind: bench::WetSweep,
) -> Result<Vec<serde_json::Value>> {
    println!("{kind:?} water: wet fraction   ms/step   blocks launched   cost vs all wet");
    let all = bench::wet_fraction(gpu, n, 1.0, steps, kind)?;
    let mut rows = Vec::new();
    for f in [0.1, 0.5, 1.0] {
        let (ms, launched) = if f == 1.0 {
            all
        } else {
            bench::wet_fraction(gpu, n, f, steps, kind)?
        };
        println!(
            "{:>11.0}%  {ms:>8.3}   {:>14.1}%   {:>14.1}%",
            100.0 * f,
            100.0 * launched,
            100.0 * ms / all.0
        );
        rows.push(
            serde_json::json!({"wet_fraction": f, "ms_per_step": ms, "blocks_launched": launched}),
        );
    }
    Ok(rows)
}
