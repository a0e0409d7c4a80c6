//! A run split over ranks gives the same bits as one rank. The ranks are threads sharing
//! the test's GPU here; `tests/mpi.rs` does the same through MPI.

mod common;

use quadflood::partition::{partition, per_block, Method};
use quadflood::scenario::model::Model;
use quadflood::solver::ranks::{Ranked, PASS_NAMES};
use quadflood::solver::{Fields, Simulation, Stepper};

/// Three levels, a dam break onto dry ground and a wet/dry island: fronts cross the
/// partition borders and the level changes.
const DAM_BREAK: &str = r#"
[domain]
cell_size = 1.0
nx = 256
ny = 192

[refinement]
levels = 3

[[refinement.region]]
shape = "circle"
center = [120.0, 96.0]
radius = 28.0
level = 0

[terrain]
type = "expression"
expression = "0.3*sin(x/9)*cos(y/11) + 1.2*exp(0 - ((x-150)^2 + (y-80)^2)/150)"

[[initial.region]]
shape = "circle"
center = [120.0, 96.0]
radius = 20.0
water_level = 2.0

[[initial.region]]
shape = "rectangle"
min = [0.0, 0.0]
max = [60.0, 192.0]
water_level = 0.5

[friction]
manning = 0.02

# An inflow line and an open edge that the partition cuts across.
[boundary]
east = "open"

# A point source and a line source across the partition.
[[source]]
point = [200.5, 150.5]
discharge = { time = [0.0, 10.0], value = [5.0, 20.0] }

[[source]]
line = [[90.0, 20.0], [230.0, 60.0]]
discharge = 30.0

# An outfall line across the partition, an open line along the west edge, a
# normal-depth line along the north edge and a rating line along the south edge.
[[boundary.line]]
type = "outfall"
line = [[10.5, 180.5], [100.5, 150.5]]

[[boundary.line]]
type = "open"
line = [[0.5, 40.5], [0.5, 190.5]]

[[boundary.line]]
type = "normal_depth"
slope = 0.01
line = [[110.5, 191.5], [250.5, 191.5]]

[[boundary.line]]
type = "rating"
line = [[210.5, 0.5], [250.5, 0.5]]
rating = { level = [-0.5, 0.5, 2.5], discharge = [0.0, 20.0, 100.0] }

[[boundary.segment]]
edge = "south"
type = "inflow"
from = 20.0
to = 200.0
discharge = { time = [0.0, 10.0], value = [0.0, 40.0] }

[time]
end = 1e6
"#;

/// Rain on the whole domain: every block is launched every step.
const RAIN: &str = r#"
# Rain everywhere, and a storm cell over a triangle that cuts blocks, levels and ranks.
[rain]
rate = 200.0

[[rain.zone]]
polygon = [[30.0, 30.0], [220.0, 100.0], [60.0, 170.0]]
rate = { time = [0.0, 5.0], value = [0.0, 5000.0] }

"#;

/// The dam break with rain (`DAM_BREAK` and `RAIN`).
fn scenario() -> Model {
    common::model(&format!("{DAM_BREAK}{RAIN}"))
}

fn split_run(model: &Model, ranks: usize, method: Method, t: f64) -> Fields {
    let p = partition(&model.grid, ranks, method, &per_block);
    common::on_ranks(ranks, |c| {
        let mut r = Ranked::new(common::gpu(), model, &p, c).expect("a rank");
        r.advance_to(t, &mut |_| {}).expect("the run");
        r.read_fields()
    })
    .into_iter()
    .find_map(|f| f)
    .expect("fields on rank 0")
}

