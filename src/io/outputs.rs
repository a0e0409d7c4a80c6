//! What a run writes: result rasters and quick-looks at output times, the run's maxima,
//! and the run summary (the series are `io::series`). Rasters are GeoTIFFs with the
//! terrain's CRS (ESRI ASCII grids in a build without GDAL, or when the scenario asks).
//! Every file is written whole or not at all (`io::durable`).

use crate::io::ascii_grid::{write_ascii_values, GridHeader};
#[cfg(feature = "gdal")]
use crate::io::georaster::{write_geotiff_bands, BandInfo};
use crate::io::hazard::{arr_category, uk_class, ARR_CATEGORIES, UK_CLASSES};
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

    /// Writes map `name` in the model's raster format: each band's `value(c)` over valid
    /// cells, nodata elsewhere. ESRI ASCII grids hold one band: the first.
    pub fn write(
        &self,
        dir: &Path,
        model: &Model,
        name: &str,
        bands: &[Band],
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
        let at = |k: usize, col: usize, row: usize| {
            let c = col + header.ncols * row;
            match self.valid[c] {
                true => (bands[k].value)(c).unwrap_or(NODATA),
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
            RasterFormat::Ascii => write_ascii_values(tmp, &header, |col, row| at(0, col, row)),
            #[cfg(feature = "gdal")]
            RasterFormat::GeoTiff => {
                let info: Vec<BandInfo> = bands
                    .iter()
                    .map(|b| BandInfo {
                        description: b.description,
                        unit: b.unit,
                    })
                    .collect();
                write_geotiff_bands(tmp, &header, &info, at, model.crs.as_deref())
            }
            #[cfg(not(feature = "gdal"))]
            RasterFormat::GeoTiff => unreachable!("the scenario refuses geotiff without GDAL"),
        })?;
        Ok(path)
    }

    /// `write` of one-band map `name`, to run later (side by side with others).
    pub fn task<'a>(
        &'a self,
        dir: &'a Path,
        model: &'a Model,
        name: String,
        band: Band<'a>,
    ) -> MapTask<'a> {
        self.task_bands(dir, model, name, vec![band])
    }

    /// `write` of map `name` with several bands, to run later.
    pub fn task_bands<'a>(
        &'a self,
        dir: &'a Path,
        model: &'a Model,
        name: String,
        bands: Vec<Band<'a>>,
    ) -> MapTask<'a> {
        Box::new(move || self.write(dir, model, &name, &bands))
    }
}

/// One band of a map: what it holds, in which unit, and its value on each finest cell
/// (None: nodata).
pub struct Band<'a> {
    pub description: &'static str,
    pub unit: &'static str,
    pub value: Box<dyn Fn(usize) -> Option<f64> + Send + Sync + 'a>,
}

impl<'a> Band<'a> {
    pub fn new(
        description: &'static str,
        unit: &'static str,
        value: impl Fn(usize) -> Option<f64> + Send + Sync + 'a,
    ) -> Band<'a> {
        Band {
            description,
            unit,
            value: Box::new(value),
        }
    }
}

/// Depth, water level and velocity (speed, components, and on GeoTIFF both components in
/// one two-band map that QGIS can draw as arrows) at an output time (`label`), side by
/// side; returns the files.
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
    let u = move |c| velocity(&f.hu, c);
    let v = move |c| velocity(&f.hv, c);
    let mut tasks = vec![
        maps.task(
            dir,
            model,
            at_t("depth"),
            Band::new(DEPTH, "m", |c| Some(f.depth[c] as f64)),
        ),
        maps.task(
            dir,
            model,
            at_t("level"),
            Band::new(LEVEL, "m", |c| {
                (f.depth[c] > 0.0).then(|| f.depth[c] as f64 + maps.bed[c] as f64 + model.datum)
            }),
        ),
        maps.task(
            dir,
            model,
            at_t("speed"),
            Band::new(SPEED, "m/s", |c| Some(speed[c] as f64)),
        ),
        maps.task(dir, model, at_t("u"), Band::new(EASTWARD, "m/s", u)),
        maps.task(dir, model, at_t("v"), Band::new(NORTHWARD, "m/s", v)),
    ];
    if model.raster_format == RasterFormat::GeoTiff {
        let bands = vec![
            Band::new(EASTWARD, "m/s", u),
            Band::new(NORTHWARD, "m/s", v),
        ];
        tasks.push(maps.task_bands(dir, model, at_t("velocity"), bands));
    }
    write_maps(maps.bed.len(), tasks)
}

