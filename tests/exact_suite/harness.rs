//! Building and running the suite's cases: 1D channels as strips one block (16 cells)
//! wide between walls, and 2D basins, with the exact bed and initial state set cell by
//! cell from `quadflood::exact`; and the error measures every case reports.

use quadflood::scenario::model::Model;
use quadflood::solver::{Fields, Simulation};

pub const G: f64 = 9.81;
/// A channel is one block row: 16 cells across, walls on both long sides.
pub const ROWS: usize = 16;
/// The row the profiles are read from (every row holds the same 1D flow).
const PROFILE_ROW: usize = ROWS / 2;

/// What a channel end does.
#[derive(Clone, Copy, Debug)]
pub enum End {
    Wall,
    /// Zero-gradient (free outflow).
    Open,
    /// Imposed unit discharge (m²/s) into the channel.
    Inflow(f64),
    /// Imposed water level (m).
    Stage(f64),
}

/// A straight channel along x from 0 to `length`, `cells` long.
#[derive(Clone, Debug)]
pub struct Channel {
    pub length: f64,
    pub cells: usize,
    pub manning: f64,
    pub west: End,
    pub east: End,
    /// `numerics.dry_depth`; None keeps the solver's default.
    pub dry_depth: Option<f64>,
    /// `numerics.limiter`; None keeps the solver's default.
    pub limiter: Option<&'static str>,
}

/// Bed, depth and unit discharge of a 1D state at x.
pub type State1d<'a> = &'a dyn Fn(f64) -> [f64; 3];

impl Channel {
    pub fn new(length: f64, cells: usize, west: End, east: End) -> Channel {
        Channel {
            length,
            cells,
            manning: 0.0,
            west,
            east,
            dry_depth: None,
            limiter: None,
        }
    }

    pub fn dx(&self) -> f64 {
        self.length / self.cells as f64
    }

    /// Cell centres along the channel.
    pub fn centres(&self) -> Vec<f64> {
        (0..self.cells)
            .map(|i| (i as f64 + 0.5) * self.dx())
            .collect()
    }

    fn segment(&self, edge: &str, end: End) -> String {
        let width = ROWS as f64 * self.dx();
        match end {
            End::Wall | End::Open => String::new(),
            End::Inflow(q) => format!(
                "[[boundary.segment]]\nedge = \"{edge}\"\ntype = \"inflow\"\ndischarge = {}\n",
                q * width
            ),
            End::Stage(level) => format!(
                "[[boundary.segment]]\nedge = \"{edge}\"\ntype = \"stage\"\nlevel = {level}\n"
            ),
        }
    }

    fn toml(&self) -> String {
        let kind = |end: End| match end {
            End::Open => "open",
            _ => "wall",
        };
        let dry = self
            .dry_depth
            .map(|d| format!("dry_depth = {d}"))
            .unwrap_or_default();
        let limiter = self
            .limiter
            .map(|l| format!("limiter = \"{l}\""))
            .unwrap_or_default();
        format!(
            r#"
[domain]
cell_size = {dx}
nx = {nx}
ny = {ROWS}

[terrain]
type = "flat"

[friction]
manning = {n}

[boundary]
west = "{west}"
east = "{east}"

{west_segment}
{east_segment}

[numerics]
{dry}
{limiter}

[time]
end = 1e9
"#,
            dx = self.dx(),
            nx = self.cells,
            n = self.manning,
            west = kind(self.west),
            east = kind(self.east),
            west_segment = self.segment("west", self.west),
            east_segment = self.segment("east", self.east),
        )
    }

    /// The model with bed, depth and discharge `state(x)` at every cell centre.
    pub fn model(&self, state: State1d) -> Model {
        let mut model = quadflood::scenario::from_str(&self.toml(), std::path::Path::new("."))
            .expect("a valid channel scenario");
        let centres = self.centres();
        set_cells(&mut model, self.cells, ROWS, |i, _| {
            let [z, h, q] = state(centres[i]);
            [z, h, q, 0.0]
        });
        model
    }
}

/// Sets (bed, depth, hu, hv) of every domain cell (i, j) of a uniform grid.
pub fn set_cells(model: &mut Model, nx: usize, ny: usize, cell: impl Fn(usize, usize) -> [f64; 4]) {
    assert_eq!(
        model.datum, 0.0,
        "a flat terrain at 0 keeps the bed's datum at 0"
    );
    for j in 0..ny {
        for i in 0..nx {
            let k = model.grid.storage_index(i, j);
            let [z, h, hu, hv] = cell(i, j);
            model.bed[k] = z as f32;
            model.depth[k] = h as f32;
            model.hu[k] = hu as f32;
            model.hv[k] = hv as f32;
        }
    }
}

/// A simulation with what its mass balance needs.
pub struct Run {
    pub sim: Simulation<'static>,
    pub model: Model,
    initial_volume: f64,
}

