//! Steady, frictionless flow over a parabolic bump in a channel (Goutal &
//! Maurel 1997; SWASHES §3.1.1): z(x) = max(0, height − (x − centre)²·height/half_width²).
//!
//! A steady flow has h u = q constant and, where it is smooth, a constant head
//! (Bernoulli) E = h + q²/(2 g h²) + z. Given the head, each x has a
//! subcritical and a supercritical depth (or none, where the flow would choke);
//! which one holds follows from the boundary conditions:
//!
//! * subcritical: the head is set by the downstream depth, every depth is the
//!   subcritical root;
//! * transcritical: the flow passes through critical depth hc = (q²/g)^(1/3)
//!   at the crest, so E = 3/2 hc + z_crest; subcritical upstream of the
//!   crest, supercritical downstream;
//! * with a shock: as transcritical upstream and just past the crest; a
//!   stationary hydraulic jump where the supercritical depth and the
//!   subcritical depth of the downstream head (set by the downstream depth)
//!   have equal momentum functions q²/h + g h²/2 (Rankine–Hugoniot for a
//!   jump of speed 0 on the local bed), subcritical after it.

use super::{
    bisect, critical_depth, momentum_function, specific_energy, subcritical_depth,
    supercritical_depth, NoSolution,
};

/// The bed: a parabola of `height` at `centre`, zero beyond ±`half_width`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bump {
    pub centre: f64,
    pub half_width: f64,
    pub height: f64,
}

impl Bump {
    /// The classic bump: 0.2 m high at x = 10 m, from x = 8 to 12 m.
    pub const CLASSIC: Bump = Bump {
        centre: 10.0,
        half_width: 2.0,
        height: 0.2,
    };

    pub fn bed(&self, x: f64) -> f64 {
        let s = (x - self.centre) / self.half_width;
        (self.height * (1.0 - s * s)).max(0.0)
    }
}

/// Which steady flow; see the module documentation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Regime {
    /// Subcritical throughout, depth `h_out` at the outlet.
    Subcritical { h_out: f64 },
    /// Critical at the crest, free outflow.
    Transcritical,
    /// Critical at the crest, a jump, depth `h_out` at the outlet.
    Shock { h_out: f64 },
}

/// A steady flow of unit discharge `q` over `bump`. Build it with
/// [`BumpFlow::new`], which checks that the regime exists for this q.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BumpFlow {
    pub g: f64,
    pub q: f64,
    pub bump: Bump,
    pub regime: Regime,
    /// Head upstream of any jump, and downstream of it.
    head_up: f64,
    head_down: f64,
    shock: Option<f64>,
}

impl BumpFlow {
    pub fn new(g: f64, q: f64, bump: Bump, regime: Regime) -> Result<BumpFlow, NoSolution> {
        let hc = critical_depth(g, q);
        let critical_head = specific_energy(g, q, hc) + bump.height;
        let outlet_head = |h_out: f64| specific_energy(g, q, h_out);
        let (head_up, head_down) = match regime {
            Regime::Subcritical { h_out } => (outlet_head(h_out), outlet_head(h_out)),
            Regime::Transcritical => (critical_head, critical_head),
            Regime::Shock { h_out } => (critical_head, outlet_head(h_out)),
        };
        let mut flow = BumpFlow {
            g,
            q,
            bump,
            regime,
            head_up,
            head_down,
            shock: None,
        };
        match regime {
            Regime::Subcritical { h_out } => {
                if h_out <= hc || head_up < critical_head {
                    return Err(NoSolution(format!(
                        "h_out = {h_out} m cannot carry q = {q} m²/s subcritically over the crest"
                    )));
                }
            }
            Regime::Transcritical => {}
            Regime::Shock { h_out } => {
                if h_out <= hc || head_down >= critical_head {
                    return Err(NoSolution(format!(
                        "h_out = {h_out} m drowns the crest or is supercritical: no jump"
                    )));
                }
                flow.shock = Some(flow.find_shock()?);
            }
        }
        Ok(flow)
    }

    /// Position of the hydraulic jump, in the shock regime.
    pub fn shock_position(&self) -> Option<f64> {
        self.shock
    }

    /// Depth at x.
    pub fn depth(&self, x: f64) -> f64 {
        let e_up = self.head_up - self.bump.bed(x);
        let e_down = self.head_down - self.bump.bed(x);
        let sub = |e: f64| subcritical_depth(self.g, self.q, e);
        let sup = |e: f64| supercritical_depth(self.g, self.q, e);
        // Round-off can put the crest's energy a hair under critical.
        let hc = critical_depth(self.g, self.q);
        let depth = match self.regime {
            Regime::Subcritical { .. } => sub(e_up),
            Regime::Transcritical if x <= self.bump.centre => sub(e_up),
            Regime::Transcritical => sup(e_up),
            Regime::Shock { .. } if x <= self.bump.centre => sub(e_up),
            Regime::Shock { .. } if x < self.shock.unwrap_or(f64::INFINITY) => sup(e_up),
            Regime::Shock { .. } => sub(e_down),
        };
        depth.unwrap_or(hc)
    }

    /// Unit discharge: q everywhere, in a steady flow.
    pub fn discharge(&self, _x: f64) -> f64 {
        self.q
    }

