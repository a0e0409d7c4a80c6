//! Tiny scenarios drawn from a seed (16 to 48 cells a side, a few seconds of simulated
//! time: lavapipe on two cores is slow), with what their water can reach: the highest level
//! a stage or the initial water sets, and the volume inflows, sources and rain bring.

use super::rng::Rng;
use super::verdict::Bound;
use std::fmt::Write as _;

/// The grid: nx × ny cells of dx m from (ox, oy).
#[derive(Clone, Copy, Debug)]
pub struct Grid {
    pub nx: usize,
    pub ny: usize,
    pub dx: f64,
    pub ox: f64,
    pub oy: f64,
    pub levels: u32,
}

impl Grid {
    pub fn draw(rng: &mut Rng) -> Grid {
        let far = rng.percent(40);
        let dx = *rng.pick(&[0.5, 1.0, 2.0, 4.0]);
        Grid {
            nx: *rng.pick(&[16, 20, 24, 32, 40, 48]),
            ny: *rng.pick(&[16, 20, 24, 32, 40, 48]),
            dx,
            // Projected coordinates of the size a UTM grid has, at times.
            ox: if far { rng.int(0, 900_000) as f64 } else { 0.0 },
            oy: if far {
                rng.int(0, 5_000_000) as f64
            } else {
                0.0
            },
            levels: if rng.percent(30) { 2 } else { 1 },
        }
    }

    pub fn width(&self) -> f64 {
        self.nx as f64 * self.dx
    }
    pub fn height(&self) -> f64 {
        self.ny as f64 * self.dx
    }
    pub fn area(&self) -> f64 {
        self.width() * self.height()
    }

    /// Every finest cell's centre.
    pub fn centres(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        (0..self.ny).flat_map(move |j| {
            (0..self.nx).map(move |i| {
                (
                    self.ox + (i as f64 + 0.5) * self.dx,
                    self.oy + (j as f64 + 0.5) * self.dx,
                )
            })
        })
    }

    /// A random cell's centre, `margin` cells in from the edges.
    pub fn point(&self, rng: &mut Rng, margin: usize) -> (f64, f64) {
        let i = rng.int(margin as i64, (self.nx - 1 - margin) as i64) as f64;
        let j = rng.int(margin as i64, (self.ny - 1 - margin) as i64) as f64;
        (self.ox + (i + 0.5) * self.dx, self.oy + (j + 0.5) * self.dx)
    }

    pub fn toml(&self) -> String {
        let mut s = format!(
            "[domain]\ncell_size = {:?}\nnx = {}\nny = {}\norigin = [{:?}, {:?}]\n\n",
            self.dx, self.nx, self.ny, self.ox, self.oy
        );
        if self.levels > 1 {
            writeln!(
                s,
                "[refinement]\nlevels = {}\nnear_inflow = {:?}\n",
                self.levels,
                4.0 * self.dx
            )
            .unwrap();
        }
        s
    }
}

/// The bed: flat, a plane, or a plane with waves; evaluated here as the scenario's
/// expression evaluates it, so that the lowest bed is known.
#[derive(Clone, Copy, Debug)]
pub enum Terrain {
    Flat(f64),
    Plane { z: f64, sx: f64, sy: f64 },
    Waves { z: f64, sx: f64, a: f64, k: f64 },
}

impl Terrain {
    pub fn draw(rng: &mut Rng) -> Terrain {
        let z = rng.int(-50, 300) as f64 / 10.0;
        match rng.below(3) {
            0 => Terrain::Flat(z),
            1 => Terrain::Plane {
                z,
                sx: rng.int(-50, 50) as f64 / 1000.0,
                sy: rng.int(-50, 50) as f64 / 1000.0,
            },
            _ => Terrain::Waves {
                z,
                sx: rng.int(-20, 20) as f64 / 1000.0,
                a: rng.int(0, 50) as f64 / 100.0,
                k: rng.int(2, 12) as f64,
            },
        }
    }

    pub fn bed(&self, g: &Grid, x: f64, y: f64) -> f64 {
        let (x, y) = (x - g.ox, y - g.oy);
        match *self {
            Terrain::Flat(z) => z,
            Terrain::Plane { z, sx, sy } => z + sx * x + sy * y,
            Terrain::Waves { z, sx, a, k } => z + sx * x + a * (y / k).sin(),
        }
    }

