//! Inputs that were accepted and then lost water, reported nonsense, hung or exhausted the
//! machine are refused at `check` with exit code 2 and a message that names the file, the
//! key or flag, and what was expected (issue 22, "Inputs").

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Address space given to each command (KiB), so that a read that grows without bound
/// fails at once, visibly, instead of exhausting the machine.
const MEMORY_LIMIT_KIB: u64 = 4 << 20;

struct Outcome {
    code: Option<i32>,
    stderr: String,
    stdout: String,
    wall: Duration,
}

/// `quadflood ARGS` under the address-space limit, killed after `limit`.
fn quadflood_within(args: &[&str], dir: &Path, limit: Duration) -> Outcome {
    let mut child = Command::new("/bin/sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {MEMORY_LIMIT_KIB} 2>/dev/null; exec \"$0\" \"$@\""
        ))
        .arg(env!("CARGO_BIN_EXE_quadflood"))
        .args(args)
        .current_dir(dir)
        .env("XDG_RUNTIME_DIR", "/tmp")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(dir.join("stdout.txt")).unwrap())
        .stderr(std::fs::File::create(dir.join("stderr.txt")).unwrap())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if start.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    Outcome {
        code: status.and_then(|s| s.code()),
        stderr: read("stderr.txt"),
        stdout: read("stdout.txt"),
        wall: start.elapsed(),
    }
}

/// Expects exit code 2 within `limit` and a message holding every one of `expect`.
fn refused(args: &[&str], dir: &Path, limit: Duration, expect: &[&str]) {
    let o = quadflood_within(args, dir, limit);
    assert!(
        o.wall < limit,
        "{args:?}: still running after {limit:?} (killed)"
    );
    assert_eq!(
        o.code,
        Some(2),
        "{args:?}: exit {:?} after {:?}\n{}",
        o.code,
        o.wall,
        o.stderr
    );
    for e in expect {
        assert!(o.stderr.contains(e), "{args:?}: lacks {e:?}: {}", o.stderr);
    }
    assert!(!o.stderr.contains("panicked"), "{}", o.stderr);
}

/// `check` of `toml` written as `name`.toml in `dir`: refused with every one of `expect`.
fn check_refuses(dir: &Path, name: &str, toml: &str, expect: &[&str]) {
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, toml).unwrap();
    let mut expect = expect.to_vec();
    let file = format!("{name}.toml");
    if !expect.iter().any(|e| e.contains('.')) {
        expect.push(&file);
    }
    refused(
        &["check", path.to_str().unwrap()],
        dir,
        Duration::from_secs(60),
        &expect,
    );
}

fn check_passes(dir: &Path, name: &str, toml: &str) -> String {
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, toml).unwrap();
    let o = quadflood_within(
        &["check", path.to_str().unwrap()],
        dir,
        Duration::from_secs(60),
    );
    assert_eq!(o.code, Some(0), "{name}: {}", o.stderr);
    o.stdout
}

// ---------------------------------------------------------------------------------------
// Forcing and probes on nodata.

/// 10 x 8 cells of 10 m; nodata at the west edge's three northern cells, the north edge's
/// three western cells, and one cell inside (column 5, row 3 from the south).
fn holed_dem(dir: &Path) {
    let mut text = String::from(
        "ncols 10\nnrows 8\nxllcorner 0\nyllcorner 0\ncellsize 10\nNODATA_value -9999\n",
    );
    for row_from_top in 0..8 {
        let row = 7 - row_from_top;
        let line: Vec<&str> = (0..10)
            .map(|col| {
                let west = col == 0 && row >= 5;
                let north = row == 7 && col <= 2;
                let inside = col == 5 && row == 3;
                if west || north || inside {
                    "-9999"
                } else {
                    "1.0"
                }
            })
            .collect();
        text += &(line.join(" ") + "\n");
    }
    std::fs::write(dir.join("dem.asc"), text).unwrap();
}

const HOLED: &str = r#"
[terrain]
type = "raster"
path = "dem.asc"

[initial]
water_level = 1.5

[time]
end = 10.0
"#;

