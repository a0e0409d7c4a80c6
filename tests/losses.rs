//! Losses to the ground (`[losses]`): Green-Ampt infiltration follows its analytic curve,
//! initial and continuing losses take rain as their definition says, land-use classes give
//! each area its own losses, the lost volume closes the mass balance, and the results do
//! not depend on the number of ranks.

mod common;

use quadflood::scenario::losses::green_ampt_depth;
use quadflood::solver::ranks::Ranked;
use quadflood::solver::Simulation;
use std::path::Path;

/// A flat, walled box of ponded water soaking into the ground by Green-Ampt.
const PONDED: &str = r#"
[domain]
cell_size = 10.0
nx = 32
ny = 32

[terrain]
type = "expression"
expression = "0"

[initial]
depth = 0.3

[losses]
model = "green_ampt"
conductivity = 10.0   # mm/h
suction = 110.0       # mm
deficit = 0.3

[time]
end = 10800.0
"#;

/// Green-Ampt under ponding from F = 0: K t = F - S ln(1 + F / S), S = suction x deficit.
/// The still water's depth is what the ground has not taken.
#[test]
fn green_ampt_follows_its_analytic_curve() {
    let model = common::model(PONDED);
    let (k, s) = (10.0e-3 / 3600.0, 0.110 * 0.3);
    let mut sim = Simulation::new(common::gpu(), &model).unwrap();
    for t in [600.0, 3600.0, 10800.0] {
        sim.advance_to(t, &mut |_| {}).unwrap();
        let exact = green_ampt_depth(k, s, t);
        let depth = sim.read_fields().depth;
        // f32 depths of 0.3 m and thousands of steps: rounding stays far below 0.1 mm, an
        // error the midpoint rule (second order in dt ~ 3 s against S / K ~ 3 h) never makes.
        let worst = depth
            .iter()
            .map(|&h| (0.3 - h as f64 - exact).abs())
            .fold(0.0, f64::max);
        println!(
            "t {t} s: F exact {:.3} mm, worst cell off by {:.2e} mm",
            exact * 1e3,
            worst * 1e3
        );
        assert!(
            worst < 1e-4,
            "t {t}: depth off the Green-Ampt curve by {worst} m"
        );
        let area = 320.0 * 320.0;
        let lost = sim.lost_volume();
        assert!(
            (lost - exact * area).abs() < 1e-4 * area,
            "lost volume {lost} m³, expected {} m³",
            exact * area
        );
        let snapshot = sim.read_snapshot();
        let lost_depths = &snapshot.resume.infiltrated;
        assert!(lost_depths.iter().all(|&f| (f as f64 - exact).abs() < 1e-4));
    }
}

/// Rain of 50 mm/h for an hour on a flat, walled box, with an initial loss of 10 mm and a
/// continuing loss of 5 mm/h, then an hour without rain. The initial loss is met at
/// t = 10 / 50 h = 720 s; from then on 5 mm/h soak away while water stands.
const RAINED_ON: &str = r#"
[domain]
cell_size = 10.0
nx = 32
ny = 16

[terrain]
type = "expression"
expression = "0"

[rain]
rate = { time = [0.0, 3600.0, 3601.0, 7200.0], value = [50.0, 50.0, 0.0, 0.0] }

[losses]
model = "initial_continuing"
initial = 10.0     # mm
continuing = 5.0   # mm/h

[time]
end = 7200.0
output_interval = 3600.0

[output]
png = false
"#;

fn rain_mm(t: f64) -> f64 {
    let hours = |s: f64| s / 3600.0;
    if t <= 3600.0 {
        50.0 * hours(t)
    } else {
        50.0 + 0.5 * 50.0 * hours(1.0)
    }
}

/// Depth (mm) at time t of `RAINED_ON` with initial loss `il` and continuing loss `cl`.
fn il_cl_depth_mm(t: f64, il: f64, cl: f64) -> f64 {
    let met = il / 50.0 * 3600.0;
    (rain_mm(t) - il - cl * (t - met).max(0.0) / 3600.0).max(0.0)
}

