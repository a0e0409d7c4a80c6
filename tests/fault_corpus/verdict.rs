//! What every case asserts: no panic, no hang, an exit code from the documented list with a
//! message naming what went wrong; no file under a final name that is not whole; and a run
//! that exits 0 vouches for a sound result (its mass balance within 1e-5, no water deeper
//! than its forcing and initial water can make).

use super::proc::Outcome;
use std::path::Path;

/// The largest relative mass error a run that exits 0 may report (`summary.json`).
pub const MASS_ERROR: f64 = 1e-5;

/// Why the process's end is not one the documentation allows, if it is not: a hang, a
/// panic, a crash, an undocumented exit code, or a failure whose message does not say
/// what failed. `names`: texts of which a failure's message must hold one (the files and
/// keys the case touched); empty: any.
pub fn documented(o: &Outcome, names: &[String]) -> Option<String> {
    if o.timed_out {
        return Some(format!("hang: no end after {:.0?}", o.wall));
    }
    if o.code == Some(101) || o.said("panicked") {
        return Some("panic".into());
    }
    if let Some(s) = o.signal {
        return Some(format!(
            "died of signal {s} (6: abort, e.g. an allocation past the address-space limit)"
        ));
    }
    let names_one = || names.is_empty() || names.iter().any(|n| o.said(n));
    let code = o.code.unwrap_or(-1);
    let problem = match code {
        0 => return None,
        1 if !(o.said("I/O error") || o.said("GPU error")) => "exit 1 without an I/O or GPU error",
        2 if !o.said("input error") => "exit 2 without an input error",
        1 | 2 if !names_one() => "the message names none of the files or keys involved",
        1 | 2 => return None,
        3 => "no GPU adapter (the corpus needs one: lavapipe will do)",
        4 if !o.said("t = ") => "exit 4 without the time",
        4 => return None,
        130 | 143 if !(o.said("stopped by SIG") && o.said("t = ")) => {
            "stopped by a signal without saying where"
        }
        130 | 143 => return None,
        _ => "an exit code the documentation does not list",
    };
    Some(problem.into())
}

/// A raster map read back: its cell size, nodata value and values.
pub struct Map {
    pub cellsize: f64,
    pub nodata: Option<f64>,
    pub values: Vec<f64>,
}

impl Map {
    /// Values that are data.
    pub fn data(&self) -> impl Iterator<Item = f64> + '_ {
        let nodata = self.nodata;
        self.values
            .iter()
            .copied()
            .filter(move |&v| Some(v) != nodata && !v.is_nan())
    }
}

/// An ESRI ASCII grid, read here rather than with quadflood's reader: the header's six
/// keys, then exactly ncols × nrows numbers.
pub fn read_ascii(path: &Path) -> Result<Map, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let mut words = text.split_ascii_whitespace();
    let mut header = std::collections::HashMap::new();
    for _ in 0..6 {
        let key = words
            .next()
            .ok_or("the header ends early")?
            .to_ascii_lowercase();
        let value: f64 = words
            .next()
            .and_then(|v| v.parse().ok())
            .ok_or(format!("no number after {key}"))?;
        header.insert(key, value);
    }
    let get = |k: &str| {
        header
            .get(k)
            .copied()
            .ok_or(format!("no {k} in the header"))
    };
    let (ncols, nrows) = (get("ncols")? as usize, get("nrows")? as usize);
    let values: Vec<f64> = words
        .map(|w| w.parse().map_err(|_| format!("{w:?} is not a number")))
        .collect::<Result<_, _>>()?;
    if values.len() != ncols * nrows {
        return Err(format!("{} values for {ncols} x {nrows}", values.len()));
    }
    Ok(Map {
        cellsize: get("cellsize")?,
        nodata: get("nodata_value").ok(),
        values,
    })
}

/// A GeoTIFF read through GDAL, every block of it.
pub fn read_geotiff(path: &Path) -> Result<Map, String> {
    let ds = gdal::Dataset::open(path).map_err(|e| e.to_string())?;
    let (ncols, nrows) = ds.raster_size();
    let gt = ds.geo_transform().map_err(|e| e.to_string())?;
    let band = ds.rasterband(1).map_err(|e| e.to_string())?;
    let buffer = band
        .read_as::<f64>((0, 0), (ncols, nrows), (ncols, nrows), None)
        .map_err(|e| e.to_string())?;
    Ok(Map {
        cellsize: gt[1],
        nodata: band.no_data_value(),
        values: buffer.data().to_vec(),
    })
}

pub fn read_map(path: &Path) -> Result<Map, String> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("tif") => read_geotiff(path),
        _ => read_ascii(path),
    }
}

/// A series file: ends with a newline; after its comment lines a header, then rows of
/// as many numbers.
fn whole_csv(bytes: &[u8]) -> Result<(), String> {
    let text = std::str::from_utf8(bytes).map_err(|e| e.to_string())?;
    if !text.ends_with('\n') {
        return Err("it does not end with a newline".into());
    }
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let columns = lines.next().ok_or("no header")?.split(',').count();
    for line in lines {
        let fields: Vec<&str> = line.split(',').collect();
        if fields.len() != columns || fields.iter().any(|f| f.parse::<f64>().is_err()) {
            return Err(format!("row {line:?} is not {columns} numbers"));
        }
    }
    Ok(())
}

