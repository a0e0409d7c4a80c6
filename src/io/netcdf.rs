//! The whole event in one file: a CF-1.8 NetCDF-4 (`event.nc`) holding the depth, water
//! level and velocity of every output time on the finest grid, with x and y in the
//! terrain's CRS (its grid mapping), `time` in seconds since the scenario's reference, and
//! each variable's units. It opens in xarray and in QGIS as a time series.
//!
//! Written through GDAL's multidimensional API (the netCDF driver), once the run's last
//! maps are written, from those maps: a restarted run's file holds the output times of
//! the run before the restart too. Under a temporary name until GDAL reports success.

use crate::io::georaster;
use crate::io::georaster::c_string as c;
use crate::io::names::TimeLabels;
use crate::scenario::model::Model;
use gdal_sys as g;
use std::ffi::{c_void, CString};
use std::path::{Path, PathBuf};
use std::ptr::null_mut;

pub const EVENT_FILE: &str = "event.nc";

/// The maps an output time contributes, as (map prefix, variable, long name, units,
/// CF standard name).
const VARIABLES: [(&str, &str, &str, &str, Option<&str>); 4] = [
    ("depth", "depth", "water depth", "m", None),
    (
        "level",
        "level",
        "water surface elevation (the terrain's vertical datum)",
        "m",
        Some("water_surface_height_above_reference_datum"),
    ),
    ("u", "u", "eastward velocity", "m s-1", None),
    ("v", "v", "northward velocity", "m s-1", None),
];

const FILL: f64 = crate::io::outputs::NODATA;

/// Whether this GDAL writes NetCDF.
pub fn available() -> bool {
    gdal::DriverManager::get_driver_by_name("netCDF").is_ok()
}

/// The maps output time `t` contributes.
fn maps_of(dir: &Path, model: &Model, labels: &TimeLabels, t: f64) -> [PathBuf; 4] {
    let ext = model.raster_format.extension();
    VARIABLES.map(|(prefix, ..)| dir.join(format!("{prefix}_{}.{ext}", labels.label(t))))
}

/// The first map of `times` missing from `dir`, if any.
pub fn missing_map(
    dir: &Path,
    model: &Model,
    times: &[f64],
    labels: &TimeLabels,
) -> Option<PathBuf> {
    times
        .iter()
        .flat_map(|&t| maps_of(dir, model, labels, t))
        .find(|p| !p.exists())
}

/// Writes `dir/event.nc` from the maps of the output times `times` in `dir`.
pub fn write_event(
    dir: &Path,
    model: &Model,
    times: &[f64],
    labels: &TimeLabels,
) -> std::io::Result<PathBuf> {
    let path = dir.join(EVENT_FILE);
    if let Some(missing) = missing_map(dir, model, times, labels) {
        return Err(std::io::Error::other(format!(
            "{}: cannot write {EVENT_FILE}: an output time's map is missing",
            missing.display()
        )));
    }
    room_for(dir, model, times)?;
    crate::io::durable::replace(&path, |tmp| {
        let file = EventFile::create(tmp, model, times)?;
        for (k, &t) in times.iter().enumerate() {
            for (var, map) in file.variables.iter().zip(maps_of(dir, model, labels, t)) {
                let raster = georaster::read(&map)
                    .map_err(|e| std::io::Error::other(e.to_string()))?
                    .raster;
                // The maps' nodata is the file's fill value (both `outputs::NODATA`).
                let values: Vec<f32> = raster.data.iter().map(|&v| v as f32).collect();
                file.write_slice(*var, k, model, &values)?;
            }
        }
        file.close()
    })?;
    Ok(path)
}

/// Refuses, before any byte is written, a file that might not fit: the HDF5 library under
/// NetCDF-4 leaves the process to crash at exit when a write fails on a full disk, so the
/// file is written only where it fits uncompressed (its largest size).
pub fn room_for(dir: &Path, model: &Model, times: &[f64]) -> std::io::Result<()> {
    let cells = (model.nx() * model.ny()) as u64;
    let data = 4 * VARIABLES.len() as u64 * cells * times.len() as u64;
    // DEFLATE can grow chunks that do not compress by a little; headers and coordinates.
    let largest = data + data / 100 + (1 << 20);
    let room = free_bytes(dir).min(file_size_limit());
    if largest <= room {
        return Ok(());
    }
    Err(std::io::Error::other(format!(
        "{}: not written: it may take up to {} and the disk (or the file-size limit) leaves {}; free some space, or set output.netcdf = false",
        dir.join(EVENT_FILE).display(),
        size(largest),
        size(room)
    )))
}

fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 => format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b => format!("{:.1} KiB", b as f64 / 1024.0),
    }
}

#[cfg(unix)]
fn free_bytes(dir: &Path) -> u64 {
    let name = c(&dir.to_string_lossy());
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    match unsafe { libc::statvfs(name.as_ptr(), &mut s) } {
        0 => s.f_bavail as u64 * s.f_frsize as u64,
        _ => u64::MAX,
    }
}

#[cfg(unix)]
fn file_size_limit() -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    match unsafe { libc::getrlimit(libc::RLIMIT_FSIZE, &mut limit) } {
        0 if limit.rlim_cur != libc::RLIM_INFINITY => limit.rlim_cur,
        _ => u64::MAX,
    }
}

#[cfg(not(unix))]
fn free_bytes(_: &Path) -> u64 {
    u64::MAX
}

#[cfg(not(unix))]
fn file_size_limit() -> u64 {
    u64::MAX
}

/// The time coordinate's units: seconds since the scenario's `time.reference` (UTC); CF
/// wants a reference date, so without one the scenario's clock is counted from 1970-01-01,
/// which the file's `comment` says.
fn time_units(model: &Model) -> String {
    model.time_reference.map_or_else(
        || "seconds since 1970-01-01 00:00:00".into(),
        |r| r.cf_units(),
    )
}

/// The global `comment`: what the times count from.
fn time_comment(model: &Model) -> String {
    match model.time_reference {
        Some(r) => format!("times are seconds of the scenario's clock, whose t = 0 is its time.reference, {}", r.iso()),
        None => "times are seconds of the scenario's clock; the scenario gives no reference date, so they count from 1970-01-01".into(),
    }
}

/// An open NetCDF being written, and every GDAL handle it holds (released on close).
struct EventFile {
    dataset: g::GDALDatasetH,
    root: g::GDALGroupH,
    dims: Vec<g::GDALDimensionH>,
    arrays: Vec<g::GDALMDArrayH>,
    variables: Vec<g::GDALMDArrayH>,
    path: PathBuf,
}

impl EventFile {
    fn create(path: &Path, model: &Model, times: &[f64]) -> std::io::Result<EventFile> {
        unsafe { g::CPLErrorReset() };
        let fail = |what: &str| failure(path, what);
        let driver = gdal::DriverManager::get_driver_by_name("netCDF")
            .map_err(|_| fail("GDAL has no netCDF driver"))?;
        let driver = unsafe { driver.c_driver() };
        let options = StringList::new(&["FORMAT=NC4"]);
        let name = c(&path.to_string_lossy());
        let dataset = unsafe {
            g::GDALCreateMultiDimensional(driver, name.as_ptr(), null_mut(), options.as_ptr())
        };
        if dataset.is_null() {
            return Err(fail("cannot create the file"));
        }
        let root = unsafe { g::GDALDatasetGetRootGroup(dataset) };
        let mut file = EventFile {
            dataset,
            root,
            dims: Vec::new(),
            arrays: Vec::new(),
            variables: Vec::new(),
            path: path.to_path_buf(),
        };
        if root.is_null() {
            return Err(fail("no root group"));
        }
        file.describe(model)?;
        let (nx, ny, nt) = (model.nx(), model.ny(), times.len());
        let time = file.dimension("time", "TEMPORAL", nt)?;
        let y = file.dimension("y", "HORIZONTAL_Y", ny)?;
        let x = file.dimension("x", "HORIZONTAL_X", nx)?;
        let centres = |origin: f64, n: usize| -> Vec<f64> {
            (0..n)
                .map(|k| origin + (k as f64 + 0.5) * model.cell_size)
                .collect()
        };
        file.coordinate(
            x,
            "x",
            &centres(model.origin.0, nx),
            &[
                ("standard_name", "projection_x_coordinate"),
                ("long_name", "x coordinate of projection"),
                ("units", "m"),
                ("axis", "X"),
            ],
        )?;
        file.coordinate(
            y,
            "y",
            &centres(model.origin.1, ny),
            &[
                ("standard_name", "projection_y_coordinate"),
                ("long_name", "y coordinate of projection"),
                ("units", "m"),
                ("axis", "Y"),
            ],
        )?;
        // The file's own times: a restarted run's model holds only the times after its
        // restart, and its file held the earlier maps under them (a hunt: [200, fill]
        // where [100, 200] was right).
        file.coordinate(
            time,
            "time",
            times,
            &[
                ("standard_name", "time"),
                ("long_name", "model time"),
                ("units", time_units(model).as_str()),
                ("calendar", "proleptic_gregorian"),
                ("axis", "T"),
            ],
        )?;
        let block = format!("BLOCKSIZE=1,{},{}", ny.min(512), nx.min(512));
        for (_, name, long_name, units, standard) in VARIABLES {
            let var = file.array(
                name,
                &[time, y, x],
                g::GDALDataType::GDT_Float32,
                &["COMPRESS=DEFLATE", &block],
            )?;
            let mut attributes = vec![("long_name", long_name), ("units", units)];
            attributes.extend(standard.map(|s| ("standard_name", s)));
            for (key, value) in attributes {
                file.array_attribute(var, key, value)?;
            }
            unsafe {
                g::GDALMDArraySetNoDataValueAsDouble(var, FILL);
            }
            if let Some(wkt) = &model.crs {
                file.set_crs(var, wkt)?;
            }
            file.variables.push(var);
        }
        file.check()?;
        Ok(file)
    }

