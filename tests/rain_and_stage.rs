//! Rain and stage boundaries: rain adds exactly the volume it should, and a stage edge
//! fills a basin to the imposed level and holds it there.

mod common;

use quadflood::solver::Simulation;

const RAIN: &str = r#"
[domain]
cell_size = 2.0
nx = 40
ny = 24

[terrain]
type = "expression"
expression = "0.3*sin(x/7) + 0.01*y"

[friction]
manning = 0.04

[rain]
# mm/h: a burst that stops at 120 s.
rate = { time = [0.0, 60.0, 120.0], value = [0.0, 180.0, 0.0] }

[time]
end = 200.0
"#;

#[test]
fn rain_volume_is_the_integral_of_the_rate() {
    let model = common::model(RAIN);
    let mut sim = Simulation::new(common::gpu(), &model).unwrap();
    sim.advance_to(200.0, &mut |_| {}).unwrap();
    let stored = model.volume(&sim.read_fields().depth);
    // 180 mm/h peak, triangle of 120 s: 3 mm of rain on 80 m × 48 m.
    let expected = 0.5 * 120.0 * (180.0 / 3.6e6) * 80.0 * 48.0;
    let counted = sim.status().rain_depth * 80.0 * 48.0;
    println!("stored {stored} m3, rain {expected} m3, counted {counted} m3");
    assert!(
        (stored - expected).abs() / expected < 1e-4,
        "stored {stored} vs {expected}"
    );
    assert!(
        (counted - expected).abs() / expected < 1e-4,
        "counted {counted} vs {expected}"
    );
}

const STAGE: &str = r#"
[domain]
cell_size = 1.0
nx = 48
ny = 32

[terrain]
type = "expression"
# A basin with a bumpy floor, 0.3 m below the final stage at most.
expression = "10.0 + 0.1*sin(x/5)*sin(y/4)"

[initial]
water_level = 10.12

[friction]
manning = 0.03

[[boundary.segment]]
edge = "west"
type = "stage"
level = { time = [0.0, 30.0], value = [10.12, 10.3] }

[time]
end = 600.0
"#;

#[test]
fn stage_edge_fills_the_basin_to_its_level() {
    let model = common::model(STAGE);
    let before = model.stored_volume(&model.depth);
    let mut sim = Simulation::new(common::gpu(), &model).unwrap();
    sim.advance_to(600.0, &mut |_| {}).unwrap();
    let f = sim.read_fields();
    let after = model.volume(&f.depth);
    let (inflow, outflow) = sim.edge_volumes();
    let bed = model.domain(&model.bed);
    let level = |c: usize| f.depth[c] as f64 + bed[c] as f64 + model.datum;
    let nx = model.nx();
    let edge_error = (0..model.ny())
        .map(|j| (level(j * nx) - 10.3).abs())
        .fold(0.0, f64::max);
    let mean = (0..f.depth.len()).map(level).sum::<f64>() / f.depth.len() as f64;
    println!("edge level error {edge_error} m, mean level {mean} m; volume {before} -> {after}, in {inflow}, out {outflow}");
    // The edge cells sit on the imposed level; the basin, which started 0.18 m below it,
    // has filled to within 2 cm while a slow seiche (a few mm) dies out.
    assert!(
        edge_error < 1e-3,
        "edge level differs from the stage by {edge_error} m"
    );
    assert!((mean - 10.3).abs() < 0.02, "mean level {mean} m");
    let balance = (after - before - inflow + outflow).abs() / after;
    assert!(balance < 1e-5, "mass balance error {balance}");
}

/// Rain zones: a uniform rate, a zone with its own storm, and a later zone inside it that
/// stays dry, on two levels with zone edges through blocks. The volume counted is the
/// volume stored, and each zone holds its own rain.
const ZONES: &str = r#"
[domain]
cell_size = 8.0
nx = 128
ny = 64

[refinement]
levels = 2

[[refinement.region]]
shape = "rectangle"
min = [0.0, 0.0]
max = [300.0, 512.0]
level = 0

[terrain]
type = "flat"
elevation = 5.0

# Grass: without friction the storm's 10 mm runs into the dry hole as a dam break would,
# its front at 2 sqrt(g h), past the hole's middle within the 10 minutes.
[friction]
manning = 0.03

[rain]
rate = 10.0

[[rain.zone]]
name = "storm"
polygon = [[0.0, 0.0], [512.0, 0.0], [512.0, 512.0], [0.0, 512.0]]
rate = { time = [0.0, 600.0], value = [60.0, 60.0] }

