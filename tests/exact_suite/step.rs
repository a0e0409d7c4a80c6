//! Dam break over a 1 m bed step (`quadflood::exact::step`), the dam on the step at
//! x = 20 m of a 40 m flat, frictionless channel with walls at both ends (no wave reaches
//! them by t = 2 s), against the exact solutions of two step relations: energy conserved,
//! and momentum with the riser loaded by the low side's water (what the hydrostatic
//! reconstruction would impose without a layer at the step). docs/validation.md, "Dam
//! break over a step", gives the evidence and the conclusion.
//!
//! What is measured on each grid: the relative L1 depth error against the energy solution
//! (the "exact" one); the states on the plateaus either side of the step (a
//! metre clear of the step and of the waves); the riser force those states imply,
//! F = |Δ(q u + g h²/2)|, written as the depth h_F whose hydrostatic pressure on the 1 m
//! riser gives it, F = g Δz (h_F − Δz/2), beside the depth of the low-side cell next to
//! the step.
//!
//! Targets (the behaviour docs/validation.md documents): the scheme converges, at order
//! ≥ 0.8 in the L1 norm of the difference between successive grids (its limit has a
//! shock, and no closed form); the step states move by ≤ 0.2% between the two finest
//! grids; the discharge over the step is within 8% of each closed-form relation's.
//! Mass error ≤ 1e-5 (a closed channel).

use crate::harness::{errors, profile, Channel, End, Run, G};
use crate::table::{report, Checks, Row};
use quadflood::exact::{StepDamBreak, StepRelation};

const LENGTH: f64 = 40.0;
const STEP: f64 = 20.0;
const T: f64 = 2.0;
const GRIDS: [usize; 3] = [100, 200, 400];
/// Plateau cells keep this far from the step and from the waves (m).
const MARGIN: f64 = 1.0;

struct Level {
    h: Vec<f64>,
    /// Relative L1 errors against the energy solution.
    depth_l1: f64,
    discharge_l1: f64,
    /// Mean (h1, h2, q) over the plateaus either side of the step.
    plateau: [f64; 3],
    /// Depth of the low-side cell beside the step.
    beside: f64,
    mass: f64,
}

fn solution(left: (f64, f64), right: (f64, f64), relation: StepRelation) -> StepDamBreak {
    StepDamBreak::new(G, STEP, left, right, relation).expect("a step dam break")
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0), |(s, n), v| (s + v, n + 1));
    assert!(n > 0, "an empty plateau");
    sum / n as f64
}

fn level(energy: &StepDamBreak, cells: usize) -> Level {
    let channel = Channel::new(LENGTH, cells, End::Wall, End::Wall);
    let start = |x: f64| [energy.bed(x), energy.depth(x, 0.0), 0.0];
    let mut run = Run::new(channel.model(&start));
    run.advance_to(T);
    let fields = run.fields();
    let (h, q) = profile(&fields, cells);
    let x = channel.centres();
    let exact = |x: f64| {
        [
            energy.depth(x, T),
            energy.depth(x, T) * energy.velocity(x, T),
        ]
    };
    let e = errors(&x, &h, &q, &exact);
    // Plateau bounds from the energy solution's waves, which the computed ones follow
    // within a few percent; the margin keeps clear of both.
    let [(h1, u1), _] = energy.step_states();
    let left_end = STEP + (u1 - (G * h1).sqrt()) * T + MARGIN;
    let right_end = STEP + energy.shock_speed() * T - MARGIN;
    let on = |lo: f64, hi: f64| -> Vec<usize> {
        (0..cells).filter(|&i| x[i] > lo && x[i] < hi).collect()
    };
    let left = on(left_end, STEP - MARGIN);
    let right = on(STEP + MARGIN, right_end);
    let step_cell = cells / 2; // the first cell of the right bed
    let low_side = if energy.z_left < energy.z_right {
        step_cell - 1
    } else {
        step_cell
    };
    Level {
        depth_l1: e.depth_l1,
        discharge_l1: e.discharge_l1,
        plateau: [
            mean(left.iter().map(|&i| h[i])),
            mean(right.iter().map(|&i| h[i])),
            mean(left.iter().chain(&right).map(|&i| q[i])),
        ],
        beside: h[low_side],
        mass: run.mass_error(&fields),
        h,
    }
}