    pub fn toml(&self, g: &Grid) -> String {
        match *self {
            Terrain::Flat(z) => format!("[terrain]\ntype = \"flat\"\nelevation = {z:?}\n\n"),
            Terrain::Plane { z, sx, sy } => format!(
                "[terrain]\ntype = \"slope\"\nelevation = {z:?}\nslope_x = {sx:?}\nslope_y = {sy:?}\n\n"
            ),
            // No scientific notation inside expressions: fixed decimals throughout.
            Terrain::Waves { z, sx, a, k } => format!(
                "[terrain]\ntype = \"expression\"\nexpression = \"{z:.3} + {sx:.3}*(x - {:.1}) + {a:.3}*sin((y - {:.1})/{k:.1})\"\n\n",
                g.ox, g.oy
            ),
        }
    }

    pub fn lowest(&self, g: &Grid) -> f64 {
        g.centres()
            .map(|(x, y)| self.bed(g, x, y))
            .fold(f64::INFINITY, f64::min)
    }

    pub fn highest(&self, g: &Grid) -> f64 {
        g.centres()
            .map(|(x, y)| self.bed(g, x, y))
            .fold(f64::NEG_INFINITY, f64::max)
    }
}

/// A series in time: piecewise linear, held before its first and after its last point.
#[derive(Clone, Debug)]
pub struct Series {
    pub times: Vec<f64>,
    pub values: Vec<f64>,
}

impl Series {
    pub fn constant(v: f64) -> Series {
        Series {
            times: vec![0.0],
            values: vec![v],
        }
    }

    /// A hydrograph of peak `peak` over [start, end]: constant, a ramp, a pulse shorter
    /// than a step, or a jump.
    pub fn draw(rng: &mut Rng, peak: f64, start: f64, end: f64) -> Series {
        let span = end - start;
        match rng.below(5) {
            0 => Series::constant(peak),
            1 => Series {
                times: vec![start, start + rng.float(0.1, 1.0) * span],
                values: vec![0.0, peak],
            },
            2 => {
                let at = start + rng.float(0.0, 0.8) * span;
                let width = rng.log_float(0.02, 2.0);
                Series {
                    times: vec![at, at + width / 2.0, at + width],
                    values: vec![0.0, peak, 0.0],
                }
            }
            3 => {
                let at = start + rng.float(0.0, 0.8) * span;
                Series {
                    times: vec![start, at, at + 0.001],
                    values: vec![0.0, 0.0, peak],
                }
            }
            _ => Series {
                times: vec![start, start + span / 3.0, start + 2.0 * span / 3.0, end],
                values: vec![
                    peak * rng.float(0.0, 1.0),
                    peak,
                    peak * rng.float(0.0, 1.0),
                    0.0,
                ],
            },
        }
    }

    pub fn at(&self, t: f64) -> f64 {
        let (ts, vs) = (&self.times, &self.values);
        if t <= ts[0] {
            return vs[0];
        }
        for k in 1..ts.len() {
            if t <= ts[k] {
                let w = (t - ts[k - 1]) / (ts[k] - ts[k - 1]);
                return vs[k - 1] + w * (vs[k] - vs[k - 1]);
            }
        }
        vs[vs.len() - 1]
    }

    /// ∫ from a to b, exactly (trapezoids between the points).
    pub fn integral(&self, a: f64, b: f64) -> f64 {
        let mut knots: Vec<f64> = vec![a, b];
        knots.extend(self.times.iter().copied().filter(|&t| t > a && t < b));
        knots.sort_by(f64::total_cmp);
        knots
            .windows(2)
            .map(|w| 0.5 * (self.at(w[0]) + self.at(w[1])) * (w[1] - w[0]))
            .sum()
    }

    pub fn peak(&self) -> f64 {
        self.values
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max)
    }

    pub fn toml(&self) -> String {
        if self.times.len() == 1 {
            return format!("{:?}", self.values[0]);
        }
        format!("{{ time = {:?}, value = {:?} }}", self.times, self.values)
    }
}

/// A scenario and what its water can reach.
#[derive(Clone, Debug)]
pub struct Tiny {
    pub toml: String,
    pub bound: Bound,
    /// The clock at the end, and the simulated time from the start (s).
    pub end: f64,
    pub span: f64,
    /// What was drawn, for the report.
    pub what: String,
    /// The key of a segment laid over an earlier inflow, for which the scenario is
    /// refused (exit 2).
    pub refused: Option<String>,
    /// A levee was drawn (a wall, or a crest above the ground): a source, line, gauge or
    /// section drawn on its cells may be refused, naming it.
    pub walled: bool,
}

const EDGES: [&str; 4] = ["west", "east", "south", "north"];

