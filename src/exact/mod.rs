//! Exact solutions of the 1D/2D shallow-water equations, for validation.
//!
//! Each solution is coded straight from its closed form (or, for the steady
//! flows over a given bed, from the ordinary differential equation they obey)
//! in f64, so that the (f32, GPU) solver can be compared against something
//! that shares no code with it. Notation: `h` depth, `u`/`v` depth-averaged
//! velocity, `q = h u` unit discharge, `z` bed elevation, `g` gravitational
//! acceleration (the solver uses 9.81), `n` Manning's coefficient.
//!
//! * [`dam_break`]: Ritter (dry bed) and Stoker (wet bed) dam breaks.
//! * [`thacker`]: Thacker's planar and radial oscillations in a paraboloid
//!   bowl (moving shorelines, bed source term).
//! * [`macdonald`]: MacDonald's steady flows with Manning friction over the
//!   bed that makes a chosen depth profile exact (sub-, super-, transcritical,
//!   with and without a hydraulic jump).
//! * [`bump`]: steady flow over a parabolic bump (Bernoulli and
//!   Rankine–Hugoniot).
//! * [`step`]: dam break over a bed step, with either of two step relations.
//! * [`fronts`]: water entering a dry bed through a stage or an inflow edge.

pub mod bump;
pub mod dam_break;
pub mod fronts;
pub mod macdonald;
pub mod step;
pub mod thacker;

pub use bump::{Bump, BumpFlow};
pub use dam_break::{Ritter, Stoker};
pub use fronts::{CriticalInflow, StageOnDryBed};
pub use macdonald::{MacDonald, Profile};
pub use step::{StepDamBreak, StepRelation};
pub use thacker::{ThackerPlanar, ThackerRadial};

/// Why an exact solution cannot be built for the given parameters (a flow
/// that chokes, a shock that has no place, a relation with no root).
#[derive(Debug, Clone, PartialEq)]
pub struct NoSolution(pub String);

impl std::fmt::Display for NoSolution {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no exact solution: {}", self.0)
    }
}

impl std::error::Error for NoSolution {}

