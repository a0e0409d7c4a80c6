//! Thacker's oscillations in a paraboloid bowl (`quadflood::exact::thacker`), 2D: the
//! planar surface circling the bowl and the radial one breathing in it (a = 1 m,
//! h0 = 0.1 m, the bowl centred in a 4 m square basin with walls), the solver's default
//! numerics, run for three periods from the exact state.
//!
//! Targets. The shoreline is a moving front, so the relative L1 depth error after one
//! period must fall at order ≥ 0.8. Beyond the exact shoreline the bed is dry: no cell
//! more than one cell outside it may hold more than the dry threshold (1e-4 m) of water.
//! A stable scheme's error grows by at most the same amount each period:
//! L1(3T) ≤ L1(0) + 3 (L1(T) − L1(0)). Mass error ≤ 1e-5 (a closed basin). Issue 22
//! found the planar error growing from 1.2% to 2.0% over three periods and a film of up
//! to 2 mm outside the shoreline.

use crate::harness::{set_cells, Run, G};
use crate::table::{report, Checks, Row};
use quadflood::exact::{ThackerPlanar, ThackerRadial};
use quadflood::solver::Fields;

const SIDE: f64 = 4.0;
const GRIDS: [usize; 2] = [32, 64];
const PERIODS: usize = 3;
const DRY_DEPTH: f64 = 1e-4;

/// An exact solution in the bowl.
trait Bowl {
    fn bed(&self, x: f64, y: f64) -> f64;
    fn depth(&self, x: f64, y: f64, t: f64) -> f64;
    fn velocity(&self, x: f64, y: f64, t: f64) -> (f64, f64);
    fn period(&self) -> f64;
}

impl Bowl for ThackerPlanar {
    fn bed(&self, x: f64, y: f64) -> f64 {
        ThackerPlanar::bed(self, x, y)
    }
    fn depth(&self, x: f64, y: f64, t: f64) -> f64 {
        ThackerPlanar::depth(self, x, y, t)
    }
    fn velocity(&self, x: f64, y: f64, t: f64) -> (f64, f64) {
        ThackerPlanar::velocity(self, x, y, t)
    }
    fn period(&self) -> f64 {
        ThackerPlanar::period(self)
    }
}

impl Bowl for ThackerRadial {
    fn bed(&self, x: f64, y: f64) -> f64 {
        ThackerRadial::bed(self, x, y)
    }
    fn depth(&self, x: f64, y: f64, t: f64) -> f64 {
        ThackerRadial::depth(self, x, y, t)
    }
    fn velocity(&self, x: f64, y: f64, t: f64) -> (f64, f64) {
        ThackerRadial::velocity(self, x, y, t)
    }
    fn period(&self) -> f64 {
        ThackerRadial::period(self)
    }
}

fn basin(n: usize) -> String {
    format!(
        "[domain]\ncell_size = {}\nnx = {n}\nny = {n}\n[terrain]\ntype = \"flat\"\n[time]\nend = 1e9\n",
        SIDE / n as f64
    )
}

/// Relative L1 depth error, and the deepest water more than one cell outside the exact
/// shoreline.
fn measure(bowl: &dyn Bowl, fields: &Fields, n: usize, t: f64) -> (f64, f64) {
    let dx = SIDE / n as f64;
    let (mut err, mut total, mut film) = (0.0, 0.0, 0.0f64);
    for j in 0..n {
        for i in 0..n {
            let (x, y) = ((i as f64 + 0.5) * dx, (j as f64 + 0.5) * dx);
            let exact = bowl.depth(x, y, t);
            let h = fields.depth[i + n * j] as f64;
            err += (h - exact).abs();
            total += exact;
            let dry_around = [-1.0, 0.0, 1.0].iter().all(|a| {
                [-1.0, 0.0, 1.0]
                    .iter()
                    .all(|b| bowl.depth(x + a * dx, y + b * dx, t) == 0.0)
            });
            if dry_around {
                film = film.max(h);
            }
        }
    }
    (err / total, film)
}

