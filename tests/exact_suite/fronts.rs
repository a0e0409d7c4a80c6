//! Forcing started on a dry bed (`quadflood::exact::fronts`): a 1 m stage and a constant
//! inflow on the west end of a dry channel, walls elsewhere.
//!
//! Targets. What must hold whatever the bed: mass error ≤ 1e-5 with the volume that came
//! in through the edge counted, no depth above what the forcing can create (the stage
//! depth for a stage; for an inflow into a flat frictionless channel the exact depth
//! never exceeds the critical depth hc, and cell averages of it neither, so 2% above hc
//! allows for the truncation error at the edge), and for an inflow the counted inflow
//! equal to the imposed ∫Q dt (to 1e-5). On a flat, frictionless bed the exact solution is
//! the fan from the edge (a stage: from a critical edge section keeping the reservoir's energy;
//! an inflow: critical depth at the edge): the relative L1 errors of depth and discharge
//! fall at order ≥ 0.8 (a front), and so does the error of the front's position (where the
//! depth falls to 1% of the stage depth, or of hc).
//! With Manning friction no closed form exists: the front must trail the frictionless
//! one, and the bounds above hold.

use crate::harness::{errors, front_at, profile, Channel, End, Run, G, ROWS};
use crate::table::{report, Checks, Row};
use quadflood::exact::{CriticalInflow, StageOnDryBed};

const LENGTH: f64 = 40.0;
const T: f64 = 4.0;
const GRIDS: [usize; 3] = [100, 200, 400];

struct Level {
    depth_l1: f64,
    discharge_l1: f64,
    mass: f64,
    max_depth: f64,
    /// Computed minus exact front (m).
    front_lag: f64,
    /// Volume counted in through the edge, per unit width (m²).
    inflow: f64,
    dx: f64,
}

/// A dry channel of `cells` with `west` forcing, run to `t`; `exact` gives (h, q), and
/// `front` is (the depth that marks the front, the exact front at that depth).
fn level(
    cells: usize,
    length: f64,
    west: End,
    manning: f64,
    t: f64,
    exact: &dyn Fn(f64) -> [f64; 2],
    front: (f64, f64),
) -> Level {
    let mut channel = Channel::new(length, cells, west, End::Wall);
    channel.manning = manning;
    let mut run = Run::new(channel.model(&|_| [0.0, 0.0, 0.0]));
    run.advance_to(t);
    let fields = run.fields();
    let (h, q) = profile(&fields, cells);
    let x = channel.centres();
    let e = errors(&x, &h, &q, exact);
    let width = ROWS as f64 * channel.dx();
    Level {
        depth_l1: e.depth_l1,
        discharge_l1: e.discharge_l1,
        mass: run.mass_error(&fields),
        max_depth: fields.depth.iter().fold(0.0f64, |m, &h| m.max(h as f64)),
        front_lag: front_at(&x, &h, front.0) - front.1,
        inflow: run.edge_volumes().0 / width,
        dx: channel.dx(),
    }
}

fn print(case: &str, grids: &[usize], levels: &[Level]) {
    for (n, l) in grids.iter().zip(levels) {
        println!(
            "{case} n = {n}: L1 depth {:.3e}, discharge {:.3e}, max depth {:.4} m, front {:+.3} m, \
             inflow {:.5} m², mass {:.1e}",
            l.depth_l1, l.discharge_l1, l.max_depth, l.front_lag, l.inflow, l.mass
        );
    }
}

fn row(case: &'static str, grids: &[usize], levels: &[Level], notes: String) -> Row {
    Row {
        case,
        grids: grids.to_vec(),
        depth_l1: levels.iter().map(|l| l.depth_l1).collect(),
        discharge_l1: levels.iter().map(|l| l.discharge_l1).collect(),
        mass: levels.iter().map(|l| l.mass).collect(),
        notes,
    }
}

fn front_checks(levels: &[Level], checks: &mut Checks) {
    let depth: Vec<f64> = levels.iter().map(|l| l.depth_l1).collect();
    let discharge: Vec<f64> = levels.iter().map(|l| l.discharge_l1).collect();
    checks.order("depth", &depth, 0.8);
    checks.order("discharge", &discharge, 0.8);
    let lags: Vec<f64> = levels.iter().map(|l| l.front_lag.abs()).collect();
    checks.order("front position", &lags, 0.8);
    let worst_mass = levels.iter().map(|l| l.mass).fold(0.0, f64::max);
    checks.at_most("mass error", worst_mass, 1e-5);
}

