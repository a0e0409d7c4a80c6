//! Turns a parsed scenario into a [`Model`]: terrain, initial water, friction, boundaries,
//! forcing and gauges on the grid. Every problem is an [`InputError`] naming the key.

use crate::error::InputError;
use crate::grid::{BlockGrid, BLOCK_ALWAYS_ACTIVE, NONE};
use crate::io::ascii_grid::Raster;
use crate::io::georaster::{self, GeoRaster};
use crate::io::vector::{self, Want};
use crate::scenario::fields::{Field, Shape};
use crate::scenario::model::{
    BcDef, BcKind, Gauge, Limiter, Model, Numerics, Rain, RasterFormat, Section, Series,
    SourceCell, WALL_BED,
};
use crate::scenario::polygon::Polygon;
use crate::scenario::reference::TimeReference;
use crate::scenario::series::{self, Quantity, SeriesList};
use crate::scenario::spec::*;
use crate::scenario::{limits, nodata, outflow, refine, segment_lines};
use std::path::{Path, PathBuf};

pub(crate) fn bad(key: &str, message: impl Into<String>) -> InputError {
    InputError::new(message).at_key(key)
}

/// The index in `r.data` of the raster cell holding (x, y), clamped to the raster (points
/// on its outer edge belong to its edge cells).
fn raster_cell(r: &Raster, x: f64, y: f64) -> usize {
    let index =
        |v: f64, o: f64, n: usize| (((v - o) / r.cellsize).floor().max(0.0) as usize).min(n - 1);
    index(x, r.xll, r.ncols) + r.ncols * index(y, r.yll, r.nrows)
}

/// Geometry of the finest grid: cells and where they are.
pub(crate) struct Frame {
    pub nx: usize,
    pub ny: usize,
    pub dx: f64,
    pub origin: (f64, f64),
    /// Coordinate reference system (WKT) of the terrain raster, when it states one.
    pub crs: Option<String>,
}

impl Frame {
    pub fn centre(&self, i: usize, j: usize) -> (f64, f64) {
        (
            self.origin.0 + (i as f64 + 0.5) * self.dx,
            self.origin.1 + (j as f64 + 0.5) * self.dx,
        )
    }

    /// `f` at the centre of every finest cell, row by row, shared among the cores: an
    /// expression terrain on 10^8 cells is seconds of sin and cos on one.
    pub fn map_cells<F>(&self, f: F) -> Vec<f64>
    where
        F: Fn(f64, f64) -> f64 + Sync,
    {
        crate::parallel::map(self.nx * self.ny, |k| {
            let (x, y) = self.centre(k % self.nx, k / self.nx);
            f(x, y)
        })
    }

    pub fn cells(&self) -> impl Iterator<Item = (usize, f64, f64)> + '_ {
        (0..self.ny).flat_map(move |j| {
            (0..self.nx).map(move |i| {
                let (x, y) = self.centre(i, j);
                (i + self.nx * j, x, y)
            })
        })
    }

    /// A raster's values at the centre of every finest cell (nearest raster cell), after
    /// checking that its CRS is the terrain's and that it covers the whole domain. NaN
    /// where the raster has nodata.
    pub fn sample(&self, g: &GeoRaster, path: &Path) -> Result<Vec<f64>, InputError> {
        self.check_covered(g, path)?;
        let r = &g.raster;
        Ok(self
            .cells()
            .map(|(_, x, y)| {
                let v = r.data[raster_cell(r, x, y)];
                if r.is_nodata(v) {
                    f64::NAN
                } else {
                    v
                }
            })
            .collect())
    }

    /// Checks that a raster is in the terrain's CRS (when both state one) and covers the
    /// whole domain.
    pub fn check_covered(&self, g: &GeoRaster, path: &Path) -> Result<(), InputError> {
        let fail = |m: String| InputError::new(m).in_file(path);
        if let (Some(a), Some(b)) = (&self.crs, &g.crs) {
            if !georaster::same_crs(a, b) {
                return Err(fail(format!(
                    "its CRS ({}) differs from the terrain's ({}): reproject it first (gdalwarp -t_srs)",
                    georaster::crs_name(b),
                    georaster::crs_name(a)
                )));
            }
        }
        let r = &g.raster;
        let (x1, y1) = (
            self.origin.0 + self.nx as f64 * self.dx,
            self.origin.1 + self.ny as f64 * self.dx,
        );
        let (rx1, ry1) = (
            r.xll + r.ncols as f64 * r.cellsize,
            r.yll + r.nrows as f64 * r.cellsize,
        );
        let slack = 1e-6 * self.dx;
        if r.xll > self.origin.0 + slack
            || r.yll > self.origin.1 + slack
            || rx1 < x1 - slack
            || ry1 < y1 - slack
        {
            return Err(fail(format!(
                "it covers x {}..{}, y {}..{} but the domain is x {}..{}, y {}..{}: it must cover the whole domain",
                r.xll, rx1, r.yll, ry1, self.origin.0, x1, self.origin.1, y1
            )));
        }
        Ok(())
    }
}

/// Builds the model; `dir` resolves relative paths in the scenario.
pub fn build(spec: &Spec, dir: &Path) -> Result<Model, InputError> {
    let (frame, terrain_raster) = frame(spec, dir)?;
    let mut elevation = terrain(
        &spec.terrain,
        &frame,
        terrain_raster.as_ref().map(|(r, p)| (r, p.as_path())),
    )?;
    levees(&spec.levees, &frame, &mut elevation, dir)?;
    super::weirs::walls(&spec.weirs, &frame, &mut elevation, dir)?;
    // Nodata (NaN here) lies outside the domain: a wall, never wet, left out of the datum.
    let datum = elevation.iter().cloned().fold(f64::INFINITY, f64::min);
    let fine_bed: Vec<f32> = crate::parallel::map(elevation.len(), |k| {
        let z = elevation[k];
        if z.is_nan() {
            WALL_BED
        } else {
            (z - datum) as f32
        }
    });
    let reference = spec
        .time
        .reference
        .as_ref()
        .map(|r| TimeReference::from_toml(r).map_err(|m| bad("time.reference", m)))
        .transpose()?;
    let mut series_list = SeriesList::new(reference);
    let boundary = segment_lines::resolve(&spec.boundary, &frame, dir)?;
    let (bc_edge, bc_defs) = boundaries(&boundary, &frame, datum, dir, &mut series_list)?;
    nodata::segments(&boundary, &bc_edge, &frame, &elevation)?;
    let gauges = gauges(&spec.gauges, &frame)?;
    nodata::gauges(&gauges, &frame, &elevation)?;
    let mut source_cells = sources(&spec.sources, &frame, &elevation, dir, &mut series_list)?;
    source_cells.extend(level_lines(
        &boundary.lines,
        &frame,
        &elevation,
        datum,
        dir,
        &mut series_list,
    )?);
    let mut grid = refine::grid(spec, &frame, &elevation, &bc_edge, &bc_defs, &gauges, dir)?;
    if let Some(why) = limits::stored_too_large(frame.nx, frame.ny, grid.stored_cells()) {
        let key = match spec.terrain {
            TerrainSpec::Raster { .. } => "terrain.cell_size",
            _ => "domain.nx",
        };
        return Err(bad(key, why));
    }
    mark_forced_blocks(&mut grid, &bc_edge, &bc_defs);
    let structures = super::structures::build(
        &spec.culverts,
        &spec.weirs,
        &frame,
        &mut grid,
        &elevation,
        datum,
        dir,
    )?;
    let sources = stored_sources(&mut grid, &source_cells);
    // Coarse cells take the mean of the finest terrain they cover.
    let mut bed = grid.to_storage(&fine_bed, WALL_BED);
    let points = storage_points(&grid, &frame);
    let (depth, hu, hv) = initial(&spec.initial, &points, &frame, &grid, datum, &mut bed, dir)?;
    let fine_manning = friction(&spec.friction, &frame, dir)?;
    outflow::refuse_frictionless(&boundary.segments, &bc_edge, &frame, &fine_manning)?;
    refuse_frictionless_lines(&source_cells, &frame, &fine_manning)?;
    let manning = grid.to_storage(&fine_manning, 0.0);
    let losses = match &spec.losses {
        Some(l) => super::losses::build(l, &frame, &grid, dir)?,
        None => Default::default(),
    };
    let rain = match &spec.rain {
        Some(r) => rain(r, &grid, &frame, &points, &bed, dir, &mut series_list)?,
        None => Rain::default(),
    };
    let numerics = numerics(spec)?;
    let sections = sections(&spec.sections, &frame, dir)?;
    nodata::sections(&sections, &frame, &elevation)?;
    let (output_times, gauge_times) = schedule(
        &spec.time,
        !gauges.is_empty() || !sections.is_empty() || !structures.is_empty(),
    )?;
    let model = Model {
        name: spec.name.clone().unwrap_or_else(|| "scenario".into()),
        grid,
        cell_size: frame.dx,
        origin: frame.origin,
        crs: frame.crs.clone(),
        datum,
        bed,
        depth,
        hu,
        hv,
        manning,
        losses,
        structures,
        bc_edge,
        bc_defs,
        series: series_list.into_series(),
        rain,
        gauges,
        sources,
        sections,
        numerics,
        t_start: spec.time.start,
        t_end: spec.time.end,
        peak_clock: super::maxima::PeakClock::new(spec.time.start, spec.time.end),
        time_reference: reference,
        output_times,
        gauge_times,
        write_rasters: spec.output.rasters,
        write_png: spec.output.png,
        write_check: spec.output.check.unwrap_or(spec.output.rasters),
        write_netcdf: netcdf(&spec.output)?,
        netcdf_asked: spec.output.netcdf == Some(true),
        write_animation: spec.output.png && spec.output.animation,
        raster_format: raster_format(&spec.output)?,
        resume: None,
        scenario_keys: Vec::new(),
        resolved_scenario: String::new(),
        partition: spec
            .parallel
            .partition
            .as_deref()
            .unwrap_or("hilbert")
            .parse()
            .map_err(|m: String| bad("parallel.partition", m))?,
        balance: spec
            .load_balancing
            .as_ref()
            .filter(|b| b.enabled != Some(false))
            .map(balance_settings)
            .transpose()?,
    };
    super::forcing_limits::refuse_impossible(&model)?;
    Ok(model)
}

