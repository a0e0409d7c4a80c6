//! Steady channel flows: start from the exact state, run until the waves the
//! discretisation sets off have left, and measure how far the state the scheme settles
//! in lies from the exact one, on several grids.

use crate::harness::{errors, profile, settle, Channel, Errors, Run};
use crate::table::Row;

/// A steady flow: the channel (its cell count is set per grid), the exact bed, depth and
/// discharge, and how long to run.
pub struct Steady<'a> {
    pub case: &'static str,
    pub channel: Channel,
    pub exact: &'a dyn Fn(f64) -> [f64; 3],
    pub t_end: f64,
}

/// What one grid measured.
pub struct Level {
    pub cells: usize,
    pub dx: f64,
    /// Over every cell.
    pub all: Errors,
    /// Over the cells at least a tenth of the channel from either end: the scheme
    /// without its boundary cells.
    pub interior: Errors,
    /// Relative depth error of the first and the last cell.
    pub ends: [f64; 2],
    /// Largest relative depth error of any cell.
    pub depth_max_rel: f64,
    pub mass: f64,
    /// Largest depth change per second over the last tenth of the run.
    pub drift: f64,
    pub x: Vec<f64>,
    pub q: Vec<f64>,
}

impl Steady<'_> {
    pub fn level(&self, cells: usize) -> Level {
        let channel = Channel {
            cells,
            ..self.channel.clone()
        };
        let mut run = Run::new(channel.model(self.exact));
        let (fields, drift) = settle(&mut run, cells, self.t_end, 0.1 * self.t_end);
        let (h, q) = profile(&fields, cells);
        let x = channel.centres();
        let exact = |x: f64| {
            let [_, h, q] = (self.exact)(x);
            [h, q]
        };
        let margin = 0.1 * channel.length;
        let inner: Vec<usize> = (0..cells)
            .filter(|&i| x[i] >= margin && x[i] <= channel.length - margin)
            .collect();
        let pick = |v: &[f64]| inner.iter().map(|&i| v[i]).collect::<Vec<_>>();
        let relative = |i: usize| (h[i] - exact(x[i])[0]) / exact(x[i])[0];
        Level {
            cells,
            dx: channel.dx(),
            all: errors(&x, &h, &q, &exact),
            interior: errors(&pick(&x), &pick(&h), &pick(&q), &exact),
            ends: [relative(0), relative(cells - 1)],
            depth_max_rel: (0..cells).map(|i| relative(i).abs()).fold(0.0, f64::max),
            mass: run.mass_error(&fields),
            drift,
            x,
            q,
        }
    }

    /// Every grid, coarse to fine, printing each as it comes.
    pub fn levels(&self, grids: &[usize]) -> Vec<Level> {
        grids
            .iter()
            .map(|&n| {
                let l = self.level(n);
                println!(
                    "{} n = {n}: interior L1 depth {:.2e} discharge {:.2e}; ends {:+.2}% {:+.2}%; \
                     max |dh| {:.2e} m, max |dq| {:.2e} m²/s; drift {:.1e} m/s",
                    self.case,
                    l.interior.depth_l1,
                    l.interior.discharge_l1,
                    100.0 * l.ends[0],
                    100.0 * l.ends[1],
                    l.all.depth_max,
                    l.all.discharge_max,
                    l.drift
                );
                l
            })
            .collect()
    }
}

/// The table row of a refinement study, with the interior orders and end cells in the
/// notes (after `extra`).
pub fn row(case: &'static str, levels: &[Level], extra: &str) -> Row {
    let interior: Vec<f64> = levels.iter().map(|l| l.interior.depth_l1).collect();
    let orders = crate::harness::orders(&interior);
    let finest = levels.last().expect("a grid");
    let mut notes = format!(
        "interior (a tenth of the length off each end): L1 depth {:.1e}, order {}; first cell {:+.1}%, last {:+.1}%",
        finest.interior.depth_l1,
        orders
            .iter()
            .map(|o| format!("{o:.2}"))
            .collect::<Vec<_>>()
            .join(", "),
        100.0 * finest.ends[0],
        100.0 * finest.ends[1],
    );
    if !extra.is_empty() {
        notes = format!("{extra}; {notes}");
    }
    Row {
        case,
        grids: levels.iter().map(|l| l.cells).collect(),
        depth_l1: levels.iter().map(|l| l.all.depth_l1).collect(),
        discharge_l1: levels.iter().map(|l| l.all.discharge_l1).collect(),
        mass: levels.iter().map(|l| l.mass).collect(),
        notes,
    }
}
