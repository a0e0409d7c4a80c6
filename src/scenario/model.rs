//! A scenario made concrete: every field on the grid, every boundary and series, ready to
//! upload. The solver knows only this; the TOML format is the scenario module's business.

use super::maxima::{Peak, PeakClock};
use crate::grid::BlockGrid;
use bytemuck::{Pod, Zeroable};

/// Bed elevation of cells outside the domain (padding, nodata): a wall to the scheme.
pub const WALL_BED: f32 = 1.0e6;

/// Bed elevation of the nodata cells beyond an open, normal-depth or rating line's cells:
/// a plain wall to the faces, but the flux kernel's slopes of the line's cell go on from
/// its inner neighbour across it (shaders/reconstruct.wgsl, `is_line_outside`), as the
/// ground and the water do beyond the line.
/// Not a mean of plain and structure walls (1e6 + k 1e6 / 2^n), which coarse cells hold.
pub const LINE_OUTSIDE_BED: f32 = 1.3e6;

/// `BcDef::series` of the wall edge cells beyond an open, normal-depth or rating line's
/// cells drawn on the rectangle's edge: their ghosts go on from the line's cell and its
/// inner neighbour (shaders/edges.wgsl, `beyond_line`) instead of mirroring it.
pub const LINE_BEYOND: u32 = 0xffff_fffe;

/// Bed elevation of the wall cells of weirs and crested levees, whose ends pass water over
/// the wall: higher than [`WALL_BED`], so that the flux kernel tells them from plain walls
/// (water meets a plain wall as its mirror, a structure's wall as a dry bank).
pub const STRUCTURE_WALL_BED: f32 = 2.0e6;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limiter {
    Minmod,
    VanAlbada,
}

#[derive(Clone, Debug)]
pub struct Numerics {
    pub gravity: f64,
    pub cfl: f64,
    pub dt_max: f64,
    /// Below this depth (m) a cell carries no velocity.
    pub dry_depth: f64,
    pub limiter: Limiter,
    /// Launch only wet blocks and their neighbours.
    pub skip_dry_blocks: bool,
    /// Keep the run's maxima (depth, speed, hazard, their times) and arrival time per cell.
    pub track_maxima: bool,
    /// Depth (m) at which a cell counts as reached by the flood (arrival time).
    pub arrival_depth: f64,
    /// Depth (m) from which a cell counts as flooded, for the inundation duration.
    pub duration_depth: f64,
    /// The land use whose debris factors the UK hazard rating takes.
    pub debris: crate::io::hazard::LandUse,
    /// The largest relative mass error a run may reach before it stops (balance::check).
    pub max_mass_error: f64,
}

impl Default for Numerics {
    fn default() -> Self {
        Numerics {
            gravity: 9.81,
            cfl: 0.5,
            dt_max: 10.0,
            dry_depth: 1e-8,
            limiter: Limiter::VanAlbada,
            skip_dry_blocks: true,
            track_maxima: true,
            arrival_depth: 0.01,
            duration_depth: 0.01,
            debris: crate::io::hazard::LandUse::Urban,
            max_mass_error: 1e-4,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum BcKind {
    Wall = 0,
    Open = 1,
    Inflow = 2,
    Stage = 3,
    /// Not a boundary: a rain series and the share of the domain it falls on (`scale`).
    Rain = 4,
    /// Outflow at Manning's normal depth: `scale` is the friction slope.
    NormalDepth = 5,
    /// Outflow by a rating curve Q(level): `series` is the curve (levels above the datum
    /// as its times), `scale` 1 / the segment's width.
    Rating = 6,
}

impl BcKind {
    /// Edges whose flux a forcing imposes: their cells are finest (`scenario::refine`).
    pub fn imposes_flux(kind: u32) -> bool {
        [
            BcKind::Inflow,
            BcKind::Stage,
            BcKind::NormalDepth,
            BcKind::Rating,
        ]
        .iter()
        .any(|&k| k as u32 == kind)
    }
}

/// A boundary condition as the kernels read it (`BcDef` in `shaders/common.wgsl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct BcDef {
    pub kind: u32,
    pub series: u32,
    /// The kernels use `series value * scale + offset`.
    pub scale: f32,
    pub offset: f32,
}

impl BcDef {
    pub fn plain(kind: BcKind) -> Self {
        BcDef {
            kind: kind as u32,
            series: crate::grid::NONE,
            scale: 1.0,
            offset: 0.0,
        }
    }
}

/// A piecewise-linear time series, times strictly increasing.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: String,
    pub times: Vec<f64>,
    pub values: Vec<f64>,
}

impl Series {
    pub fn constant(name: &str, value: f64) -> Self {
        Series {
            name: name.into(),
            times: vec![0.0],
            values: vec![value],
        }
    }

