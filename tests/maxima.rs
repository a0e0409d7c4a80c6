//! The run's maxima maps against the maps written along the way: the GPU keeps them every
//! step in 16 bytes a cell (max depth in f32, max speed, depth × speed and the UK hazard
//! rating in f16, times and the inundation duration as 16-bit codes on the scenario's
//! clock), so each must bound what the output times saw, within its own precision.

mod common;

use quadflood::io::ascii_grid::{read_ascii_grid, Raster};
use std::path::Path;

const END: f64 = 12.0;
const ARRIVAL_DEPTH: f64 = 0.05;

fn dam_break(dir: &Path) -> std::path::PathBuf {
    let toml = format!(
        r#"
[domain]
cell_size = 1.0
nx = 80
ny = 40

[terrain]
type = "expression"
expression = "0.2*sin(x/5)*cos(y/7)"

[initial]
water_level = 0.0

[[initial.region]]
shape = "circle"
center = [20.0, 20.0]
radius = 10.0
water_level = 2.0

[friction]
manning = 0.02

[time]
end = {END}
output_interval = 1.0

[output]
format = "ascii"
png = false
arrival_depth = {ARRIVAL_DEPTH}
"#
    );
    let path = dir.join("maxima.toml");
    std::fs::write(&path, toml).unwrap();
    path
}

fn map(out: &Path, name: &str) -> Raster {
    read_ascii_grid(&out.join(format!("{name}.asc"))).unwrap()
}

fn value(r: &Raster, c: usize) -> Option<f64> {
    let v = r.data[c];
    (Some(v) != r.nodata).then_some(v)
}

#[test]
fn maxima_bound_every_output_and_arrival_comes_first() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dam_break(dir.path());
    let out = dir.path().join("out");
    common::run_ok(&scenario, &out, &[]);
    let max_depth = map(&out, "max_depth");
    let max_speed = map(&out, "max_speed");
    let max_hazard = map(&out, "max_hazard");
    let arrival = map(&out, "arrival_time");
    let time_of_max = map(&out, "time_of_max_depth");
    let max_level = map(&out, "max_level");
    // Half a time code, and the ASCII maps' decimals on top.
    let quantum = END / 65534.0;
    let f16 = 2f64.powi(-11);
    let mut reached = 0;
    for k in 1..=END as usize {
        let t = k as f64;
        let depth = map(&out, &format!("depth_{t:09.1}s"));
        let speed = map(&out, &format!("speed_{t:09.1}s"));
        let level = map(&out, &format!("level_{t:09.1}s"));
        for c in 0..depth.data.len() {
            let Some(h) = value(&depth, c) else { continue };
            let peak = value(&max_depth, c).unwrap();
            // The highest water surface: the greatest depth on the bed under the level.
            if let Some(eta) = value(&level, c) {
                let top = value(&max_level, c).expect("a wet cell has a maximum level");
                let bed = eta - h;
                assert!(
                    (top - (peak + bed)).abs() <= 1e-5 && top >= eta - 1e-6,
                    "cell {c} at t = {t}: max level {top}, level {eta}, max depth {peak} on bed {bed}"
                );
            }
            assert!(
                peak >= h,
                "cell {c} at t = {t}: max depth {peak} < depth {h}"
            );
            let v = value(&speed, c).unwrap();
            let vmax = value(&max_speed, c).unwrap();
            assert!(
                vmax >= v * (1.0 - f16) - 1e-6,
                "cell {c} at t = {t}: max speed {vmax} < {v}"
            );
            let hazard = value(&max_hazard, c).unwrap();
            assert!(
                hazard >= h * v * (1.0 - 2.0 * f16) - 1e-6,
                "cell {c}: hazard {hazard} < {}",
                h * v
            );
            if h >= ARRIVAL_DEPTH {
                let came = value(&arrival, c).expect("a cell this deep was reached");
                assert!(
                    came <= t + quantum,
                    "cell {c}: arrival {came} after t = {t}"
                );
                reached += 1;
            }
            if h == peak && h >= ARRIVAL_DEPTH {
                let at = value(&time_of_max, c).unwrap();
                assert!(
                    at <= t + quantum,
                    "cell {c}: max depth {h} at {at}, seen at t = {t}"
                );
            }
        }
    }
    assert!(
        reached > 1000,
        "the flood reached only {reached} cell-times"
    );
    for c in 0..max_depth.data.len() {
        if value(&max_depth, c) == Some(0.0) {
            assert_eq!(
                value(&max_level, c),
                None,
                "cell {c} never wet has no level"
            );
        }
    }
    assert!(
        max_depth.data.contains(&0.0),
        "the test needs cells the flood never reached"
    );
    for c in 0..arrival.data.len() {
        if let (Some(came), Some(at)) = (value(&arrival, c), value(&time_of_max, c)) {
            assert!(
                came <= at + quantum,
                "cell {c}: arrival {came} after its max depth {at}"
            );
            assert!(
                (0.0..=END + quantum).contains(&at),
                "cell {c}: max depth at {at}"
            );
        }
    }
}

