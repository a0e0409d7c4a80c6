//! GeoTIFF maps say what they hold: every band carries a description and a unit (QGIS
//! shows both), and the velocity at each output time also goes out as one two-band map
//! (u, v), which QGIS draws as arrows, equal band by band to the u and v maps.
#![cfg(feature = "gdal")]

mod common;

use gdal::Metadata;
use std::path::Path;

const DAM: &str = r#"
[domain]
cell_size = 2.0
nx = 40
ny = 24

[terrain]
type = "expression"
expression = "0.02*x"

[initial]
water_level = 0.3
[[initial.region]]
shape = "circle"
center = [20.0, 24.0]
radius = 8.0
water_level = 1.5

[time]
end = 6.0
output_interval = 3.0

[output]
png = false
"#;

fn band(path: &Path, k: usize) -> (String, String, Vec<f32>) {
    let ds = gdal::Dataset::open(path).unwrap();
    let b = ds.rasterband(k).unwrap();
    let data = b.read_band_as::<f32>().unwrap().data().to_vec();
    (b.description().unwrap(), b.unit(), data)
}

#[test]
fn maps_name_what_they_hold_and_velocity_comes_as_two_bands() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("dam.toml");
    std::fs::write(&scenario, DAM).unwrap();
    let out = dir.path().join("out");
    common::run_ok(&scenario, &out, &[]);
    let mut maps = 0;
    for entry in std::fs::read_dir(&out).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "tif") {
            let (description, unit, _) = band(&path, 1);
            assert!(
                !description.is_empty() && !unit.is_empty(),
                "{}",
                path.display()
            );
            maps += 1;
        }
    }
    assert!(maps >= 15, "{maps} maps");
    for t in ["0000003.0s", "0000006.0s"] {
        let velocity = out.join(format!("velocity_{t}.tif"));
        assert_eq!(gdal::Dataset::open(&velocity).unwrap().raster_count(), 2);
        for (k, name) in [(1, "u"), (2, "v")] {
            let (description, unit, uv) = band(&velocity, k);
            let (_, _, single) = band(&out.join(format!("{name}_{t}.tif")), 1);
            assert!(
                description.contains(&format!("velocity {name}")),
                "{description}"
            );
            assert_eq!(unit, "m/s");
            assert_eq!(uv, single, "band {k} of {}", velocity.display());
            assert!(uv.iter().any(|&x| x.abs() > 0.01), "{name} moves somewhere");
        }
    }
    let (description, unit, _) = band(&out.join("max_level.tif"), 1);
    assert!(
        description.contains("maximum water surface elevation"),
        "{description}"
    );
    assert_eq!(unit, "m");
}