fn balance_settings(
    b: &crate::scenario::spec::LoadBalancingSpec,
) -> Result<crate::partition::balance::Settings, InputError> {
    let every = b.every.unwrap_or(100);
    if every == 0 {
        return Err(bad(
            "load_balancing.every",
            "expected at least 1 step, found 0",
        ));
    }
    let within = |key: &str, v: f64, lo: f64, hi: f64, what: &str| {
        if v.is_finite() && v >= lo && v < hi {
            Ok(v)
        } else {
            Err(bad(key, format!("expected {what}, found {v}")))
        }
    };
    Ok(crate::partition::balance::Settings {
        every,
        threshold: within(
            "load_balancing.threshold",
            b.threshold.unwrap_or(1.1),
            1.0,
            f64::INFINITY,
            "a number >= 1 (max over mean busy time)",
        )?,
        rule: b
            .rule
            .as_deref()
            .unwrap_or("cost")
            .parse()
            .map_err(|m: String| bad("load_balancing.rule", m))?,
        epsilon: within(
            "load_balancing.epsilon",
            b.epsilon.unwrap_or(0.2),
            0.0,
            1.0,
            "a number in [0, 1)",
        )?,
        max_blocks: within(
            "load_balancing.max_blocks",
            b.max_blocks.unwrap_or(4.0),
            1.0,
            f64::INFINITY,
            "a number >= 1 (times the fair number of blocks)",
        )?,
        payback: within(
            "load_balancing.payback",
            b.payback.unwrap_or(1.0),
            f64::MIN_POSITIVE,
            f64::INFINITY,
            "a number > 0 (windows)",
        )?,
        min_busy_share: within(
            "load_balancing.min_busy_share",
            b.min_busy_share.unwrap_or(0.75),
            0.0,
            1.0,
            "a number in [0, 1) (share of the window's wall time)",
        )?,
    })
}

fn raster_format(output: &OutputSpec) -> Result<RasterFormat, InputError> {
    let default = if cfg!(feature = "gdal") {
        "geotiff"
    } else {
        "ascii"
    };
    match output.format.as_deref().unwrap_or(default) {
        "geotiff" if cfg!(feature = "gdal") => Ok(RasterFormat::GeoTiff),
        "geotiff" => Err(bad(
            "output.format",
            "this build has no GDAL (feature `gdal`): use \"ascii\"",
        )),
        "ascii" => Ok(RasterFormat::Ascii),
        other => Err(bad(
            "output.format",
            format!("expected \"geotiff\" or \"ascii\", found {other:?}"),
        )),
    }
}

/// Whether the run writes `event.nc`: by default wherever it can (GDAL, and the maps it is
/// assembled from).
fn netcdf(output: &OutputSpec) -> Result<bool, InputError> {
    #[cfg(feature = "gdal")]
    let writer = crate::io::netcdf::available();
    #[cfg(not(feature = "gdal"))]
    let writer = false;
    match output.netcdf {
        None => Ok(writer && output.rasters),
        Some(false) => Ok(false),
        Some(true) if !writer => Err(bad(
            "output.netcdf",
            "this build has no GDAL with its netCDF driver, which writes NetCDF: set it to false",
        )),
        Some(true) if !output.rasters => Err(bad(
            "output.netcdf",
            "event.nc is assembled from the maps of the output times: set output.rasters = true too",
        )),
        Some(true) => Ok(true),
    }
}

/// Centre of each stored cell (None for padding), where initial conditions are evaluated.
pub(crate) fn storage_points(grid: &BlockGrid, frame: &Frame) -> Vec<Option<(f64, f64)>> {
    (0..grid.stored_cells())
        .map(|k| {
            let (i, j, w) = grid.cell_footprint(k);
            (i < frame.nx && j < frame.ny).then(|| {
                let half = w as f64 / 2.0;
                (
                    frame.origin.0 + (i as f64 + half) * frame.dx,
                    frame.origin.1 + (j as f64 + half) * frame.dx,
                )
            })
        })
        .collect()
}

fn frame(spec: &Spec, dir: &Path) -> Result<(Frame, Option<(Raster, PathBuf)>), InputError> {
    if let TerrainSpec::Raster { path, cell_size } = &spec.terrain {
        if spec.domain.is_some() {
            return Err(bad(
                "domain",
                "remove [domain]: a terrain raster sets the grid itself (terrain.cell_size sets its cell size)",
            ));
        }
        let path = dir.join(path);
        let GeoRaster { mut raster, crs } = georaster::read(&path)?;
        // Nodata is outside the domain; as NaN it stays outside through averaging.
        let nodata = raster.nodata;
        for v in raster.data.iter_mut().filter(|v| nodata == Some(**v)) {
            *v = f64::NAN;
        }
        let dx = cell_size.unwrap_or(raster.cellsize);
        if !(dx > 0.0 && dx.is_finite()) {
            return Err(bad(
                "terrain.cell_size",
                format!("expected a positive size in metres, found {dx}"),
            ));
        }
        // The model grid covers whole model cells inside the raster's extent.
        let cells = |n: usize| ((n as f64 * raster.cellsize / dx) + 1e-9).floor() as usize;
        let frame = Frame {
            nx: cells(raster.ncols),
            ny: cells(raster.nrows),
            dx,
            origin: (raster.xll, raster.yll),
            crs,
        };
        if frame.nx == 0 || frame.ny == 0 {
            return Err(bad(
                "terrain.cell_size",
                format!("{dx} m is larger than the whole raster"),
            ));
        }
        if let Some(why) = limits::grid_too_large(frame.nx, frame.ny) {
            return Err(bad(
                "terrain.cell_size",
                format!("with {dx} m cells: {why}"),
            ));
        }
        return Ok((frame, Some((raster, path))));
    }
    let d = spec.domain.as_ref().ok_or_else(|| {
        bad(
            "domain",
            "expected a [domain] table (cell_size, nx, ny) for synthetic terrain",
        )
    })?;
    if !(d.cell_size > 0.0 && d.cell_size.is_finite()) {
        return Err(bad(
            "domain.cell_size",
            format!("expected a positive size in metres, found {}", d.cell_size),
        ));
    }
    if d.nx == 0 || d.ny == 0 {
        return Err(bad(
            "domain.nx",
            format!(
                "expected at least 1 cell each way, found nx = {}, ny = {}",
                d.nx, d.ny
            ),
        ));
    }
    if let Some(why) = limits::grid_too_large(d.nx, d.ny) {
        return Err(bad("domain.nx", why));
    }
    Ok((
        Frame {
            nx: d.nx,
            ny: d.ny,
            dx: d.cell_size,
            origin: finite_origin(d.origin)?,
            crs: None,
        },
        None,
    ))
}

fn finite_origin(o: [f64; 2]) -> Result<(f64, f64), InputError> {
    if o.iter().all(|v| v.is_finite()) {
        Ok((o[0], o[1]))
    } else {
        Err(bad(
            "domain.origin",
            format!("expected finite coordinates, found {o:?}"),
        ))
    }
}

fn terrain(
    spec: &TerrainSpec,
    frame: &Frame,
    raster: Option<(&Raster, &Path)>,
) -> Result<Vec<f64>, InputError> {
    let (z, key): (Vec<f64>, &str) = match spec {
        TerrainSpec::Raster { .. } => {
            let (r, path) = raster.expect("raster terrain comes with its raster");
            let z = resample(r, frame);
            if z.iter().all(|v| v.is_nan()) {
                return Err(InputError::new("every cell is nodata: no domain left").in_file(path));
            }
            return Ok(z);
        }
        TerrainSpec::Flat { elevation } => {
            (vec![*elevation; frame.nx * frame.ny], "terrain.elevation")
        }
        TerrainSpec::Expression { expression } => {
            let field = Field::parse_expression(expression, "terrain.expression")?;
            (frame.map_cells(|x, y| field.at(x, y)), "terrain.expression")
        }
        TerrainSpec::Slope {
            elevation,
            slope_x,
            slope_y,
        } => {
            let (e, sx, sy, o) = (*elevation, *slope_x, *slope_y, frame.origin);
            let z = frame
                .cells()
                .map(|(_, x, y)| e + sx * (x - o.0) + sy * (y - o.1));
            (z.collect(), "terrain")
        }
        TerrainSpec::Bowl {
            center,
            radius,
            depth,
            elevation,
        } => {
            if !(*radius > 0.0 && radius.is_finite()) {
                return Err(bad(
                    "terrain.radius",
                    format!("expected a positive radius, found {radius}"),
                ));
            }
            let (c, a, h0, e) = (*center, *radius, *depth, *elevation);
            let z = frame.cells().map(|(_, x, y)| {
                let r2 = (x - c[0]).powi(2) + (y - c[1]).powi(2);
                e + h0 * (r2 / (a * a) - 1.0)
            });
            (z.collect(), "terrain")
        }
    };
    if let Some((c, _)) = z.iter().enumerate().find(|(_, v)| !v.is_finite()) {
        let (x, y) = frame.centre(c % frame.nx, c / frame.nx);
        return Err(bad(
            key,
            format!("not a finite elevation at x = {x}, y = {y}"),
        ));
    }
    Ok(z)
}