/// Relative L1 difference between a grid and the next finer one, the fine cells
/// averaged in pairs onto the coarse ones.
fn self_difference(coarse: &[f64], fine: &[f64]) -> f64 {
    let diff: f64 = coarse
        .iter()
        .enumerate()
        .map(|(i, c)| (c - 0.5 * (fine[2 * i] + fine[2 * i + 1])).abs())
        .sum();
    diff / coarse.iter().sum::<f64>()
}

/// Relative differences of measured (h1, h2, q) from a solution's.
fn gaps(plateau: &[f64; 3], s: &StepDamBreak) -> [f64; 3] {
    let [(h1, u1), (h2, _)] = s.step_states();
    let want = [h1, h2, h1 * u1];
    [0, 1, 2].map(|k| (plateau[k] - want[k]) / want[k])
}

/// The depth whose hydrostatic pressure on the riser gives the force the plateau
/// states imply.
fn riser_depth(s: &StepDamBreak, plateau: &[f64; 3]) -> f64 {
    let [h1, h2, q] = *plateau;
    let momentum = |h: f64| q * q / h + 0.5 * G * h * h;
    let rise = (s.z_right - s.z_left).abs();
    let force = (momentum(h1) - momentum(h2)).abs();
    force / (G * rise) + 0.5 * rise
}

fn percent(v: [f64; 3]) -> String {
    format!(
        "h1 {:+.1}%, h2 {:+.1}%, q {:+.1}%",
        100.0 * v[0],
        100.0 * v[1],
        100.0 * v[2]
    )
}

fn step_case(case: &'static str, left: (f64, f64), right: (f64, f64)) {
    let energy = solution(left, right, StepRelation::Energy);
    let momentum = solution(left, right, StepRelation::LowSideMomentum);
    let grids = crate::harness::grids(&GRIDS);
    let levels: Vec<Level> = grids.iter().map(|&n| level(&energy, n)).collect();
    for (n, l) in grids.iter().zip(&levels) {
        println!(
            "{case} n = {n}: step states ({:.4}, {:.4}, q {:.4}); against energy {}, against \
             low-side momentum {}; riser force as a depth {:.4} m, low-side cell beside the step {:.4} m",
            l.plateau[0],
            l.plateau[1],
            l.plateau[2],
            percent(gaps(&l.plateau, &energy)),
            percent(gaps(&l.plateau, &momentum)),
            riser_depth(&energy, &l.plateau),
            l.beside
        );
    }
    let differences: Vec<f64> = levels
        .windows(2)
        .map(|w| self_difference(&w[0].h, &w[1].h))
        .collect();
    let [.., before, finest] = &levels[..] else {
        unreachable!("three grids")
    };
    let moved = (0..3)
        .map(|k| ((finest.plateau[k] - before.plateau[k]) / finest.plateau[k]).abs())
        .fold(0.0, f64::max);
    let mut checks = Checks::default();
    checks.order("self-convergence", &differences, 0.8);
    checks.at_most("step states moved (two finest grids)", moved, 2e-3);
    checks.at_most(
        "|q − q_energy| / q_energy",
        gaps(&finest.plateau, &energy)[2].abs(),
        0.08,
    );
    checks.at_most(
        "|q − q_momentum| / q_momentum",
        gaps(&finest.plateau, &momentum)[2].abs(),
        0.08,
    );
    let worst_mass = levels.iter().map(|l| l.mass).fold(0.0, f64::max);
    checks.at_most("mass error", worst_mass, 1e-5);
    let row = Row {
        case,
        grids,
        depth_l1: levels.iter().map(|l| l.depth_l1).collect(),
        discharge_l1: levels.iter().map(|l| l.discharge_l1).collect(),
        mass: levels.iter().map(|l| l.mass).collect(),
        notes: format!(
            "errors against the energy solution; step states against it {}, against low-side \
             momentum {}; moved {:.2}% between the finest grids, self-convergence order {:.2}",
            percent(gaps(&finest.plateau, &energy)),
            percent(gaps(&finest.plateau, &momentum)),
            100.0 * moved,
            crate::harness::orders(&differences)[0],
        ),
    };
    report(row, checks);
}

#[test]
fn dam_break_up_a_step() {
    // 3 m of water on the low side; the high side 1 m up, under 0.5 m.
    step_case("step-up", (0.0, 3.0), (1.0, 0.5));
}

#[test]
fn dam_break_down_a_step() {
    // 2 m of water on the high side; the low side 1 m down, under 2 m.
    step_case("step-down", (1.0, 2.0), (0.0, 2.0));
}