#[test]
fn results_do_not_depend_on_the_number_of_ranks() {
    let model = scenario();
    let t = 12.0;
    let (one, status) = common::run_to(&model, t);
    println!(
        "one rank: {} steps to t = {t} s, blocks per level {:?}",
        status.steps,
        model.grid.blocks_per_level()
    );
    assert!(
        one.depth.iter().filter(|&&h| h > 0.0).count() > 5000,
        "the water must have spread"
    );
    for ranks in [2, 3, 4] {
        let split = split_run(&model, ranks, Method::Hilbert, t);
        common::assert_same_fields(&one, &split, &format!("{ranks} ranks (Hilbert)"));
    }
    let split = split_run(&model, 3, Method::OneD, t);
    common::assert_same_fields(&one, &split, "3 ranks (1D)");
}

/// The discharge a run reports (its faces', shaders/discharge.wgsl) reads the ghost
/// blocks' halos outside a step: they must hold their owners' state as it stands, and the
/// maps and gauges then have one rank's bits. The run's maxima take in what the maps
/// report: with gauges taking it in too, a rank that held no gauge skipped the pass, and
/// 1,873 cells' maxima differed on 3 ranks (a review; tests/mpi.rs's maxima maps too).
#[test]
fn the_reported_discharge_does_not_depend_on_the_number_of_ranks() {
    let model = scenario();
    let gauges = [(10, 10), (120, 40), (200, 150), (31, 180), (120, 96)];
    // Gauges at 6 s, then maps and gauges at 12 s, then the maxima.
    let report = |sim: &mut dyn Stepper| {
        sim.advance_to(6.0, &mut |_| {}).expect("the run");
        let early = sim.cells(&gauges);
        sim.advance_to(12.0, &mut |_| {}).expect("the run");
        let fields = sim.fields();
        let late = sim.cells(&gauges);
        let maxima = sim.snapshot().map(|s| s.resume.maxima);
        Some((fields?, early?, late?, maxima?))
    };
    let mut sim = Simulation::new(common::gpu(), &model).expect("a simulation");
    let one = report(&mut sim).expect("one rank's reports");
    let held = sim.read_fields();
    let differ = (0..one.0.hu.len())
        .filter(|&c| one.0.hu[c] != held.hu[c] || one.0.hv[c] != held.hv[c])
        .count();
    assert!(
        differ > 1000,
        "the faces' discharge must differ from the momentum held ({differ} cells)"
    );
    for ranks in [3, 16] {
        let p = partition(&model.grid, ranks, Method::Hilbert, &per_block);
        let split = common::on_ranks(ranks, |c| {
            let mut r = Ranked::new(common::gpu(), &model, &p, c).expect("a rank");
            report(&mut r)
        })
        .into_iter()
        .find_map(|reports| reports)
        .expect("reports on rank 0");
        common::assert_same_fields(&one.0, &split.0, &format!("{ranks} ranks, reported"));
        assert_eq!(one.1, split.1, "{ranks} ranks: gauges at 6 s");
        assert_eq!(one.2, split.2, "{ranks} ranks: gauges at 12 s");
        assert!(one.3 == split.3, "{ranks} ranks: the maxima differ");
    }
}

/// A circular dam break on three levels in a wide dry plain, with no forcing: most blocks
/// stay dry for the whole run.
const DRY_PLAIN: &str = r#"
[domain]
cell_size = 1.0
nx = 384
ny = 256

[refinement]
levels = 3

[[refinement.region]]
shape = "circle"
center = [120.0, 128.0]
radius = 28.0
level = 0

[terrain]
type = "expression"
expression = "0.3*sin(x/9)*cos(y/11)"

[[initial.region]]
shape = "circle"
center = [120.0, 128.0]
radius = 20.0
water_level = 2.0

[friction]
manning = 0.02

[time]
end = 1e6
"#;

/// The dry plain: most steps launch the blocks near the water and skip the dry ones, so the border blocks' dry-map
/// after the exchange (`scan_border`), steps that launch every internal block of a rank
/// but not every border block, and the ghosts' stage 1 where their owner launched nothing
/// all take part, and still give one rank's bits.
#[test]
fn ranks_skipping_dry_blocks_give_the_same_bits() {
    let model = common::model(DRY_PLAIN);
    let t = 6.0;
    let (one, status) = common::run_to(&model, t);
    let every_block = status.steps * model.grid.stored_cells() as u64;
    assert!(
        status.cell_updates < every_block * 4 / 5,
        "dry blocks must be skipped: {} of {every_block} cell updates",
        status.cell_updates
    );
    for ranks in [3, 4, 16] {
        let split = split_run(&model, ranks, Method::Hilbert, t);
        common::assert_same_fields(&one, &split, &format!("{ranks} ranks, dry blocks skipped"));
    }
}