/// Terrain on the model grid: the raster itself when the cell sizes agree; else the mean of
/// the raster cells whose centres fall in each model cell (a finer raster), or bilinear
/// interpolation between raster cell centres (a coarser one).
fn resample(r: &Raster, frame: &Frame) -> Vec<f64> {
    if (frame.dx - r.cellsize).abs() <= 1e-9 * r.cellsize {
        return r.data[..]
            .chunks(r.ncols)
            .take(frame.ny)
            .flat_map(|row| row[..frame.nx].to_vec())
            .collect();
    }
    let rc = r.cellsize;
    // Raster column (or row) whose centre is the first at or after map offset `o`.
    let first = |o: f64| ((o / rc - 0.5).ceil().max(0.0)) as usize;
    // Cell by cell, on every core: the longest part of loading a fine model grid.
    crate::parallel::map(frame.nx * frame.ny, |c| {
        let (i, j) = (c % frame.nx, c / frame.nx);
        let (x0, y0) = (i as f64 * frame.dx, j as f64 * frame.dx);
        let (c0, c1) = (first(x0), first(x0 + frame.dx).min(r.ncols));
        let (r0, r1) = (first(y0), first(y0 + frame.dx).min(r.nrows));
        if frame.dx > rc && c1 > c0 && r1 > r0 {
            let sum: f64 = (r0..r1)
                .flat_map(|row| (c0..c1).map(move |col| (col, row)))
                .map(|(col, row)| r.get(col, row))
                .sum();
            sum / ((c1 - c0) * (r1 - r0)) as f64
        } else {
            bilinear(r, x0 + 0.5 * frame.dx, y0 + 0.5 * frame.dx)
        }
    })
}

/// Bilinear interpolation between raster cell centres, at map offsets (x, y) from the
/// raster's corner; held constant beyond the outermost centres.
fn bilinear(r: &Raster, x: f64, y: f64) -> f64 {
    let fx = (x / r.cellsize - 0.5).clamp(0.0, (r.ncols - 1) as f64);
    let fy = (y / r.cellsize - 0.5).clamp(0.0, (r.nrows - 1) as f64);
    let (c0, r0) = (fx.floor() as usize, fy.floor() as usize);
    let (c1, r1) = ((c0 + 1).min(r.ncols - 1), (r0 + 1).min(r.nrows - 1));
    let (wx, wy) = (fx - c0 as f64, fy - r0 as f64);
    let low = r.get(c0, r0) * (1.0 - wx) + r.get(c1, r0) * wx;
    let high = r.get(c0, r1) * (1.0 - wx) + r.get(c1, r1) * wx;
    low * (1.0 - wy) + high * wy
}

/// Depth such that depth + bed == level exactly in f32, so a lake at rest is at rest to the
/// last bit: the scheme then sees a flat surface with no round-off slope. Returns None when
/// no f32 depth does it (rounding ties can make every sum miss the level).
pub fn exact_depth(level: f32, bed: f32) -> Option<f32> {
    if level <= bed {
        return Some(0.0);
    }
    let h = level - bed;
    [
        h,
        h.next_up(),
        h.next_down(),
        h.next_up().next_up(),
        h.next_down().next_down(),
    ]
    .into_iter()
    .find(|&c| c >= 0.0 && c + bed == level)
}

/// Depth and bed for a water level: the bed moves by an ulp (tens of nanometres) when
/// that is what it takes for depth + bed to equal the level exactly.
pub fn depth_for_level(level: f32, bed: f32) -> (f32, f32) {
    [bed, bed.next_up(), bed.next_down()]
        .into_iter()
        .find_map(|z| exact_depth(level, z).map(|h| (h, z)))
        .unwrap_or((level - bed, bed))
}

type Water = (Vec<f32>, Vec<f32>, Vec<f32>);

/// What the initial conditions set in one cell.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Water1 {
    Level(f64),
    Depth(f64),
}

fn initial(
    spec: &InitialSpec,
    points: &[Option<(f64, f64)>],
    frame: &Frame,
    grid: &BlockGrid,
    datum: f64,
    bed: &mut [f32],
    dir: &Path,
) -> Result<Water, InputError> {
    let n = points.len();
    let mut depth = vec![0.0f32; n];
    let mut hu = vec![0.0f32; n];
    let mut hv = vec![0.0f32; n];
    if spec.is_dry() {
        // A catchment that starts dry (rain, inflows): no per-cell water to work out, which
        // took a fifth of loading an 8 M-cell scenario.
        return Ok((depth, hu, hv));
    }
    let water = water_spec(spec, points, frame, grid, dir)?;
    for (c, w) in water.iter().enumerate() {
        let Some((amount, u, v)) = w else { continue };
        if bed[c] >= WALL_BED * 0.5 {
            continue; // outside the domain (nodata)
        }
        depth[c] = match *amount {
            Water1::Level(level) => {
                let (h, z) = depth_for_level((level - datum) as f32, bed[c]);
                bed[c] = z;
                h
            }
            Water1::Depth(d) if d < 0.0 => {
                let (x, y) = points[c].unwrap_or_default();
                return Err(bad(
                    "initial.depth",
                    format!("negative depth {d} m at x = {x}, y = {y}"),
                ));
            }
            Water1::Depth(d) => d as f32,
        };
        hu[c] = (depth[c] as f64 * u) as f32;
        hv[c] = (depth[c] as f64 * v) as f32;
    }
    Ok((depth, hu, hv))
}

/// Water (a level or a depth) and velocity (u, v) the initial conditions give a cell.
pub(crate) type CellWater = (Water1, f64, f64);

/// What the initial conditions put at each point.
pub(crate) fn water_spec(
    spec: &InitialSpec,
    points: &[Option<(f64, f64)>],
    frame: &Frame,
    grid: &BlockGrid,
    dir: &Path,
) -> Result<Vec<Option<CellWater>>, InputError> {
    let n = points.len();
    let mut water: Vec<Option<Water1>> = vec![None; n];
    let mut u = vec![0.0f64; n];
    let mut v = vec![0.0f64; n];
    let everywhere = |_: f64, _: f64| true;
    apply_water(
        &mut water,
        &mut u,
        &mut v,
        points,
        &everywhere,
        spec.water_level.as_ref(),
        spec.depth.as_ref(),
        spec.u.as_ref(),
        spec.v.as_ref(),
        "initial",
    )?;
    for (k, region) in spec.regions.iter().enumerate() {
        let key = format!("initial.region[{k}]");
        let shape = region_shape(&region.shape_keys(), &key)?;
        if region.water_level.is_none() && region.depth.is_none() {
            return Err(bad(&key, "expected water_level or depth"));
        }
        let inside = |x: f64, y: f64| shape.contains(x, y);
        apply_water(
            &mut water,
            &mut u,
            &mut v,
            points,
            &inside,
            region.water_level.as_ref(),
            region.depth.as_ref(),
            region.u.as_ref(),
            region.v.as_ref(),
            &key,
        )?;
    }
    if let Some(r) = &spec.raster {
        let path = dir.join(&r.path);
        let sampled = frame.sample(&georaster::read(&path)?, &path)?;
        let as_level = match r.kind.as_str() {
            "level" => true,
            "depth" => false,
            other => {
                return Err(bad(
                    "initial.raster.kind",
                    format!("expected \"depth\" or \"level\", found {other:?}"),
                ))
            }
        };
        // Nodata is NaN, so a coarse cell touching any nodata keeps its other water.
        let fine: Vec<f32> = sampled.iter().map(|&v| v as f32).collect();
        let values = if n == fine.len() {
            fine
        } else {
            grid.to_storage(&fine, f32::NAN)
        };
        for (c, w) in water.iter_mut().enumerate() {
            let value = values[c] as f64;
            if !value.is_nan() && points[c].is_some() {
                *w = Some(if as_level {
                    Water1::Level(value)
                } else {
                    Water1::Depth(value)
                });
            }
        }
    }
    Ok((0..n).map(|c| water[c].map(|w| (w, u[c], v[c]))).collect())
}

#[allow(clippy::too_many_arguments)]
fn apply_water(
    water: &mut [Option<Water1>],
    u: &mut [f64],
    v: &mut [f64],
    points: &[Option<(f64, f64)>],
    inside: &dyn Fn(f64, f64) -> bool,
    level: Option<&Value>,
    depth: Option<&Value>,
    uv_u: Option<&Value>,
    uv_v: Option<&Value>,
    key: &str,
) -> Result<(), InputError> {
    if level.is_some() && depth.is_some() {
        return Err(bad(key, "give water_level or depth, not both"));
    }
    let level = level
        .map(|l| Field::parse(l, &format!("{key}.water_level")))
        .transpose()?;
    let depth = depth
        .map(|d| Field::parse(d, &format!("{key}.depth")))
        .transpose()?;
    let fu = uv_u
        .map(|f| Field::parse(f, &format!("{key}.u")))
        .transpose()?;
    let fv = uv_v
        .map(|f| Field::parse(f, &format!("{key}.v")))
        .transpose()?;
    for (c, point) in points.iter().enumerate() {
        let Some((x, y)) = *point else { continue };
        if !inside(x, y) {
            continue;
        }
        if let Some(l) = &level {
            water[c] = Some(Water1::Level(finite(l.at(x, y), key, "water_level", x, y)?));
        }
        if let Some(d) = &depth {
            water[c] = Some(Water1::Depth(finite(d.at(x, y), key, "depth", x, y)?));
        }
        if let Some(f) = &fu {
            u[c] = finite(f.at(x, y), key, "u", x, y)?;
        }
        if let Some(f) = &fv {
            v[c] = finite(f.at(x, y), key, "v", x, y)?;
        }
    }
    Ok(())
}

/// `value` of `table.field` at (x, y) when finite; the key is spelled out only for the error.
fn finite(value: f64, table: &str, field: &str, x: f64, y: f64) -> Result<f64, InputError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(bad(
            &format!("{table}.{field}"),
            format!("not a finite number at x = {x}, y = {y}"),
        ))
    }
}

