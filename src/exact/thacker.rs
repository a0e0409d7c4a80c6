//! Thacker's (1981) oscillations in a paraboloid bowl: moving shorelines over a curved bed,
//! without friction.

use std::f64::consts::PI;

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

/// Thacker (1981) radially symmetric oscillation in the same paraboloid, as in
/// SWASHES ("Radially-symmetrical paraboloid"): the free surface is itself a
/// paraboloid that rises and falls, its shoreline a circle that breathes.
///
/// * bed z(r) = −h0 (1 − r²/a²), r the distance to (xc, yc);
/// * ω = √(8 g h0)/a, period T = 2π/ω;
/// * A = (a² − r0²)/(a² + r0²) sets the amplitude (0 ≤ A < 1; `r0` < `a`);
/// * ψ(t) = √(1 − A²)/(1 − A cos ωt);
/// * h = h0 ψ (1 − ψ r²/a²) where positive, else 0 (shoreline r² = a²/ψ);
/// * radial velocity u_r = r A ω sin ωt / (2 (1 − A cos ωt)) where wet.
///
/// The volume ∫ 2π r h dr = π h0 a²/2 does not depend on ψ, hence on t. The
/// velocity follows from mass conservation: with u_r = r k(t),
/// ∂t h + (1/r) ∂r (r h u_r) = h0 (1 − 2ψ r²/a²)(ψ' + 2kψ), zero for
/// k = −ψ'/(2ψ); the frequency from the momentum equation (checked by the
/// residual test below). At t = 0, ψ = a/r0 and the shoreline has radius
/// √(a r0); at t = T/2, ψ = r0/a.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThackerRadial {
    pub g: f64,
    pub a: f64,
    pub h0: f64,
    pub r0: f64,
    pub xc: f64,
    pub yc: f64,
}

impl ThackerRadial {
    /// Angular frequency ω = √(8 g h0)/a.
    pub fn omega(&self) -> f64 {
        (8.0 * self.g * self.h0).sqrt() / self.a
    }

    /// Oscillation period T = 2π/ω.
    pub fn period(&self) -> f64 {
        2.0 * PI / self.omega()
    }

    /// A = (a² − r0²)/(a² + r0²).
    pub fn amplitude(&self) -> f64 {
        let (a2, r2) = (self.a * self.a, self.r0 * self.r0);
        (a2 - r2) / (a2 + r2)
    }

    /// Bed elevation z = −h0 (1 − r²/a²).
    pub fn bed(&self, x: f64, y: f64) -> f64 {
        -self.h0 * (1.0 - self.radius2(x, y) / (self.a * self.a))
    }

    fn radius2(&self, x: f64, y: f64) -> f64 {
        let (dx, dy) = (x - self.xc, y - self.yc);
        dx * dx + dy * dy
    }

    fn psi(&self, t: f64) -> f64 {
        let a = self.amplitude();
        (1.0 - a * a).sqrt() / (1.0 - a * (self.omega() * t).cos())
    }

    /// Radius of the shoreline at time t, a/√ψ.
    pub fn shoreline(&self, t: f64) -> f64 {
        self.a / self.psi(t).sqrt()
    }

    /// Water depth h(x, y, t) ≥ 0.
    pub fn depth(&self, x: f64, y: f64, t: f64) -> f64 {
        let psi = self.psi(t);
        let r2 = self.radius2(x, y) / (self.a * self.a);
        (self.h0 * psi * (1.0 - psi * r2)).max(0.0)
    }