[[rain.zone]]
name = "dry hole"
polygon = [[96.0, 96.0], [304.0, 96.0], [304.0, 304.0], [96.0, 304.0]]
rate = 0.0

[time]
end = 600.0
"#;

#[test]
fn rain_zones_fall_where_they_are_drawn() {
    let model = common::model(ZONES);
    let mut sim = Simulation::new(common::gpu(), &model).unwrap();
    sim.advance_to(600.0, &mut |_| {}).unwrap();
    let depth = sim.read_fields().depth;
    let stored = model.volume(&depth);
    // Zone edges on cell edges, so that the cells whose centres they hold fill them.
    let (area, hole, storm) = (1024.0 * 512.0, 208.0 * 208.0, 512.0 * 512.0);
    let mm = |rate: f64| rate / 3.6e6 * 600.0;
    let expected = mm(60.0) * (storm - hole) + mm(10.0) * (area - storm);
    let counted = sim.status().rain_depth * area;
    assert!(
        (stored - expected).abs() / expected < 1e-5,
        "stored {stored} vs {expected}"
    );
    assert!(
        (counted - expected).abs() / expected < 1e-5,
        "counted {counted} vs {expected}"
    );
    // Away from the zone edges, each zone holds its own rain: under Manning friction the
    // storm's film creeps into the hole at centimetres a second, far from its middle,
    // 100 m from its edges, within the 10 minutes.
    let at = |x: f64, y: f64| depth[(x / 8.0) as usize + 128 * (y / 8.0) as usize] as f64;
    for (x, y, want, within) in [
        (400.0, 400.0, mm(60.0), 0.1 * mm(60.0)),
        (800.0, 300.0, mm(10.0), 0.2 * mm(10.0)),
        (200.0, 200.0, 0.0, 0.01 * mm(60.0)),
    ] {
        assert!(
            (at(x, y) - want).abs() < within,
            "depth {} at ({x}, {y}), expected {want}",
            at(x, y)
        );
    }
}

/// Gridded rain: two 320 m rain cells (ESRI ASCII rasters at 0 and 600 s) over 10 m model
/// cells; the west one ramps from 0 to 36 mm/h, the east one holds 72 mm/h.
#[test]
fn rain_rasters_fall_cell_by_cell_and_ramp_between_times() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, west: f64, east: f64| {
        let mut r =
            quadflood::io::ascii_grid::Raster::new(2, 1, 0.0, 0.0, 320.0, Some(-9999.0), 0.0);
        r.data = vec![west, east];
        quadflood::io::ascii_grid::write_ascii_grid(&dir.path().join(name), &r).unwrap();
    };
    write("r0.asc", 0.0, 72.0);
    write("r1.asc", 36.0, 72.0);
    write("bad.asc", -9999.0, 72.0);
    let scenario = |rasters: &str| {
        format!(
            r#"
[domain]
cell_size = 10.0
nx = 64
ny = 32

[terrain]
type = "flat"
elevation = 0.0

[rain]
rasters = {rasters}

[time]
end = 600.0
"#
        )
    };
    let path = dir.path().join("grid.toml");
    let good = r#"{ paths = ["r0.asc", "r1.asc"], times = [0.0, 10.0], time_unit = "min", unit = "mm/h" }"#;
    std::fs::write(&path, scenario(good)).unwrap();
    let model = quadflood::scenario::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(common::gpu(), &model).unwrap();
    sim.advance_to(600.0, &mut |_| {}).unwrap();
    let depth = sim.read_fields().depth;
    let (west, east) = (0.5 * 36.0 / 3.6e6 * 600.0, 72.0 / 3.6e6 * 600.0);
    let expected = (west + east) * 320.0 * 320.0;
    let stored = model.volume(&depth);
    let counted = sim.status().rain_depth * 640.0 * 320.0;
    for (what, v) in [("stored", stored), ("counted", counted)] {
        assert!(
            (v - expected).abs() / expected < 1e-5,
            "{what} {v} vs {expected}"
        );
    }
    let at = |i: usize, j: usize| depth[i + 64 * j] as f64;
    assert!(
        (at(8, 16) - west).abs() < 0.1 * west,
        "west {} vs {west}",
        at(8, 16)
    );
    assert!(
        (at(56, 16) - east).abs() < 0.1 * east,
        "east {} vs {east}",
        at(56, 16)
    );
    for (rasters, wanted) in [
        (good.replace("r1.asc", "bad.asc"), "bad.asc"),
        (good.replace(", unit = \"mm/h\"", ""), "rain.rasters.unit"),
        (good.replace("[0.0, 10.0]", "[0.0]"), "one time per raster"),
    ] {
        std::fs::write(&path, scenario(&rasters)).unwrap();
        let Err(e) = quadflood::scenario::load(&path) else {
            panic!("{rasters} was accepted");
        };
        assert!(e.to_string().contains(wanted), "{wanted:?} not in {e}");
    }
}

