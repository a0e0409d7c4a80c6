//! The command line refuses bad input with exit code 2 and a message that names the file,
//! the key and what was expected, and writes nothing.

use std::path::Path;
use std::process::Command;

const GOOD: &str = r#"
[domain]
cell_size = 1.0
nx = 20
ny = 20

[terrain]
type = "flat"

[initial]
depth = 0.5

[time]
end = 10.0
output_interval = 5.0
"#;

fn quadflood(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_quadflood"))
        .args(args)
        .env("XDG_RUNTIME_DIR", "/tmp")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `check` and `run` on a scenario and expects both to refuse it.
fn refuses(dir: &Path, name: &str, toml: &str, expect: &[&str]) {
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, toml).unwrap();
    let (code, message) = quadflood(&["check", path.to_str().unwrap()]);
    assert_eq!(code, 2, "{name}: exit code {code}, message {message}");
    for e in expect {
        assert!(
            message.contains(e),
            "{name}: message lacks {e:?}: {message}"
        );
    }
    let out = dir.join(format!("{name}-out"));
    let (code, _) = quadflood(&[
        "run",
        path.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(code, 2, "{name}: run exit code {code}");
    assert!(!out.exists(), "{name}: run created {out:?} for bad input");
}

#[test]
fn a_good_scenario_checks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("good.toml");
    std::fs::write(&path, GOOD).unwrap();
    let (code, message) = quadflood(&["check", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{message}");
}

fn hydrograph_with(series: &str) -> String {
    format!(
        "{GOOD}\n[[boundary.segment]]\nedge = \"west\"\ntype = \"inflow\"\ndischarge = {series}\n"
    )
}

#[test]
fn bad_scenarios_exit_with_code_2() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    refuses(
        d,
        "malformed",
        "[domain\ncell_size = 1\n",
        &["malformed.toml", "line 1"],
    );
    refuses(
        d,
        "unknown",
        &GOOD.replace("end = 10.0", "end = 10.0\nstop = 3"),
        &["unknown.toml", "unknown field `stop`"],
    );
    refuses(
        d,
        "cfl_zero",
        &GOOD.replace("end = 10.0", "end = 10.0\ncfl = 0.0"),
        &["time.cfl", "0.01 <= cfl <= 0.5"],
    );
    refuses(
        d,
        "cfl_big",
        &GOOD.replace("end = 10.0", "end = 10.0\ncfl = 1.5"),
        &["time.cfl", "1.5"],
    );
    refuses(
        d,
        "negative_depth",
        &GOOD.replace("depth = 0.5", "depth = -0.5"),
        &["initial.depth", "negative depth"],
    );
    refuses(
        d,
        "late_output",
        &GOOD.replace("output_interval = 5.0", "output_times = [5.0, 20.0]"),
        &["time.output_times", "20", "outside"],
    );
    let hydrograph = format!(
        "{GOOD}\n[[boundary.segment]]\nedge = \"west\"\ntype = \"inflow\"\ndischarge = {{ time = [0.0, 10.0, 5.0], value = [0.0, 1.0, 0.0] }}\n"
    );
    let misspelt = hydrograph_with("{ time = [0.0, 10.0], value = [0.0, 1.0], valeu = 3 }");
    refuses(
        d,
        "series_key",
        &misspelt,
        &["line 20", "valeu", "no other keys"],
    );
    let circle = GOOD.replace("[time]", "[[initial.region]]\nshape = \"rectangle\"\nmin = [0.0, 0.0]\nmax = [5.0, 5.0]\nradius = 3.0\ndepth = 1.0\n\n[time]");
    refuses(
        d,
        "region_key",
        &circle,
        &["initial.region[0].radius", "does not use"],
    );
    refuses(
        d,
        "hydrograph",
        &hydrograph,
        &["boundary.segment[0].discharge", "times must increase"],
    );
    for (name, table, expected) in [
        (
            "balance_rule",
            "rule = \"fast\"",
            ["load_balancing.rule", "\"cost\" or \"idle\""],
        ),
        (
            "balance_every",
            "every = 0",
            ["load_balancing.every", "at least 1"],
        ),
        (
            "balance_threshold",
            "threshold = 0.5",
            ["load_balancing.threshold", ">= 1"],
        ),
        (
            "balance_epsilon",
            "epsilon = 1.0",
            ["load_balancing.epsilon", "[0, 1)"],
        ),
        (
            "balance_busy_share",
            "min_busy_share = 1.5",
            ["load_balancing.min_busy_share", "[0, 1)"],
        ),
    ] {
        let text = format!("{GOOD}\n[load_balancing]\n{table}\n");
        refuses(d, name, &text, &expected);
    }
    let good = d.join("good.toml");
    std::fs::write(&good, GOOD).unwrap();
    let grid_out = d.join("grid-out");
    let (code, message) = quadflood(&[
        "grid",
        good.to_str().unwrap(),
        "--ranks",
        "100000",
        "--out",
        grid_out.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{message}");
    assert!(
        message.contains("good.toml") && message.contains("100000 ranks for a grid of"),
        "{message}"
    );
    assert!(!grid_out.join("partition.png").exists());
    // NaN and infinity are not numbers a scenario can mean.
    let gauge = format!("{GOOD}\n[[gauge]]\nname = \"g\"\nx = nan\ny = 1.0\n");
    refuses(d, "nan_gauge", &gauge, &["gauge[0]", "outside"]);
    refuses(
        d,
        "nan_start",
        &GOOD.replace("end = 10.0", "end = 10.0\nstart = -inf"),
        &["time.end", "-inf"],
    );
    // A reference date in a form quadflood does not read, and dates without one.
    let dated = |reference: &str| {
        GOOD.replace(
            "end = 10.0",
            &format!("end = 10.0\nreference = {reference}"),
        )
    };
    refuses(
        d,
        "bad_reference",
        &dated("\"27/11/2026 06:00\""),
        &[
            "time.reference",
            "\"2026-11-27T06:00:00Z\"",
            "27/11/2026 06:00",
        ],
    );
    refuses(
        d,
        "number_reference",
        &dated("1800"),
        &["time.reference", "found 1800"],
    );
    std::fs::write(d.join("dated.csv"), "when,q\n2026-11-27T06:00:00Z,1\n").unwrap();
    let dates = r#"{ csv = "dated.csv", time_unit = "datetime", unit = "m3/s" }"#;
    refuses(
        d,
        "dates_without_reference",
        &hydrograph_with(dates),
        &["boundary.segment[0].discharge.time_unit", "time.reference"],
    );
    let sloped = GOOD.replace("type = \"flat\"", "type = \"slope\"\nslope_x = nan");
    refuses(
        d,
        "nan_slope",
        &sloped,
        &["`terrain`", "not a finite elevation"],
    );
}

#[test]
fn missing_and_broken_files_exit_with_code_2() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (code, message) = quadflood(&["check", d.join("absent.toml").to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        message.contains("absent.toml") && message.contains("cannot read"),
        "{message}"
    );

    let raster = "[terrain]\ntype = \"raster\"\npath = \"dem.asc\"\n[time]\nend = 10.0\n";
    refuses(d, "no_raster", raster, &["dem.asc", "cannot read"]);
    // Nodata is outside the domain (see tests/real_terrain.rs); nothing but nodata is an error.
    let holes = "ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\nNODATA_value -9999\n-9999 nan -9999\n-9999 -9999 -9999\n";
    std::fs::write(d.join("dem.asc"), holes).unwrap();
    refuses(
        d,
        "all_nodata",
        raster,
        &["dem.asc", "every cell is nodata"],
    );
}

/// Maps are written on a thread beside the time loop: a map that cannot be written still
/// ends the run with an error that names it, and no summary claims a finished run.
#[test]
fn a_map_that_cannot_be_written_fails_the_run_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("good.toml");
    std::fs::write(&path, GOOD).unwrap();
    let out = dir.path().join("out");
    // A folder where the first map of t = 5 s goes, whichever the build's format.
    for ext in ["tif", "asc"] {
        std::fs::create_dir_all(out.join(format!("level_0000005.0s.{ext}"))).unwrap();
    }
    let (code, message) = quadflood(&[
        "run",
        path.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(code, 1, "{message}");
    assert!(message.contains("level_0000005.0s."), "{message}");
    assert!(!out.join("summary.json").exists());
    // The maps that could be written were.
    assert!(std::fs::read_dir(&out).unwrap().any(|e| e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .starts_with("depth_0000005.0s.")));
}

/// `command` run as on a headless machine (no XDG_RUNTIME_DIR, nothing chosen for the
/// Vulkan layers or the backend): whether it succeeded, its stdout and its stderr.
fn headless(mut command: Command) -> (bool, String, String) {
    let out = command
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("NODEVICE_SELECT")
        .env_remove("WGPU_BACKEND")
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A first run on a headless machine prints no spurious errors: probing wgpu's GL backend
/// printed `error: XDG_RUNTIME_DIR is invalid or not set` twice (and listed every GPU a
/// second time, as GL). `info` with no XDG_RUNTIME_DIR says nothing on stderr and lists
/// no GL adapter.
#[test]
fn info_on_a_headless_machine_prints_no_errors() {
    let mut info = Command::new(env!("CARGO_BIN_EXE_quadflood"));
    info.arg("info");
    let (success, stdout, stderr) = headless(info);
    assert!(success, "{stdout}{stderr}");
    assert!(!stderr.contains("error"), "stderr: {stderr}");
    assert!(!stdout.contains("(Gl,"), "a GL adapter listed: {stdout}");
}

/// Tests and programs that use the library start as quietly: the Vulkan layer that printed
/// the two `error:` lines is switched off where the GPU is opened, not in `main` alone
/// (every `cargo test` on a headless machine printed them). This test runs the helper
/// below, in this same test binary, with no XDG_RUNTIME_DIR.
#[test]
fn the_library_on_a_headless_machine_prints_no_errors() {
    let mut helper = Command::new(std::env::current_exe().unwrap());
    helper.args([
        "--ignored",
        "--exact",
        "opens_the_gpu_for_the_quiet_start_test",
    ]);
    let (success, stdout, stderr) = headless(helper);
    assert!(success, "{stdout}{stderr}");
    assert!(
        stdout.contains("1 passed"),
        "the helper did not run: {stdout}"
    );
    assert!(!stderr.contains("error"), "stderr: {stderr}");
}

/// Helper of the test above: opens the GPU through the library, as every solver test does.
#[test]
#[ignore = "run by the_library_on_a_headless_machine_prints_no_errors"]
fn opens_the_gpu_for_the_quiet_start_test() {
    quadflood::gpu::Gpu::open(None).expect("a GPU adapter");
}

/// A run into the folder its inputs come from must not write over them: a hydrograph named
/// `mass_balance.csv` was replaced by the run's own balance (exit 0), and the next run
/// failed on it; a nested model reading another run's `gauge_x.csv` from the folder it
/// writes into would lose it the same way. Refused with exit 2, naming the key and the
/// file, and the input is left as it was.
#[test]
fn a_run_does_not_write_over_its_own_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let hydrograph = "t,Q\n0,1\n100,1\n";
    std::fs::write(d.join("mass_balance.csv"), hydrograph).unwrap();
    let scenario = GOOD.replace(
        "[time]",
        "[[boundary.segment]]\nedge = \"west\"\ntype = \"inflow\"\ndischarge = { csv = \"mass_balance.csv\", time_column = \"t\", value_column = \"Q\", time_unit = \"s\", unit = \"m3/s\" }\n\n[time]",
    );
    std::fs::write(d.join("s.toml"), &scenario).unwrap();
    let s = d.join("s.toml");
    let (code, stderr) = quadflood(&["run", s.to_str().unwrap(), "--out", d.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("mass_balance.csv") && stderr.contains("boundary.segment[0].discharge.csv"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(d.join("mass_balance.csv")).unwrap(),
        hydrograph
    );
    // Into a folder of its own the same scenario runs.
    let out = d.join("results");
    let (code, stderr) = quadflood(&[
        "run",
        s.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(code, 0, "{stderr}");
}

/// `--out` naming a file was an I/O failure (exit 1, "File exists"); it is bad input, and
/// `--split 0` and `grid --ranks 0` were taken as one. Each exits 2 now, saying what was
/// expected, and leaves the file as it was.
#[test]
fn an_out_that_is_a_file_and_zero_ranks_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("s.toml"), GOOD).unwrap();
    let s = d.join("s.toml");
    let file = d.join("notes.txt");
    std::fs::write(&file, "mine").unwrap();
    let (code, stderr) = quadflood(&["run", s.to_str().unwrap(), "--out", file.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("--out") && stderr.contains("expected a folder"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
    let out = d.join("o");
    let (s, out) = (s.to_str().unwrap(), out.to_str().unwrap());
    for (args, flag) in [
        (["run", s, "--out", out, "--split", "0"], "--split"),
        (["grid", s, "--out", out, "--ranks", "0"], "--ranks"),
    ] {
        let (code, stderr) = quadflood(&args);
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains(flag) && stderr.contains("at least 1"),
            "{stderr}"
        );
    }
}

/// Messages in the scenario's words: a wrong type for `domain` (through `--set`) said
/// "expected struct DomainSpec", a table where a depth goes said "data did not match any
/// variant of untagged enum Value".
#[test]
fn wrong_types_are_named_in_the_scenarios_words() {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path().join("s.toml");
    std::fs::write(&s, GOOD).unwrap();
    let (code, stderr) = quadflood(&["check", s.to_str().unwrap(), "--set", "domain=5"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("expected a table") && !stderr.contains("Spec"),
        "{stderr}"
    );
    std::fs::write(&s, GOOD.replace("depth = 0.5", "depth = [1, 2]")).unwrap();
    let (code, stderr) = quadflood(&["check", s.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("a number, or an expression") && !stderr.contains("untagged"),
        "{stderr}"
    );
}
