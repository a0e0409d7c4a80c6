//! Stage and outfall lines inside the domain: a stage line fills a dry basin to its level
//! and holds it; an outfall line drains a sloping basin; in both the water the line takes
//! in or gives up is counted, so the volume balance closes.

mod common;

use quadflood::solver::Simulation;

const BASIN: &str = r#"
[domain]
cell_size = 1.0
nx = 64
ny = 48

[refinement]
levels = 2
default_level = 1

[[refinement.region]]
shape = "rectangle"
min = [0.0, 0.0]
max = [24.0, 48.0]
level = 0

[terrain]
type = "expression"
expression = "SLOPE"

[friction]
manning = 0.03

[initial]
INITIAL

[[boundary.line]]
LINE

[time]
end = 600.0
"#;

/// (stored volume at the end, initial volume, volume in, volume out) after `t` seconds.
fn balance(model: &quadflood::scenario::model::Model, t: f64) -> (f64, f64, f64, f64, Vec<f32>) {
    let initial = model.stored_volume(&model.depth);
    let mut sim = Simulation::new(common::gpu(), model).unwrap();
    sim.advance_to(t, &mut |_| {}).unwrap();
    let depth = sim.read_fields().depth;
    let (vin, vout) = sim.edge_volumes();
    (model.volume(&depth), initial, vin, vout, depth)
}

#[test]
fn a_stage_line_fills_a_basin_to_its_level_and_counts_the_water() {
    let model = common::model(
        &BASIN
            .replace("SLOPE", "0.1*sin(x/5)*cos(y/7) + 0.1")
            .replace("INITIAL", "depth = 0.0")
            .replace(
                "LINE",
                "type = \"stage\"\nline = [[10.5, 0.5], [13.5, 47.5]]\nlevel = { time = [0.0, 100.0], value = [0.2, 0.5] }",
            ),
    );
    let (stored, initial, vin, vout, depth) = balance(&model, 600.0);
    assert_eq!(initial, 0.0);
    assert!(vin > 0.0 && vout >= 0.0);
    let error = (stored - (vin - vout)).abs() / stored;
    assert!(
        error < 1e-5,
        "stored {stored}, in {vin}, out {vout}: error {error}"
    );
    // Level 0.5 m everywhere after 100 s of filling at up to 2 m/s and 500 s to settle under
    // friction, over the bed the model uses: a 2 m cell's bed is the mean of its area, not
    // the expression at a point (at (60, 45) they differ by 8.5 mm).
    let bed = model.domain(&model.bed);
    let level = |i: usize, j: usize| {
        let k = i + 64 * j;
        depth[k] as f64 + bed[k] as f64 + model.datum
    };
    for (i, j) in [(2, 2), (30, 24), (60, 45), (12, 40)] {
        assert!(
            (level(i, j) - 0.5).abs() < 0.01,
            "level {} at ({i}, {j})",
            level(i, j)
        );
    }
}

#[test]
fn an_outfall_line_drains_a_basin_and_counts_the_water() {
    let model = common::model(
        &BASIN
            .replace("SLOPE", "0.02*x")
            .replace("INITIAL", "water_level = 1.0")
            .replace(
                "LINE",
                "type = \"outfall\"\nline = [[0.5, 0.5], [0.5, 47.5]]",
            ),
    );
    let (stored, initial, vin, vout, _) = balance(&model, 60.0);
    assert!(vin == 0.0, "an outfall gave water: {vin}");
    assert!(vout > 0.2 * initial, "only {vout} of {initial} m³ drained");
    let error = (stored - (initial + vin - vout)).abs() / initial;
    assert!(
        error < 1e-5,
        "stored {stored}, initial {initial}, out {vout}: error {error}"
    );
}

#[test]
fn bad_level_lines_are_refused() {
    for (line, wanted) in [
        (
            "type = \"stage\"\nline = [[1.5, 1.5], [1.5, 40.0]]",
            "needs `level`",
        ),
        (
            "type = \"outfall\"\nline = [[1.5, 1.5], [1.5, 40.0]]\nlevel = 1.0",
            "takes no level",
        ),
        (
            "type = \"open\"\nline = [[1.5, 1.5], [1.5, 40.0]]",
            "expected \"stage\" or \"outfall\"",
        ),
        (
            "type = \"outfall\"\nline = [[1.5, 1.5], [1.5, 90.0]]",
            "outside",
        ),
    ] {
        let text = BASIN
            .replace("SLOPE", "0.0")
            .replace("INITIAL", "depth = 0.0")
            .replace("LINE", line);
        let Err(e) = quadflood::scenario::from_str(&text, std::path::Path::new(".")) else {
            panic!("{line} was accepted");
        };
        assert!(e.to_string().contains(wanted), "{wanted:?} not in {e}");
        assert!(e.to_string().contains("boundary.line[0]"), "{e}");
    }
}
