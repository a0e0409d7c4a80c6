//! Multi-rank runs through MPI: `mpirun -n P quadflood run` writes the same files as one
//! rank, bit for bit, and a failing rank ends the run instead of hanging it.
#![cfg(feature = "mpi")]

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const SCENARIO: &str = r#"
name = "mpi-check"

[domain]
cell_size = 1.0
nx = 160
ny = 128

[refinement]
levels = 3

[[refinement.region]]
shape = "circle"
center = [70.0, 64.0]
radius = 20.0
level = 0

[terrain]
type = "expression"
expression = "0.2*sin(x/7)*cos(y/9) + 1.0*exp(0 - ((x-100)^2 + (y-60)^2)/120)"

[initial]
water_level = 0.3

[[initial.region]]
shape = "circle"
center = [70.0, 64.0]
radius = 14.0
water_level = 1.5

[time]
end = 4.0
output_times = [2.0, 4.0]
gauge_interval = 1.0

[[gauge]]
name = "g"
x = 100.0
y = 64.0
"#;

fn mpirun(
    ranks: usize,
    scenario: &Path,
    out: &Path,
    env: &[(&str, &str)],
) -> (Option<i32>, String, Duration) {
    mpirun_with(ranks, scenario, out, env, &[])
}

fn mpirun_with(
    ranks: usize,
    scenario: &Path,
    out: &Path,
    env: &[(&str, &str)],
    extra: &[&str],
) -> (Option<i32>, String, Duration) {
    let start = Instant::now();
    let mut cmd = Command::new("mpirun");
    cmd.args([
        "--allow-run-as-root",
        "--oversubscribe",
        "-n",
        &ranks.to_string(),
    ])
    .arg(env!("CARGO_BIN_EXE_quadflood"))
    .args([
        "run",
        scenario.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ])
    .args(extra)
    .env("XDG_RUNTIME_DIR", "/tmp");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let output = cmd.output().expect("mpirun (install openmpi-bin or mpich)");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        start.elapsed(),
    )
}

/// `quadflood run` on one rank, no MPI launcher.
fn run_alone(scenario: &Path, out: &Path, extra: &[&str]) {
    let status = Command::new(env!("CARGO_BIN_EXE_quadflood"))
        .args([
            "run",
            scenario.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ])
        .args(extra)
        .env("XDG_RUNTIME_DIR", "/tmp")
        .status()
        .unwrap();
    assert!(status.success());
}

/// Sixteen processes share the one GPU at the end (more ranks than GPUs, as a cluster job
/// may start to try an exchange pattern): each holds a handful of blocks, most of them
/// beside other ranks'.
#[test]
fn two_three_four_and_sixteen_ranks_write_the_same_files_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("mpi-check.toml");
    std::fs::write(&scenario, SCENARIO).unwrap();
    let one = dir.path().join("one");
    run_alone(&scenario, &one, &[]);
    let expected = common::result_files(&one);
    assert!(expected.len() >= 15, "{expected:?}");
    assert!(expected.contains(&"mass_balance.csv".to_string()));
    // Three ranks copy their strips through staging buffers instead of writing and reading
    // them in mappable ones (QUADFLOOD_STRIPS=copied): the same bits either way.
    for (ranks, strips) in [(2, "direct"), (3, "copied"), (4, "direct"), (16, "direct")] {
        let out = dir.path().join(format!("ranks{ranks}"));
        let (code, stderr, took) = mpirun(ranks, &scenario, &out, &[("QUADFLOOD_STRIPS", strips)]);
        println!("{ranks} ranks, strips {strips}: {took:?}");
        assert_eq!(code, Some(0), "{ranks} ranks failed: {stderr}");
        let summary = same_files_as_one(&one, &out, &expected, ranks);
        assert_eq!(summary["per_rank"].as_array().unwrap().len(), ranks);
    }
}

/// A run of `ranks` ranks into `out` wrote the files `expected` that one rank wrote into
/// `one`, byte for byte, and says how many ranks it had; returns its summary.
fn same_files_as_one(
    one: &Path,
    out: &Path,
    expected: &[String],
    ranks: usize,
) -> serde_json::Value {
    assert_eq!(common::result_files(out), expected);
    for name in expected {
        let (a, b) = (
            std::fs::read(one.join(name)).unwrap(),
            std::fs::read(out.join(name)).unwrap(),
        );
        assert!(a == b, "{name} differs between 1 and {ranks} ranks");
    }
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["ranks"], ranks);
    summary
}

