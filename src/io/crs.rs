//! Coordinate reference systems of the inputs: the `.prj` beside an ESRI ASCII grid, and
//! the rule every raster's CRS must meet. quadflood works in metres on a plane, so a CRS in
//! degrees (geographic) or in feet would silently scale the whole model; each is refused,
//! naming the file and what was expected. Maps in ESRI ASCII get the model's CRS as a
//! `.prj` beside them, as GIS tools expect.

use crate::error::InputError;
use std::path::{Path, PathBuf};

/// What every raster's CRS must be.
pub const EXPECTED: &str =
    "a projected CRS in metres (e.g. UTM: reproject with gdalwarp -t_srs EPSG:<zone>)";

/// The `.prj` beside `raster` (same stem), if there is one.
pub fn prj_beside(raster: &Path) -> Option<PathBuf> {
    ["prj", "PRJ"]
        .into_iter()
        .map(|e| raster.with_extension(e))
        .find(|p| p.exists())
}

/// The CRS (as WKT) of the `.prj` beside `raster`, with the file it came from; None when
/// there is no `.prj`. Not yet checked against [`require_projected_metres`].
pub fn read_prj(raster: &Path) -> Result<Option<(PathBuf, String)>, InputError> {
    let Some(prj) = prj_beside(raster) else {
        return Ok(None);
    };
    let text = crate::io::bounded::read_text(
        &prj,
        crate::io::bounded::MAX_PRJ_BYTES,
        "a CRS in WKT is a few kilobytes",
    )?;
    let wkt = parse(&text).ok_or_else(|| {
        InputError::new(format!(
            "cannot read it as a CRS (ESRI or OGC WKT); expected {EXPECTED}"
        ))
        .in_file(&prj)
    })?;
    Ok(Some((prj, wkt)))
}

/// The CRS of a `.prj`'s text as OGC WKT.
#[cfg(feature = "gdal")]
fn parse(text: &str) -> Option<String> {
    use gdal::spatial_ref::SpatialRef;
    let text = text.trim();
    SpatialRef::from_esri(text)
        .or_else(|_| SpatialRef::from_wkt(text))
        .ok()?
        .to_wkt()
        .ok()
        .filter(|w| !w.is_empty())
}

#[cfg(not(feature = "gdal"))]
fn parse(text: &str) -> Option<String> {
    let text = text.trim();
    ["PROJCS[", "GEOGCS[", "PROJCRS[", "GEOGCRS[", "GEODCRS["]
        .iter()
        .any(|k| text.starts_with(k))
        .then(|| text.to_string())
}

/// Refuses a CRS that is not projected in metres; `file` is where it was read.
pub fn require_projected_metres(wkt: &str, file: &Path) -> Result<(), InputError> {
    match why_not_projected_metres(wkt) {
        Some(why) => Err(InputError::new(format!("{why}; expected {EXPECTED}")).in_file(file)),
        None => Ok(()),
    }
}

#[cfg(feature = "gdal")]
fn why_not_projected_metres(wkt: &str) -> Option<String> {
    let srs = match gdal::spatial_ref::SpatialRef::from_wkt(wkt) {
        Ok(srs) => srs,
        Err(e) => return Some(format!("its CRS cannot be read: {e}")),
    };
    let name = srs.name().unwrap_or_default();
    if srs.is_geographic() {
        return Some(format!("its CRS ({name}) is geographic (degrees)"));
    }
    if !srs.is_projected() {
        return Some(format!("its CRS ({name}) is not a projected one"));
    }
    let metres = srs.linear_units();
    if (metres - 1.0).abs() > 1e-9 {
        let unit = srs
            .linear_units_name()
            .unwrap_or_else(|| "an unknown unit".into());
        return Some(format!(
            "its CRS ({name}) measures in {unit} ({metres} m), not metres"
        ));
    }
    None
}

#[cfg(not(feature = "gdal"))]
fn why_not_projected_metres(wkt: &str) -> Option<String> {
    if wkt.starts_with("GEOG") || wkt.starts_with("GEOD") {
        return Some("its CRS is geographic (degrees)".into());
    }
    // The projected system's own unit is the last UNIT[name, factor] of its WKT.
    let unit = &wkt[wkt.rfind("UNIT[")? + 5..];
    let mut parts = unit.split([',', ']']);
    let name = parts.next()?.trim().trim_matches('"').to_string();
    let factor: f64 = parts.next()?.trim().parse().ok()?;
    ((factor - 1.0).abs() > 1e-9)
        .then(|| format!("its CRS measures in {name} ({factor} m), not metres"))
}

/// Writes the model's CRS beside an ESRI ASCII map (`depth.asc` -> `depth.prj`), as ESRI
/// WKT where GDAL can say it so; whole or not at all (`io::durable`).
pub fn write_prj(map: &Path, wkt: &str) -> std::io::Result<PathBuf> {
    let path = map.with_extension("prj");
    crate::io::durable::write_bytes(&path, esri(wkt).as_bytes())?;
    Ok(path)
}

#[cfg(feature = "gdal")]
fn esri(wkt: &str) -> String {
    gdal::spatial_ref::SpatialRef::from_wkt(wkt)
        .and_then(|srs| {
            srs.morph_to_esri()?;
            srs.to_wkt()
        })
        .unwrap_or_else(|_| wkt.to_string())
}

#[cfg(not(feature = "gdal"))]
fn esri(wkt: &str) -> String {
    wkt.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const UTM11: &str = r#"PROJCS["WGS_1984_UTM_Zone_11N",GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",-117.0],PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]"#;

    #[test]
    fn a_prj_round_trips_and_is_checked() {
        let dir = tempfile::tempdir().unwrap();
        let asc = dir.path().join("dem.asc");
        assert!(read_prj(&asc).unwrap().is_none());
        std::fs::write(dir.path().join("dem.prj"), UTM11).unwrap();
        let (from, wkt) = read_prj(&asc).unwrap().expect("a CRS");
        assert!(from.ends_with("dem.prj"));
        require_projected_metres(&wkt, &from).unwrap();
        let map = dir.path().join("depth.asc");
        let written = write_prj(&map, &wkt).unwrap();
        let (_, back) = read_prj(&map).unwrap().expect("the written CRS");
        assert!(written.ends_with("depth.prj"));
        assert!(crate::io::georaster::same_crs(&wkt, &back), "{wkt}\n{back}");
        #[cfg(feature = "gdal")]
        {
            // The same system as GDAL states it from a GeoTIFF's EPSG code.
            let epsg = gdal::spatial_ref::SpatialRef::from_epsg(32611)
                .unwrap()
                .to_wkt()
                .unwrap();
            assert!(crate::io::georaster::same_crs(&wkt, &epsg), "{wkt}\n{epsg}");
        }
        let feet = UTM11.replace(
            r#"UNIT["Meter",1.0]]"#,
            r#"UNIT["Foot_US",0.3048006096012192]]"#,
        );
        let e = require_projected_metres(&parse(&feet).unwrap(), &from).unwrap_err();
        assert!(e.to_string().contains("not metres"), "{e}");
    }
}
