//! Well-balancing: a lake at rest over an irregular bed, with an emerged island and
//! shorelines, stays at rest. The scheme is built so that this holds to the last bit.

mod common;

#[test]
fn lake_at_rest_stays_at_rest_for_1000_steps() {
    let model = common::scenario("lake-at-rest.toml");
    let (depth0, bed) = (model.domain(&model.depth), model.domain(&model.bed));
    assert!(
        depth0.contains(&0.0),
        "the island must stick out of the lake"
    );
    let (f, status) = common::run_steps(&model, 1000);
    assert_eq!(status.steps, 1000);
    let mut max_speed = 0.0f32;
    let mut max_level_error = 0.0f64;
    for c in 0..f.depth.len() {
        let h = f.depth[c];
        if h > 0.0 {
            max_speed = max_speed.max(f.hu[c].abs() / h).max(f.hv[c].abs() / h);
            let level = h as f64 + bed[c] as f64 + model.datum;
            max_level_error = max_level_error.max((level - 1.0).abs());
        } else {
            assert_eq!(depth0[c], 0.0, "cell {c} dried out");
        }
        if depth0[c] == 0.0 {
            assert_eq!(h, 0.0, "dry cell {c} got wet");
        }
    }
    println!("max speed {max_speed:e} m/s, max level error {max_level_error:e} m");
    assert!(max_speed < 1e-5, "max |u|, |v| = {max_speed} m/s");
    // f32 holds a level near 1 m to 6e-8 m; the datum shift adds a little more.
    assert!(
        max_level_error < 1e-5,
        "max level error {max_level_error} m"
    );
}

/// The rough bed under `disturbed_lake`'s water, 1.2–2 m below its surface.
const ROUGH_BED: &str = "0.4 + 0.25*sin(x/3)*cos(y/4) + 0.1*sin(x*y/50) + 0.3*sin(x/7.3+1)";

/// A lake at 2 m over `terrain`, 128 m × 64 m, with `extra` in it (a line across it from
/// y = 10 to 50 m at x = 61 m), a bump of 1 cm on its surface.
fn disturbed_lake(terrain: &str, extra: &str) -> String {
    format!(
        r#"
[domain]
cell_size = 2.0
nx = 64
ny = 32

[terrain]
type = "expression"
expression = "{terrain}"

[initial]
water_level = "2.0 + 0.01*exp(-((x-30)^2+(y-30)^2)/100)"

[friction]
manning = 0.03

{extra}

[time]
end = 300.0
"#
    )
}
/// Kinetic energy and potential energy above the lake's mean level (J/kg·m², summed over
/// the wet cells in f64): the energy a disturbance of a lake at rest carries.
fn disturbance_energy(
    model: &quadflood::scenario::model::Model,
    f: &quadflood::solver::Fields,
) -> f64 {
    let bed = model.domain(&model.bed);
    let wet: Vec<usize> = (0..f.depth.len()).filter(|&c| f.depth[c] > 0.0).collect();
    let level = |c: usize| f.depth[c] as f64 + bed[c] as f64;
    let mean = wet.iter().map(|&c| level(c)).sum::<f64>() / wet.len() as f64;
    let g = 9.81;
    wet.iter()
        .map(|&c| {
            let h = f.depth[c] as f64;
            let (hu, hv) = (f.hu[c] as f64, f.hv[c] as f64);
            0.5 * (hu * hu + hv * hv) / h + 0.5 * g * (level(c) - mean).powi(2)
        })
        .sum()
}

/// The disturbance's energy of `model`'s water at rest as given, and after running to `t`.
fn energy_before_and_after(model: &quadflood::scenario::model::Model, t: f64) -> (f64, f64) {
    let depth = model.domain(&model.depth);
    let still = vec![0.0; depth.len()];
    let start = quadflood::solver::Fields {
        depth,
        hu: still.clone(),
        hv: still,
    };
    let (end, _) = common::run_to(model, t);
    (
        disturbance_energy(model, &start),
        disturbance_energy(model, &end),
    )
}

/// Friction and the scheme take energy out of a disturbed lake, whatever stands in it or
/// around it. Two rules of the bed-slope source at shores gave energy instead (hunts):
/// - wet cells beside a wall inside the domain took their surface's slope from the bed, as
///   at a shoreline, where the bed fell away from the wall: a 1 cm bump beside a levee or
///   a drowned weir grew into currents of 0.2–0.3 m/s, 37 times the bump's energy;
/// - a shore cell took the bed's whole slope as soon as it stood any amount above its lower
///   neighbour, and every ripple kicked it to and fro: beside a wall raised in the terrain,
///   and on a beach, the bump's energy grew 44 and 29 times (0.53 m/s on the beach).
#[test]
fn a_disturbed_lake_loses_energy_beside_walls_and_shores() {
    let raised = format!("{ROUGH_BED} + 4*max(0, 1 - abs(x-61))*max(0, min(1, min(y-9, 51-y)))");
    let beach = format!("{ROUGH_BED} + max(0, 0.25*(x-100))");
    let line = "line = [[61.0, 10.0], [61.0, 50.0]]";
    let cases = [
        (
            "a levee",
            ROUGH_BED.to_string(),
            format!("[[levee]]\n{line}"),
        ),
        (
            "a drowned weir",
            ROUGH_BED.to_string(),
            format!("[[weir]]\n{line}\ncrest = 1.2"),
        ),
        ("a wall raised in the terrain", raised, String::new()),
        ("a beach", beach, String::new()),
    ];
    for (what, terrain, extra) in cases {
        let model = common::model(&disturbed_lake(&terrain, &extra));
        let (before, after) = energy_before_and_after(&model, 300.0);
        println!("{what}: disturbance energy {before:.4e} at the start, {after:.4e} after 300 s");
        assert!(
            after < 0.5 * before,
            "{what}: the disturbance's energy went from {before:e} to {after:e}"
        );
    }
}