/// Root of `f` in [lo, hi], where f(lo) and f(hi) differ in sign (either
/// way round), by bisection to full f64 precision: the loop ends when the
/// midpoint no longer splits the bracket (1100 halvings span the whole f64
/// exponent range, so the bound is never reached first).
pub(crate) fn bisect(f: impl Fn(f64) -> f64, lo: f64, hi: f64) -> f64 {
    let (mut lo, mut hi) = (lo, hi);
    let rising = f(lo) < 0.0;
    for _ in 0..1100 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        let v = f(mid);
        if v == 0.0 {
            return mid;
        }
        if (v < 0.0) == rising {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Nodes and weights of 8-point Gauss–Legendre quadrature on [−1, 1]
/// (exact for polynomials of degree 15).
const GAUSS_8: [(f64, f64); 4] = [
    (0.183_434_642_495_649_8, 0.362_683_783_378_362),
    (0.525_532_409_916_329, 0.313_706_645_877_887_3),
    (0.796_666_477_413_626_7, 0.222_381_034_453_374_5),
    (0.960_289_856_497_536_3, 0.101_228_536_290_376_3),
];

/// ∫ f over [a, b] by 8-point Gauss–Legendre on `panels` equal panels. On a
/// smooth integrand the error falls like (panel width)^16: a few hundred
/// panels reach f64 round-off for the profiles used here.
pub(crate) fn integrate(f: impl Fn(f64) -> f64, a: f64, b: f64, panels: usize) -> f64 {
    let width = (b - a) / panels as f64;
    let mut sum = 0.0;
    for k in 0..panels {
        let mid = a + (k as f64 + 0.5) * width;
        let half = 0.5 * width;
        for (node, weight) in GAUSS_8 {
            sum += weight * (f(mid - half * node) + f(mid + half * node)) * half;
        }
    }
    sum
}

/// Critical depth of unit discharge q: the depth at which the flow speed
/// equals the wave speed, q²/(g h³) = 1.
pub fn critical_depth(g: f64, q: f64) -> f64 {
    (q * q / g).cbrt()
}

/// Specific energy h + q²/(2 g h²): the head above the bed, constant along a
/// steady frictionless flow over a smooth bed when the bed is added.
pub fn specific_energy(g: f64, q: f64, h: f64) -> f64 {
    h + q * q / (2.0 * g * h * h)
}

/// Momentum function q²/h + g h²/2 (per unit width, divided by the density):
/// conserved across a stationary hydraulic jump on a flat bed.
pub fn momentum_function(g: f64, q: f64, h: f64) -> f64 {
    q * q / h + 0.5 * g * h * h
}

/// Depth after a stationary hydraulic jump from depth `h` (Bélanger): the
/// other root of the momentum function, h/2 (√(1 + 8 Fr²) − 1).
pub fn conjugate_depth(g: f64, q: f64, h: f64) -> f64 {
    let froude2 = q * q / (g * h * h * h);
    0.5 * h * ((1.0 + 8.0 * froude2).sqrt() - 1.0)
}

/// The subcritical (deeper) depth with specific energy `e`, or None where
/// `e` is below the critical energy (the flow chokes).
pub fn subcritical_depth(g: f64, q: f64, e: f64) -> Option<f64> {
    let hc = critical_depth(g, q);
    if q == 0.0 {
        return (e >= 0.0).then_some(e);
    }
    if e < specific_energy(g, q, hc) {
        return None;
    }
    // e(h) rises from e(hc) ≤ e and exceeds e at h = e.
    Some(bisect(|h| specific_energy(g, q, h) - e, hc, e))
}

/// The supercritical (shallower) depth with specific energy `e`, or None
/// where `e` is below the critical energy.
pub fn supercritical_depth(g: f64, q: f64, e: f64) -> Option<f64> {
    let hc = critical_depth(g, q);
    if q == 0.0 || e < specific_energy(g, q, hc) {
        return None;
    }
    // e(h) > q²/(2 g h²) ≥ e for h ≤ q/√(2 g e): the bracket's shallow end.
    let shallow = q / (2.0 * g * e).sqrt();
    Some(bisect(|h| specific_energy(g, q, h) - e, shallow, hc))
}

#[cfg(test)]
pub(crate) mod testing {
    //! Helpers shared by the unit tests of the exact solutions.

    pub const G: f64 = 9.81;

    /// Composite midpoint rule of `f` over [lo, hi] with `n` cells. Its error
    /// at a kink is O(dx²) and at a jump at most jump · dx/2.
    pub fn integrate(f: impl Fn(f64) -> f64, lo: f64, hi: f64, n: usize) -> f64 {
        let dx = (hi - lo) / n as f64;
        (0..n).map(|i| f(lo + (i as f64 + 0.5) * dx)).sum::<f64>() * dx
    }

    pub fn rel_err(got: f64, want: f64) -> f64 {
        (got - want).abs() / want.abs()
    }

    pub type Field<'a> = &'a dyn Fn(f64, f64, f64) -> [f64; 3];

    /// The largest relative residual (`swe_residuals`) over `points`.
    pub fn worst_residual(
        field: Field,
        bed: &dyn Fn(f64, f64) -> f64,
        floor: [f64; 3],
        points: &[[f64; 3]],
    ) -> f64 {
        points
            .iter()
            .flat_map(|&p| swe_residuals(field, bed, floor, p))
            .fold(0.0, f64::max)
    }

    /// Relative residuals of the 2D SWE in conservative form,
    ///   ∂t q + ∂x F(q) + ∂y G(q) = (0, −g h ∂x z, −g h ∂y z),
    /// at (x, y, t) by second-order central differences, each divided by the
    /// sum of the magnitudes of its terms, or by `floor[k]` where all of them
    /// are small (at a bowl's centre every mass term vanishes).
    pub fn swe_residuals(
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
}

#[cfg(test)]
mod tests {
    use super::testing::{rel_err, G};
    use super::*;

    #[test]
    fn bisect_finds_roots_of_either_slope() {
        let r = bisect(|x| x * x - 2.0, 0.0, 2.0);
        assert!(rel_err(r, 2f64.sqrt()) < 1e-15);
        let r = bisect(|x| 2.0 - x * x, 0.0, 2.0);
        assert!(rel_err(r, 2f64.sqrt()) < 1e-15);
    }

    #[test]
    fn gauss_legendre_is_exact_to_degree_15() {
        let p = |x: f64| x.powi(15) - 3.0 * x.powi(8) + x;
        let want = |x: f64| x.powi(16) / 16.0 - x.powi(9) / 3.0 + 0.5 * x * x;
        let got = integrate(p, -0.3, 1.7, 1);
        assert!(rel_err(got, want(1.7) - want(-0.3)) < 1e-13);
        let got = integrate(|x| x.exp(), 0.0, 3.0, 20);
        assert!(rel_err(got, 3f64.exp() - 1.0) < 1e-14);
    }

    #[test]
    fn energy_roots_bracket_the_critical_depth() {
        let q = 1.53;
        let hc = critical_depth(G, q);
        assert!(rel_err(q * q / (G * hc.powi(3)), 1.0) < 1e-14);
        let e = 1.3 * specific_energy(G, q, hc);
        let sub = subcritical_depth(G, q, e).unwrap();
        let sup = supercritical_depth(G, q, e).unwrap();
        assert!(sup < hc && hc < sub);
        assert!(rel_err(specific_energy(G, q, sub), e) < 1e-14);
        assert!(rel_err(specific_energy(G, q, sup), e) < 1e-14);
        assert_eq!(
            subcritical_depth(G, q, 0.99 * specific_energy(G, q, hc)),
            None
        );
        // Bélanger's conjugate depths share the momentum function.
        let h2 = conjugate_depth(G, q, sup);
        assert!(h2 > hc);
        assert!(rel_err(momentum_function(G, q, h2), momentum_function(G, q, sup)) < 1e-14);
    }
}
