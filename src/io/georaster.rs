//! Rasters in any format GDAL reads (GeoTIFF, VRT mosaics, ...), with their coordinate
//! reference system, and GeoTIFF outputs. ESRI ASCII grids keep their own reader, which
//! names lines in its errors; everything else goes through GDAL (feature `gdal`).

use crate::error::InputError;
#[cfg(feature = "gdal")]
use crate::io::ascii_grid::GridHeader;
use crate::io::ascii_grid::{read_ascii_grid, Raster};
use crate::io::crs;
use std::path::{Path, PathBuf};

/// A raster and its coordinate reference system (WKT), when the file states one.
#[derive(Clone, Debug)]
pub struct GeoRaster {
    pub raster: Raster,
    pub crs: Option<String>,
}

fn is_ascii_grid(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("asc"))
}

/// Reads a raster: `.asc` with quadflood's reader (its CRS from the `.prj` beside it),
/// anything else with GDAL. A CRS it states must be projected in metres.
pub fn read(path: &Path) -> Result<GeoRaster, InputError> {
    let (g, crs_file) = read_as_stated(path)?;
    if let Some(wkt) = &g.crs {
        crs::require_projected_metres(wkt, &crs_file)?;
    }
    Ok(g)
}

/// A raster with the CRS it states, unchecked, and the file that states it.
fn read_as_stated(path: &Path) -> Result<(GeoRaster, PathBuf), InputError> {
    if !is_ascii_grid(path) {
        return Ok((read_gdal(path)?, path.to_path_buf()));
    }
    let raster = read_ascii_grid(path)?;
    Ok(match crs::read_prj(path)? {
        Some((prj, wkt)) => (
            GeoRaster {
                raster,
                crs: Some(wkt),
            },
            prj,
        ),
        None => (GeoRaster { raster, crs: None }, path.to_path_buf()),
    })
}