pub(crate) fn region_shape(r: &ShapeKeys, key: &str) -> Result<Shape, InputError> {
    let need = |what: &str| bad(key, format!("a {} region needs `{what}`", r.shape));
    let given = [
        ("center", r.center.is_some()),
        ("radius", r.radius.is_some()),
        ("min", r.min.is_some()),
        ("max", r.max.is_some()),
        ("points", r.points.is_some()),
    ];
    let uses: &[&str] = match r.shape {
        "circle" => &["center", "radius"],
        "rectangle" => &["min", "max"],
        "polygon" => &["points"],
        _ => &["center", "radius", "min", "max", "points"],
    };
    if let Some((extra, _)) = given.iter().find(|(k, set)| *set && !uses.contains(k)) {
        return Err(bad(
            &format!("{key}.{extra}"),
            format!("a {} region does not use `{extra}`", r.shape),
        ));
    }
    match r.shape {
        "circle" => {
            let radius = r.radius.ok_or_else(|| need("radius"))?;
            if !(radius > 0.0 && radius.is_finite()) {
                return Err(bad(
                    &format!("{key}.radius"),
                    format!("expected a positive radius, found {radius}"),
                ));
            }
            Ok(Shape::Circle {
                centre: r.center.ok_or_else(|| need("center"))?,
                radius,
            })
        }
        "rectangle" => Ok(Shape::Rectangle {
            min: r.min.ok_or_else(|| need("min"))?,
            max: r.max.ok_or_else(|| need("max"))?,
        }),
        "polygon" => {
            let points = r.points.cloned().ok_or_else(|| need("points"))?;
            if points.len() < 3 {
                return Err(bad(&format!("{key}.points"), "expected at least 3 points"));
            }
            Ok(Shape::Polygon(Polygon::new(points)))
        }
        other => Err(bad(
            &format!("{key}.shape"),
            format!("expected \"circle\", \"rectangle\" or \"polygon\", found {other:?}"),
        )),
    }
}

pub(crate) fn friction(
    spec: &FrictionSpec,
    frame: &Frame,
    dir: &Path,
) -> Result<Vec<f32>, InputError> {
    let n = frame.nx * frame.ny;
    let given = [
        spec.manning.is_some(),
        spec.raster.is_some(),
        spec.landuse.is_some(),
    ];
    if given.iter().filter(|&&g| g).count() > 1 {
        return Err(bad("friction", "give one of manning, raster or landuse"));
    }
    if spec.classes.is_some() != spec.landuse.is_some() {
        return Err(bad(
            "friction.classes",
            "landuse and classes go together: a land-use raster and its class -> n table",
        ));
    }
    if let Some(m) = spec.manning {
        if !(m >= 0.0 && m.is_finite()) {
            return Err(bad(
                "friction.manning",
                format!("expected n >= 0 (s/m^(1/3)), found {m}"),
            ));
        }
        return Ok(vec![m as f32; n]);
    }
    let Some(path) = spec.raster.as_ref().or(spec.landuse.as_ref()) else {
        return Ok(vec![0.0; n]);
    };
    let path = dir.join(path);
    let values = frame.sample(&georaster::read(&path)?, &path)?;
    let table = class_table(spec.classes.as_ref())?;
    let mut out = Vec::with_capacity(n);
    for (c, &value) in values.iter().enumerate() {
        let at = || {
            format!(
                "column {}, row {} from the top",
                c % frame.nx + 1,
                frame.ny - c / frame.nx
            )
        };
        let n = match &table {
            Some(table) => *table
                .get(&(value as i64))
                .filter(|_| value.fract() == 0.0)
                .ok_or_else(|| {
                    InputError::new(format!(
                        "land-use class {value} at {} is not in friction.classes",
                        at()
                    ))
                    .in_file(&path)
                })?,
            None => value,
        };
        if !(n >= 0.0 && n.is_finite()) {
            return Err(InputError::new(format!(
                "expected Manning n >= 0 everywhere, found {n} at {}",
                at()
            ))
            .in_file(&path));
        }
        out.push(n as f32);
    }
    Ok(out)
}

/// The land-use class -> Manning n table, keyed by integer class.
fn class_table(
    classes: Option<&std::collections::BTreeMap<String, f64>>,
) -> Result<Option<std::collections::HashMap<i64, f64>>, InputError> {
    let Some(classes) = classes else {
        return Ok(None);
    };
    let mut table = std::collections::HashMap::new();
    for (class, &n) in classes {
        let key = format!("friction.classes.{class}");
        let id: i64 = class
            .trim()
            .parse()
            .map_err(|_| bad(&key, "expected an integer land-use class as the key"))?;
        if !(n >= 0.0 && n.is_finite()) {
            return Err(bad(&key, format!("expected n >= 0 (s/m^(1/3)), found {n}")));
        }
        table.insert(id, n);
    }
    Ok(Some(table))
}

#[derive(Clone, Copy)]
enum Edge {
    West,
    East,
    South,
    North,
}

impl Edge {
    fn parse(name: &str, key: &str) -> Result<Edge, InputError> {
        match name {
            "west" => Ok(Edge::West),
            "east" => Ok(Edge::East),
            "south" => Ok(Edge::South),
            "north" => Ok(Edge::North),
            other => Err(bad(
                key,
                format!("expected west, east, south or north, found {other:?}"),
            )),
        }
    }
    const ALL: [Edge; 4] = [Edge::West, Edge::East, Edge::South, Edge::North];
}

fn edge_kind(name: &str, key: &str) -> Result<BcKind, InputError> {
    match name {
        "wall" => Ok(BcKind::Wall),
        "open" => Ok(BcKind::Open),
        other => Err(bad(
            key,
            format!("expected \"wall\" or \"open\" (inflow, stage, normal_depth and rating go in [[boundary.segment]]), found {other:?}"),
        )),
    }
}

/// Edge cell arrays (west, east, south, north) of boundary-condition indices.
fn boundaries(
    spec: &BoundarySpec,
    frame: &Frame,
    datum: f64,
    dir: &Path,
    series_list: &mut SeriesList,
) -> Result<(Vec<u32>, Vec<BcDef>), InputError> {
    let mut defs = vec![BcDef::plain(BcKind::Wall), BcDef::plain(BcKind::Open)];
    let default = edge_kind(
        spec.default.as_deref().unwrap_or("wall"),
        "boundary.default",
    )?;
    let mut edges: Vec<Vec<u32>> = Vec::new();
    for (edge, name, given) in [
        (Edge::West, "west", &spec.west),
        (Edge::East, "east", &spec.east),
        (Edge::South, "south", &spec.south),
        (Edge::North, "north", &spec.north),
    ] {
        let kind = match given {
            Some(k) => edge_kind(k, &format!("boundary.{name}"))?,
            None => default,
        };
        edges.push(vec![kind as u32; edge_length(edge, frame)]);
    }
    for (k, seg) in spec.segments.iter().enumerate() {
        let key = format!("boundary.segment[{k}]");
        let edge = Edge::parse(seg.edge_name(), &format!("{key}.edge"))?;
        let cells = segment_cells(seg, edge, frame, &key)?;
        let def = segment_def(seg, &key, cells.len(), frame.dx, datum, dir, series_list)?;
        defs.push(def);
        let id = (defs.len() - 1) as u32;
        let slot = Edge::ALL
            .iter()
            .position(|e| std::mem::discriminant(e) == std::mem::discriminant(&edge))
            .unwrap();
        refuse_over_inflow(&edges[slot], &cells, &defs, &key)?;
        for c in cells {
            edges[slot][c] = id;
        }
    }
    Ok((edges.concat(), defs))
}

/// A segment over cells of an earlier inflow segment would take them from it, and the
/// inflow's hydrograph would then enter over its other cells only.
fn refuse_over_inflow(
    edge: &[u32],
    cells: &[usize],
    defs: &[BcDef],
    key: &str,
) -> Result<(), InputError> {
    let mut taken = cells
        .iter()
        .map(|&c| edge[c])
        .filter(|&d| defs[d as usize].kind == BcKind::Inflow as u32);
    let Some(inflow) = taken.next() else {
        return Ok(());
    };
    // Definitions 0 and 1 are the plain wall and open edges; segment k is k + 2.
    Err(bad(
        key,
        format!(
            "it covers {} cells of boundary.segment[{}], an inflow, whose discharge would then enter over its other cells only: make the segments meet without overlapping",
            1 + taken.filter(|&d| d == inflow).count(),
            inflow - 2
        ),
    ))
}

fn edge_length(edge: Edge, frame: &Frame) -> usize {
    match edge {
        Edge::West | Edge::East => frame.ny,
        Edge::South | Edge::North => frame.nx,
    }
}

/// Edge cells whose centres lie within [from, to] along the edge.
fn segment_cells(
    seg: &SegmentSpec,
    edge: Edge,
    frame: &Frame,
    key: &str,
) -> Result<Vec<usize>, InputError> {
    let n = edge_length(edge, frame);
    let start = match edge {
        Edge::West | Edge::East => frame.origin.1,
        Edge::South | Edge::North => frame.origin.0,
    };
    let from = seg.from.unwrap_or(f64::NEG_INFINITY);
    let to = seg.to.unwrap_or(f64::INFINITY);
    if from >= to {
        return Err(bad(
            key,
            format!("expected from < to, found from = {from}, to = {to}"),
        ));
    }
    let cells: Vec<usize> = (0..n)
        .filter(|&c| {
            let s = start + (c as f64 + 0.5) * frame.dx;
            s >= from && s <= to
        })
        .collect();
    if cells.is_empty() {
        return Err(bad(
            key,
            format!(
                "the segment [{from}, {to}] holds no cell centre of the {} edge, which runs from {start} to {}",
                seg.edge_name(),
                start + n as f64 * frame.dx
            ),
        ));
    }
    Ok(cells)
}

