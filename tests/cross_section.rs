//! Discharge through a cross-section: a uniform flow of 2 m²/s eastward crosses a slanted
//! line whose south-north extent is 40 m, so 80 m³/s pass it (positive to the line's left:
//! drawn from the left bank to the right bank, looking downstream).

use std::process::Command;

const SCENARIO: &str = r#"
[domain]
cell_size = 1.0
nx = 64
ny = 64

[terrain]
type = "flat"

[initial]
depth = 1.0
u = 2.0

[[cross_section]]
name = "slanted"
line = [[40.0, 50.0], [10.0, 10.0]]

[[cross_section]]
name = "reversed"
line = [[10.0, 10.0], [25.0, 30.0], [40.0, 50.0]]

[time]
end = 0.5
gauge_interval = 0.5

[output]
png = false
rasters = false
"#;

fn first_discharge(path: &std::path::Path) -> f64 {
    let text = std::fs::read_to_string(path).unwrap();
    let row = text.lines().find(|l| l.starts_with("0,")).unwrap();
    row.split(',').nth(1).unwrap().parse().unwrap()
}

#[test]
fn a_uniform_flow_crosses_a_slanted_section_at_its_exact_discharge() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("section.toml");
    std::fs::write(&scenario, SCENARIO).unwrap();
    let out = dir.path().join("out");
    let status = Command::new(env!("CARGO_BIN_EXE_quadflood"))
        .args([
            "run",
            scenario.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ])
        .env("XDG_RUNTIME_DIR", "/tmp")
        .status()
        .unwrap();
    assert!(status.success());
    let q = first_discharge(&out.join("section_slanted.csv"));
    assert!((q - 80.0).abs() < 1e-9, "{q}");
    let back = first_discharge(&out.join("section_reversed.csv"));
    assert!((back + 80.0).abs() < 1e-9, "{back}");
    let text = std::fs::read_to_string(out.join("section_slanted.csv")).unwrap();
    assert!(text.lines().any(|l| l.starts_with("0.5,")), "{text}");
}

#[test]
fn a_section_leaving_the_domain_is_refused() {
    let text = SCENARIO.replace(
        "[[40.0, 50.0], [10.0, 10.0]]",
        "[[40.0, 80.0], [10.0, 10.0]]",
    );
    let Err(e) = quadflood::scenario::from_str(&text, std::path::Path::new(".")) else {
        panic!("a section leaving the domain is an error");
    };
    assert_eq!(e.key.as_deref(), Some("cross_section[0].line"), "{e}");
    assert!(e.message.contains("outside"), "{e}");
}