    /// Velocity (u, v), radial: r k(t) along the radius where wet.
    pub fn velocity(&self, x: f64, y: f64, t: f64) -> (f64, f64) {
        if self.depth(x, y, t) <= 0.0 {
            return (0.0, 0.0);
        }
        let (a, wt) = (self.amplitude(), self.omega() * t);
        let k = a * self.omega() * wt.sin() / (2.0 * (1.0 - a * wt.cos()));
        (k * (x - self.xc), k * (y - self.yc))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::testing::{rel_err, swe_residuals, worst_residual, G};

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
        let worst = worst_residual(&field, &bed, floors(&th), &wet_points(&th));
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

    // ---------------------------------------------------------------- Radial

    /// SWASHES parameters (a = 1, r0 = 0.8, h0 = 0.1), off-origin.
    fn radial() -> ThackerRadial {
        ThackerRadial {
            g: G,
            a: 1.0,
            h0: 0.1,
            r0: 0.8,
            xc: 2.0,
            yc: 2.0,
        }
    }

    fn radial_field(th: ThackerRadial) -> impl Fn(f64, f64, f64) -> [f64; 3] {
        move |x, y, t| {
            let (u, v) = th.velocity(x, y, t);
            [th.depth(x, y, t), u, v]
        }
    }

    /// Wet points (h > h0/4) at several phases, off the axes of symmetry.
    fn radial_points(th: &ThackerRadial) -> Vec<[f64; 3]> {
        let mut points = Vec::new();
        for frac in [0.0, 0.1, 0.3, 0.5, 0.7, 0.93] {
            let t = frac * th.period();
            for (dx, dy) in [(0.1, 0.2), (-0.3, 0.05), (0.25, -0.35), (0.0, 0.0)] {
                let (x, y) = (th.xc + dx, th.yc + dy);
                if th.depth(x, y, t) > 0.25 * th.h0 {
                    points.push([x, y, t]);
                }
            }
        }
        points
    }

    fn radial_floors(th: &ThackerRadial) -> [f64; 3] {
        let mass = th.h0 * th.omega();
        let momentum = G * th.h0 * th.h0 / th.a;
        [1e-3 * mass, 1e-3 * momentum, 1e-3 * momentum]
    }

    #[test]
    fn radial_satisfies_the_shallow_water_equations() {
        let th = radial();
        let bed = |x: f64, y: f64| th.bed(x, y);
        let points = radial_points(&th);
        assert!(points.len() >= 16, "only {} wet points", points.len());
        for p in points {
            let r = swe_residuals(&radial_field(th), &bed, radial_floors(&th), p);
            assert!(r.iter().all(|&v| v < 1e-7), "at {p:?}: {r:?}");
        }
    }

    #[test]
    fn radial_residual_check_detects_a_wrong_frequency() {
        let th = radial();
        let wrong = ThackerRadial {
            h0: th.h0 * 1.02 * 1.02,
            ..th
        };
        // Depth of the true solution, velocity (and phase) with ω 2% off.
        let field = |x: f64, y: f64, t: f64| {
            let (u, v) = wrong.velocity(x, y, t);
            [th.depth(x, y, t), u, v]
        };
        let bed = |x: f64, y: f64| th.bed(x, y);
        let worst = worst_residual(&field, &bed, radial_floors(&th), &radial_points(&th));
        assert!(worst > 1e-3, "worst residual {worst}");
    }

    #[test]
    fn radial_volume_is_constant_and_the_shoreline_breathes() {
        let th = radial();
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
        for frac in [0.0, 0.2, 0.5, 0.77] {
            let v = volume(frac * th.period());
            assert!(rel_err(v, want) < 1e-4, "t={frac}T: {v} vs {want}");
        }
        assert!(rel_err(th.shoreline(0.0), (th.a * th.r0).sqrt()) < 1e-14);
        let half_period = 0.5 * th.period();
        assert!(rel_err(th.shoreline(half_period), th.a / (th.r0 / th.a).sqrt()) < 1e-14);
        let t = 0.3 * th.period();
        let edge = th.shoreline(t);
        assert!(th.depth(th.xc + 0.999 * edge, th.yc, t) > 0.0);
        assert_eq!(th.depth(th.xc + 1.001 * edge, th.yc, t), 0.0);
        assert_eq!(th.velocity(th.xc + 1.001 * edge, th.yc, t), (0.0, 0.0));
    }
}