    /// The file's global attributes: CF-1.8, what made it and when.
    fn describe(&mut self, model: &Model) -> std::io::Result<()> {
        let source = format!(
            "quadflood {} (commit {})",
            crate::provenance::VERSION,
            crate::provenance::COMMIT
        );
        let comment = time_comment(model);
        for (key, value) in [
            ("Conventions", "CF-1.8"),
            ("title", model.name.as_str()),
            ("source", source.as_str()),
            ("comment", comment.as_str()),
        ] {
            let attr = unsafe {
                let t = g::GDALExtendedDataTypeCreateString(0);
                let a = g::GDALGroupCreateAttribute(
                    self.root,
                    c(key).as_ptr(),
                    0,
                    std::ptr::null(),
                    t,
                    null_mut(),
                );
                g::GDALExtendedDataTypeRelease(t);
                a
            };
            write_string(attr, value).map_err(|w| failure(&self.path, &format!("{key}: {w}")))?;
        }
        Ok(())
    }

    fn dimension(
        &mut self,
        name: &str,
        kind: &str,
        size: usize,
    ) -> std::io::Result<g::GDALDimensionH> {
        let dim = unsafe {
            g::GDALGroupCreateDimension(
                self.root,
                c(name).as_ptr(),
                c(kind).as_ptr(),
                std::ptr::null(),
                size as u64,
                null_mut(),
            )
        };
        if dim.is_null() {
            return Err(failure(&self.path, &format!("dimension {name}")));
        }
        self.dims.push(dim);
        Ok(dim)
    }

    fn array(
        &mut self,
        name: &str,
        dims: &[g::GDALDimensionH],
        kind: g::GDALDataType::Type,
        options: &[&str],
    ) -> std::io::Result<g::GDALMDArrayH> {
        let options = StringList::new(options);
        let mut dims = dims.to_vec();
        let array = unsafe {
            let t = g::GDALExtendedDataTypeCreate(kind);
            let a = g::GDALGroupCreateMDArray(
                self.root,
                c(name).as_ptr(),
                dims.len(),
                dims.as_mut_ptr(),
                t,
                options.as_ptr(),
            );
            g::GDALExtendedDataTypeRelease(t);
            a
        };
        if array.is_null() {
            return Err(failure(&self.path, &format!("variable {name}")));
        }
        self.arrays.push(array);
        Ok(array)
    }

    /// A coordinate variable of `dim`, its values and attributes.
    fn coordinate(
        &mut self,
        dim: g::GDALDimensionH,
        name: &str,
        values: &[f64],
        attributes: &[(&str, &str)],
    ) -> std::io::Result<()> {
        let var = self.array(name, &[dim], g::GDALDataType::GDT_Float64, &[])?;
        for (key, value) in attributes {
            self.array_attribute(var, key, value)?;
        }
        // (A variable named as its dimension is its coordinate in NetCDF: GDAL's driver
        // needs no SetIndexingVariable, and has none.)
        let ok = write_block(
            var,
            &[0],
            &[values.len()],
            g::GDALDataType::GDT_Float64,
            values,
        );
        match ok {
            true => Ok(()),
            false => Err(failure(&self.path, &format!("coordinate {name}"))),
        }
    }

    fn array_attribute(&self, var: g::GDALMDArrayH, key: &str, value: &str) -> std::io::Result<()> {
        let attr = unsafe {
            let t = g::GDALExtendedDataTypeCreateString(0);
            let a = g::GDALMDArrayCreateAttribute(
                var,
                c(key).as_ptr(),
                0,
                std::ptr::null(),
                t,
                null_mut(),
            );
            g::GDALExtendedDataTypeRelease(t);
            a
        };
        write_string(attr, value).map_err(|w| failure(&self.path, &format!("attribute {key}: {w}")))
    }

