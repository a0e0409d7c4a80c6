//! Dam breaks on a flat, frictionless bed: [`Ritter`] (dry bed) and [`Stoker`] (wet bed).

use super::bisect;

/// Depth inside a centred rarefaction fan issued from a left state of
/// celerity `c_left` at rest.
///
/// Along the fan's characteristics x/t = ξ = u − c, and the Riemann invariant
/// u + 2c = 2 c_left carries over from the undisturbed left state. Solving
/// the two gives c = (2 c_left − ξ)/3, hence h = c²/g = (2 c_left − ξ)²/(9g).
fn fan_depth(g: f64, c_left: f64, xi: f64) -> f64 {
    let c = (2.0 * c_left - xi) / 3.0;
    c * c / g
}

/// Velocity inside the same fan: u = ξ + c = 2 (c_left + ξ)/3.
fn fan_velocity(c_left: f64, xi: f64) -> f64 {
    2.0 * (c_left + xi) / 3.0
}

/// Ritter (1892): dam break onto a dry bed. Initially h = `h_left` for
/// x < `x_dam` and h = 0 beyond, water at rest.
///
/// With c0 = sqrt(g h_left) and ξ = (x − x_dam)/t the solution is the left
/// state for ξ ≤ −c0, the rarefaction fan for −c0 < ξ < 2 c0, and dry bed
/// beyond the wet front x_dam + 2 c0 t.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ritter {
    pub g: f64,
    pub h_left: f64,
    pub x_dam: f64,
}

impl Ritter {
    /// Water depth at position `x` and time `t` (t ≤ 0 gives the initial step).
    pub fn depth(&self, x: f64, t: f64) -> f64 {
        self.state(x, t).0
    }

    /// Where the fan's depth has fallen to `level` (0 < level ≤ h_left) at time t:
    /// h = (2 c0 − ξ)²/(9g) = level at ξ = 2 c0 − 3 √(g level).
    pub fn front_at_depth(&self, level: f64, t: f64) -> f64 {
        let c0 = (self.g * self.h_left).sqrt();
        self.x_dam + (2.0 * c0 - 3.0 * (self.g * level).sqrt()) * t
    }

    /// Velocity at `x`, `t`; zero on the dry bed ahead of the front.
    pub fn velocity(&self, x: f64, t: f64) -> f64 {
        self.state(x, t).1
    }

    fn state(&self, x: f64, t: f64) -> (f64, f64) {
        if t <= 0.0 {
            let h = if x < self.x_dam { self.h_left } else { 0.0 };
            return (h, 0.0);
        }
        let c0 = (self.g * self.h_left).sqrt();
        let xi = (x - self.x_dam) / t;
        if xi <= -c0 {
            (self.h_left, 0.0)
        } else if xi < 2.0 * c0 {
            (fan_depth(self.g, c0, xi), fan_velocity(c0, xi))
        } else {
            (0.0, 0.0)
        }
    }
}

/// Stoker (1957): dam break onto a wet bed. Initially h = `h_left` for
/// x < `x_dam` and h = `h_right` beyond (0 < `h_right` < `h_left`), at rest.
///
/// The solution is a left-going rarefaction, a constant middle state
/// (h_m, u_m) and a right-going shock. Build it with [`Stoker::new`], which
/// solves for the middle state once; editing the public fields afterwards
/// leaves that cached state stale.
///
/// `h_right` ≤ 0 degenerates to [`Ritter`] (h_m = 0, shock at the dry front);
/// `h_right` = `h_left` is still water. `h_right` > `h_left` (a dam break
/// towards −x) is outside the model: the result is finite but meaningless.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stoker {
    pub g: f64,
    pub h_left: f64,
    pub h_right: f64,
    pub x_dam: f64,
    h_middle: f64,
    u_middle: f64,
    shock: f64,
}

impl Stoker {
    /// Solves for the middle state; see [`middle_state_mismatch`] for the
    /// equation and its derivation.
    pub fn new(g: f64, h_left: f64, h_right: f64, x_dam: f64) -> Self {
        let c_left = (g * h_left).sqrt();
        let (h_middle, u_middle, shock) = if h_right <= 0.0 {
            // Dry-bed limit: the middle state has vanished and the "shock"
            // is the Ritter front.
            (0.0, 2.0 * c_left, 2.0 * c_left)
        } else {
            let h_m = solve_middle_depth(g, h_left, h_right);
            let u_m = 2.0 * (c_left - (g * h_m).sqrt());
            (h_m, u_m, shock_speed(g, h_m, h_right))
        };
        Stoker {
            g,
            h_left,
            h_right,
            x_dam,
            h_middle,
            u_middle,
            shock,
        }
    }

    /// Depth h_m of the constant state between the fan and the shock.
    pub fn middle_depth(&self) -> f64 {
        self.h_middle
    }

