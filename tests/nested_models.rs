//! Nested models: a run's gauge CSV drives another run's boundary, as written (comment
//! line, header, and with a reference date its date column), by seconds or by date.

use std::path::Path;
use std::process::Command;

/// The outer model: water flows in from the west over a gentle slope past a gauge.
const OUTER: &str = r#"
[domain]
cell_size = 2.0
nx = 40
ny = 10

[terrain]
type = "expression"
expression = "-0.002*x"

[initial]
depth = 0.2

[[boundary.segment]]
edge = "west"
type = "inflow"
discharge = { time = [0.0, 30.0], value = [0.5, 2.0] }

[boundary]
east = "open"

[[gauge]]
name = "outlet"
x = 60.0
y = 10.0

[time]
end = 30.0
output_interval = 30.0
gauge_interval = 5.0
reference = "2026-11-27T06:00:00Z"

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

/// The inner model, starting at `reference`, whose west edge holds the level `level`.
fn inner(level: &str, reference: &str) -> String {
    format!(
        r#"
[domain]
cell_size = 1.0
nx = 20
ny = 10

[terrain]
type = "flat"
elevation = -0.2

[initial]
depth = 0.3

[[boundary.segment]]
edge = "west"
type = "stage"
level = {level}

[time]
end = 20.0
output_interval = 20.0
{reference}

[output]
format = "ascii"
png = false
"#
    )
}

/// (time_s, eta_m) of every row of a gauge file.
fn gauge_levels(path: &Path) -> (Vec<f64>, Vec<f64>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines().skip(1);
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let eta = header.iter().position(|c| *c == "eta_m").unwrap();
    lines
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            (
                cells[0].parse::<f64>().unwrap(),
                cells[eta].parse::<f64>().unwrap(),
            )
        })
        .unzip()
}

#[test]
fn a_gauge_csv_drives_another_runs_stage_boundary() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("outer.toml"), OUTER).unwrap();
    let outer = d.join("outer");
    let (code, stderr) = quadflood(&[
        "run",
        d.join("outer.toml").to_str().unwrap(),
        "--out",
        outer.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let gauge = outer.join("gauge_outlet.csv");
    let text = std::fs::read_to_string(&gauge).unwrap();
    assert!(
        text.starts_with("# gauge outlet") && text.contains("\ntime_s,time_utc,h_m,"),
        "{text}"
    );
    let (times, levels) = gauge_levels(&gauge);
    assert!(
        times.len() >= 6 && levels.iter().all(|&l| l > -0.2),
        "{levels:?}"
    );

    let by_seconds = r#"{ csv = "outer/gauge_outlet.csv", time_column = "time_s", value_column = "eta_m", time_unit = "s", unit = "m" }"#;
    // The inner run starts 10 s after the outer one: by date, its t = 0 is the outer 10 s.
    let by_date = r#"{ csv = "outer/gauge_outlet.csv", time_column = "time_utc", value_column = "eta_m", time_unit = "datetime", unit = "m" }"#;
    let cases = [
        (by_seconds, "", 0.0),
        (by_date, r#"reference = "2026-11-27 06:00:10""#, -10.0),
    ];
    for (k, (level, reference, shift)) in cases.into_iter().enumerate() {
        let path = d.join(format!("inner{k}.toml"));
        std::fs::write(&path, inner(level, reference)).unwrap();
        let model = quadflood::scenario::load(&path).unwrap();
        let series = model
            .series
            .iter()
            .find(|s| s.name == "boundary.segment[0].level")
            .expect("the stage series");
        let shifted: Vec<f64> = times.iter().map(|t| t + shift).collect();
        assert_eq!(series.times, shifted, "{level}");
        // The stage series holds levels above the terrain's datum.
        let held: Vec<f64> = series.values.iter().map(|v| v + model.datum).collect();
        assert_eq!(held.len(), levels.len(), "{level}");
        for (h, l) in held.iter().zip(&levels) {
            assert!((h - l).abs() < 1e-12, "{level}: {h} against {l}");
        }
        let out = d.join(format!("inner{k}"));
        let (code, stderr) = quadflood(&[
            "run",
            path.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ]);
        assert_eq!(code, 0, "{level}: {stderr}");
    }
}
