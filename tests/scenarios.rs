//! Every scenario shipped in `scenarios/` is valid, and runs end to end (scaled down in
//! time, and coarsened where its grid is large) with the README's command: its maps open
//! in GDAL with the scenario's CRS and geotransform, and its time series are written.

use std::path::{Path, PathBuf};

fn shipped() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    paths.sort();
    paths
}

#[test]
fn shipped_scenarios_check() {
    let paths = shipped();
    for path in &paths {
        let model = quadflood::scenario::load(path).unwrap_or_else(|e| panic!("{e}"));
        assert!(model.valid_cells() > 0);
    }
    assert!(paths.len() >= 7, "found only {} scenarios", paths.len());
}

#[cfg(feature = "gdal")]
/// Overrides that keep a scenario small enough for software Vulkan: at most a minute of
/// simulated time with two map times, and a coarser grid where the full one is large.
fn scaled_down(path: &Path) -> Vec<String> {
    let model = quadflood::scenario::load(path).unwrap();
    let span = (model.t_end - model.t_start).min(60.0);
    let mut sets = vec![
        format!("time.end={}", model.t_start + span),
        format!("time.output_interval={}", span / 2.0),
    ];
    if model.valid_cells() > 200_000 {
        // Real terrain: 80 m cells from the 10 m DEM, two levels.
        sets.push("terrain.cell_size=80".into());
        sets.push("refinement.levels=2".into());
    }
    sets
}

#[cfg(feature = "gdal")]
#[test]
fn shipped_scenarios_run_and_their_maps_open_in_gdal() {
    let root = tempfile::tempdir().unwrap();
    for path in shipped() {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let out = root.path().join(&stem);
        let mut args = vec![
            "run".to_string(),
            path.to_string_lossy().into_owned(),
            "--out".into(),
            out.to_string_lossy().into_owned(),
            "--quiet".into(),
        ];
        let sets = scaled_down(&path);
        for set in &sets {
            args.extend(["--set".to_string(), set.clone()]);
        }
        let run = std::process::Command::new(env!("CARGO_BIN_EXE_quadflood"))
            .args(&args)
            .env("XDG_RUNTIME_DIR", "/tmp")
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{stem}: {}{}",
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        );
        let model = quadflood::scenario::load_with(&path, &sets).unwrap();
        check_outputs(&stem, &model, &out);
        check_losses(&stem, &path, &out);
    }
}

/// Issue 22: every shipped scenario ends with its mass balance closed to 1e-5, stricter
/// than the default stop (`numerics.max_mass_error`, 1e-4).
#[cfg(feature = "gdal")]
fn check_mass(stem: &str, out: &Path) {
    let text = std::fs::read_to_string(out.join("summary.json")).unwrap();
    let summary: serde_json::Value = serde_json::from_str(&text).unwrap();
    let error = summary["mass_error_rel"]
        .as_f64()
        .unwrap_or_else(|| panic!("{stem}: no mass_error_rel in summary.json"));
    println!("{stem}: mass error {error:.2e}");
    assert!(error.abs() <= 1e-5, "{stem}: mass error {error:.2e} > 1e-5");
}

