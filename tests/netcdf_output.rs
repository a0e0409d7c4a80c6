//! The whole event in one CF NetCDF (`event.nc`): every output time's depth, level and
//! velocity, equal to the maps of that time, with x, y and the CRS of the terrain, and
//! time in seconds; it opens in xarray with the right times and CRS.
#![cfg(feature = "gdal")]

mod common;

use gdal::spatial_ref::SpatialRef;
use gdal::Metadata;
use std::path::Path;

const TIMES: [f64; 3] = [2.0, 4.0, 6.0];

fn scenario(dir: &Path) -> std::path::PathBuf {
    // A sloping terrain raster in UTM zone 11N: the maps and the NetCDF take its CRS.
    let (n, cell) = (48, 2.0);
    let mut dem =
        quadflood::io::ascii_grid::Raster::new(n, n, 500000.0, 4300000.0, cell, None, 0.0);
    for (k, z) in dem.data.iter_mut().enumerate() {
        *z = 0.02 * (k % n) as f64 * cell;
    }
    let wkt = SpatialRef::from_epsg(26911).unwrap().to_wkt().unwrap();
    quadflood::io::georaster::write_geotiff(&dir.join("dem.tif"), &dem, Some(&wkt)).unwrap();
    let toml = r#"
name = "netcdf-check"
[terrain]
type = "raster"
path = "dem.tif"

[initial]
water_level = 0.5
[[initial.region]]
shape = "circle"
center = [500030.0, 4300060.0]
radius = 12.0
water_level = 1.6

[time]
end = 6.0
output_interval = 2.0

[output]
png = false
"#;
    let path = dir.join("event.toml");
    std::fs::write(&path, toml).unwrap();
    path
}

fn band(path: &str, k: usize) -> Vec<f32> {
    let ds = gdal::Dataset::open(path).unwrap();
    let b = ds.rasterband(k).unwrap();
    b.read_band_as::<f32>().unwrap().data().to_vec()
}

#[test]
fn the_event_file_holds_every_output_time_as_its_maps_do() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), &[]);
    let event = out.join("event.nc");
    let file = event.to_str().unwrap();
    for var in ["depth", "level", "u", "v"] {
        // Through GDAL's classic view: one band per output time, north up.
        let sub = format!("NETCDF:\"{file}\":{var}");
        let ds = gdal::Dataset::open(&sub).unwrap();
        assert_eq!(ds.raster_count(), TIMES.len(), "{var}");
        let srs = ds.spatial_ref().expect("a grid mapping");
        assert_eq!(srs.auth_code().ok(), Some(26911), "{var}");
        let gt = ds.geo_transform().unwrap();
        assert_eq!((gt[0], gt[1], gt[5]), (500000.0, 2.0, -2.0), "{var}");
        assert_eq!(
            ds.metadata_item("time#units", ""),
            Some("seconds since 1970-01-01 00:00:00".into())
        );
        assert_eq!(
            ds.metadata_item("NC_GLOBAL#Conventions", ""),
            Some("CF-1.8".into())
        );
        for (k, t) in TIMES.iter().enumerate() {
            let map = out.join(format!("{var}_{t:09.1}s.tif"));
            let expected = band(map.to_str().unwrap(), 1);
            let got = band(&sub, k + 1);
            assert!(
                got == expected,
                "{var} at t = {t} differs from {}",
                map.display()
            );
            assert!(
                expected.iter().any(|&x| x != 0.0 && x != -9999.0),
                "{var} at {t} is all zero"
            );
        }
    }
    let times = gdal::Dataset::open(format!("NETCDF:\"{file}\":depth"))
        .unwrap()
        .metadata_item("NETCDF_DIM_time_VALUES", "")
        .unwrap();
    assert_eq!(times, "{2,4,6}");
}

/// Runs the scenario into `dir/out` with `extra` arguments; the output folder.
fn run(dir: &Path, extra: &[&str]) -> std::path::PathBuf {
    let out = dir.join("out");
    common::run_ok(&scenario(dir), &out, extra);
    out
}