#[test]
fn initial_and_continuing_losses_take_the_rain_their_definition_says() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("rained_on.toml");
    std::fs::write(&scenario, RAINED_ON).unwrap();
    let out = dir.path().join("out");
    common::run_ok(&scenario, &out, &[]);
    let summary = common::summary(&out);
    let error = summary["mass_error_rel"].as_f64().unwrap();
    assert!(error.abs() <= 1e-5, "mass error {error}");
    let depth = common::read_map(&out.join("depth_0007200.0s.tif"));
    let exact = il_cl_depth_mm(7200.0, 10.0, 5.0);
    // The loss comes off at each step's end: the step in which the initial loss is met
    // starts the continuing loss early by at most one step (dt ≤ 10 s: 0.014 mm).
    for (k, &h) in depth.iter().enumerate() {
        let off = (h * 1e3 - exact).abs();
        assert!(off < 0.05, "cell {k}: {} mm, expected {exact} mm", h * 1e3);
    }
    let lost = common::read_map(&out.join("infiltration.tif"));
    let expected = rain_mm(7200.0) - exact;
    assert!(
        lost.iter().all(|&f| (f - expected).abs() < 0.05),
        "infiltration map {:?} mm, expected {expected} mm",
        &lost[..4]
    );
    let infiltrated = summary["mass_infiltrated_m3"].as_f64().unwrap();
    let area = 320.0 * 160.0;
    assert!((infiltrated - expected * 1e-3 * area).abs() < 5e-5 * area);
    // The check map gives the parameters as the scenario does (first band: initial loss).
    let initial = common::read_map(&out.join("check").join("losses.tif"));
    assert!(
        initial.iter().all(|&v| (v - 10.0).abs() < 1e-4),
        "{:?}",
        &initial[..4]
    );
    let balance = std::fs::read_to_string(out.join("mass_balance.csv")).unwrap();
    assert!(
        balance.starts_with("time_s,inflow_m3,outflow_m3,rain_m3,infiltrated_m3,storage_m3,"),
        "{balance}"
    );
}

/// Two basins side by side, parted by a wall: the west one on land-use class 1 (initial
/// and continuing losses), the east one on class 7 (sealed: no losses).
const CLASSES: &str = r#"
[domain]
cell_size = 10.0
nx = 32
ny = 16

[terrain]
type = "expression"
expression = "0"

[[levee]]
line = [[165.0, 0.5], [165.0, 159.5]]

[rain]
rate = { time = [0.0, 3600.0, 3601.0, 7200.0], value = [50.0, 50.0, 0.0, 0.0] }

[losses]
model = "initial_continuing"
landuse = "landuse.asc"

[losses.classes]
"1" = { initial = 10.0, continuing = 5.0 }
"7" = { initial = 0.0, continuing = 0.0 }

[time]
end = 7200.0
"#;

/// An ESRI ASCII land-use grid over the domain: class 1 west of x = 160 m, 7 east.
fn write_landuse(dir: &Path) {
    let mut text = String::from(
        "ncols 32\nnrows 16\nxllcorner 0\nyllcorner 0\ncellsize 10\nNODATA_value -9999\n",
    );
    for _ in 0..16 {
        let row: Vec<&str> = (0..32).map(|i| if i < 16 { "1" } else { "7" }).collect();
        text += &(row.join(" ") + "\n");
    }
    std::fs::write(dir.join("landuse.asc"), text).unwrap();
}

#[test]
fn each_land_use_class_loses_water_by_its_own_parameters() {
    let dir = tempfile::tempdir().unwrap();
    write_landuse(dir.path());
    let model = quadflood::scenario::from_str(CLASSES, dir.path()).unwrap();
    let mut sim = Simulation::new(common::gpu(), &model).unwrap();
    sim.advance_to(7200.0, &mut |_| {}).unwrap();
    let depth = sim.read_fields().depth;
    let (west, east) = (il_cl_depth_mm(7200.0, 10.0, 5.0), rain_mm(7200.0));
    for j in 0..16 {
        for i in (0..15).chain(17..32) {
            let h = depth[i + 32 * j] as f64 * 1e3;
            let exact = if i < 16 { west } else { east };
            assert!(
                (h - exact).abs() < 0.05,
                "cell ({i}, {j}): {h} mm, expected {exact} mm"
            );
        }
    }
}