const DEPTH: &str = "water depth";
const UK_RATING: &str = "maximum UK flood hazard rating HR = d(v + 0.5) + DF (output.debris)";
const LEVEL: &str = "water surface elevation (the terrain's vertical datum)";
const SPEED: &str = "flow speed";
const EASTWARD: &str = "eastward velocity u";
const NORTHWARD: &str = "northward velocity v";

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
    // The bed does not move, so the highest water surface is the greatest depth on it.
    let max_level = |c: usize| {
        (peaks[c].depth > 0.0).then(|| peaks[c].depth as f64 + maps.bed[c] as f64 + model.datum)
    };
    let task = |name: &str, band| maps.task(dir, model, name.into(), band);
    write_maps(
        maps.bed.len(),
        vec![
            task(
                "max_depth",
                Band::new("maximum water depth", "m", |c| Some(peaks[c].depth as f64)),
            ),
            task(
                "max_level",
                Band::new(
                    "maximum water surface elevation (the terrain's vertical datum)",
                    "m",
                    max_level,
                ),
            ),
            task(
                "max_speed",
                Band::new("maximum flow speed", "m/s", |c| {
                    Some(peaks[c].speed() as f64)
                }),
            ),
            task(
                "max_hazard",
                Band::new("maximum depth x speed", "m2/s", |c| {
                    Some(peaks[c].hazard() as f64)
                }),
            ),
            task(
                "max_hazard_arr",
                Band::new(ARR_CATEGORIES, "category", |c| {
                    let p = &peaks[c];
                    (p.depth > 0.0).then(|| arr_category(p.depth, p.speed(), p.hazard()) as f64)
                }),
            ),
            task(
                "max_hazard_uk",
                Band::new(UK_RATING, "1", |c| {
                    (peaks[c].depth > 0.0).then(|| peaks[c].uk_rating() as f64)
                }),
            ),
            task(
                "max_hazard_uk_class",
                Band::new(UK_CLASSES, "class", |c| {
                    let p = &peaks[c];
                    (p.depth > 0.0).then(|| uk_class(p.uk_rating()) as f64)
                }),
            ),
            task(
                "inundation_duration",
                Band::new(
                    "time the depth stood at or above the duration depth (output.duration_depth)",
                    "s",
                    move |c| {
                        let p = &peaks[c];
                        (p.depth as f64 >= model.numerics.duration_depth).then(|| p.duration(clock))
                    },
                ),
            ),
            task(
                "time_of_max_depth",
                Band::new(
                    "time of the maximum depth (scenario clock)",
                    "s",
                    move |c| arrival(c).map(|_| peaks[c].time_of_max_depth(clock)),
                ),
            ),
            task(
                "arrival_time",
                Band::new(
                    "time the depth first reached the arrival depth (scenario clock)",
                    "s",
                    arrival,
                ),
            ),
        ],
    )
}

/// The depth each cell lost to the ground over the run (finest level, `infiltrated` in m),
/// in mm as loss parameters are given.
pub fn write_infiltration(
    dir: &Path,
    model: &Model,
    maps: &Maps,
    infiltrated: &[f32],
) -> std::io::Result<Vec<PathBuf>> {
    let band = Band::new(
        "cumulative infiltration: depth lost to the ground ([losses])",
        "mm",
        |c| Some(1e3 * infiltrated[c] as f64),
    );
    write_maps(
        maps.bed.len(),
        vec![maps.task(dir, model, "infiltration".into(), band)],
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