fn segment_def(
    seg: &SegmentSpec,
    key: &str,
    cells: usize,
    dx: f64,
    datum: f64,
    dir: &Path,
    series_list: &mut SeriesList,
) -> Result<BcDef, InputError> {
    let mut add = |spec: &SeriesSpec, k: &str, q: Quantity| -> Result<u32, InputError> {
        let s = series::load(spec, k, dir, q, series_list.reference())?;
        series_list.push(s);
        Ok((series_list.len() - 1) as u32)
    };
    // The keys each type reads; the others it refuses.
    let reads: &[&str] = match seg.kind.as_str() {
        "inflow" => &["discharge"],
        "stage" => &["level"],
        "normal_depth" => &["slope"],
        "rating" => &["rating"],
        _ => &[],
    };
    let given = [
        ("discharge", seg.discharge.is_some()),
        ("level", seg.level.is_some()),
        ("slope", seg.slope.is_some()),
        ("rating", seg.rating.is_some()),
    ];
    let unused = given
        .iter()
        .find(|(k, set)| *set && !reads.contains(k))
        .map(|(k, _)| k);
    if let Some(extra) = unused {
        return Err(bad(
            &format!("{key}.{extra}"),
            format!("a {} segment does not use `{extra}`", seg.kind),
        ));
    }
    match seg.kind.as_str() {
        "inflow" => {
            let q = seg
                .discharge
                .as_ref()
                .ok_or_else(|| bad(key, "an inflow segment needs `discharge` (m³/s)"))?;
            let id = add(q, &format!("{key}.discharge"), Quantity::Discharge)?;
            if series_list[id as usize].values.iter().any(|&v| v < 0.0) {
                return Err(bad(
                    &format!("{key}.discharge"),
                    "expected discharge >= 0 m³/s",
                ));
            }
            // Q spreads evenly over the segment's cell faces.
            Ok(BcDef {
                kind: BcKind::Inflow as u32,
                series: id,
                scale: (1.0 / (cells as f64 * dx)) as f32,
                offset: 0.0,
            })
        }
        "stage" => {
            let level = seg
                .level
                .as_ref()
                .ok_or_else(|| bad(key, "a stage segment needs `level` (m)"))?;
            let id = add(level, &format!("{key}.level"), Quantity::Level)?;
            Ok(BcDef {
                kind: BcKind::Stage as u32,
                series: id,
                scale: 1.0,
                offset: (-datum) as f32,
            })
        }
        "normal_depth" => {
            let slope = seg.slope.ok_or_else(|| {
                bad(
                    key,
                    "a normal_depth segment needs `slope` (the friction slope, m/m, > 0)",
                )
            })?;
            if !(slope > 0.0 && slope.is_finite()) {
                return Err(bad(
                    &format!("{key}.slope"),
                    format!("expected a friction slope > 0 (m/m), found {slope}"),
                ));
            }
            Ok(BcDef {
                kind: BcKind::NormalDepth as u32,
                series: NONE,
                scale: slope as f32,
                offset: 0.0,
            })
        }
        "rating" => {
            let rating = seg.rating.as_ref().ok_or_else(|| {
                bad(
                    key,
                    "a rating segment needs `rating` (discharge in m³/s against water level in m)",
                )
            })?;
            series_list.push(outflow::load_rating(rating, &format!("{key}.rating"), dir, datum)?);
            // Each cell's discharge per metre of edge is Q(its level) / the segment's width.
            Ok(BcDef {
                kind: BcKind::Rating as u32,
                series: (series_list.len() - 1) as u32,
                scale: (1.0 / (cells as f64 * dx)) as f32,
                offset: 0.0,
            })
        }
        "open" => Ok(BcDef::plain(BcKind::Open)),
        "wall" => Ok(BcDef::plain(BcKind::Wall)),
        other => Err(bad(
            &format!("{key}.type"),
            format!("expected \"inflow\", \"stage\", \"normal_depth\", \"rating\", \"open\" or \"wall\", found {other:?}"),
        )),
    }
}

/// The vertices of a line or polygon: as written, or read from a vector file, which must
/// be in the terrain's CRS when both state one.
pub(crate) fn coords(
    c: &Coords,
    want: Want,
    key: &str,
    dir: &Path,
    frame: &Frame,
) -> Result<Vec<[f64; 2]>, InputError> {
    let (file, feature) = match c {
        Coords::Points(points) => return Ok(points.clone()),
        Coords::Vector { vector, feature } => (dir.join(vector), feature.as_deref()),
    };
    let shape = vector::read(&file, feature, want).map_err(|e| e.at_key(key))?;
    if let (Some(terrain), Some(crs)) = (&frame.crs, &shape.crs) {
        if !georaster::same_crs(terrain, crs) {
            return Err(InputError::new(format!(
                "its CRS is {}, the terrain's is {}: reproject it (ogr2ogr -t_srs)",
                georaster::crs_name(crs),
                georaster::crs_name(terrain)
            ))
            .in_file(&file)
            .at_key(key));
        }
    }
    if let Some(p) = shape
        .points
        .iter()
        .find(|p| !(p[0].is_finite() && p[1].is_finite()))
    {
        return Err(bad(key, format!("a vertex is not finite: {p:?}")));
    }
    Ok(shape.points)
}

/// Finest cells of one source and the series that feeds it.
struct SourceCells {
    series: u32,
    cells: Vec<(usize, usize)>,
    /// A stage or outfall line: the series is the water level the cells hold.
    level: bool,
    /// An open, normal-depth or rating line: for each cell, the side of its neighbour inside the
    /// domain (`OPEN_*`); empty for other lines and sources.
    inner: Vec<u8>,
    /// A normal-depth line's friction slope; 0 otherwise.
    slope: f64,
    /// A rating line's 1 / length (1/m), the series its rating curve; 0 otherwise.
    rating_scale: f64,
    /// The scenario key it came from, for messages.
    key: String,
}

/// Where each `[[source]]` puts its water: the cell under a point, the cells a line
/// crosses, or the cells whose centres lie in a polygon.
fn sources(
    specs: &[SourceSpec],
    frame: &Frame,
    elevation: &[f64],
    dir: &Path,
    series_list: &mut SeriesList,
) -> Result<Vec<SourceCells>, InputError> {
    let mut out = Vec::new();
    for (k, s) in specs.iter().enumerate() {
        let key = format!("source[{k}]");
        let cells = match (&s.point, &s.line, &s.polygon) {
            (Some(p), None, None) => vec![cell_at(frame, *p, &format!("{key}.point"))?],
            (None, Some(line), None) => {
                let key = format!("{key}.line");
                line_cells(frame, &coords(line, Want::Line, &key, dir, frame)?, &key)?
            }
            (None, None, Some(polygon)) => {
                let key = format!("{key}.polygon");
                polygon_cells(
                    frame,
                    &coords(polygon, Want::Polygon, &key, dir, frame)?,
                    &key,
                )?
            }
            _ => return Err(bad(&key, "give one of point, line or polygon")),
        };
        let what = s
            .name
            .as_ref()
            .map_or("the source".into(), |n| format!("source {n:?}"));
        let advice = "their share of the discharge would be lost; move it onto the domain";
        nodata::cells(&key, &what, &cells, frame, elevation, advice)?;
        let series = series::load(
            &s.discharge,
            &format!("{key}.discharge"),
            dir,
            Quantity::Discharge,
            series_list.reference(),
        )?;
        if series.values.iter().any(|&v| v < 0.0) {
            return Err(bad(
                &format!("{key}.discharge"),
                "expected discharge >= 0 m³/s",
            ));
        }
        series_list.push(series);
        out.push(SourceCells {
            series: (series_list.len() - 1) as u32,
            cells,
            level: false,
            inner: Vec::new(),
            slope: 0.0,
            rating_scale: 0.0,
            key,
        });
    }
    Ok(out)
}

/// Level below any terrain: an outfall line holds its cells dry, so water that reaches it
/// leaves the domain.
const OUTFALL_LEVEL: f64 = -1.0e6;

/// Stage and outfall lines inside the domain: the cells they cross hold the line's water
/// level (relative to the datum), taking in or giving up whatever water that needs.
fn level_lines(
    specs: &[BoundaryLineSpec],
    frame: &Frame,
    elevation: &[f64],
    datum: f64,
    dir: &Path,
    series_list: &mut SeriesList,
) -> Result<Vec<SourceCells>, InputError> {
    let mut out = Vec::new();
    for (k, s) in specs.iter().enumerate() {
        let key = format!("boundary.line[{k}]");
        let mut series = match (s.kind.as_str(), &s.level) {
            ("stage", Some(level)) => series::load(
                level,
                &format!("{key}.level"),
                dir,
                Quantity::Level,
                series_list.reference(),
            )?,
            ("stage", None) => return Err(bad(&key, "a stage line needs `level`")),
            ("outfall", None) => Series::constant(&key, OUTFALL_LEVEL),
            // Open and normal-depth lines hold no level: their series is never read.
            ("open" | "normal_depth", None) => Series::constant(&key, 0.0),
            // A rating line's series is its curve, levels already relative to the datum.
            ("rating", None) => line_rating(s, &key, dir, datum)?,
            (kind @ ("outfall" | "open" | "normal_depth" | "rating"), Some(_)) => {
                return Err(bad(
                    &format!("{key}.level"),
                    format!("an {kind} line takes no level"),
                ));
            }
            (other, _) => {
                return Err(bad(
                    &format!("{key}.type"),
                    format!("expected \"stage\", \"outfall\", \"open\", \"normal_depth\" or \"rating\", found {other:?} (inflow lines are [[source]] lines, walls are [[levee]] lines)"),
                ));
            }
        };
        if s.kind == "rating" {
            line_rating_only(s, &key)?;
        } else {
            refuse_rating(s, &key)?;
            series.values.iter_mut().for_each(|v| *v -= datum);
        }
        let line = coords(&s.line, Want::Line, &format!("{key}.line"), dir, frame)?;
        let cells = line_cells(frame, &line, &format!("{key}.line"))?;
        let what = match &s.name {
            Some(n) => format!("{} line {n:?}", s.kind),
            None => format!("the {} line", s.kind),
        };
        let advice = "draw the line on the cells just inside the domain";
        nodata::cells(
            &format!("{key}.line"),
            &what,
            &cells,
            frame,
            elevation,
            advice,
        )?;
        let slope = line_slope(s, &key)?;
        let cells_len = cells.len();
        let inner = match s.kind.as_str() {
            "open" | "normal_depth" | "rating" => {
                open_line_inner(frame, elevation, &cells, &format!("{key}.line"))?
            }
            _ => Vec::new(),
        };
        series_list.push(series);
        out.push(SourceCells {
            series: (series_list.len() - 1) as u32,
            cells,
            level: true,
            inner,
            slope,
            rating_scale: rating_scale(s, cells_len, frame.dx),
            key,
        });
    }
    Ok(out)
}