/// A dam break over a sloping, multi-level grid with Green-Ampt losses and rain: every
/// rank count gives one rank's bits, and the same lost volume.
const SPREADING: &str = r#"
[domain]
cell_size = 2.0
nx = 128
ny = 96

[refinement]
levels = 2
near_inflow = 10.0

[terrain]
type = "expression"
expression = "0.002*x + 0.2*sin(y/11)"

[initial]
water_level = "1.0 - 10*max(0, x - 60)"

[friction]
manning = 0.03

[rain]
rate = 40.0

[losses]
model = "green_ampt"
conductivity = 30.0
suction = 90.0
deficit = 0.35

[time]
end = 1e6
"#;

#[test]
fn losses_give_the_same_bits_on_any_number_of_ranks() {
    same_bits_on_any_number_of_ranks(SPREADING);
}

/// The same with initial and continuing losses that the rain outruns once the initial
/// loss is met (at 9 s): the ground then takes a share of the rain that depends on what it
/// has taken, so a rank's ghost cells must know what their owner's ground has taken. They
/// did not (it never travelled with the ghosts), soaked up all the rain in their stage 1,
/// and the ranks' fluxes across their borders parted.
#[test]
fn losses_that_depend_on_what_was_taken_give_the_same_bits_on_any_number_of_ranks() {
    let initial_continuing = "model = \"initial_continuing\"\ninitial = 0.1\ncontinuing = 10.0";
    let green_ampt = "model = \"green_ampt\"\nconductivity = 30.0\nsuction = 90.0\ndeficit = 0.35";
    assert!(SPREADING.contains(green_ampt));
    same_bits_on_any_number_of_ranks(&SPREADING.replace(green_ampt, initial_continuing));
}

fn same_bits_on_any_number_of_ranks(scenario: &str) {
    let model = common::model(scenario);
    let t = 20.0;
    let mut one = Simulation::new(common::gpu(), &model).unwrap();
    one.advance_to(t, &mut |_| {}).unwrap();
    let (fields, lost) = (one.read_fields(), one.lost_volume());
    assert!(lost > 1.0, "the ground must have taken water: {lost} m³");
    for ranks in [2, 3] {
        let p = quadflood::partition::partition(
            &model.grid,
            ranks,
            quadflood::partition::Method::Hilbert,
            &quadflood::partition::per_block,
        );
        let results = common::on_ranks(ranks, |c| {
            let mut r = Ranked::new(common::gpu(), &model, &p, c).expect("a rank");
            r.advance_to(t, &mut |_| {}).expect("the run");
            let lost = r.lost_volume();
            (r.read_fields(), lost)
        });
        let (split, split_lost) = results
            .into_iter()
            .find_map(|(f, l)| f.map(|f| (f, l)))
            .expect("rank 0's fields");
        common::assert_same_fields(&fields, &split, &format!("{ranks} ranks"));
        assert_eq!(
            lost.to_bits(),
            split_lost.to_bits(),
            "{ranks} ranks: lost volume"
        );
    }
}