/// What the drawing has added so far.
struct Draft {
    g: Grid,
    terrain: Terrain,
    start: f64,
    end: f64,
    text: String,
    what: Vec<String>,
    head: Option<f64>,
    brought: f64,
    /// Something besides inflows and sources passes water through the boundary.
    exchange: bool,
    inflow: f64,
    rain_depth: Option<f64>,
    /// Segments so far: (edge, first cell, cells, whether an inflow).
    segments: Vec<(&'static str, usize, usize, bool)>,
    /// The key of the first segment laid over an earlier inflow, which is refused.
    refused: Option<String>,
    /// A levee was drawn (a wall, or a crest above the ground).
    walled: bool,
}

impl Draft {
    fn raise_head(&mut self, level: f64) {
        self.head = Some(self.head.map_or(level, |h| h.max(level)));
    }

    /// A stretch of an edge at least four cells long for a segment (an inflow or not):
    /// (edge, from, to, its cells' centres). One over an earlier inflow is refused.
    fn stretch(
        &mut self,
        rng: &mut Rng,
        inflow: bool,
    ) -> (&'static str, f64, f64, Vec<(f64, f64)>) {
        let edge = *rng.pick(&EDGES);
        let g = self.g;
        let along_x = edge == "south" || edge == "north";
        let n = if along_x { g.nx } else { g.ny };
        let len = rng.int(4, n as i64) as usize;
        let first = rng.below(n - len + 1);
        let origin = if along_x { g.ox } else { g.oy };
        let from = origin + first as f64 * g.dx;
        let to = from + len as f64 * g.dx;
        let overlaps = |&(e, f, l, i): &(&str, usize, usize, bool)| {
            i && e == edge && f < first + len && first < f + l
        };
        if self.refused.is_none() && self.segments.iter().any(overlaps) {
            self.refused = Some(format!("boundary.segment[{}]", self.segments.len()));
        }
        self.segments.push((edge, first, len, inflow));
        let cells = (first..first + len)
            .map(|k| {
                let along = origin + (k as f64 + 0.5) * g.dx;
                match edge {
                    "west" => (g.ox + 0.5 * g.dx, along),
                    "east" => (g.ox + g.width() - 0.5 * g.dx, along),
                    "south" => (along, g.oy + 0.5 * g.dx),
                    _ => (along, g.oy + g.height() - 0.5 * g.dx),
                }
            })
            .collect();
        (edge, from, to, cells)
    }

    fn inflow_segment(&mut self, rng: &mut Rng) {
        let (edge, from, to, cells) = self.stretch(rng, true);
        let q = rng.log_float(0.01, 2.0) * cells.len() as f64 * self.g.dx;
        let s = Series::draw(rng, q, self.start, self.end);
        let volume = s.integral(self.start, self.end);
        writeln!(self.text, "[[boundary.segment]]\nedge = \"{edge}\"\ntype = \"inflow\"\nfrom = {from:?}\nto = {to:?}\ndischarge = {}\n", s.toml()).unwrap();
        self.what.push(format!("inflow {edge} peak {q:.3} m3/s"));
        self.brought += volume;
        self.inflow += volume;
    }

    fn stage_segment(&mut self, rng: &mut Rng) {
        let (edge, from, to, cells) = self.stretch(rng, false);
        let (g, t) = (self.g, self.terrain);
        let low = cells
            .iter()
            .map(|&(x, y)| t.bed(&g, x, y))
            .fold(f64::INFINITY, f64::min);
        let level = low + rng.log_float(0.01, 1.5);
        let s = match rng.below(3) {
            0 => Series::constant(level),
            1 => Series {
                times: vec![self.start, self.end],
                values: vec![low - 0.5, level],
            },
            _ => Series::draw(rng, level, self.start, self.end),
        };
        writeln!(self.text, "[[boundary.segment]]\nedge = \"{edge}\"\ntype = \"stage\"\nfrom = {from:?}\nto = {to:?}\nlevel = {}\n", s.toml()).unwrap();
        self.what.push(format!("stage {edge} to {:.3} m", s.peak()));
        self.raise_head(s.peak());
        self.exchange = true;
    }