/// Whether two CRSs (WKT) are the same system, whatever their spelling.
#[cfg(feature = "gdal")]
pub fn same_crs(a: &str, b: &str) -> bool {
    use gdal::spatial_ref::SpatialRef;
    match (SpatialRef::from_wkt(a), SpatialRef::from_wkt(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

#[cfg(not(feature = "gdal"))]
pub fn same_crs(a: &str, b: &str) -> bool {
    a == b
}

/// A CRS's short name, for messages.
#[cfg(feature = "gdal")]
pub fn crs_name(wkt: &str) -> String {
    gdal::spatial_ref::SpatialRef::from_wkt(wkt)
        .ok()
        .and_then(|s| s.name())
        .unwrap_or_else(|| wkt.chars().take(60).collect())
}

#[cfg(not(feature = "gdal"))]
pub fn crs_name(wkt: &str) -> String {
    wkt.chars().take(60).collect()
}

#[cfg(not(feature = "gdal"))]
fn read_gdal(path: &Path) -> Result<GeoRaster, InputError> {
    Err(InputError::new("this build reads ESRI ASCII grids (.asc) only; rebuild with the `gdal` feature for other formats")
        .in_file(path))
}

#[cfg(feature = "gdal")]
fn read_gdal(path: &Path) -> Result<GeoRaster, InputError> {
    let fail = |m: String| InputError::new(m).in_file(path);
    crate::io::bounded::gdal_input(path, u64::MAX, "")?;
    let ds = gdal::Dataset::open(path).map_err(|e| fail(format!("GDAL cannot open it: {e}")))?;
    let (ncols, nrows) = ds.raster_size();
    fits_in_memory(ncols, nrows, path)?;
    let gt = ds
        .geo_transform()
        .map_err(|e| fail(format!("no geotransform: {e}")))?;
    if gt[2] != 0.0 || gt[4] != 0.0 {
        return Err(fail("the raster is rotated (geotransform terms 2 and 4 are not 0); expected a north-up grid".into()));
    }
    if (gt[1] + gt[5]).abs() > 1e-9 * gt[1].abs() || gt[1] <= 0.0 {
        return Err(fail(format!(
            "expected square cells with north up, found pixel size {} x {}",
            gt[1], gt[5]
        )));
    }
    let crs = ds.spatial_ref().ok().and_then(|srs| srs.to_wkt().ok());
    let band = ds
        .rasterband(1)
        .map_err(|e| fail(format!("no band 1: {e}")))?;
    let nodata = band.no_data_value();
    let buffer = band
        .read_as::<f64>((0, 0), (ncols, nrows), (ncols, nrows), None)
        .map_err(|e| fail(format!("cannot read band 1: {e}")))?;
    let mut raster = Raster::new(
        ncols,
        nrows,
        gt[0],
        gt[3] + gt[5] * nrows as f64,
        gt[1],
        nodata,
        0.0,
    );
    fill_from_north(&mut raster, buffer.data());
    Ok(GeoRaster { raster, crs })
}

/// Refuses a raster whose cells would not fit in memory as read (GDAL's f64 buffer and
/// our copy of it): a header can claim any size.
#[cfg(feature = "gdal")]
fn fits_in_memory(ncols: usize, nrows: usize, path: &Path) -> Result<(), InputError> {
    let need = (ncols as u64)
        .saturating_mul(nrows as u64)
        .saturating_mul(16);
    match crate::scenario::limits::host_memory() {
        Some(have) if need > have => Err(InputError::new(format!(
            "its {ncols} x {nrows} cells take {:.1} GB of memory to read, and {:.1} GB is available: clip or coarsen it (gdalwarp -te, -tr)",
            need as f64 / 1e9,
            have as f64 / 1e9
        ))
        .in_file(path)),
        _ => Ok(()),
    }
}

/// Fills a raster (row 0 south) from GDAL's rows, which run from the north.
#[cfg(feature = "gdal")]
fn fill_from_north(raster: &mut Raster, data: &[f64]) {
    let (n, rows) = (raster.ncols, raster.nrows);
    for row in 0..rows {
        raster.data[row * n..(row + 1) * n]
            .copy_from_slice(&data[(rows - 1 - row) * n..(rows - row) * n]);
    }
}

/// A grid to resample onto: its CRS (WKT), south-west corner, cell size and cells.
#[derive(Clone, Debug)]
pub struct TargetGrid {
    pub crs: String,
    pub xll: f64,
    pub yll: f64,
    pub cellsize: f64,
    pub ncols: usize,
    pub nrows: usize,
}

/// Reads a raster and, when its CRS is not the target's (rain radar in degrees, say),
/// warps it onto the target grid (bilinear, GDAL's warper); nodata stays nodata.
#[cfg(feature = "gdal")]
pub fn read_onto(path: &Path, target: &TargetGrid) -> Result<GeoRaster, InputError> {
    use gdal::raster::{reproject, Buffer};
    use gdal::spatial_ref::SpatialRef;
    let fail = |m: String| InputError::new(m).in_file(path);
    let (stated, _) = read_as_stated(path)?;
    // No CRS: taken to be the terrain's, as for any raster.
    let Some(src_wkt) = &stated.crs else {
        return Ok(stated);
    };
    if same_crs(src_wkt, &target.crs) {
        return Ok(stated);
    }
    let target_crs = SpatialRef::from_wkt(&target.crs).map_err(|e| fail(e.to_string()))?;
    // GDAL reads an ESRI ASCII grid and the .prj beside it too.
    let src = gdal::Dataset::open(path).map_err(|e| fail(format!("GDAL cannot open it: {e}")))?;
    let io = |e: gdal::errors::GdalError| fail(format!("cannot warp it onto the model's CRS: {e}"));
    let driver = gdal::DriverManager::get_driver_by_name("MEM").map_err(io)?;
    let mut dst = driver
        .create_with_band_type::<f64, _>("", target.ncols, target.nrows, 1)
        .map_err(io)?;
    let top = target.yll + target.cellsize * target.nrows as f64;
    dst.set_geo_transform(&[target.xll, target.cellsize, 0.0, top, 0.0, -target.cellsize])
        .map_err(io)?;
    dst.set_spatial_ref(&target_crs).map_err(io)?;
    const NODATA: f64 = -9999.0;
    {
        let mut band = dst.rasterband(1).map_err(io)?;
        band.set_no_data_value(Some(NODATA)).map_err(io)?;
        let mut fill = Buffer::new(
            (target.ncols, target.nrows),
            vec![NODATA; target.ncols * target.nrows],
        );
        band.write((0, 0), (target.ncols, target.nrows), &mut fill)
            .map_err(io)?;
    }
    reproject(&src, &dst).map_err(io)?;
    let band = dst.rasterband(1).map_err(io)?;
    let data = band
        .read_as::<f64>(
            (0, 0),
            (target.ncols, target.nrows),
            (target.ncols, target.nrows),
            None,
        )
        .map_err(io)?;
    let mut raster = Raster::new(
        target.ncols,
        target.nrows,
        target.xll,
        target.yll,
        target.cellsize,
        Some(NODATA),
        NODATA,
    );
    fill_from_north(&mut raster, data.data());
    Ok(GeoRaster {
        raster,
        crs: Some(target.crs.clone()),
    })
}

#[cfg(not(feature = "gdal"))]
pub fn read_onto(path: &Path, _target: &TargetGrid) -> Result<GeoRaster, InputError> {
    read(path)
}

/// Writes a Float32 GeoTIFF, tiled and compressed, with the CRS and nodata value, whole or
/// not at all (`io::durable`).
#[cfg(feature = "gdal")]
pub fn write_geotiff(path: &Path, r: &Raster, crs: Option<&str>) -> std::io::Result<()> {
    crate::io::durable::replace(path, |tmp| {
        write_geotiff_values(tmp, &r.header(), |col, row| r.get(col, row), crs)
    })
}

/// `write_geotiff` of the values `value(col, row)` (row 0 south), to `path` itself: the
/// caller gives it a temporary name.
#[cfg(feature = "gdal")]
pub fn write_geotiff_values(
    path: &Path,
    r: &GridHeader,
    value: impl Fn(usize, usize) -> f64,
    crs: Option<&str>,
) -> std::io::Result<()> {
    let band = BandInfo {
        description: "",
        unit: "",
    };
    write_geotiff_bands(path, r, &[band], |_, col, row| value(col, row), crs)
}

/// What a band holds, for GIS tools (QGIS shows both in the layer's properties).
#[derive(Clone, Copy, Debug)]
pub struct BandInfo<'a> {
    pub description: &'a str,
    /// E.g. "m", "m/s"; empty for none.
    pub unit: &'a str,
}

/// A GeoTIFF of `bands.len()` bands, band k holding `value(k, col, row)` (row 0 south),
/// gathered straight into the f32 rows GDAL writes, to `path` itself: the caller gives it
/// a temporary name. Fails where GDAL failed, including in the writes it makes only when
/// the file is closed.
#[cfg(feature = "gdal")]
pub fn write_geotiff_bands(
    path: &Path,
    r: &GridHeader,
    bands: &[BandInfo],
    value: impl Fn(usize, usize, usize) -> f64,
    crs: Option<&str>,
) -> std::io::Result<()> {
    use gdal::raster::{Buffer, RasterCreationOptions};
    let io = |e: gdal::errors::GdalError| std::io::Error::other(format!("{}: {e}", path.display()));
    // GDAL's error state is per thread; closing a dataset returns no result before GDAL
    // 3.7, so a failed write of its last blocks shows only there.
    unsafe { gdal_sys::CPLErrorReset() };
    // The bands are assembled in memory, then copied out as a Cloud Optimized GeoTIFF:
    // tiles, then overviews (nearest neighbour, so no map shows a value the model did not
    // produce) placed before the full-resolution data, so that GIS tools draw a large map
    // zoomed out, or over HTTP, reading only what they show.
    let memory = gdal::DriverManager::get_driver_by_name("MEM").map_err(io)?;
    let mut ds = memory
        .create_with_band_type::<f32, _>("", r.ncols, r.nrows, bands.len())
        .map_err(io)?;
    let top = r.yll + r.cellsize * r.nrows as f64;
    ds.set_geo_transform(&[r.xll, r.cellsize, 0.0, top, 0.0, -r.cellsize])
        .map_err(io)?;
    if let Some(wkt) = crs {
        let srs = gdal::spatial_ref::SpatialRef::from_wkt(wkt).map_err(io)?;
        ds.set_spatial_ref(&srs).map_err(io)?;
    }
    for (k, info) in bands.iter().enumerate() {
        let mut band = ds.rasterband(k + 1).map_err(io)?;
        band.set_no_data_value(r.nodata).map_err(io)?;
        describe_band(&band, info);
        let mut rows = Vec::with_capacity(r.ncols * r.nrows);
        for row in (0..r.nrows).rev() {
            rows.extend((0..r.ncols).map(|col| value(k, col, row) as f32));
        }
        let mut buffer = Buffer::new((r.ncols, r.nrows), rows);
        band.write((0, 0), (r.ncols, r.nrows), &mut buffer)
            .map_err(io)?;
    }
    let cog = gdal::DriverManager::get_driver_by_name("COG").map_err(io)?;
    let options = RasterCreationOptions::from_iter([
        "COMPRESS=DEFLATE",
        "PREDICTOR=YES",
        "BLOCKSIZE=256",
        "OVERVIEWS=AUTO",
        "RESAMPLING=NEAREST",
    ]);
    let file = ds.create_copy(&cog, path, &options).map_err(io)?;
    file.close().map_err(io)?;
    gdal_failure().map_or(Ok(()), |m| {
        Err(std::io::Error::other(format!(
            "{}: GDAL: {m}",
            path.display()
        )))
    })
}

/// `s` for GDAL's C API (a NUL inside it, which C cannot hold, dropped).
#[cfg(feature = "gdal")]
pub(crate) fn c_string(s: &str) -> std::ffi::CString {
    std::ffi::CString::new(s.replace('\0', "")).unwrap_or_default()
}

/// The band's description and unit; a failure shows in GDAL's error state, which the
/// writer checks once the file is closed.
#[cfg(feature = "gdal")]
fn describe_band(band: &gdal::raster::RasterBand, info: &BandInfo) {
    let (description, unit) = (c_string(info.description), c_string(info.unit));
    unsafe {
        let h = band.c_rasterband();
        if !info.description.is_empty() {
            gdal_sys::GDALSetDescription(h.cast(), description.as_ptr());
        }
        if !info.unit.is_empty() {
            gdal_sys::GDALSetRasterUnitType(h, unit.as_ptr());
        }
    }
}

/// The message of the last failure GDAL reported on this thread, if any.
#[cfg(feature = "gdal")]
pub(crate) fn gdal_failure() -> Option<String> {
    let class = unsafe { gdal_sys::CPLGetLastErrorType() };
    if class < gdal_sys::CPLErr::CE_Failure {
        return None;
    }
    let message = unsafe { std::ffi::CStr::from_ptr(gdal_sys::CPLGetLastErrorMsg()) };
    Some(message.to_string_lossy().into_owned())
}

#[cfg(all(test, feature = "gdal"))]
mod tests {
    use super::*;

    #[test]
    fn geotiff_round_trip_keeps_crs_orientation_and_nodata() {
        let dir = tempfile::tempdir().unwrap();
        let mut r = Raster::new(3, 2, 500000.0, 4000000.0, 10.0, Some(-9999.0), 0.0);
        for (k, v) in r.data.iter_mut().enumerate() {
            *v = k as f64;
        }
        r.data[5] = -9999.0;
        let wkt = gdal::spatial_ref::SpatialRef::from_epsg(26911)
            .unwrap()
            .to_wkt()
            .unwrap();
        let path = dir.path().join("a.tif");
        write_geotiff(&path, &r, Some(&wkt)).unwrap();
        let back = read(&path).unwrap();
        assert_eq!(back.raster.data, r.data, "row 0 stays the southern row");
        assert_eq!(
            (back.raster.xll, back.raster.yll, back.raster.cellsize),
            (500000.0, 4000000.0, 10.0)
        );
        assert_eq!(back.raster.nodata, Some(-9999.0));
        assert!(back.crs.unwrap().contains("UTM zone 11N"));
    }

    #[test]
    fn bands_keep_their_values_descriptions_and_units() {
        let dir = tempfile::tempdir().unwrap();
        let header = GridHeader {
            ncols: 3,
            nrows: 2,
            xll: 0.0,
            yll: 0.0,
            cellsize: 5.0,
            nodata: Some(-9999.0),
        };
        let bands = [
            BandInfo {
                description: "eastward velocity",
                unit: "m/s",
            },
            BandInfo {
                description: "northward velocity",
                unit: "m/s",
            },
        ];
        let path = dir.path().join("uv.tif");
        let value = |k: usize, col: usize, row: usize| (100 * k + 10 * row + col) as f64;
        write_geotiff_bands(&path, &header, &bands, value, None).unwrap();
        let ds = gdal::Dataset::open(&path).unwrap();
        assert_eq!(ds.raster_count(), 2);
        for (k, info) in bands.iter().enumerate() {
            let band = ds.rasterband(k + 1).unwrap();
            use gdal::Metadata;
            assert_eq!(band.description().unwrap(), info.description);
            assert_eq!(band.unit(), info.unit);
            let data = band.read_band_as::<f32>().unwrap();
            // Row 0 of the file is the northern row (row 1 here).
            let north_west = data.data()[0];
            assert_eq!(north_west, value(k, 0, 1) as f32);
        }
    }

    #[test]
    fn large_maps_are_cloud_optimized_with_overviews_down_to_256_pixels() {
        let dir = tempfile::tempdir().unwrap();
        let mut r = Raster::new(600, 300, 0.0, 0.0, 1.0, Some(-9999.0), 0.0);
        for (k, v) in r.data.iter_mut().enumerate() {
            *v = (k % 7) as f64;
        }
        let path = dir.path().join("big.tif");
        write_geotiff(&path, &r, None).unwrap();
        let ds = gdal::Dataset::open(&path).unwrap();
        use gdal::Metadata;
        assert_eq!(
            ds.metadata_item("LAYOUT", "IMAGE_STRUCTURE").as_deref(),
            Some("COG")
        );
        let band = ds.rasterband(1).unwrap();
        // 600 -> 300 -> 150: halved until within one 256-pixel tile.
        assert_eq!(band.overview_count().unwrap(), 2);
        // Nearest neighbour: the overview holds only values of the map.
        let ov = band.overview(0).unwrap();
        let data = ov.read_band_as::<f32>().unwrap();
        assert!(data
            .data()
            .iter()
            .all(|&v| v.fract() == 0.0 && (0.0..7.0).contains(&v)));
        assert_eq!(read(&path).unwrap().raster.data, r.data);
    }

    #[test]
    fn geographic_crs_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let r = Raster::new(2, 2, -120.0, 39.0, 0.001, None, 1.0);
        let wkt = gdal::spatial_ref::SpatialRef::from_epsg(4326)
            .unwrap()
            .to_wkt()
            .unwrap();
        let path = dir.path().join("geo.tif");
        write_geotiff(&path, &r, Some(&wkt)).unwrap();
        let e = read(&path).unwrap_err().to_string();
        assert!(e.contains("geo.tif") && e.contains("geographic"), "{e}");
    }
}