/// A checkpoint: its magic line, and its last four bytes the CRC-32 of the rest.
fn whole_checkpoint(bytes: &[u8]) -> Result<(), String> {
    if !bytes.starts_with(b"quadflood checkpoint ") || bytes.len() < 4 {
        return Err("no magic line".into());
    }
    let (body, crc) = bytes.split_at(bytes.len() - 4);
    match crc32fast::hash(body).to_le_bytes() == crc {
        true => Ok(()),
        false => Err("its CRC-32 does not match".into()),
    }
}

fn whole_gif(path: &Path) -> Result<(), String> {
    use image::AnimationDecoder;
    let file = std::io::BufReader::new(std::fs::File::open(path).map_err(|e| e.to_string())?);
    let decoder = image::codecs::gif::GifDecoder::new(file).map_err(|e| e.to_string())?;
    let frames = decoder
        .into_frames()
        .collect_frames()
        .map_err(|e| e.to_string())?;
    match frames.is_empty() {
        true => Err("no frames".into()),
        false => Ok(()),
    }
}

/// Whether one file under its final name is whole, by its kind.
fn whole_file(path: &Path, name: &str) -> Result<(), String> {
    let ext = name.rsplit('.').next().unwrap_or_default();
    match ext {
        "asc" => read_ascii(path).map(|_| ()),
        "tif" => read_geotiff(path).map(|_| ()),
        "csv" => whole_csv(&std::fs::read(path).map_err(|e| e.to_string())?),
        "json" => serde_json::from_slice::<serde_json::Value>(
            &std::fs::read(path).map_err(|e| e.to_string())?,
        )
        .map(|_| ())
        .map_err(|e| e.to_string()),
        "png" => image::open(path).map(|_| ()).map_err(|e| e.to_string()),
        "gif" => whole_gif(path),
        "qfck" => whole_checkpoint(&std::fs::read(path).map_err(|e| e.to_string())?),
        // The whole event: every variable opens through GDAL.
        "nc" => ["depth", "level", "u", "v"].iter().try_for_each(|var| {
            let sub = format!("NETCDF:\"{}\":{var}", path.display());
            gdal::Dataset::open(&sub)
                .map(|_| ())
                .map_err(|e| format!("{var}: {e}"))
        }),
        // The run's log (appended to as it goes: any prefix is whole) and its scenario.
        "log" => std::fs::read_to_string(path)
            .map(|_| ())
            .map_err(|e| e.to_string()),
        "toml" => std::fs::read_to_string(path)
            .map_err(|e| e.to_string())?
            .parse::<toml::Table>()
            .map(|_| ())
            .map_err(|e| e.to_string()),
        // The CRS beside an ESRI ASCII map: WKT that GDAL reads.
        "prj" => {
            let wkt = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
            gdal::spatial_ref::SpatialRef::from_wkt(wkt.trim())
                .map(|_| ())
                .map_err(|e| e.to_string())
        }
        _ => Err("a file the run should not write".into()),
    }
}

/// Every file a run left in `dir` is whole; none is a temporary unless the process was
/// killed outright (`killed`: SIGKILL leaves no chance to clear one away).
pub fn whole_files(dir: &Path, killed: bool) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut failures = Vec::new();
    for entry in entries {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if name == ".quadflood.lock" {
            continue;
        }
        if name.ends_with(".tmp") {
            if !killed {
                failures.push(format!("{name}: a temporary file left behind"));
            }
            continue;
        }
        // The maps of the model as built.
        if name == "check" && entry.file_type().unwrap().is_dir() {
            let inside = whole_files(&path, killed);
            failures.extend(inside.into_iter().map(|f| format!("check/{f}")));
            continue;
        }
        if !entry.file_type().unwrap().is_file() {
            failures.push(format!("{name}: not a file"));
            continue;
        }
        if let Err(e) = whole_file(&path, &name) {
            failures.push(format!("{name} is not whole: {e}"));
        }
    }
    failures
}

/// What the water of a case can reach.
#[derive(Clone, Debug, Default)]
pub struct Bound {
    /// The highest water level any stage or the initial water sets (m), if any does.
    pub head: Option<f64>,
    /// The lowest bed of any cell (m).
    pub lowest_bed: f64,
    /// Water that inflows, sources and rain bring by the end (m³), which a cell of
    /// `finest_area` could hold at most all of.
    pub brought: f64,
    pub finest_area: f64,
    /// The volume the inflow hydrographs and sources hold to the end (m³), where nothing
    /// else passes the boundary.
    pub inflow: Option<f64>,
    /// The rain's depth to the end (m), where it falls uniformly on every cell of the
    /// domain (levees take theirs out of it: walls, and crests above the ground).
    pub rain: Option<f64>,
}

/// Numerical overshoot allowed over a bound on depth or level (m): relative and absolute.
const OVERSHOOT: (f64, f64) = (0.01, 1e-3);