/// More ranks than GPUs: sixteen ranks share the one GPU here, each with a few dozen
/// blocks, most of them beside another rank's, and still give one rank's bits.
#[test]
fn sixteen_ranks_on_one_gpu_give_the_same_bits() {
    let model = scenario();
    let t = 4.0;
    let (one, _) = common::run_to(&model, t);
    let split = split_run(&model, 16, Method::Hilbert, t);
    common::assert_same_fields(&one, &split, "16 ranks (Hilbert) on one GPU");
}

/// A step's end plans the next dt from the limit the ranks agreed a step earlier and
/// agrees on the new one while the next step runs; where the limit fell by more than the
/// margin the step is planned again before its stage 2. The dam break's first steps make
/// the limit fall fast: the ranks plan those steps again exactly where one rank takes the
/// shorter dt, and give its bits.
#[test]
fn ranks_plan_steps_again_where_one_rank_does() {
    let model = scenario();
    let t = 2.0;
    let (one, status) = common::run_to(&model, t);
    assert!(
        status.steps_planned_again > 0,
        "the dam break's first steps must outrun the lagged limit ({} steps)",
        status.steps
    );
    let p = partition(&model.grid, 3, Method::Hilbert, &per_block);
    let results = common::on_ranks(3, |c| {
        let mut r = Ranked::new(common::gpu(), &model, &p, c).expect("a rank");
        r.advance_to(t, &mut |_| {}).expect("the run");
        (r.status().clone(), r.read_fields())
    });
    for (rank_status, _) in &results {
        assert_eq!(rank_status.steps, status.steps, "steps on every rank");
        assert_eq!(
            rank_status.steps_planned_again, status.steps_planned_again,
            "steps planned again on every rank"
        );
    }
    let split = results
        .into_iter()
        .find_map(|(_, f)| f)
        .expect("rank 0's fields");
    common::assert_same_fields(&one, &split, "3 ranks that planned steps again");
}

/// A wall that runs slantwise through blocks (a levee without a crest: its cells are
/// walls) leaves a wall cell's thread computing faces whose waves must still bound the
/// dt. The regular kernel (16 × 17 threads) and the border blocks' (16 × 16) share the
/// faces out differently; a wave lost with a wall cell's thread made one rank plan a
/// different dt from two (up to 5.3e-4 m apart by 60 s, a hunt's case).
#[test]
fn a_slanted_wall_gives_the_same_bits_on_ranks() {
    let model = common::model(
        r#"
[domain]
cell_size = 1.0
nx = 64
ny = 64
[terrain]
type = "expression"
expression = "0.02*x + 0.1*sin(y/3)"
[[initial.region]]
shape = "rectangle"
min = [0, 0]
max = [15, 64]
water_level = 2.0
[[levee]]
line = [[20.3, 0.0], [25.7, 30.2], [20.1, 63.9]]
[boundary]
east = "open"
[time]
end = 60.0
"#,
    );
    let t = 60.0;
    let (one, status) = common::run_to(&model, t);
    for ranks in [2, 3] {
        let split = split_run(&model, ranks, Method::Hilbert, t);
        common::assert_same_fields(
            &one,
            &split,
            &format!(
                "{ranks} ranks beside a slanted wall ({} steps)",
                status.steps
            ),
        );
    }
}

