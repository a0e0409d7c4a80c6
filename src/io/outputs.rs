//! What a run writes: result rasters and quick-looks at output times, the run's maxima,
//! gauge series, and the run summary. Rasters are GeoTIFFs with the terrain's CRS (ESRI
//! ASCII grids in a build without GDAL, or when the scenario asks).

use crate::io::ascii_grid::{write_ascii_values, GridHeader};
use crate::io::quicklook::{write_quicklook, QuickLook};
use crate::io::writer::{write_maps, MapTask};
use crate::scenario::maxima::Peak;
use crate::scenario::model::{Model, RasterFormat, WALL_BED};
use crate::solver::Fields;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

pub const NODATA: f64 = -9999.0;

/// Label of an output time in file names: seconds, zero-padded so files sort in time.
pub fn time_label(t: f64) -> String {
    format!("{:09.1}s", t)
}

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
        let written = match model.raster_format {
            // GIS tools take an ESRI ASCII grid's CRS from the .prj beside it.
            RasterFormat::Ascii => write_ascii_values(&path, &header, at).and_then(|()| {
                model.crs.as_deref().map_or(Ok(()), |wkt| {
                    crate::io::crs::write_prj(&path, wkt).map(drop)
                })
            }),
            #[cfg(feature = "gdal")]
            RasterFormat::GeoTiff => {
                crate::io::georaster::write_geotiff_values(&path, &header, at, model.crs.as_deref())
            }
            #[cfg(not(feature = "gdal"))]
            RasterFormat::GeoTiff => unreachable!("the scenario refuses geotiff without GDAL"),
        };
        // The error names the map: several are written at once.
        written.map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
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

/// Depth, water level, velocity (components and speed) at time t, side by side; returns
/// the files.
pub fn write_rasters(
    dir: &Path,
    model: &Model,
    maps: &Maps,
    t: f64,
    f: &Fields,
) -> std::io::Result<Vec<PathBuf>> {
    let label = time_label(t);
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

/// A top-of-scale for depth maps: the next 1, 2 or 5 times a power of ten.
pub fn nice_ceiling(v: f32) -> f32 {
    if v.is_nan() || v <= 0.0 {
        return 1.0;
    }
    let p = 10f32.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|&c| c >= v)
        .unwrap_or(10.0 * p)
}

pub fn write_depth_png(
    dir: &Path,
    name: &str,
    title: String,
    model: &Model,
    maps: &Maps,
    depth: &[f32],
) -> Result<PathBuf, String> {
    let vmax = nice_ceiling(depth.iter().cloned().fold(0.0, f32::max));
    let path = dir.join(name);
    write_quicklook(
        &path,
        &QuickLook {
            nx: model.nx(),
            ny: model.ny(),
            values: depth,
            valid: &maps.valid,
            terrain: Some(&maps.bed),
            cell_size: model.cell_size,
            title,
            units: "m".into(),
            vmax,
            min_depth: model.numerics.arrival_depth as f32,
        },
    )?;
    Ok(path)
}

/// One CSV per gauge: time_s, h_m, u_m_s, v_m_s, eta_m.
pub struct GaugeFiles {
    files: Vec<BufWriter<File>>,
}

impl GaugeFiles {
    pub fn create(dir: &Path, model: &Model) -> std::io::Result<GaugeFiles> {
        let mut files = Vec::new();
        for g in &model.gauges {
            let path = dir.join(format!("gauge_{}.csv", safe_name(&g.name)));
            let header = format!(
                "# gauge {} at x = {} m, y = {} m\ntime_s,h_m,u_m_s,v_m_s,eta_m",
                g.name, g.x, g.y
            );
            files.push(series_file(&path, &header, model)?);
        }
        Ok(GaugeFiles { files })
    }

    /// Appends one sample per gauge; `cells` holds (h, hu, hv) in gauge order.
    pub fn record(&mut self, model: &Model, t: f64, cells: &[[f32; 3]]) -> std::io::Result<()> {
        let dry = model.numerics.dry_depth as f32;
        for ((f, g), s) in self.files.iter_mut().zip(&model.gauges).zip(cells) {
            let (h, hu, hv) = (s[0], s[1], s[2]);
            let (u, v) = if h > dry {
                (hu / h, hv / h)
            } else {
                (0.0, 0.0)
            };
            let k = model.grid.storage_index(g.cell.0, g.cell.1);
            let eta = h as f64 + model.bed[k] as f64 + model.datum;
            writeln!(f, "{t},{h},{u},{v},{eta}")?;
        }
        Ok(())
    }

