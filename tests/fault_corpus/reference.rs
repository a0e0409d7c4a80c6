//! The run that the checkpoint and kill classes start from: a small flood with rain, an
//! inflow, two gauges and a cross-section, run through once per corpus with checkpoints.

use super::proc::{self, Limits};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// 40 s of rain and an inflow on a two-level grid: maps every 5 s, series every second,
/// checkpoints every 6 s. About 3 s on lavapipe.
pub const SCENARIO: &str = r#"
name = "reference"

[domain]
cell_size = 2.0
nx = 48
ny = 32

[refinement]
levels = 2
near_inflow = 8.0

[terrain]
type = "expression"
expression = "0.003*x + 0.2*sin(y/7)"

[friction]
manning = 0.03

[rain]
rate = { time = [0.0, 10.0, 30.0], value = [0.0, 120.0, 0.0] }

[[boundary.segment]]
edge = "west"
type = "inflow"
from = 20.0
to = 44.0
discharge = { time = [0.0, 8.0, 40.0], value = [0.0, 5.0, 1.0] }

[boundary]
east = "open"

[[gauge]]
name = "mid"
x = 50.0
y = 30.0

[[gauge]]
name = "inlet"
x = 3.0
y = 30.0

[[cross_section]]
name = "across"
line = [[40.0, 1.0], [40.0, 63.0]]

[time]
end = 40.0
output_interval = 5.0
gauge_interval = 1.0

[output]
format = "ascii"
png = false
"#;

/// Simulated seconds between checkpoints.
pub const EVERY: &str = "6";

pub struct Reference {
    pub scenario: PathBuf,
    /// The finished run's folder, with its last two checkpoints.
    pub out: PathBuf,
    pub checkpoints: Vec<PathBuf>,
    /// The maps and series, with their bytes.
    pub results: Vec<(String, Vec<u8>)>,
    /// Wall-clock seconds the run took.
    pub wall: f64,
}

/// The time in a checkpoint's name (`checkpoint_0000016.0s.qfck`).
pub fn checkpoint_time(name: &str) -> Option<f64> {
    name.strip_prefix("checkpoint_")?
        .strip_suffix("s.qfck")?
        .parse()
        .ok()
}

/// The checkpoints in `dir`, oldest first.
pub fn checkpoints(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<(f64, PathBuf)> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| {
                let name = e.ok()?.file_name().to_string_lossy().into_owned();
                checkpoint_time(&name).map(|t| (t, dir.join(name)))
            })
            .collect()
        })
        .unwrap_or_default();
    found.sort_by(|a, b| a.0.total_cmp(&b.0));
    found.into_iter().map(|f| f.1).collect()
}

/// The maps and series of `dir` with their bytes, sorted by name: what a run stopped
/// and restarted must write byte for byte as one never stopped.
pub fn results(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.retain(|n| !n.starts_with('.') && (n.ends_with(".asc") || n.ends_with(".csv")));
    names.sort();
    names
        .into_iter()
        .map(|n| {
            let bytes = std::fs::read(dir.join(&n)).unwrap();
            (n, bytes)
        })
        .collect()
}

/// The first difference between two sets of results, if any.
pub fn difference(expected: &[(String, Vec<u8>)], found: &[(String, Vec<u8>)]) -> Option<String> {
    let names = |r: &[(String, Vec<u8>)]| r.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    if names(expected) != names(found) {
        return Some(format!(
            "files {:?}, expected {:?}",
            names(found),
            names(expected)
        ));
    }
    expected
        .iter()
        .zip(found)
        .find(|(a, b)| a.1 != b.1)
        .map(|(a, _)| format!("{} differs from the uninterrupted run's", a.0))
}

/// Copies the files (not folders) of `from` into `to`.
pub fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// The reference, run once per corpus (in `root`); an error says why it could not be.
pub fn get(root: &Path) -> Result<&'static Reference, String> {
    static REFERENCE: OnceLock<Result<Reference, String>> = OnceLock::new();
    REFERENCE
        .get_or_init(|| build(&root.join("reference")))
        .as_ref()
        .map_err(Clone::clone)
}

fn build(dir: &Path) -> Result<Reference, String> {
    std::fs::create_dir_all(dir).unwrap();
    let scenario = dir.join("reference.toml");
    std::fs::write(&scenario, SCENARIO).unwrap();
    let out = dir.join("out");
    let args = proc::args(&[
        "run",
        &proc::path(&scenario),
        "--out",
        &proc::path(&out),
        "--quiet",
        "--checkpoint-every",
        EVERY,
    ]);
    let o = proc::run(&args, &Limits::gpu());
    if o.code != Some(0) {
        return Err(format!("the reference run failed: {}", o.describe()));
    }
    let checkpoints = checkpoints(&out);
    if checkpoints.len() != 2 {
        return Err(format!(
            "the reference run kept {} checkpoints, not 2",
            checkpoints.len()
        ));
    }
    Ok(Reference {
        scenario,
        results: results(&out),
        out,
        checkpoints,
        wall: o.wall.as_secs_f64(),
    })
}
