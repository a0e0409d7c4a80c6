//! Weirs (`[[weir]]`): a step carries the weir equation's discharge, free and submerged
//! (Villemonte), in either direction, coded from the formula in `scenario::structures`; a
//! steady inflow over a weir settles at the head the weir equation gives, within the mass
//! bound; bad weirs are refused naming the key.

mod common;

use quadflood::scenario::structures::{weir_discharge, Heads};
use quadflood::solver::Simulation;
use std::path::Path;

/// Two basins, 24 m × 16 m each, parted by a weir along x = 24.5 m with its crest at
/// 0.5 m, the west one at `west` m, the east one at `east` m, at rest on a flat bed.
fn basins(west: f64, east: f64, weir: &str) -> String {
    format!(
        r#"
[domain]
cell_size = 1.0
nx = 49
ny = 16

[terrain]
type = "expression"
expression = "0"

[initial]
water_level = "{east} + ({west} - {east})*min(1, max(0, (24 - x)*2))"

[[weir]]
line = [[24.5, 0.01], [24.5, 15.99]]
crest = 0.5
{weir}

[time]
end = 1e6
"#
    )
}

fn volumes(depth: &[f32]) -> (f64, f64) {
    common::basin_volumes(depth, 49, 24)
}

#[test]
fn one_step_carries_the_weir_equations_discharge() {
    let cases = [
        ("free", 1.0, 0.2, ""),
        ("submerged", 1.0, 0.8, "coefficient = 1.5"),
        ("backwards, submerged", 0.7, 0.9, ""),
    ];
    for (what, west, east, extra) in cases {
        // The equation itself, unsmoothed.
        let model = common::model(&basins(west, east, &format!("{extra}\nsmoothing = 0.0")));
        let crest_length: f64 = model.structures.iter().map(|s| s.length).sum();
        assert!(
            (crest_length - 15.98).abs() < 1e-9,
            "crest length {crest_length}"
        );
        assert!(
            model.structures.len() >= 2,
            "a 16-cell weir comes in stretches"
        );
        let (before_w, before_e) = volumes(&model.domain(&model.depth));
        let mut sim = Simulation::new(common::gpu(), &model).unwrap();
        sim.run_steps(1).unwrap();
        let dt = sim.status().t;
        let (after_w, after_e) = volumes(&sim.read_fields().depth);
        let (up, down) = if west >= east {
            (west, east)
        } else {
            (east, west)
        };
        let heads = Heads {
            driving: up - 0.5,
            difference: up - down,
            tailwater: down - 0.5,
        };
        let q: f64 = model
            .structures
            .iter()
            .map(|s| weir_discharge(s, heads))
            .sum();
        let expected = if west >= east { q * dt } else { -q * dt };
        let moved = after_e - before_e;
        println!(
            "{what}: Q {q:.4} m³/s, moved {moved:.6e} m³ in {dt:.4} s, expected {expected:.6e}"
        );
        assert!(q > 0.0);
        assert!(
            (moved - expected).abs() <= 1e-3 * expected.abs(),
            "{what}: moved {moved} m³, the weir equation gives {expected} m³"
        );
        assert!((before_w - after_w - moved).abs() <= 1e-4 * moved.abs());
    }
}

/// A weir drowned 0.5 m deep between basins 1 mm apart, with no smoothing: its discharge
/// eases off as the levels meet and never turns. The law's discharge rises infinitely
/// steeply near equal levels, and a step of it carried the ends past each other: the flow
/// swung between +12 and -12 m³/s every step for good (a hunt). A step now carries at most
/// what brings the ends' levels together.
#[test]
fn a_drowned_weir_brings_its_basins_level_without_swinging() {
    let model = common::model(&basins(1.001, 1.0, "smoothing = 0.0"));
    let mut sim = Simulation::new(common::gpu(), &model).unwrap();
    let mut flows = Vec::new();
    for _ in 0..400 {
        sim.run_steps(1).unwrap();
        flows.push(sim.read_structure_flows().iter().sum::<f32>());
    }
    println!(
        "discharge every 20th step: {:?}",
        flows.iter().step_by(20).collect::<Vec<_>>()
    );
    assert!(flows[0] > 0.0, "the weir passes water west to east");
    let swings = flows
        .windows(3)
        .filter(|w| w[0] * w[1] < 0.0 && w[1] * w[2] < 0.0)
        .count();
    assert_eq!(
        swings, 0,
        "the discharge turned back and forth step by step {swings} times"
    );
    let (west, east) = volumes(&sim.read_fields().depth);
    let gap = (west - east) / (24.0 * 16.0);
    assert!(gap.abs() < 2e-4, "the basins still stand {gap} m apart");
}