/// The UK hazard rating's maximum bounds the rating of every output (same f16 precision as
/// the other maxima) and its class map follows it; over the same dam break, a cell's
/// inundation duration fits between its arrival and the end.
#[test]
fn the_uk_rating_bounds_every_output_and_its_class_follows() {
    use quadflood::io::hazard::{uk_class, uk_rating, LandUse};
    let dir = tempfile::tempdir().unwrap();
    let scenario = dam_break(dir.path());
    let out = dir.path().join("out");
    common::run_ok(&scenario, &out, &[]);
    let rating = map(&out, "max_hazard_uk");
    let class = map(&out, "max_hazard_uk_class");
    let duration = map(&out, "inundation_duration");
    let arrival = map(&out, "arrival_time");
    let f16 = 2f64.powi(-11);
    let mut classes = std::collections::BTreeSet::new();
    for k in 1..=END as usize {
        let t = k as f64;
        let depth = map(&out, &format!("depth_{t:09.1}s"));
        let speed = map(&out, &format!("speed_{t:09.1}s"));
        for c in 0..depth.data.len() {
            let (Some(h), Some(v)) = (value(&depth, c), value(&speed, c)) else {
                continue;
            };
            if h == 0.0 {
                continue;
            }
            // The ASCII maps' decimals can put a depth just past a debris limit.
            let seen = uk_rating(h as f32, v as f32, LandUse::Urban).min(uk_rating(
                (h - 1e-6) as f32,
                (v - 1e-6).max(0.0) as f32,
                LandUse::Urban,
            )) as f64;
            let max = value(&rating, c).expect("a wet cell has a maximum rating");
            assert!(
                max >= seen * (1.0 - f16) - 1e-5,
                "cell {c} at t = {t}: max HR {max} < HR {seen} (depth {h}, speed {v})"
            );
        }
    }
    for c in 0..rating.data.len() {
        let Some(r) = value(&rating, c) else {
            assert_eq!(value(&class, c), None, "cell {c}: a class without a rating");
            continue;
        };
        let k = value(&class, c).unwrap();
        assert_eq!(k, uk_class(r as f32) as f64, "cell {c}: HR {r}, class {k}");
        classes.insert(k as u8);
        if let Some(d) = value(&duration, c) {
            let came = value(&arrival, c).expect("a cell flooded long enough has arrived");
            // The step that brings a cell to the depth counts whole: at most the still
            // water's CFL step, 0.5 dx / sqrt(2 g) here.
            let step = 0.5 / (2.0 * 9.81f64).sqrt();
            assert!(
                d >= 0.0 && d <= END - came + step + 2.0 * END / 65534.0 + 1e-3,
                "cell {c}: flooded {d} s, arrived at {came} s of {END}"
            );
        }
    }
    assert!(
        classes.len() >= 3,
        "the dam break shows classes {classes:?}"
    );
}

/// A pond on flat ground that the ground drinks at a steady rate falls linearly, so the
/// time it stands above a depth is known: 0.1 m at 360 mm/h (1e-4 m/s) stays at or above
/// 0.05 m for 500 s; a pond 0.2 m deep stays above for the whole 800 s; one of 0.04 m
/// never counts.
#[test]
fn inundation_duration_is_the_time_above_the_depth() {
    let dir = tempfile::tempdir().unwrap();
    let end = 800.0;
    let dt_max = 2.0;
    for (pond, expected) in [(0.1, Some(500.0)), (0.2, Some(end)), (0.04, None)] {
        let scenario = dir.path().join(format!("pond_{pond}.toml"));
        std::fs::write(
            &scenario,
            format!(
                r#"
[domain]
cell_size = 100.0
nx = 16
ny = 16

[terrain]
type = "flat"
elevation = 0.0

[initial]
water_level = {pond}

[friction]
manning = 0.03

[losses]
model = "initial_continuing"
initial = 0.0
continuing = 360.0

[time]
dt_max = {dt_max}
end = {end}
output_interval = {end}

[output]
format = "ascii"
png = false
duration_depth = 0.05
"#
            ),
        )
        .unwrap();
        let out = dir.path().join(format!("out_{pond}"));
        common::run_ok(&scenario, &out, &[]);
        let duration = map(&out, "inundation_duration");
        for c in 0..duration.data.len() {
            match (expected, value(&duration, c)) {
                (None, None) => {}
                (Some(e), Some(d)) => assert!(
                    (d - e).abs() <= dt_max + 2.0 * end / 65534.0,
                    "pond {pond} m, cell {c}: {d} s above 0.05 m, expected {e} s"
                ),
                (e, d) => panic!("pond {pond} m, cell {c}: duration {d:?}, expected {e:?}"),
            }
        }
    }
}

/// The hazard and duration keys are checked: a duration depth at or below the dry depth
/// (blocks the solver leaves out hold water that shallow) and an unknown land use are
/// refused with exit code 2, naming the key.
#[test]
fn bad_hazard_and_duration_keys_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for (line, key) in [
        ("duration_depth = 1e-9", "output.duration_depth"),
        ("duration_depth = -1.0", "output.duration_depth"),
        ("debris = \"forest\"", "output.debris"),
    ] {
        let text = std::fs::read_to_string(dam_break(dir.path()))
            .unwrap()
            .replace("png = false", &format!("png = false\n{line}"));
        let scenario = dir.path().join("bad.toml");
        std::fs::write(&scenario, text).unwrap();
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_quadflood"))
            .args(["check", scenario.to_str().unwrap()])
            .env("XDG_RUNTIME_DIR", "/tmp")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{line}: {stderr}");
        assert!(stderr.contains(key), "{line}: {stderr}");
    }
}
