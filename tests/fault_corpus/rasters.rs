//! Hostile rasters: ESRI ASCII grids with headers dropped, doubled, renamed or given
//! values no grid has (zero, negative, huge, not a number), values that are not numbers or
//! are out of range, too many or too few, nodata holes, CRLF, tabs, a byte-order mark,
//! NUL bytes, cut short; and GeoTIFFs written through GDAL of every cell type, rotated,
//! south-up, with zero-sized or non-square cells, geographic CRSs, NaN and nodata cells,
//! several bands, cut short or with bytes flipped. As terrain, initial depth or Manning's n,
//! `check` must accept them (exit 0) or refuse them (exit 2) naming the file; now and then
//! an accepted one is run too, which must end as documented with its files whole.

use super::case::{arg, Case};
use super::proc::Limits;
use super::rng::Rng;
use super::verdict::Bound;
use std::fmt::Write as _;
use std::path::Path;

/// An ESRI grid: its header lines and its values as text, row by row from the north.
struct Ascii {
    header: Vec<(String, String)>,
    values: Vec<String>,
    ncols: usize,
}

impl Ascii {
    fn new(
        ncols: usize,
        nrows: usize,
        xll: f64,
        yll: f64,
        cell: f64,
        f: impl Fn(usize, usize) -> f64,
    ) -> Ascii {
        let header = [
            ("ncols", ncols.to_string()),
            ("nrows", nrows.to_string()),
            ("xllcorner", format!("{xll:?}")),
            ("yllcorner", format!("{yll:?}")),
            ("cellsize", format!("{cell:?}")),
            ("NODATA_value", "-9999".into()),
        ]
        .map(|(k, v)| (k.to_string(), v))
        .to_vec();
        let values = (0..nrows)
            .flat_map(|r| (0..ncols).map(move |c| (c, r)))
            .map(|(c, r)| format!("{:.3}", f(c, r)))
            .collect();
        Ascii {
            header,
            values,
            ncols,
        }
    }

    fn text(&self) -> String {
        let mut s = String::new();
        for (k, v) in &self.header {
            writeln!(s, "{k} {v}").unwrap();
        }
        for row in self.values.chunks(self.ncols.max(1)) {
            writeln!(s, "{}", row.join(" ")).unwrap();
        }
        s
    }
}

const HOSTILE_NUMBERS: &[&str] = &[
    "0",
    "-1",
    "-0",
    "1e9",
    "100000",
    "99999999999999999999",
    "1e308",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "3.5",
    "abc",
    "",
    "0x10",
    "1_000",
    "+4",
    "4.0",
    "1e-320",
    "-9999",
];
const HOSTILE_VALUES: &[&str] = &[
    "nan", "NaN", "inf", "-inf", "1e400", "-1e400", "1e38", "-1e38", "3.4e38", "1e-400", "-",
    "1.2.3", "1,5", "0x1F", "\u{661}", "+", "e5", ".", "-9999", "-9999.0", "1e30", "-1e6", "1e6",
    "-0.5", "0",
];

