//! Stage, outfall and open lines inside the domain: a stage line fills a dry basin to its
//! level and holds it; an outfall line drains a sloping basin; an open line lets uniform
//! flow leave a channel cut off by nodata as it comes; in each the water the line takes in
//! or gives up is counted, so the volume balance closes.

mod common;

use quadflood::scenario::model::Model;
use quadflood::solver::{Fields, Simulation};

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

/// (stored volume at the end, initial volume, volume in, volume out through the edges and
/// lines and into the ground, the state, the fields as the run reports them) after `t`
/// seconds.
fn balance(model: &Model, t: f64) -> (f64, f64, f64, f64, Fields, Fields) {
    let initial = model.stored_volume(&model.depth);
    let mut sim = Simulation::new(common::gpu(), model).unwrap();
    sim.advance_to(t, &mut |_| {}).unwrap();
    let fields = sim.read_fields();
    let (vin, vout) = sim.edge_volumes();
    (
        model.volume(&fields.depth),
        initial,
        vin,
        vout + sim.lost_volume(),
        fields,
        sim.read_reported_fields(),
    )
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
    let (stored, initial, vin, vout, fields, _) = balance(&model, 600.0);
    let depth = fields.depth;
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

/// A stage line whose level rises 2 cm/s across a lake: every cell the line crosses must end
/// each step at the series' level, as docs/scenario.md says, not at the mean of its last
/// depth and the new level, which lagged a rising level by a step (2.1 mm at 60 s, hunt 13).
#[test]
fn a_stage_line_stands_at_its_series_at_every_step() {
    let model = common::model(
        r#"
[domain]
cell_size = 1.0
nx = 64
ny = 32

[terrain]
type = "flat"

[initial]
water_level = 0.5

[friction]
manning = 0.03

[[boundary.line]]
type = "stage"
line = [[32.5, 4.5], [32.5, 27.5]]
level = { time = [0.0, 10.0, 60.0], value = [0.5, 0.5, 1.5] }

[time]
end = 1e6
"#,
    );
    let mut sim = Simulation::new(common::gpu(), &model).unwrap();
    for t in [23.0, 41.0, 60.0] {
        sim.advance_to(t, &mut |_| {}).unwrap();
        let depth = sim.read_fields().depth;
        let level = 0.5 + (t - 10.0) / 50.0;
        let worst = (5..27)
            .map(|j| (depth[32 + 64 * j] as f64 - level).abs())
            .fold(0.0, f64::max);
        println!("t = {t} s: the line's cells within {worst:e} m of the series' {level} m");
        assert!(
            worst < 1e-6,
            "the line stands {worst} m off its series at {t} s"
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
    let (stored, initial, vin, vout, _, _) = balance(&model, 60.0);
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
            "type = \"weir\"\nline = [[1.5, 1.5], [1.5, 40.0]]",
            "expected \"stage\", \"outfall\", \"open\", \"normal_depth\" or \"rating\"",
        ),
        (
            "type = \"normal_depth\"\nline = [[0.5, 1.5], [0.5, 40.0]]",
            "needs `slope`",
        ),
        (
            "type = \"normal_depth\"\nline = [[0.5, 1.5], [0.5, 40.0]]\nslope = -0.01",
            "expected a friction slope > 0",
        ),
        (
            "type = \"stage\"\nline = [[0.5, 1.5], [0.5, 40.0]]\nlevel = 1.0\nslope = 0.01",
            "takes no slope",
        ),
        (
            "type = \"open\"\nline = [[1.5, 1.5], [1.5, 40.0]]\nlevel = 1.0",
            "takes no level",
        ),
        (
            "type = \"open\"\nline = [[20.5, 1.5], [20.5, 40.0]]",
            "an open line runs along the domain's edge",
        ),
        // A rating line off the edge was refused as an open line (a hunt).
        (
            "type = \"rating\"\nline = [[20.5, 1.5], [20.5, 40.0]]\nrating = { level = [1.0, 2.0], discharge = [0.0, 1.0] }",
            "a rating line runs along the domain's edge",
        ),
        (
            "type = \"outfall\"\nline = [[1.5, 1.5], [1.5, 90.0]]",
            "outside",
        ),
        (
            "type = \"rating\"\nline = [[0.5, 1.5], [0.5, 40.0]]",
            "needs `rating`",
        ),
        (
            "type = \"rating\"\nline = [[0.5, 1.5], [0.5, 40.0]]\nrating = { level = [1.0], discharge = [0.0] }",
            "at least two",
        ),
        (
            "type = \"rating\"\nline = [[0.5, 1.5], [0.5, 40.0]]\nrating = { level = [1.0, 2.0], discharge = [0.0, 1.0] }\nslope = 0.01",
            "takes no slope",
        ),
        (
            "type = \"stage\"\nline = [[0.5, 1.5], [0.5, 40.0]]\nlevel = 1.0\nrating = { level = [1.0, 2.0], discharge = [0.0, 1.0] }",
            "takes no rating",
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
    // Without friction a normal-depth line would pass critical flow instead, silently.
    let frictionless = BASIN
        .replace("SLOPE", "0.0")
        .replace("INITIAL", "depth = 0.0")
        .replace("manning = 0.03", "manning = 0.0")
        .replace(
            "LINE",
            "type = \"normal_depth\"\nslope = 0.01\nline = [[0.5, 1.5], [0.5, 40.0]]",
        );
    let Err(e) = quadflood::scenario::from_str(&frictionless, std::path::Path::new(".")) else {
        panic!("a frictionless normal-depth line was accepted");
    };
    assert!(e.to_string().contains("needs friction"), "{e}");
    assert!(e.to_string().contains("boundary.line[0]"), "{e}");
}

/// A channel 8 m wide on `slope`, whose terrain ends in nodata 4 m before the rectangle
/// does, fed `q` m²/s at the west edge and started in uniform flow at normal depth
/// (Manning's `n`: h = (q n / √S)^(3/5)), run for `t` s with `line` (TOML, or none) on the
/// last valid column.
struct Channel {
    slope: f64,
    n: f64,
    q: f64,
}

/// What a channel run ends with, along the middle row of its 60 valid cells.
struct ChannelEnd {
    depth: Vec<f64>,
    /// The momentum each cell holds (hu).
    discharge: Vec<f64>,
    /// The discharge the run reports (maps, gauges, sections): its faces'.
    reported: Vec<f64>,
    vin: f64,
    vout: f64,
    normal: f64,
}

impl Channel {
    /// The run; its mass balance must close to 1e-5.
    fn run(&self, line: &str, t: f64) -> ChannelEnd {
        let (nx, ny, valid) = (64usize, 8usize, 60usize);
        let Channel { slope, n, q } = *self;
        let normal = (q * n / f64::sqrt(slope)).powf(0.6);
        let dir = tempfile::tempdir().unwrap();
        let mut dem = format!(
            "ncols {nx}\nnrows {ny}\nxllcorner 0\nyllcorner 0\ncellsize 1\nNODATA_value -9999\n"
        );
        for _ in 0..ny {
            let row: Vec<String> = (0..nx)
                .map(|i| match i < valid {
                    true => format!("{:.6}", slope * (valid - i) as f64),
                    false => "-9999".into(),
                })
                .collect();
            dem += &(row.join(" ") + "\n");
        }
        std::fs::write(dir.path().join("channel.asc"), dem).unwrap();
        let scenario = format!(
            r#"
[terrain]
type = "raster"
path = "channel.asc"

[friction]
manning = {n}

[initial]
depth = {normal}
u = {u}

[boundary]
default = "wall"

[[boundary.segment]]
edge = "west"
type = "inflow"
from = 0.0
to = {ny}.0
discharge = {discharge}

{line}

[time]
end = {t}
"#,
            u = q / normal,
            discharge = q * ny as f64,
        );
        let model = quadflood::scenario::from_str(&scenario, dir.path()).unwrap();
        let (stored, initial, vin, vout, fields, reported) = balance(&model, t);
        let error = (stored - (initial + vin - vout)).abs() / (initial + vin);
        assert!(error < 1e-5, "{line}: mass error {error}");
        let row = 4 * nx;
        let along = |v: &[f32]| (0..valid).map(|i| v[row + i] as f64).collect();
        ChannelEnd {
            depth: along(&fields.depth),
            discharge: along(&fields.hu),
            reported: along(&reported.hu),
            vin,
            vout,
            normal,
        }
    }
}

/// The channel of the tests below: n = 0.03, 0.5 m²/s.
fn channel(slope: f64, line: &str, t: f64) -> (Vec<f64>, f64, f64, f64) {
    let end = Channel {
        slope,
        n: 0.03,
        q: 0.5,
    }
    .run(line, t);
    (end.depth, end.vin, end.vout, end.normal)
}

/// What leaves is what comes in, to `share` of it.
fn assert_passes(vin: f64, vout: f64, share: f64) {
    assert!(
        (vout - vin).abs() < share * vin,
        "in {vin} m³, out {vout} m³"
    );
}

/// The largest relative difference from `normal` of the depths from cell `from` on.
fn off_normal(profile: &[f64], from: usize, normal: f64) -> f64 {
    profile[from..]
        .iter()
        .map(|h| (h - normal).abs() / normal)
        .fold(0.0, f64::max)
}

/// The open line's outflow is counted by the block's first thread after the cells' update,
/// from the line cell's inner neighbour in the tile; with losses, the block first summed its
/// cells' lost volumes in the tile, and the line's counted outflow came from those sums: a
/// mass error of 1.13 (`channel` asserts ≤ 1e-5, the ground's take counted as out).
#[test]
fn an_open_line_counts_its_outflow_with_losses() {
    let line = "[[boundary.line]]\ntype = \"open\"\nline = [[59.5, 0.5], [59.5, 7.5]]\n\n\
                [losses]\nmodel = \"initial_continuing\"\ninitial = 1.0\ncontinuing = 20.0";
    let (_, vin, vout, _) = channel(0.05, line, 60.0);
    println!("in {vin:.2} m³, out and lost {vout:.2} m³");
    assert!(
        vout > 0.5 * vin,
        "the water must leave or soak in: {vout} of {vin} m³"
    );
}

/// A steep channel (5% slope): normal depth 0.198 m, a supercritical flow (Froude 1.8).
/// Nothing downstream can reach back up it, so the exact steady state is uniform flow to
/// the channel's end. An open line on the last valid column lets it leave as it comes: from
/// the twentieth cell to the line the depth is normal depth to 0.2% (the inflow enters at
/// critical depth, 0.294 m, and the flow relaxes to normal depth over the first ten cells
/// or so), and what leaves through the line is what comes in. Without the line the nodata
/// edge is a wall, and the water piles up against it.
#[test]
fn an_open_line_at_a_nodata_edge_lets_the_flow_leave_as_it_comes() {
    let open_line = "[[boundary.line]]\ntype = \"open\"\nline = [[59.5, 0.5], [59.5, 7.5]]";
    let (open, vin, vout, normal) = channel(0.05, open_line, 120.0);
    let worst = off_normal(&open, 20, normal);
    println!(
        "open line: depth {:.4} .. {:.4} m against normal {normal:.4} (worst {worst:.2e}); in {vin:.1} m³, out {vout:.1} m³",
        open[20], open[59]
    );
    assert!(worst < 2e-3, "depth off normal by {worst}");
    assert_passes(vin, vout, 0.01);
    let (walled, _, _, _) = channel(0.05, "", 120.0);
    println!("no line: depth {:.4} m at the end", walled[59]);
    assert!(walled[59] > 2.0 * normal, "{} m", walled[59]);
}

/// The steep channel (5%, normal depth 0.198 m, Froude 1.8) ending at a normal-depth line
/// on the same slope, or a rating line with the same section's Manning curve: the outlet
/// is no control for water arriving supercritically, and uniform flow leaves at normal
/// depth. Held to critical flow, the line's cells stood at critical depth, 0.294 m (+48%),
/// and held back water that had nowhere to back up to.
#[test]
fn supercritical_flow_leaves_a_steep_outflow_line_at_normal_depth() {
    let (slope, n): (f64, f64) = (0.05, 0.03);
    let manning = |h: f64| 8.0 * h.powf(5.0 / 3.0) * slope.sqrt() / n;
    let bed = slope * 1.0; // the line's column, one cell before the nodata
    let depths: Vec<f64> = (0..=40).map(|k| 0.02 * k as f64).collect();
    let list = |v: Vec<f64>| {
        v.iter()
            .map(|x| format!("{x:.6}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let rating = format!(
        "type = \"rating\"\nrating = {{ level = [{}], discharge = [{}] }}",
        list(depths.iter().map(|h| bed + h).collect()),
        list(depths.iter().map(|&h| manning(h)).collect())
    );
    for law in [format!("type = \"normal_depth\"\nslope = {slope}"), rating] {
        let line = format!("[[boundary.line]]\n{law}\nline = [[59.5, 0.5], [59.5, 7.5]]");
        let (profile, vin, vout, normal) = channel(slope, &line, 120.0);
        let worst = off_normal(&profile, 20, normal);
        println!(
            "{}: depth {:.4} on the line, normal {normal:.4} (worst from cell 20 {worst:.2e}); in {vin:.1} m³, out {vout:.1} m³",
            law.lines().next().unwrap(),
            profile[59]
        );
        assert!(worst < 0.01, "{law}: depth off normal by {worst}");
        assert_passes(vin, vout, 0.01);
    }
}

/// Rain (100 mm/h) on a steep smooth plane (S = 0.05, n = 0.02, 2 m cells, 200 m) draining
/// to a normal-depth line on its last column: the sheet arrives at Froude 1.66, and the
/// line's cell, which must also pass its own rain, stands at the kinematic depth. Held to
/// what arrived from its neighbour, it could not pass its rain and stood at critical depth
/// (+41%; a hunt).
#[test]
fn a_steep_normal_depth_line_passes_its_own_rain_at_normal_depth() {
    let model = common::model(
        r#"
[domain]
cell_size = 2.0
nx = 100
ny = 16
[terrain]
type = "slope"
elevation = 10.0
slope_x = -0.05
[friction]
manning = 0.02
[rain]
rate = 100.0
[[boundary.line]]
type = "normal_depth"
slope = 0.05
line = [[199.0, 1.0], [199.0, 31.0]]
[time]
end = 1e6
"#,
    );
    let t = 900.0;
    let (stored, _, vin, vout, fields, _) = balance(&model, t);
    let rain = 100.0 / 3.6e6;
    let error = (stored - (rain * t * 200.0 * 32.0 + vin - vout)).abs() / stored;
    assert!(error < 1e-5, "mass error {error}");
    let q = rain * 200.0; // the rain on the plane, all of which the line passes
    let normal = (q * 0.02 / 0.05f64.sqrt()).powf(0.6);
    let depth = fields.depth[8 * 100 + 99] as f64;
    println!("line cell {depth:.5} m, normal depth of the whole plane's rain {normal:.5} m");
    assert!(
        (depth - normal).abs() < 0.02 * normal,
        "line cell {depth} m"
    );
}

/// A thin subcritical sheet (8 mm at Froude 0.4 on a 2% slope, n = 0.05) reaching an open
/// or normal-depth line at a nodata edge (a rating line's cell takes the same slopes). The bed falls 2 cm a cell, more than the
/// sheet is deep, so where the line's cell stood first order (its outer neighbour is
/// nodata, which its slopes took for a wall's mirror) the face to its inner neighbour saw
/// a dry cell below a step: the discharge through that face was a dry bed's, and the
/// cells before the line carried 44-72% of the flow that passed (hunt 14). Once steady,
/// the last cells before the line carry what passes.
#[test]
fn the_cells_before_a_line_carry_the_flow_that_passes() {
    let sheet = Channel {
        slope: 0.02,
        n: 0.05,
        q: 9e-4,
    };
    let lines = ["type = \"open\"", "type = \"normal_depth\"\nslope = 0.02"];
    for line in lines {
        let toml = format!("[[boundary.line]]\n{line}\nline = [[59.5, 0.5], [59.5, 7.5]]");
        let end = sheet.run(&toml, 600.0);
        let ratio: Vec<f64> = (54..60).map(|i| end.discharge[i] / sheet.q).collect();
        println!(
            "{}: hu / q in the last six cells {ratio:.4?}; depth {:.5} m at the line (normal {:.5}); in {:.3} m³, out {:.3} m³",
            line.replace('\n', ", "),
            end.depth[59],
            end.normal,
            end.vin,
            end.vout
        );
        for (k, r) in ratio.iter().enumerate().take(5) {
            assert!(
                (r - 1.0).abs() < 0.02,
                "{line}: cell {} carries {r:.3} of the flow",
                54 + k
            );
        }
        assert!(
            (end.depth[58] - end.normal).abs() < 0.02 * end.normal,
            "{line}: depth {} before the line, normal {}",
            end.depth[58],
            end.normal
        );
    }
}

/// A gentle channel (0.2% slope): normal depth 0.519 m, subcritical (Froude 0.43), so the
/// outlet controls the depth upstream. A normal-depth line on the slope's own friction
/// slope passes uniform flow out at normal depth, which is then the steady state along the
/// whole channel: every cell within 1% of normal depth after 600 s (a wave crosses the
/// channel in about 30 s), and what leaves is what comes in. An open line is no control
/// for subcritical flow, but its cell carries on its inner neighbour's slopes, so uniform
/// flow reaching it goes on as uniform flow; with the line's cell taken for a wall's
/// mirror (first order, flat), the line drew the channel down to 9% below normal depth at
/// the line and 5% halfway up, and passed 0.6% more than came in.
#[test]
fn a_normal_depth_or_open_line_at_a_nodata_edge_holds_uniform_flow() {
    for (law, share) in [
        ("type = \"normal_depth\"\nslope = 0.002", 0.01),
        ("type = \"open\"", 0.001),
    ] {
        let line = format!("[[boundary.line]]\n{law}\nline = [[59.5, 0.5], [59.5, 7.5]]");
        let (profile, vin, vout, normal) = channel(0.002, &line, 600.0);
        let worst = off_normal(&profile, 0, normal);
        println!(
            "{}: depth {:.4} .. {:.4} m against normal {normal:.4} (worst {worst:.2e}); in {vin:.1} m³, out {vout:.1} m³",
            law.lines().next().unwrap(),
            profile[0],
            profile[59]
        );
        assert!(worst < 0.01, "{law}: depth off normal by {worst}");
        assert_passes(vin, vout, share);
    }
}

/// The same gentle channel (4 m³/s over 8 m) ends at a rating line whose curve is a weir's,
/// Q = C L (η − crest)^1.5, its crest 0.3 m above the line's bed. Once steady, each cell of
/// the line passes Q / L per metre, so its level is the curve's at the inflow:
/// crest + (Q / (C L))^(2/3), 0.442 m over the crest, here 0.74 m deep, above normal depth
/// (0.52 m) and critical depth (0.29 m), so the line backs water up the channel. The
/// level on the line within 1% of the depth, mass to 1e-5 with the line's outflow counted.
#[test]
fn a_rating_line_at_a_nodata_edge_holds_the_level_its_curve_gives() {
    let (slope, c, width, q) = (0.002, 1.7, 8.0, 4.0);
    let bed = slope * 1.0; // the line's column, one cell before the nodata
    let crest = bed + 0.3;
    let levels: Vec<f64> = (0..=60).map(|k| crest + 0.025 * k as f64).collect();
    let discharges: Vec<f64> = levels
        .iter()
        .map(|l| c * width * (l - crest).max(0.0).powf(1.5))
        .collect();
    let list = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{x:.6}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let line = format!(
        "[[boundary.line]]\ntype = \"rating\"\nline = [[59.5, 0.5], [59.5, 7.5]]\nrating = {{ level = [{}], discharge = [{}] }}",
        list(&levels),
        list(&discharges)
    );
    let (profile, vin, vout, normal) = channel(slope, &line, 900.0);
    let level = profile[59] + bed;
    let exact = crest + (q / (c * width)).powf(2.0 / 3.0);
    let off = (level - exact).abs() / (exact - bed);
    println!(
        "rating line: level {level:.4} m on the line against the curve's {exact:.4} m ({:.2}% of the depth); depth {:.4} m upstream (normal {normal:.4}); in {vin:.1} m³, out {vout:.1} m³",
        100.0 * off,
        profile[0]
    );
    assert!(off < 0.01, "level {level} m, the curve's {exact} m");
    assert!(
        profile[0] > normal + 0.1,
        "no backwater: {} m upstream",
        profile[0]
    );
}

/// Rain at `RAIN` on a plane 200 m long and 32 m wide (2 m cells, n = 0.05) sloping `slope`
/// along x from `elevation`, with the line `law` (TOML) on the column at `x`, and `edges`
/// (TOML) for the rectangle's segments.
fn rain_plane(elevation: f64, slope: f64, law: &str, x: f64, edges: &str) -> Model {
    common::model(&format!(
        r#"
[domain]
cell_size = 2.0
nx = 100
ny = 16
[terrain]
type = "slope"
elevation = {elevation}
slope_x = {slope}
[friction]
manning = 0.05
[rain]
rate = {RAIN}
[[boundary.line]]
{law}
line = [[{x}, 1.0], [{x}, 31.0]]
{edges}
[time]
end = 1e6
"#
    ))
}

const RAIN: f64 = 50.0; // mm/h

/// The rain plane's fields after `t` seconds and the volumes in and out through its edges
/// and lines; its mass balance, the rain counted, must close to 1e-5.
fn rained(model: &Model, t: f64) -> (quadflood::solver::Fields, f64, f64) {
    let (stored, initial, vin, vout, fields, _) = balance(model, t);
    let rain = RAIN / 3.6e6 * t * 200.0 * 32.0;
    let error = (stored - (initial + rain + vin - vout)).abs() / (initial + rain);
    assert!(error < 1e-5, "mass error {error}");
    (fields, vin, vout)
}

/// Rain on the plane draining to an open or normal-depth line drawn on the rectangle's last
/// column, whose wall edge lies beyond it. The edge's ghosts mirrored the line's cells: the
/// sheet (16 mm, the bed falling 4 cm a cell) saw a dry cell below a step at the line, and
/// the two cells before it carried 55% of the flow passing (hunt 14). Once steady (the
/// kinematic wave's travel time is 1130 s), each cell carries the rain on the plane above
/// its centre.
#[test]
fn the_cells_before_a_line_on_the_rectangle_s_edge_carry_the_flow_that_passes() {
    let rain = RAIN / 3.6e6;
    for law in ["type = \"open\"", "type = \"normal_depth\"\nslope = 0.02"] {
        let model = rain_plane(10.0, -0.02, law, 199.0, "");
        let (fields, _, _) = rained(&model, 1800.0);
        let row = 8 * 100;
        let ratio: Vec<f64> = (94..99)
            .map(|i| fields.hu[row + i] as f64 / (rain * (2.0 * i as f64 + 1.0)))
            .collect();
        println!(
            "{}: hu over the rain above, last cells before the line {ratio:.4?}",
            law.replace('\n', ", ")
        );
        for (k, r) in ratio.iter().enumerate() {
            assert!(
                (r - 1.0).abs() < 0.02,
                "{law}: cell {} carries {r:.3} of the flow",
                94 + k
            );
        }
    }
}

/// Rain on the plane with an open line on its top column, the water running away from it
/// down to a normal-depth edge: the line lets no water in. Its level ran on from its
/// neighbour's surface as far as the ground rises to it, higher than the neighbour, and
/// the line fed the plane (a review).
#[test]
fn an_open_line_the_water_runs_away_from_lets_none_in() {
    let edge = "[[boundary.segment]]\nedge = \"east\"\ntype = \"normal_depth\"\nslope = 0.02";
    let model = rain_plane(10.0, -0.02, "type = \"open\"", 1.0, edge);
    let (_, vin, vout) = rained(&model, 600.0);
    println!("in {vin:e} m³, out {vout:.3} m³");
    assert_eq!(vin, 0.0, "the open line let water in");
}

/// A lake at rest on a bed sloping 1% along x and 2% across, partly dry, with an open line
/// on its west column, at the lake's shallow end or at its deep end. Nothing moves. The
/// line's cells took their inner neighbour's depth, so at the shallow end they stood 2 cm
/// above the lake and poured water in without end (the level at the line 19.1 m after
/// 600 s, 67,821 m³ in), and at the deep end drained the lake (2,279 of 2,282 m³ out), the
/// mass balance closing on the counted flows (a hunt).
#[test]
fn an_open_line_leaves_a_lake_on_a_slope_at_rest() {
    for (elevation, slope, level) in [(11.0, -0.01, 11.5), (9.0, 0.01, 10.5)] {
        let model = common::model(&format!(
            r#"
[domain]
cell_size = 2.0
nx = 100
ny = 16
[terrain]
type = "slope"
elevation = {elevation}
slope_x = {slope}
slope_y = 0.02
[initial]
water_level = {level}
[friction]
manning = 0.03
[[boundary.line]]
type = "open"
line = [[1.0, 1.0], [1.0, 31.0]]
[time]
end = 1e6
"#
        ));
        let (stored, initial, vin, vout, fields, _) = balance(&model, 300.0);
        let speed = (0..fields.depth.len())
            .map(|k| fields.hu[k].abs().max(fields.hv[k].abs()))
            .fold(0.0f32, f32::max);
        println!(
            "bed slope {slope} along x: volume {initial:.3} -> {stored:.3} m³, in {vin:.3e}, out {vout:.3e} m³, largest |hu|, |hv| {speed:.2e} m²/s"
        );
        assert!(speed == 0.0, "the lake moves: {speed} m²/s");
        assert!(
            vin == 0.0 && vout == 0.0,
            "the line passed {vin} in, {vout} out"
        );
        assert_eq!(stored, initial, "the lake's volume changed");
    }
}

/// An outfall line is a free overfall: its cells are held dry, and the water before it
/// falls towards critical depth at the brink. The faces there pass the flow, but the
/// cells' momentum does not carry it (the face to the dry cell is a wet-dry Riemann flux):
/// a section one cell above an outfall read 28-56% of the flow (hunt 14). The run reports
/// the discharge its faces pass.
#[test]
fn the_discharge_reported_before_an_outfall_line_is_what_passes() {
    let channel = Channel {
        slope: 0.02,
        n: 0.05,
        q: 0.02,
    };
    let line = "[[boundary.line]]\ntype = \"outfall\"\nline = [[59.5, 0.5], [59.5, 7.5]]";
    let end = channel.run(line, 600.0);
    let held: Vec<f64> = (54..59).map(|i| end.discharge[i] / channel.q).collect();
    let reported: Vec<f64> = (54..59).map(|i| end.reported[i] / channel.q).collect();
    println!("last five cells before the line, of q: held {held:.4?}, reported {reported:.4?}");
    assert_passes(end.vin, end.vout, 0.01);
    assert!(
        held.iter().any(|r| (r - 1.0).abs() > 0.1),
        "the cells' momentum carries the flow: {held:.3?}"
    );
    for (k, r) in reported.iter().enumerate() {
        assert!(
            (r - 1.0).abs() < 0.01,
            "cell {} reports {r:.4} of the flow",
            54 + k
        );
    }
}