    /// Linear interpolation, held constant beyond the ends (as the GPU does).
    pub fn at(&self, t: f64) -> f64 {
        let n = self.times.len();
        if t <= self.times[0] || n == 1 {
            return self.values[0];
        }
        if t >= self.times[n - 1] {
            return self.values[n - 1];
        }
        let k = self.times.partition_point(|&x| x <= t);
        let (t0, t1) = (self.times[k - 1], self.times[k]);
        let w = (t - t0) / (t1 - t0);
        self.values[k - 1] + w * (self.values[k] - self.values[k - 1])
    }

    /// Exact integral from a to b of the piecewise-linear series.
    pub fn integral(&self, a: f64, b: f64) -> f64 {
        let mut knots: Vec<f64> = vec![a];
        knots.extend(self.times.iter().copied().filter(|&t| t > a && t < b));
        knots.push(b);
        knots
            .windows(2)
            .map(|w| 0.5 * (self.at(w[0]) + self.at(w[1])) * (w[1] - w[0]))
            .sum()
    }
}

/// Where a restarted run picks up: the GPU clock and counters exactly as they were, and
/// the run's maxima. The state itself is the model's depth, hu, hv and bed.
#[derive(Clone, Debug, PartialEq)]
pub struct Resume {
    /// The GPU clock (double-f32), so the restarted run continues bit for bit.
    pub t: (f32, f32),
    pub steps: u64,
    pub cell_updates: u64,
    /// The CFL step of the last step taken: the next one follows from it exactly as it
    /// would have (a fresh CFL scan could see the inflow forcing at another instant).
    pub dt_cfl: f32,
    /// The CFL limit (min dx / speed) of the state restarted from, from which the next
    /// step's dt follows (timestep.wgsl, `lagged_cfl_step`); infinite where none is known.
    pub cfl_limit: f32,
    /// Rain depth fallen so far (double-f32).
    pub rain: (f32, f32),
    /// Steps planned again so far (`lagged_cfl_step`): carried across a rebalancing move,
    /// which rebuilds each rank's simulation; a checkpoint does not keep it, so a restart
    /// counts from the restart on.
    pub steps_planned_again: u32,
    /// Per global block: volume in and out through the domain edge (double-f32 pairs).
    pub block_volume: Vec<[f32; 4]>,
    /// Per stored cell (storage layout); empty when the run tracks no maxima.
    pub maxima: Vec<Peak>,
    /// Per stored cell, the depth (m) lost to the ground so far; empty without losses.
    pub infiltrated: Vec<f32>,
    /// Per global block, the volume (m³) lost to the ground so far (double-f32); empty
    /// without losses.
    pub loss_volume: Vec<[f32; 2]>,
    /// Each culvert and weir structure's discharge (m³/s) in the last step, from which
    /// its smoothing goes on; empty without structures.
    pub structure_flows: Vec<f32>,
}

/// Where rain falls: a series per stored cell (uniform rain, or rain zones).
#[derive(Clone, Debug, Default)]
pub struct Rain {
    /// Series (rates in m/s) falling on each stored cell, NONE where none does; empty when
    /// no rain falls anywhere.
    pub cells: Vec<u32>,
    /// Per rain series, the share of the whole domain's area it falls on (all ranks
    /// together), so that the GPU sums the rain as one domain-mean depth.
    pub weights: Vec<(u32, f64)>,
}

/// A share of a discharge series that enters one stored cell (sources inside the domain).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SourceCell {
    /// Stored cell (global storage index).
    pub cell: usize,
    pub series: u32,
    /// Share of the series' discharge that enters this cell.
    pub fraction: f64,
    /// The cell is part of a stage or outfall line: the series is the water level it holds
    /// (relative to the model's datum), and `fraction` is unused.
    pub level: bool,
    /// On an open, normal-depth or rating line, the side (1 west, 2 east, 3 south, 4 north) of
    /// the cell's neighbour inside the domain, whose depth and velocity an open line's
    /// cell takes each stage (zero gradient); 0 elsewhere.
    pub inner: u8,
    /// On a normal-depth line, the friction slope (m/m), > 0; 0 elsewhere (an open line).
    pub slope: f32,
    /// On a rating line, 1 / its length (1/m): a cell passes, per metre of its width, the
    /// line's rating discharge at the cell's level times this; 0 elsewhere.
    pub rating_scale: f32,
}

