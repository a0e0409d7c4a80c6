//! Checkpoint and restart: a run restarted from its checkpoint writes the same bits as the
//! run that was never interrupted (fields, maxima, gauges, mass balance); a broken or
//! foreign checkpoint is refused; an unstable run stops with its place and a diagnostic map.

use std::path::Path;
use std::process::Command;

const SCENARIO: &str = r#"
name = "restartable"

[domain]
cell_size = 2.0
nx = 96
ny = 64

[refinement]
levels = 2
near_inflow = 10.0

[terrain]
type = "expression"
expression = "0.002*x + 0.3*sin(y/9)"

[friction]
manning = 0.03

[rain]
rate = { time = [0.0, 20.0, 40.0], value = [0.0, 90.0, 0.0] }

[[boundary.segment]]
edge = "west"
type = "inflow"
from = 40.0
to = 80.0
discharge = { time = [0.0, 15.0, 40.0], value = [0.0, 12.0, 2.0] }

[boundary]
east = "open"

[[gauge]]
name = "mid"
x = 100.0
y = 60.0

[time]
end = 40.0
output_interval = 10.0
gauge_interval = 2.0

[output]
format = "ascii"
png = false
"#;

fn quadflood(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_quadflood"))
        .args(args)
        .env("XDG_RUNTIME_DIR", "/tmp")
        .output()
        .expect("run quadflood");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn run(scenario: &Path, out: &Path, extra: &[&str]) {
    let mut args = vec![
        "run",
        scenario.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ];
    args.extend_from_slice(extra);
    let (code, stderr) = quadflood(&args);
    assert_eq!(code, 0, "{args:?}: {stderr}");
}

fn results(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".asc") || n.ends_with(".csv"))
        .collect();
    names.sort();
    names
}

/// Copies the series files (CSV) of `from` into `to`.
fn copy_series(from: &Path, to: &Path) {
    for name in results(from).iter().filter(|n| n.ends_with(".csv")) {
        std::fs::copy(from.join(name), to.join(name)).unwrap();
    }
}

/// The scenario run to its end with a checkpoint every 15 s: (temporary folder, scenario
/// file, output folder).
fn uninterrupted_run() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    uninterrupted_run_with(&[])
}

/// As `uninterrupted_run`, with `extra` arguments.
fn uninterrupted_run_with(
    extra: &[&str],
) -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("restartable.toml");
    std::fs::write(&scenario, SCENARIO).unwrap();
    let whole = dir.path().join("whole");
    let mut args = vec!["--checkpoint-every", "15"];
    args.extend_from_slice(extra);
    run(&scenario, &whole, &args);
    (dir, scenario, whole)
}

/// Restarts from the checkpoint at 16 s into a copy of the uninterrupted run's folder as
/// it stood, with `extra` arguments: every map and series file must come out the same.
fn restart_gives_the_same_bits(extra: &[&str]) -> (tempfile::TempDir, std::path::PathBuf) {
    restart_from_gives_the_same_bits(extra, "checkpoint_0000016.0s.qfck")
}

/// As `restart_gives_the_same_bits`, from the checkpoint of that name.
fn restart_from_gives_the_same_bits(
    extra: &[&str],
    name: &str,
) -> (tempfile::TempDir, std::path::PathBuf) {
    let (dir, scenario, whole) = uninterrupted_run_with(extra);
    // Checkpoints fall on the first stop at or after 15 s and 30 s; the last two are kept.
    let checkpoint = whole.join(name);
    assert!(checkpoint.exists(), "{:?}", results(&whole));
    // Restart into a copy of the folder as it stood (the CSVs continue from the checkpoint).
    let resumed = dir.path().join("resumed");
    std::fs::create_dir(&resumed).unwrap();
    for name in results(&whole) {
        std::fs::copy(whole.join(&name), resumed.join(&name)).unwrap();
    }
    for name in ["depth_0000040.0s.asc", "max_depth.asc", "arrival_time.asc"] {
        std::fs::remove_file(resumed.join(name)).unwrap();
    }
    // Written at the end by runs with losses.
    let _ = std::fs::remove_file(resumed.join("infiltration.asc"));
    let mut args = vec!["--restart", checkpoint.to_str().unwrap()];
    args.extend_from_slice(extra);
    run(&scenario, &resumed, &args);
    let names = results(&whole);
    assert_eq!(results(&resumed), names);
    assert!(names.len() >= 20, "{names:?}");
    for name in &names {
        let (a, b) = (
            std::fs::read(whole.join(name)).unwrap(),
            std::fs::read(resumed.join(name)).unwrap(),
        );
        assert!(a == b, "{name} differs after the restart");
    }
    let summary = |d: &Path| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(d.join("summary.json")).unwrap()).unwrap()
    };
    let (a, b) = (summary(&whole), summary(&resumed));
    for key in [
        "steps",
        "mass_final_m3",
        "mass_inflow_m3",
        "mass_outflow_m3",
        "mass_rain_m3",
        "mass_initial_m3",
        "mass_infiltrated_m3",
    ] {
        assert_eq!(a[key], b[key], "{key}");
    }
    (dir, resumed)
}