/// The limiter is a constant of every kernel, the border blocks' included: with minmod too
/// a split run gives one rank's bits (and differs from van Albada's).
#[test]
fn ranks_with_the_minmod_limiter_give_the_same_bits() {
    let mut model = scenario();
    let t = 4.0;
    let (van_albada, _) = common::run_to(&model, t);
    model.numerics.limiter = quadflood::scenario::model::Limiter::Minmod;
    let (one, _) = common::run_to(&model, t);
    assert_ne!(
        one.depth, van_albada.depth,
        "the limiter must change the result"
    );
    let split = split_run(&model, 3, Method::Hilbert, t);
    common::assert_same_fields(&one, &split, "3 ranks (Hilbert), minmod");
}

#[test]
fn lake_at_rest_and_mass_on_four_ranks() {
    let model = common::scenario("lake-at-rest.toml");
    let p = partition(&model.grid, 4, Method::Hilbert, &per_block);
    let all = common::on_ranks(4, |c| {
        let mut r = Ranked::new(common::gpu(), &model, &p, c).expect("a rank");
        r.run_steps(300).expect("the run");
        (r.read_fields(), r.edge_volumes())
    });
    let (vin, vout) = all[0].1;
    let fields = all
        .into_iter()
        .find_map(|(f, _)| f)
        .expect("fields on rank 0");
    let speed = (0..fields.depth.len())
        .filter(|&c| fields.depth[c] > 0.0)
        .map(|c| fields.hu[c].abs().max(fields.hv[c].abs()) / fields.depth[c])
        .fold(0.0f32, f32::max);
    let (before, after) = (
        model.stored_volume(&model.depth),
        model.volume(&fields.depth),
    );
    println!(
        "4 ranks: max speed {speed:e} m/s, volume {before} -> {after}, edge in {vin} out {vout}"
    );
    assert_eq!(speed, 0.0, "the lake moved");
    assert!(((after - before) / before).abs() < 1e-6);
    let _ = Simulation::new;
}

/// `quadflood run` of the 3-level dam break for `end` seconds into `out`, with `extra`
/// arguments; returns the result files' names.
fn run_dam_break(out: &std::path::Path, end: f64, extra: &[&str]) -> Vec<String> {
    let scenario = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios/circular-dam-break-3-levels.toml");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_quadflood"))
        .args(["run", scenario.to_str().unwrap(), "--quiet", "--out"])
        .arg(out)
        .args(["--set", &format!("time.end={end}")])
        .args(["--set", &format!("time.output_interval={}", end / 2.0)])
        .args(extra)
        .env("XDG_RUNTIME_DIR", "/tmp")
        .status()
        .unwrap();
    assert!(status.success());
    common::result_files(out)
}

fn same_files(a: &std::path::Path, b: &std::path::Path, names: &[String], what: &str) {
    for name in names {
        let same = std::fs::read(a.join(name)).unwrap() == std::fs::read(b.join(name)).unwrap();
        assert!(same, "{name} differs {what}");
    }
}

fn summary(dir: &std::path::Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap()
}

/// `quadflood run --split 3` (three sub-domains with buffers of their own on one GPU, for
/// grids beyond one storage binding) writes the same files as a plain run, byte for byte.
#[test]
fn a_run_split_into_sub_domains_writes_the_same_files() {
    let dir = tempfile::tempdir().unwrap();
    let (one, split) = (dir.path().join("one"), dir.path().join("split"));
    let names = run_dam_break(&one, 4.0, &[]);
    assert!(names.len() >= 10, "{names:?}");
    assert_eq!(run_dam_break(&split, 4.0, &["--split", "3"]), names);
    same_files(&one, &split, &names, "with --split 3");
    let split_summary = summary(&split);
    assert_eq!(split_summary["sub_domains_on_one_gpu"], 3);
    // Each sub-domain counts its own blocks; the run's count is theirs together.
    assert_eq!(split_summary["cell_updates"], summary(&one)["cell_updates"]);
}