/// A rating line's curve: discharge of the whole line (m³/s) at each water level.
fn line_rating(
    s: &BoundaryLineSpec,
    key: &str,
    dir: &Path,
    datum: f64,
) -> Result<Series, InputError> {
    let rating = s.rating.as_ref().ok_or_else(|| {
        bad(
            key,
            "a rating line needs `rating` (discharge in m³/s against water level in m)",
        )
    })?;
    super::outflow::load_rating(rating, &format!("{key}.rating"), dir, datum)
}

/// A rating line takes its curve and nothing else of the other lines' keys (the slope is
/// refused by `line_slope`).
fn line_rating_only(s: &BoundaryLineSpec, key: &str) -> Result<(), InputError> {
    match s.level {
        Some(_) => Err(bad(&format!("{key}.level"), "a rating line takes no level")),
        None => Ok(()),
    }
}

fn refuse_rating(s: &BoundaryLineSpec, key: &str) -> Result<(), InputError> {
    match s.rating {
        Some(_) => Err(bad(
            &format!("{key}.rating"),
            format!("a {} line takes no rating", s.kind),
        )),
        None => Ok(()),
    }
}

/// 1 / a rating line's length, its cells' widths summed; 0 for any other line.
fn rating_scale(s: &BoundaryLineSpec, cells: usize, dx: f64) -> f64 {
    if s.kind == "rating" {
        1.0 / (cells as f64 * dx)
    } else {
        0.0
    }
}

/// A normal-depth line passes h^(5/3) √S / n: Manning's n must be > 0 on every cell of it,
/// as on a normal-depth edge (with n = 0 the line would pass critical flow, silently).
fn refuse_frictionless_lines(
    lines: &[SourceCells],
    frame: &Frame,
    manning: &[f32],
) -> Result<(), InputError> {
    for line in lines.iter().filter(|l| l.slope > 0.0) {
        let bare = line
            .cells
            .iter()
            .find(|&&(i, j)| manning[i + frame.nx * j] <= 0.0);
        if let Some(&(i, j)) = bare {
            let (x, y) = frame.centre(i, j);
            return Err(InputError::new(format!(
                "a normal-depth line needs friction: Manning's n is 0 in its cell at ({x}, {y}); expected n > 0 on every cell of the line (see [friction])"
            ))
            .at_key(line.key.clone()));
        }
    }
    Ok(())
}

/// A normal-depth line's friction slope (> 0), and 0 for any other line, which takes none.
fn line_slope(s: &BoundaryLineSpec, key: &str) -> Result<f64, InputError> {
    match (s.kind.as_str(), s.slope) {
        ("normal_depth", Some(slope)) if slope.is_finite() && slope > 0.0 => Ok(slope),
        ("normal_depth", Some(slope)) => Err(bad(
            &format!("{key}.slope"),
            format!("expected a friction slope > 0 (m/m), found {slope}"),
        )),
        ("normal_depth", None) => Err(bad(key, "a normal_depth line needs `slope`")),
        (kind, Some(_)) => Err(bad(
            &format!("{key}.slope"),
            format!("a {kind} line takes no slope"),
        )),
        _ => Ok(0.0),
    }
}

/// The neighbour an open line's cell takes its state from: `OPEN_WEST` .. `OPEN_NORTH`, in
/// that order of preference.
const OPEN_WEST: u8 = 1;
const OPEN_NORTH: u8 = 4;

/// For each cell of an open line, the side of the neighbour whose state it copies (zero
/// gradient): a valid cell off the line whose opposite neighbour lies outside the domain
/// (nodata or past the rectangle), so that the water the line takes leaves across the
/// domain's edge. A cell with no such neighbour is refused: an open line runs along the
/// edge of the domain, on the cells just inside it.
fn open_line_inner(
    frame: &Frame,
    elevation: &[f64],
    cells: &[(usize, usize)],
    key: &str,
) -> Result<Vec<u8>, InputError> {
    let (nx, ny) = (frame.nx as i64, frame.ny as i64);
    let on_line: std::collections::HashSet<(usize, usize)> = cells.iter().copied().collect();
    let valid = |i: i64, j: i64| {
        i >= 0 && j >= 0 && i < nx && j < ny && !elevation[(j * nx + i) as usize].is_nan()
    };
    let sides = [(-1i64, 0i64), (1, 0), (0, -1), (0, 1)];
    cells
        .iter()
        .map(|&(i, j)| {
            let (i, j) = (i as i64, j as i64);
            (OPEN_WEST..=OPEN_NORTH)
                .zip(sides)
                .find(|&(_, (di, dj))| {
                    let off_line = !on_line.contains(&((i + di) as usize, (j + dj) as usize));
                    valid(i + di, j + dj) && off_line && !valid(i - di, j - dj)
                })
                .map(|(side, _)| side)
                .ok_or_else(|| {
                    let (x, y) = frame.centre(i as usize, j as usize);
                    bad(
                        key,
                        format!("an open line runs along the domain's edge, on the cells just inside it; the cell at ({x:.1}, {y:.1}) has no neighbour outside the domain across from one inside"),
                    )
                })
        })
        .collect()
}

/// Cross-sections sampled every quarter cell: each sample carries its cell and its share
/// of the line as its left-hand normal times length (so a line drawn from the left bank to
/// the right bank, looking downstream, counts the downstream flow as positive).
fn sections(specs: &[SectionSpec], frame: &Frame, dir: &Path) -> Result<Vec<Section>, InputError> {
    let mut out = Vec::new();
    for (k, s) in specs.iter().enumerate() {
        let key = format!("cross_section[{k}].line");
        let line = coords(&s.line, Want::Line, &key, dir, frame)?;
        if line.len() < 2 {
            return Err(bad(&key, "expected at least two points"));
        }
        let mut samples = Vec::new();
        for w in line.windows(2) {
            let (dx, dy) = (w[1][0] - w[0][0], w[1][1] - w[0][1]);
            let length = (dx * dx + dy * dy).sqrt();
            if length.is_nan() || length <= 0.0 {
                return Err(bad(&key, "expected distinct, finite points"));
            }
            let n = (4.0 * length / frame.dx).ceil() as usize;
            let ds = length / n as f64;
            let normal = [-dy / length * ds, dx / length * ds];
            for m in 0..n {
                let f = (m as f64 + 0.5) / n as f64;
                let p = [w[0][0] + f * dx, w[0][1] + f * dy];
                samples.push((cell_at(frame, p, &key)?, normal));
            }
        }
        out.push(Section {
            name: s.name.clone(),
            samples,
        });
    }
    Ok(out)
}

/// The finest cell holding map point p.
pub(crate) fn cell_at(frame: &Frame, p: [f64; 2], key: &str) -> Result<(usize, usize), InputError> {
    let i = ((p[0] - frame.origin.0) / frame.dx).floor();
    let j = ((p[1] - frame.origin.1) / frame.dx).floor();
    if (0.0..frame.nx as f64).contains(&i) && (0.0..frame.ny as f64).contains(&j) {
        Ok((i as usize, j as usize))
    } else {
        Err(bad(
            key,
            format!("({}, {}) lies outside the domain", p[0], p[1]),
        ))
    }
}

/// Cells a polyline crosses, each once, walked in steps of a quarter cell.
pub(crate) fn line_cells(
    frame: &Frame,
    line: &[[f64; 2]],
    key: &str,
) -> Result<Vec<(usize, usize)>, InputError> {
    if line.len() < 2 {
        return Err(bad(key, "expected at least two points"));
    }
    let mut cells = vec![cell_at(frame, line[0], key)?];
    // Lines from a GIS cross hundreds of thousands of cells: look each up once.
    let mut seen: std::collections::HashSet<(usize, usize)> = cells.iter().copied().collect();
    for w in line.windows(2) {
        let length = ((w[1][0] - w[0][0]).powi(2) + (w[1][1] - w[0][1]).powi(2)).sqrt();
        let steps = (4.0 * length / frame.dx).ceil().max(1.0) as usize;
        for s in 1..=steps {
            let f = s as f64 / steps as f64;
            let p = [
                w[0][0] + f * (w[1][0] - w[0][0]),
                w[0][1] + f * (w[1][1] - w[0][1]),
            ];
            let c = cell_at(frame, p, key)?;
            if seen.insert(c) {
                cells.push(c);
            }
        }
    }
    Ok(cells)
}

/// Raises the finest cells under each levee line to its crest, or takes them out of the
/// domain (NaN, as nodata) where the levee is a wall. The cells of a line touch at least
/// corner to corner, and water crosses faces only, so a wall leaks nowhere.
fn levees(
    specs: &[LeveeSpec],
    frame: &Frame,
    elevation: &mut [f64],
    dir: &Path,
) -> Result<(), InputError> {
    for (k, levee) in specs.iter().enumerate() {
        let key = format!("levee[{k}]");
        if let Some(crest) = levee.crest.filter(|c| !c.is_finite()) {
            return Err(bad(
                &format!("{key}.crest"),
                format!("expected a finite elevation, found {crest}"),
            ));
        }
        let line = coords(&levee.line, Want::Line, &format!("{key}.line"), dir, frame)?;
        for (i, j) in line_cells(frame, &line, &format!("{key}.line"))? {
            let z = &mut elevation[i + frame.nx * j];
            *z = match levee.crest {
                Some(crest) if !z.is_nan() => z.max(crest),
                Some(_) => *z, // nodata stays outside
                None => f64::NAN,
            };
        }
    }
    Ok(())
}

