//! MacDonald's steady flows with Manning friction (MacDonald et al. 1997, as
//! collected in SWASHES by Delestre et al. 2013): choose the depth profile
//! h(x) of a channel, then find the bed on which it is the exact steady state
//! for unit discharge q and Manning's n.
//!
//! A steady 1D flow has h u = q constant and
//!   d/dx (q²/h + g h²/2) = −g h z' − g n² q²/h^(7/3),
//! so the bed slope that makes a given h(x) steady is
//!   −z' = (1 − q²/(g h³)) h' + n² q²/h^(10/3).
//! The first term is the derivative of the specific energy
//! E(h) = h + q²/(2 g h²), so on a smooth stretch of the profile
//!   z(x) = z(x0) + E(h(x0)) − E(h(x)) − ∫_{x0}^{x} n² q²/h^(10/3) dξ,
//! and only the friction integral needs quadrature (Gauss–Legendre, to f64
//! round-off). Across a hydraulic jump the depths are conjugate (equal
//! momentum function) and the bed is continuous, so the energy lost in the
//! jump is simply not added back.

use super::{conjugate_depth, critical_depth, integrate, specific_energy, NoSolution};

/// A depth profile on [0, L], in multiples of the critical depth hc.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Profile {
    /// h = hc (base + amplitude exp(−width (x/L − 1/2)²)): subcritical for
    /// base ≥ 1 and amplitude > 0, supercritical for base ≤ 1, amplitude < 0.
    Gaussian {
        base: f64,
        amplitude: f64,
        width: f64,
    },
    /// h = hc (1 − drop (1 − exp(−rate x/L))): enters at critical depth and
    /// falls, supercritical, towards hc (1 − drop). An inflow that imposes only
    /// the discharge enters a supercritical channel at critical depth, so this
    /// is the supercritical flow such a boundary can feed.
    Exponential { drop: f64, rate: f64 },
    /// h = hc (1 − amplitude tanh(steepness (x/L − centre))): subcritical
    /// upstream, critical at x = centre·L, supercritical downstream.
    Tanh {
        amplitude: f64,
        steepness: f64,
        centre: f64,
    },
    /// The `Tanh` profile up to x = jump·L (where it must be supercritical),
    /// a hydraulic jump to the conjugate depth h2, then the subcritical
    /// straight line h2 + rise·hc·(x − jump·L)/(L − jump·L).
    TanhJump {
        amplitude: f64,
        steepness: f64,
        centre: f64,
        jump: f64,
        rise: f64,
    },
}

/// A MacDonald channel of `length` with unit discharge `q` (m²/s) and
/// Manning's `manning`, its bed at 0 at the outlet x = L. Build it with
/// [`MacDonald::new`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MacDonald {
    pub g: f64,
    pub q: f64,
    pub manning: f64,
    pub length: f64,
    pub profile: Profile,
    /// Bed elevation at x = 0 (the integration leaves z(L) = 0).
    z_inlet: f64,
}

/// Gauss–Legendre panels per channel length for the friction integral: the
/// profiles vary on scales of L/10 and up, so this is far past convergence.
const PANELS_PER_LENGTH: f64 = 512.0;

impl MacDonald {
    pub fn new(
        g: f64,
        q: f64,
        manning: f64,
        length: f64,
        profile: Profile,
    ) -> Result<MacDonald, NoSolution> {
        let mut m = MacDonald {
            g,
            q,
            manning,
            length,
            profile,
            z_inlet: 0.0,
        };
        if let Profile::TanhJump { jump, .. } = profile {
            let before = m.upstream_depth(jump * length);
            if before >= m.critical_depth() {
                return Err(NoSolution(format!(
                    "the profile is not supercritical before the jump ({before} m ≥ hc)"
                )));
            }
        }
        m.z_inlet = -m.bed_from_inlet(length);
        Ok(m)
    }

    /// Critical depth (q²/g)^(1/3).
    pub fn critical_depth(&self) -> f64 {
        critical_depth(self.g, self.q)
    }

