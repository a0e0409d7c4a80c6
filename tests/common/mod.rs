//! Helpers shared by the validation tests: build a scenario from TOML text, run it on the
//! default adapter (lavapipe in CI) and read the fields back.
#![allow(dead_code)]

pub mod agreement;

use quadflood::gpu::Gpu;
use quadflood::scenario::model::Model;
use quadflood::solver::{Fields, Simulation};
use std::sync::OnceLock;

/// Whether the long cases run: `QUADFLOOD_LONG_TESTS=1`, which `.ci/run` sets, so that a
/// plain `cargo test` on a 2-core machine stays near 20 minutes while CI runs everything.
/// A case it skips says so on stderr.
pub fn long_tests(case: &str) -> bool {
    let on = std::env::var_os("QUADFLOOD_LONG_TESTS").is_some_and(|v| v == "1");
    if !on {
        eprintln!("{case}: a long case, skipped; QUADFLOOD_LONG_TESTS=1 runs it (.ci/run does)");
    }
    on
}

/// One device for every test in a binary: opening lavapipe costs time.
pub fn gpu() -> &'static Gpu {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    GPU.get_or_init(|| {
        Gpu::open(None).expect("a GPU adapter (install mesa-vulkan-drivers for lavapipe)")
    })
}

pub fn model(toml: &str) -> Model {
    quadflood::scenario::from_str(toml, std::path::Path::new(".")).expect("a valid scenario")
}

/// Loads a scenario shipped in `scenarios/`.
pub fn scenario(name: &str) -> Model {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(name);
    quadflood::scenario::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs the model to `t` and returns the fields and the simulation's status.
pub fn run_to(model: &Model, t: f64) -> (Fields, quadflood::solver::Status) {
    let mut sim = Simulation::new(gpu(), model).expect("a simulation");
    sim.advance_to(t, &mut |_| {}).expect("the run");
    (sim.read_fields(), sim.status().clone())
}

/// Takes exactly n steps.
pub fn run_steps(model: &Model, n: u64) -> (Fields, quadflood::solver::Status) {
    let mut sim = Simulation::new(gpu(), model).expect("a simulation");
    sim.run_steps(n).expect("the run");
    (sim.read_fields(), sim.status().clone())
}

/// Depth and momentum agree bit for bit, cell by cell.
/// How many of the fields' discharges (hu and hv) are not zero: a lake at rest has none.
pub fn moving_discharges(f: &Fields) -> usize {
    f.hu.iter().chain(&f.hv).filter(|&&q| q != 0.0).count()
}

pub fn assert_same_fields(a: &Fields, b: &Fields, what: &str) {
    for (name, x, y) in [
        ("depth", &a.depth, &b.depth),
        ("hu", &a.hu, &b.hu),
        ("hv", &a.hv, &b.hv),
    ] {
        let differ = x
            .iter()
            .zip(y)
            .position(|(p, q)| p.to_bits() != q.to_bits());
        assert_eq!(
            differ, None,
            "{what}: {name} differs at this cell (the first)"
        );
    }
}

/// Runs `f` on `ranks` threads, one communicator each, and returns each rank's result in
/// rank order.
pub fn on_ranks<R: Send>(
    ranks: usize,
    f: impl Fn(&quadflood::comm::threads::ThreadComm) -> R + Sync,
) -> Vec<R> {
    let comms = quadflood::comm::threads::ThreadComm::group(ranks);
    std::thread::scope(|s| {
        let handles: Vec<_> = comms.iter().map(|c| s.spawn(|| f(c))).collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a rank thread"))
            .collect()
    })
}

/// The rasters and CSV files a run wrote into `dir`, sorted by name.
pub fn result_files(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| [".asc", ".tif", ".csv"].iter().any(|e| n.ends_with(e)))
        .collect();
    names.sort();
    names
}

/// The result files of `dir` (as `result_files`) with their bytes.
pub fn result_bytes(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    result_files(dir)
        .into_iter()
        .map(|name| {
            let bytes = std::fs::read(dir.join(&name)).unwrap();
            (name, bytes)
        })
        .collect()
}

/// A scenario shipped in `scenarios/`.
pub fn shipped(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(name)
}

