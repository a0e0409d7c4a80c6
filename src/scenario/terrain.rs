//! The bed: the frame from the terrain (a raster or a formula), the elevation resampled
//! onto it, levees burned in, and Manning's n.

use super::frame::*;
use crate::error::InputError;
use crate::io::ascii_grid::Raster;
use crate::io::georaster::{self, GeoRaster};
use crate::io::vector::Want;
use crate::scenario::fields::Field;
use crate::scenario::limits;
use crate::scenario::spec::*;
use std::path::{Path, PathBuf};

/// The index in `r.data` of the raster cell holding (x, y), clamped to the raster (points
/// on its outer edge belong to its edge cells).
pub(crate) fn raster_cell(r: &Raster, x: f64, y: f64) -> usize {
    let index =
        |v: f64, o: f64, n: usize| (((v - o) / r.cellsize).floor().max(0.0) as usize).min(n - 1);
    index(x, r.xll, r.ncols) + r.ncols * index(y, r.yll, r.nrows)
}

pub(crate) fn frame(
    spec: &Spec,
    dir: &Path,
) -> Result<(Frame, Option<(Raster, PathBuf)>), InputError> {
    if let TerrainSpec::Raster { path, cell_size } = &spec.terrain {
        if spec.domain.is_some() {
            return Err(bad(
                "domain",
                "remove [domain]: a terrain raster sets the grid itself (terrain.cell_size sets its cell size)",
            ));
        }
        let path = dir.join(path);
        let GeoRaster { mut raster, crs } =
            georaster::read(&path).map_err(|e| e.or_key("terrain.path"))?;
        // Nodata is outside the domain; as NaN it stays outside through averaging.
        let nodata = raster.nodata;
        for v in raster.data.iter_mut().filter(|v| nodata == Some(**v)) {
            *v = f64::NAN;
        }
        refuse_impossible_elevations(&raster).map_err(|e| e.in_file(&path))?;
        let dx = cell_size.unwrap_or(raster.cellsize);
        check_cell_size("terrain.cell_size", dx).map_err(|e| match cell_size {
            Some(_) => e,
            None => e.in_file(&path),
        })?;
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
    check_cell_size("domain.cell_size", d.cell_size)?;
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

/// The smallest and largest model cells (m): below a millimetre a step's time underflows
/// what the GPU's clock can add (a run at 1e-45 m checked fine and then never stepped), and
/// a cell of 100 km is no flood model.
const CELL_SIZE_RANGE: (f64, f64) = (1e-3, 1e5);

fn check_cell_size(key: &str, dx: f64) -> Result<(), InputError> {
    let (lo, hi) = CELL_SIZE_RANGE;
    if !(dx >= lo && dx <= hi) {
        return Err(bad(
            key,
            format!(
                "expected a cell size in metres from {lo} to {hi:e}, found {dx} \
                 (a raster in degrees has cells of about 1e-4)"
            ),
        ));
    }
    Ok(())
}

/// The largest Manning's n taken: 1.0 already stands for a building; n = 1e30 overflowed g n²
/// in f32 and the run lost 94% of its water before it stopped.
const MANNING_MAX: f64 = 10.0;

pub(crate) fn finite_origin(o: [f64; 2]) -> Result<(f64, f64), InputError> {
    if o.iter().all(|v| v.is_finite()) {
        Ok((o[0], o[1]))
    } else {
        Err(bad(
            "domain.origin",
            format!("expected finite coordinates, found {o:?}"),
        ))
    }
}

pub(crate) fn terrain(
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

/// Elevations beyond this (m, or feet) lie outside the Earth: a value this large is a
/// nodata value the header does not declare, or a broken file.
const ELEVATION_LIMIT: f64 = 1e5;

/// Nodata values common enough that a terrain holding one, with no nodata declared, almost
/// surely meant it as nodata.
const USUAL_NODATA: [f64; 4] = [-9999.0, -99999.0, -32768.0, -32767.0];

/// Refuses a terrain raster whose values cannot be elevations: infinite, or beyond
/// ±ELEVATION_LIMIT (Float32's -3.4e38 nodata without a nodata line made a run whose
/// datum sat at -3.4e38 exit 0 with every map wrong), or, where the header declares no
/// nodata value, a usual nodata value such as -9999 (a 10 km cliff around the domain).
fn refuse_impossible_elevations(r: &Raster) -> Result<(), InputError> {
    let place = |k: usize| {
        let (col, row) = (k % r.ncols, k / r.ncols);
        let x = r.xll + (col as f64 + 0.5) * r.cellsize;
        let y = r.yll + (row as f64 + 0.5) * r.cellsize;
        format!(
            "column {} and row {} from the top (x = {x}, y = {y})",
            col + 1,
            r.nrows - row
        )
    };
    let value = |k: usize| match r.data[k] {
        v if v.abs() >= 1e6 => format!("{v:e}"),
        v => format!("{v}"),
    };
    let declared = match r.nodata {
        Some(v) => format!("its nodata value is {v}"),
        None => "it declares no nodata value".to_string(),
    };
    if let Some(k) = r
        .data
        .iter()
        .position(|v| v.is_infinite() || v.abs() >= ELEVATION_LIMIT)
    {
        return Err(bad(
            "terrain.path",
            format!(
                "{} at {} is not an elevation (expected within ±{ELEVATION_LIMIT:e}; \
                 {declared}: is this value nodata the header does not name?)",
                value(k),
                place(k)
            ),
        ));
    }
    if r.nodata.is_none() {
        if let Some(k) = r.data.iter().position(|v| USUAL_NODATA.contains(v)) {
            return Err(bad(
                "terrain.path",
                format!(
                    "{} at {} is a usual nodata value, and the raster declares none: add it \
                     to the header (NODATA_value {} in an ASCII grid) or replace those cells",
                    value(k),
                    place(k),
                    value(k)
                ),
            ));
        }
    }
    Ok(())
}

/// Terrain on the model grid: the raster itself when the cell sizes agree; else the mean of
/// the raster cells whose centres fall in each model cell (a finer raster), or bilinear
/// interpolation between raster cell centres (a coarser one).
pub(crate) fn resample(r: &Raster, frame: &Frame) -> Vec<f64> {
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
pub(crate) fn bilinear(r: &Raster, x: f64, y: f64) -> f64 {
    let fx = (x / r.cellsize - 0.5).clamp(0.0, (r.ncols - 1) as f64);
    let fy = (y / r.cellsize - 0.5).clamp(0.0, (r.nrows - 1) as f64);
    let (c0, r0) = (fx.floor() as usize, fy.floor() as usize);
    let (c1, r1) = ((c0 + 1).min(r.ncols - 1), (r0 + 1).min(r.nrows - 1));
    let (wx, wy) = (fx - c0 as f64, fy - r0 as f64);
    let low = r.get(c0, r0) * (1.0 - wx) + r.get(c1, r0) * wx;
    let high = r.get(c0, r1) * (1.0 - wx) + r.get(c1, r1) * wx;
    low * (1.0 - wy) + high * wy
}

/// Takes the finest cells under each levee line out of the domain (NaN, as nodata) where
/// the levee stands: everywhere for a wall, where the crest is above the ground for a
/// levee with a crest, over which water then passes by the weir equation (`weirs::levee`).
/// Returns each levee's wall cells, in the line's order. The cells of a line touch at least
/// corner to corner, and water crosses faces only, so a wall leaks nowhere.
pub(crate) fn levees(
    specs: &[LeveeSpec],
    frame: &Frame,
    elevation: &mut [f64],
    dir: &Path,
) -> Result<Vec<Vec<(usize, usize)>>, InputError> {
    let mut walls = Vec::new();
    for (k, levee) in specs.iter().enumerate() {
        let key = format!("levee[{k}]");
        if let Some(crest) = levee.crest.filter(|c| !c.is_finite()) {
            return Err(bad(
                &format!("{key}.crest"),
                format!("expected a finite elevation, found {crest}"),
            ));
        }
        if levee.crest.is_none() && levee.coefficient.is_some() {
            return Err(bad(
                &format!("{key}.coefficient"),
                "a weir coefficient belongs to a levee with a crest: this one is a wall (give `crest`, or drop `coefficient`)",
            ));
        }
        let mut wall = Vec::new();
        for (i, j) in levee_cells(levee, k, frame, dir)? {
            let z = &mut elevation[i + frame.nx * j];
            // Nodata stays outside; ground at or above the crest stays ground.
            if !z.is_nan() && levee.crest.is_none_or(|crest| crest > *z) {
                *z = f64::NAN;
                wall.push((i, j));
            }
        }
        walls.push(wall);
    }
    Ok(walls)
}

/// The finest cells under levee `k`'s line.
pub(crate) fn levee_cells(
    levee: &LeveeSpec,
    k: usize,
    frame: &Frame,
    dir: &Path,
) -> Result<Vec<(usize, usize)>, InputError> {
    let key = format!("levee[{k}].line");
    let line = coords(&levee.line, Want::Line, &key, dir, frame)?;
    line_cells(frame, &line, &key)
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
        if !(0.0..=MANNING_MAX).contains(&m) {
            return Err(bad(
                "friction.manning",
                format!("expected n from 0 to {MANNING_MAX} (s/m^(1/3)), found {m}"),
            ));
        }
        return Ok(vec![m as f32; n]);
    }
    let Some(path) = spec.raster.as_ref().or(spec.landuse.as_ref()) else {
        return Ok(vec![0.0; n]);
    };
    let path = dir.join(path);
    let key = if spec.raster.is_some() {
        "friction.raster"
    } else {
        "friction.landuse"
    };
    let raster = georaster::read(&path).map_err(|e| e.or_key(key))?;
    let values = frame.sample(&raster, &path).map_err(|e| e.or_key(key))?;
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
        if !(0.0..=MANNING_MAX).contains(&n) {
            return Err(InputError::new(format!(
                "expected Manning n from 0 to {MANNING_MAX} everywhere, found {n} at {}",
                at()
            ))
            .in_file(&path));
        }
        out.push(n as f32);
    }
    Ok(out)
}

/// The land-use class -> Manning n table, keyed by integer class.
pub(crate) fn class_table(
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
        if !(0.0..=MANNING_MAX).contains(&n) {
            return Err(bad(
                &key,
                format!("expected n from 0 to {MANNING_MAX} (s/m^(1/3)), found {n}"),
            ));
        }
        table.insert(id, n);
    }
    Ok(Some(table))
}
