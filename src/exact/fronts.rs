//! Water entering a dry, flat, frictionless bed through the domain edge at
//! x = `x_edge` (flowing towards +x): the exact fronts a stage or an inflow
//! boundary started on dry land must produce.
//!
//! Both are centred rarefactions issued from the edge at t = 0. In such a fan
//! the Riemann invariant u + 2c is constant and x/t = u − c, so
//! c = (u_e + 2 c_e − ξ)/3 and u = ξ + c, from the state (h_e, u_e) the edge
//! holds (c = √(g h), ξ = (x − x_edge)/t). The fan runs from ξ = u_e − c_e to
//! the dry front at ξ = u_e + 2 c_e; the edge state must have u_e ≥ c_e so that
//! the fan lies inside the domain. What fixes the edge state:
//!
//! * [`StageOnDryBed`]: a stage `level` means a water body at that level,
//!   at rest, beyond the edge, whose water enters keeping its energy
//!   (`docs/scenario.md`): h_e + u_e²/2g = h0, at most critical. On a dry bed
//!   the edge section is critical: h_e = 2/3 h0, u_e = c_e = √(2/3) c0 with
//!   c0 = √(g h0), h0 the stage depth; the front runs at 3 c_e = √6 c0 and the
//!   edge passes q_e = (2/3)^1.5 h0 c0 per unit width, as a broad crest does.
//!   The depth never exceeds 2/3 h0 inside the domain.
//! * [`CriticalInflow`]: an inflow imposes only the discharge q; the second
//!   condition a supercritical entry needs is the one `docs/scenario.md`
//!   states ("enters at least at critical depth"): h_e = hc = (q²/g)^(1/3),
//!   u_e = c_e = (g q)^(1/3). The fan runs from the edge to the front at
//!   3 c_e, and the volume stored per unit width is q t.

/// Water at rest at depth `h0` above the bed beyond the edge; see the module
/// documentation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StageOnDryBed {
    pub g: f64,
    pub h0: f64,
    pub x_edge: f64,
}

impl StageOnDryBed {
    fn celerity(&self) -> f64 {
        (self.g * self.h0).sqrt()
    }

    /// The fan's invariant u + 2c: three times the critical edge section's celerity.
    fn invariant(&self) -> f64 {
        3.0 * (2.0f64 / 3.0).sqrt() * self.celerity()
    }

    /// Position of the wet front at time t.
    pub fn front(&self, t: f64) -> f64 {
        self.x_edge + self.invariant() * t
    }

    /// Where the depth has fallen to `level` at time t.
    pub fn front_at_depth(&self, level: f64, t: f64) -> f64 {
        self.x_edge + fan_position(self.g, self.invariant(), level) * t
    }

    /// Discharge per unit width through the edge, constant from t = 0.
    pub fn edge_discharge(&self) -> f64 {
        (2.0f64 / 3.0).powf(1.5) * self.h0 * self.celerity()
    }

    /// Depth at x ≥ x_edge, time t > 0.
    pub fn depth(&self, x: f64, t: f64) -> f64 {
        self.state(x, t).0
    }

    /// Velocity at x ≥ x_edge, time t > 0.
    pub fn velocity(&self, x: f64, t: f64) -> f64 {
        self.state(x, t).1
    }

    fn state(&self, x: f64, t: f64) -> (f64, f64) {
        fan(self.g, self.invariant(), (x - self.x_edge) / t)
    }
}

/// A constant unit discharge `q` entering at critical depth; see the module
/// documentation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CriticalInflow {
    pub g: f64,
    pub q: f64,
    pub x_edge: f64,
}

impl CriticalInflow {
    fn edge_celerity(&self) -> f64 {
        (self.g * self.q).cbrt()
    }

    /// Position of the wet front at time t.
    pub fn front(&self, t: f64) -> f64 {
        self.x_edge + 3.0 * self.edge_celerity() * t
    }

    /// Where the depth has fallen to `level` (≤ hc) at time t.
    pub fn front_at_depth(&self, level: f64, t: f64) -> f64 {
        self.x_edge + fan_position(self.g, 3.0 * self.edge_celerity(), level) * t
    }