/// A line across which discharge is recorded: Q = sum over samples of
/// (hu, hv) at the sample's cell dotted with its weight (left-hand normal times length).
#[derive(Clone, Debug)]
pub struct Section {
    pub name: String,
    /// Finest cell of each sample and (n_x ds, n_y ds) in metres.
    pub samples: Vec<((usize, usize), [f64; 2])>,
}

#[derive(Clone, Debug)]
pub struct Gauge {
    pub name: String,
    pub x: f64,
    pub y: f64,
    /// Domain cell holding the gauge.
    pub cell: (usize, usize),
}

/// Everything the solver needs. Cell fields are in storage layout (block by block, see
/// [`BlockGrid`]); [`Model::domain`] turns one into a finest-level raster.
#[derive(Clone, Debug)]
pub struct Model {
    pub name: String,
    pub grid: BlockGrid,
    pub cell_size: f64,
    /// Coordinates of the domain's south-west corner.
    pub origin: (f64, f64),
    /// Coordinate reference system (WKT) of the terrain, when it states one.
    pub crs: Option<String>,
    /// Elevations are stored relative to this datum, so f32 keeps millimetres.
    pub datum: f64,
    /// Bed relative to the datum; [`WALL_BED`] outside the domain and in padding.
    pub bed: Vec<f32>,
    pub depth: Vec<f32>,
    pub hu: Vec<f32>,
    pub hv: Vec<f32>,
    /// Manning's n per cell.
    pub manning: Vec<f32>,
    /// Losses to the ground (`[losses]`); none by default.
    pub losses: super::losses::Losses,
    /// Culverts linking two places (global storage cells).
    pub structures: Vec<super::structures::Structure>,
    /// Boundary condition index per edge cell: west (ny), east (ny), south (nx), north (nx).
    pub bc_edge: Vec<u32>,
    pub bc_defs: Vec<BcDef>,
    pub series: Vec<Series>,
    pub rain: Rain,
    pub gauges: Vec<Gauge>,
    /// Point, line and polygon sources, cell by cell (storage layout of this model).
    pub sources: Vec<SourceCell>,
    pub sections: Vec<Section>,
    pub numerics: Numerics,
    pub t_start: f64,
    pub t_end: f64,
    /// The clock of the maxima's times: the scenario's start to its end. A restart builds
    /// it from the scenario again; the checkpoint re-encodes its times if it moved.
    pub peak_clock: PeakClock,
    /// The date of t = 0 (`time.reference`), where the scenario gives one.
    pub time_reference: Option<super::reference::TimeReference>,
    pub output_times: Vec<f64>,
    pub gauge_times: Vec<f64>,
    pub write_rasters: bool,
    pub write_png: bool,
    /// The maps of the model as built (`io::check_files`).
    pub write_check: bool,
    /// The whole event in one NetCDF (`io::netcdf`), from the maps of the output times.
    pub write_netcdf: bool,
    /// `output.netcdf = true` given: a file that cannot be written stops the run, where
    /// the default leaves it out with a note.
    pub netcdf_asked: bool,
    /// `flood.gif`: the depth at every output time.
    pub write_animation: bool,
    /// How blocks are shared out over ranks.
    pub partition: crate::partition::Method,
    /// Moving blocks between ranks during the run (`[load_balancing]`).
    pub balance: Option<crate::partition::balance::Settings>,
    /// Output rasters: GeoTIFF (with the `gdal` feature) or ESRI ASCII.
    pub raster_format: RasterFormat,
    /// Set when the run continues from a checkpoint.
    pub resume: Option<Resume>,
    /// A digest of each scenario key as resolved (file and `--set`), by its dotted path:
    /// ranks compare them at start-up (`scenario::digest`).
    pub scenario_keys: Vec<(String, u64)>,
    /// The scenario as this run resolved it (file and `--set`), as TOML: copied into the
    /// output folder (`resolved_scenario.toml`), so the results keep the inputs that made them.
    pub resolved_scenario: String,
    /// Every file the scenario names that exists (its key's dotted path, the file), and the
    /// scenario file itself: a run refuses an output folder where it would write over one.
    pub input_files: Vec<(String, std::path::PathBuf)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RasterFormat {
    GeoTiff,
    Ascii,
}

impl RasterFormat {
    pub fn extension(self) -> &'static str {
        match self {
            RasterFormat::GeoTiff => "tif",
            RasterFormat::Ascii => "asc",
        }
    }
}

impl Model {
    pub fn nx(&self) -> usize {
        self.grid.nx
    }
    pub fn ny(&self) -> usize {
        self.grid.ny
    }

    /// Whether stored cell k belongs to the domain (not padding, not nodata).
    pub fn is_valid(&self, k: usize) -> bool {
        self.bed[k] < WALL_BED * 0.5
    }