impl Run {
    pub fn new(model: Model) -> Run {
        let sim = Simulation::new(crate::common::gpu(), &model).expect("a simulation");
        let initial_volume = model.stored_volume(&model.depth);
        Run {
            sim,
            model,
            initial_volume,
        }
    }

    pub fn advance_to(&mut self, t: f64) {
        self.sim.advance_to(t, &mut |_| {}).expect("the run");
    }

    /// What the run reports: depth, and the discharge its faces pass.
    pub fn fields(&self) -> Fields {
        self.sim.read_reported_fields()
    }

    /// |stored − (initial + in − out)| / (initial + in), with the volumes that crossed
    /// the domain edge as the solver counted them.
    pub fn mass_error(&self, fields: &Fields) -> f64 {
        let (inflow, outflow) = self.sim.edge_volumes();
        quadflood::balance::Balance {
            initial: self.initial_volume,
            inflow,
            outflow,
            rain: 0.0,
            losses: 0.0,
            storage: self.model.volume(&fields.depth),
        }
        .error_rel()
        .abs()
    }

    /// Volumes (in, out) through the edges so far.
    pub fn edge_volumes(&self) -> (f64, f64) {
        self.sim.edge_volumes()
    }
}

/// Depth and unit discharge along the middle row of a channel of `cells`.
pub fn profile(fields: &Fields, cells: usize) -> (Vec<f64>, Vec<f64>) {
    let row = PROFILE_ROW * cells;
    let h = (0..cells).map(|i| fields.depth[row + i] as f64).collect();
    let q = (0..cells).map(|i| fields.hu[row + i] as f64).collect();
    (h, q)
}

/// Error of a computed profile against an exact one, over the cells `x`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Errors {
    /// Σ|h − h_exact| / Σ h_exact.
    pub depth_l1: f64,
    /// Σ|q − q_exact| / Σ|q_exact| (Σ|q − q_exact| / Σ h_exact · scale where q_exact is 0).
    pub discharge_l1: f64,
    /// max |h − h_exact| (m).
    pub depth_max: f64,
    /// max |q − q_exact| (m²/s).
    pub discharge_max: f64,
}

/// Errors of (h, q) against the exact (h, q) at the points `x`.
pub fn errors(x: &[f64], h: &[f64], q: &[f64], exact: &dyn Fn(f64) -> [f64; 2]) -> Errors {
    let mut e = Errors::default();
    let (mut h_sum, mut q_sum) = (0.0, 0.0);
    let (mut dh_sum, mut dq_sum) = (0.0, 0.0);
    for k in 0..x.len() {
        let [he, qe] = exact(x[k]);
        let (dh, dq) = ((h[k] - he).abs(), (q[k] - qe).abs());
        dh_sum += dh;
        dq_sum += dq;
        h_sum += he;
        q_sum += qe.abs();
        e.depth_max = e.depth_max.max(dh);
        e.discharge_max = e.discharge_max.max(dq);
    }
    e.depth_l1 = dh_sum / h_sum;
    e.discharge_l1 = dq_sum / q_sum;
    e
}

/// Where the depth along a channel last falls through `level` going downstream,
/// interpolated linearly between cell centres: a front position that does not hang on
/// the thinnest water a scheme may leave ahead of or behind it.
pub fn front_at(x: &[f64], h: &[f64], level: f64) -> f64 {
    let Some(i) = (0..h.len()).rev().find(|&i| h[i] >= level) else {
        return x[0];
    };
    if i + 1 == h.len() {
        return x[i];
    }
    x[i] + (h[i] - level) / (h[i] - h[i + 1]) * (x[i + 1] - x[i])
}

/// The grids of a refinement study: `base`, and with `QUADFLOOD_EXACT_FINE=1` one more
/// twice as fine as the last (for the docs' table; CI keeps to `base`).
pub fn grids(base: &[usize]) -> Vec<usize> {
    let mut g = base.to_vec();
    if std::env::var_os("QUADFLOOD_EXACT_FINE").is_some() {
        g.push(2 * base.last().expect("a grid"));
    }
    g
}

/// Observed orders between successive grids, each twice as fine as the one before:
/// log2(e_coarse / e_fine).
pub fn orders(errors: &[f64]) -> Vec<f64> {
    errors.windows(2).map(|w| (w[0] / w[1]).log2()).collect()
}

/// The largest change of depth over the last `window` seconds, per second, when the
/// run is continued to `t_end` from `t_end − window`: how far from steady it still is.
pub fn settle(run: &mut Run, cells: usize, t_end: f64, window: f64) -> (Fields, f64) {
    run.advance_to(t_end - window);
    let (before, _) = profile(&run.fields(), cells);
    run.advance_to(t_end);
    let fields = run.fields();
    let (after, _) = profile(&fields, cells);
    let drift = before
        .iter()
        .zip(&after)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    (fields, drift / window)
}
