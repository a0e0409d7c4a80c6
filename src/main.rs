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
        /// Use the first adapter whose name contains this text (see `quadflood info`).
        #[arg(long)]
        adapter: Option<String>,
        /// No progress output.
        #[arg(long)]
        quiet: bool,
    },
    /// Check a scenario without running it.
    Check { scenario: PathBuf },
    /// Draw a scenario's block grid (grid.png) and summarise it (grid.json).
    Grid {
        scenario: PathBuf,
        #[arg(long, default_value = "out")]
        out: PathBuf,
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
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match dispatch(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("quadflood: {e}");
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
        } => {
            let model = scenario::load(&scenario)?;
            let gpu = Gpu::open(adapter.as_deref())?;
            if !quiet {
                eprintln!(
                    "{}: {}x{} cells of {} m in {} blocks on {}",
                    scenario.display(),
                    model.nx(),
                    model.ny(),
                    model.cell_size,
                    model.grid.nblocks(),
                    gpu.describe()
                );
            }
            let progress = if quiet {
                Progress::Quiet
            } else {
                Progress::Auto
            };
            let summary = run::run(
                &gpu,
                &model,
                &RunOptions {
                    out_dir: out.clone(),
                    progress,
                },
            )?;
            if !quiet {
                println!(
                    "{} steps to t = {:.3} s in {:.2} s ({:.3e} cell updates/s); mass error {:.2e}; max depth {:.3} m; results in {}",
                    summary.status.steps,
                    summary.status.t,
                    summary.wall_s,
                    summary.status.cell_updates as f64 / summary.wall_s,
                    summary.mass_error_rel(),
                    summary.max_depth,
                    out.display()
                );
            }
            Ok(())
        }
        Command::Check { scenario } => {
            let model = scenario::load(&scenario)?;
            println!(
                "{}: ok: {}x{} cells of {} m ({} blocks), {} output times to t = {} s, {} gauges, {} boundary conditions",
                scenario.display(),
                model.nx(),
                model.ny(),
                model.cell_size,
                model.grid.nblocks(),
                model.output_times.len(),
                model.t_end,
                model.gauges.len(),
                model.bc_defs.len()
            );
            Ok(())
        }
        Command::Info => info(),
        Command::Grid { scenario, out } => {
            let model = scenario::load(&scenario)?;
            std::fs::create_dir_all(&out)
                .map_err(|e| Error::Io(format!("{}: {e}", out.display())))?;
            let summary = quadflood::io::gridmap::summary(&model.grid, model.cell_size);
            quadflood::io::gridmap::write_grid_png(
                &out.join("grid.png"),
                &model.grid,
                model.cell_size,
            )
            .map_err(Error::Io)?;
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
        } => {
            let gpu = Gpu::open(adapter.as_deref())?;
            let n = n.unwrap_or_else(|| bench::default_n(&gpu));
            let result = bench::run(&gpu, n, steps)?;
            println!("{}", result.report());
            let mut figures = result.to_json();
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

fn info() -> Result<()> {
    let adapters = device::adapters();
    if adapters.is_empty() {
        return Err(device::choose_adapter(None)
            .err()
            .unwrap_or(Error::NoAdapter("none found".into())));
    }
    for a in adapters {
        let i = a.get_info();
        let l = a.limits();
        println!(
            "{} ({:?}, {:?}), driver {} {}",
            i.name, i.backend, i.device_type, i.driver, i.driver_info
        );
        println!(
            "  storage binding {} MiB, buffer {} MiB, workgroup memory {} KiB, {} invocations per workgroup, timestamps: {}",
            l.max_storage_buffer_binding_size >> 20,
            l.max_buffer_size >> 20,
            l.max_compute_workgroup_storage_size >> 10,
            l.max_compute_invocations_per_workgroup,
            a.features().contains(wgpu::Features::TIMESTAMP_QUERY)
        );
    }
    Ok(())
}