#[test]
fn forcing_and_probes_on_nodata_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    holed_dem(d);
    check_passes(d, "holed", HOLED);
    let with = |table: &str| format!("{HOLED}\n{table}\n");
    // Three of the west edge's eight cells are nodata: their share of the inflow was lost.
    check_refuses(
        d,
        "inflow",
        &with("[[boundary.segment]]\nedge = \"west\"\ntype = \"inflow\"\ndischarge = 5.0"),
        &[
            "boundary.segment[0]",
            "west edge",
            "3 of its 8 cells",
            "nodata",
        ],
    );
    check_refuses(
        d,
        "stage",
        &with("[[boundary.segment]]\nedge = \"north\"\ntype = \"stage\"\nfrom = 0.0\nto = 50.0\nlevel = 2.0"),
        &["boundary.segment[0]", "north edge", "3 of its 5 cells", "nodata"],
    );
    check_refuses(
        d,
        "open",
        &with("[[boundary.segment]]\nedge = \"north\"\ntype = \"open\""),
        &["boundary.segment[0]", "3 of its 10 cells", "nodata"],
    );
    // A gauge there reported the wall's bed, 1,000,001 m above the datum, as its level.
    check_refuses(
        d,
        "gauge",
        &with("[[gauge]]\nname = \"hole\"\nx = 55.0\ny = 35.0"),
        &["gauge[0]", "\"hole\"", "(55, 35)", "nodata"],
    );
    check_refuses(
        d,
        "section",
        &with("[[cross_section]]\nname = \"across\"\nline = [[45.0, 35.0], [75.0, 35.0]]"),
        &[
            "cross_section[0]",
            "\"across\"",
            "1 of its 4 cells",
            "nodata",
        ],
    );
    check_refuses(
        d,
        "source",
        &with("[[source]]\npoint = [55.0, 35.0]\ndischarge = 1.0"),
        &["source[0]", "1 of its 1 cells", "nodata"],
    );
    check_refuses(
        d,
        "outfall",
        &with("[[boundary.line]]\ntype = \"outfall\"\nline = [[5.0, 75.0], [45.0, 75.0]]"),
        &["boundary.line[0]", "3 of its 5 cells", "nodata"],
    );
    // On the cells just inside, all are accepted.
    check_passes(
        d,
        "inside",
        &with(
            "[[boundary.segment]]\nedge = \"west\"\ntype = \"inflow\"\nto = 50.0\ndischarge = 5.0\n\n\
             [[gauge]]\nname = \"dry land\"\nx = 65.0\ny = 35.0\n\n\
             [[cross_section]]\nname = \"across\"\nline = [[15.0, 5.0], [15.0, 45.0]]",
        ),
    );
}

// ---------------------------------------------------------------------------------------
// Coordinate reference systems from .prj files.

const WGS84: &str = r#"GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]"#;
const UTM11: &str = r#"PROJCS["WGS_1984_UTM_Zone_11N",GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",-117.0],PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]"#;
const UTM10: &str = r#"PROJCS["WGS_1984_UTM_Zone_10N",GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",-123.0],PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]"#;
const FEET: &str = r#"PROJCS["NAD_1983_StatePlane_California_III_FIPS_0403_Feet",GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Lambert_Conformal_Conic"],PARAMETER["False_Easting",6561666.667],PARAMETER["False_Northing",1640416.667],PARAMETER["Central_Meridian",-120.5],PARAMETER["Standard_Parallel_1",38.4333333333333],PARAMETER["Standard_Parallel_2",37.0666666666667],PARAMETER["Latitude_Of_Origin",36.5],UNIT["US survey foot",0.304800609601219]]"#;

/// An n x n ESRI ASCII grid of `value` at (xll, yll) with cells of `cell`, and beside it a
/// .prj holding `prj` (none when empty).
fn grid_with_prj(dir: &Path, stem: &str, (xll, yll, cell): (f64, f64, f64), value: f64, prj: &str) {
    let n = 12;
    let mut text =
        format!("ncols {n}\nnrows {n}\nxllcorner {xll}\nyllcorner {yll}\ncellsize {cell}\n");
    for _ in 0..n {
        text += &(vec![value.to_string(); n].join(" ") + "\n");
    }
    std::fs::write(dir.join(format!("{stem}.asc")), text).unwrap();
    if !prj.is_empty() {
        std::fs::write(dir.join(format!("{stem}.prj")), prj).unwrap();
    }
}