/// A checkpoint on a gauge time whose double-f32 clock sums back to a little less (15.3 s,
/// from gauges every 0.9 s): the restart took the sum, a few ulps short, for its start,
/// and recorded that gauge time's rows again (a hunt: gauge, section and structure rows
/// written twice).
#[test]
fn a_restart_on_a_gauge_time_the_clock_holds_inexactly_writes_its_rows_once() {
    let (hi, lo) = quadflood::solver::split_f64(15.3);
    assert!(
        hi as f64 + (lo as f64) < 15.3,
        "the case needs a clock short of its time"
    );
    restart_from_gives_the_same_bits(
        &["--set", "time.gauge_interval=0.9"],
        "checkpoint_0000015.3s.qfck",
    );
}

#[test]
fn a_restarted_run_gives_the_same_bits_as_an_uninterrupted_one() {
    let (_dir, resumed) = restart_gives_the_same_bits(&[]);
    let gauge = std::fs::read_to_string(resumed.join("gauge_mid.csv")).unwrap();
    assert_eq!(gauge.lines().nth(1), Some("time_s,h_m,u_m_s,v_m_s,eta_m"));
}

/// The depth each cell lost to the ground and each block's lost volume are in the
/// checkpoint: a restart that forgot them would take the initial loss again.
#[test]
fn a_restarted_run_with_losses_gives_the_same_bits() {
    let (_dir, resumed) = restart_gives_the_same_bits(&[
        "--set",
        "losses.model=\"initial_continuing\"",
        "--set",
        "losses.initial=1.5",
        "--set",
        "losses.continuing=30",
    ]);
    let balance = std::fs::read_to_string(resumed.join("mass_balance.csv")).unwrap();
    let last = balance.lines().last().unwrap();
    let infiltrated: f64 = last.split(',').nth(4).unwrap().parse().unwrap();
    assert!(infiltrated > 1.0, "{last}");
    assert!(resumed.join("infiltration.asc").exists());
}

/// A culvert's smoothed discharge is in the checkpoint: a restart goes on from it, and its
/// hydrograph continues to the same bytes.
#[test]
fn a_restarted_run_with_a_culvert_gives_the_same_bits() {
    let (_dir, resumed) = restart_gives_the_same_bits(&[
        "--set",
        "culvert=[{ shape = \"box\", width = 1.0, height = 0.5, inlet = [5.0, 60.0], outlet = [120.0, 40.0] }]",
    ]);
    let series = std::fs::read_to_string(resumed.join("structures.csv")).unwrap();
    let last = series.lines().last().unwrap();
    let q: f64 = last.split(',').nth(1).unwrap().parse().unwrap();
    assert!(q.abs() > 0.01, "{last}");
}