/// A python3 with xarray and netCDF4. CI sets QUADFLOOD_REQUIRE_XARRAY=1; elsewhere the
/// tests say so and pass where Python has no xarray.
fn python_with_xarray() -> Option<&'static str> {
    let python = ["/usr/bin/python3", "python3"].into_iter().find(|p| {
        std::process::Command::new(p)
            .args(["-c", "import xarray, netCDF4"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if python.is_none() {
        assert!(
            std::env::var_os("QUADFLOOD_REQUIRE_XARRAY").is_none(),
            "QUADFLOOD_REQUIRE_XARRAY is set but no python3 has xarray and netCDF4"
        );
        eprintln!("no python3 with xarray and netCDF4: not checked here");
    }
    python
}

fn python_check(python: &str, script: &str, file: &Path) {
    let check = std::process::Command::new(python)
        .args(["-c", script, file.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
}

/// xarray, as an analyst would open it: the times, the variables and the CRS.
#[test]
fn xarray_opens_the_event_file() {
    let Some(python) = python_with_xarray() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), &[]);
    let script = r#"
import sys, numpy as np, xarray as xr
d = xr.open_dataset(sys.argv[1], decode_times=False)
assert list(d.time.values) == [2.0, 4.0, 6.0], d.time.values
assert d.time.attrs["units"] == "seconds since 1970-01-01 00:00:00"
assert d.depth.dims == ("time", "y", "x") and d.depth.attrs["units"] == "m"
assert d.u.attrs["units"] == "m s-1" and d.level.attrs["standard_name"] == "water_surface_height_above_reference_datum"
mapping = d[d.depth.attrs["grid_mapping"]]
assert "UTM zone 11N" in mapping.attrs.get("crs_wkt", mapping.attrs.get("spatial_ref", "")), mapping.attrs
assert float(d.x[0]) == 500001.0 and float(d.y[0]) == 4300001.0
assert float(d.depth.max()) > 0.5
d2 = xr.open_dataset(sys.argv[1])
assert str(d2.time.values[1]).startswith("1970-01-01T00:00:04"), d2.time.values
print("ok")
"#;
    python_check(python, script, &out.join("event.nc"));
}

/// With `time.reference`, times count from it: CF units name it in UTC, xarray decodes the
/// dates, and the summary gives them beside the seconds.
#[test]
fn times_count_from_the_reference_date() {
    let dir = tempfile::tempdir().unwrap();
    // 16:00 at +10:00 is 06:00 UTC.
    let out = run(
        dir.path(),
        &["--set", "time.reference=2026-11-27T16:00:00+10:00"],
    );
    let event = out.join("event.nc");
    let ds = gdal::Dataset::open(format!("NETCDF:\"{}\":depth", event.display())).unwrap();
    assert_eq!(
        ds.metadata_item("time#units", ""),
        Some("seconds since 2026-11-27 06:00:00".into())
    );
    let comment = ds.metadata_item("NC_GLOBAL#comment", "").unwrap();
    assert!(
        comment.contains("2026-11-27T06:00:00Z") && !comment.contains("1970"),
        "{comment}"
    );
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["time_reference"], "2026-11-27T06:00:00Z");
    assert_eq!(
        summary["output_times_utc"],
        serde_json::json!([
            "2026-11-27T06:00:02Z",
            "2026-11-27T06:00:04Z",
            "2026-11-27T06:00:06Z"
        ])
    );
    let Some(python) = python_with_xarray() else {
        return;
    };
    let script = r#"
import sys, numpy as np, xarray as xr
d = xr.open_dataset(sys.argv[1])
expected = np.array(["2026-11-27T06:00:02", "2026-11-27T06:00:04", "2026-11-27T06:00:06"], dtype="datetime64[ns]")
assert (d.time.values == expected).all(), d.time.values
print("ok")
"#;
    python_check(python, script, &event);
}

/// A run restarted from its checkpoint writes an event file holding every output time,
/// those before the checkpoint too, equal to an uninterrupted run's.
#[test]
fn a_restarted_run_holds_the_whole_event() {
    let dir = tempfile::tempdir().unwrap();
    let toml = scenario(dir.path());
    let run = |out: &Path, extra: &[&str]| {
        common::run_ok(&toml, out, extra);
    };
    let whole = dir.path().join("whole");
    run(&whole, &[]);
    // A run with a checkpoint at 4 s (the first stop past 3 s), restarted from it into its
    // own folder: the restart writes the last output time and assembles the event file
    // from the maps of all three.
    let restarted = dir.path().join("restarted");
    run(&restarted, &["--checkpoint-every", "3"]);
    let checkpoint = restarted.join("checkpoint_0000004.0s.qfck");
    assert!(
        checkpoint.exists(),
        "{:?}",
        std::fs::read_dir(&restarted).unwrap().count()
    );
    run(&restarted, &["--restart", checkpoint.to_str().unwrap()]);
    let log = std::fs::read_to_string(restarted.join("run.log")).unwrap();
    assert!(log.contains("--- restarted from"), "{log}");
    for var in ["depth", "level", "u", "v"] {
        let open = |out: &Path| format!("NETCDF:\"{}\":{var}", out.join("event.nc").display());
        let (a, b) = (open(&whole), open(&restarted));
        let count = gdal::Dataset::open(&b).unwrap().raster_count();
        assert_eq!(count, TIMES.len(), "{var}: the restarted run's times");
        for k in 1..=TIMES.len() {
            assert!(band(&a, k) == band(&b, k), "{var} at {} s", TIMES[k - 1]);
            // Each band's time: a restarted run's file labelled the earlier maps with the
            // times after its restart, and left the last one a fill value (a hunt).
            let time = |path: &str| {
                let dataset = gdal::Dataset::open(path).unwrap();
                let band = dataset.rasterband(k).unwrap();
                gdal::Metadata::metadata_item(&band, "NETCDF_DIM_time", "")
            };
            let expected = format!("{}", TIMES[k - 1]);
            assert_eq!(
                time(&a).as_deref(),
                Some(expected.as_str()),
                "{var}: the whole run's time {k}"
            );
            assert_eq!(time(&b), time(&a), "{var}: the restarted run's time {k}");
        }
    }
}

/// A disk (or file-size limit) with room for the maps but not for the event file asked
/// for: the run stops before it steps, naming the file and what it needs, and writes no
/// result. (Left at its default, the file is left out with a note: the restart below.)
#[test]
fn an_event_file_that_would_not_fit_stops_the_run_before_it_steps() {
    let dir = tempfile::tempdir().unwrap();
    let toml = scenario(dir.path());
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(
        &toml,
        text.replace("png = false", "png = false\nnetcdf = true"),
    )
    .unwrap();
    let out = dir.path().join("out");
    let o = std::process::Command::new("bash")
        .args([
            "-c",
            "ulimit -f 512; trap '' XFSZ; exec \"$0\" \"$@\"",
            env!("CARGO_BIN_EXE_quadflood"),
            "run",
            toml.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ])
        .env("XDG_RUNTIME_DIR", "/tmp")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("event.nc") && stderr.contains("not written"),
        "{stderr}"
    );
    let written: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !written
            .iter()
            .any(|n| n.starts_with("depth_") || n == "summary.json" || n == "event.nc"),
        "{written:?}"
    );
}