    /// Domain cells of the finest level (nodata excluded).
    pub fn valid_cells(&self) -> usize {
        (0..self.bed.len())
            .filter(|&k| self.is_valid(k))
            .map(|k| self.grid.cell_footprint(k).2.pow(2))
            .sum()
    }

    /// A stored field as a finest-level raster, row-major from the south edge; coarse
    /// cells are replicated.
    pub fn domain(&self, stored: &[f32]) -> Vec<f32> {
        self.grid.from_storage(stored)
    }

    pub fn cell_area(&self) -> f64 {
        self.cell_size * self.cell_size
    }

    /// Stored water volume (m³) of a finest-level depth raster, summed in f64.
    pub fn volume(&self, depth: &[f32]) -> f64 {
        depth.iter().map(|&h| h as f64).sum::<f64>() * self.cell_area()
    }

    /// Stored water volume (m³) of a depth field in storage layout.
    pub fn stored_volume(&self, depth: &[f32]) -> f64 {
        (0..depth.len())
            .filter(|&k| self.is_valid(k))
            .map(|k| depth[k] as f64 * self.grid.cell_footprint(k).2.pow(2) as f64)
            .sum::<f64>()
            * self.cell_area()
    }

    /// Continues from a state (storage layout, (h, hu, hv, z)) and the clock and maxima of a
    /// run that stood there: a checkpoint restart, or a rank rebuilt after a rebalance.
    pub fn continue_from(&mut self, state: &[[f32; 4]], resume: Resume) {
        // The clock holds a stop as the double-f32 pair of its f64 time, whose sum can fall
        // a bit short of it (39.199999999999996 s came back a few ulps below): the stop it
        // stands on is that time, else the restarted run records it again (a hunt: gauge,
        // section and structure rows written twice).
        let pair_sum = resume.t.0 as f64 + resume.t.1 as f64;
        let t = self
            .output_times
            .iter()
            .chain(&self.gauge_times)
            .copied()
            .find(|&o| {
                let (hi, lo) = crate::solver::split_f64(o);
                (hi, lo) == (resume.t.0, resume.t.1)
            })
            .unwrap_or(pair_sum);
        self.depth = state.iter().map(|s| s[0]).collect();
        self.hu = state.iter().map(|s| s[1]).collect();
        self.hv = state.iter().map(|s| s[2]).collect();
        self.bed = state.iter().map(|s| s[3]).collect();
        self.t_start = t;
        self.output_times.retain(|&o| o > t);
        self.gauge_times.retain(|&g| g > t);
        self.resume = Some(resume);
    }

    /// The model one rank runs: the given blocks (global ids, in local order) on `grid`.
    pub fn localize(&self, global: &[u32], grid: BlockGrid) -> Model {
        let pick = |field: &[f32]| -> Vec<f32> { pick_blocks(field, global) };
        Model {
            name: self.name.clone(),
            grid,
            cell_size: self.cell_size,
            origin: self.origin,
            crs: self.crs.clone(),
            datum: self.datum,
            bed: pick(&self.bed),
            depth: pick(&self.depth),
            hu: pick(&self.hu),
            hv: pick(&self.hv),
            manning: pick(&self.manning),
            losses: self.losses.localize(global),
            structures: local_structures(&self.structures, global),
            bc_edge: self.bc_edge.clone(),
            bc_defs: self.bc_defs.clone(),
            series: self.series.clone(),
            rain: Rain {
                cells: if self.rain.cells.is_empty() {
                    Vec::new()
                } else {
                    pick_blocks(&self.rain.cells, global)
                },
                weights: self.rain.weights.clone(),
            },
            gauges: self.gauges.clone(),
            sources: local_sources(&self.sources, global),
            sections: self.sections.clone(),
            numerics: self.numerics.clone(),
            t_start: self.t_start,
            t_end: self.t_end,
            peak_clock: self.peak_clock,
            time_reference: self.time_reference,
            output_times: self.output_times.clone(),
            gauge_times: self.gauge_times.clone(),
            write_rasters: self.write_rasters,
            write_png: self.write_png,
            write_check: self.write_check,
            write_netcdf: self.write_netcdf,
            netcdf_asked: self.netcdf_asked,
            write_animation: self.write_animation,
            partition: self.partition,
            balance: self.balance,
            raster_format: self.raster_format,
            resume: self.resume.as_ref().map(|r| Resume {
                block_volume: global.iter().map(|&g| r.block_volume[g as usize]).collect(),
                maxima: if r.maxima.is_empty() {
                    Vec::new()
                } else {
                    pick_blocks(&r.maxima, global)
                },
                infiltrated: if r.infiltrated.is_empty() {
                    Vec::new()
                } else {
                    pick_blocks(&r.infiltrated, global)
                },
                loss_volume: if r.loss_volume.is_empty() {
                    Vec::new()
                } else {
                    global.iter().map(|&g| r.loss_volume[g as usize]).collect()
                },
                ..r.clone()
            }),
            scenario_keys: self.scenario_keys.clone(),
            resolved_scenario: self.resolved_scenario.clone(),
            input_files: self.input_files.clone(),
        }
    }