const ON_DEM: &str = "[terrain]\ntype = \"raster\"\npath = \"dem.asc\"\n[initial]\ndepth = 0.1\n[time]\nend = 1.0\n[output]\npng = false\n";

#[test]
fn a_dem_in_degrees_or_feet_beside_its_prj_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 0.001 degree cells, read as 0.001 m before.
    grid_with_prj(d, "dem", (-120.2, 39.4, 0.001), 1900.0, WGS84);
    check_refuses(
        d,
        "degrees",
        ON_DEM,
        &["dem.prj", "geographic", "a projected CRS in metres"],
    );
    grid_with_prj(d, "dem", (6561000.0, 1640000.0, 10.0), 100.0, FEET);
    check_refuses(
        d,
        "feet",
        ON_DEM,
        &["dem.prj", "foot", "a projected CRS in metres"],
    );
    // A .prj that is not a CRS at all.
    grid_with_prj(d, "dem", (0.0, 0.0, 10.0), 1.0, "hello");
    check_refuses(
        d,
        "garbled",
        ON_DEM,
        &["dem.prj", "a projected CRS in metres"],
    );
}

#[test]
fn rasters_whose_prj_differs_from_the_terrains_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let place = (500000.0, 4000000.0, 10.0);
    grid_with_prj(d, "dem", place, 100.0, UTM11);
    grid_with_prj(d, "n", place, 0.03, UTM10);
    let text = format!("{ON_DEM}[friction]\nraster = \"n.asc\"\n");
    check_refuses(d, "other_crs", &text, &["n.asc", "CRS", "terrain"]);
    // In the terrain's CRS, or with no .prj (taken to be in the terrain's), it passes.
    grid_with_prj(d, "n", place, 0.03, UTM11);
    check_passes(d, "same_crs", &text);
    std::fs::remove_file(d.join("n.prj")).unwrap();
    check_passes(d, "no_crs", &text);
}

/// A run on a UTM terrain writes its ESRI ASCII maps with a .prj beside each, and its
/// GeoTIFF maps with the CRS inside.
#[test]
fn the_terrains_prj_is_carried_to_the_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    grid_with_prj(d, "dem", (500000.0, 4000000.0, 10.0), 100.0, UTM11);
    let path = d.join("utm.toml");
    let formats: &[&str] = if cfg!(feature = "gdal") {
        &["ascii", "geotiff"]
    } else {
        &["ascii"]
    };
    for format in formats {
        std::fs::write(&path, format!("{ON_DEM}format = \"{format}\"\n")).unwrap();
        let out = d.join(format!("out-{format}"));
        let o = quadflood_within(
            &[
                "run",
                path.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "--quiet",
            ],
            d,
            Duration::from_secs(300),
        );
        assert_eq!(o.code, Some(0), "{}", o.stderr);
        let map = out.join(match *format {
            "ascii" => "depth_0000001.0s.asc",
            _ => "depth_0000001.0s.tif",
        });
        let crs = quadflood::io::georaster::read(&map)
            .unwrap_or_else(|e| panic!("{e}"))
            .crs
            .unwrap_or_else(|| panic!("{format}: {} has no CRS", map.display()));
        assert!(
            crs.contains("UTM") && crs.contains("11N"),
            "{format}: {crs}"
        );
        if *format == "ascii" {
            for name in [
                "depth_0000001.0s.prj",
                "max_depth.prj",
                "level_0000001.0s.prj",
            ] {
                assert!(out.join(name).exists(), "no {name}");
            }
        }
    }
}

/// A GeoTIFF terrain in US survey feet was taken as metres.
#[cfg(feature = "gdal")]
#[test]
fn a_geotiff_terrain_in_feet_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let r = quadflood::io::ascii_grid::Raster::new(8, 8, 6561000.0, 1640000.0, 10.0, None, 100.0);
    let wkt = gdal::spatial_ref::SpatialRef::from_epsg(2227)
        .unwrap()
        .to_wkt()
        .unwrap();
    quadflood::io::georaster::write_geotiff(&d.join("dem.tif"), &r, Some(&wkt)).unwrap();
    check_refuses(
        d,
        "feet_tif",
        &ON_DEM.replace("dem.asc", "dem.tif"),
        &["dem.tif", "foot", "a projected CRS in metres"],
    );
}