    /// Position of the hydraulic jump, where the profile has one.
    pub fn jump_position(&self) -> Option<f64> {
        match self.profile {
            Profile::TanhJump { jump, .. } => Some(jump * self.length),
            _ => None,
        }
    }

    /// Water depth h(x).
    pub fn depth(&self, x: f64) -> f64 {
        match (self.profile, self.jump_position()) {
            (Profile::TanhJump { rise, .. }, Some(xs)) if x >= xs => {
                let after = conjugate_depth(self.g, self.q, self.upstream_depth(xs));
                after + rise * self.critical_depth() * (x - xs) / (self.length - xs)
            }
            _ => self.upstream_depth(x),
        }
    }

    /// Velocity q/h.
    pub fn velocity(&self, x: f64) -> f64 {
        self.q / self.depth(x)
    }

    /// Froude number u/√(g h).
    pub fn froude(&self, x: f64) -> f64 {
        let h = self.depth(x);
        self.q / (h * (self.g * h).sqrt())
    }

    /// Bed elevation z(x), zero at the outlet.
    pub fn bed(&self, x: f64) -> f64 {
        self.z_inlet + self.bed_from_inlet(x)
    }

    /// The profile before any jump (the whole profile where there is none).
    fn upstream_depth(&self, x: f64) -> f64 {
        let hc = self.critical_depth();
        let s = x / self.length;
        match self.profile {
            Profile::Gaussian {
                base,
                amplitude,
                width,
            } => hc * (base + amplitude * (-width * (s - 0.5).powi(2)).exp()),
            Profile::Exponential { drop, rate } => hc * (1.0 - drop * (1.0 - (-rate * s).exp())),
            Profile::Tanh {
                amplitude,
                steepness,
                centre,
            }
            | Profile::TanhJump {
                amplitude,
                steepness,
                centre,
                ..
            } => hc * (1.0 - amplitude * (steepness * (s - centre)).tanh()),
        }
    }

    /// Manning friction slope n² q²/h^(10/3).
    fn friction_slope(&self, h: f64) -> f64 {
        let nq = self.manning * self.q;
        nq * nq / h.powf(10.0 / 3.0)
    }

    /// ∫ friction slope over [a, b], inside one smooth stretch of `depth`.
    fn friction_drop(&self, depth: impl Fn(f64) -> f64, a: f64, b: f64) -> f64 {
        if b <= a {
            return 0.0;
        }
        let panels = (PANELS_PER_LENGTH * (b - a) / self.length).ceil().max(1.0) as usize;
        integrate(|x| self.friction_slope(depth(x)), a, b, panels)
    }

