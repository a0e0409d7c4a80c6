//! Lines and polygons from vector files: a source line, a source polygon and a
//! cross-section read from GeoJSON put water and sample discharge in exactly the cells the
//! same coordinates written in the scenario do; a wrong geometry, a missing feature or
//! another CRS is refused with exit code 2, naming the file and the key.
#![cfg(feature = "gdal")]

use std::path::Path;

const SCENARIO: &str = r#"
[domain]
cell_size = 2.0
nx = 64
ny = 48
origin = [500000.0, 4000000.0]

[terrain]
type = "flat"
elevation = 0.0

[[source]]
line = LINE
discharge = 1.0

[[source]]
polygon = POLYGON
discharge = 2.0

[[cross_section]]
name = "across"
line = SECTION

[time]
end = 10.0
"#;

const GEOJSON: &str = r#"{
  "type": "FeatureCollection",
  "crs": { "type": "name", "properties": { "name": "urn:ogc:def:crs:EPSG::32611" } },
  "features": [
    { "type": "Feature", "properties": { "name": "breach" },
      "geometry": { "type": "LineString", "coordinates": [[500010.0, 4000020.0], [500050.0, 4000060.0]] } },
    { "type": "Feature", "properties": { "name": "pond" },
      "geometry": { "type": "Polygon", "coordinates": [[[500070.0, 4000010.0], [500110.0, 4000010.0], [500090.0, 4000050.0], [500070.0, 4000010.0]]] } },
    { "type": "Feature", "properties": { "name": "across" },
      "geometry": { "type": "LineString", "coordinates": [[500064.0, 4000001.0], [500064.0, 4000090.0]] } }
  ]
}"#;

fn write(dir: &Path, name: &str, line: &str, polygon: &str, section: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    let text = SCENARIO
        .replace("LINE", line)
        .replace("POLYGON", polygon)
        .replace("SECTION", section);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn vector_features_cover_the_same_cells_as_written_coordinates() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("features.geojson"), GEOJSON).unwrap();
    let inline = write(
        dir.path(),
        "inline.toml",
        "[[500010.0, 4000020.0], [500050.0, 4000060.0]]",
        "[[500070.0, 4000010.0], [500110.0, 4000010.0], [500090.0, 4000050.0], [500070.0, 4000010.0]]",
        "[[500064.0, 4000001.0], [500064.0, 4000090.0]]",
    );
    let from_file = write(
        dir.path(),
        "vector.toml",
        r#"{ vector = "features.geojson", feature = "breach" }"#,
        r#"{ vector = "features.geojson", feature = "pond" }"#,
        r#"{ vector = "features.geojson", feature = "across" }"#,
    );
    let a = quadflood::scenario::load(&inline).unwrap_or_else(|e| panic!("{e}"));
    let b = quadflood::scenario::load(&from_file).unwrap_or_else(|e| panic!("{e}"));
    assert!(a.sources.len() > 20, "{} source cells", a.sources.len());
    assert_eq!(format!("{:?}", a.sources), format!("{:?}", b.sources));
    assert_eq!(format!("{:?}", a.sections), format!("{:?}", b.sections));
}

fn check(path: &Path) -> (i32, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_quadflood"))
        .args(["check", path.to_str().unwrap()])
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn bad_vector_inputs_are_refused_with_the_file_and_key() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("features.geojson"), GEOJSON).unwrap();
    let degrees = GEOJSON.replace("EPSG::32611", "EPSG::4326");
    std::fs::write(dir.path().join("degrees.geojson"), degrees).unwrap();
    let line = "[[500010.0, 4000020.0], [500050.0, 4000060.0]]";
    let polygon = "[[500070.0, 4000010.0], [500110.0, 4000010.0], [500090.0, 4000050.0]]";
    let cases = [
        (
            r#"{ vector = "features.geojson", feature = "pond" }"#,
            polygon,
            vec![
                "features.geojson",
                "source[0].line",
                "expected a line, found a POLYGON",
            ],
        ),
        (
            r#"{ vector = "features.geojson", feature = "dam" }"#,
            polygon,
            vec![
                "source[0].line",
                "no feature has name = \"dam\"",
                "breach, pond, across",
            ],
        ),
        (
            r#"{ vector = "features.geojson" }"#,
            polygon,
            vec!["source[0].line", "3 features match"],
        ),
        (
            r#"{ vector = "missing.geojson" }"#,
            polygon,
            vec!["missing.geojson", "No such file or directory"],
        ),
        (
            line,
            r#"{ vector = "features.geojson", feature = "breach" }"#,
            vec![
                "source[1].polygon",
                "expected a polygon, found a LINESTRING",
            ],
        ),
        (
            r#"{ file = "features.geojson" }"#,
            polygon,
            vec!["line 22", "a list of [x, y] points, or { vector"],
        ),
    ];
    for (k, (line, polygon, wanted)) in cases.iter().enumerate() {
        let path = write(dir.path(), &format!("bad{k}.toml"), line, polygon, line);
        let (code, stderr) = check(&path);
        assert_eq!(code, 2, "case {k}: {stderr}");
        for w in wanted {
            assert!(stderr.contains(w), "case {k}: {w:?} not in {stderr}");
        }
    }
}