// ---------------------------------------------------------------------------------------
// Values that `check` accepted and that then hung the run.

const FLAT: &str = r#"
[domain]
cell_size = 1.0
nx = 20
ny = 20

[terrain]
type = "flat"

[initial]
depth = 0.5

[[gauge]]
name = "g"
x = 5.0
y = 5.0

[time]
end = 10.0
"#;

#[test]
fn values_that_would_take_forever_are_refused_at_check() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let set = |line: &str| FLAT.replace("end = 10.0", &format!("end = 10.0\n{line}"));
    check_refuses(d, "cfl", &set("cfl = 1e-300"), &["time.cfl", "0.01"]);
    check_refuses(
        d,
        "dt_max",
        &set("dt_max = 1e-9"),
        &["time.dt_max", "1e10 steps", "at most 1e9"],
    );
    check_refuses(
        d,
        "outputs",
        &set("output_interval = 1e-6"),
        &["time.output_interval", "at most"],
    );
    check_refuses(
        d,
        "gauges",
        &set("gauge_interval = 2e-6"),
        &["time.gauge_interval", "at most 1e6"],
    );
    check_refuses(
        d,
        "far_future",
        &FLAT.replace("end = 10.0", "end = 1e300"),
        &["time.end"],
    );
    check_passes(
        d,
        "fine",
        &set("cfl = 0.05\ndt_max = 1e-3\ngauge_interval = 1e-3"),
    );
    // Cells of 1e-45 m checked fine, then the run never took a step (its dt underflows
    // what the GPU's clock can add); cells of 1e308 m ran into exit 4.
    for (name, size) in [("tiny_cells", "1e-45"), ("huge_cells", "1e308")] {
        let text = FLAT.replace("cell_size = 1.0", &format!("cell_size = {size}"));
        check_refuses(d, name, &text, &["domain.cell_size", "from 0.001"]);
    }
    let mm = FLAT
        .replace("cell_size = 1.0", "cell_size = 0.001")
        .replace("x = 5.0\ny = 5.0", "x = 0.005\ny = 0.005");
    check_passes(d, "mm_cells", &mm);
    // n = 1e30 overflowed g n² in f32: the run lost 94% of its water, then stopped.
    let rough = |n: &str| format!("{FLAT}\n[friction]\nmanning = {n}\n");
    check_refuses(
        d,
        "manning",
        &rough("1e30"),
        &["friction.manning", "from 0 to 10"],
    );
    check_passes(d, "buildings", &rough("1.0"));
}

/// A run starting at t = 1e15 s passed `check` and then never ended: the GPU's clock (a
/// pair of f32) cannot step on by a fraction of a second from there.
#[test]
fn a_clock_that_cannot_step_on_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let late = FLAT.replace("end = 10.0", "start = 1e15\nend = 1000000000000010.0");
    check_refuses(d, "late", &late, &["time.start", "1e15", "±1e9 s"]);
    let out = d.join("out");
    let path = d.join("late.toml");
    refused(
        &[
            "run",
            path.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ],
        d,
        Duration::from_secs(60),
        &["time.start"],
    );
    let early = FLAT.replace("end = 10.0", "start = -2e9\nend = 10.0");
    check_refuses(d, "early", &early, &["time.start", "-2e9"]);
    check_passes(
        d,
        "a_year",
        &FLAT.replace("end = 10.0", "start = -3.1e7\nend = 3.1e7"),
    );
}

/// A negative or NaN arrival depth was accepted and made every cell "arrive" at the start
/// (or none ever), a map that looks like a result.
#[test]
fn an_arrival_depth_that_is_no_depth_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (name, value) in [("negative", "-1.0"), ("nan", "nan"), ("zero", "0.0")] {
        let text = format!("{FLAT}\n[output]\narrival_depth = {value}\n");
        check_refuses(
            d,
            name,
            &text,
            &["output.arrival_depth", "expected a depth > 0 m"],
        );
    }
}

