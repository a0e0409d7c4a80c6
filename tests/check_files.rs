//! The maps of the model as built (`check/`), as an engineer would verify them in a GIS:
//! the bed with the levee burned in, Manning's n, the refinement levels, and the cells the
//! edges and sources act on, each where the scenario put it.

mod common;

use quadflood::io::ascii_grid::{read_ascii_grid, Raster};
use std::path::Path;

const SCENARIO: &str = r#"
[domain]
cell_size = 1.0
nx = 96
ny = 64

[refinement]
levels = 2
[[refinement.region]]
shape = "rectangle"
min = [0.0, 0.0]
max = [24.0, 48.0]
level = 0

[terrain]
type = "expression"
expression = "0.01*x"

[friction]
manning = 0.03

[initial]
depth = 0.0

[boundary]
default = "wall"
[[boundary.segment]]
edge = "west"
type = "inflow"
from = 10.0
to = 20.0
discharge = 2.0
[[boundary.segment]]
edge = "south"
type = "stage"
to = 8.0
level = 0.2
[[boundary.segment]]
edge = "east"
type = "normal_depth"
to = 30.0
slope = 0.01
[[boundary.segment]]
edge = "east"
type = "rating"
from = 40.0
rating = { level = [0.5, 1.5], discharge = [0.0, 3.0] }

[[source]]
point = [20.5, 40.5]
discharge = 0.5

[[levee]]
line = [[12.5, 2.0], [12.5, 40.0]]
crest = 2.5

[time]
end = 2.0
output_interval = 2.0

[output]
format = "ascii"
png = false
"#;

fn run(dir: &Path, toml: &str, out: &Path) {
    let scenario = dir.join("check.toml");
    std::fs::write(&scenario, toml).unwrap();
    common::run_ok(&scenario, out, &[]);
}

fn check_map(out: &Path, name: &str) -> Raster {
    read_ascii_grid(&out.join("check").join(format!("{name}.asc"))).unwrap()
}

#[test]
fn check_maps_show_the_model_as_built() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    run(dir.path(), SCENARIO, &out);
    let (nx, ny) = (96, 64);
    let at = |r: &Raster, i: usize, j: usize| r.data[i + nx * j];

    // The bed: the expression on finest cells; the levee's cells are a wall (nodata), over
    // which water passes by the weir equation between the cells beside it.
    let bed = check_map(&out, "bed");
    assert_eq!((bed.ncols, bed.nrows), (nx, ny));
    assert!((at(&bed, 5, 5) - 0.055).abs() < 1e-5, "{}", at(&bed, 5, 5));
    assert_eq!(
        Some(at(&bed, 12, 20)),
        bed.nodata,
        "levee cell {}",
        at(&bed, 12, 20)
    );
    assert!(
        at(&bed, 15, 20) < 0.5,
        "beside the levee {}",
        at(&bed, 15, 20)
    );

    let manning = check_map(&out, "manning_n");
    // Every domain cell's n (the levee's cells are outside the domain).
    assert!(manning
        .data
        .iter()
        .filter(|&&n| Some(n) != manning.nodata)
        .all(|&n| (n - 0.03).abs() < 1e-7));

    // Finest where the region asks (x < 24 m), coarse away from it and the forcing.
    let level = check_map(&out, "block_level");
    assert_eq!(at(&level, 3, 3), 0.0);
    assert_eq!(at(&level, 40, 10), 1.0, "coarse away from everything");
    assert!(level
        .data
        .iter()
        .all(|&l| l == 0.0 || l == 1.0 || Some(l) == level.nodata));
    // Outflow edges too: the east edge's blocks are finest.
    assert_eq!(at(&level, nx - 1, 5), 0.0, "normal-depth edge");
    assert_eq!(at(&level, nx - 1, 50), 0.0, "rating edge");

    // West edge: inflow over y in [10, 20] only; south edge: stage up to x = 8 m; east
    // edge: normal depth up to y = 30 m, a rating from y = 40 m; the source's cell;
    // walls elsewhere.
    let forcing = check_map(&out, "forcing_cells");
    for j in 1..ny {
        let y = j as f64 + 0.5;
        let inflow = (10.0..=20.0).contains(&y);
        let expected = if inflow { 2.0 } else { 0.0 };
        assert_eq!(at(&forcing, 0, j), expected, "west row {j}");
        let east = match y {
            _ if y <= 30.0 => 6.0,
            _ if y >= 40.0 => 7.0,
            _ => 0.0,
        };
        assert_eq!(at(&forcing, nx - 1, j), east, "east row {j}");
    }
    for i in 0..nx - 1 {
        let expected = if i < 8 { 3.0 } else { 0.0 };
        assert_eq!(at(&forcing, i, 0), expected, "south column {i}");
    }
    // A corner cell shows the edge that forces it.
    assert_eq!(at(&forcing, nx - 1, 0), 6.0, "south-east corner");
    assert_eq!(at(&forcing, 20, 40), 4.0);
    let sources = forcing.data.iter().filter(|&&c| c == 4.0).count();
    assert!((1..=4).contains(&sources), "{sources} source cells");
    assert_eq!(at(&forcing, 20, 5), 0.0);
    // The levee's weir ends, either side of its line.
    for i in [11, 13] {
        assert_eq!(at(&forcing, i, 20), 8.0, "beside the levee, column {i}");
    }

    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let files: Vec<&str> = summary["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    for name in ["bed", "manning_n", "block_level", "forcing_cells"] {
        assert!(
            files.contains(&format!("check/{name}.asc").as_str()),
            "{files:?}"
        );
    }

    // A run asked for none leaves none of the earlier run's behind.
    let without = SCENARIO.replace("png = false", "png = false\ncheck = false");
    run(dir.path(), &without, &out);
    let left: Vec<_> = std::fs::read_dir(out.join("check"))
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
}

/// With the ASCII format the loss parameters come as two maps, `check/losses` (the first)
/// and `check/losses_2` (the second): an ESRI ASCII grid holds one band, and the second
/// parameter was not written at all (a hunt).
#[test]
fn ascii_check_maps_hold_both_loss_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let toml = SCENARIO.replace(
        "[time]",
        "[losses]\nmodel = \"initial_continuing\"\ninitial = 12.0\ncontinuing = 3.5\n\n[time]",
    );
    run(dir.path(), &toml, &out);
    let (first, second) = (check_map(&out, "losses"), check_map(&out, "losses_2"));
    let valid = |r: &Raster| -> Vec<f64> {
        r.data
            .iter()
            .copied()
            .filter(|&v| Some(v) != r.nodata)
            .collect()
    };
    assert!(
        valid(&first).iter().all(|&v| (v - 12.0).abs() < 1e-4),
        "initial loss (mm)"
    );
    assert!(
        valid(&second).iter().all(|&v| (v - 3.5).abs() < 1e-4),
        "continuing loss (mm/h)"
    );
    assert!(!valid(&second).is_empty());
}