    pub fn finish(self) -> std::io::Result<()> {
        for mut f in self.files {
            f.flush()?;
        }
        Ok(())
    }
}

/// One CSV per cross-section: time_s, discharge_m3s (positive to the left of the line).
pub struct SectionFiles {
    files: Vec<BufWriter<File>>,
}

impl SectionFiles {
    pub fn create(dir: &Path, model: &Model) -> std::io::Result<SectionFiles> {
        let mut files = Vec::new();
        for s in &model.sections {
            let path = dir.join(format!("section_{}.csv", safe_name(&s.name)));
            let header = format!(
                "# cross-section {}: discharge positive to the left of the line's direction\ntime_s,discharge_m3s",
                s.name
            );
            files.push(series_file(&path, &header, model)?);
        }
        Ok(SectionFiles { files })
    }

    /// Appends one discharge per section.
    pub fn record(&mut self, t: f64, discharges: &[f64]) -> std::io::Result<()> {
        for (f, q) in self.files.iter_mut().zip(discharges) {
            writeln!(f, "{t},{q}")?;
        }
        Ok(())
    }

    pub fn finish(self) -> std::io::Result<()> {
        for mut f in self.files {
            f.flush()?;
        }
        Ok(())
    }
}

/// A time-series CSV: new, or on a restart the earlier run's file cut at the restart time
/// and continued, so the series reads as one run.
fn series_file(path: &Path, header: &str, model: &Model) -> std::io::Result<BufWriter<File>> {
    if model.resume.is_some() {
        if let Ok(old) = std::fs::read_to_string(path) {
            let kept: String = old
                .lines()
                .filter(|l| match l.split(',').next().map(str::parse::<f64>) {
                    Some(Ok(t)) => t <= model.t_start,
                    _ => true,
                })
                .map(|l| format!("{l}\n"))
                .collect();
            std::fs::write(path, kept)?;
            return Ok(BufWriter::new(
                std::fs::OpenOptions::new().append(true).open(path)?,
            ));
        }
    }
    let mut f = BufWriter::new(File::create(path)?);
    writeln!(f, "{header}")?;
    Ok(f)
}

/// Mass balance over time (m³): what came in, went out, fell as rain, is stored, and the
/// error storage - (initial + in - out + rain).
pub struct BalanceFile {
    file: BufWriter<File>,
    initial: Option<f64>,
}

impl BalanceFile {
    const NAME: &'static str = "mass_balance.csv";

    pub fn create(dir: &Path, model: &Model) -> std::io::Result<BalanceFile> {
        let header = "time_s,inflow_m3,outflow_m3,rain_m3,storage_m3,error_m3,error_rel";
        let initial = model
            .resume
            .as_ref()
            .and_then(|_| Self::initial_storage_in(dir));
        Ok(BalanceFile {
            file: series_file(&dir.join(Self::NAME), header, model)?,
            initial,
        })
    }

    /// The first row's storage in an earlier run's balance file.
    fn initial_storage_in(dir: &Path) -> Option<f64> {
        let text = std::fs::read_to_string(dir.join(Self::NAME)).ok()?;
        let row = text.lines().nth(1)?;
        row.split(',').nth(4)?.parse().ok()
    }

    /// Storage at the start of the run (on a restart: of the run that was restarted).
    pub fn initial(&self) -> Option<f64> {
        self.initial
    }

    pub fn record(
        &mut self,
        t: f64,
        inflow: f64,
        outflow: f64,
        rain: f64,
        storage: f64,
    ) -> std::io::Result<()> {
        let initial = *self.initial.get_or_insert(storage);
        let error = storage - (initial + inflow - outflow + rain);
        let scale = (initial + inflow + rain).max(1e-300);
        writeln!(
            self.file,
            "{t},{inflow},{outflow},{rain},{storage},{error},{}",
            error / scale
        )
    }

    pub fn finish(mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

fn safe_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Writes JSON atomically: a reader never sees half a summary, and a run that dies before
/// the end leaves none, so a directory without summary.json is visibly incomplete.
pub fn write_json_atomic(path: &Path, value: &serde_json::Value) -> std::io::Result<()> {
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, serde_json::to_string_pretty(value)? + "\n")?;
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_scale() {
        assert_eq!(nice_ceiling(0.7), 1.0);
        assert_eq!(nice_ceiling(1.3), 2.0);
        assert_eq!(nice_ceiling(3.0), 5.0);
        assert_eq!(nice_ceiling(0.0), 1.0);
        assert_eq!(nice_ceiling(0.012), 0.02);
        assert_eq!(time_label(600.0), "0000600.0s");
    }
}