/// 2 m³/s into the west basin over its west edge, out over the weir and the open east
/// edge: at steady state the weir passes the inflow at the head its equation gives.
#[test]
fn a_steady_inflow_stands_at_the_weirs_head() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("weir.toml");
    let text = basins(0.5, 0.0, "").replace(
        "end = 1e6",
        "end = 600.0\noutput_interval = 600.0\ngauge_interval = 10.0",
    ) + r#"
[boundary]
east = "open"

[[boundary.segment]]
edge = "west"
type = "inflow"
discharge = 2.0

[[gauge]]
name = "pool"
x = 12.0
y = 8.0

[output]
png = false
"#;
    std::fs::write(&scenario, text).unwrap();
    let out = dir.path().join("out");
    common::run_ok(&scenario, &out, &[]);
    let summary = common::summary(&out);
    let error = summary["mass_error_rel"].as_f64().unwrap();
    assert!(error.abs() <= 1e-5, "mass error {error}");
    let gauge = std::fs::read_to_string(out.join("gauge_pool.csv")).unwrap();
    let last: Vec<f64> = gauge
        .lines()
        .last()
        .unwrap()
        .split(',')
        .map(|v| v.parse().unwrap())
        .collect();
    let (h, u) = (last[1], last[2]);
    // Free flow: Q = C L H^1.5, H the energy above the crest; the pool is nearly still.
    let head = (2.0f64 / (1.7 * 15.98)).powf(2.0 / 3.0);
    let energy = h + u * u / (2.0 * 9.81) - 0.5;
    println!(
        "pool depth {h:.4} m, speed {u:.4} m/s: head {energy:.4} m, weir equation {head:.4} m"
    );
    assert!(
        (energy - head).abs() < 0.01,
        "head {energy} m, expected {head} m"
    );
}

#[test]
fn bad_weirs_are_refused_with_the_key_named() {
    let bad_coefficient = basins(1.0, 0.2, "coefficient = 0.0");
    let message = quadflood::scenario::from_str(&bad_coefficient, Path::new("."))
        .unwrap_err()
        .to_string();
    assert!(message.contains("weir[0].coefficient"), "{message}");
    // Along the domain's edge there is no domain on one side.
    let edge = basins(1.0, 0.2, "").replace(
        "line = [[24.5, 0.01], [24.5, 15.99]]",
        "line = [[0.5, 0.01], [0.5, 15.99]]",
    );
    let message = quadflood::scenario::from_str(&edge, Path::new("."))
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("weir[0]") && message.contains("one side"),
        "{message}"
    );
    // A line that crosses itself made water (its cells around the crossing lie on both
    // sides of it); it is refused, naming where.
    let crossing = basins(1.0, 0.2, "").replace(
        "line = [[24.5, 0.01], [24.5, 15.99]]",
        "line = [[16.5, 4.5], [28.5, 12.5], [28.5, 4.5], [16.5, 12.5]]",
    );
    let message = quadflood::scenario::from_str(&crossing, Path::new("."))
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("weir[0].line") && message.contains("crosses itself near (22.5, 8.5)"),
        "{message}"
    );
}

/// A weir whose upstream end lies half on a dry bank: the end's cells give the discharge in
/// proportion to their water, so the dry ones give none. Spread evenly over the end, the
/// dry cells were drawn below empty every step and the clip at zero made water (the
/// Sagehen study's road embankment, as a levee, made 1.65e-3 of its volume, exit 4).
#[test]
fn a_weir_end_half_on_dry_ground_makes_no_water() {
    let model = common::model(
        r#"
[domain]
cell_size = 1.0
nx = 64
ny = 16

[terrain]
type = "expression"
expression = "3*(1+signum(y-4))/2*(1-signum(x-48))/2"

[initial]
water_level = 1.5

[[initial.region]]
shape = "rectangle"
min = [49.0, 0.0]
max = [64.0, 16.0]
depth = 0.0

[[weir]]
line = [[48.5, 0.0], [48.5, 15.99]]
crest = 1.0

[time]
end = 10.0
"#,
    );
    let initial = model.stored_volume(&model.depth);
    let (fields, _) = common::run_to(&model, 10.0);
    let east: f64 = (0..16)
        .flat_map(|j| (49..64).map(move |i| i + 64 * j))
        .map(|k| fields.depth[k] as f64)
        .sum();
    assert!(east > 10.0, "only {east} m³ went over the weir");
    let error = (model.volume(&fields.depth) - initial) / initial;
    assert!(
        error.abs() <= 1e-5,
        "relative mass error {error:.3e} (the weir passed {east:.1} m³)"
    );
}