/// One to two changes to an ESRI grid; returns the bytes and what changed.
fn mutate_ascii(rng: &mut Rng, mut g: Ascii) -> (Vec<u8>, String) {
    let mut what = Vec::new();
    for _ in 0..1 + rng.below(2) {
        let k = rng.below(g.header.len().max(1));
        let n = g.values.len();
        match rng.below(14) {
            0 if !g.header.is_empty() => {
                what.push(format!("header {} dropped", g.header.remove(k).0));
            }
            1 if !g.header.is_empty() => {
                let dup = (g.header[k].0.clone(), rng.pick(HOSTILE_NUMBERS).to_string());
                what.push(format!("header {} twice", dup.0));
                g.header.insert(rng.below(g.header.len()), dup);
            }
            2..=3 if !g.header.is_empty() => {
                let v = rng.pick(HOSTILE_NUMBERS).to_string();
                what.push(format!("header {} = {v:?}", g.header[k].0));
                g.header[k].1 = v;
            }
            4 if !g.header.is_empty() => {
                let renamed = rng
                    .pick(&[
                        "xllcenter",
                        "yllcenter",
                        "NCOLS",
                        "ncol",
                        "nodata_value",
                        "NODATA",
                        "dx",
                        "cellsize",
                    ])
                    .to_string();
                what.push(format!("header {} renamed {renamed}", g.header[k].0));
                g.header[k].0 = renamed;
            }
            5 => {
                let (a, b) = (
                    rng.pick(&["ncols", "nrows"]).to_string(),
                    rng.pick(&["100000", "65536", "1000000"]).to_string(),
                );
                what.push(format!("{a} = {b} (far more cells than values)"));
                g.header.retain(|h| h.0 != a);
                g.header.insert(0, (a, b));
            }
            6..=8 if n > 0 => {
                let v = rng.pick(HOSTILE_VALUES).to_string();
                let count = 1 + rng.below(3);
                for _ in 0..count {
                    let i = rng.below(n);
                    g.values[i] = v.clone();
                }
                what.push(format!("{count} values {v:?}"));
            }
            9 if n > 0 => {
                let drop = 1 + rng.below(n.min(5));
                g.values.truncate(n - drop);
                what.push(format!("{drop} values too few"));
            }
            10 => {
                let more = 1 + rng.below(5);
                g.values.extend((0..more).map(|_| "1.0".to_string()));
                what.push(format!("{more} values too many"));
            }
            11 if n > 0 => {
                let from = rng.below(n);
                let to = (from + g.ncols.max(1) * (1 + rng.below(3))).min(n);
                g.values[from..to]
                    .iter_mut()
                    .for_each(|v| *v = "-9999".into());
                what.push(format!("nodata in values {from}..{to}"));
            }
            12 => {
                g.values.iter_mut().for_each(|v| *v = "-9999".into());
                what.push("every value nodata".into());
            }
            _ => {
                let text = g.text();
                return text_mutation(rng, text, what);
            }
        }
    }
    (g.text().into_bytes(), what.join("; "))
}

/// A change to the file's text as a whole.
fn text_mutation(rng: &mut Rng, text: String, mut what: Vec<String>) -> (Vec<u8>, String) {
    let mut bytes = text.clone().into_bytes();
    match rng.below(8) {
        0 => {
            bytes = text.replace('\n', "\r\n").into_bytes();
            what.push("CRLF".into());
        }
        1 => {
            bytes = text.replace(' ', "\t").into_bytes();
            what.push("tabs".into());
        }
        2 => {
            bytes = format!("\u{feff}{text}").into_bytes();
            what.push("a byte-order mark".into());
        }
        3 => {
            let k = rng.below(bytes.len());
            bytes.insert(k, 0);
            what.push(format!("a NUL byte at {k}"));
        }
        4 => {
            let k = rng.below(bytes.len());
            bytes.truncate(k);
            what.push(format!("cut to {k} bytes"));
        }
        5 => {
            bytes.extend(b"\n\ngarbage at the end 1 2 3\n");
            what.push("trailing text".into());
        }
        6 => {
            bytes = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
            what.push("UTF-16".into());
        }
        _ => {
            bytes = text.replace('\n', "\n\n   ").into_bytes();
            what.push("blank lines and leading spaces".into());
        }
    }
    (bytes, what.join("; "))
}