    /// Velocity u_m of the constant state between the fan and the shock.
    pub fn middle_velocity(&self) -> f64 {
        self.u_middle
    }

    /// Speed S of the right-going shock (dx/dt of the bore).
    pub fn shock_speed(&self) -> f64 {
        self.shock
    }

    /// Water depth at `x`, `t` (t ≤ 0 gives the initial step).
    pub fn depth(&self, x: f64, t: f64) -> f64 {
        self.state(x, t).0
    }

    /// Velocity at `x`, `t`.
    pub fn velocity(&self, x: f64, t: f64) -> f64 {
        self.state(x, t).1
    }

    fn state(&self, x: f64, t: f64) -> (f64, f64) {
        if t <= 0.0 {
            let h = if x < self.x_dam {
                self.h_left
            } else {
                self.h_right
            };
            return (h, 0.0);
        }
        let c_left = (self.g * self.h_left).sqrt();
        let c_middle = (self.g * self.h_middle).sqrt();
        let xi = (x - self.x_dam) / t;
        if xi <= -c_left {
            (self.h_left, 0.0)
        } else if xi < self.u_middle - c_middle {
            (fan_depth(self.g, c_left, xi), fan_velocity(c_left, xi))
        } else if xi < self.shock {
            (self.h_middle, self.u_middle)
        } else {
            (self.h_right, 0.0)
        }
    }
}

/// Velocity behind a right-going shock into still water of depth `h_r`,
/// given the depth `h_m` behind it.
///
/// Rankine–Hugoniot across a shock of speed S with u_R = 0:
///   mass:      S (h_m − h_R) = h_m u_m
///   momentum:  S h_m u_m = h_m u_m² + g/2 (h_m² − h_R²).
/// Eliminating S: h_m u_m² / (h_m − h_R) − h_m u_m² = g/2 (h_m² − h_R²), i.e.
/// u_m² h_R / (h_m − h_R) = g/2 (h_m − h_R)(h_m + h_R) / h_m, so
///   u_m = (h_m − h_R) sqrt(g/2 · (1/h_m + 1/h_R)).
fn shock_jump_velocity(g: f64, h_m: f64, h_r: f64) -> f64 {
    (h_m - h_r) * (0.5 * g * (1.0 / h_m + 1.0 / h_r)).sqrt()
}

/// Shock speed from the mass condition, S = h_m u_m / (h_m − h_R), written as
/// S = sqrt(g h_m (h_m + h_R) / (2 h_R)) so that it stays finite (→ the
/// linear wave speed sqrt(g h)) when the jump vanishes.
fn shock_speed(g: f64, h_m: f64, h_r: f64) -> f64 {
    (g * h_m * (h_m + h_r) / (2.0 * h_r)).sqrt()
}

/// Middle-state equation f(h_m) = 0 for the Stoker problem.
///
/// The middle state is reached from the left through the rarefaction
/// (Riemann invariant u + 2c constant: u_m = 2 (c_L − c_m)) and from the right
/// through the shock (u_m from [`shock_jump_velocity`]). f is the rarefaction
/// velocity minus the shock velocity. The first term decreases and the second
/// increases with h_m, so f is monotone decreasing, with f(h_R) = 2 (c_L − c_R)
/// > 0 and f(h_L) < 0: exactly one root in (h_R, h_L).
fn middle_state_mismatch(g: f64, h_left: f64, h_right: f64, h_m: f64) -> f64 {
    let rarefaction = 2.0 * ((g * h_left).sqrt() - (g * h_m).sqrt());
    rarefaction - shock_jump_velocity(g, h_m, h_right)
}

