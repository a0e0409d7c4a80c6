//! What a run writes: result rasters and quick-looks at output times, gauge series, and
//! the run summary. Rasters are ESRI ASCII grids for now (GeoTIFF arrives with GDAL).

use crate::io::ascii_grid::{write_ascii_grid, Raster};
use crate::io::quicklook::{write_quicklook, QuickLook};
use crate::scenario::model::{Model, WALL_BED};
use crate::solver::Fields;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

pub const NODATA: f64 = -9999.0;

/// Label of an output time in file names: seconds, zero-padded so files sort in time.
pub fn time_label(t: f64) -> String {
    format!("{:09.1}s", t)
}

fn raster_of(model: &Model, values: impl Iterator<Item = f64>) -> Raster {
    let mut r = Raster::new(
        model.nx(),
        model.ny(),
        model.origin.0,
        model.origin.1,
        model.cell_size,
        Some(NODATA),
        NODATA,
    );
    r.data = values.collect();
    r
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

    /// A raster of `value(c)` over valid cells, nodata elsewhere.
    fn raster(&self, model: &Model, value: impl Fn(usize) -> Option<f64>) -> Raster {
        raster_of(
            model,
            (0..self.bed.len()).map(|c| {
                if self.valid[c] {
                    value(c).unwrap_or(NODATA)
                } else {
                    NODATA
                }
            }),
        )
    }
}

/// Depth, speed and water level grids at time t; returns the files written.
pub fn write_rasters(
    dir: &Path,
    model: &Model,
    maps: &Maps,
    t: f64,
    f: &Fields,
) -> std::io::Result<Vec<PathBuf>> {
    let label = time_label(t);
    let speed = speeds(model, f);
    let depth = maps.raster(model, |c| Some(f.depth[c] as f64));
    let speed = maps.raster(model, |c| Some(speed[c] as f64));
    let level = maps.raster(model, |c| {
        (f.depth[c] > 0.0).then(|| f.depth[c] as f64 + maps.bed[c] as f64 + model.datum)
    });
    let mut written = Vec::new();
    for (name, raster) in [("depth", depth), ("speed", speed), ("level", level)] {
        let path = dir.join(format!("{name}_{label}.asc"));
        write_ascii_grid(&path, &raster)?;
        written.push(path);
    }
    Ok(written)
}

/// The maximum depth over the run.
pub fn write_max_depth(
    dir: &Path,
    model: &Model,
    maps: &Maps,
    max_depth: &[f32],
) -> std::io::Result<PathBuf> {
    let path = dir.join("max_depth.asc");
    write_ascii_grid(&path, &maps.raster(model, |c| Some(max_depth[c] as f64)))?;
    Ok(path)
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
            let mut f = BufWriter::new(File::create(
                dir.join(format!("gauge_{}.csv", safe_name(&g.name))),
            )?);
            writeln!(f, "# gauge {} at x = {} m, y = {} m", g.name, g.x, g.y)?;
            writeln!(f, "time_s,h_m,u_m_s,v_m_s,eta_m")?;
            files.push(f);
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
