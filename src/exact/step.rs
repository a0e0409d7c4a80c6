//! Dam break over a bed step: the Riemann problem of the shallow-water
//! equations with a bed that jumps from `z_left` to `z_right` at `x_step`,
//! where the dam stands. Water at rest on both sides, the left surface higher,
//! both sides wet.
//!
//! The solution is a left-going rarefaction from the left state to (h1, u1),
//! the step, standing still, between (h1, u1) on the left bed and (h2, u2) on
//! the right, and a right-going shock into the right state. Mass gives
//! h1 u1 = h2 u2 = q at the step. The second step relation is not fixed by the
//! equations in conservation form (the product h ∂x z has no meaning at a
//! jump of z), and two are in use:
//!
//! * [`StepRelation::Energy`]: the head h + u²/(2g) + z is the same on both
//!   sides (Alcrudo & Benkhaldoun 2001; Bernetti, Titarev & Toro 2008 give
//!   the momentum form; Rosatti & Begnudelli 2010 compare them). It is the
//!   limit of a smooth, ever steeper bed.
//! * [`StepRelation::LowSideMomentum`]: momentum is conserved with the riser
//!   loaded by the hydrostatic pressure of the water on its lower side,
//!   `q u1 + g/2 hs1² = q u2 + g/2 hs2²` with
//!   `hs = max(0, h + z − max(z_left, z_right))`, each side's depth above the
//!   top of the step: the classical hydraulic relation for a drop (the riser
//!   faces the pool below it). It is also what the hydrostatic reconstruction
//!   of Audusse et al. (2004) would impose if the cells beside the step held
//!   the plateau states: its step face sees the depths hs, and the momentum
//!   updates of the two cells sum to q (u2 − u1) + g/2 (hs2² − hs1²). They do
//!   not: docs/validation.md ("Dam break over a step") shows the one-cell
//!   layer the scheme forms on each side and the relation it converges to.
//!
//! For each relation the left state (h1, u1) is found by bisection on the
//! mismatch between the velocity the step relation gives on the right and the
//! velocity the right-going shock needs.

use super::{bisect, critical_depth, specific_energy, subcritical_depth, NoSolution};

/// The relation joining the two states at the step; see the module
/// documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepRelation {
    Energy,
    LowSideMomentum,
}

/// A dam break at a bed step. Build it with [`StepDamBreak::new`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepDamBreak {
    pub g: f64,
    pub x_step: f64,
    pub z_left: f64,
    pub z_right: f64,
    pub h_left: f64,
    pub h_right: f64,
    pub relation: StepRelation,
    h1: f64,
    u1: f64,
    h2: f64,
    u2: f64,
}

/// Velocity change across a wave of the family facing the state (h_k, 0):
/// a rarefaction 2 (c − c_k) for h ≤ h_k, a shock (h − h_k) √(g/2 (1/h + 1/h_k))
/// beyond (Toro's f_K). The left state then has u1 = −f(h1), the right u2 = f(h2).
fn wave_jump(g: f64, h: f64, h_k: f64) -> f64 {
    if h <= h_k {
        2.0 * ((g * h).sqrt() - (g * h_k).sqrt())
    } else {
        (h - h_k) * (0.5 * g * (1.0 / h + 1.0 / h_k)).sqrt()
    }
}

/// Scan steps from the left depth towards dry, to bracket the left state.
const SCAN: usize = 4000;

impl StepDamBreak {
    pub fn new(
        g: f64,
        x_step: f64,
        (z_left, h_left): (f64, f64),
        (z_right, h_right): (f64, f64),
        relation: StepRelation,
    ) -> Result<StepDamBreak, NoSolution> {
        if h_right <= 0.0 || h_left + z_left <= h_right + z_right {
            return Err(NoSolution(
                "needs a wet right side and a higher surface on the left".into(),
            ));
        }
        let mut s = StepDamBreak {
            g,
            x_step,
            z_left,
            z_right,
            h_left,
            h_right,
            relation,
            h1: h_left,
            u1: 0.0,
            h2: 0.0,
            u2: 0.0,
        };
        let h1 = s.solve_left_depth()?;
        let u1 = -wave_jump(g, h1, h_left);
        let h2 = s
            .right_depth(h1, u1)
            .ok_or_else(|| NoSolution("the step relation has no root".into()))?;
        (s.h1, s.u1, s.h2, s.u2) = (h1, u1, h2, h1 * u1 / h2);
        Ok(s)
    }

    /// (h1, u1) and (h2, u2), the states either side of the step.
    pub fn step_states(&self) -> [(f64, f64); 2] {
        [(self.h1, self.u1), (self.h2, self.u2)]
    }

