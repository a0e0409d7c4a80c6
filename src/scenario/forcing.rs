//! Water the scenario adds: sources (points, lines, polygons) and rain (uniform, by zone,
//! or gridded), placed on the grid's cells.

use super::{frame::*, terrain::*};
use crate::error::InputError;
use crate::grid::{BlockGrid, BLOCK_ALWAYS_ACTIVE, NONE};
use crate::io::georaster::{self, GeoRaster};
use crate::io::vector::Want;
use crate::scenario::model::{Rain, Series, SourceCell, WALL_BED};
use crate::scenario::nodata;
use crate::scenario::series::{self, Quantity, SeriesList};
use crate::scenario::spec::*;
use std::path::{Path, PathBuf};

/// Finest cells of one source and the series that feeds it.
pub(crate) struct SourceCells {
    pub(crate) series: u32,
    pub(crate) cells: Vec<(usize, usize)>,
    /// A stage or outfall line: the series is the water level the cells hold.
    pub(crate) level: bool,
    /// An open, normal-depth or rating line: for each cell, the side of its neighbour inside the
    /// domain (`OPEN_*`); empty for other lines and sources.
    pub(crate) inner: Vec<u8>,
    /// A normal-depth line's friction slope; 0 otherwise.
    pub(crate) slope: f64,
    /// A rating line's 1 / length (1/m), the series its rating curve; 0 otherwise.
    pub(crate) rating_scale: f64,
    /// The scenario key it came from, for messages.
    pub(crate) key: String,
}

/// Where each `[[source]]` puts its water: the cell under a point, the cells a line
/// crosses, or the cells whose centres lie in a polygon.
pub(crate) fn sources(
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

/// Source cells in storage layout: each finest cell carries an equal share of its
/// source, and a coarse cell the sum of the shares it covers. Their blocks are launched
/// every step.
pub(crate) fn stored_sources(grid: &mut BlockGrid, sources: &[SourceCells]) -> Vec<SourceCell> {
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

pub(crate) fn rain_rate(
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
pub(crate) fn rain_grid(frame: &Frame, crs: &str) -> georaster::TargetGrid {
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
pub(crate) const MAX_RAIN_CELLS: usize = 65536;

/// Rain from a sequence of rasters: a series per rain cell that holds a cell centre (its
/// rates at the rasters' times, interpolated linearly), and each stored cell's series.
pub(crate) fn gridded_rain(
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
pub(crate) fn rain(
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
