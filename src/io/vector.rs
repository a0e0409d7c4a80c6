//! Lines and polygons from vector files GDAL/OGR reads (GeoJSON, Shapefile, GeoPackage,
//! ...), so that breach lines, source areas and cross-sections drawn in a GIS need not be
//! typed into the scenario as coordinates.

use crate::error::InputError;
use std::path::Path;

/// The geometry a scenario key expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Want {
    Line,
    Polygon,
}

impl Want {
    #[cfg_attr(not(feature = "gdal"), allow(dead_code))]
    fn name(self) -> &'static str {
        match self {
            Want::Line => "a line",
            Want::Polygon => "a polygon",
        }
    }
}

/// One feature's vertices (a polygon's outer ring) and the layer's CRS (WKT), if stated.
#[derive(Clone, Debug)]
pub struct Shape {
    pub points: Vec<[f64; 2]>,
    pub crs: Option<String>,
}

/// Reads the feature whose `name` attribute is `feature`, or the file's only feature.
#[cfg(feature = "gdal")]
pub fn read(path: &Path, feature: Option<&str>, want: Want) -> Result<Shape, InputError> {
    use gdal::vector::LayerAccess;
    let fail = |m: String| InputError::new(m).in_file(path);
    crate::io::bounded::gdal_input(
        path,
        crate::io::bounded::MAX_VECTOR_BYTES,
        "the most a vector file of lines and polygons may hold",
    )?;
    let ds =
        gdal::Dataset::open(path).map_err(|e| fail(format!("cannot open the vector file: {e}")))?;
    let mut found = Vec::new();
    let mut names = Vec::new();
    for mut layer in ds.layers() {
        let crs = layer.spatial_ref().and_then(|s| s.to_wkt().ok());
        for f in layer.features() {
            let name = f
                .field_index("name")
                .ok()
                .and_then(|i| f.field_as_string(i).ok().flatten());
            names.push(name.clone().unwrap_or_else(|| "(unnamed)".into()));
            if feature.is_none() || feature == name.as_deref() {
                let points = match f.geometry() {
                    Some(g) => vertices(g, want),
                    None => Err("the feature has no geometry".into()),
                };
                found.push(points.map(|points| Shape {
                    points,
                    crs: crs.clone(),
                }));
            }
        }
    }
    match (found.len(), feature) {
        (1, _) => found.pop().expect("one feature").map_err(fail),
        (0, Some(wanted)) => Err(fail(format!(
            "no feature has name = {wanted:?}; the file has {}",
            names.join(", ")
        ))),
        (0, None) => Err(fail("the file has no features".into())),
        (n, _) => Err(fail(format!(
            "{n} features match; name one with `feature` (their names: {})",
            names.join(", ")
        ))),
    }
}

#[cfg(feature = "gdal")]
fn vertices(g: &gdal::vector::Geometry, want: Want) -> Result<Vec<[f64; 2]>, String> {
    use gdal::vector::geometry_type_flatten;
    use gdal::vector::OGRwkbGeometryType as T;
    let ty = geometry_type_flatten(g.geometry_type());
    let ring = match (want, ty) {
        (Want::Line, T::wkbLineString) => points_of(g),
        (Want::Polygon, T::wkbPolygon) => {
            if g.geometry_count() > 1 {
                return Err(
                    "the polygon has holes; quadflood takes its outer ring only, so remove them"
                        .into(),
                );
            }
            points_of(&g.get_geometry(0))
        }
        _ => {
            return Err(format!(
                "expected {}, found a {}",
                want.name(),
                g.geometry_name()
            ))
        }
    };
    Ok(ring)
}

#[cfg(feature = "gdal")]
fn points_of(g: &gdal::vector::Geometry) -> Vec<[f64; 2]> {
    let mut points = Vec::new();
    g.get_points(&mut points);
    points.into_iter().map(|(x, y, _)| [x, y]).collect()
}

#[cfg(not(feature = "gdal"))]
pub fn read(path: &Path, _feature: Option<&str>, _want: Want) -> Result<Shape, InputError> {
    Err(InputError::new(
        "vector files need GDAL: build quadflood with the `gdal` feature (the default)",
    )
    .in_file(path))
}