    /// The jump lies past the crest where the supercritical depth of the
    /// upstream head and the subcritical depth of the downstream head have
    /// equal momentum functions. The downstream head has a subcritical depth
    /// only where the bed has fallen enough, and there at first it is near
    /// critical, where the momentum function is smallest: the mismatch starts
    /// positive (the supercritical flow pushes the jump downstream). It must
    /// turn negative by the foot of the bump, or the jump has no fixed place
    /// (it would stand anywhere on the flat bed, or be swept out).
    fn find_shock(&self) -> Result<f64, NoSolution> {
        let mismatch = |x: f64| {
            let z = self.bump.bed(x);
            let sup = supercritical_depth(self.g, self.q, self.head_up - z);
            let sub = subcritical_depth(self.g, self.q, self.head_down - z);
            match (sup, sub) {
                (Some(a), Some(b)) => {
                    momentum_function(self.g, self.q, a) - momentum_function(self.g, self.q, b)
                }
                _ => f64::NAN,
            }
        };
        let (crest, foot) = (self.bump.centre, self.bump.centre + self.bump.half_width);
        let steps = 10_000;
        let mut previous: Option<f64> = None;
        for k in 1..=steps {
            let x = crest + (foot - crest) * k as f64 / steps as f64;
            let m = mismatch(x);
            if let Some(before) = previous {
                if m <= 0.0 {
                    return Ok(bisect(mismatch, before, x));
                }
            }
            if m > 0.0 {
                previous = Some(x);
            }
        }
        Err(NoSolution(format!(
            "no jump on the bump's lee side (momentum mismatch {} at the foot)",
            mismatch(foot)
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::testing::{rel_err, G};

    fn sub() -> BumpFlow {
        BumpFlow::new(G, 4.42, Bump::CLASSIC, Regime::Subcritical { h_out: 2.0 }).unwrap()
    }

    fn trans() -> BumpFlow {
        BumpFlow::new(G, 1.53, Bump::CLASSIC, Regime::Transcritical).unwrap()
    }

    fn shock() -> BumpFlow {
        BumpFlow::new(G, 0.18, Bump::CLASSIC, Regime::Shock { h_out: 0.33 }).unwrap()
    }

    fn head(f: &BumpFlow, x: f64) -> f64 {
        specific_energy(G, f.q, f.depth(x)) + f.bump.bed(x)
    }

    fn froude(f: &BumpFlow, x: f64) -> f64 {
        let h = f.depth(x);
        f.q / (h * (G * h).sqrt())
    }

    #[test]
    fn bed_is_the_classic_parabola() {
        let b = Bump::CLASSIC;
        assert_eq!(b.bed(10.0), 0.2);
        assert!((b.bed(11.0) - (0.2 - 0.05)).abs() < 1e-15);
        assert_eq!(b.bed(7.9), 0.0);
        assert_eq!(b.bed(12.1), 0.0);
    }

    #[test]
    fn subcritical_flow_keeps_its_head() {
        let f = sub();
        let e = head(&f, 25.0);
        assert!(rel_err(f.depth(25.0), 2.0) < 1e-14);
        for k in 0..=250 {
            let x = 0.1 * k as f64;
            assert!(rel_err(head(&f, x), e) < 1e-14, "x = {x}");
            assert!(froude(&f, x) < 1.0);
        }
        // The surface dips over the bump in subcritical flow.
        assert!(f.depth(10.0) + 0.2 < f.depth(0.0));
    }

    #[test]
    fn transcritical_flow_is_critical_at_the_crest() {
        let f = trans();
        let hc = critical_depth(G, f.q);
        assert!(rel_err(f.depth(10.0), hc) < 1e-7);
        for k in 0..=250 {
            let x = 0.1 * k as f64;
            assert!(rel_err(head(&f, x), 1.5 * hc + 0.2) < 1e-12, "x = {x}");
            if (x - 10.0).abs() > 0.05 {
                assert_eq!(froude(&f, x) < 1.0, x < 10.0, "x = {x}");
            }
        }
        // Continuous through the crest.
        assert!((f.depth(10.0 - 1e-6) - f.depth(10.0 + 1e-6)).abs() < 1e-3);
    }

    #[test]
    fn the_jump_conserves_momentum_where_it_stands() {
        let f = shock();
        let xs = f.shock_position().unwrap();
        assert!(xs > 10.0 && xs < 12.0, "jump at {xs}");
        let (before, after) = (f.depth(xs - 1e-9), f.depth(xs + 1e-9));
        assert!(before < after, "a jump up: {before} -> {after}");
        assert!(froude(&f, xs - 1e-9) > 1.0 && froude(&f, xs + 1e-9) < 1.0);
        let m = |h: f64| momentum_function(G, f.q, h);
        assert!(rel_err(m(before), m(after)) < 1e-6);
        // Heads: critical upstream, the outlet's downstream, lower.
        assert!(rel_err(head(&f, 5.0), 1.5 * critical_depth(G, f.q) + 0.2) < 1e-12);
        assert!(rel_err(f.depth(25.0), 0.33) < 1e-14);
        assert!(head(&f, 20.0) < head(&f, 5.0));
    }

    #[test]
    fn impossible_regimes_are_refused() {
        // Too little depth downstream to pass 4.42 m²/s subcritically.
        let low = BumpFlow::new(G, 4.42, Bump::CLASSIC, Regime::Subcritical { h_out: 1.0 });
        assert!(low.is_err());
        // A deep outlet drowns the crest: no jump.
        let deep = BumpFlow::new(G, 0.18, Bump::CLASSIC, Regime::Shock { h_out: 0.6 });
        assert!(deep.is_err());
    }
}