    /// Speed of the right-going shock.
    pub fn shock_speed(&self) -> f64 {
        self.h2 * self.u2 / (self.h2 - self.h_right)
    }

    pub fn bed(&self, x: f64) -> f64 {
        if x < self.x_step {
            self.z_left
        } else {
            self.z_right
        }
    }

    pub fn depth(&self, x: f64, t: f64) -> f64 {
        self.state(x, t).0
    }

    pub fn velocity(&self, x: f64, t: f64) -> f64 {
        self.state(x, t).1
    }

    fn state(&self, x: f64, t: f64) -> (f64, f64) {
        let right = x >= self.x_step;
        if t <= 0.0 {
            return (if right { self.h_right } else { self.h_left }, 0.0);
        }
        let xi = (x - self.x_step) / t;
        if right {
            return if xi < self.shock_speed() {
                (self.h2, self.u2)
            } else {
                (self.h_right, 0.0)
            };
        }
        let c_left = (self.g * self.h_left).sqrt();
        let c1 = (self.g * self.h1).sqrt();
        if xi <= -c_left {
            (self.h_left, 0.0)
        } else if xi < self.u1 - c1 {
            // The fan keeps u + 2c = 2 c_left, with x/t = u − c.
            let c = (2.0 * c_left - xi) / 3.0;
            (c * c / self.g, 2.0 * (c_left + xi) / 3.0)
        } else {
            (self.h1, self.u1)
        }
    }

    /// The depth h2 on the right of the step that the relation pairs with
    /// (h1, u1), on the branch that holds the lake at rest when q = 0; None
    /// where the flow would choke at the step.
    fn right_depth(&self, h1: f64, u1: f64) -> Option<f64> {
        let g = self.g;
        let q = h1 * u1;
        match self.relation {
            StepRelation::Energy => {
                let head = specific_energy(g, q, h1) + self.z_left;
                subcritical_depth(g, q, head - self.z_right)
            }
            StepRelation::LowSideMomentum => {
                let top = self.z_left.max(self.z_right);
                let (d1, d2) = (top - self.z_left, top - self.z_right);
                let hs1 = (h1 - d1).max(0.0);
                let target = q * u1 + 0.5 * g * hs1 * hs1;
                momentum_root(g, q, d2, target)
            }
        }
    }

    /// Right velocity from the step relation minus the one the shock into the
    /// right state needs; rises from negative (q = 0 at h1 = h_left) as h1
    /// falls.
    fn mismatch(&self, h1: f64) -> Option<f64> {
        let u1 = -wave_jump(self.g, h1, self.h_left);
        let h2 = self.right_depth(h1, u1)?;
        Some(h1 * u1 / h2 - wave_jump(self.g, h2, self.h_right))
    }

    fn solve_left_depth(&self) -> Result<f64, NoSolution> {
        let mut upper = self.h_left;
        for k in 1..SCAN {
            let h1 = self.h_left * (1.0 - k as f64 / SCAN as f64);
            let u1 = -wave_jump(self.g, h1, self.h_left);
            let subcritical = u1 < (self.g * h1).sqrt();
            match self.mismatch(h1) {
                Some(m) if subcritical && m >= 0.0 => {
                    return Ok(bisect(|h| self.mismatch(h).unwrap_or(f64::NAN), h1, upper));
                }
                Some(_) if subcritical => upper = h1,
                _ => break,
            }
        }
        Err(NoSolution(
            "the flow becomes critical at the step (a wave pattern this solver does not build)"
                .into(),
        ))
    }
}