/// With a reference date the series carry a date column, and a restart continues it (and
/// the mass balance, whose storage column moved) to the same bytes.
#[test]
fn a_restarted_run_with_a_reference_date_gives_the_same_bits() {
    // Water at the start, so that the balance's initial storage is not 0 like its other
    // first-row volumes, and reading the wrong column for it would show.
    let (_dir, resumed) = restart_gives_the_same_bits(&[
        "--set",
        "time.reference=2026-11-27T06:00:00Z",
        "--set",
        "initial.depth=0.05",
    ]);
    let gauge = std::fs::read_to_string(resumed.join("gauge_mid.csv")).unwrap();
    let lines: Vec<&str> = gauge.lines().collect();
    assert_eq!(lines[1], "time_s,time_utc,h_m,u_m_s,v_m_s,eta_m");
    assert!(
        lines[2].starts_with("0,2026-11-27T06:00:00Z,"),
        "{}",
        lines[2]
    );
    let last = lines.last().unwrap();
    assert!(last.starts_with("40,2026-11-27T06:00:40Z,"), "{last}");
    let balance = std::fs::read_to_string(resumed.join("mass_balance.csv")).unwrap();
    assert!(
        balance.starts_with("time_s,time_utc,inflow_m3,"),
        "{balance}"
    );
}

#[test]
fn a_foreign_or_truncated_checkpoint_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("restartable.toml");
    std::fs::write(&scenario, SCENARIO).unwrap();
    let out = dir.path().join("out");
    run(
        &scenario,
        &out,
        &["--checkpoint-every", "30", "--set", "time.end=31"],
    );
    let checkpoint = out.join("checkpoint_0000030.0s.qfck");
    // Restarting `scenario` from `file` exits with code 2, naming the file and the reason.
    let refused = |scenario: &std::path::Path, file: &std::path::Path, reason: &str| {
        let (code, stderr) = quadflood(&[
            "run",
            scenario.to_str().unwrap(),
            "--restart",
            file.to_str().unwrap(),
        ]);
        assert_eq!(code, 2, "{stderr}");
        let name = file.file_name().unwrap().to_str().unwrap();
        assert!(stderr.contains(name) && stderr.contains(reason), "{stderr}");
    };
    let other = dir.path().join("other.toml");
    std::fs::write(&other, SCENARIO.replace("nx = 96", "nx = 80")).unwrap();
    refused(&other, &checkpoint, "another grid");
    let bytes = std::fs::read(&checkpoint).unwrap();
    let cut = dir.path().join("cut.qfck");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    refused(&scenario, &cut, "truncated");
    // A checkpoint of the first format (maxima in 20 bytes a cell).
    let old = dir.path().join("old.qfck");
    let text_end = bytes.iter().position(|&b| b == b'\n').unwrap();
    let mut older = b"quadflood checkpoint 1".to_vec();
    older.extend_from_slice(&bytes[text_end..]);
    std::fs::write(&old, older).unwrap();
    refused(&scenario, &old, "format 1");
}

#[test]
fn an_unstable_run_stops_with_its_place_and_the_last_sound_state() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("blowup.toml");
    std::fs::write(&scenario, SCENARIO).unwrap();
    let out = dir.path().join("out");
    // No sound input blows the scheme up (every forcing bounds the step): from the first
    // stop after t = 12 s the state holds a NaN in its first cell, a fault made on purpose.
    let o = Command::new(env!("CARGO_BIN_EXE_quadflood"))
        .args(["run", scenario.to_str().unwrap(), "--out"])
        .arg(&out)
        .arg("--quiet")
        .env("XDG_RUNTIME_DIR", "/tmp")
        .env("QUADFLOOD_TEST_POISON_AT", "12")
        .output()
        .unwrap();
    let (code, stderr) = (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    );
    assert_eq!(code, 4, "{stderr}");
    let t: f64 = stderr
        .split("by t = ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        (12.0..20.0).contains(&t) && stderr.contains("block"),
        "{stderr}"
    );
    assert!(
        stderr.contains(" x ") && stderr.contains(" y "),
        "the place in map coordinates: {stderr}"
    );
    assert!(
        out.join("diagnostic_last_good_0000010.0s.asc").exists(),
        "{stderr}"
    );
    assert!(out.join("depth_0000010.0s.asc").exists());
    assert!(
        !out.join("depth_0000020.0s.asc").exists(),
        "a map of the blown-up state"
    );
    assert!(!out.join("summary.json").exists());
}

