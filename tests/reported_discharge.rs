//! The discharge a run reports (maps, gauges, sections) is what the cells' faces pass
//! (shaders/discharge.wgsl): in steady flow, exactly the flow, where the momentum a cell
//! holds can be far from it (a captured jump's cell, a cell at an outfall). These cases
//! are steady: in 2D, where water also crosses the cells sideways, and at outflow edges;
//! the 1D cases of a jump over the bump and of an outfall line are in `exact_suite` and
//! `level_lines`.

mod common;

use quadflood::solver::{Fields, Simulation};

/// Runs `toml` until what leaves through the edges over 10 s is `out` m³/s to 1e-4, and
/// returns the cells' state and the fields the run reports.
fn steady(toml: &str, out: f64) -> (Fields, Fields) {
    let mut sim = Simulation::new(common::gpu(), &common::model(toml)).unwrap();
    let (mut t, mut rate) = (0.0, 0.0);
    while (rate / out - 1.0f64).abs() > 1e-4 {
        t += 500.0;
        assert!(
            t <= 20000.0,
            "not steady by {t} s (out {rate} of {out} m³/s)"
        );
        sim.advance_to(t - 10.0, &mut |_| {}).unwrap();
        let before = sim.edge_volumes().1;
        sim.advance_to(t, &mut |_| {}).unwrap();
        rate = (sim.edge_volumes().1 - before) / 10.0;
    }
    (sim.read_fields(), sim.read_reported_fields())
}

/// A hydraulic jump where a steep reach (6%) meets a mild one, four cells across: the jump
/// stands a little skewed across the channel, so its cells also pass water sideways. The
/// discharge through every column is the inflow, 2 m³/s. The cells' momentum carries a
/// column 26% off it (hunt 16: sections +14 to +18%, single cells +44%), and a first rule
/// for the faces, which took each direction's imbalance apart, counted the sideways water
/// as filling and fell back to the momentum there (18% off).
#[test]
fn every_column_of_a_jump_across_a_channel_reports_the_flow() {
    let toml = r#"
[domain]
cell_size = 1.0
nx = 160
ny = 4

[terrain]
type = "expression"
expression = "0.06*max(0, 80 - x) - 0.0005*x"

[friction]
manning = 0.015

[boundary]
default = "wall"

[[boundary.segment]]
edge = "west"
type = "inflow"
discharge = 2.0

[[boundary.segment]]
edge = "east"
type = "stage"
level = 0.6

[time]
end = 1e6
"#;
    let (held, reported) = steady(toml, 2.0);
    let column = |f: &Fields, i: usize| (0..4).map(|j| f.hu[j * 160 + i] as f64).sum::<f64>();
    let worst = |f: &Fields| {
        (0..160)
            .map(|i| (column(f, i) / 2.0 - 1.0).abs())
            .fold(0.0, f64::max)
    };
    let (held, reported) = (worst(&held), worst(&reported));
    println!("largest column error, of the flow: held {held:.4}, reported {reported:.2e}");
    assert!(
        held > 0.05,
        "no jump's cells held momentum off the flow ({held:.4})"
    );
    assert!(
        reported < 1e-3,
        "a column reports {reported:.2e} off the flow"
    );
}

/// Rain on a plane draining to a normal-depth edge, walls at the top and along the sides:
/// once steady every cell passes the rain above it, q = i x at its centre, up to the wall
/// at the divide. There the cells fill with rain as much as their faces pass on (the wall
/// cell's faces pass nothing in and i dx out): with the rain counted as filling, the first
/// five cells fell back to their momentum, the wall cell's 10% of the flow and the next
/// +18% (hunt 16).
#[test]
fn rain_on_a_plane_reports_the_flow_up_to_the_divide() {
    let toml = r#"
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

[boundary]
default = "wall"

[[boundary.segment]]
edge = "east"
type = "normal_depth"
slope = 0.05

[rain]
rate = 100.0

[time]
end = 1e6
"#;
    let rain = 100.0 / 3.6e6;
    let (held, reported) = steady(toml, rain * 200.0 * 32.0);
    let row = 8 * 100;
    let off = |f: &Fields, i: usize| f.hu[row + i] as f64 / (rain * (2.0 * i as f64 + 1.0)) - 1.0;
    let worst = |f: &Fields| (0..100).map(|i| off(f, i).abs()).fold(0.0, f64::max);
    println!(
        "wall cell, of the flow: held {:+.4}, reported {:+.2e}; largest error reported {:.2e}",
        off(&held, 0),
        off(&reported, 0),
        worst(&reported)
    );
    assert!(
        off(&held, 0).abs() > 0.05,
        "the wall cell's momentum carries the flow"
    );
    assert!(
        worst(&reported) < 1e-3,
        "a cell reports {:.2e} off the flow",
        worst(&reported)
    );
}

/// What the run reports in the cell at an outflow edge is the discharge passing (hunt 15,
/// finding 3). A normal-depth edge on a flat channel holds the flow to critical: a free
/// overfall whose drawdown the grid does not resolve, and the edge cell's momentum carried
/// 45% of the flow. Steep ground meeting a mild outlet slope stands as a jump in the edge
/// cell, whose momentum carried 6.5 times the rain passing. The faces pass the flow, and the
/// run reports theirs (shaders/discharge.wgsl).
#[test]
fn the_discharge_reported_at_an_outflow_edge_is_what_passes() {
    let channel = |terrain: &str, forcing: &str| {
        format!(
            "[domain]\ncell_size = 2.0\nnx = 100\nny = 16\n\n[terrain]\n{terrain}\n\n\
             [friction]\nmanning = 0.02\n\n[boundary]\ndefault = \"wall\"\n\n{forcing}\n\n\
             [time]\nend = 1e6\n"
        )
    };
    let overfall = channel(
        "type = \"flat\"\nelevation = 5.0",
        "[[boundary.segment]]\nedge = \"west\"\ntype = \"inflow\"\ndischarge = 0.5\n\n\
         [[boundary.segment]]\nedge = \"east\"\ntype = \"normal_depth\"\nslope = 0.5",
    );
    let jump = channel(
        "type = \"slope\"\nelevation = 10.0\nslope_x = -0.05",
        "[[boundary.segment]]\nedge = \"east\"\ntype = \"normal_depth\"\nslope = 0.001\n\n\
         [rain]\nrate = 100.0",
    );
    let rain = 100.0 / 3.6e6;
    // Once steady, what leaves: the inflow, or the rain on the plane (as the edge cell's
    // centre, 199 m from the top, passes it, the rain on its last metre still to come).
    let cases = [
        ("overfall", overfall, 0.5 / 32.0, 0.5 / 32.0),
        ("jump", jump, rain * 200.0, rain * 199.0),
    ];
    for (name, toml, out, q) in cases {
        let (held, reported) = steady(&toml, out * 32.0);
        let edge_cell = 8 * 100 + 99;
        let held = held.hu[edge_cell] as f64 / q;
        let reported = reported.hu[edge_cell] as f64 / q;
        println!("{name}: the edge cell's discharge, of q: held {held:.4}, reported {reported:.4}");
        assert!(
            (held - 1.0).abs() > 0.3,
            "{name}: the cell's momentum carries {held:.3} of q"
        );
        assert!(
            (reported - 1.0).abs() < 0.01,
            "{name}: reported {reported:.4} of q"
        );
    }
}