#[test]
fn a_vector_file_in_another_crs_than_the_terrain_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut dem = quadflood::io::ascii_grid::Raster::new(
        64,
        48,
        500000.0,
        4000000.0,
        2.0,
        Some(-9999.0),
        0.0,
    );
    dem.data.iter_mut().for_each(|v| *v = 1.0);
    let utm = gdal::spatial_ref::SpatialRef::from_epsg(32611).unwrap();
    quadflood::io::georaster::write_geotiff(
        &dir.path().join("dem.tif"),
        &dem,
        Some(&utm.to_wkt().unwrap()),
    )
    .unwrap();
    let degrees = GEOJSON.replace("EPSG::32611", "EPSG::4326");
    std::fs::write(dir.path().join("degrees.geojson"), degrees).unwrap();
    std::fs::write(dir.path().join("features.geojson"), GEOJSON).unwrap();
    let scenario = |vector: &str| {
        SCENARIO
            .replace(
                "type = \"flat\"\nelevation = 0.0",
                "type = \"raster\"\npath = \"dem.tif\"",
            )
            .replace(
                "[domain]\ncell_size = 2.0\nnx = 64\nny = 48\norigin = [500000.0, 4000000.0]\n",
                "",
            )
            .replace(
                "LINE",
                &format!("{{ vector = \"{vector}\", feature = \"breach\" }}"),
            )
            .replace(
                "POLYGON",
                "[[500070.0, 4000010.0], [500110.0, 4000010.0], [500090.0, 4000050.0]]",
            )
            .replace("SECTION", "[[500064.0, 4000001.0], [500064.0, 4000090.0]]")
    };
    let good = dir.path().join("good.toml");
    std::fs::write(&good, scenario("features.geojson")).unwrap();
    let (code, stderr) = check(&good);
    assert_eq!(code, 0, "{stderr}");
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, scenario("degrees.geojson")).unwrap();
    let (code, stderr) = check(&bad);
    assert_eq!(code, 2, "{stderr}");
    for w in [
        "degrees.geojson",
        "source[0].line",
        "WGS 84",
        "UTM zone 11N",
        "ogr2ogr",
    ] {
        assert!(stderr.contains(w), "{w:?} not in {stderr}");
    }
}

/// Edge segments drawn as lines: an inflow along the west edge and a stage along part of
/// the north edge, from a GeoJSON file (traced on the edge, and on the centres of the
/// cells just inside it), give the same edge cells and definitions as the same segments
/// written with `edge`, `from` and `to`; a line away from every edge, one around a corner,
/// and one with `from` are refused, naming the key.
#[test]
fn edge_segments_drawn_as_lines_cover_the_same_cells() {
    const EDGES: &str = r#"{
  "type": "FeatureCollection",
  "crs": { "type": "name", "properties": { "name": "urn:ogc:def:crs:EPSG::32611" } },
  "features": [
    { "type": "Feature", "properties": { "name": "inlet" },
      "geometry": { "type": "LineString", "coordinates": [[500000.0, 4000010.0], [500000.0, 4000030.0], [500000.0, 4000050.0]] } },
    { "type": "Feature", "properties": { "name": "sea" },
      "geometry": { "type": "LineString", "coordinates": [[500101.0, 4000095.0], [500041.0, 4000095.0]] } },
    { "type": "Feature", "properties": { "name": "middle" },
      "geometry": { "type": "LineString", "coordinates": [[500060.0, 4000030.0], [500060.0, 4000060.0]] } },
    { "type": "Feature", "properties": { "name": "corner" },
      "geometry": { "type": "LineString", "coordinates": [[500000.0, 4000020.0], [500000.0, 4000000.0], [500030.0, 4000000.0]] } }
  ]
}"#;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("edges.geojson"), EDGES).unwrap();
    let scenario = |inlet: &str, sea: &str| {
        format!(
            r#"
[domain]
cell_size = 2.0
nx = 64
ny = 48
origin = [500000.0, 4000000.0]

[terrain]
type = "flat"
elevation = 0.0

[[boundary.segment]]
type = "inflow"
discharge = 3.0
{inlet}

[[boundary.segment]]
type = "stage"
level = 1.0
{sea}

[time]
end = 10.0
"#
        )
    };
    let build = |text: &str| quadflood::scenario::from_str(text, dir.path());
    let written = build(&scenario(
        "edge = \"west\"\nfrom = 4000010.0\nto = 4000050.0",
        "edge = \"north\"\nfrom = 500041.0\nto = 500101.0",
    ))
    .unwrap();
    let drawn = build(&scenario(
        "line = { vector = \"edges.geojson\", feature = \"inlet\" }",
        "line = { vector = \"edges.geojson\", feature = \"sea\" }",
    ))
    .unwrap();
    assert_eq!(drawn.bc_edge, written.bc_edge, "edge cells differ");
    assert_eq!(drawn.bc_defs, written.bc_defs, "definitions differ");
    let inflow_cells = written.bc_edge.iter().filter(|&&d| d == 2).count();
    assert_eq!(inflow_cells, 20, "40 m of 2 m cells on the west edge");

    for (inlet, wanted) in [
        (
            "line = { vector = \"edges.geojson\", feature = \"middle\" }",
            "does not run along an edge",
        ),
        (
            "line = { vector = \"edges.geojson\", feature = \"corner\" }",
            "one segment per edge",
        ),
        (
            "line = { vector = \"edges.geojson\", feature = \"inlet\" }\nfrom = 4000010.0",
            "takes no `from`",
        ),
        (
            "edge = \"east\"\nline = { vector = \"edges.geojson\", feature = \"inlet\" }",
            "runs along the west edge",
        ),
        ("", "needs `edge`"),
    ] {
        let Err(e) = build(&scenario(inlet, "edge = \"north\"")) else {
            panic!("{inlet:?} was accepted");
        };
        assert!(e.to_string().contains(wanted), "{wanted:?} not in {e}");
        assert!(e.to_string().contains("boundary.segment[0]"), "{e}");
    }
}