/// A reservoir's level held on the west edge feeds a weir 32 m away (Froude about 0.15 at
/// the edge): the water enters keeping its energy, so the edge cell's energy head is the
/// stage's depth. The reservoir's Riemann invariant in its place lost head at first order
/// in the speed: the edge stood 0.27 m (13% of the depth) below the stage, and the weir
/// passed 16.9 m³/s where 26 was due (a hunt).
#[test]
fn water_entering_through_a_stage_keeps_the_reservoirs_energy() {
    let model = common::model(
        r#"
[domain]
cell_size = 1.0
nx = 64
ny = 16
[terrain]
type = "flat"
elevation = 9.0
[[initial.region]]
shape = "rectangle"
min = [0.0, 0.0]
max = [32.0, 16.0]
water_level = 11.0
[friction]
manning = 0.0
[boundary]
east = "open"
[[boundary.segment]]
edge = "west"
type = "stage"
level = 11.0
[[weir]]
line = [[32.5, 0.1], [32.5, 15.9]]
crest = 10.0
[time]
end = 300.0
"#,
    );
    let (f, _) = common::run_to(&model, 300.0);
    let edge = 64 * 8;
    let (h, u) = (
        f.depth[edge] as f64,
        f.hu[edge] as f64 / f.depth[edge] as f64,
    );
    let energy = h + u * u / (2.0 * 9.81);
    println!("edge cell: depth {h:.4} m, speed {u:.4} m/s, energy head {energy:.4} m");
    assert!(u > 0.5, "the weir draws water in: {u} m/s");
    assert!(
        (energy - 2.0).abs() < 0.01,
        "energy head {energy} m at the edge of a 2 m deep reservoir"
    );
}

/// A lake at rest 1,236 m up with a stage edge at its level stays at rest to the bit: the
/// stage's level and the datum went to the GPU as two f32, each rounded, and stood up to
/// 1e-4 m off the lake, which flowed (2e-4 m/s, 0.4 m³ out in 100 s; a hunt).
#[test]
fn a_stage_at_a_lakes_level_high_above_the_datum_moves_nothing() {
    let model = common::model(
        r#"
[domain]
cell_size = 2.0
nx = 64
ny = 16
[terrain]
type = "expression"
expression = "1234.567 + 0.001*x"
[initial]
water_level = 1236.1
[[boundary.segment]]
edge = "west"
type = "stage"
level = 1236.1
[time]
end = 100.0
"#,
    );
    let (f, _) = common::run_to(&model, 100.0);
    let moving = common::moving_discharges(&f);
    assert_eq!(
        moving, 0,
        "{moving} discharges of the lake at rest are not zero"
    );
}

/// Uniform supercritical flow (Froude 1.86) leaving a steep channel through a stage edge
/// leaves as through an open one: nothing downstream reaches it. Held at the level, or
/// dry below the bed, the last cells stood up to 12% too deep (a hunt).
#[test]
fn supercritical_flow_leaves_through_a_stage_as_through_an_open_edge() {
    let channel = |east: &str| {
        common::model(&format!(
            r#"
[domain]
cell_size = 4.0
nx = 128
ny = 8
[terrain]
type = "slope"
elevation = 20.0
slope_x = -0.02
[initial]
depth = 0.309
u = 3.23
[friction]
manning = 0.02
[[boundary.segment]]
edge = "west"
type = "inflow"
discharge = 32.0
{east}
[time]
end = 300.0
"#
        ))
    };
    let (open, _) = common::run_to(&channel("[boundary]\neast = \"open\""), 300.0);
    for level in [9.9, 8.0] {
        let stage =
            format!("[[boundary.segment]]\nedge = \"east\"\ntype = \"stage\"\nlevel = {level}");
        let (held, _) = common::run_to(&channel(&stage), 300.0);
        common::assert_same_fields(&open, &held, &format!("a stage at {level} m"));
    }
}