fn polygon_cells(
    frame: &Frame,
    points: &[[f64; 2]],
    key: &str,
) -> Result<Vec<(usize, usize)>, InputError> {
    let shape = polygon_shape(points, key)?;
    let cells: Vec<(usize, usize)> = frame
        .cells()
        .filter(|&(_, x, y)| shape.contains(x, y))
        .map(|(c, _, _)| (c % frame.nx, c / frame.nx))
        .collect();
    if cells.is_empty() {
        return Err(bad(key, "the polygon holds no cell centre of the domain"));
    }
    Ok(cells)
}

fn polygon_shape(points: &[[f64; 2]], key: &str) -> Result<Shape, InputError> {
    if points.len() < 3 || points.iter().flatten().any(|v| !v.is_finite()) {
        return Err(bad(key, "expected at least three finite vertices"));
    }
    Ok(Shape::Polygon(Polygon::new(points.to_vec())))
}

/// Source cells in storage layout: each finest cell carries an equal share of its
/// source, and a coarse cell the sum of the shares it covers. Their blocks are launched
/// every step.
fn stored_sources(grid: &mut BlockGrid, sources: &[SourceCells]) -> Vec<SourceCell> {
    let mut out: Vec<SourceCell> = Vec::new();
    // Each (cell, series) once, a level line's as (cell, None): a cell holds one level, the
    // first line listed over it. Looked up by key: a polygon from a GIS covers 10^5 cells.
    let mut at = std::collections::HashMap::<(usize, Option<u32>), usize>::new();
    for s in sources {
        let share = 1.0 / s.cells.len() as f64;
        for (n, &(i, j)) in s.cells.iter().enumerate() {
            let cell = grid.storage_index(i, j);
            let b = grid.block_of_cell(i, j);
            grid.blocks[b].flags |= BLOCK_ALWAYS_ACTIVE;
            let key = (cell, (!s.level).then_some(s.series));
            match at.get(&key) {
                Some(&k) if !out[k].level => out[k].fraction += share,
                Some(_) => {}
                None => {
                    at.insert(key, out.len());
                    out.push(SourceCell {
                        cell,
                        series: s.series,
                        fraction: if s.level { 0.0 } else { share },
                        level: s.level,
                        inner: s.inner.get(n).copied().unwrap_or(0),
                        slope: s.slope as f32,
                        rating_scale: s.rating_scale as f32,
                    });
                }
            }
        }
    }
    out
}

/// Blocks that hold an inflow or stage edge cell are launched every step, dry or not.
fn mark_forced_blocks(grid: &mut BlockGrid, bc_edge: &[u32], defs: &[BcDef]) {
    let (nx, ny) = (grid.nx, grid.ny);
    let forced = |id: u32| {
        let k = defs[id as usize].kind;
        k == BcKind::Inflow as u32 || k == BcKind::Stage as u32
    };
    let mut cells = Vec::new();
    for j in 0..ny {
        if forced(bc_edge[j]) {
            cells.push((0, j));
        }
        if forced(bc_edge[ny + j]) {
            cells.push((nx - 1, j));
        }
    }
    for i in 0..nx {
        if forced(bc_edge[2 * ny + i]) {
            cells.push((i, 0));
        }
        if forced(bc_edge[2 * ny + nx + i]) {
            cells.push((i, ny - 1));
        }
    }
    for (i, j) in cells {
        let b = grid.block_of_cell(i, j);
        grid.blocks[b].flags |= BLOCK_ALWAYS_ACTIVE;
    }
}

fn rain_rate(
    rate: &SeriesSpec,
    key: &str,
    dir: &Path,
    series_list: &mut SeriesList,
) -> Result<u32, InputError> {
    let s = series::load(rate, key, dir, Quantity::RainRate, series_list.reference())?;
    if s.values.iter().any(|&v| v < 0.0) {
        return Err(bad(key, "expected a rain rate >= 0 mm/h"));
    }
    series_list.push(s);
    Ok((series_list.len() - 1) as u32)
}

/// The grid warped rain rasters land on: the domain in cells of at least the model's,
/// at most 256 a side.
fn rain_grid(frame: &Frame, crs: &str) -> georaster::TargetGrid {
    let side = frame.nx.max(frame.ny) as f64 * frame.dx;
    let cellsize = (side / 256.0).max(frame.dx);
    let cells = |n: usize| ((n as f64 * frame.dx / cellsize).ceil() as usize).max(1);
    georaster::TargetGrid {
        crs: crs.to_string(),
        xll: frame.origin.0,
        yll: frame.origin.1,
        cellsize,
        ncols: cells(frame.nx),
        nrows: cells(frame.ny),
    }
}

/// Rain cells a run may have (radar grids are kilometres; a model-resolution rain grid
/// would be a series per cell).
const MAX_RAIN_CELLS: usize = 65536;

/// Rain from a sequence of rasters: a series per rain cell that holds a cell centre (its
/// rates at the rasters' times, interpolated linearly), and each stored cell's series.
fn gridded_rain(
    spec: &RainRasters,
    centres: &[Option<(f64, f64)>],
    frame: &Frame,
    dir: &Path,
    series_list: &mut SeriesList,
) -> Result<Vec<u32>, InputError> {
    let key = "rain.rasters";
    if spec.paths.is_empty() || spec.paths.len() != spec.times.len() {
        return Err(bad(
            key,
            format!(
                "expected one time per raster and at least one raster, found {} paths and {} times",
                spec.paths.len(),
                spec.times.len()
            ),
        ));
    }
    let time_scale = series::time_factor(spec.time_unit.as_deref(), &format!("{key}.time_unit"))?;
    let unit = series::unit_factor(
        Quantity::RainRate,
        spec.unit.as_deref(),
        &format!("{key}.unit"),
    )?;
    let times: Vec<f64> = spec.times.iter().map(|t| t * time_scale).collect();
    series::check(&times, &times).map_err(|m| bad(&format!("{key}.times"), m))?;
    let paths: Vec<PathBuf> = spec.paths.iter().map(|p| dir.join(p)).collect();
    // Rasters in another CRS (radar in degrees) are warped onto a grid over the domain in
    // the terrain's CRS, of at most 256 × 256 rain cells.
    let target = frame.crs.as_deref().map(|crs| rain_grid(frame, crs));
    let frames = paths
        .iter()
        .map(|p| match &target {
            Some(target) => georaster::read_onto(p, target),
            None => georaster::read(p),
        })
        .collect::<Result<Vec<GeoRaster>, InputError>>()?;
    let first = &frames[0].raster;
    for (g, path) in frames.iter().zip(&paths) {
        frame.check_covered(g, path)?;
        let r = &g.raster;
        if (r.ncols, r.nrows, r.xll, r.yll, r.cellsize)
            != (
                first.ncols,
                first.nrows,
                first.xll,
                first.yll,
                first.cellsize,
            )
        {
            return Err(InputError::new(format!(
                "its grid differs from {}'s: the rain rasters must share one grid",
                paths[0].display()
            ))
            .in_file(path));
        }
    }
    let mut series_of = std::collections::HashMap::<usize, u32>::new();
    let mut cells = vec![NONE; centres.len()];
    for (k, centre) in centres.iter().enumerate() {
        let Some((x, y)) = *centre else { continue };
        let rain_cell = raster_cell(first, x, y);
        if let Some(&s) = series_of.get(&rain_cell) {
            cells[k] = s;
            continue;
        }
        if series_of.len() == MAX_RAIN_CELLS {
            return Err(InputError::new(format!(
                "more than {MAX_RAIN_CELLS} of its cells lie over the domain: each is a series the GPU evaluates every step, so coarsen it (gdalwarp -tr)"
            ))
            .in_file(&paths[0]));
        }
        let mut values = Vec::with_capacity(frames.len());
        for (g, path) in frames.iter().zip(&paths) {
            let v = g.raster.data[rain_cell];
            if g.raster.is_nodata(v) || !(v >= 0.0 && v.is_finite()) {
                let (col, row) = (rain_cell % first.ncols, rain_cell / first.ncols);
                return Err(InputError::new(format!(
                    "the rain rate at column {}, row {} from the top is {v}, over the domain: expected a rate >= 0",
                    col + 1,
                    first.nrows - row
                ))
                .in_file(path));
            }
            values.push(v * unit);
        }
        series_list.push(Series {
            name: format!("{key}[{rain_cell}]"),
            times: times.clone(),
            values,
        });
        let s = (series_list.len() - 1) as u32;
        series_of.insert(rain_cell, s);
        cells[k] = s;
    }
    Ok(cells)
}

/// The rain series of every stored cell: the zone holding the cell's centre (the last one
/// listed, where zones overlap), else the uniform rate.
fn rain(
    spec: &RainSpec,
    grid: &BlockGrid,
    frame: &Frame,
    points: &[Option<(f64, f64)>],
    bed: &[f32],
    dir: &Path,
    series_list: &mut SeriesList,
) -> Result<Rain, InputError> {
    let valid = |k: usize| points[k].is_some() && bed[k] < WALL_BED * 0.5;
    let mut cells: Vec<u32> = match (&spec.rate, &spec.rasters) {
        (Some(_), Some(_)) => {
            return Err(bad("rain", "give `rate` or `rasters`, not both"));
        }
        (None, None) if spec.zones.is_empty() => {
            return Err(bad(
                "rain",
                "give a uniform `rate`, `rasters`, or `[[rain.zone]]` tables",
            ));
        }
        (Some(rate), None) => {
            let uniform = rain_rate(rate, "rain.rate", dir, series_list)?;
            (0..points.len())
                .map(|k| if valid(k) { uniform } else { NONE })
                .collect()
        }
        (None, Some(rasters)) => {
            let centres: Vec<Option<(f64, f64)>> = (0..points.len())
                .map(|k| points[k].filter(|_| valid(k)))
                .collect();
            gridded_rain(rasters, &centres, frame, dir, series_list)?
        }
        (None, None) => vec![NONE; points.len()],
    };
    for (z, zone) in spec.zones.iter().enumerate() {
        let key = format!("rain.zone[{z}]");
        let series = rain_rate(&zone.rate, &format!("{key}.rate"), dir, series_list)?;
        let polygon = coords(
            &zone.polygon,
            Want::Polygon,
            &format!("{key}.polygon"),
            dir,
            frame,
        )?;
        let shape = polygon_shape(&polygon, &format!("{key}.polygon"))?;
        let mut hit = false;
        for (k, p) in points.iter().enumerate() {
            if valid(k) && p.is_some_and(|(x, y)| shape.contains(x, y)) {
                cells[k] = series;
                hit = true;
            }
        }
        if !hit {
            return Err(bad(
                &format!("{key}.polygon"),
                "the zone holds no cell centre of the domain",
            ));
        }
    }
    // Each series' share of the domain, counted in finest cells as the kernel applies it.
    let mut area = std::collections::BTreeMap::<u32, f64>::new();
    let mut total = 0.0;
    for (k, &s) in cells.iter().enumerate().filter(|&(k, _)| valid(k)) {
        let w = grid.cell_footprint(k).2 as f64;
        total += w * w;
        if s != NONE {
            *area.entry(s).or_default() += w * w;
        }
    }
    let weights = area.into_iter().map(|(s, a)| (s, a / total)).collect();
    Ok(Rain { cells, weights })
}