#[test]
fn stage_on_a_dry_flat_bed() {
    let case = "stage-dry-flat";
    let stage = StageOnDryBed {
        g: G,
        h0: 1.0,
        x_edge: 0.0,
    };
    let exact = |x: f64| [stage.depth(x, T), stage.depth(x, T) * stage.velocity(x, T)];
    let grids = crate::harness::grids(&GRIDS);
    let levels: Vec<Level> = grids
        .iter()
        .map(|&n| {
            level(
                n,
                LENGTH,
                End::Stage(1.0),
                0.0,
                T,
                &exact,
                (0.01, stage.front_at_depth(0.01, T)),
            )
        })
        .collect();
    print(case, &grids, &levels);
    let mut checks = Checks::default();
    front_checks(&levels, &mut checks);
    let deepest = levels.iter().map(|l| l.max_depth).fold(0.0, f64::max);
    checks.at_most("max depth / stage depth", deepest / stage.h0, 1.0);
    let finest = levels.last().expect("a grid");
    let passed = stage.edge_discharge() * T;
    let notes = format!(
        "front (1 cm deep) {:+.2} m from the exact {:.1} m; deepest {:.3} m (exact 2/3 of the 1 m \
         stage at the edge); counted inflow {:+.1}% of the exact (2/3)^1.5 h0 √(g h0) t (finest grid)",
        finest.front_lag,
        stage.front_at_depth(0.01, T),
        deepest,
        100.0 * (finest.inflow - passed) / passed
    );
    report(row(case, &grids, &levels, notes), checks);
}

#[test]
fn stage_on_a_dry_manning_plain() {
    // Issue 22: a 1 m stage on a dry plain with n = 0.03 reached 121 m of depth.
    let case = "stage-dry-manning";
    let (length, t, grids) = (200.0, 60.0, [100]);
    let stage = StageOnDryBed {
        g: G,
        h0: 1.0,
        x_edge: 0.0,
    };
    let none = |_: f64| [0.0, 0.0];
    let levels: Vec<Level> = grids
        .iter()
        .map(|&n| {
            level(
                n,
                length,
                End::Stage(1.0),
                0.03,
                t,
                &none,
                (0.01, stage.front_at_depth(0.01, t)),
            )
        })
        .collect();
    print(case, &grids, &levels);
    let finest = &levels[0];
    let mut checks = Checks::default();
    checks.at_most("max depth / stage depth", finest.max_depth / stage.h0, 1.0);
    checks.at_most(
        "front beyond the frictionless one (m)",
        finest.front_lag,
        finest.dx,
    );
    checks.at_most(
        "inflow / frictionless inflow",
        finest.inflow / (stage.edge_discharge() * t),
        1.0,
    );
    checks.at_most("mass error", finest.mass, 1e-5);
    let notes = format!(
        "no closed form (n = 0.03, t = {t} s): bounds only; front (1 cm deep) at {:.1} m, the \
         frictionless one at {:.1} m; deepest {:.3} m; inflow {:.2} m² (frictionless {:.2} m²)",
        finest.front_lag + stage.front_at_depth(0.01, t),
        stage.front_at_depth(0.01, t),
        finest.max_depth,
        finest.inflow,
        stage.edge_discharge() * t
    );
    report(row(case, &grids, &levels, notes), checks);
}

#[test]
fn inflow_into_a_dry_flat_channel() {
    let case = "inflow-dry-flat";
    let q = 1.0;
    let inflow = CriticalInflow {
        g: G,
        q,
        x_edge: 0.0,
    };
    let exact = |x: f64| {
        [
            inflow.depth(x, T),
            inflow.depth(x, T) * inflow.velocity(x, T),
        ]
    };
    let hc = quadflood::exact::critical_depth(G, q);
    let grids = crate::harness::grids(&GRIDS);
    let levels: Vec<Level> = grids
        .iter()
        .map(|&n| {
            level(
                n,
                LENGTH,
                End::Inflow(q),
                0.0,
                T,
                &exact,
                (0.01 * hc, inflow.front_at_depth(0.01 * hc, T)),
            )
        })
        .collect();
    print(case, &grids, &levels);
    let mut checks = Checks::default();
    front_checks(&levels, &mut checks);
    let deepest = levels.iter().map(|l| l.max_depth).fold(0.0, f64::max);
    checks.at_most("max depth / critical depth", deepest / hc, 1.02);
    let counted = levels
        .iter()
        .map(|l| (l.inflow - q * T).abs() / (q * T))
        .fold(0.0, f64::max);
    checks.at_most("|counted inflow − ∫q dt| / ∫q dt", counted, 1e-5);
    let finest = levels.last().expect("a grid");
    let notes = format!(
        "front (1% of hc deep) {:+.2} m from the exact {:.1} m; deepest {:.3} m (hc = {hc:.3} m); \
         counted inflow {:+.1e} of q t (finest grid)",
        finest.front_lag,
        inflow.front_at_depth(0.01 * hc, T),
        deepest,
        (finest.inflow - q * T) / (q * T)
    );
    report(row(case, &grids, &levels, notes), checks);
}