    fn source(&mut self, rng: &mut Rng) {
        let g = self.g;
        let q = rng.log_float(0.001, 1.0) * g.dx * g.dx;
        let s = Series::draw(rng, q, self.start, self.end);
        let (a, b) = (g.point(rng, 2), g.point(rng, 2));
        let place = match rng.below(3) {
            0 => format!("point = [{:?}, {:?}]", a.0, a.1),
            1 => format!("line = [[{:?}, {:?}], [{:?}, {:?}]]", a.0, a.1, b.0, b.1),
            _ => {
                let (x, y, d) = (a.0, a.1, 1.6 * g.dx);
                format!(
                    "polygon = [[{:?}, {:?}], [{:?}, {:?}], [{:?}, {:?}], [{:?}, {:?}]]",
                    x - d,
                    y - d,
                    x + d,
                    y - d,
                    x + d,
                    y + d,
                    x - d,
                    y + d
                )
            }
        };
        writeln!(self.text, "[[source]]\n{place}\ndischarge = {}\n", s.toml()).unwrap();
        self.what.push(format!(
            "source {} peak {q:.4} m3/s",
            place.split(' ').next().unwrap()
        ));
        let volume = s.integral(self.start, self.end);
        self.brought += volume;
        self.inflow += volume;
    }

    fn line(&mut self, rng: &mut Rng) {
        let g = self.g;
        let (a, b) = (g.point(rng, 1), g.point(rng, 1));
        if a == b {
            return;
        }
        if rng.percent(50) {
            writeln!(
                self.text,
                "[[boundary.line]]\ntype = \"outfall\"\nline = [[{:?}, {:?}], [{:?}, {:?}]]\n",
                a.0, a.1, b.0, b.1
            )
            .unwrap();
            self.what.push("outfall line".into());
        } else {
            let t = self.terrain;
            let level = t.bed(&g, a.0, a.1).min(t.bed(&g, b.0, b.1)) + rng.log_float(0.01, 1.0);
            writeln!(self.text, "[[boundary.line]]\ntype = \"stage\"\nline = [[{:?}, {:?}], [{:?}, {:?}]]\nlevel = {level:?}\n", a.0, a.1, b.0, b.1).unwrap();
            self.what.push(format!("stage line at {level:.3} m"));
            self.raise_head(level);
        }
        self.exchange = true;
    }

    fn pond(&mut self, rng: &mut Rng) {
        let g = self.g;
        let (a, b) = (g.point(rng, 0), g.point(rng, 0));
        let (lo, hi) = ((a.0.min(b.0), a.1.min(b.1)), (a.0.max(b.0), a.1.max(b.1)));
        let level = self.terrain.bed(&g, a.0, a.1) + rng.log_float(0.01, 1.0);
        writeln!(self.text, "[[initial.region]]\nshape = \"rectangle\"\nmin = [{:?}, {:?}]\nmax = [{:?}, {:?}]\nwater_level = {level:?}\n", lo.0, lo.1, hi.0, hi.1).unwrap();
        self.what.push(format!("pond at {level:.3} m"));
        self.raise_head(level);
    }