#[cfg(feature = "gdal")]
fn check_outputs(stem: &str, model: &quadflood::scenario::model::Model, out: &Path) {
    use gdal::spatial_ref::SpatialRef;
    let (nx, ny) = (model.grid.nx, model.grid.ny);
    let cs = model.cell_size;
    let transform = [
        model.origin.0,
        cs,
        0.0,
        model.origin.1 + ny as f64 * cs,
        0.0,
        -cs,
    ];
    let crs = model
        .crs
        .as_deref()
        .map(|wkt| SpatialRef::from_wkt(wkt).unwrap());
    let maps: Vec<PathBuf> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tif"))
        .collect();
    let named = |prefix: &str| {
        maps.iter()
            .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(prefix))
            .count()
    };
    assert_eq!(
        named("depth_"),
        model.output_times.len(),
        "{stem}: depth maps"
    );
    for map in [
        "max_depth",
        "max_level",
        "max_speed",
        "max_hazard",
        "max_hazard_arr",
        "arrival_time",
    ] {
        assert_eq!(named(&format!("{map}.")), 1, "{stem}: {map}.tif");
    }
    for map in &maps {
        let name = format!("{stem}/{}", map.file_name().unwrap().to_string_lossy());
        let ds = gdal::Dataset::open(map).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(ds.raster_size(), (nx, ny), "{name}");
        assert_eq!(ds.geo_transform().unwrap(), transform, "{name}");
        match &crs {
            Some(crs) => assert!(ds.spatial_ref().unwrap() == *crs, "{name}: CRS"),
            None => assert!(
                ds.spatial_ref().is_err(),
                "{name}: a CRS the scenario lacks"
            ),
        }
        let band = ds.rasterband(1).unwrap();
        let nodata = band.no_data_value().expect("nodata");
        let values = band
            .read_as::<f32>((0, 0), (nx, ny), (nx, ny), None)
            .unwrap();
        assert!(
            values
                .data()
                .iter()
                .all(|&v| v.is_finite() && (v as f64 == nodata || v > -1e4)),
            "{name}: non-finite values"
        );
    }
    for gauge in &model.gauges {
        let csv = out.join(format!("gauge_{}.csv", gauge.name));
        let rows = std::fs::read_to_string(&csv).unwrap_or_else(|e| panic!("{stem}: {e}"));
        assert!(rows.lines().count() > 1, "{stem}: empty {}", csv.display());
    }
    if model.write_animation {
        use image::AnimationDecoder;
        let gif = std::fs::File::open(out.join("flood.gif")).expect("flood.gif");
        let frames = image::codecs::gif::GifDecoder::new(std::io::BufReader::new(gif))
            .unwrap()
            .into_frames()
            .collect_frames()
            .unwrap();
        assert_eq!(frames.len(), model.output_times.len(), "{stem}: GIF frames");
    }
    for file in ["summary.json", "mass_balance.csv"] {
        assert!(out.join(file).is_file(), "{stem}: no {file}");
    }
    check_mass(stem, out);
    check_wall_clock(stem, out);
}

/// A study whose losses come per land-use class loses at each cell what its class's soil
/// takes: `check/losses.tif` shows every class's first parameter (Green-Ampt's
/// conductivity, or the initial loss) on some cell.
#[cfg(feature = "gdal")]
fn check_losses(stem: &str, path: &Path, out: &Path) {
    let spec: toml::Value = toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let Some(classes) = spec
        .get("losses")
        .filter(|l| l.get("landuse").is_some())
        .and_then(|l| l.get("classes"))
        .and_then(|c| c.as_table())
    else {
        return;
    };
    let map = out.join("check").join("losses.tif");
    let ds = gdal::Dataset::open(&map).unwrap_or_else(|e| panic!("{stem}: {e}"));
    let (nx, ny) = ds.raster_size();
    let band = ds.rasterband(1).unwrap();
    let values = band
        .read_as::<f32>((0, 0), (nx, ny), (nx, ny), None)
        .unwrap();
    for (class, parameters) in classes {
        let first = ["conductivity", "initial"]
            .iter()
            .find_map(|k| parameters.get(*k))
            .and_then(|v| v.as_float())
            .unwrap_or_else(|| panic!("{stem}: class {class} has no first parameter"));
        // The map gives the stored SI value back in mm or mm/h: equal to f32 rounding.
        let cells = values
            .data()
            .iter()
            .filter(|&&v| (v as f64 - first).abs() <= 1e-5 * first.abs())
            .count();
        println!("{stem}: class {class} ({first}) on {cells} cells of check/losses");
        assert!(cells > 0, "{stem}: class {class} ({first}) on no cell");
    }
}

/// The summary's account of the wall clock: every part measured, none larger than the run.
#[cfg(feature = "gdal")]
fn check_wall_clock(stem: &str, out: &Path) {
    let text = std::fs::read_to_string(out.join("summary.json")).unwrap();
    let summary: serde_json::Value = serde_json::from_str(&text).unwrap();
    let wall = summary["wall_s"].as_f64().unwrap();
    let parts = [
        "setup",
        "stepping",
        "reading_results",
        "writing_files",
        "other",
    ];
    let clock = &summary["wall_clock_s"];
    let sum: f64 = parts
        .iter()
        .map(|p| {
            let s = clock[p]
                .as_f64()
                .unwrap_or_else(|| panic!("{stem}: no {p} in {clock}"));
            assert!(s >= 0.0, "{stem}: {p} = {s}");
            s
        })
        .sum();
    assert!(
        (sum - wall).abs() < 1e-3 * wall.max(1.0),
        "{stem}: {clock} against {wall} s"
    );
    for p in ["setup", "stepping", "writing_files", "loading_scenario"] {
        assert!(clock[p].as_f64().unwrap() > 0.0, "{stem}: {p} not measured");
    }
}
