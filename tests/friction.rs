//! Friction from a raster: blocks whose cells share one Manning n hold it once, the others
//! cell by cell. Storing every block's cells instead (QUADFLOOD_FRICTION=per-cell) must not
//! change one bit of the results, the raster's pattern must show in them, and inside a
//! mixed block each cell must get its own n.

mod common;

use std::path::Path;

/// 64 x 48 cells of 1 m: n = 0.02 in the west third, 0.06 in the east third, and between
/// them a different n in every cell, so that blocks of all three kinds meet the flow.
fn friction_raster(dir: &Path, varied: bool) -> String {
    let (nx, ny) = (64, 48);
    let mut text = format!(
        "ncols {nx}\nnrows {ny}\nxllcorner 0\nyllcorner 0\ncellsize 1\nNODATA_value -9999\n"
    );
    for row in 0..ny {
        let line: Vec<String> = (0..nx)
            .map(|col| {
                let n = match col {
                    _ if !varied => 0.03,
                    0..=20 => 0.02,
                    43.. => 0.06,
                    _ => 0.02 + 0.005 * ((col * 7 + row * 3) % 9) as f64,
                };
                format!("{n}")
            })
            .collect();
        text += &(line.join(" ") + "\n");
    }
    let name = if varied {
        "n_varied.asc"
    } else {
        "n_uniform.asc"
    };
    std::fs::write(dir.join(name), text).unwrap();
    name.into()
}

/// Result files (name, bytes) of a dam break across the raster.
fn run(dir: &Path, raster: &str, storage: Option<&str>) -> Vec<(String, Vec<u8>)> {
    let toml = format!(
        r#"
[domain]
cell_size = 1.0
nx = 64
ny = 48

[terrain]
type = "expression"
expression = "0.01*x"

[initial]
water_level = 0.0

[[initial.region]]
shape = "rectangle"
min = [0.0, 0.0]
max = [12.0, 48.0]
water_level = 1.5

[friction]
raster = "{raster}"

[time]
end = 8.0
output_interval = 4.0

[output]
format = "ascii"
png = false
"#
    );
    let path = dir.join("friction.toml");
    std::fs::write(&path, toml).unwrap();
    let env: Vec<(&str, &str)> = storage
        .map(|s| ("QUADFLOOD_FRICTION", s))
        .into_iter()
        .collect();
    common::run_results(&path, &[], &env)
}

#[test]
fn friction_stored_per_block_gives_the_same_bits_as_per_cell() {
    let dir = tempfile::tempdir().unwrap();
    let varied = friction_raster(dir.path(), true);
    let per_block = run(dir.path(), &varied, None);
    let per_cell = run(dir.path(), &varied, Some("per-cell"));
    assert!(per_block.len() > 2, "{} files", per_block.len());
    assert_eq!(per_block.len(), per_cell.len());
    for ((name, a), (_, b)) in per_block.iter().zip(&per_cell) {
        assert!(
            a == b,
            "{name} differs between per-block and per-cell friction"
        );
    }
    let uniform = friction_raster(dir.path(), false);
    let plain = run(dir.path(), &uniform, None);
    let depth = |files: &[(String, Vec<u8>)]| {
        files
            .iter()
            .find(|(name, _)| name.starts_with("depth_0000008"))
            .map(|(_, bytes)| bytes.clone())
            .expect("a depth map at t = 8 s")
    };
    assert!(
        depth(&per_block) != depth(&plain),
        "the raster's friction made no difference: the test would not see a wrong n"
    );
}

/// Depth at t = 4 s (row by row from the north, as the ASCII map holds it) of a dam break
/// on a flat 48 x 48 m square whose n changes from row to row (`along_x`: the water flows
/// east across the rows' n) or from column to column (the same, turned a quarter).
fn turned_dam_break(dir: &Path, along_x: bool) -> Vec<f64> {
    let n = 48;
    let mut text =
        format!("ncols {n}\nnrows {n}\nxllcorner 0\nyllcorner 0\ncellsize 1\nNODATA_value -9999\n");
    for row in 0..n {
        let line: Vec<String> = (0..n)
            .map(|col| {
                // By y (rows are written from the north) or by x.
                let k = if along_x { n - 1 - row } else { col };
                format!("{}", [0.01, 0.08, 0.03][k % 3])
            })
            .collect();
        text += &(line.join(" ") + "\n");
    }
    let raster = dir.join(format!("n_{along_x}.asc"));
    std::fs::write(&raster, text).unwrap();
    let max = if along_x {
        "[10.0, 48.0]"
    } else {
        "[48.0, 10.0]"
    };
    let toml = format!(
        "[domain]\ncell_size = 1.0\nnx = {n}\nny = {n}\n\n[terrain]\ntype = \"flat\"\n\n\
         [initial]\nwater_level = 0.0\n\n[[initial.region]]\nshape = \"rectangle\"\n\
         min = [0.0, 0.0]\nmax = {max}\nwater_level = 1.0\n\n[friction]\nraster = \"{}\"\n\n\
         [time]\nend = 4.0\n\n[output]\nformat = \"ascii\"\npng = false\nmaxima = false\n",
        raster.display()
    );
    let scenario = dir.join(format!("turned_{along_x}.toml"));
    std::fs::write(&scenario, toml).unwrap();
    let files = common::run_results(&scenario, &[], &[]);
    let (_, bytes) = files
        .iter()
        .find(|(name, _)| name.starts_with("depth_0000004"))
        .expect("a depth map at t = 4 s");
    let text = String::from_utf8_lossy(bytes);
    text.lines()
        .skip(6)
        .flat_map(|l| l.split_whitespace().map(|v| v.parse::<f64>().unwrap()))
        .collect()
}

/// Friction held cell by cell inside a block reaches each cell as its own: a dam break
/// across rows of alternating n and the same turned a quarter (n by column, the water
/// flowing north) give the same depths, turned. A cell reading a neighbour's n along one
/// axis would break the turn, since only one of the two runs varies n along it.
#[test]
fn each_cell_of_a_mixed_block_gets_its_own_n() {
    let dir = tempfile::tempdir().unwrap();
    let east = turned_dam_break(dir.path(), true);
    let north = turned_dam_break(dir.path(), false);
    let n = 48;
    let mut worst = 0.0f64;
    for row in 0..n {
        for col in 0..n {
            // (col, row from the north) of the eastward run is (row from the west, col from
            // the south) of the northward one.
            let a = east[row * n + col];
            let b = north[(n - 1 - col) * n + (n - 1 - row)];
            worst = worst.max((a - b).abs());
        }
    }
    assert!(worst < 1e-5, "the turned runs differ by {worst} m");
    assert!(
        east.iter().any(|&h| h > 0.05 && h < 0.95),
        "the water did not move"
    );
}
