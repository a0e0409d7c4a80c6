//! What a run writes: result rasters and quick-looks at output times, the run's maxima,
//! and the run summary (the series are `io::series`). Rasters are GeoTIFFs with the
//! terrain's CRS (ESRI ASCII grids in a build without GDAL, or when the scenario asks).
//! Every file is written whole or not at all (`io::durable`).

use crate::io::ascii_grid::{write_ascii_values, GridHeader};
use crate::io::quicklook::{write_quicklook, QuickLook};
use crate::io::writer::{write_maps, MapTask};
use crate::scenario::maxima::Peak;
use crate::scenario::model::{Model, RasterFormat, WALL_BED};
use crate::solver::Fields;
use std::path::{Path, PathBuf};

pub const NODATA: f64 = -9999.0;

/// Flow speed (m/s) of every cell: zero where the cell is too shallow to carry velocity.
pub fn speeds(model: &Model, f: &Fields) -> Vec<f32> {
    let dry = model.numerics.dry_depth as f32;
    (0..f.depth.len())
        .map(|c| {
            let h = f.depth[c];
            if h > dry {
                (f.hu[c] * f.hu[c] + f.hv[c] * f.hv[c]).sqrt() / h
            } else {
                0.0
            }
        })
        .collect()
}

/// The finest-level view of the terrain that every map is drawn on. Rasters are written at
/// the finest resolution; a coarse cell's value is replicated over the finest cells it
/// covers (no interpolation), so every map shows exactly what the solver holds.
pub struct Maps {
    /// Bed relative to the datum, finest level, row-major from the south edge.
    pub bed: Vec<f32>,
    pub valid: Vec<bool>,
}

impl Maps {
    pub fn new(model: &Model) -> Maps {
        let bed = model.domain(&model.bed);
        let valid = bed.iter().map(|&z| z < WALL_BED * 0.5).collect();
        Maps { bed, valid }
    }

    /// Writes `value(c)` over valid cells (nodata elsewhere) as map `name`, in the
    /// model's raster format.
    pub fn write(
        &self,
        dir: &Path,
        model: &Model,
        name: &str,
        value: impl Fn(usize) -> Option<f64>,
    ) -> std::io::Result<PathBuf> {
        let path = dir.join(format!("{name}.{}", model.raster_format.extension()));
        let header = GridHeader {
            ncols: model.nx(),
            nrows: model.ny(),
            xll: model.origin.0,
            yll: model.origin.1,
            cellsize: model.cell_size,
            nodata: Some(NODATA),
        };
        let at = |col: usize, row: usize| {
            let c = col + header.ncols * row;
            match self.valid[c] {
                true => value(c).unwrap_or(NODATA),
                false => NODATA,
            }
        };
        // GIS tools take an ESRI ASCII grid's CRS from the .prj beside it: written first,
        // so that no map is ever without it.
        if let (RasterFormat::Ascii, Some(wkt)) = (model.raster_format, &model.crs) {
            crate::io::crs::write_prj(&path, wkt)?;
        }
        // The error names the map: several are written at once.
        crate::io::durable::replace(&path, |tmp| match model.raster_format {
            RasterFormat::Ascii => write_ascii_values(tmp, &header, at),
            #[cfg(feature = "gdal")]
            RasterFormat::GeoTiff => {
                crate::io::georaster::write_geotiff_values(tmp, &header, at, model.crs.as_deref())
            }
            #[cfg(not(feature = "gdal"))]
            RasterFormat::GeoTiff => unreachable!("the scenario refuses geotiff without GDAL"),
        })?;
        Ok(path)
    }

    /// `write` of map `name`, to run later (side by side with others).
    pub fn task<'a>(
        &'a self,
        dir: &'a Path,
        model: &'a Model,
        name: String,
        value: impl Fn(usize) -> Option<f64> + Send + 'a,
    ) -> MapTask<'a> {
        Box::new(move || self.write(dir, model, &name, value))
    }
}

/// Depth, water level, velocity (components and speed) at an output time (`label`), side
/// by side; returns the files.
pub fn write_rasters(
    dir: &Path,
    model: &Model,
    maps: &Maps,
    label: &str,
    f: &Fields,
) -> std::io::Result<Vec<PathBuf>> {
    let speed = speeds(model, f);
    let dry = model.numerics.dry_depth as f32;
    let velocity = |m: &[f32], c: usize| {
        Some(if f.depth[c] > dry {
            (m[c] / f.depth[c]) as f64
        } else {
            0.0
        })
    };
    let at_t = |name: &str| format!("{name}_{label}");
    let speed = &speed;
    write_maps(
        maps.bed.len(),
        vec![
            maps.task(dir, model, at_t("depth"), |c| Some(f.depth[c] as f64)),
            maps.task(dir, model, at_t("level"), |c| {
                (f.depth[c] > 0.0).then(|| f.depth[c] as f64 + maps.bed[c] as f64 + model.datum)
            }),
            maps.task(dir, model, at_t("speed"), |c| Some(speed[c] as f64)),
            maps.task(dir, model, at_t("u"), move |c| velocity(&f.hu, c)),
            maps.task(dir, model, at_t("v"), move |c| velocity(&f.hv, c)),
        ],
    )
}

/// Maps of the run's maxima (finest level) and arrival time, side by side; returns the
/// files written.
pub fn write_maxima(
    dir: &Path,
    model: &Model,
    maps: &Maps,
    peaks: &[Peak],
) -> std::io::Result<Vec<PathBuf>> {
    let clock = &model.peak_clock;
    let arrival = move |c: usize| peaks[c].arrival(clock);
    write_maps(
        maps.bed.len(),
        vec![
            maps.task(dir, model, "max_depth".into(), |c| {
                Some(peaks[c].depth as f64)
            }),
            maps.task(dir, model, "max_speed".into(), |c| {
                Some(peaks[c].speed() as f64)
            }),
            maps.task(dir, model, "max_hazard".into(), |c| {
                Some(peaks[c].hazard() as f64)
            }),
            maps.task(dir, model, "time_of_max_depth".into(), move |c| {
                arrival(c).map(|_| peaks[c].time_of_max_depth(clock))
            }),
            maps.task(dir, model, "arrival_time".into(), arrival),
        ],
    )
}

pub fn write_depth_png(
    dir: &Path,
    name: &str,
    title: String,
    model: &Model,
    maps: &Maps,
    depth: &[f32],
) -> Result<PathBuf, String> {
    let path = dir.join(name);
    write_quicklook(
        &path,
        &QuickLook {
            nx: model.nx(),
            ny: model.ny(),
            depth,
            valid: &maps.valid,
            terrain: Some(&maps.bed),
            cell_size: model.cell_size,
            title,
        },
    )?;
    Ok(path)
}

/// Writes JSON atomically: a reader never sees half a summary, and a run that dies before
/// the end leaves none, so a directory without summary.json is visibly incomplete.
pub fn write_json_atomic(path: &Path, value: &serde_json::Value) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(value)? + "\n";
    crate::io::durable::write_bytes(path, text.as_bytes())
}
