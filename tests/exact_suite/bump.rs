//! Steady, frictionless flow over the classic bump (`quadflood::exact::bump`): a 25 m
//! channel, z = 0.2 − 0.05 (x − 10)² for 8 < x < 12, inflow upstream, each run started
//! from the exact state.
//!
//! Targets. Subcritical and transcritical flows are smooth: the relative L1 errors of
//! depth and discharge fall at order ≥ 1.8; the steady error of a second-order scheme
//! scales with (Δx/σ)², σ = 2 m the bump's half-width, times the relative variation of
//! the depth over the bump (≤ 0.5): at Δx = 0.25 m that is 8e-3, so the finest relative
//! L1 errors stay under 2e-3 and no cell is off by more than 1%. With a shock: order
//! ≥ 0.8, and the jump smeared over two cells bounds the finest L1 depth error by
//! 2 Δx |[h]| / ∫h; the discharge, uniform in the exact flow, is nowhere off by more than
//! 5%. Mass error ≤ 1e-5 with the volumes through both ends counted.

use crate::harness::{profile, Channel, End, Run, G};
use crate::macdonald::{mass_checks, smooth_checks};
use crate::steady::{row, Level, Steady};
use crate::table::{report, Checks};
use quadflood::exact::bump::Regime;
use quadflood::exact::{Bump, BumpFlow};
use quadflood::solver::Fields;

const LENGTH: f64 = 25.0;
const GRIDS: [usize; 3] = [25, 50, 100];

fn levels(case: &'static str, flow: &BumpFlow, east: End, t_end: f64) -> Vec<Level> {
    let exact = |x: f64| [Bump::CLASSIC.bed(x), flow.depth(x), flow.q];
    Steady {
        case,
        channel: Channel::new(LENGTH, 0, End::Inflow(flow.q), east),
        exact: &exact,
        t_end,
    }
    .levels(&crate::harness::grids(&GRIDS))
}

#[test]
fn subcritical() {
    let case = "bump-subcritical";
    let flow = BumpFlow::new(G, 4.42, Bump::CLASSIC, Regime::Subcritical { h_out: 2.0 })
        .expect("a subcritical flow");
    let levels = levels(case, &flow, End::Stage(2.0), 40.0);
    let mut checks = Checks::default();
    smooth_checks(&levels, &mut checks);
    report(row(case, &levels, ""), checks);
}

#[test]
#[ignore = "issue 22 open: depth order 1.61 < 1.8 and one cell 3.3 cm off (> 1 cm) at the critical section, where the depth moves by the square root of the residual (docs/validation.md)"]
fn transcritical() {
    let case = "bump-transcritical";
    let flow =
        BumpFlow::new(G, 1.53, Bump::CLASSIC, Regime::Transcritical).expect("a transcritical flow");
    let levels = levels(case, &flow, End::Open, 25.0);
    let mut checks = Checks::default();
    smooth_checks(&levels, &mut checks);
    report(row(case, &levels, ""), checks);
}

/// Run to 300 s: the jump settles slowly. At 100 s the discharge was still 2.7e-4 of q off on 100 cells and
/// the depth order 0.79; at 300 s the discharge is exact to round-off (1.4e-6).
#[test]
fn transcritical_with_a_shock() {
    let case = "bump-shock";
    let flow = BumpFlow::new(G, 0.18, Bump::CLASSIC, Regime::Shock { h_out: 0.33 })
        .expect("a flow with a jump");
    let levels = levels(case, &flow, End::Stage(0.33), 300.0);
    let mut checks = Checks::default();
    let depth: Vec<f64> = levels.iter().map(|l| l.all.depth_l1).collect();
    checks.order("depth", &depth, 0.8);
    let finest = levels.last().expect("a grid");
    let xs = flow.shock_position().expect("a jump");
    let jump = flow.depth(xs + 1e-9) - flow.depth(xs - 1e-9);
    let volume: f64 = finest.x.iter().map(|&x| flow.depth(x)).sum::<f64>() * finest.dx;
    checks.at_most(
        "L1 depth",
        finest.all.depth_l1,
        2.0 * finest.dx * jump / volume,
    );
    let spike = finest.all.discharge_max / flow.q;
    checks.at_most("max discharge error / q", spike, 0.05);
    mass_checks(&levels, &mut checks);
    let worst = (0..finest.cells)
        .max_by(|&a, &b| {
            (finest.q[a] - flow.q)
                .abs()
                .total_cmp(&(finest.q[b] - flow.q).abs())
        })
        .expect("a cell");
    let extra = format!(
        "discharge spike {:+.0}% at x = {:.2} m (jump at {xs:.2} m)",
        100.0 * (finest.q[worst] - flow.q) / flow.q,
        finest.x[worst]
    );
    report(row(case, &levels, &extra), checks);
}