/// A cross-section may cross the walls the scenario builds (a levee, with or without a
/// crest, a weir): a section across a floodplain crosses its embankments. Refused as if
/// over nodata before (found by the long fault corpus once crested levees became walls).
#[test]
fn a_cross_section_may_cross_levees_and_weirs() {
    let dir = tempfile::tempdir().unwrap();
    for (name, wall) in [
        ("wall", "[[levee]]\nline = [[10.5, 0.0], [10.5, 19.9]]\n"),
        (
            "crest",
            "[[levee]]\nline = [[10.5, 0.0], [10.5, 19.9]]\ncrest = 2.0\n",
        ),
        (
            "weir",
            "[[weir]]\nline = [[10.5, 0.0], [10.5, 19.9]]\ncrest = 2.0\n",
        ),
    ] {
        let text = format!(
            "{FLAT}\n{wall}\n[[cross_section]]\nname = \"across\"\nline = [[2.0, 5.0], [18.0, 5.0]]\n"
        );
        check_passes(dir.path(), name, &text);
    }
}

/// A weir coefficient on a levee without a crest (a wall) was accepted and did nothing
/// (a hunt): refused, naming the key.
#[test]
fn a_coefficient_on_a_wall_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        format!("{FLAT}\n[[levee]]\nline = [[10.5, 0.0], [10.5, 19.9]]\ncoefficient = 1.5\n");
    check_refuses(
        dir.path(),
        "wall",
        &text,
        &["levee[0].coefficient", "crest"],
    );
}

/// Two culverts drawing on one cell could take more than it holds, and the clip at zero
/// made water (a hunt: three culverts with one inlet, 1.04e-3 of the volume): refused.
#[test]
fn culverts_sharing_an_end_cell_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let culvert = |name: &str, outlet: &str| {
        format!("[[culvert]]\nname = \"{name}\"\nshape = \"box\"\nwidth = 1.0\nheight = 1.0\ninlet = [3.5, 3.5]\noutlet = {outlet}\n")
    };
    let text = format!(
        "{FLAT}\n{}{}",
        culvert("a", "[15.5, 15.5]"),
        culvert("b", "[15.5, 3.5]")
    );
    check_refuses(dir.path(), "shared", &text, &["culvert[1]", "culvert[0]"]);
}

/// A levee that doubles back with one row of cells between its branches: that row is the
/// first branch's end, so the second's stretch had no cell of its own on that side and
/// passed nothing, though water stood over its crest. Refused, naming where; two rows
/// between give each branch its own.
#[test]
fn a_crest_whose_side_is_all_another_stretchs_end_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let levee = |back: f64| {
        format!("{FLAT}\n[[levee]]\nline = [[1.5, 10.5], [17.5, 10.5], [17.5, {back}], [1.5, {back}]]\ncrest = 1.0\n")
    };
    check_refuses(
        dir.path(),
        "doubled",
        &levee(12.5),
        &[
            "levee[0].line",
            "another stretch of the same line",
            "(11.5, 11.5)",
        ],
    );
    let path = dir.path().join("apart.toml");
    std::fs::write(&path, levee(13.5)).unwrap();
    let o = quadflood_within(
        &["check", path.to_str().unwrap()],
        dir.path(),
        Duration::from_secs(60),
    );
    assert_eq!(o.code, Some(0), "{}", o.stderr);
}

/// Water no flood holds: `check` accepted 1e20 m of it, or 1e6 m/s, and the run then
/// stopped at its first step as unstable (exit 4). Now refused at check, naming where.
#[test]
fn an_initial_state_no_flood_holds_is_refused_at_check() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (name, change, expect) in [
        ("deep", "depth = 1e20", "expected at most 1e5 m"),
        (
            "fast",
            "depth = 0.5\nu = 1e6",
            "a velocity of (1000000, 0) m/s",
        ),
        (
            "fast_v",
            "depth = 0.5\nv = -2e4",
            "expected at most 10000 m/s",
        ),
    ] {
        let text = FLAT.replace("depth = 0.5", change);
        check_refuses(d, name, &text, &["initial", expect]);
    }
}

