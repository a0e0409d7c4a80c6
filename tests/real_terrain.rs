//! Real terrain through GDAL: the shipped Sagehen Creek scenario runs (coarsened) and its
//! maps open in GDAL with the DEM's CRS and geotransform; nodata stays outside the domain;
//! rasters in another CRS, or in degrees, are refused with exit code 2.
#![cfg(feature = "gdal")]

use gdal::spatial_ref::SpatialRef;
use gdal::Dataset;
use std::path::Path;
use std::process::Command;

fn quadflood(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_quadflood"))
        .args(args)
        .env("XDG_RUNTIME_DIR", "/tmp")
        .output()
        .expect("run quadflood");
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

fn scenario(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn band(path: &Path) -> (Vec<f32>, Option<f64>) {
    let ds = Dataset::open(path).unwrap();
    let b = ds.rasterband(1).unwrap();
    let (w, h) = ds.raster_size();
    (
        b.read_as::<f32>((0, 0), (w, h), (w, h), None)
            .unwrap()
            .data()
            .to_vec(),
        b.no_data_value(),
    )
}

#[test]
fn sagehen_rain_maps_open_in_gdal_with_the_dem_georeferencing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sagehen");
    let (code, text) = quadflood(&[
        "run",
        &scenario("sagehen-rain.toml"),
        "--set",
        "terrain.cell_size=80",
        "--set",
        "refinement.levels=2",
        "--set",
        "time.end=600",
        "--set",
        "time.output_interval=300",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(code, 0, "{text}");
    // 744 x 689 cells of 10 m give 93 x 86 whole cells of 80 m from the raster's corner.
    let (nx, ny) = (93usize, 86usize);
    let top = 4366620.0 + ny as f64 * 80.0;
    let utm11 = SpatialRef::from_epsg(26911).unwrap();
    for name in [
        "depth_0000600.0s.tif",
        "level_0000300.0s.tif",
        "u_0000600.0s.tif",
        "v_0000600.0s.tif",
        "speed_0000600.0s.tif",
        "max_depth.tif",
        "max_speed.tif",
        "max_hazard.tif",
        "arrival_time.tif",
        "time_of_max_depth.tif",
    ] {
        let path = out.join(name);
        let ds = Dataset::open(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(ds.raster_size(), (nx, ny), "{name}");
        assert_eq!(
            ds.geo_transform().unwrap(),
            [214270.0, 80.0, 0.0, top, 0.0, -80.0],
            "{name}"
        );
        assert!(ds.spatial_ref().unwrap() == utm11, "{name}: not EPSG:26911");
        assert_eq!(
            ds.rasterband(1).unwrap().no_data_value(),
            Some(-9999.0),
            "{name}"
        );
    }
    // 50 mm/h for 600 s on every cell: about 8 mm fell; the maps hold it.
    let (depth, _) = band(&out.join("depth_0000600.0s.tif"));
    let (max_depth, _) = band(&out.join("max_depth.tif"));
    let (arrival, _) = band(&out.join("arrival_time.tif"));
    assert!(depth.iter().all(|h| h.is_finite() && *h >= 0.0));
    assert!(
        depth.iter().zip(&max_depth).all(|(h, m)| m >= h),
        "max depth below the depth"
    );
    // 8.3 mm fell; runoff gathers in the valleys to more than twice that.
    assert!(max_depth.iter().any(|&m| m > 0.02), "rain gathered nowhere");
    assert!(arrival
        .iter()
        .all(|&a| a == -9999.0 || (0.0..=600.0).contains(&a)));
    let balance = std::fs::read_to_string(out.join("mass_balance.csv")).unwrap();
    let last: Vec<f64> = balance
        .lines()
        .last()
        .unwrap()
        .split(',')
        .map(|v| v.parse().unwrap())
        .collect();
    assert_eq!(last[0], 600.0);
    let rain = 0.05 / 3600.0 * 600.0 * (nx * ny) as f64 * 6400.0;
    assert!(
        (last[3] - rain).abs() < 1e-3 * rain,
        "rain volume {} vs {rain}",
        last[3]
    );
    assert!(last[6].abs() < 1e-5, "mass error {}", last[6]);
    let outlet = std::fs::read_to_string(out.join("section_outlet.csv")).unwrap();
    let q: f64 = outlet
        .lines()
        .last()
        .unwrap()
        .split(',')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    assert!(q.is_finite() && q >= 0.0, "outlet discharge {q}");
}

/// An ESRI ASCII terrain with a nodata notch: 40 x 24 cells of 1 m.
fn notched_terrain(dir: &Path) -> String {
    let mut text = String::from(
        "ncols 40\nnrows 24\nxllcorner 0\nyllcorner 0\ncellsize 1\nNODATA_value -9999\n",
    );
    for row in 0..24 {
        let line: Vec<String> = (0..40)
            .map(|col| {
                if col >= 28 && row < 12 {
                    "-9999".into()
                } else {
                    "10".to_string()
                }
            })
            .collect();
        text += &(line.join(" ") + "\n");
    }
    std::fs::write(dir.join("notched.asc"), text).unwrap();
    "notched.asc".into()
}

#[test]
fn nodata_lies_outside_the_domain() {
    let dir = tempfile::tempdir().unwrap();
    let terrain = notched_terrain(dir.path());
    let toml = format!(
        r#"
[terrain]
type = "raster"
path = "{terrain}"
[refinement]
levels = 2
[initial]
water_level = 10.5
[time]
end = 5.0
[output]
format = "ascii"
png = false
"#
    );
    let path = dir.path().join("notch.toml");
    std::fs::write(&path, toml).unwrap();
    let out = dir.path().join("out");
    let (code, text) = quadflood(&[
        "run",
        path.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(code, 0, "{text}");
    let depth =
        quadflood::io::ascii_grid::read_ascii_grid(&out.join("depth_0000005.0s.asc")).unwrap();
    for row in 0..24 {
        for col in 0..40 {
            let h = depth.get(col, row);
            if col >= 28 && row >= 12 {
                // rows count from the south here: the notch is the north-east quarter.
                assert_eq!(h, -9999.0, "({col}, {row}) should be outside");
            } else {
                assert!(
                    (h - 0.5).abs() < 1e-6,
                    "({col}, {row}): the lake moved: {h}"
                );
            }
        }
    }
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["cells"], 40 * 24 - 12 * 12);
    assert!((summary["mass_initial_m3"].as_f64().unwrap() - 0.5 * 816.0).abs() < 1e-3);
}

fn write_tif(path: &Path, epsg: u32, xll: f64, yll: f64, cell: f64, n: usize, value: f64) {
    let mut r = quadflood::io::ascii_grid::Raster::new(n, n, xll, yll, cell, Some(-9999.0), value);
    r.data.iter_mut().for_each(|v| *v = value);
    let wkt = SpatialRef::from_epsg(epsg).unwrap().to_wkt().unwrap();
    quadflood::io::georaster::write_geotiff(path, &r, Some(&wkt)).unwrap();
}

#[test]
fn rasters_in_another_crs_or_in_degrees_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_tif(
        &d.join("dem.tif"),
        26911,
        500000.0,
        4000000.0,
        10.0,
        32,
        100.0,
    );
    write_tif(
        &d.join("n_other_crs.tif"),
        32610,
        500000.0,
        4000000.0,
        10.0,
        32,
        0.03,
    );
    write_tif(
        &d.join("n_small.tif"),
        26911,
        500100.0,
        4000000.0,
        10.0,
        8,
        0.03,
    );
    write_tif(
        &d.join("landuse.tif"),
        26911,
        500000.0,
        4000000.0,
        10.0,
        32,
        3.0,
    );
    let base = "[terrain]\ntype = \"raster\"\npath = \"dem.tif\"\n[time]\nend = 1.0\n";
    let check = |name: &str, extra: &str| {
        let path = d.join(name);
        std::fs::write(&path, format!("{base}{extra}")).unwrap();
        quadflood(&["check", path.to_str().unwrap()])
    };
    let (code, text) = check(
        "ok.toml",
        "[friction]\nlanduse = \"landuse.tif\"\nclasses = { \"3\" = 0.04 }\n",
    );
    assert_eq!(code, 0, "{text}");
    let (code, text) = check("crs.toml", "[friction]\nraster = \"n_other_crs.tif\"\n");
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("n_other_crs.tif") && text.contains("CRS"),
        "{text}"
    );
    let (code, text) = check("cover.toml", "[friction]\nraster = \"n_small.tif\"\n");
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("n_small.tif") && text.contains("cover"),
        "{text}"
    );
    let (code, text) = check(
        "class.toml",
        "[friction]\nlanduse = \"landuse.tif\"\nclasses = { \"1\" = 0.04 }\n",
    );
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("landuse.tif") && text.contains("class 3"),
        "{text}"
    );
    write_tif(
        &d.join("degrees.tif"),
        4326,
        -120.0,
        39.0,
        0.0001,
        16,
        100.0,
    );
    let path = d.join("deg.toml");
    std::fs::write(&path, base.replace("dem.tif", "degrees.tif")).unwrap();
    let (code, text) = quadflood(&["check", path.to_str().unwrap()]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("degrees.tif") && text.contains("geographic"),
        "{text}"
    );
}

/// Rain radar in degrees (EPSG:4326) over a DEM in UTM 11N: the rain rasters are warped onto
/// the model's CRS, and the uniform 36 mm/h they hold falls on every cell.
#[test]
fn rain_rasters_in_degrees_are_warped_onto_the_model_grid() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_tif(
        &d.join("dem.tif"),
        32611,
        500000.0,
        4000000.0,
        10.0,
        64,
        1.0,
    );
    write_tif(&d.join("radar.tif"), 4326, -117.1, 36.04, 0.01, 20, 36.0);
    let scenario = d.join("radar.toml");
    std::fs::write(
        &scenario,
        r#"
[terrain]
type = "raster"
path = "dem.tif"

[rain]
rasters = { paths = ["radar.tif", "radar.tif"], times = [0.0, 600.0], time_unit = "s", unit = "mm/h" }

[time]
end = 600.0
"#,
    )
    .unwrap();
    let model = quadflood::scenario::load(&scenario).unwrap_or_else(|e| panic!("{e}"));
    let gpu = quadflood::gpu::Gpu::open(None).unwrap();
    let mut sim = quadflood::solver::Simulation::new(&gpu, &model).unwrap();
    sim.advance_to(600.0, &mut |_| {}).unwrap();
    let area = 640.0 * 640.0;
    let expected = 36.0 / 3.6e6 * 600.0 * area;
    let counted = sim.status().rain_depth * area;
    let stored = model.volume(&sim.read_fields().depth);
    for (what, v) in [("counted", counted), ("stored", stored)] {
        assert!(
            (v - expected).abs() / expected < 1e-5,
            "{what} {v} vs {expected}"
        );
    }
}