/// A restart into a folder holding the series but not the maps of the earlier output times
/// (which the README allows) goes on without `event.nc`, saying why; asked for, it is
/// refused before the run steps.
#[test]
fn a_restart_without_the_earlier_maps_leaves_the_default_event_file_out() {
    let dir = tempfile::tempdir().unwrap();
    let toml = scenario(dir.path());
    let run = |out: &Path, extra: &[&str]| common::run_cli(&toml, out, extra, &[]);
    let first = dir.path().join("first");
    assert!(run(&first, &["--checkpoint-every", "3"]).status.success());
    let fresh = dir.path().join("fresh");
    std::fs::create_dir(&fresh).unwrap();
    for e in std::fs::read_dir(&first).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "csv") {
            std::fs::copy(&path, fresh.join(path.file_name().unwrap())).unwrap();
        }
    }
    let checkpoint = first.join("checkpoint_0000004.0s.qfck");
    let o = run(&fresh, &["--restart", checkpoint.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("event.nc will not be written"), "{stderr}");
    assert!(!fresh.join("event.nc").exists());
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fresh.join("summary.json")).unwrap())
            .unwrap();
    assert!(summary["event_nc_left_out"].as_str().is_some(), "{summary}");
    let asked = dir.path().join("asked");
    std::fs::create_dir(&asked).unwrap();
    for e in std::fs::read_dir(&first).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "csv") {
            std::fs::copy(&path, asked.join(path.file_name().unwrap())).unwrap();
        }
    }
    let o = run(
        &asked,
        &[
            "--restart",
            checkpoint.to_str().unwrap(),
            "--set",
            "output.netcdf=true",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
