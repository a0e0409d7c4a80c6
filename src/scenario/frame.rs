//! Where things lie: the frame of the domain's cells, and the cells under points, lines and
//! polygons given in the scenario or read from vector files. Every problem is an
//! [`InputError`] naming the key (`bad`).

use super::terrain::*;
use crate::error::InputError;
use crate::grid::BlockGrid;
use crate::io::georaster::{self, GeoRaster};
use crate::io::vector::{self, Want};
use crate::scenario::fields::Shape;
use crate::scenario::polygon::Polygon;
use crate::scenario::spec::*;
use std::path::Path;

pub(crate) fn bad(key: &str, message: impl Into<String>) -> InputError {
    InputError::new(message).at_key(key)
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

pub(crate) fn polygon_cells(
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

pub(crate) fn polygon_shape(points: &[[f64; 2]], key: &str) -> Result<Shape, InputError> {
    if points.len() < 3 || points.iter().flatten().any(|v| !v.is_finite()) {
        return Err(bad(key, "expected at least three finite vertices"));
    }
    Ok(Shape::Polygon(Polygon::new(points.to_vec())))
}