/// `run --profile` on ranks (here two sub-domains on threads) times every pass of every
/// step, windows of timestamps one after another, and the GPU's time before each pass,
/// without changing a bit of the results.
#[test]
fn a_profiled_run_on_ranks_times_every_pass_of_every_step() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, profiled) = (dir.path().join("plain"), dir.path().join("profiled"));
    let names = run_dam_break(&plain, 8.0, &["--split", "2"]);
    assert_eq!(
        run_dam_break(&profiled, 8.0, &["--split", "2", "--profile"]),
        names
    );
    same_files(&plain, &profiled, &names, "with --profile");
    if !common::gpu()
        .features
        .contains(wgpu::Features::TIMESTAMP_QUERY)
    {
        return;
    }
    let s = summary(&profiled);
    let steps = s["steps"].as_u64().expect("steps");
    assert!(
        steps > 2 * 32,
        "{steps} steps: too few to cross two windows"
    );
    assert_eq!(s["profile"]["timed_steps"].as_u64(), Some(steps));
    let kernels = s["profile"]["kernels"].as_object().expect("pass times");
    assert_eq!(kernels.len(), PASS_NAMES.len(), "{kernels:?}");
    assert!(
        kernels.values().all(|v| v.as_f64() > Some(0.0)),
        "{kernels:?}"
    );
    for rank in s["per_rank"].as_array().expect("per-rank reports") {
        for key in ["gpu_us_per_step", "gpu_idle_before_us_per_step"] {
            let per_pass = rank[key].as_object().expect(key);
            assert_eq!(per_pass.len(), PASS_NAMES.len(), "{key}: {per_pass:?}");
            let ok = |v: &serde_json::Value| v.as_f64().is_some_and(|t| t.is_finite() && t >= 0.0);
            assert!(per_pass.values().all(ok), "{key}: {per_pass:?}");
        }
        assert!(rank["gpu_us_per_step"]["stage1_internal"].as_f64() > Some(0.0));
    }
}

/// `quadflood bench` under mpirun, here on threads: a 3-level dam break split over two
/// ranks, with each rank's waits and the GPU time of each of a step's four passes.
#[test]
fn the_scaling_benchmark_times_every_pass_of_every_rank() {
    let model = quadflood::bench::dam_break_on_levels(256, 128, 3);
    assert_eq!(model.grid.levels, 3);
    assert!(model.grid.stored_cells() < 256 * 128);
    let gpu = common::gpu();
    let figures =
        quadflood::comm::threads::on_threads(2, |c| quadflood::bench::scaling(gpu, c, &model, 4))
            .expect("the benchmark runs");
    assert_eq!(figures["stored_cells"], model.grid.stored_cells());
    let ranks = figures["per_rank_ms_per_step"]
        .as_array()
        .expect("per-rank figures");
    assert_eq!(ranks.len(), 2);
    if !gpu.features.contains(wgpu::Features::TIMESTAMP_QUERY) {
        return;
    }
    for rank in ranks {
        let passes = rank["gpu_passes"].as_object().expect("pass times");
        assert_eq!(passes.len(), PASS_NAMES.len());
        let ms: Vec<f64> = passes.values().map(|v| v.as_f64().expect("ms")).collect();
        assert!(ms.iter().all(|&t| t.is_finite() && t >= 0.0), "{passes:?}");
        assert!(passes["stage1_internal"].as_f64() > Some(0.0), "{passes:?}");
        let busy = rank["gpu_busy"].as_f64().expect("busy");
        assert!((busy - ms.iter().sum::<f64>()).abs() < 1e-9 * busy.max(1.0));
        let before = rank["gpu_before_passes"].as_object().expect("gaps");
        assert_eq!(
            before.keys().collect::<Vec<_>>(),
            passes.keys().collect::<Vec<_>>()
        );
        let gaps: Vec<f64> = before.values().map(|v| v.as_f64().expect("ms")).collect();
        assert!(
            gaps.iter().all(|&t| t.is_finite() && t >= 0.0),
            "{before:?}"
        );
        let between = rank["gpu_between"].as_f64().expect("between");
        assert!((between - gaps.iter().sum::<f64>()).abs() < 1e-9 * between.max(1.0));
    }
}