/// What a run reports at a steady hydraulic jump is the flow's discharge. The cell inside
/// the captured jump holds a state between the two sides' that no steady flow has: an
/// HLL-type flux gives it the momentum q + s (h − h_side), s a wave speed, while both its
/// faces pass q. Issue 22 found that momentum reported as the discharge, 30% above q at
/// the jump; the run now reports the discharge its faces pass (shaders/discharge.wgsl).
#[test]
fn the_discharge_reported_at_a_jump_is_the_flow_s() {
    let flow = BumpFlow::new(G, 0.18, Bump::CLASSIC, Regime::Shock { h_out: 0.33 })
        .expect("a flow with a jump");
    let cells = 100;
    let channel = Channel::new(LENGTH, cells, End::Inflow(flow.q), End::Stage(0.33));
    let exact = |x: f64| [Bump::CLASSIC.bed(x), flow.depth(x), flow.q];
    let mut run = Run::new(channel.model(&exact));
    run.advance_to(100.0);
    let spike = |fields: &Fields| {
        let (_, q) = profile(fields, cells);
        q.iter()
            .map(|&q| (q - flow.q).abs() / flow.q)
            .fold(0.0, f64::max)
    };
    let held = spike(&run.sim.read_fields());
    let reported = spike(&run.fields());
    println!("largest discharge error: {reported:.2e} reported, {held:.2e} held as momentum");
    assert!(
        held > 0.1,
        "the jump's cell holds {held:.3} more than q: no jump captured?"
    );
    // Not zero: at 100 s the flow still settles by a few parts in 1e4.
    assert!(
        reported < 1e-2,
        "reported discharge off by {reported:.2e} of q"
    );
}

/// Once a flow is steady its storage no longer changes, so the volumes counted in through
/// the inflow and out through the stage edge must grow alike. A run's relative mass error
/// tends to (in − out − storage change) / (volume passed) as it goes on, so for a steady
/// run to keep within 1e-5 at any length that ratio must stay under 1e-5. A slow, deep
/// flow over the bump (q = 0.2 m²/s under an 8 m stage, Froude 0.003), measured from
/// 60 s, when most cells have settled to the bit, to 200 s. Issue 22 found outflow
/// exceeding inflow by about 1e-4 of the discharge over the bump, the mass error growing
/// with time.
#[test]
fn steady_through_flow_keeps_the_balance() {
    let h_out = 8.0;
    let flow = BumpFlow::new(G, 0.2, Bump::CLASSIC, Regime::Subcritical { h_out })
        .expect("a subcritical flow");
    let cells = 50;
    let channel = Channel::new(LENGTH, cells, End::Inflow(flow.q), End::Stage(h_out));
    let exact = |x: f64| [Bump::CLASSIC.bed(x), flow.depth(x), flow.q];
    let mut run = Run::new(channel.model(&exact));
    let settled = 60.0;
    run.advance_to(settled);
    let start = run.fields();
    let (s0, (in0, out0)) = (run.model.volume(&start.depth), run.edge_volumes());
    let end_time = 200.0;
    run.advance_to(end_time);
    let end = run.fields();
    let (s1, (in1, out1)) = (run.model.volume(&end.depth), run.edge_volumes());
    let passed = in1 - in0;
    let imbalance = ((in1 - in0) - (out1 - out0) - (s1 - s0)) / passed;
    // Cells whose depth did not change by a single bit: where the state has frozen, each
    // step's flux divergence is below half an f32 step of h, and is dropped.
    let frozen = start
        .depth
        .iter()
        .zip(&end.depth)
        .filter(|(a, b)| a.to_bits() == b.to_bits())
        .count() as f64
        / start.depth.len() as f64;
    let width = channel.dx() * crate::harness::ROWS as f64;
    println!(
        "steady through-flow, {settled}-{end_time} s: in {:.6} m³, out {:.6} m³, storage change \
         {:.3e} m³; imbalance {imbalance:.2e} of the volume passed; inflow counted / imposed \
         {:.8}; {:.0}% of the cells unchanged to the bit; mass error of the whole run {:.2e}",
        in1 - in0,
        out1 - out0,
        s1 - s0,
        passed / (flow.q * width * (end_time - settled)),
        100.0 * frozen,
        run.mass_error(&end)
    );
    assert!(
        imbalance.abs() <= 1e-5,
        "counted in − out − storage change is {imbalance:.2e} of the volume passed"
    );
}
