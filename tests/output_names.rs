//! Every output has a file of its own: output times closer than the names' usual 0.1 s and
//! gauges or cross-sections whose names differ only in characters a file name cannot
//! keep each get their own file; names stay short where that is enough.

use std::path::Path;
use std::process::Command;

const SCENARIO: &str = r#"
[domain]
cell_size = 1.0
nx = 32
ny = 16

[terrain]
type = "expression"
expression = "0.01*x"

[initial]
depth = 0.5

[time]
end = 10.1
output_times = [5.0, 10.01, 10.02]
gauge_interval = 2.0

[[gauge]]
name = "a b"
x = 4.0
y = 8.0

[[gauge]]
name = "a_b"
x = 28.0
y = 8.0

[[gauge]]
name = "A_B"
x = 16.0
y = 8.0

[[gauge]]
name = "plain"
x = 16.0
y = 4.0

[[cross_section]]
name = "x/1"
line = [[10.0, 0.5], [10.0, 15.5]]

[[cross_section]]
name = "x 1"
line = [[20.0, 0.5], [20.0, 15.5]]

[output]
format = "ascii"
png = false
maxima = false
"#;

fn run(scenario: &Path, out: &Path) {
    let o = Command::new(env!("CARGO_BIN_EXE_quadflood"))
        .args(["run", scenario.to_str().unwrap(), "--out"])
        .arg(out)
        .arg("--quiet")
        .env("XDG_RUNTIME_DIR", "/tmp")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn names(dir: &Path, prefix: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(prefix))
        .collect();
    names.sort();
    names
}

/// The first line of a series file names its gauge or section.
fn first_line(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string()
}

#[test]
fn output_times_a_hundredth_apart_get_maps_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("close.toml");
    std::fs::write(&scenario, SCENARIO).unwrap();
    let out = dir.path().join("out");
    run(&scenario, &out);
    // As short as tells them apart: two decimals for every time of this run (the end,
    // 10.1 s, is an output time too).
    assert_eq!(
        names(&out, "depth_"),
        [
            "depth_0000005.00s.asc",
            "depth_0000010.01s.asc",
            "depth_0000010.02s.asc",
            "depth_0000010.10s.asc"
        ]
    );
    let (a, b) = (
        std::fs::read(out.join("depth_0000010.01s.asc")).unwrap(),
        std::fs::read(out.join("depth_0000010.02s.asc")).unwrap(),
    );
    assert!(a != b, "two output times, one state");
}

#[test]
fn times_a_tenth_apart_keep_their_short_names() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("tenths.toml");
    std::fs::write(
        &scenario,
        SCENARIO.replace("[5.0, 10.01, 10.02]", "[5.0, 10.0, 10.1]"),
    )
    .unwrap();
    let out = dir.path().join("out");
    run(&scenario, &out);
    assert_eq!(
        names(&out, "depth_"),
        [
            "depth_0000005.0s.asc",
            "depth_0000010.0s.asc",
            "depth_0000010.1s.asc"
        ]
    );
}

#[test]
fn gauges_and_sections_whose_names_differ_only_in_punctuation_or_case_get_files_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("gauges.toml");
    std::fs::write(&scenario, SCENARIO).unwrap();
    let out = dir.path().join("out");
    run(&scenario, &out);
    let gauges = names(&out, "gauge_");
    assert_eq!(gauges.len(), 4, "{gauges:?}");
    // Distinct even where the file system ignores case.
    let mut folded: Vec<String> = gauges.iter().map(|n| n.to_lowercase()).collect();
    folded.dedup();
    assert_eq!(folded.len(), 4, "{gauges:?}");
    assert!(
        gauges.contains(&"gauge_plain.csv".to_string()),
        "{gauges:?}"
    );
    let mut described: Vec<String> = gauges
        .iter()
        .map(|n| first_line(&out.join(n)))
        .map(|l| l.split(" at ").next().unwrap().to_string())
        .collect();
    described.sort();
    assert_eq!(
        described,
        ["# gauge A_B", "# gauge a b", "# gauge a_b", "# gauge plain"]
    );
    let sections = names(&out, "section_");
    assert_eq!(sections.len(), 2, "{sections:?}");
    let mut described: Vec<String> = sections
        .iter()
        .map(|n| first_line(&out.join(n)))
        .map(|l| l.split(':').next().unwrap().to_string())
        .collect();
    described.sort();
    assert_eq!(described, ["# cross-section x 1", "# cross-section x/1"]);
    // The summary says which file holds which gauge.
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    let files = &summary["gauge_files"];
    for g in ["a b", "a_b", "A_B", "plain"] {
        let file = files[g].as_str().unwrap_or_else(|| panic!("{summary}"));
        assert!(first_line(&out.join(file)).starts_with(&format!("# gauge {g} at")));
    }
}
