//! Ritter's dam break on a thin layer, refined 100 → 400 cells (→ 800 with
//! `QUADFLOOD_EXACT_FINE=1`) (`quadflood::exact::Ritter`): 5 mm of still water
//! behind a dam at x = 5 m of a 10 m flat, frictionless channel, dry ahead of it, walls at
//! both ends (no wave reaches them by t = 6 s).
//!
//! Targets. The depth is continuous but has kinks at the head of the fan and at the dry
//! front, so a second-order scheme converges at order 1 or better there: the relative L1
//! errors of depth and discharge must fall at order ≥ 0.8, and so must the error of the
//! front's position (where the depth falls to 1% of h0; the exact fan holds that depth
//! 3 √(g h0/100) t behind its tip). Mass error ≤ 1e-5 (a closed channel). Issue 22 found the L1 error falling
//! by under 10% per halving and the front lagging: the dry threshold (1e-4 m, 2% of h0)
//! takes the velocity out of the fan's last fifth, where h = (2c0 − x/t)²/(9g) < 1e-4 m.

use crate::harness::{errors, front_at, profile, Channel, End, Run, G};
use crate::table::{report, Checks, Row};
use quadflood::exact::Ritter;

const LENGTH: f64 = 10.0;
const DAM: f64 = 5.0;
const H0: f64 = 0.005;
const T: f64 = 6.0;
const GRIDS: [usize; 3] = [100, 200, 400];

struct Level {
    depth_l1: f64,
    discharge_l1: f64,
    mass: f64,
    /// Computed minus exact front position (m).
    front_lag: f64,
    dx: f64,
}

/// The depth that marks the front: 1% of the water behind the dam.
const FRONT_DEPTH: f64 = 0.01 * H0;

fn level(ritter: &Ritter, cells: usize) -> Level {
    let channel = Channel::new(LENGTH, cells, End::Wall, End::Wall);
    let start = |x: f64| [0.0, ritter.depth(x, 0.0), 0.0];
    let mut run = Run::new(channel.model(&start));
    run.advance_to(T);
    let fields = run.fields();
    let (h, q) = profile(&fields, cells);
    let x = channel.centres();
    let exact = |x: f64| {
        let h = ritter.depth(x, T);
        [h, h * ritter.velocity(x, T)]
    };
    let e = errors(&x, &h, &q, &exact);
    let exact_front = ritter.front_at_depth(FRONT_DEPTH, T);
    Level {
        depth_l1: e.depth_l1,
        discharge_l1: e.discharge_l1,
        mass: run.mass_error(&fields),
        front_lag: front_at(&x, &h, FRONT_DEPTH) - exact_front,
        dx: channel.dx(),
    }
}

#[test]
fn ritter_on_a_thin_layer() {
    let case = "ritter-thin";
    let ritter = Ritter {
        g: G,
        h_left: H0,
        x_dam: DAM,
    };
    let grids = crate::harness::grids(&GRIDS);
    let levels: Vec<Level> = grids.iter().map(|&n| level(&ritter, n)).collect();
    for (n, l) in grids.iter().zip(&levels) {
        println!(
            "{case} n = {n}: L1 depth {:.3e}, discharge {:.3e}, front {:+.3} m, mass {:.1e}",
            l.depth_l1, l.discharge_l1, l.front_lag, l.mass
        );
    }
    let depth: Vec<f64> = levels.iter().map(|l| l.depth_l1).collect();
    let discharge: Vec<f64> = levels.iter().map(|l| l.discharge_l1).collect();
    let finest = levels.last().expect("a grid");
    let mut checks = Checks::default();
    checks.order("depth", &depth, 0.8);
    checks.order("discharge", &discharge, 0.8);
    let lags: Vec<f64> = levels.iter().map(|l| l.front_lag.abs()).collect();
    checks.order("front position", &lags, 0.8);
    let worst_mass = levels.iter().map(|l| l.mass).fold(0.0, f64::max);
    checks.at_most("mass error", worst_mass, 1e-5);
    let row = Row {
        case,
        grids,
        depth_l1: depth,
        discharge_l1: discharge,
        mass: levels.iter().map(|l| l.mass).collect(),
        notes: format!(
            "front (1% of h0) {:+.3} m ({:+.1} cells) from the exact one at {:.2} m, finest grid",
            finest.front_lag,
            finest.front_lag / finest.dx,
            ritter.front_at_depth(FRONT_DEPTH, T),
        ),
    };
    report(row, checks);
}

/// The speed a run reports at a dry front is the water's. Beside a dry cell the faces tell
/// the discharge only where the water passes through (shaders/discharge.wgsl,
/// `passes_through`); in a front's cell, filling from one side, the mean of its faces
/// over a film just wetted would be the speed of the step's fastest wave. No reported
/// speed may pass the fan's tip, 2 √(g h0), by more than the scheme's own cells do.
#[test]
fn the_speed_reported_at_a_dry_front_is_the_water_s() {
    let ritter = Ritter {
        g: G,
        h_left: 1.0,
        x_dam: DAM,
    };
    let cells = 200;
    let channel = Channel::new(LENGTH, cells, End::Wall, End::Wall);
    let mut run = Run::new(channel.model(&|x| [0.0, ritter.depth(x, 0.0), 0.0]));
    let tip = 2.0 * (G * ritter.h_left).sqrt();
    for t in [0.1, 0.2, 0.4] {
        run.advance_to(t);
        let fastest = |fields: &quadflood::solver::Fields| {
            let (h, q) = profile(fields, cells);
            h.iter()
                .zip(&q)
                .filter(|(&h, _)| h > 0.0)
                .map(|(h, q)| (q / h).abs())
                .fold(0.0, f64::max)
        };
        let (held_fields, reported_fields) = (run.sim.read_fields(), run.fields());
        let (q_held, q_reported) = (
            profile(&held_fields, cells).1,
            profile(&reported_fields, cells).1,
        );
        let faces_told = (0..cells).filter(|&i| q_held[i] != q_reported[i]).count();
        assert!(
            faces_told >= 5,
            "t = {t} s: the faces told {faces_told} cells' discharge"
        );
        let (held, reported) = (fastest(&held_fields), fastest(&reported_fields));
        println!("t = {t} s: fastest {reported:.3} m/s reported, {held:.3} held, tip {tip:.3}");
        assert!(
            reported <= held.max(tip) * 1.001,
            "t = {t} s: a reported speed of {reported:.3} m/s (cells {held:.3}, tip {tip:.3})"
        );
    }
}
