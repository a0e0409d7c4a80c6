//! Checkpoints a restart can trust: a checksum over the whole file, a fingerprint of the
//! terrain, friction, forcing and grid, every header value range-checked and every read
//! bounded. A damaged, truncated, foreign or older checkpoint exits with code 2 and a
//! message naming the file and what differs; none hangs or runs on. Pruning keeps the
//! newest checkpoints by the time they hold.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const SCENARIO: &str = r#"
name = "trusted"

[domain]
cell_size = 2.0
nx = 48
ny = 32

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
from = 20.0
to = 40.0
discharge = { time = [0.0, 15.0, 40.0], value = [0.0, 6.0, 2.0] }

[boundary]
east = "open"

[[gauge]]
name = "mid"
x = 50.0
y = 30.0

[time]
end = 40.0
output_interval = 10.0
gauge_interval = 2.0

[output]
format = "ascii"
png = false
"#;

struct Written {
    dir: tempfile::TempDir,
    scenario: PathBuf,
    checkpoint: PathBuf,
}

/// One run to t = 21 s with a checkpoint at 20 s, once per test binary.
fn written() -> &'static Written {
    static WRITTEN: OnceLock<Written> = OnceLock::new();
    WRITTEN.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let scenario = dir.path().join("trusted.toml");
        std::fs::write(&scenario, SCENARIO).unwrap();
        let out = dir.path().join("out");
        let o = quadflood(&[
            "run",
            scenario.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
            "--checkpoint-every",
            "20",
            "--set",
            "time.end=21",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let checkpoint = out.join("checkpoint_0000020.0s.qfck");
        assert!(checkpoint.exists());
        Written {
            dir,
            scenario,
            checkpoint,
        }
    })
}

fn quadflood(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quadflood"))
        .args(args)
        .env("XDG_RUNTIME_DIR", "/tmp")
        .output()
        .unwrap()
}

/// `bash -c SCRIPT quadflood ARGS...` (the script ends in `exec "$0" "$@"`), killed if it
/// has not ended within `limit`: (exit code, stderr, seconds taken).
fn bounded(script: &str, args: &[&str], limit: Duration) -> (Option<i32>, String, f64) {
    let mut child = Command::new("bash")
        .args(["-c", script, env!("CARGO_BIN_EXE_quadflood")])
        .args(args)
        .env("XDG_RUNTIME_DIR", "/tmp")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() && start.elapsed() < limit {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let o = child.wait_with_output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        start.elapsed().as_secs_f64(),
    )
}

/// Restarts `scenario` from `file` into a fresh folder; a run that has not ended after a
/// minute is killed (a checkpoint that hangs the run fails the test, not CI).
fn restart(scenario: &Path, file: &Path) -> (Option<i32>, String) {
    restart_into(scenario, file, tempfile::tempdir().unwrap().path())
}

/// Restarts `scenario` from `file` into `out`, bounded as `restart`.
fn restart_into(scenario: &Path, file: &Path, out: &Path) -> (Option<i32>, String) {
    let (code, stderr, _) = bounded(
        "exec \"$0\" \"$@\"",
        &[
            "run",
            scenario.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
            "--restart",
            file.to_str().unwrap(),
        ],
        Duration::from_secs(60),
    );
    (code, stderr)
}

fn refused(scenario: &Path, file: &Path, reason: &str) {
    let (code, stderr) = restart(scenario, file);
    assert_eq!(code, Some(2), "{reason}: {stderr}");
    let name = file.file_name().unwrap().to_str().unwrap();
    assert!(
        stderr.contains(name) && stderr.contains(reason),
        "expected {name} and {reason:?} in: {stderr}"
    );
}

/// The checkpoint's first line, its header (parsed) and the bytes after the header.
fn split(bytes: &[u8]) -> (String, serde_json::Value, Vec<u8>) {
    let first = bytes.iter().position(|&b| b == b'\n').unwrap();
    let second = first + 1 + bytes[first + 1..].iter().position(|&b| b == b'\n').unwrap();
    (
        String::from_utf8(bytes[..first].to_vec()).unwrap(),
        serde_json::from_slice(&bytes[first + 1..second]).unwrap(),
        bytes[second + 1..].to_vec(),
    )
}

/// A checkpoint from its parts; from format 3 on, its last four bytes are the CRC-32 of
/// everything before them, recomputed here so that only the header's values are wrong.
fn join(first: &str, header: &serde_json::Value, rest: &[u8]) -> Vec<u8> {
    let mut bytes = format!("{first}\n{header}\n").into_bytes();
    bytes.extend_from_slice(rest);
    let format: u32 = first.rsplit(' ').next().unwrap().parse().unwrap();
    if format >= 3 {
        let body = bytes.len() - 4;
        let crc = crc32fast::hash(&bytes[..body]);
        bytes[body..].copy_from_slice(&crc.to_le_bytes());
    }
    bytes
}

