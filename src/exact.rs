//! Exact solutions of the 1D/2D shallow-water equations, for validation.
//!
//! Each solution is coded straight from its closed form in f64, so that the
//! (f32, GPU) solver can be compared against something that shares no code
//! with it. Notation: `h` depth, `u`/`v` depth-averaged velocity, `z` bed
//! elevation, `g` gravitational acceleration (the solver uses 9.81).
//!
//! * [`Ritter`]: dam break onto a dry, flat, frictionless bed.
//! * [`Stoker`]: dam break onto a wet, flat, frictionless bed.
//! * [`ThackerPlanar`]: planar free surface sloshing in a paraboloid bowl
//!   (moving shoreline, bed source term).

use std::f64::consts::PI;

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
/// [h_right, h_left]. Bisection cannot fail on a monotone function, and it is
/// run until the midpoint no longer splits the bracket, i.e. to full f64
/// precision (the bracket width at the end is one ulp of h_m).
fn solve_middle_depth(g: f64, h_left: f64, h_right: f64) -> f64 {
    if h_right >= h_left {
        // No dam break towards +x: treat as still water.
        return h_left;
    }
    let (mut lo, mut hi) = (h_right, h_left);
    // 1100 halvings span the whole f64 exponent range; the loop stops long
    // before that, when `mid` coincides with an end of the bracket.
    for _ in 0..1100 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        let f = middle_state_mismatch(g, h_left, h_right, mid);
        if f > 0.0 {
            lo = mid;
        } else if f < 0.0 {
            hi = mid;
        } else {
            return mid;
        }
    }
    0.5 * (lo + hi)
}

/// Thacker (1981) planar surface oscillating in a paraboloid bowl, as in
/// SWASHES ("Planar surface in a paraboloid", Delestre et al.) and the
/// GeoClaw `bowl-slosh` example:
///
/// * bed z(x,y) = −h0 (1 − r²/a²), r² = (x−xc)² + (y−yc)²;
/// * ω = sqrt(2 g h0)/a, period T = 2π/ω;
/// * h = max(0, η h0/a² (2 (x−xc) cos ωt + 2 (y−yc) sin ωt − η) − z(x,y));
/// * u = −η ω sin ωt, v = η ω cos ωt where wet (zero where dry).
///
/// The free surface h + z is a tilted plane and the velocity is uniform.
/// Completing the square shows h = h0 (1 − R²/a²) with R the distance to the
/// point (xc + η cos ωt, yc + η sin ωt): a cap of fixed shape whose centre
/// circles the bowl's centre with radius η, so its volume π h0 a²/2 is
/// constant. There is no friction; the bed-slope source −g h ∇z is what
/// drives the oscillation, so this case exercises that term and wet/dry fronts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThackerPlanar {
    pub g: f64,
    pub a: f64,
    pub h0: f64,
    pub eta: f64,
    pub xc: f64,
    pub yc: f64,
}

impl ThackerPlanar {
    /// Angular frequency ω = sqrt(2 g h0)/a.
    pub fn omega(&self) -> f64 {
        (2.0 * self.g * self.h0).sqrt() / self.a
    }

    /// Oscillation period T = 2π/ω.
    pub fn period(&self) -> f64 {
        2.0 * PI / self.omega()
    }

    /// Bed elevation z(x, y) = −h0 (1 − r²/a²).
    pub fn bed(&self, x: f64, y: f64) -> f64 {
        let (dx, dy) = (x - self.xc, y - self.yc);
        let r2 = dx * dx + dy * dy;
        -self.h0 * (1.0 - r2 / (self.a * self.a))
    }

    /// Free-surface elevation of the (wet part of the) plane.
    fn surface(&self, x: f64, y: f64, t: f64) -> f64 {
        let (s, c) = (self.omega() * t).sin_cos();
        let (dx, dy) = (x - self.xc, y - self.yc);
        self.eta * self.h0 / (self.a * self.a) * (2.0 * dx * c + 2.0 * dy * s - self.eta)
    }

    /// Water depth h(x, y, t) ≥ 0.
    pub fn depth(&self, x: f64, y: f64, t: f64) -> f64 {
        (self.surface(x, y, t) - self.bed(x, y)).max(0.0)
    }