struct Level {
    /// L1 depth error at t = 0, T, 2T, 3T.
    l1: Vec<f64>,
    film: f64,
    mass: f64,
}

fn level(bowl: &dyn Bowl, n: usize) -> Level {
    let mut model = crate::common::model(&basin(n));
    let dx = SIDE / n as f64;
    set_cells(&mut model, n, n, |i, j| {
        let (x, y) = ((i as f64 + 0.5) * dx, (j as f64 + 0.5) * dx);
        let h = bowl.depth(x, y, 0.0);
        let (u, v) = bowl.velocity(x, y, 0.0);
        [bowl.bed(x, y), h, h * u, h * v]
    });
    let mut run = Run::new(model);
    let mut l1 = vec![measure(bowl, &run.fields(), n, 0.0).0];
    let (mut film, mut mass) = (0.0f64, 0.0f64);
    for k in 1..=PERIODS {
        let t = k as f64 * bowl.period();
        run.advance_to(t);
        let fields = run.fields();
        let (e, f) = measure(bowl, &fields, n, t);
        l1.push(e);
        film = film.max(f);
        mass = mass.max(run.mass_error(&fields));
    }
    Level { l1, film, mass }
}

fn bowl_case(case: &'static str, bowl: &dyn Bowl) {
    let grids = crate::harness::grids(&GRIDS);
    let levels: Vec<Level> = grids.iter().map(|&n| level(bowl, n)).collect();
    for (n, l) in grids.iter().zip(&levels) {
        let periods: Vec<String> = l.l1.iter().map(|e| format!("{:.2}%", 100.0 * e)).collect();
        println!(
            "{case} n = {n}²: L1 depth at t = 0, T, 2T, 3T: {}; film {:.2e} m; mass {:.1e}",
            periods.join(", "),
            l.film,
            l.mass
        );
    }
    let after_one: Vec<f64> = levels.iter().map(|l| l.l1[1]).collect();
    let finest = levels.last().expect("a grid");
    let mut checks = Checks::default();
    checks.order("depth after one period", &after_one, 0.8);
    checks.at_most("film outside the shoreline (m)", finest.film, DRY_DEPTH);
    let [start, one, .., last] = finest.l1[..] else {
        unreachable!("four times")
    };
    checks.at_most(
        "L1(3T) − (L1(0) + 3 (L1(T) − L1(0)))",
        last - (start + PERIODS as f64 * (one - start)),
        0.0,
    );
    let worst_mass = levels.iter().map(|l| l.mass).fold(0.0, f64::max);
    checks.at_most("mass error", worst_mass, 1e-5);
    let row = Row {
        case,
        discharge_l1: vec![f64::NAN; grids.len()],
        grids,
        depth_l1: after_one,
        mass: levels.iter().map(|l| l.mass).collect(),
        notes: format!(
            "L1 depth after one period (2D, cells per side); finest grid at t = 0, T, 2T, 3T: {}; \
             film outside the shoreline {:.1} mm",
            finest
                .l1
                .iter()
                .map(|e| format!("{:.2}%", 100.0 * e))
                .collect::<Vec<_>>()
                .join(", "),
            1e3 * finest.film
        ),
    };
    report(row, checks);
}

#[test]
#[ignore = "issue 22 open: a film of 0.2 mm outside the exact shoreline (bound 0.1 mm)"]
fn planar_surface_over_three_periods() {
    let bowl = ThackerPlanar {
        g: G,
        a: 1.0,
        h0: 0.1,
        eta: 0.5,
        xc: 0.5 * SIDE,
        yc: 0.5 * SIDE,
    };
    bowl_case("thacker-planar", &bowl);
}

#[test]
#[ignore = "issue 22 open: a film of 0.6 mm outside the exact shoreline (bound 0.1 mm): the shore source that keeps lakes from gaining energy lets the shoreline recede late"]
fn radial_surface_over_three_periods() {
    let bowl = ThackerRadial {
        g: G,
        a: 1.0,
        h0: 0.1,
        r0: 0.8,
        xc: 0.5 * SIDE,
        yc: 0.5 * SIDE,
    };
    bowl_case("thacker-radial", &bowl);
}