/// Root of [`middle_state_mismatch`] by bisection on the bracket
/// [h_right, h_left], which cannot fail on a monotone function.
fn solve_middle_depth(g: f64, h_left: f64, h_right: f64) -> f64 {
    if h_right >= h_left {
        // No dam break towards +x: treat as still water.
        return h_left;
    }
    bisect(
        |h_m| middle_state_mismatch(g, h_left, h_right, h_m),
        h_right,
        h_left,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::testing::{integrate, rel_err, G};

    // ---------------------------------------------------------------- Ritter

    fn ritter() -> Ritter {
        Ritter {
            g: G,
            h_left: 2.0,
            x_dam: 1.0,
        }
    }

    #[test]
    fn ritter_conserves_mass() {
        let r = ritter();
        let (x_min, x_max) = (-20.0, 30.0);
        for t in [0.1, 0.7, 2.0] {
            let mass = integrate(|x| r.depth(x, t), x_min, x_max, 1_000_000);
            let want = r.h_left * (r.x_dam - x_min);
            assert!(rel_err(mass, want) < 1e-6, "t={t}: {mass} vs {want}");
        }
    }

    #[test]
    fn ritter_momentum_grows_by_hydrostatic_thrust() {
        // d/dt ∫hu dx = g h_left²/2 (pressure at the far left, none on the
        // dry right): an integral check of the velocity field.
        let r = ritter();
        let t = 0.9;
        let momentum = integrate(|x| r.depth(x, t) * r.velocity(x, t), -20.0, 30.0, 1_000_000);
        let want = 0.5 * G * r.h_left * r.h_left * t;
        assert!(rel_err(momentum, want) < 1e-6, "{momentum} vs {want}");
    }

    #[test]
    fn ritter_front_moves_at_twice_celerity() {
        let r = ritter();
        let c0 = (G * r.h_left).sqrt();
        let t = 1.3;
        let front = r.x_dam + 2.0 * c0 * t;
        let eps = 1e-6;
        assert!(r.depth(front - eps, t) > 0.0);
        assert_eq!(r.depth(front + eps, t), 0.0);
        assert_eq!(r.velocity(front + eps, t), 0.0);
        assert!(rel_err(r.velocity(front - eps, t), 2.0 * c0) < 1e-6);
        // The head of the fan is at x_dam − c0 t: undisturbed just behind it.
        let head = r.x_dam - c0 * t;
        assert_eq!(r.depth(head - eps, t), r.h_left);
        assert!(r.depth(head + eps, t) < r.h_left);
    }

    #[test]
    fn ritter_front_at_a_depth_holds_that_depth() {
        let r = ritter();
        for level in [1e-3, 0.02, 0.5] {
            let x = r.front_at_depth(level, 2.5);
            assert!(rel_err(r.depth(x, 2.5), level) < 1e-12, "{level}");
        }
    }

    #[test]
    fn ritter_dam_section_is_critical() {
        let r = ritter();
        let c0 = (G * r.h_left).sqrt();
        for t in [0.01, 1.0, 50.0] {
            let h = r.depth(r.x_dam, t);
            let u = r.velocity(r.x_dam, t);
            assert!(rel_err(h, 4.0 / 9.0 * r.h_left) < 1e-14);
            assert!(rel_err(u, 2.0 / 3.0 * c0) < 1e-14);
            assert!(rel_err(u, (G * h).sqrt()) < 1e-14, "Froude 1 at the dam");
        }
    }

    #[test]
    fn ritter_initial_step() {
        let r = ritter();
        assert_eq!(r.depth(r.x_dam - 1e-9, 0.0), r.h_left);
        assert_eq!(r.depth(r.x_dam + 1e-9, 0.0), 0.0);
        assert_eq!(r.velocity(r.x_dam - 1.0, 0.0), 0.0);
    }

    // ---------------------------------------------------------------- Stoker

    /// Depth ratios from strongly subcritical to nearly dry.
    const RATIOS: [f64; 5] = [0.9, 0.5, 0.2, 0.1, 1e-4];

    #[test]
    fn stoker_satisfies_jump_and_rarefaction_conditions() {
        let h_left = 1.5;
        let t = 0.8;
        for ratio in RATIOS {
            let s = Stoker::new(G, h_left, ratio * h_left, 0.0);
            let speed = s.shock_speed();
            let x_shock = speed * t;
            // Sample the profile itself on both sides of the shock.
            let dx = 1e-9 * x_shock;
            let (hb, ub) = (s.depth(x_shock - dx, t), s.velocity(x_shock - dx, t));
            let (ha, ua) = (s.depth(x_shock + dx, t), s.velocity(x_shock + dx, t));
            assert_eq!((ha, ua), (s.h_right, 0.0));
            assert_eq!((hb, ub), (s.middle_depth(), s.middle_velocity()));

            let mass = speed * (hb - ha) - (hb * ub - ha * ua);
            assert!(mass.abs() <= 1e-10 * speed * hb, "ratio {ratio}: {mass}");
            let flux = |h: f64, u: f64| h * u * u + 0.5 * G * h * h;
            let momentum = speed * (hb * ub - ha * ua) - (flux(hb, ub) - flux(ha, ua));
            assert!(
                momentum.abs() <= 1e-10 * flux(hb, ub),
                "ratio {ratio}: {momentum}"
            );

            // Left side: Riemann invariant u + 2c carried through the fan.
            let invariant = ub + 2.0 * (G * hb).sqrt();
            assert!(rel_err(invariant, 2.0 * (G * h_left).sqrt()) < 1e-12);
            // Lax entropy condition: a compressive, physical shock.
            let c_m = (G * hb).sqrt();
            assert!(ub - c_m < speed && speed < ub + c_m, "ratio {ratio}");
            assert!(speed > (G * s.h_right).sqrt(), "ratio {ratio}");
        }
    }

    #[test]
    fn stoker_conserves_mass_and_momentum_balance() {
        let (h_left, x_dam, t) = (1.0, 2.0, 0.5);
        let (x_min, x_max) = (-5.0, 10.0);
        for ratio in RATIOS {
            let s = Stoker::new(G, h_left, ratio * h_left, x_dam);
            let mass = integrate(|x| s.depth(x, t), x_min, x_max, 1_000_000);
            let want = h_left * (x_dam - x_min) + s.h_right * (x_max - x_dam);
            assert!(
                rel_err(mass, want) < 1e-6,
                "ratio {ratio}: {mass} vs {want}"
            );
            // Momentum changes only by the pressure difference at the ends.
            let hu = |x: f64| s.depth(x, t) * s.velocity(x, t);
            let momentum = integrate(hu, x_min, x_max, 1_000_000);
            let want = 0.5 * G * (h_left * h_left - s.h_right * s.h_right) * t;
            assert!(rel_err(momentum, want) < 1e-5, "ratio {ratio}: {momentum}");
        }
    }

    #[test]
    fn stoker_tends_to_ritter_on_a_nearly_dry_bed() {
        let (h_left, x_dam, t) = (1.0, 0.0, 1.0);
        let c0 = (G * h_left).sqrt();
        let ritter = Ritter {
            g: G,
            h_left,
            x_dam,
        };
        let mut previous = f64::INFINITY;
        for h_right in [1e-3, 1e-6, 1e-9] {
            let h_m = Stoker::new(G, h_left, h_right, x_dam).middle_depth();
            assert!(h_m < previous && h_m > h_right, "h_m = {h_m}");
            previous = h_m;
        }
        assert!(previous < 1e-3 * h_left);

        let s = Stoker::new(G, h_left, 1e-9, x_dam);
        assert!(rel_err(s.shock_speed(), 2.0 * c0) < 0.02);
        let n = 20_000;
        for i in 0..=n {
            let x = -2.0 * c0 + 5.0 * c0 * i as f64 / n as f64;
            let dh = (s.depth(x, t) - ritter.depth(x, t)).abs();
            assert!(dh < 1e-3 * h_left, "x={x}: dh={dh}");
            let q = |h: f64, u: f64| h * u;
            let dq = (q(s.depth(x, t), s.velocity(x, t))
                - q(ritter.depth(x, t), ritter.velocity(x, t)))
            .abs();
            assert!(dq < 1e-3 * h_left * c0, "x={x}: dq={dq}");
        }
    }

    #[test]
    fn stoker_on_dry_bed_is_ritter() {
        let ritter = Ritter {
            g: G,
            h_left: 3.0,
            x_dam: -1.0,
        };
        let s = Stoker::new(G, 3.0, 0.0, -1.0);
        for i in 0..=400 {
            let x = -20.0 + 0.1 * i as f64;
            assert_eq!(s.depth(x, 1.7), ritter.depth(x, 1.7));
            assert_eq!(s.velocity(x, 1.7), ritter.velocity(x, 1.7));
        }
    }

    #[test]
    fn stoker_depth_at_the_dam() {
        // Shallow tailwater (SWASHES-like h_R/h_L = 0.1): the fan spans the
        // dam, so the dam section is critical exactly as in Ritter.
        let s = Stoker::new(G, 0.005, 0.0005, 5.0);
        let c_m = (G * s.middle_depth()).sqrt();
        assert!(s.middle_velocity() > c_m, "supercritical middle state");
        let (h, u) = (s.depth(5.0, 6.0), s.velocity(5.0, 6.0));
        assert!(rel_err(h, 4.0 / 9.0 * 0.005) < 1e-14);
        assert!(rel_err(u, (G * h).sqrt()) < 1e-14);

        // Deep tailwater (SWASHES classic 0.005 / 0.001): the fan stays
        // upstream, the dam sees the subcritical middle state.
        let s = Stoker::new(G, 0.005, 0.001, 5.0);
        let (h, u) = (s.depth(5.0, 6.0), s.velocity(5.0, 6.0));
        assert_eq!(h, s.middle_depth());
        assert!(h > 4.0 / 9.0 * 0.005 && h < 0.005);
        assert!(u < (G * h).sqrt(), "subcritical at the dam");
    }

    #[test]
    fn stoker_edge_inputs_stay_finite() {
        let still = Stoker::new(G, 1.0, 1.0, 0.0);
        assert_eq!(still.middle_depth(), 1.0);
        assert_eq!(still.middle_velocity(), 0.0);
        assert!(rel_err(still.shock_speed(), G.sqrt()) < 1e-15);
        for x in [-10.0, 0.0, 10.0] {
            assert_eq!(still.depth(x, 1.0), 1.0);
            assert_eq!(still.velocity(x, 1.0), 0.0);
        }
        let s = Stoker::new(G, 1.0, 0.2, 0.0);
        assert_eq!(s.depth(-1e-9, 0.0), 1.0);
        assert_eq!(s.depth(0.0, 0.0), 0.2);
    }
}