#[test]
fn a_tiny_checkpoint_interval_is_refused_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let path = d.join("flat.toml");
    std::fs::write(&path, FLAT).unwrap();
    let out = d.join("out");
    for every in ["1e-300", "1e-6"] {
        // The run took under 2 s; it hung in working out the checkpoint times.
        refused(
            &[
                "run",
                path.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "--quiet",
                "--checkpoint-every",
                every,
            ],
            d,
            Duration::from_secs(60),
            &["--checkpoint-every", "at most 1e6"],
        );
        assert!(!out.exists(), "a refused run made {}", out.display());
    }
}

/// A source polygon of 40 000 vertices (a catchment from a GIS) over a grid of a million
/// cells took minutes to check: every edge was tested for every cell.
#[test]
fn a_polygon_with_many_vertices_checks_quickly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let n = 40_000;
    let points: Vec<String> = (0..n)
        .map(|k| {
            let a = std::f64::consts::TAU * k as f64 / n as f64;
            let r = 400.0 + 3.0 * (7.0 * a).sin();
            format!("[{:.3}, {:.3}]", 500.0 + r * a.cos(), 500.0 + r * a.sin())
        })
        .collect();
    let text = format!(
        "[domain]\ncell_size = 1.0\nnx = 1000\nny = 1000\n[terrain]\ntype = \"flat\"\n\
         [[source]]\npolygon = [{}]\ndischarge = 1.0\n[time]\nend = 1.0\n",
        points.join(", ")
    );
    let path = d.join("catchment.toml");
    std::fs::write(&path, text).unwrap();
    // About a second when edges are looked up by height.
    let limit = Duration::from_secs(30);
    let o = quadflood_within(&["check", path.to_str().unwrap()], d, limit);
    assert!(o.wall < limit, "still checking after {limit:?}");
    assert_eq!(o.code, Some(0), "{}", o.stderr);
}

// ---------------------------------------------------------------------------------------
// Memory.

/// 20000 x 20000 cells passed the old guard (8 bytes per cell: 3.2 GB under a 4 GiB limit)
/// and then aborted in an allocation, with signal 6, after most of a minute.
#[test]
fn a_grid_larger_than_the_memory_at_hand_is_refused_not_aborted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let big = FLAT
        .replace("nx = 20", "nx = 20000")
        .replace("ny = 20", "ny = 20000");
    check_refuses(
        d,
        "big",
        &big,
        &["domain.nx", "20000 x 20000", "GB", "available"],
    );
}

/// Peak host memory (VmHWM) of `quadflood ARGS`, as it reports it.
fn peak_bytes(args: &[&str], dir: &Path) -> u64 {
    let o = Command::new(env!("CARGO_BIN_EXE_quadflood"))
        .args(args)
        .current_dir(dir)
        .env("XDG_RUNTIME_DIR", "/tmp")
        .env("QUADFLOOD_REPORT_PEAK_MEMORY", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{args:?}: {stderr}");
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("quadflood: peak host memory "))
        .and_then(|l| l.trim_end_matches(" bytes").parse().ok())
        .unwrap_or_else(|| panic!("no peak reported: {stderr}"))
}