/// A full disk, stood in for by a file-size limit (`ulimit -f`, with SIGXFSZ ignored so
/// that writes fail with EFBIG as they would with ENOSPC): the run stops with exit code 1
/// and a message naming the file, leaves no part-written checkpoint, and the previous
/// checkpoint still restarts the run to the same bits.
#[test]
fn a_full_disk_stops_the_run_and_keeps_the_last_checkpoint() {
    let (dir, scenario, whole) = uninterrupted_run();
    let checkpoint = whole.join("checkpoint_0000016.0s.qfck");
    let size = std::fs::metadata(&checkpoint).unwrap().len();
    // The run below writes no maps (a checkpoint is smaller than an ASCII map): room for
    // every series, not for a checkpoint.
    let biggest_series = results(&whole)
        .iter()
        .filter(|n| !n.ends_with(".asc"))
        .map(|n| std::fs::metadata(whole.join(n)).unwrap().len())
        .max()
        .unwrap();
    let limit_kib = size / 2 / 1024;
    assert!(
        biggest_series < limit_kib * 1024,
        "{biggest_series} B of series"
    );
    let full = dir.path().join("full");
    std::fs::create_dir(&full).unwrap();
    let kept = full.join("checkpoint_0000016.0s.qfck");
    std::fs::copy(&checkpoint, &kept).unwrap();
    // A restart continues the series of the run that wrote the checkpoint.
    copy_series(&whole, &full);
    let out = Command::new("bash")
        .args([
            "-c",
            &format!("ulimit -f {limit_kib}; trap '' XFSZ; exec \"$0\" \"$@\""),
            env!("CARGO_BIN_EXE_quadflood"),
            "run",
            scenario.to_str().unwrap(),
            "--out",
            full.to_str().unwrap(),
            "--quiet",
            "--restart",
            kept.to_str().unwrap(),
            "--checkpoint-every",
            "15",
            "--set",
            "output.rasters=false",
        ])
        .env("XDG_RUNTIME_DIR", "/tmp")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(full.to_str().unwrap())
            && stderr.contains(".qfck")
            && stderr.contains("intact"),
        "{stderr}"
    );
    let names: Vec<String> = std::fs::read_dir(&full)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !names
            .iter()
            .any(|n| n.contains(".tmp")
                || (n.ends_with(".qfck") && *n != "checkpoint_0000016.0s.qfck")),
        "{names:?}"
    );
    assert!(std::fs::read(&kept).unwrap() == std::fs::read(&checkpoint).unwrap());
    let again = dir.path().join("again");
    std::fs::create_dir(&again).unwrap();
    copy_series(&whole, &again);
    run(&scenario, &again, &["--restart", kept.to_str().unwrap()]);
    for name in ["depth_0000040.0s.asc", "max_depth.asc"] {
        assert!(
            std::fs::read(again.join(name)).unwrap() == std::fs::read(whole.join(name)).unwrap(),
            "{name} differs"
        );
    }
}

/// A still lake 12 minutes long: quick-looks titled in minutes, and a checkpoint at 6 min
/// from which less than 10 minutes are left.
const TWELVE_MINUTES: &str = r#"
name = "titled"

[domain]
cell_size = 5.0
nx = 24
ny = 16

[terrain]
type = "expression"
expression = "0.01*x"

[initial]
water_level = 0.5

[time]
end = 720.0
output_interval = 120.0

[output]
format = "ascii"
animation = false
"#;

#[test]
fn a_restarted_run_titles_its_quick_looks_as_the_whole_run_does() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("titled.toml");
    std::fs::write(&scenario, TWELVE_MINUTES).unwrap();
    let out = dir.path().join("out");
    run(&scenario, &out, &["--checkpoint-every", "360"]);
    let last = out.join("depth_0000720.0s.png");
    let whole = std::fs::read(&last).unwrap();
    let checkpoint = out.join("checkpoint_0000360.0s.qfck");
    run(
        &scenario,
        &out,
        &["--restart", checkpoint.to_str().unwrap()],
    );
    assert!(
        std::fs::read(&last).unwrap() == whole,
        "the restarted run drew depth_0000720.0s.png differently (its title's time)"
    );
}