/// A GeoTIFF written through GDAL: of a random cell type, geotransform, nodata, CRS and
/// band count, then now and then cut short or with bytes flipped. Returns what it is.
fn geotiff(
    rng: &mut Rng,
    path: &Path,
    size: (usize, usize),
    cell: f64,
    f: &dyn Fn(usize, usize) -> f64,
) -> String {
    use gdal::raster::Buffer;
    let (w, h) = size;
    let driver = gdal::DriverManager::get_driver_by_name("GTiff").unwrap();
    let bands = 1 + usize::from(rng.percent(15)) * rng.below(3);
    let kind = *rng.pick(&["f32", "f64", "i16", "u8", "i32", "u16"]);
    let mut ds = match kind {
        "f64" => driver.create_with_band_type::<f64, _>(path, w, h, bands),
        "i16" => driver.create_with_band_type::<i16, _>(path, w, h, bands),
        "u8" => driver.create_with_band_type::<u8, _>(path, w, h, bands),
        "i32" => driver.create_with_band_type::<i32, _>(path, w, h, bands),
        "u16" => driver.create_with_band_type::<u16, _>(path, w, h, bands),
        _ => driver.create_with_band_type::<f32, _>(path, w, h, bands),
    }
    .unwrap();
    let (x0, y0) = (rng.int(0, 900_000) as f64, rng.int(0, 5_000_000) as f64);
    let gt = match rng.below(10) {
        0 => ("south-up", [x0, cell, 0.0, y0, 0.0, cell]),
        1 => ("rotated", [x0, cell, 0.1, y0, 0.1, -cell]),
        2 => ("zero-sized cells", [x0, 0.0, 0.0, y0, 0.0, 0.0]),
        3 => ("non-square cells", [x0, cell, 0.0, y0, 0.0, -2.0 * cell]),
        4 => ("west-pointing", [x0, -cell, 0.0, y0, 0.0, -cell]),
        _ => ("north-up", [x0, cell, 0.0, y0, 0.0, -cell]),
    };
    ds.set_geo_transform(&gt.1).unwrap();
    let crs = *rng.pick(&["none", "none", "32633", "4326", "3857"]);
    if let Ok(epsg) = crs.parse::<u32>() {
        ds.set_spatial_ref(&gdal::spatial_ref::SpatialRef::from_epsg(epsg).unwrap())
            .unwrap();
    }
    let nodata = *rng.pick(&[
        None,
        Some(-9999.0),
        Some(f64::NAN),
        Some(0.0),
        Some(f(0, 0).round()),
    ]);
    let mut values: Vec<f64> = (0..h)
        .flat_map(|r| (0..w).map(move |c| (c, r)))
        .map(|(c, r)| f(c, r))
        .collect();
    for _ in 0..rng.below(3) {
        let i = rng.below(values.len());
        values[i] = *rng.pick(&[f64::NAN, f64::INFINITY, -1e30, 1e30, -9999.0]);
    }
    for b in 1..=bands {
        let mut band = ds.rasterband(b).unwrap();
        let _ = band.set_no_data_value(nodata);
        let written = match kind {
            "f64" => band.write((0, 0), (w, h), &mut Buffer::new((w, h), values.clone())),
            "i16" => band.write(
                (0, 0),
                (w, h),
                &mut Buffer::new((w, h), values.iter().map(|&v| v as i16).collect()),
            ),
            "u8" => band.write(
                (0, 0),
                (w, h),
                &mut Buffer::new((w, h), values.iter().map(|&v| v as u8).collect()),
            ),
            "i32" => band.write(
                (0, 0),
                (w, h),
                &mut Buffer::new((w, h), values.iter().map(|&v| v as i32).collect()),
            ),
            "u16" => band.write(
                (0, 0),
                (w, h),
                &mut Buffer::new((w, h), values.iter().map(|&v| v as u16).collect()),
            ),
            _ => band.write(
                (0, 0),
                (w, h),
                &mut Buffer::new((w, h), values.iter().map(|&v| v as f32).collect()),
            ),
        };
        written.unwrap();
    }
    ds.close().unwrap();
    let mut what = format!(
        "GeoTIFF {w}x{h} {kind}, {} band(s), {}, CRS {crs}, nodata {nodata:?}",
        bands, gt.0
    );
    let mut bytes = std::fs::read(path).unwrap();
    match rng.below(10) {
        0 => {
            let k = rng.below(bytes.len());
            bytes.truncate(k);
            write!(what, ", cut to {k} bytes").unwrap();
        }
        1 => {
            for _ in 0..1 + rng.below(4) {
                let k = rng.below(bytes.len());
                bytes[k] ^= 1 + rng.below(255) as u8;
            }
            what += ", bytes flipped";
        }
        _ => {}
    }
    std::fs::write(path, bytes).unwrap();
    what
}