#[test]
fn a_checkpoint_of_one_rank_restarts_on_three_with_the_same_bits() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("mpi-check.toml");
    std::fs::write(&scenario, SCENARIO).unwrap();
    let one = dir.path().join("one");
    run_alone(&scenario, &one, &["--checkpoint-every", "2"]);
    let resumed = dir.path().join("resumed");
    std::fs::create_dir(&resumed).unwrap();
    for name in common::result_files(&one)
        .iter()
        .filter(|n| n.ends_with(".csv"))
    {
        std::fs::copy(one.join(name), resumed.join(name)).unwrap();
    }
    let checkpoint = one.join("checkpoint_0000002.0s.qfck");
    let (code, stderr, _) = mpirun_with(
        3,
        &scenario,
        &resumed,
        &[],
        &["--restart", checkpoint.to_str().unwrap()],
    );
    assert_eq!(code, Some(0), "{stderr}");
    // Maps from t = 4 s on, the maxima, the gauges and the mass balance.
    for name in common::result_files(&resumed) {
        let (a, b) = (
            std::fs::read(one.join(&name)).unwrap(),
            std::fs::read(resumed.join(&name)).unwrap(),
        );
        assert!(a == b, "{name} differs after a restart on 3 ranks");
    }
    assert!(resumed.join("max_depth.tif").exists() || resumed.join("max_depth.asc").exists());
}

#[test]
fn a_failing_rank_ends_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("mpi-check.toml");
    std::fs::write(&scenario, SCENARIO).unwrap();
    let (code, stderr, took) = mpirun(
        2,
        &scenario,
        &dir.path().join("out"),
        &[("QUADFLOOD_TEST_FAIL_RANK", "1")],
    );
    println!("{stderr}");
    assert_ne!(code, Some(0));
    assert!(stderr.contains("rank 1 of 2 failed"), "{stderr}");
    assert!(
        took < Duration::from_secs(60),
        "the run took {took:?} to end"
    );
}

/// An instability on a rank other than 0 (a NaN in the state of rank 1, which the 1D
/// partition gives the east half) stops every rank in the same step with exit code 4, and
/// rank 0 still writes the diagnostic map of the last sound state it gathered.
#[test]
fn an_instability_on_another_rank_stops_all_with_a_diagnostic_map() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("blowup.toml");
    std::fs::write(&scenario, SCENARIO).unwrap();
    let out = dir.path().join("out");
    // A NaN written into rank 1's state after t = 2.5 s (no sound input blows up: forcing
    // that could is refused at load).
    let (code, stderr, took) = mpirun_with(
        2,
        &scenario,
        &out,
        &[("QUADFLOOD_TEST_POISON_AT", "2.5")],
        &["--partition", "1d", "--set", "output.format=ascii"],
    );
    println!("{stderr}");
    assert_eq!(code, Some(4), "{stderr}");
    assert!(
        stderr.contains("rank 1 of 2 failed") && stderr.contains("in block"),
        "{stderr}"
    );
    assert!(
        stderr.contains("on another rank"),
        "rank 0 reports it: {stderr}"
    );
    assert!(
        out.join("diagnostic_last_good_0000002.0s.asc").exists(),
        "{stderr}"
    );
    // A no-hang bound: 6 s alone on 2 cores, 88 s beside this file's other mpirun tests
    // (their ranks spin while they wait, on cores they share).
    assert!(
        took < Duration::from_secs(300),
        "the run took {took:?} to end"
    );
}

/// The shipped wall dam break under `mpirun -n 4` with load balancing: blocks move between
/// processes, the files are those of one rank, bit for bit, and summary.json logs each move.
#[test]
fn four_ranks_with_load_balancing_write_the_same_files_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/wall-dam-break.toml");
    // Short, with short windows and any imbalance acted on (timings of oversubscribed
    // software GPUs are noise; the moves, not their benefit, are under test here).
    let settings = [
        "--set",
        "time.end=8",
        "--set",
        "time.output_interval=4",
        "--set",
        "load_balancing.every=8",
        "--set",
        "load_balancing.threshold=1.0",
        "--set",
        "load_balancing.payback=1e6",
        "--set",
        "load_balancing.min_busy_share=0",
    ];
    let one = dir.path().join("one");
    run_alone(&scenario, &one, &settings);
    let out = dir.path().join("four");
    let (code, stderr, took) = mpirun_with(4, &scenario, &out, &[], &settings);
    println!("4 ranks with load balancing: {took:?}");
    assert_eq!(code, Some(0), "{stderr}");
    let expected = common::result_files(&one);
    assert!(expected.len() >= 6, "{expected:?}");
    assert_eq!(common::result_files(&out), expected);
    for name in &expected {
        let same = std::fs::read(one.join(name)).unwrap() == std::fs::read(out.join(name)).unwrap();
        assert!(same, "{name} differs between 1 rank and 4 balanced ranks");
    }
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    let log = summary["rebalancing"]
        .as_array()
        .expect("a rebalancing log");
    assert!(!log.is_empty(), "no move in {summary}");
    for e in log {
        assert_eq!(e["every_block_once"], true, "{e}");
        assert_eq!(e["volume_before_m3"], e["volume_after_m3"], "{e}");
        let map = e["map"].as_str().expect("a partition map per move");
        assert!(out.join(map).exists(), "{map}");
    }
    assert!(out.join("partition_step_00000000.png").exists());
}