#[test]
fn pruning_keeps_the_newest_checkpoints_by_the_time_they_hold() {
    let dir = tempfile::tempdir().unwrap();
    // Past 1e7 s the names no longer sort as the times do.
    for t in [9.0e6, 9.5e6, 1.1e7, 1.2e7] {
        let name = format!("checkpoint_{t:09.1}s.qfck");
        let header = serde_json::json!({ "t": t });
        std::fs::write(
            dir.path().join(name),
            format!("quadflood checkpoint 4\n{header}\n"),
        )
        .unwrap();
    }
    quadflood::io::checkpoint::prune(dir.path(), 2).unwrap();
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(
        left,
        ["checkpoint_11000000.0s.qfck", "checkpoint_12000000.0s.qfck"]
    );
}

/// Any one byte changed, anywhere in the file, is refused (in-process, many positions);
/// through the command line, with exit code 2 and the file's name.
#[test]
fn a_checkpoint_with_any_byte_changed_is_refused() {
    let w = written();
    let bytes = std::fs::read(&w.checkpoint).unwrap();
    let model = quadflood::scenario::load(&w.scenario).unwrap();
    let header_end = split(&bytes).0.len()
        + 1
        + bytes[split(&bytes).0.len() + 1..]
            .iter()
            .position(|&b| b == b'\n')
            .unwrap();
    let positions: Vec<usize> = (0..header_end + 64)
        .chain((header_end..bytes.len()).step_by(97))
        .chain(bytes.len() - 8..bytes.len())
        .collect();
    let damaged = w.dir.path().join("damaged.qfck");
    let mut accepted = Vec::new();
    for &k in &positions {
        let mut copy = bytes.clone();
        copy[k] ^= 0x5a;
        std::fs::write(&damaged, &copy).unwrap();
        if quadflood::io::checkpoint::restore(&damaged, &mut model.clone()).is_ok() {
            accepted.push(k);
        }
    }
    assert!(
        accepted.is_empty(),
        "{} of {} one-byte changes accepted, at {:?}...",
        accepted.len(),
        positions.len(),
        &accepted[..accepted.len().min(10)]
    );
    let mut copy = bytes.clone();
    let k = header_end + 1 + 16 * 100 + 5; // inside the state: a depth's bits
    copy[k] ^= 0x01;
    std::fs::write(&damaged, &copy).unwrap();
    refused(&w.scenario, &damaged, "damaged");
}

/// A checkpoint restarted with a scenario whose terrain, friction, forcing or grid is not
/// the one that wrote it is refused, naming what differs.
#[test]
fn a_checkpoint_of_another_terrain_friction_forcing_or_grid_is_refused() {
    let w = written();
    let changes = [
        (
            "0.002*x + 0.3*sin(y/9)",
            "0.002*x + 0.3*sin(y/8)",
            "terrain",
        ),
        ("manning = 0.03", "manning = 0.035", "friction"),
        (
            "value = [0.0, 6.0, 2.0]",
            "value = [0.0, 6.0, 2.5]",
            "series",
        ),
        ("east = \"open\"", "east = \"wall\"", "boundar"),
        ("nx = 48", "nx = 40", "grid"),
    ];
    for (k, (from, to, what)) in changes.iter().enumerate() {
        let text = SCENARIO.replace(from, to);
        assert_ne!(text, SCENARIO, "{from}");
        let scenario = w.dir.path().join(format!("changed{k}.toml"));
        std::fs::write(&scenario, text).unwrap();
        refused(&scenario, &w.checkpoint, what);
    }
    // Rain that falls where none did: the series list and the rain's cells change.
    let scenario = w.dir.path().join("rain.toml");
    std::fs::write(
        &scenario,
        SCENARIO.replace("value = [0.0, 90.0, 0.0]", "value = [0.0, 90.0, 10.0]"),
    )
    .unwrap();
    refused(&scenario, &w.checkpoint, "series");
    // Another gravity, dry depth or limiter: the run could not go on as it went (a hunt
    // restarted with gravity 5 unsaid).
    for (k, numerics) in ["gravity = 9.7", "dry_depth = 0.001", "limiter = \"minmod\""]
        .iter()
        .enumerate()
    {
        let scenario = w.dir.path().join(format!("numerics{k}.toml"));
        std::fs::write(&scenario, format!("{SCENARIO}\n[numerics]\n{numerics}\n")).unwrap();
        refused(
            &scenario,
            &w.checkpoint,
            "numerics.gravity, numerics.dry_depth or numerics.limiter",
        );
    }
}