    fn set_crs(&self, var: g::GDALMDArrayH, wkt: &str) -> std::io::Result<()> {
        let srs = gdal::spatial_ref::SpatialRef::from_wkt(wkt)
            .map_err(|e| failure(&self.path, &format!("CRS: {e}")))?;
        match unsafe { g::GDALMDArraySetSpatialRef(var, srs.to_c_hsrs()) } {
            0 => Err(failure(&self.path, "grid mapping")),
            _ => Ok(()),
        }
    }

    /// Output time `k` of `var`: finest-grid values, row 0 south (as y runs).
    fn write_slice(
        &self,
        var: g::GDALMDArrayH,
        k: usize,
        model: &Model,
        values: &[f32],
    ) -> std::io::Result<()> {
        let (nx, ny) = (model.nx(), model.ny());
        if values.len() != nx * ny {
            return Err(failure(
                &self.path,
                &format!("output time {k}: a map of another size"),
            ));
        }
        let ok = write_block(
            var,
            &[k as u64, 0, 0],
            &[1, ny, nx],
            g::GDALDataType::GDT_Float32,
            values,
        );
        match ok {
            false => Err(failure(&self.path, &format!("output time {k}"))),
            true => Ok(()),
        }
    }

    /// An error GDAL reported without failing a call.
    fn check(&self) -> std::io::Result<()> {
        match georaster::gdal_failure() {
            Some(m) => Err(std::io::Error::other(format!(
                "{}: GDAL: {m}",
                self.path.display()
            ))),
            None => Ok(()),
        }
    }

    /// Releases every handle and closes the file: the netCDF library writes its last
    /// blocks here, so a failure shows only now.
    fn close(mut self) -> std::io::Result<()> {
        self.release();
        self.check()
    }

    fn release(&mut self) {
        unsafe {
            // (The variables are among the arrays.)
            self.variables.clear();
            for a in self.arrays.drain(..) {
                g::GDALMDArrayRelease(a);
            }
            for d in self.dims.drain(..) {
                g::GDALDimensionRelease(d);
            }
            if !self.root.is_null() {
                g::GDALGroupRelease(self.root);
                self.root = null_mut();
            }
            if !self.dataset.is_null() {
                g::GDALClose(self.dataset);
                self.dataset = null_mut();
            }
        }
    }
}

impl Drop for EventFile {
    fn drop(&mut self) {
        self.release();
    }
}

/// Writes `values` (of GDAL type `kind`, `count` along each dimension from `start`) into
/// `var`; false where GDAL failed.
fn write_block<T>(
    var: g::GDALMDArrayH,
    start: &[u64],
    count: &[usize],
    kind: g::GDALDataType::Type,
    values: &[T],
) -> bool {
    debug_assert_eq!(count.iter().product::<usize>(), values.len());
    unsafe {
        let t = g::GDALExtendedDataTypeCreate(kind);
        let ok = g::GDALMDArrayWrite(
            var,
            start.as_ptr(),
            count.as_ptr(),
            std::ptr::null(),
            std::ptr::null(),
            t,
            values.as_ptr() as *const c_void,
            values.as_ptr() as *const c_void,
            std::mem::size_of_val(values),
        );
        g::GDALExtendedDataTypeRelease(t);
        ok != 0
    }
}

fn write_string(attr: g::GDALAttributeH, value: &str) -> Result<(), String> {
    if attr.is_null() {
        return Err("cannot create it".into());
    }
    let ok = unsafe {
        let ok = g::GDALAttributeWriteString(attr, c(value).as_ptr());
        g::GDALAttributeRelease(attr);
        ok
    };
    match ok {
        0 => Err("cannot write it".into()),
        _ => Ok(()),
    }
}

fn failure(path: &Path, what: &str) -> std::io::Error {
    let gdal = georaster::gdal_failure().map_or(String::new(), |m| format!(": GDAL: {m}"));
    std::io::Error::other(format!("{}: {what}{gdal}", path.display()))
}

/// A NULL-terminated list of C strings, as GDAL's options are.
struct StringList {
    _strings: Vec<CString>,
    pointers: Vec<*const std::ffi::c_char>,
}

impl StringList {
    fn new(items: &[&str]) -> StringList {
        let strings: Vec<CString> = items.iter().map(|s| c(s)).collect();
        let mut pointers: Vec<*const std::ffi::c_char> =
            strings.iter().map(|s| s.as_ptr()).collect();
        pointers.push(std::ptr::null());
        StringList {
            _strings: strings,
            pointers,
        }
    }

    fn as_ptr(&self) -> g::CSLConstList {
        self.pointers.as_ptr() as *mut *mut std::ffi::c_char
    }
}