/// The guard's figures per cell bound what `check` and a run (every output on, lavapipe's
/// GPU buffers in host memory) take at their peak, and not by more than twice: measured as
/// the growth of the peak between two grid sizes, which leaves the libraries' share out.
#[test]
fn the_memory_guard_bounds_the_measured_peak() {
    use quadflood::scenario::limits::*;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let scenario = |n: usize| {
        let path = d.join(format!("wet{n}.toml"));
        let text = format!(
            "[domain]\ncell_size = 1.0\nnx = {n}\nny = {n}\n[terrain]\ntype = \"expression\"\n\
             expression = \"0.001*x + 0.1*sin(y/10)\"\n[initial]\ndepth = 0.5\n[time]\nend = 0.02\n"
        );
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let per_cell = |small: usize, large: usize, args: &dyn Fn(&str) -> Vec<String>| {
        let peak = |n: usize| {
            let a = args(&scenario(n));
            peak_bytes(&a.iter().map(String::as_str).collect::<Vec<_>>(), d)
        };
        let (p0, p1) = (peak(small), peak(large));
        (p1 as f64 - p0 as f64) / ((large * large - small * small) as f64)
    };
    let check = per_cell(1024, 2048, &|s| vec!["check".into(), s.into()]);
    let build = (BUILD_BYTES_PER_FINEST_CELL + BUILD_BYTES_PER_STORED_CELL) as f64;
    println!("check: {check:.1} bytes per cell at its peak; the guard counts {build}");
    assert!(
        check <= build && build <= 2.0 * check,
        "check {check}, guard {build}"
    );
    let out = d.join("out");
    let run = per_cell(512, 1024, &|s| {
        vec![
            "run".into(),
            s.into(),
            "--quiet".into(),
            "--out".into(),
            out.to_str().unwrap().into(),
        ]
    });
    let gpu = quadflood::gpu::Gpu::open(None).expect("a GPU adapter");
    let guard = (RUN_BYTES_PER_FINEST_CELL
        + RUN_BYTES_PER_STORED_CELL
        + if gpu.is_cpu() {
            GPU_BYTES_PER_STORED_CELL
        } else {
            0
        }) as f64;
    println!("run: {run:.1} bytes per cell at its peak; the guard counts {guard}");
    assert!(
        run <= guard && guard <= 2.0 * run,
        "run {run}, guard {guard}"
    );
}

// ---------------------------------------------------------------------------------------
// Bench arguments.

#[test]
fn bench_arguments_out_of_range_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let limit = Duration::from_secs(120);
    for (args, flag) in [
        (&["--n", "0"][..], "--n"),
        (&["--n", "100000"][..], "--n"),
        (&["--n", "64", "--ny", "0"][..], "--ny"),
        (&["--n", "64", "--steps", "0"][..], "--steps"),
        (&["--n", "64", "--split", "100"][..], "--split"),
        (&["--n", "64", "--split", "0"][..], "--split"),
    ] {
        let mut all = vec!["bench"];
        all.extend_from_slice(args);
        refused(&all, d, limit, &[flag, "expected"]);
    }
}

// ---------------------------------------------------------------------------------------
// Reads with no end.

/// A link named `name` in `dir` to /dev/zero, an endless file.
fn endless(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
    path
}

/// A sparse file of 64 GiB of zeros named `name` in `dir` (no disk used).
fn huge(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::File::create(&path)
        .unwrap()
        .set_len(64 << 30)
        .unwrap();
    path
}