/// A lake in a bowl whose bed waves (the shore runs over crests and hollows), a 1 cm mound
/// of water on it, 20 minutes: the shore cells must take energy out, not give it. A source
/// that reached the bed's slope within a sliver of the cell's depth (a ramp of the fall
/// times (depth / fall)³) still kicked shore cells a few millimetres deep to and fro: the
/// energy fell to 1.5e-3 by 60 s, then grew to 1.3e-2, past the mound's own 9.3e-3, with a
/// current of 0.09 m/s at the shore (a hunt).
#[test]
fn a_disturbed_lake_in_a_wavy_bowl_loses_energy() {
    let model = common::model(
        r#"
[domain]
cell_size = 1.0
nx = 48
ny = 48

[terrain]
type = "expression"
expression = "0.008*((x-24)^2+(y-24)^2) + 0.3*sin(x/3)*cos(y/5)"

[initial]
water_level = 2.0

[[initial.region]]
shape = "circle"
center = [30.0, 24.0]
radius = 3.0
water_level = 2.01

[friction]
manning = 0.03

[time]
end = 1200.0
"#,
    );
    let (before, after) = energy_before_and_after(&model, 1200.0);
    println!("disturbance energy {before:.4e} at the start, {after:.4e} after 1200 s");
    assert!(
        after < 0.1 * before,
        "the disturbance's energy went from {before:e} to {after:e}"
    );
}

/// A ripple on a lake held at its level by a stage edge leaves through the edge or dies
/// by friction. The edge's ghost once took the edge cell's state on the unlimited line
/// through the next cell in, which doubled a checkerboard ripple at the face: a 1 cm bump
/// grew into a checkerboard of ±6 mm along the edge with currents of 15 mm/s, 2.6 times
/// the bump's energy after 600 s; and the edge state, taken as differences of near-equal
/// celerities, answered a ripple of a few ulps with errors its own size, so that even a
/// 10 µm bump drove a circulation through the edge, 17 times its energy (a hunt).
#[test]
fn a_ripple_on_a_lake_dies_at_a_stage_edge() {
    for bump in [0.01, 1e-5] {
        let model = common::model(&format!(
            r#"
[domain]
cell_size = 1.0
nx = 32
ny = 32

[terrain]
type = "flat"
elevation = 0.0

[initial]
water_level = 1.0

[[initial.region]]
shape = "circle"
center = [8.0, 16.0]
radius = 3.0
water_level = {}

[friction]
manning = 0.03

[[boundary.segment]]
edge = "west"
type = "stage"
level = 1.0

[time]
end = 600.0
"#,
            1.0 + bump
        ));
        let (before, after) = energy_before_and_after(&model, 600.0);
        println!("a {bump} m bump: disturbance energy {before:.4e} at the start, {after:.4e} after 600 s");
        assert!(
            after < 0.1 * before,
            "a {bump} m bump: the disturbance's energy went from {before:e} to {after:e}"
        );
    }
}

/// A frictionless film thinner than half the last bit of its surface (5e-8 m on beds of 1.1
/// to 1.8 m, whose surfaces step by 1.2e-7 m) is invisible to the faces: its surface rounds
/// to its bed, so they move none of its water. It must not move at all. With the bed-slope
/// source still pushing it, its momentum grew without end while the depth stayed put: a
/// film left on a beach reached 265 m/s after 300 s, and the time step followed it (a hunt,
/// docs/data/hunts-2026-11-28-d/hunt12).
#[test]
fn a_film_too_thin_for_its_surface_stays_at_rest() {
    let model = common::model(
        r#"
[domain]
cell_size = 1.0
nx = 16
ny = 16

[terrain]
type = "expression"
# The first column sets the datum at 0; the film lies on a 5% slope above it.
expression = "(1 + 0.05*x) * (signum(x - 1) + 1) / 2"

[initial]
depth = "0.00000005 * (signum(x - 2) + 1) / 2"

[time]
end = 1e6
"#,
    );
    let (f, status) = common::run_to(&model, 20.0);
    let depth0 = model.domain(&model.depth);
    let moved = f.depth.iter().zip(&depth0).filter(|(a, b)| a != b).count();
    let speed = (0..f.depth.len())
        .filter(|&c| f.depth[c] > 0.0)
        .map(|c| f.hu[c].abs().max(f.hv[c].abs()) / f.depth[c])
        .fold(0.0f32, f32::max);
    println!(
        "{} steps, max speed {speed} m/s, {moved} depths changed",
        status.steps
    );
    assert_eq!(moved, 0, "the faces moved water they cannot see");
    assert_eq!(speed, 0.0, "an invisible film moves at {speed} m/s");
}