    pub fn depth(&self, x: f64, t: f64) -> f64 {
        self.state(x, t).0
    }

    pub fn velocity(&self, x: f64, t: f64) -> f64 {
        self.state(x, t).1
    }

    fn state(&self, x: f64, t: f64) -> (f64, f64) {
        fan(self.g, 3.0 * self.edge_celerity(), (x - self.x_edge) / t)
    }
}

/// ξ at which the fan with this invariant holds depth `level`: (invariant − ξ)²/(9g) = level.
fn fan_position(g: f64, invariant: f64, level: f64) -> f64 {
    invariant - 3.0 * (g * level).sqrt()
}

/// The fan into a dry bed with invariant u + 2c = `invariant`, at ξ = x/t
/// (ξ ≥ 0 inside the domain): c = (invariant − ξ)/3, u = ξ + c, dry beyond
/// ξ = invariant.
fn fan(g: f64, invariant: f64, xi: f64) -> (f64, f64) {
    if xi.is_nan() || xi < 0.0 || xi >= invariant {
        return (0.0, 0.0);
    }
    let c = (invariant - xi) / 3.0;
    (c * c / g, xi + c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::testing::{integrate, rel_err, G};

    #[test]
    fn stage_fan_enters_critical_keeping_the_reservoirs_energy() {
        let s = StageOnDryBed {
            g: G,
            h0: 1.0,
            x_edge: 0.0,
        };
        let (h, u) = (s.depth(0.0, 1.0), s.velocity(0.0, 1.0));
        assert!(rel_err(h * u, s.edge_discharge()) < 1e-14);
        assert!(
            rel_err(h + u * u / (2.0 * G), 1.0) < 1e-14,
            "Bernoulli at the edge"
        );
        assert!(rel_err(u * u, G * h) < 1e-14, "critical at the edge");
        assert!(rel_err(h, 2.0 / 3.0) < 1e-14);
        // Inside the fan x/t = u − c and the invariant holds.
        for k in 1..40 {
            let x = 0.2 * k as f64;
            let (h, u) = (s.depth(x, 2.0), s.velocity(x, 2.0));
            if h > 0.0 {
                let c = (G * h).sqrt();
                assert!((x / 2.0 - (u - c)).abs() < 1e-12);
                assert!((u + 2.0 * c - s.invariant()).abs() < 1e-12);
            }
        }
        // The volume stored is what the edge passed.
        let t = 3.0;
        let v = integrate(|x| s.depth(x, t), 0.0, s.front(t) + 1.0, 200_000);
        assert!(rel_err(v, s.edge_discharge() * t) < 1e-8);
    }

    #[test]
    fn inflow_fan_stores_q_t_and_enters_critical() {
        let f = CriticalInflow {
            g: G,
            q: 1.5,
            x_edge: 10.0,
        };
        let (h, u) = (f.depth(10.0, 1.0), f.velocity(10.0, 1.0));
        assert!(rel_err(h * u, 1.5) < 1e-14);
        assert!(rel_err(u * u, G * h) < 1e-14, "critical at the edge");
        for t in [0.5, 4.0] {
            let v = integrate(|x| f.depth(x, t), 10.0, f.front(t) + 1.0, 200_000);
            assert!(rel_err(v, 1.5 * t) < 1e-8, "t = {t}: {v}");
        }
        assert_eq!(f.depth(f.front(2.0) + 1e-9, 2.0), 0.0);
        assert_eq!(f.depth(9.0, 2.0), 0.0, "nothing upstream of the edge");
        let x = f.front_at_depth(0.01, 2.0);
        assert!(rel_err(f.depth(x, 2.0), 0.01) < 1e-12);
        let s = StageOnDryBed {
            g: G,
            h0: 1.0,
            x_edge: 0.0,
        };
        let x = s.front_at_depth(0.01, 2.0);
        assert!(rel_err(s.depth(x, 2.0), 0.01) < 1e-12);
    }
}