/// `quadflood run SCENARIO --out OUT ARGS...` with the environment variables `env` set:
/// what the process did, whatever it did.
pub fn run_cli(
    scenario: &std::path::Path,
    out: &std::path::Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_quadflood"))
        .arg("run")
        .arg(scenario)
        .arg("--out")
        .arg(out)
        .args(args)
        .envs(env.iter().copied())
        .env("XDG_RUNTIME_DIR", "/tmp")
        .output()
        .unwrap()
}

/// `run_cli` with `--quiet` that must succeed: a failed run panics with its stderr.
pub fn run_ok(scenario: &std::path::Path, out: &std::path::Path, args: &[&str]) {
    let o = run_cli(scenario, out, &[&["--quiet"], args].concat(), &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// The result files (as `result_bytes`) of `quadflood run SCENARIO --quiet ARGS` with the
/// environment variables `env` set, into a fresh folder; a failed run panics with its
/// stderr.
pub fn run_results(
    scenario: &std::path::Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> Vec<(String, Vec<u8>)> {
    let out = tempfile::tempdir().unwrap();
    let o = run_cli(scenario, out.path(), &[&["--quiet"], args].concat(), env);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    result_bytes(out.path())
}

/// The result files of a shipped scenario run with `--set` each of `settings` (and no PNG
/// outputs) and the environment variables `env` set.
pub fn run_shipped(
    scenario: &str,
    settings: &[&str],
    env: &[(&str, &str)],
) -> Vec<(String, Vec<u8>)> {
    let mut args = vec!["--set", "output.png=false"];
    for setting in settings {
        args.extend(["--set", setting]);
    }
    run_results(&shipped(scenario), &args, env)
}

/// Asserts that two runs wrote the same files, byte for byte; `what` names the runs in
/// the message, with the first file that differs.
pub fn assert_same_results(a: &[(String, Vec<u8>)], b: &[(String, Vec<u8>)], what: &str) {
    assert!(a.len() > 2, "{what}: only {} files", a.len());
    assert_eq!(a.len(), b.len(), "{what}: file counts");
    for ((name, x), (other, y)) in a.iter().zip(b) {
        assert_eq!(name, other, "{what}");
        assert!(x == y, "{what}: {name} differs");
    }
}

/// Fails a test of many generated cases when any failed: keeps their folder under `root`
/// and lists the first `shown` failures.
pub fn fail_if_any(failures: &[&String], cases: usize, root: tempfile::TempDir, shown: usize) {
    use std::fmt::Write;
    if failures.is_empty() {
        return;
    }
    let kept = root.keep();
    let mut message = format!(
        "{} of {cases} cases failed (their files are kept under {}):\n\n",
        failures.len(),
        kept.display()
    );
    for f in failures.iter().take(shown) {
        message.push_str(f);
        message.push('\n');
    }
    if failures.len() > shown {
        writeln!(message, "... and {} more", failures.len() - shown).unwrap();
    }
    panic!("{message}");
}

/// The `summary.json` a run wrote into `dir`.
pub fn summary(dir: &std::path::Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap()
}

/// The first band of a raster a run wrote, row by row from the south (row 0 south, as the
/// solver stores its cells).
pub fn read_map(path: &std::path::Path) -> Vec<f64> {
    quadflood::io::georaster::read(path).unwrap().raster.data
}

/// The water volumes (m³ on 1 m cells) west and east of wall column `wall` of a
/// finest-level depth field `nx` cells wide.
pub fn basin_volumes(depth: &[f32], nx: usize, wall: usize) -> (f64, f64) {
    let (mut west, mut east) = (0.0, 0.0);
    for (c, &h) in depth.iter().enumerate() {
        match c % nx {
            i if i < wall => west += h as f64,
            i if i > wall => east += h as f64,
            _ => {}
        }
    }
    (west, east)
}

/// The relative mass error of a run without rain or losses, as the run itself computes it.
pub fn mass_error(model: &Model, stored: f64, inflow: f64, outflow: f64) -> f64 {
    quadflood::balance::Balance {
        initial: model.volume(&model.depth),
        inflow,
        outflow,
        rain: 0.0,
        losses: 0.0,
        storage: stored,
    }
    .error_rel()
}