/// A weir across a V-shaped valley, z = 0.03 |y − 32| − 0.01 x + 1.5, its crest 1.3 m along
/// x = 35.5 m: the crest stands above the ground over its low section only, and a pond at
/// 1.6 m west of it, with no friction. Two hunts' findings in one: the whole 44 m line
/// counted as crest, so the weir passed 30-40% more than its low section could; and the
/// water its end drew left its momentum behind, so the end cells' speed grew without bound
/// (80 m/s in water 3 cm deep by 45 s, the time step down to a hundredth).
#[test]
fn a_weir_across_a_valley_passes_water_over_its_low_section_only() {
    let model = common::model(
        r#"
[domain]
cell_size = 1.0
nx = 128
ny = 64
[terrain]
type = "expression"
expression = "0.03*abs(y-32) - 0.01*x + 1.5"
[[initial.region]]
shape = "rectangle"
min = [0, 0]
max = [40, 64]
water_level = 1.6
[refinement]
levels = 3
default_level = 2
[[refinement.region]]
shape = "rectangle"
min = [0, 0]
max = [20, 20]
level = 0
[[weir]]
line = [[35.5, 10.0], [35.5, 54.0]]
crest = 1.3
smoothing = 0.0
[boundary]
east = "open"
[time]
end = 45.0
"#,
    );
    let bed = |x: f64, y: f64| 0.03 * (y - 32.0).abs() - 0.01 * x + 1.5;
    let low_cells = (10..54)
        .filter(|&j| bed(35.5, j as f64 + 0.5) < 1.3)
        .count();
    let crest: f64 = model.structures.iter().map(|s| s.length).sum();
    // Each wall cell's share of the line (the line's 44 m over the cells it crosses).
    assert!(
        (crest - low_cells as f64).abs() < 0.5,
        "crest {crest} m long over {low_cells} low cells of 1 m"
    );
    let (fields, _) = common::run_to(&model, 45.0);
    let (depth, hu, hv) = (&fields.depth, &fields.hu, &fields.hv);
    // No water can run faster than its fall from the pond's level to the lowest bed allows.
    let lowest = bed(127.5, 32.5);
    let bound = (2.0 * 9.81 * (1.6 - lowest)).sqrt();
    let fastest = (0..depth.len())
        .filter(|&c| depth[c] > 1e-3)
        .map(|c| (hu[c] as f64).hypot(hv[c] as f64) / depth[c] as f64)
        .fold(0.0, f64::max);
    assert!(
        fastest <= bound,
        "water 1 mm deep or more moves at {fastest:.1} m/s, past the {bound:.1} m/s its fall allows"
    );
}

/// Water a weir's end draws leaves with its momentum. Left behind, the momentum of the flow
/// arriving at the crest piled up in the end cells: at steady overtopping (5 m³/s over
/// 10 m) they carried 10% more than the discharge and stood 1.2 cm above the pool behind
/// them. Now the discharge is the same in every cell up to the crest, and the level too.
#[test]
fn the_cells_before_a_weir_carry_the_discharge_and_no_more() {
    let model = common::model(
        r#"
[domain]
cell_size = 1.0
nx = 40
ny = 10
[terrain]
type = "flat"
[[initial.region]]
shape = "rectangle"
min = [0, 0]
max = [20, 10]
water_level = 1.44
[boundary]
east = "open"
[[boundary.segment]]
edge = "west"
type = "inflow"
discharge = 5.0
[[weir]]
line = [[20.5, 0.0], [20.5, 9.9999]]
crest = 1.0
smoothing = 0.0
[time]
end = 300.0
"#,
    );
    let (f, _) = common::run_to(&model, 300.0);
    let at = |i: usize| i + 40 * 5;
    let (pool, end) = (at(15), at(19));
    let q = 0.5;
    for c in [pool, end] {
        assert!(
            (f.hu[c] as f64 - q).abs() < 0.01 * q,
            "cell {c}: {} m²/s against {q}",
            f.hu[c]
        );
    }
    let rise = (f.depth[end] - f.depth[pool]).abs();
    assert!(rise < 1e-3, "the end cell stands {rise} m off the pool");
}

/// A weir drawn 22 m long across a 20 m channel whose banks stand above its crest: the
/// crest is the line's length within the wall cells, 20 m. An even share of the line per
/// cell it crosses gave 19.1 m (the line's end cells and the banks' cells took their
/// shares), and the weir passed 8% too little (a hunt).
#[test]
fn a_weirs_crest_is_the_lines_length_over_its_wall_cells() {
    let model = common::model(
        r#"
[domain]
cell_size = 1.0
nx = 64
ny = 64
[terrain]
type = "expression"
expression = "3*max(0, min(1, abs(y-32) - 10))"
[initial]
depth = 0.0
[[weir]]
line = [[32.5, 21.0], [32.5, 43.0]]
crest = 0.5
[time]
end = 1.0
"#,
    );
    let crest: f64 = model.structures.iter().map(|s| s.length).sum();
    assert!(
        (crest - 20.0).abs() < 1e-9,
        "crest {crest} m across a 20 m channel"
    );
}