pub fn case(c: &mut Case) {
    let rng = &mut c.rng;
    let (w, h) = (rng.int(1, 40) as usize, rng.int(1, 40) as usize);
    let cell = *rng.pick(&[0.5, 1.0, 2.0, 5.0]);
    let (xll, yll) = (rng.int(0, 900_000) as f64, rng.int(0, 5_000_000) as f64);
    let z = rng.float(-10.0, 100.0);
    let dem = move |c: usize, r: usize| z + 0.01 * c as f64 - 0.02 * r as f64;
    let with_depth = rng.percent(40);
    let with_n = rng.percent(30);
    let tif = rng.percent(30);
    let hostile = match (with_depth, with_n, rng.below(10)) {
        (true, _, 0..=1) => "depth",
        (_, true, 2..=3) => "n",
        _ => "dem",
    };
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut what = String::new();
    for (name, used, f) in [
        ("dem", true, &dem as &dyn Fn(usize, usize) -> f64),
        ("depth", with_depth, &|c: usize, _r: usize| {
            0.05 * (c % 3) as f64
        }),
        ("n", with_n, &|_c: usize, _r: usize| 0.03),
    ] {
        if !used {
            continue;
        }
        let base = Ascii::new(w, h, xll, yll, cell, f);
        if name != hostile {
            files.push((format!("{name}.asc"), base.text().into_bytes()));
        } else if tif {
            let path = c.dir.join(format!("{name}.tif"));
            what = geotiff(rng, &path, (w, h), cell, f);
            files.push((format!("{name}.tif"), std::fs::read(&path).unwrap()));
        } else {
            let (bytes, w) = mutate_ascii(rng, base);
            what = format!("ESRI {name}: {w}");
            files.push((format!("{name}.asc"), bytes));
        }
    }
    let file_of = |stem: &str| {
        files
            .iter()
            .find(|f| f.0.starts_with(stem))
            .map(|f| f.0.clone())
    };
    let mut toml = format!(
        "name = \"raster\"\n\n[terrain]\ntype = \"raster\"\npath = \"{}\"\n\n",
        file_of("dem").unwrap()
    );
    if let Some(f) = file_of("depth") {
        writeln!(
            toml,
            "[initial]\nraster = {{ path = \"{f}\", kind = \"depth\" }}\n"
        )
        .unwrap();
    }
    match file_of("n.") {
        Some(f) => writeln!(toml, "[friction]\nraster = \"{f}\"\n").unwrap(),
        None => writeln!(toml, "[friction]\nmanning = 0.03\n").unwrap(),
    }
    toml +=
        "[time]\nend = 1.0\noutput_interval = 0.5\n\n[output]\nformat = \"ascii\"\npng = false\n";
    c.note(format!(
        "{w}x{h} cells of {cell} m; {hostile} hostile: {what}"
    ));
    for (name, bytes) in &files {
        c.write(name, bytes);
    }
    let scenario = c.write("raster.toml", toml.as_bytes());
    let names = vec![arg(&c.dir)];
    let o = c.quadflood(&["check".into(), arg(&scenario)], &Limits::quick());
    c.judge(&o, &names);
    if o.code == Some(0) && c.rng.percent(if c.long { 20 } else { 6 }) {
        let out = c.dir.join("out");
        let o = c.quadflood(
            &["run", &arg(&scenario), "--out", &arg(&out), "--quiet"].map(String::from),
            &Limits::gpu(),
        );
        c.judge(&o, &names);
        if o.code == Some(0) {
            c.expect_sound(&out, &Bound::unbounded());
        }
        c.expect_whole(&out, false);
    }
}