/// Header values out of range (a zero, negative or tiny CFL step, a clock that is not a
/// number or past the end, a peak clock with no tick) are refused, never run on.
#[test]
fn header_values_out_of_range_are_refused_and_never_hang_the_run() {
    let w = written();
    let bytes = std::fs::read(&w.checkpoint).unwrap();
    let (first, header, rest) = split(&bytes);
    let bad = [
        ("dt_cfl", serde_json::json!(0.0)),
        ("dt_cfl", serde_json::json!(-0.5)),
        ("dt_cfl", serde_json::json!(1e-30)),
        ("dt_cfl", serde_json::Value::Null),
        ("cfl_limit", serde_json::json!(-1.0)),
        ("cfl_limit", serde_json::json!(0.0)),
        ("cfl_limit", serde_json::json!(1e-30)),
        ("cfl_limit", serde_json::json!("fast")),
        ("t_hi", serde_json::json!(-5.0)),
        ("t_hi", serde_json::json!(1e30)),
        ("t_lo", serde_json::json!(3.0)),
        ("rain_hi", serde_json::json!(-1.0)),
        ("steps", serde_json::json!(-3)),
        ("peak_clock", serde_json::json!([0.0, 0.0])),
    ];
    for (key, value) in bad {
        let mut h = header.clone();
        assert!(h.get(key).is_some(), "the header has no {key}: {h}");
        h[key] = value.clone();
        let file = w.dir.path().join("header.qfck");
        std::fs::write(&file, join(&first, &h, &rest)).unwrap();
        let (code, stderr) = restart(&w.scenario, &file);
        assert_eq!(code, Some(2), "{key} = {value}: {stderr}");
        assert!(
            stderr.contains("header.qfck") && stderr.contains(key),
            "{key} = {value}: {stderr}"
        );
    }
}

/// A checkpoint written before the header kept the CFL limit (no `cfl_limit` key) still
/// restarts: it takes its first dt from its CFL step alone, as those runs did. A null
/// limit is read the same way.
#[test]
fn a_checkpoint_without_the_cfl_limit_still_restarts() {
    let w = written();
    let bytes = std::fs::read(&w.checkpoint).unwrap();
    let (first, header, rest) = split(&bytes);
    assert!(
        header["cfl_limit"].is_number(),
        "the run wrote its limit: {header}"
    );
    for (name, without) in [("missing", None), ("null", Some(serde_json::Value::Null))] {
        let mut h = header.clone();
        match without {
            None => h.as_object_mut().unwrap().remove("cfl_limit"),
            Some(v) => h.as_object_mut().unwrap().insert("cfl_limit".into(), v),
        };
        let file = w.dir.path().join(format!("{name}.qfck"));
        std::fs::write(&file, join(&first, &h, &rest)).unwrap();
        // The restart goes on with the series its run wrote.
        let out = tempfile::tempdir().unwrap();
        for entry in std::fs::read_dir(w.checkpoint.parent().unwrap()).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "csv") {
                std::fs::copy(&path, out.path().join(path.file_name().unwrap())).unwrap();
            }
        }
        let (code, stderr) = restart_into(&w.scenario, &file, out.path());
        assert_eq!(code, Some(0), "cfl_limit {name}: {stderr}");
        assert!(out.path().join("summary.json").exists(), "cfl_limit {name}");
    }
}

/// The previous format is refused with a message that says so.
#[test]
fn a_checkpoint_of_the_previous_format_is_refused_clearly() {
    let w = written();
    let bytes = std::fs::read(&w.checkpoint).unwrap();
    let (_, header, rest) = split(&bytes);
    let old = w.dir.path().join("old.qfck");
    std::fs::write(&old, join("quadflood checkpoint 2", &header, &rest)).unwrap();
    refused(&w.scenario, &old, "format 2");
}

/// Reading /dev/zero (endless, no line ends) or a header line that never ends ends at
/// once, with exit code 2: every read is bounded. The address space is capped so that a
/// read without a bound fails the test rather than the machine.
#[test]
fn an_endless_file_as_checkpoint_is_refused_at_once() {
    let w = written();
    let endless = w.dir.path().join("endless.qfck");
    let mut text = b"quadflood checkpoint 4\n{\"t\": ".to_vec();
    text.resize(64 << 20, b'7');
    std::fs::write(&endless, text).unwrap();
    for file in [Path::new("/dev/zero"), endless.as_path()] {
        let out = tempfile::tempdir().unwrap();
        let (code, stderr, seconds) = bounded(
            "ulimit -v 4000000; exec \"$0\" \"$@\"",
            &[
                "run",
                w.scenario.to_str().unwrap(),
                "--out",
                out.path().to_str().unwrap(),
                "--quiet",
                "--restart",
                file.to_str().unwrap(),
            ],
            Duration::from_secs(60),
        );
        assert_eq!(code, Some(2), "{file:?} after {seconds:.1} s: {stderr}");
        assert!(
            stderr.contains(file.to_str().unwrap()),
            "{file:?}: {stderr}"
        );
        // At once: loading the scenario is most of it (well under a second when quiet).
        assert!(seconds < 15.0, "{file:?} took {seconds:.1} s");
    }
}
