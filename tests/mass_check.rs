//! A run whose mass balance breaks stops: exit code 4, a message naming the time, the
//! volumes and the forcing involved, no maps of the state it could not vouch for and no
//! summary. Made to happen here with a bound below round-off (`numerics.max_mass_error`).

use std::process::Command;

const INFLOW_INTO_A_BOX: &str = r#"
[domain]
cell_size = 1.0
nx = 24
ny = 24

[terrain]
type = "flat"

[friction]
manning = 0.03

[[boundary.segment]]
edge = "west"
type = "inflow"
from = 8.0
to = 16.0
discharge = 2.0

[time]
end = 20.0
output_times = [10.0, 20.0]

[output]
png = false
format = "ascii"
"#;

fn run(toml: &str) -> (i32, String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("box.toml");
    std::fs::write(&scenario, toml).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_quadflood"))
        .arg("run")
        .arg(&scenario)
        .arg("--out")
        .arg(dir.path().join("out"))
        .arg("--quiet")
        .env("XDG_RUNTIME_DIR", "/tmp")
        .output()
        .unwrap();
    let code = out.status.code().unwrap_or(-1);
    (code, String::from_utf8_lossy(&out.stderr).into_owned(), dir)
}

fn written(dir: &tempfile::TempDir) -> Vec<String> {
    std::fs::read_dir(dir.path().join("out"))
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_broken_balance_stops_the_run_at_the_first_output_time() {
    let toml = format!("{INFLOW_INTO_A_BOX}\n[numerics]\nmax_mass_error = 1e-15\n");
    let (code, message, dir) = run(&toml);
    assert_eq!(code, 4, "{message}");
    for expected in [
        "mass balance broke by t = 10.000 s",
        "boundary.segment[0].discharge",
        "numerics.max_mass_error",
    ] {
        assert!(message.contains(expected), "lacks {expected:?}: {message}");
    }
    let files = written(&dir);
    assert!(!files.iter().any(|f| f == "summary.json"), "{files:?}");
    assert!(
        !files
            .iter()
            .any(|f| f.starts_with("depth_") || f.starts_with("max_")),
        "maps of a state that broke the balance: {files:?}"
    );
}

#[test]
fn the_same_run_within_the_default_bound_succeeds() {
    let (code, message, dir) = run(INFLOW_INTO_A_BOX);
    assert_eq!(code, 0, "{message}");
    let summary: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("out/summary.json")).unwrap(),
    )
    .unwrap();
    let error = summary["mass_error_rel"].as_f64().unwrap();
    assert!(error.abs() < 1e-5, "{error}");
}