    /// Velocity (u, v): uniform where wet, (0, 0) on dry ground.
    pub fn velocity(&self, x: f64, y: f64, t: f64) -> (f64, f64) {
        if self.depth(x, y, t) <= 0.0 {
            return (0.0, 0.0);
        }
        let (s, c) = (self.omega() * t).sin_cos();
        let amplitude = self.eta * self.omega();
        (-amplitude * s, amplitude * c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: f64 = 9.81;

    /// Composite midpoint rule of `f` over [lo, hi] with `n` cells. Its error
    /// at a kink is O(dx²) and at a jump at most jump · dx/2.
    fn integrate(f: impl Fn(f64) -> f64, lo: f64, hi: f64, n: usize) -> f64 {
        let dx = (hi - lo) / n as f64;
        (0..n).map(|i| f(lo + (i as f64 + 0.5) * dx)).sum::<f64>() * dx
    }

    fn rel_err(got: f64, want: f64) -> f64 {
        (got - want).abs() / want.abs()
    }

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

    // --------------------------------------------------------------- Thacker

    /// SWASHES / GeoClaw parameters (a = 1, h0 = 0.1, η = 0.5), off-origin.
    fn thacker() -> ThackerPlanar {
        ThackerPlanar {
            g: G,
            a: 1.0,
            h0: 0.1,
            eta: 0.5,
            xc: 2.0,
            yc: 2.0,
        }
    }

    type Field<'a> = &'a dyn Fn(f64, f64, f64) -> [f64; 3];

    /// Relative residuals of the 2D SWE in conservative form,
    ///   ∂t q + ∂x F(q) + ∂y G(q) = (0, −g h ∂x z, −g h ∂y z),
    /// at (x, y, t) by second-order central differences, each divided by the
    /// sum of the magnitudes of its terms, or by `floor[k]` where all of them
    /// are small (at the bowl's centre every mass term vanishes).
    fn swe_residuals(
        field: Field,
        bed: &dyn Fn(f64, f64) -> f64,
        floor: [f64; 3],
        p: [f64; 3],
    ) -> [f64; 3] {
        let [x, y, t] = p;
        let (d, dt) = (1e-5, 1e-5);
        let q = |x: f64, y: f64, t: f64| {
            let [h, u, v] = field(x, y, t);
            [h, h * u, h * v]
        };
        let f = |x: f64, y: f64| {
            let [h, u, v] = field(x, y, t);
            [h * u, h * u * u + 0.5 * G * h * h, h * u * v]
        };
        let g = |x: f64, y: f64| {
            let [h, u, v] = field(x, y, t);
            [h * v, h * u * v, h * v * v + 0.5 * G * h * h]
        };
        let h = field(x, y, t)[0];
        let zx = (bed(x + d, y) - bed(x - d, y)) / (2.0 * d);
        let zy = (bed(x, y + d) - bed(x, y - d)) / (2.0 * d);
        let source = [0.0, -G * h * zx, -G * h * zy];
        let mut out = [0.0; 3];
        for k in 0..3 {
            let terms = [
                (q(x, y, t + dt)[k] - q(x, y, t - dt)[k]) / (2.0 * dt),
                (f(x + d, y)[k] - f(x - d, y)[k]) / (2.0 * d),
                (g(x, y + d)[k] - g(x, y - d)[k]) / (2.0 * d),
                -source[k],
            ];
            let scale = terms.iter().map(|v| v.abs()).sum::<f64>().max(floor[k]);
            out[k] = terms.iter().sum::<f64>().abs() / scale;
        }
        out
    }

    /// Interior points well inside the wet cap (h > h0/4), at several times.
    fn wet_points(th: &ThackerPlanar) -> Vec<[f64; 3]> {
        let period = th.period();
        let mut points = Vec::new();
        for (i, frac) in [0.0, 0.13, 0.37, 0.5, 0.81].iter().enumerate() {
            let t = frac * period;
            for (dx, dy) in [(0.1, 0.2), (-0.3, 0.05), (0.25, -0.35), (0.0, 0.0)] {
                let shift = 0.07 * i as f64;
                let (x, y) = (th.xc + dx + shift, th.yc + dy - shift);
                if th.depth(x, y, t) > 0.25 * th.h0 {
                    points.push([x, y, t]);
                }
            }
        }
        points
    }

    /// Typical sizes of the mass and momentum terms, used as residual floors:
    /// h0 η ω / a and g h0 · h0 η / a², times 1e-3.
    fn floors(th: &ThackerPlanar) -> [f64; 3] {
        let mass = th.h0 * th.eta * th.omega() / th.a;
        let momentum = G * th.h0 * th.h0 * th.eta / (th.a * th.a);
        [1e-3 * mass, 1e-3 * momentum, 1e-3 * momentum]
    }

    #[test]
    fn thacker_satisfies_the_shallow_water_equations() {
        let th = thacker();
        let field = |x: f64, y: f64, t: f64| {
            let (u, v) = th.velocity(x, y, t);
            [th.depth(x, y, t), u, v]
        };
        let bed = |x: f64, y: f64| th.bed(x, y);
        let points = wet_points(&th);
        assert!(points.len() >= 12, "only {} wet points", points.len());
        for p in points {
            let r = swe_residuals(&field, &bed, floors(&th), p);
            assert!(r.iter().all(|&v| v < 1e-7), "at {p:?}: {r:?}");
        }
    }

    #[test]
    fn thacker_residual_check_detects_a_wrong_frequency() {
        // Same formulas with ω off by 2%: the check above must reject it.
        let th = thacker();
        let wrong = ThackerPlanar {
            h0: th.h0 * 1.02 * 1.02,
            ..th
        };
        let field = |x: f64, y: f64, t: f64| {
            let (u, v) = wrong.velocity(x, y, t);
            [th.depth(x, y, t), u, v]
        };
        let bed = |x: f64, y: f64| th.bed(x, y);
        let worst = wet_points(&th)
            .into_iter()
            .map(|p| {
                swe_residuals(&field, &bed, floors(&th), p)
                    .into_iter()
                    .fold(0.0, f64::max)
            })
            .fold(0.0, f64::max);
        assert!(worst > 1e-3, "worst residual {worst}");
    }

    #[test]
    fn thacker_depth_is_a_cap_circling_the_centre() {
        // Independent form: h = h0 (1 − R²/a²)⁺ around the moving point
        // (xc + η cos ωt, yc + η sin ωt).
        let th = thacker();
        let omega = (2.0 * G * th.h0).sqrt() / th.a;
        for t in [0.0, 0.3, 1.1, 2.9] {
            let (cx, cy) = (
                th.xc + th.eta * (omega * t).cos(),
                th.yc + th.eta * (omega * t).sin(),
            );
            for i in 0..=40 {
                for j in 0..=40 {
                    let x = th.xc - 2.0 + 0.1 * i as f64;
                    let y = th.yc - 2.0 + 0.1 * j as f64;
                    let r2 = (x - cx).powi(2) + (y - cy).powi(2);
                    let want = (th.h0 * (1.0 - r2 / (th.a * th.a))).max(0.0);
                    assert!((th.depth(x, y, t) - want).abs() < 1e-14, "({x},{y},{t})");
                }
            }
        }
    }

    #[test]
    fn thacker_volume_is_constant() {
        let th = thacker();
        let n = 800;
        let half = 2.0 * th.a;
        let dx = 2.0 * half / n as f64;
        let volume = |t: f64| {
            let mut sum = 0.0;
            for i in 0..n {
                let x = th.xc - half + (i as f64 + 0.5) * dx;
                for j in 0..n {
                    let y = th.yc - half + (j as f64 + 0.5) * dx;
                    sum += th.depth(x, y, t);
                }
            }
            sum * dx * dx
        };
        let want = 0.5 * PI * th.h0 * th.a * th.a;
        let period = th.period();
        let v0 = volume(0.0);
        for frac in [0.0, 0.125, 0.3, 0.5, 0.77] {
            let v = volume(frac * period);
            assert!(rel_err(v, want) < 1e-4, "t={frac}T: {v} vs {want}");
            assert!(rel_err(v, v0) < 1e-4, "t={frac}T: {v} vs {v0}");
        }
    }

    #[test]
    fn thacker_is_periodic() {
        let th = thacker();
        let period = th.period();
        let want = 2.0 * PI * th.a / (2.0 * G * th.h0).sqrt();
        assert!(rel_err(period, want) < 1e-14);

        let mut half_period_differs = false;
        for i in 0..=30 {
            for j in 0..=30 {
                let x = th.xc - 1.5 + 0.1 * i as f64;
                let y = th.yc - 1.5 + 0.1 * j as f64;
                let h = th.depth(x, y, 0.0);
                assert!((th.depth(x, y, period) - h).abs() < 1e-13);
                // Velocity jumps to 0 at the shoreline, where h may round to
                // 0 at one time and 1e-17 at the other: compare where wet.
                if h > 1e-9 {
                    let (u0, v0) = th.velocity(x, y, 0.0);
                    let (u1, v1) = th.velocity(x, y, period);
                    assert!((u1 - u0).abs() < 1e-13 && (v1 - v0).abs() < 1e-13);
                }
                half_period_differs |= (th.depth(x, y, 0.5 * period) - h).abs() > 0.01;
            }
        }
        assert!(half_period_differs, "solution should move within a period");
    }

    #[test]
    fn thacker_is_dry_outside_and_still_where_dry() {
        let th = thacker();
        // At t = 0 the cap is centred at (xc + η, yc): the far left is dry.
        let (x, y) = (th.xc - 0.9 * th.a, th.yc);
        assert_eq!(th.depth(x, y, 0.0), 0.0);
        assert_eq!(th.velocity(x, y, 0.0), (0.0, 0.0));
        assert!(th.bed(x, y) > th.bed(th.xc, th.yc));
        assert_eq!(th.bed(th.xc, th.yc), -th.h0);
        // Wet: the velocity magnitude is η ω.
        let (u, v) = th.velocity(th.xc + th.eta, th.yc, 0.0);
        assert_eq!(u, 0.0);
        assert!(rel_err(v, th.eta * th.omega()) < 1e-15);
    }
}