    /// z(x) − z(0), integrated stretch by stretch.
    fn bed_from_inlet(&self, x: f64) -> f64 {
        let energy = |h: f64| specific_energy(self.g, self.q, h);
        let upstream = |x: f64| self.upstream_depth(x);
        let h_inlet = self.depth(0.0);
        match self.jump_position() {
            Some(xs) if x >= xs => {
                let z_jump =
                    energy(h_inlet) - energy(upstream(xs)) - self.friction_drop(upstream, 0.0, xs);
                let h_after = self.depth(xs);
                let downstream = |x: f64| self.depth(x.max(xs));
                z_jump + energy(h_after)
                    - energy(self.depth(x))
                    - self.friction_drop(downstream, xs, x)
            }
            _ => energy(h_inlet) - energy(upstream(x)) - self.friction_drop(upstream, 0.0, x),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::testing::{rel_err, G};

    fn channel(profile: Profile) -> MacDonald {
        MacDonald::new(G, 2.0, 0.033, 1000.0, profile).unwrap()
    }

    fn profiles() -> [Profile; 4] {
        [
            Profile::Gaussian {
                base: 1.0,
                amplitude: 0.5,
                width: 16.0,
            },
            Profile::Exponential {
                drop: 0.25,
                rate: 4.0,
            },
            Profile::Tanh {
                amplitude: 1.0 / 3.0,
                steepness: 3.0,
                centre: 0.5,
            },
            Profile::TanhJump {
                amplitude: 0.3,
                steepness: 4.0,
                centre: 0.3,
                jump: 0.6,
                rise: 0.1,
            },
        ]
    }

    /// Relative residual of the steady momentum equation at x, by central
    /// differences of the depth and of the bed `bed`.
    fn momentum_residual(m: &MacDonald, bed: &dyn Fn(f64) -> f64, x: f64) -> f64 {
        let d = 1e-3;
        let flux = |x: f64| {
            let h = m.depth(x);
            m.q * m.q / h + 0.5 * m.g * h * h
        };
        let h = m.depth(x);
        let terms = [
            (flux(x + d) - flux(x - d)) / (2.0 * d),
            m.g * h * (bed(x + d) - bed(x - d)) / (2.0 * d),
            m.g * h * m.friction_slope(h),
        ];
        let scale: f64 = terms.iter().map(|t| t.abs()).sum();
        terms.iter().sum::<f64>().abs() / scale
    }

    #[test]
    fn every_profile_is_a_steady_state_of_its_bed() {
        for p in profiles() {
            let m = channel(p);
            assert!(m.bed(m.length).abs() < 1e-12);
            for k in 1..200 {
                let x = 5.0 * k as f64 - 0.37;
                if m.jump_position().is_some_and(|xs| (x - xs).abs() < 0.01) {
                    continue;
                }
                let r = momentum_residual(&m, &|x| m.bed(x), x);
                assert!(r < 1e-6, "{p:?} at x = {x}: residual {r}");
            }
        }
    }

    #[test]
    fn a_wrong_bed_fails_the_residual_check() {
        // Twice the friction: the same depth is no longer steady on this bed.
        let m = channel(profiles()[0]);
        let wrong = MacDonald {
            manning: 0.033 * 2f64.sqrt(),
            ..m
        };
        assert!(momentum_residual(&wrong, &|x| m.bed(x), 300.0) > 1e-2);
    }

    #[test]
    fn regimes_are_as_named() {
        let [sub, sup, trans, jump] = profiles().map(channel);
        for k in 0..=100 {
            let x = 10.0 * k as f64;
            assert!(sub.froude(x) < 1.0, "subcritical at {x}");
            assert!(sup.froude(x) > 1.0 || x == 0.0, "supercritical at {x}");
            assert_eq!(trans.froude(x) < 1.0, x < 500.0, "transcritical at {x}");
        }
        assert!(rel_err(trans.froude(500.0), 1.0) < 1e-14);
        assert!(rel_err(sup.froude(0.0), 1.0) < 1e-14, "enters critical");
        // The jump joins conjugate depths, supercritical to subcritical, on a
        // continuous bed that falls downstream.
        let xs = jump.jump_position().unwrap();
        let (h1, h2) = (jump.depth(xs - 1e-9), jump.depth(xs));
        assert!(jump.froude(xs - 1e-9) > 1.0 && jump.froude(xs) < 1.0);
        let m1 = crate::exact::momentum_function(G, 2.0, h1);
        let m2 = crate::exact::momentum_function(G, 2.0, h2);
        assert!(rel_err(m1, m2) < 1e-8);
        assert!((jump.bed(xs - 1e-9) - jump.bed(xs)).abs() < 1e-8);
        for m in [sub, sup, trans, jump] {
            assert!(m.bed(0.0) > m.bed(500.0) && m.bed(500.0) > m.bed(1000.0));
        }
    }

    #[test]
    fn a_jump_from_subcritical_flow_is_refused() {
        let p = Profile::TanhJump {
            amplitude: 0.3,
            steepness: 4.0,
            centre: 0.7,
            jump: 0.6,
            rise: 0.1,
        };
        assert!(MacDonald::new(G, 2.0, 0.033, 1000.0, p).is_err());
    }
}