    fn levee(&mut self, rng: &mut Rng) {
        let g = self.g;
        let (a, b) = (g.point(rng, 1), g.point(rng, 1));
        if a == b {
            return;
        }
        // A wall takes its cells out of the domain, and so does a crest where it stands
        // above the ground (a weir passes water over it): a place drawn on one is refused.
        self.walled = true;
        let crest = match rng.percent(50) {
            true => format!(
                "crest = {:?}\n",
                self.terrain.highest(&g) + rng.float(-0.5, 0.5)
            ),
            false => String::new(),
        };
        writeln!(
            self.text,
            "[[levee]]\nline = [[{:?}, {:?}], [{:?}, {:?}]]\n{crest}",
            a.0, a.1, b.0, b.1
        )
        .unwrap();
        self.what.push("levee".into());
    }
}

/// Forcing on dry land (now and then with a pond): one to three of inflow segments, stage
/// segments, sources, stage or outfall lines and rain, on a bed that may be flat, sloping
/// or wavy, with walls or open edges.
pub fn dry_forcing(rng: &mut Rng) -> Tiny {
    let g = Grid::draw(rng);
    let terrain = Terrain::draw(rng);
    let start = if rng.percent(20) {
        rng.int(1, 100_000) as f64
    } else {
        0.0
    };
    let end = start + rng.int(10, 50) as f64 / 10.0;
    let mut d = Draft {
        g,
        terrain,
        start,
        end,
        text: format!("name = \"corpus\"\n\n{}{}", g.toml(), terrain.toml(&g)),
        what: vec![format!(
            "{}x{} cells of {} m, {} level(s), {terrain:?}",
            g.nx, g.ny, g.dx, g.levels
        )],
        head: None,
        brought: 0.0,
        exchange: false,
        inflow: 0.0,
        rain_depth: None,
        segments: Vec::new(),
        refused: None,
        walled: false,
    };
    writeln!(
        d.text,
        "[friction]\nmanning = {:?}\n",
        *rng.pick(&[0.0, 0.012, 0.03, 0.1])
    )
    .unwrap();
    let open: Vec<&str> = EDGES.iter().copied().filter(|_| rng.percent(15)).collect();
    writeln!(d.text, "[boundary]").unwrap();
    for edge in &open {
        writeln!(d.text, "{edge} = \"open\"").unwrap();
        d.exchange = true;
    }
    writeln!(d.text).unwrap();
    // At least one forcing that brings water; lines and levees beside them.
    for k in 0..1 + rng.below(3) {
        match rng.below(if k == 0 { 7 } else { 9 }) {
            0..=1 => d.inflow_segment(rng),
            2..=3 => d.stage_segment(rng),
            4..=5 => d.source(rng),
            6 if !d.text.contains("[rain]") => rain(&mut d, rng),
            6 => d.inflow_segment(rng),
            7 => d.line(rng),
            _ => d.levee(rng),
        }
    }
    if rng.percent(20) {
        d.pond(rng);
    }
    extras(&mut d, rng);
    time_and_output(&mut d, rng);
    let lowest = terrain.lowest(&g);
    let rain_depth = d.rain_depth;
    let bound = Bound {
        head: d.head,
        lowest_bed: lowest,
        brought: d.brought,
        finest_area: g.dx * g.dx,
        inflow: (!d.exchange).then_some(d.inflow),
        rain: rain_depth,
    };
    Tiny {
        toml: d.text,
        bound,
        end,
        span: end - start,
        what: d.what.join("; "),
        refused: d.refused,
        walled: d.walled,
    }
}

/// Rain over the whole domain.
fn rain(d: &mut Draft, rng: &mut Rng) {
    let rate = rng.log_float(1.0, 400.0);
    let s = Series::draw(rng, rate, d.start, d.end);
    // mm/h to m.
    let depth = s.integral(d.start, d.end) / 3.6e6;
    writeln!(d.text, "[rain]\nrate = {}\n", s.toml()).unwrap();
    d.what.push(format!("rain peak {rate:.1} mm/h"));
    d.brought += depth * d.g.area();
    d.rain_depth = Some(depth);
}

/// Gauges and a cross-section now and then.
fn extras(d: &mut Draft, rng: &mut Rng) {
    let g = d.g;
    let gauges = rng.below(3);
    for k in 0..gauges {
        let (x, y) = g.point(rng, 0);
        writeln!(d.text, "[[gauge]]\nname = \"g{k}\"\nx = {x:?}\ny = {y:?}\n").unwrap();
    }
    if rng.percent(25) {
        let (a, b) = (g.point(rng, 0), g.point(rng, 0));
        if a != b {
            writeln!(
                d.text,
                "[[cross_section]]\nname = \"across\"\nline = [[{:?}, {:?}], [{:?}, {:?}]]\n",
                a.0, a.1, b.0, b.1
            )
            .unwrap();
        }
    }
}

fn time_and_output(d: &mut Draft, rng: &mut Rng) {
    let span = d.end - d.start;
    writeln!(d.text, "[time]\nstart = {:?}\nend = {:?}", d.start, d.end).unwrap();
    if rng.percent(50) {
        writeln!(
            d.text,
            "output_interval = {:?}",
            span / rng.int(1, 3) as f64
        )
        .unwrap();
    } else {
        let mut times: Vec<f64> = (0..rng.int(1, 3))
            .map(|_| d.start + rng.int(1, 100) as f64 / 100.0 * span)
            .collect();
        times.sort_by(f64::total_cmp);
        times.dedup();
        writeln!(d.text, "output_times = {times:?}").unwrap();
    }
    writeln!(
        d.text,
        "gauge_interval = {:?}",
        span / rng.int(2, 10) as f64
    )
    .unwrap();
    writeln!(d.text, "dt_max = {:?}", *rng.pick(&[0.3, 1.0, 10.0])).unwrap();
    writeln!(d.text, "cfl = {:?}\n", *rng.pick(&[0.2, 0.35, 0.45, 0.5])).unwrap();
    writeln!(
        d.text,
        "[numerics]\nlimiter = \"{}\"\n",
        rng.pick(&["minmod", "van-albada"])
    )
    .unwrap();
    let format = if rng.percent(30) { "geotiff" } else { "ascii" };
    writeln!(
        d.text,
        "[output]\nformat = \"{format}\"\npng = {}\nmaxima = {}\n",
        rng.percent(20),
        rng.percent(85)
    )
    .unwrap();
    d.what.push(format!("{format} to t = {:.2} s", d.end));
}