fn gauges(specs: &[GaugeSpec], frame: &Frame) -> Result<Vec<Gauge>, InputError> {
    specs
        .iter()
        .enumerate()
        .map(|(k, g)| {
            let i = ((g.x - frame.origin.0) / frame.dx).floor();
            let j = ((g.y - frame.origin.1) / frame.dx).floor();
            let inside = (0.0..frame.nx as f64).contains(&i) && (0.0..frame.ny as f64).contains(&j);
            if !inside {
                return Err(bad(
                    &format!("gauge[{k}]"),
                    format!(
                        "gauge {:?} at ({}, {}) lies outside the domain",
                        g.name, g.x, g.y
                    ),
                ));
            }
            Ok(Gauge {
                name: g.name.clone(),
                x: g.x,
                y: g.y,
                cell: (i as usize, j as usize),
            })
        })
        .collect()
}

fn numerics(spec: &Spec) -> Result<Numerics, InputError> {
    let d = Numerics::default();
    let n = &spec.numerics;
    let cfl = limits::check_cfl(spec.time.cfl.unwrap_or(d.cfl))?;
    let dt_max = spec.time.dt_max.unwrap_or(d.dt_max);
    if !(dt_max > 0.0 && dt_max.is_finite()) {
        return Err(bad(
            "time.dt_max",
            format!("expected a positive time step (s), found {dt_max}"),
        ));
    }
    let t = &spec.time;
    limits::check_steps(t.start, t.end, dt_max, t.dt_max.is_some())?;
    let gravity = n.gravity.unwrap_or(d.gravity);
    if !(gravity > 0.0 && gravity.is_finite()) {
        return Err(bad(
            "numerics.gravity",
            format!("expected g > 0 (m/s²), found {gravity}"),
        ));
    }
    let dry_depth = n.dry_depth.unwrap_or(d.dry_depth);
    if !(dry_depth > 0.0 && dry_depth < 1.0) {
        return Err(bad(
            "numerics.dry_depth",
            format!("expected 0 < dry_depth < 1 m, found {dry_depth}"),
        ));
    }
    let arrival_depth = spec.output.arrival_depth.unwrap_or(d.arrival_depth);
    if !(arrival_depth > 0.0 && arrival_depth.is_finite()) {
        return Err(bad(
            "output.arrival_depth",
            format!("expected a depth > 0 m, found {arrival_depth}"),
        ));
    }
    let max_mass_error = n.max_mass_error.unwrap_or(d.max_mass_error);
    if !(max_mass_error > 0.0 && max_mass_error < 1.0) {
        return Err(bad(
            "numerics.max_mass_error",
            format!("expected a relative error between 0 and 1, found {max_mass_error}"),
        ));
    }
    let limiter = match n.limiter.as_deref().unwrap_or("van-albada") {
        "minmod" => Limiter::Minmod,
        "van-albada" => Limiter::VanAlbada,
        other => {
            return Err(bad(
                "numerics.limiter",
                format!("expected \"minmod\" or \"van-albada\", found {other:?}"),
            ))
        }
    };
    Ok(Numerics {
        gravity,
        cfl,
        dt_max,
        dry_depth,
        limiter,
        skip_dry_blocks: n.skip_dry_blocks.unwrap_or(d.skip_dry_blocks),
        track_maxima: spec.output.maxima,
        arrival_depth,
        max_mass_error,
    })
}

/// Output times (always ending at t_end) and gauge sample times.
fn schedule(t: &TimeSpec, with_gauges: bool) -> Result<(Vec<f64>, Vec<f64>), InputError> {
    if !(t.end > t.start && t.end.is_finite() && t.start.is_finite()) {
        return Err(bad(
            "time.end",
            format!(
                "expected an end time after time.start = {}, found {}",
                t.start, t.end
            ),
        ));
    }
    limits::check_times(t.start, t.end)?;
    let mut outputs = match (&t.output_times, t.output_interval) {
        (Some(_), Some(_)) => {
            return Err(bad(
                "time",
                "give output_times or output_interval, not both",
            ))
        }
        (Some(list), None) => {
            if list.len() > limits::MAX_OUTPUT_TIMES {
                return Err(bad(
                    "time.output_times",
                    format!(
                        "{} output times; expected at most {:.0e}",
                        list.len(),
                        limits::MAX_OUTPUT_TIMES as f64
                    ),
                ));
            }
            for (k, &v) in list.iter().enumerate() {
                if v <= t.start || v > t.end {
                    return Err(bad(
                        "time.output_times",
                        format!(
                            "output time {v} s lies outside (start, end] = ({}, {}]",
                            t.start, t.end
                        ),
                    ));
                }
                if k > 0 && v <= list[k - 1] {
                    return Err(bad(
                        "time.output_times",
                        format!("times must increase: {v} after {}", list[k - 1]),
                    ));
                }
            }
            list.clone()
        }
        (None, Some(dt)) => every(t, dt, "time.output_interval", limits::MAX_OUTPUT_TIMES)?,
        (None, None) => Vec::new(),
    };
    if outputs.last() != Some(&t.end) {
        outputs.push(t.end);
    }
    let gauges = if with_gauges {
        let dt = t.gauge_interval.unwrap_or((t.end - t.start) / 500.0);
        every(t, dt, "time.gauge_interval", limits::MAX_STOPS)?
    } else {
        Vec::new()
    };
    Ok((outputs, gauges))
}

fn every(t: &TimeSpec, dt: f64, key: &str, max: usize) -> Result<Vec<f64>, InputError> {
    let n = limits::check_interval(t.start, t.end, dt, key, max)?;
    let mut times: Vec<f64> = (1..=n)
        .map(|k| t.start + k as f64 * dt)
        .filter(|&v| v < t.end)
        .collect();
    times.push(t.end);
    Ok(times)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rasters_are_averaged_down_and_interpolated_up() {
        // A plane z = x + 2y on 1 m cells, 8 x 6.
        let mut r = Raster::new(8, 6, 0.0, 0.0, 1.0, None, 0.0);
        for row in 0..6 {
            for col in 0..8 {
                r.set(col, row, (col as f64 + 0.5) + 2.0 * (row as f64 + 0.5));
            }
        }
        let coarse = Frame {
            nx: 4,
            ny: 3,
            dx: 2.0,
            origin: (0.0, 0.0),
            crs: None,
        };
        let z = resample(&r, &coarse);
        // The mean of a plane over a cell is its value at the centre.
        assert_eq!(z[1 + 4 * 2], 3.0 + 2.0 * 5.0);
        let fine = Frame {
            nx: 16,
            ny: 12,
            dx: 0.5,
            origin: (0.0, 0.0),
            crs: None,
        };
        let z = resample(&r, &fine);
        let (i, j) = (5, 7);
        let (x, y) = ((i as f64 + 0.5) * 0.5, (j as f64 + 0.5) * 0.5);
        assert!(
            (z[i + 16 * j] - (x + 2.0 * y)).abs() < 1e-12,
            "bilinear is exact on a plane"
        );
        let same = Frame {
            nx: 8,
            ny: 6,
            dx: 1.0,
            origin: (0.0, 0.0),
            crs: None,
        };
        assert_eq!(resample(&r, &same), r.data);
    }

    #[test]
    fn level_and_bed_add_up_exactly() {
        // The last pair has no exact depth on its own bed: a rounding tie in every sum.
        for (level, bed) in [
            (10.0f32, 0.1f32),
            (1.0, 0.3),
            (123.456, 7.89),
            (0.5, 0.49999),
            (1.2978085, 0.262932),
        ] {
            let (h, z) = depth_for_level(level, bed);
            assert_eq!(h + z, level, "level {level} bed {bed}");
            assert!((h - (level - bed)).abs() <= 4.0 * f32::EPSILON * level);
            assert!((z - bed).abs() <= f32::EPSILON * bed);
        }
        assert!(exact_depth(1.2978085, 0.262932).is_none());
        assert_eq!(depth_for_level(1.0, 2.0), (0.0, 2.0));
    }

    #[test]
    fn a_dry_start_is_all_zero_and_a_velocity_alone_is_still_checked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("dry.toml");
        let base = "[domain]\ncell_size = 1.0\nnx = 40\nny = 24\n[terrain]\ntype = \"flat\"\n[time]\nend = 1.0\n";
        std::fs::write(&path, base).unwrap();
        let m = crate::scenario::load(&path).unwrap();
        assert!(m.depth.iter().chain(&m.hu).chain(&m.hv).all(|&v| v == 0.0));
        std::fs::write(&path, format!("{base}[initial]\nu = \"speed * 2\"\n")).unwrap();
        let e = crate::scenario::load(&path).unwrap_err().to_string();
        assert!(e.contains("initial.u"), "{e}");
    }
}