/// The root h ≥ d of q²/h + g/2 (h − d)² = target on the branch where the
/// left side rises with h (the lake at rest for q = 0).
fn momentum_root(g: f64, q: f64, d: f64, target: f64) -> Option<f64> {
    let f = |h: f64| q * q / h + 0.5 * g * (h - d).max(0.0).powi(2);
    if q == 0.0 {
        return Some(d + (2.0 * target / g).sqrt());
    }
    // f' = −q²/h² + g (h − d) rises with h; its zero lies within hc of d.
    let slope = |h: f64| g * (h - d) * h * h - q * q;
    let lowest = bisect(slope, d.max(f64::MIN_POSITIVE), d + critical_depth(g, q));
    if f(lowest) > target {
        return None;
    }
    let high = d + (2.0 * target / g).sqrt() * (1.0 + 1e-12) + 1e-300;
    Some(bisect(|h| f(h) - target, lowest, high))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::testing::{integrate, rel_err, G};
    use crate::exact::Stoker;

    const RELATIONS: [StepRelation; 2] = [StepRelation::Energy, StepRelation::LowSideMomentum];

    fn up(relation: StepRelation) -> StepDamBreak {
        StepDamBreak::new(G, 0.0, (0.0, 3.0), (1.0, 0.5), relation).unwrap()
    }

    fn down(relation: StepRelation) -> StepDamBreak {
        StepDamBreak::new(G, 0.0, (1.0, 2.0), (0.0, 2.0), relation).unwrap()
    }

    #[test]
    fn without_a_step_both_relations_give_stoker() {
        for relation in RELATIONS {
            let s = StepDamBreak::new(G, 2.0, (0.5, 1.0), (0.5, 0.3), relation).unwrap();
            let stoker = Stoker::new(G, 1.0, 0.3, 2.0);
            let [(h1, u1), (h2, u2)] = s.step_states();
            assert!(
                rel_err(h1, h2) < 1e-9 && rel_err(u1, u2) < 1e-9,
                "{relation:?}"
            );
            for k in 0..=200 {
                let x = -10.0 + 0.1 * k as f64;
                let (dh, du) = (
                    (s.depth(x, 1.3) - stoker.depth(x, 1.3)).abs(),
                    (s.velocity(x, 1.3) - stoker.velocity(x, 1.3)).abs(),
                );
                assert!(dh < 1e-9 && du < 1e-9, "{relation:?} at {x}: {dh} {du}");
            }
        }
    }

    #[test]
    fn step_states_satisfy_their_relation() {
        for s in RELATIONS.map(up).into_iter().chain(RELATIONS.map(down)) {
            let [(h1, u1), (h2, u2)] = s.step_states();
            let q = h1 * u1;
            assert!(q > 0.0 && rel_err(h2 * u2, q) < 1e-14);
            assert!(
                u1 < (G * h1).sqrt() && u2 < (G * h2).sqrt(),
                "subcritical at the step"
            );
            let (lhs, rhs) = match s.relation {
                StepRelation::Energy => (
                    specific_energy(G, q, h1) + s.z_left,
                    specific_energy(G, q, h2) + s.z_right,
                ),
                StepRelation::LowSideMomentum => {
                    let top = s.z_left.max(s.z_right);
                    let hs1 = h1 - (top - s.z_left);
                    let hs2 = h2 - (top - s.z_right);
                    (q * u1 + 0.5 * G * hs1 * hs1, q * u2 + 0.5 * G * hs2 * hs2)
                }
            };
            assert!(
                rel_err(lhs, rhs) < 1e-12,
                "{:?}: {lhs} vs {rhs}",
                s.relation
            );
            // The shock into the right state obeys Rankine–Hugoniot.
            let sp = s.shock_speed();
            let flux = |h: f64, u: f64| h * u * u + 0.5 * G * h * h;
            let momentum = sp * (h2 * u2) - (flux(h2, u2) - flux(s.h_right, 0.0));
            assert!(momentum.abs() < 1e-9 * flux(h2, u2), "{momentum}");
            // The fan keeps its invariant into the left step state.
            let invariant = u1 + 2.0 * (G * h1).sqrt();
            assert!(rel_err(invariant, 2.0 * (G * s.h_left).sqrt()) < 1e-12);
        }
    }

    #[test]
    fn the_two_relations_differ_by_percents_at_a_metre_step() {
        for [a, b] in [RELATIONS.map(up), RELATIONS.map(down)] {
            let [(ha, _), (ha2, _)] = a.step_states();
            let [(hb, _), (hb2, _)] = b.step_states();
            let gap = rel_err(hb, ha).max(rel_err(hb2, ha2));
            assert!(gap > 1e-3 && gap < 0.2, "{gap}");
        }
    }

    #[test]
    fn volume_is_conserved() {
        for s in RELATIONS.map(up).into_iter().chain(RELATIONS.map(down)) {
            let t = 1.5;
            let (lo, hi) = (-30.0, 30.0);
            let v = integrate(|x| s.depth(x, t), lo, hi, 600_000);
            let want = s.h_left * (0.0 - lo) + s.h_right * hi;
            assert!(rel_err(v, want) < 1e-6, "{:?}: {v} vs {want}", s.relation);
        }
    }

    #[test]
    fn patterns_it_does_not_build_are_refused() {
        let s = StepDamBreak::new(G, 0.0, (0.0, 1.0), (1.0, 0.5), StepRelation::Energy);
        assert!(s.is_err(), "surface higher on the right");
        // Into shallow water below a 1 m drop the flow turns critical at the
        // step's edge: a resonant pattern, refused rather than built wrong.
        let s = StepDamBreak::new(G, 0.0, (1.0, 2.0), (0.0, 1.0), StepRelation::Energy);
        assert!(s.is_err(), "critical at the step");
    }
}