/// Each mistake names its key and what was expected, and the run exits with code 2.
#[test]
fn bad_losses_are_refused_with_the_key_named() {
    let base = "[domain]\ncell_size = 1.0\nnx = 16\nny = 16\n[terrain]\ntype = \"expression\"\nexpression = \"0\"\n[time]\nend = 1.0\n[losses]\n";
    let cases = [
        ("model = \"horton\"\n", "losses.model", "initial_continuing"),
        ("model = \"initial_continuing\"\ncontinuing = 2.0\n", "losses.initial", "missing"),
        ("model = \"initial_continuing\"\ninitial = -1.0\ncontinuing = 2.0\n", "losses.initial", ">= 0"),
        ("model = \"green_ampt\"\nconductivity = 1.0\nsuction = 50.0\ndeficit = 1.5\n", "losses.deficit", "between 0 and 1"),
        ("model = \"green_ampt\"\nconductivity = 1.0\nsuction = 50.0\ndeficit = 0.3\ninitial = 5.0\n", "losses.initial", "not a parameter"),
        ("model = \"initial_continuing\"\ninitial = \"ten\"\ncontinuing = 2.0\n", "losses.initial", "raster"),
        // Values the GPU's f32 cannot hold: 1e-40 mm/h became 0, 1e300 mm infinity.
        ("model = \"green_ampt\"\nconductivity = 1e-40\nsuction = 50.0\ndeficit = 0.3\n", "losses.conductivity", "0 or between"),
        ("model = \"green_ampt\"\nconductivity = 1.0\nsuction = 1e300\ndeficit = 0.3\n", "losses.suction", "0 or between"),
        ("model = \"initial_continuing\"\ninitial = 0.0\ncontinuing = 1e300\n", "losses.continuing", "0 or between"),
        // A raster that is not there: the message names the key that named it.
        ("model = \"green_ampt\"\nconductivity = { raster = \"none.asc\" }\nsuction = 50.0\ndeficit = 0.3\n", "losses.conductivity.raster", "none.asc"),
        // One class under two keys: one of them was dropped unsaid.
        ("model = \"initial_continuing\"\nlanduse = \"none.asc\"\n[losses.classes]\n\"02\" = { initial = 1.0, continuing = 1.0 }\n\"2\" = { initial = 2.0, continuing = 1.0 }\n", "losses.classes.2", "given as classes.02"),
    ];
    for (text, key, expected) in cases {
        let message = match quadflood::scenario::from_str(&format!("{base}{text}"), Path::new("."))
        {
            Ok(_) => panic!("accepted: {text}"),
            Err(e) => e.to_string(),
        };
        assert!(
            message.contains(key) && message.contains(expected),
            "{text}: {message}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("bad.toml");
    std::fs::write(&scenario, format!("{base}model = \"green_ampt\"\n")).unwrap();
    let o = common::run_cli(&scenario, &dir.path().join("out"), &["--quiet"], &[]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("losses.conductivity"), "{stderr}");
}

/// A still pond `depth` m deep on 1 m cells under a loss of `losses`, for `end` s: the depth
/// each cell lost (m) and the volume the balance counts as lost (m³), over 16 × 16 cells.
fn pond_losing(depth: f64, losses: &str, end: f64) -> (Vec<f64>, f64) {
    let model = common::model(&format!(
        "[domain]\ncell_size = 1.0\nnx = 16\nny = 16\n[terrain]\ntype = \"flat\"\n\
         [initial]\ndepth = {depth}\n[losses]\n{losses}\n[time]\nend = {end}\ndt_max = 100.0\n"
    ));
    let mut sim = Simulation::new(common::gpu(), &model).unwrap();
    sim.advance_to(end, &mut |_| {}).unwrap();
    let lost = sim
        .read_fields()
        .depth
        .iter()
        .map(|&h| depth - h as f64)
        .collect();
    (lost, sim.lost_volume())
}

/// Under deep water a step's loss lies below the depth's last bit: rounded to nearest, each
/// step took a whole bit or nothing (a hunt: 2 mm/h for 30 min took 1.92 mm under 2 m of
/// water, 0.68 mm under 1 m, and Green-Ampt stopped at 15.8 mm under 10 m against 34.8 mm).
/// Rounded without bias, the mean over the pond and the volume the balance counts follow
/// the definition to 0.5%, and each cell to 5% (the spread of thousands of unbiased
/// roundings of one bit).
#[test]
fn losses_under_deep_water_take_what_their_definition_says() {
    let continuing = "model = \"initial_continuing\"\ninitial = 0.0\ncontinuing = 2.0";
    let green_ampt = "model = \"green_ampt\"\nconductivity = 10.0\nsuction = 110.0\ndeficit = 0.35";
    let ga = green_ampt_depth(10.0e-3 / 3600.0, 0.110 * 0.35, 3600.0);
    for (depth, losses, end, exact) in [
        (2.0, continuing, 1800.0, 1e-3),
        (1.0, continuing, 1800.0, 1e-3),
        (10.0, green_ampt, 3600.0, ga),
    ] {
        let (lost, volume) = pond_losing(depth, losses, end);
        let mean = lost.iter().sum::<f64>() / lost.len() as f64;
        let worst = lost.iter().map(|l| (l - exact).abs()).fold(0.0, f64::max);
        println!(
            "{depth} m deep, {}: mean loss {:.4} mm against {:.4} mm, worst cell off {:.2e} mm",
            losses.lines().next().unwrap(),
            mean * 1e3,
            exact * 1e3,
            worst * 1e3
        );
        assert!(
            (mean - exact).abs() < 5e-3 * exact,
            "mean loss {mean} m against {exact} m"
        );
        assert!(worst < 0.05 * exact, "a cell lost {worst} m off {exact} m");
        // The balance's count: each step's loss as the cells lost it (the depths move by
        // the flux update's unbiased rounding as well, a random walk of a few bits).
        assert!(
            (volume - exact * 256.0).abs() < 5e-3 * exact * 256.0,
            "{volume} m³ counted, {} m³ by the definition",
            exact * 256.0
        );
    }
}

/// A sealed soil, K = 0, with a suction and deficit (as a class table easily gives): the
/// implicit step's root was 0 / 0 at F = 0, and the ground took the whole pond.
#[test]
fn a_green_ampt_soil_of_no_conductivity_takes_nothing() {
    let sealed = "model = \"green_ampt\"\nconductivity = 0.0\nsuction = 110.0\ndeficit = 0.35";
    let (lost, volume) = pond_losing(0.5, sealed, 600.0);
    assert!(
        lost.iter().all(|&l| l == 0.0),
        "the pond lost up to {:?} m",
        lost.iter().cloned().fold(0.0, f64::max)
    );
    assert_eq!(volume, 0.0);
}

/// A storm lighter than the ground's continuing loss on a steep, curved hillside: the ground
/// takes every drop where it falls, so the infiltration map is the rain everywhere and no
/// water ever stands or moves. The rain stood as a film within each step until the losses
/// took it at the step's end, and the step's second stage carried that film from the
/// ridges into the hollows: 2.13 to 2.87 mm against 2.5 mm at the default dt_max (hunt 13,
/// docs/data/hunts-2026-11-28-e/).
#[test]
fn rain_the_ground_can_take_soaks_in_where_it_falls() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("light_rain.toml");
    std::fs::write(
        &scenario,
        r#"
[domain]
cell_size = 2.0
nx = 64
ny = 48

[terrain]
type = "expression"
expression = "50 - 0.3*x + 3*sin(y/7) + 2*cos(x/11)*sin(y/13)"

[friction]
manning = 0.05

[rain]
rate = { time = [0.0, 300.0, 600.0], value = [20.0, 20.0, 0.0] }

[losses]
model = "initial_continuing"
initial = 2.0
continuing = 30.0

[time]
end = 600.0

[output]
format = "ascii"
png = false
"#,
    )
    .unwrap();
    let out = dir.path().join("out");
    common::run_ok(&scenario, &out, &[]);
    let rain_mm = 20.0 * 450.0 / 3600.0;
    let lost = common::read_map(&out.join("infiltration.asc"));
    let (low, high) = lost
        .iter()
        .fold((f64::MAX, f64::MIN), |(l, h), &f| (l.min(f), h.max(f)));
    println!("infiltration {low} to {high} mm, the rain {rain_mm} mm");
    assert!(
        (low - rain_mm).abs() < 1e-3 && (high - rain_mm).abs() < 1e-3,
        "infiltration {low} to {high} mm where {rain_mm} mm fell"
    );
    let depth = common::read_map(&out.join("max_depth.asc"));
    assert!(
        depth.iter().all(|&h| h == 0.0),
        "water stood on the hillside"
    );
}
