//! The scenario both agreement tests (ranks on threads, ranks under mpirun) give their
//! ranks: a 64 m square basin on an ESRI ASCII terrain, whose height a rank may change.

use std::path::Path;

const SCENARIO: &str = r#"
name = "agreement"

[terrain]
type = "raster"
path = "dem.asc"

[initial]
water_level = 0.3

[[initial.region]]
shape = "circle"
center = [32.0, 32.0]
radius = 10.0
water_level = 1.0

[time]
end = 4.0
output_times = [2.0, 4.0]

[output]
format = "ascii"
png = false
"#;

/// A 64 x 64 terrain of 1 m cells at `height`, with the scenario beside it, in `dir`.
pub fn scenario_in(dir: &Path, height: f64) -> std::path::PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let mut text = String::from("ncols 64\nnrows 64\nxllcorner 0\nyllcorner 0\ncellsize 1\n");
    for _ in 0..64 {
        text += &(vec![height.to_string(); 64].join(" ") + "\n");
    }
    std::fs::write(dir.join("dem.asc"), text).unwrap();
    let path = dir.join("agreement.toml");
    std::fs::write(&path, SCENARIO).unwrap();
    path
}