impl Bound {
    /// No bound on depth (a case whose inputs the corpus cannot weigh): the mass balance
    /// and the files are still checked.
    pub fn unbounded() -> Bound {
        Bound {
            head: Some(f64::INFINITY),
            finest_area: 1.0,
            ..Bound::default()
        }
    }

    /// No depth may exceed this: the highest level less the lowest bed, plus all the
    /// water brought in piled on one cell.
    pub fn depth(&self) -> f64 {
        let still = self.head.map_or(0.0, |h| (h - self.lowest_bed).max(0.0));
        still * (1.0 + OVERSHOOT.0) + OVERSHOOT.1 + self.brought / self.finest_area
    }

    /// No water surface may rise above this where nothing brings water in but stages.
    pub fn level(&self) -> Option<f64> {
        (self.brought == 0.0).then(|| {
            let h = self.head.unwrap_or(self.lowest_bed);
            h + (h - self.lowest_bed).abs() * OVERSHOOT.0 + OVERSHOOT.1
        })
    }
}

/// The time in a timed map's name (`depth_0000010.0s.asc`).
pub fn label_time(name: &str, prefix: &str) -> Option<f64> {
    let rest = name.strip_prefix(prefix)?;
    let stem = rest.rsplit_once('.')?.0;
    stem.strip_suffix('s')?.parse().ok()
}

fn close(a: f64, b: f64, rel: f64, abs: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs()) + abs
}

/// A run that exited 0 vouches for a sound result in `out`: its summary parses; its mass
/// error is within `MASS_ERROR`; no depth it reports or maps is negative, not a number or
/// beyond the bound; no level beyond it; the last depth map holds the final storage; the
/// inflow and rain it counted are the ones its series hold.
pub fn sound(out: &Path, b: &Bound) -> Vec<String> {
    let mut failures = Vec::new();
    let summary: serde_json::Value = match std::fs::read(out.join("summary.json"))
        .map_err(|e| e.to_string())
        .and_then(|s| serde_json::from_slice(&s).map_err(|e| e.to_string()))
    {
        Ok(s) => s,
        Err(e) => return vec![format!("exit 0 without a summary.json: {e}")],
    };
    let number = |key: &str| summary[key].as_f64().unwrap_or(f64::NAN);
    let error = number("mass_error_rel");
    if error.is_nan() || error.abs() > MASS_ERROR {
        failures.push(format!(
            "mass error {error:e} in summary.json (bound {MASS_ERROR:e})"
        ));
    }
    let deepest = number("max_depth_m");
    let bound = b.depth();
    if deepest.is_nan() || deepest > bound {
        failures.push(format!("max_depth_m {deepest} m in summary.json; the forcing and initial water reach {bound:.6} m at most"));
    }
    let area = number("cells") * number("cell_size_m").powi(2);
    let rain = b.rain.map(|depth| depth * area);
    for (name, expected, key) in [
        ("inflow", b.inflow, "mass_inflow_m3"),
        ("rain", rain, "mass_rain_m3"),
    ] {
        if let Some(expected) = expected {
            let counted = number(key);
            if !close(counted, expected, 1e-5, 1e-9) {
                failures.push(format!(
                    "{key} {counted} in summary.json; the {name} series bring {expected}"
                ));
            }
        }
    }
    failures.extend(sound_maps(out, b, number("mass_final_m3")));
    failures
}

fn sound_maps(out: &Path, b: &Bound, final_storage: f64) -> Vec<String> {
    let mut failures = Vec::new();
    let mut last: Option<(f64, String)> = None;
    let mut names: Vec<String> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".asc") || n.ends_with(".tif"))
        .collect();
    names.sort();
    for name in names {
        let Ok(map) = read_map(&out.join(&name)) else {
            continue; // whole_files reports it
        };
        let depth_like = name.starts_with("depth_") || name.starts_with("max_depth.");
        if depth_like {
            if let Some(v) = map.data().find(|&v| !(v >= 0.0 && v <= b.depth())) {
                failures.push(format!("{name} holds a depth of {v} m; the forcing and initial water reach {:.6} m at most", b.depth()));
            }
        }
        if let (true, Some(level)) = (name.starts_with("level_"), b.level()) {
            if let Some(v) = map.data().find(|&v| v.is_nan() || v > level) {
                failures.push(format!("{name} holds a level of {v} m; the stages and initial water stand at {level:.6} m at most"));
            }
        }
        if let Some(t) = label_time(&name, "depth_") {
            if last.as_ref().is_none_or(|l| t > l.0) {
                last = Some((t, name.clone()));
            }
        }
    }
    if let Some((_, name)) = last {
        let map = read_map(&out.join(&name)).ok();
        if let Some(map) = map {
            let stored: f64 = map.data().sum::<f64>() * map.cellsize * map.cellsize;
            if !close(stored, final_storage, 1e-6, 1e-9) {
                failures.push(format!(
                    "{name} holds {stored} m³; summary.json says {final_storage}"
                ));
            }
        }
    }
    failures
}