#[test]
fn endless_and_huge_inputs_are_cut_short() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Each ends in well under a second when bounded; reading 4 GiB of zeros took 3-5 s.
    let limit = Duration::from_secs(20);
    let check = |scenario: &Path, expect: &[&str]| {
        refused(&["check", scenario.to_str().unwrap()], d, limit, expect);
    };
    check(&endless(d, "zero.toml"), &["zero.toml", "larger than"]);
    check(&huge(d, "huge.toml"), &["huge.toml", "larger than"]);
    let scenario = |name: &str, text: &str| {
        let path = d.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let on_raster = |file: &str| {
        format!("[terrain]\ntype = \"raster\"\npath = \"{file}\"\n[time]\nend = 1.0\n")
    };
    endless(d, "zero.asc");
    check(
        &scenario("asc.toml", &on_raster("zero.asc")),
        &["zero.asc", "header"],
    );
    huge(d, "huge.asc");
    check(
        &scenario("huge_asc.toml", &on_raster("huge.asc")),
        &["huge.asc", "header"],
    );
    endless(d, "zero.tif");
    check(
        &scenario("tif.toml", &on_raster("zero.tif")),
        &["zero.tif", "not a regular file"],
    );
    // A header that promises 2 x 2 values, then gigabytes of blanks.
    let mut f = std::fs::File::create(d.join("padded.asc")).unwrap();
    std::io::Write::write_all(
        &mut f,
        b"ncols 2\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2\n3 4\n",
    )
    .unwrap();
    f.set_len(64 << 30).unwrap();
    check(
        &scenario("padded.toml", &on_raster("padded.asc")),
        &["padded.asc", "larger than"],
    );
    // A .prj beside a good grid.
    grid_with_prj(d, "dem", (0.0, 0.0, 10.0), 1.0, "");
    endless(d, "dem.prj");
    check(
        &scenario("prj.toml", &on_raster("dem.asc")),
        &["dem.prj", "larger than"],
    );
    let flat = "[domain]\ncell_size = 1.0\nnx = 20\nny = 20\n[terrain]\ntype = \"flat\"\n[time]\nend = 1.0\n";
    endless(d, "zero.csv");
    let inflow = format!("{flat}[[boundary.segment]]\nedge = \"west\"\ntype = \"inflow\"\ndischarge = {{ csv = \"zero.csv\", time_unit = \"s\", unit = \"m3/s\" }}\n");
    check(&scenario("csv.toml", &inflow), &["zero.csv", "larger than"]);
    huge(d, "huge.csv");
    check(
        &scenario("huge_csv.toml", &inflow.replace("zero.csv", "huge.csv")),
        &["huge.csv", "larger than"],
    );
    let rain = format!("{flat}[rain]\nrasters = {{ paths = [\"zero.asc\"], times = [0.0], time_unit = \"s\", unit = \"mm/h\" }}\n");
    check(&scenario("rain.toml", &rain), &["zero.asc", "header"]);
    if cfg!(feature = "gdal") {
        // OGR's KML reader took all it was given.
        endless(d, "zero.kml");
        let levee = format!("{flat}[[levee]]\nline = {{ vector = \"zero.kml\" }}\n");
        check(
            &scenario("kml.toml", &levee),
            &["zero.kml", "not a regular file"],
        );
        huge(d, "huge.kml");
        check(
            &scenario("huge_kml.toml", &levee.replace("zero.kml", "huge.kml")),
            &["huge.kml", "larger than"],
        );
    }
}

/// A 4 x 3 grid of 10 m cells at 100-101 m with one odd cell, no nodata line unless given.
fn dem_with(dir: &Path, name: &str, odd: &str, nodata: Option<&str>) {
    let mut text = String::from("ncols 4\nnrows 3\nxllcorner 0\nyllcorner 0\ncellsize 10\n");
    if let Some(v) = nodata {
        text += &format!("NODATA_value {v}\n");
    }
    text += &format!("100 100.5 101 100\n100 {odd} 100.2 100\n100.1 100 100 100.3\n");
    std::fs::write(dir.join(name), text).unwrap();
}

/// A terrain value that no elevation can be: Float32's nodata (-3.4e38) in a grid whose
/// header named no nodata value made a run exit 0 with its datum at -3.4e38 and every map
/// wrong; one -inf cell made every map nodata, also with exit 0. A usual nodata value such
/// as -9999 with no nodata line made a 10 km cliff. Each is refused, naming the file, the
/// key, the value and the cell; declared as nodata, the same values are fine.
#[test]
fn terrain_values_that_are_no_elevation_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let scenario = |dem: &str| {
        format!(
            "[terrain]\ntype = \"raster\"\npath = \"{dem}\"\n[initial]\ndepth = 0.1\n[time]\nend = 1.0\n"
        )
    };
    for (name, odd) in [
        ("f32_nodata", "-3.4028235e38"),
        ("neg_inf", "-inf"),
        ("huge", "1e400"),
    ] {
        let dem = format!("{name}.asc");
        dem_with(d, &dem, odd, None);
        check_refuses(
            d,
            name,
            &scenario(&dem),
            &[
                &dem,
                "terrain.path",
                "not an elevation",
                "column 2 and row 2",
            ],
        );
    }
    dem_with(d, "sentinel.asc", "-9999", None);
    check_refuses(
        d,
        "sentinel",
        &scenario("sentinel.asc"),
        &[
            "sentinel.asc",
            "terrain.path",
            "-9999",
            "NODATA_value -9999",
        ],
    );
    dem_with(d, "declared.asc", "-3.4028235e38", Some("-3.4028235e38"));
    check_passes(d, "declared", &scenario("declared.asc"));
    dem_with(d, "declared_9999.asc", "-9999", Some("-9999"));
    check_passes(d, "declared_9999", &scenario("declared_9999.asc"));
}