    /// The name of each culvert and weir of the scenario (a weir once, whatever its
    /// stretches), in `Structure::owner` order.
    pub fn structure_names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for s in &self.structures {
            if s.owner == names.len() {
                names.push(s.name.clone());
            }
        }
        names
    }

    /// Each culvert's and weir's discharge from its structures' (`discharges`, in model
    /// order): a weir's stretches summed in order.
    pub fn structure_totals(&self, discharges: &[f32]) -> Vec<f64> {
        let mut totals = vec![0.0f64; self.structure_names().len()];
        for (s, &q) in self.structures.iter().zip(discharges) {
            totals[s.owner] += q as f64;
        }
        totals
    }

    /// Offsets of the west, east, south and north edges in `bc_edge`.
    pub fn edge_offsets(&self) -> [u32; 4] {
        let (nx, ny) = (self.nx() as u32, self.ny() as u32);
        [0, ny, 2 * ny, 2 * ny + nx]
    }

    /// Cell centre coordinates of cell (i, j).
    pub fn cell_centre(&self, i: usize, j: usize) -> (f64, f64) {
        (
            self.origin.0 + (i as f64 + 0.5) * self.cell_size,
            self.origin.1 + (j as f64 + 0.5) * self.cell_size,
        )
    }
}

/// Sources in the given blocks, renumbered to their local storage.
fn local_sources(sources: &[SourceCell], blocks: &[u32]) -> Vec<SourceCell> {
    let cells = crate::grid::CELLS_PER_BLOCK;
    let local: std::collections::HashMap<usize, usize> = blocks
        .iter()
        .enumerate()
        .map(|(l, &g)| (g as usize, l))
        .collect();
    sources
        .iter()
        .filter_map(|s| {
            let l = local.get(&(s.cell / cells))?;
            Some(SourceCell {
                cell: l * cells + s.cell % cells,
                ..*s
            })
        })
        .collect()
}

/// Culverts with their end cells renumbered to the local storage of blocks `global`. A rank
/// holds every cell of a culvert with a block it computes (`partition::local`); one it
/// holds only in part is left without cells, and carries nothing there.
fn local_structures(
    structures: &[super::structures::Structure],
    global: &[u32],
) -> Vec<super::structures::Structure> {
    let cells = crate::grid::CELLS_PER_BLOCK;
    let local: std::collections::HashMap<u32, usize> =
        global.iter().enumerate().map(|(l, &g)| (g, l)).collect();
    let renumber = |c: &usize| {
        local
            .get(&((c / cells) as u32))
            .map(|l| l * cells + c % cells)
    };
    structures
        .iter()
        .map(|c| {
            let mut c = c.clone();
            let held = c
                .ends
                .iter()
                .all(|e| e.cells.iter().all(|k| renumber(k).is_some()));
            for end in &mut c.ends {
                end.cells = match held {
                    true => end.cells.iter().filter_map(renumber).collect(),
                    false => Vec::new(),
                };
            }
            c
        })
        .collect()
}

/// The cells of the given blocks, in that order.
pub(crate) fn pick_blocks<T: Copy>(field: &[T], blocks: &[u32]) -> Vec<T> {
    let cells = crate::grid::CELLS_PER_BLOCK;
    blocks
        .iter()
        .flat_map(|&g| {
            field[g as usize * cells..(g as usize + 1) * cells]
                .iter()
                .copied()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_interpolates_and_integrates() {
        let s = Series {
            name: "q".into(),
            times: vec![0.0, 10.0, 30.0],
            values: vec![0.0, 10.0, 0.0],
        };
        assert_eq!(s.at(-5.0), 0.0);
        assert_eq!(s.at(5.0), 5.0);
        assert_eq!(s.at(20.0), 5.0);
        assert_eq!(s.at(99.0), 0.0);
        assert!((s.integral(0.0, 30.0) - 150.0).abs() < 1e-12);
        assert!((s.integral(5.0, 20.0) - (37.5 + 75.0)).abs() < 1e-12);
    }
}
