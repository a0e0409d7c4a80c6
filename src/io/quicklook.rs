//! PNG quick-looks: a depth map over a hillshade of the terrain, with a title and a colour
//! bar. Text is drawn with a built-in 5×7 font, so no system fonts are needed.

use image::{Rgb, RgbImage};
use std::path::Path;

pub struct QuickLook<'a> {
    pub nx: usize,
    pub ny: usize,
    /// Row 0 is the south row.
    pub values: &'a [f32],
    /// False outside the domain.
    pub valid: &'a [bool],
    /// Bed elevation for the hillshade under dry cells, laid out like `values`.
    pub terrain: Option<&'a [f32]>,
    pub cell_size: f64,
    /// E.g. "depth t = 600.0 s".
    pub title: String,
    /// E.g. "m".
    pub units: String,
    /// Top of the colour scale.
    pub vmax: f32,
    /// Water shallower than this is drawn as dry land: a film of rain on every cell would
    /// otherwise tint the whole map and hide the terrain.
    pub min_depth: f32,
}

/// Text is drawn at twice the font's size: a 5×7 glyph in a 6-pixel advance.
const TEXT_SCALE: u32 = 2;
const CHAR_W: u32 = 6 * TEXT_SCALE;
const CHAR_H: u32 = 7 * TEXT_SCALE;
const PAD: u32 = 10;
/// Title line, then the units line above the colour bar, then the map.
const UNITS_Y: u32 = PAD + CHAR_H + 6;
const MAP_Y: u32 = UNITS_Y + CHAR_H + 12;
const BAR_W: u32 = 18;
const TICK_W: u32 = 4;
const MIN_BAR_H: u32 = 200;
/// The map's longer side in pixels stays within these, up to the integer scaling.
const MIN_SIDE: usize = 400;
const MAX_SIDE: usize = 1600;
const WHITE: Rgb<u8> = Rgb([255, 255, 255]);
const INK: Rgb<u8> = Rgb([20, 20, 20]);
/// Dry cells when there is no terrain to shade.
const DRY: Rgb<u8> = Rgb([215, 215, 215]);

pub fn write_quicklook(path: &Path, q: &QuickLook) -> Result<(), String> {
    let image = render(q).map_err(|m| format!("{}: {m}", path.display()))?;
    save_png(path, &image)
}

/// Writes a PNG whole or not at all (`io::durable`); the error names the file.
pub fn save_png(path: &Path, image: &RgbImage) -> Result<(), String> {
    crate::io::durable::replace(path, |tmp| {
        image.save_with_format(tmp, image::ImageFormat::Png)
    })
    .map_err(|e| e.to_string())
}

/// The quick-look as an image: title, map and colour bar.
pub fn render(q: &QuickLook) -> Result<RgbImage, String> {
    check(q)?;
    // A scale with no top would make every wet cell the same colour; fall back to 1.
    let vmax = if q.vmax > 0.0 && q.vmax.is_finite() {
        q.vmax
    } else {
        1.0
    };
    let map = render_map(q, vmax);
    let (mw, mh) = map.dimensions();
    let bar_h = mh.max(MIN_BAR_H);
    let bar_x = PAD + mw + 2 * PAD;
    let labels: Vec<String> = (0..=4)
        .map(|k| format_tick(vmax * k as f32 / 4.0))
        .collect();
    let legend_w = labels
        .iter()
        .map(|l| BAR_W + TICK_W + 4 + text_width(l))
        .chain([text_width(&q.units)])
        .max()
        .unwrap_or(0);
    let width = (bar_x + legend_w + PAD).max(2 * PAD + text_width(&q.title));
    // Half a label's height below the bottom tick.
    let height = MAP_Y + bar_h + CHAR_H / 2 + PAD;
    let mut img = RgbImage::from_pixel(width, height, WHITE);
    image::imageops::replace(&mut img, &map, PAD as i64, MAP_Y as i64);
    draw_text(&mut img, PAD, PAD, &q.title);
    draw_text(&mut img, bar_x, UNITS_Y, &q.units);
    draw_colour_bar(&mut img, bar_x, MAP_Y, bar_h, &labels);
    Ok(img)
}

/// Sizes that do not match would index out of bounds while drawing: say so instead.
fn check(q: &QuickLook) -> Result<(), String> {
    let n = q.nx * q.ny;
    if n == 0 {
        return Err(format!("empty grid ({} × {})", q.nx, q.ny));
    }
    let lengths = [
        ("values", Some(q.values.len())),
        ("valid", Some(q.valid.len())),
        ("terrain", q.terrain.map(<[f32]>::len)),
    ];
    for (name, len) in lengths {
        if let Some(len) = len.filter(|&l| l != n) {
            return Err(format!(
                "{name} has {len} cells, expected {} × {} = {n}",
                q.nx, q.ny
            ));
        }
    }
    if q.terrain.is_some() && !(q.cell_size > 0.0 && q.cell_size.is_finite()) {
        return Err(format!("cell size {} is not positive", q.cell_size));
    }
    Ok(())
}

/// (cells per pixel, pixels per cell): large grids are binned, small ones magnified.
fn scale(nx: usize, ny: usize) -> (usize, usize) {
    let side = nx.max(ny);
    if side > MAX_SIDE {
        (side.div_ceil(MAX_SIDE), 1)
    } else {
        (1, MIN_SIDE.div_ceil(side))
    }
}

fn render_map(q: &QuickLook, vmax: f32) -> RgbImage {
    let (k, s) = scale(q.nx, q.ny);
    let (w, h) = (q.nx.div_ceil(k), q.ny.div_ceil(k));
    let mut img = RgbImage::new((w * s) as u32, (h * s) as u32);
    for py in 0..h {
        // Row 0 is south: it goes at the bottom of the image.
        let y0 = (h - 1 - py) * s;
        for px in 0..w {
            let colour = bin_colour(q, px * k, py * k, k, vmax);
            for y in y0..y0 + s {
                for x in px * s..(px + 1) * s {
                    img.put_pixel(x as u32, y as u32, colour);
                }
            }
        }
    }
    img
}

/// The colour of the k×k cells from (i0, j0): the deepest water among them, so binning
/// never hides a flooded cell; else the terrain of the first valid cell; else white.
fn bin_colour(q: &QuickLook, i0: usize, j0: usize, k: usize, vmax: f32) -> Rgb<u8> {
    let mut depth = 0.0f32;
    let mut first_valid = None;
    for j in j0..(j0 + k).min(q.ny) {
        for i in i0..(i0 + k).min(q.nx) {
            let c = i + q.nx * j;
            if q.valid[c] {
                first_valid.get_or_insert(c);
                depth = depth.max(q.values[c]); // f32::max skips NaN
            }
        }
    }
    match first_valid {
        None => WHITE,
        Some(_) if depth > q.min_depth.max(0.0) => water_colour(depth / vmax),
        Some(c) => dry_colour(q, c),
    }
}

/// Light cyan for shallow water to dark navy at the top of the scale. The stops step
/// luminance down in near-equal amounts (about 230, 180, 120, 73, 31), so equal depth
/// differences look about equally different.
fn water_colour(f: f32) -> Rgb<u8> {
    const STOPS: [[f32; 3]; 5] = [
        [200.0, 240.0, 255.0],
        [120.0, 200.0, 235.0],
        [50.0, 140.0, 200.0],
        [25.0, 80.0, 160.0],
        [10.0, 30.0, 90.0],
    ];
    let x = f.clamp(0.0, 1.0) * (STOPS.len() - 1) as f32;
    let k = (x as usize).min(STOPS.len() - 2);
    let w = x - k as f32;
    let (a, b) = (STOPS[k], STOPS[k + 1]);
    Rgb(std::array::from_fn(|c| {
        (a[c] + w * (b[c] - a[c])).round() as u8
    }))
}

/// Grey hillshade lit from the north-west, so the terrain reads under a dry map.
fn dry_colour(q: &QuickLook, c: usize) -> Rgb<u8> {
    let Some(z) = q.terrain else {
        return DRY;
    };
    let (i, j) = (c % q.nx, c / q.nx);
    // Neighbours outside the grid or the domain count as level with this cell.
    let at = |ii: usize, jj: usize| {
        let cc = ii + q.nx * jj;
        f64::from(if q.valid[cc] { z[cc] } else { z[c] })
    };
    let dx = 2.0 * q.cell_size;
    let dzdx = (at((i + 1).min(q.nx - 1), j) - at(i.saturating_sub(1), j)) / dx;
    let dzdy = (at(i, (j + 1).min(q.ny - 1)) - at(i, j.saturating_sub(1))) / dx;
    // Lambertian shade for a unit light vector at azimuth 315°, altitude 45°; y is north.
    let (lx, ly, lz) = (-0.5f64, 0.5, std::f64::consts::FRAC_1_SQRT_2);
    let norm = (dzdx * dzdx + dzdy * dzdy + 1.0).sqrt();
    let shade = (-dzdx * lx - dzdy * ly + lz) / norm;
    if !shade.is_finite() {
        return DRY; // NaN terrain
    }
    // Darkest 110, brightest 230: never white, which means "outside".
    let g = (110.0 + 120.0 * shade.clamp(0.0, 1.0)) as u8;
    Rgb([g, g, g])
}

/// A vertical bar from 0 (bottom) to vmax (top) with five ticks and their labels.
fn draw_colour_bar(img: &mut RgbImage, x0: u32, y0: u32, height: u32, labels: &[String]) {
    for y in 0..height {
        let colour = water_colour(1.0 - y as f32 / (height - 1) as f32);
        for x in 0..BAR_W {
            img.put_pixel(x0 + x, y0 + y, colour);
        }
    }
    let last = labels.len() as u32 - 1;
    for (k, label) in labels.iter().enumerate() {
        let y = y0 + (height - 1) * (last - k as u32) / last;
        for x in BAR_W..BAR_W + TICK_W {
            img.put_pixel(x0 + x, y, INK);
        }
        // Centre the label on its tick.
        draw_text(img, x0 + BAR_W + TICK_W + 4, y - CHAR_H / 2, label);
    }
}

/// Two or three significant digits, trailing zeros dropped; exponents outside 1e-3..1e5.
fn format_tick(v: f32) -> String {
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    let a = v.abs();
    if a == 0.0 {
        return "0".into();
    }
    if !(1e-3..1e5).contains(&a) {
        let s = format!("{v:.2e}");
        let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
        return format!("{}e{exp}", trim(mantissa));
    }
    let decimals = (2 - a.log10().floor() as i32).max(0) as usize;
    trim(&format!("{v:.decimals$}"))
}

fn text_width(text: &str) -> u32 {
    text.chars().count() as u32 * CHAR_W
}

/// Draws text with its top-left at (x, y); pixels off the image are dropped.
pub(crate) fn draw_text(img: &mut RgbImage, x: u32, y: u32, text: &str) {
    for (n, ch) in text.chars().enumerate() {
        let Some(rows) = glyph(ch) else { continue };
        let cx = x + n as u32 * CHAR_W;
        for (r, bits) in rows.iter().enumerate() {
            for col in (0..5u32).filter(|col| bits & (0b10000 >> col) != 0) {
                let (px, py) = (cx + col * TEXT_SCALE, y + r as u32 * TEXT_SCALE);
                fill_rect(img, px, py, TEXT_SCALE, TEXT_SCALE, INK);
            }
        }
    }
}

pub(crate) fn fill_rect(img: &mut RgbImage, x: u32, y: u32, w: u32, h: u32, colour: Rgb<u8>) {
    for py in y..(y + h).min(img.height()) {
        for px in x..(x + w).min(img.width()) {
            img.put_pixel(px, py, colour);
        }
    }
}

/// 5×7 glyphs, one row per number from the top, leftmost pixel in bit 4.
/// Characters not listed are skipped (their space is kept).
fn glyph(ch: char) -> Option<[u8; 7]> {
    let g: [u8; 7] = match ch {
        '0' => [14, 17, 19, 21, 25, 17, 14],
        '1' => [4, 12, 4, 4, 4, 4, 14],
        '2' => [14, 17, 1, 2, 4, 8, 31],
        '3' => [31, 2, 4, 2, 1, 17, 14],
        '4' => [2, 6, 10, 18, 31, 2, 2],
        '5' => [31, 16, 30, 1, 1, 17, 14],
        '6' => [6, 8, 16, 30, 17, 17, 14],
        '7' => [31, 1, 2, 4, 8, 8, 8],
        '8' => [14, 17, 17, 14, 17, 17, 14],
        '9' => [14, 17, 17, 15, 1, 2, 12],
        'a'..='z' => LOWER[ch as usize - 'a' as usize],
        'A'..='Z' => UPPER[ch as usize - 'A' as usize],
        '.' => [0, 0, 0, 0, 0, 12, 12],
        ',' => [0, 0, 0, 0, 12, 4, 8],
        '-' => [0, 0, 0, 31, 0, 0, 0],
        '+' => [0, 4, 4, 31, 4, 4, 0],
        '=' => [0, 0, 31, 0, 31, 0, 0],
        ':' => [0, 12, 12, 0, 12, 12, 0],
        '/' => [0, 1, 2, 4, 8, 16, 0],
        '(' => [2, 4, 8, 8, 8, 4, 2],
        ')' => [8, 4, 2, 2, 2, 4, 8],
        '_' => [0, 0, 0, 0, 0, 0, 31],
        '%' => [24, 25, 2, 4, 8, 19, 3],
        ' ' => [0; 7],
        _ => return None,
    };
    Some(g)
}

const UPPER: [[u8; 7]; 26] = [
    [14, 17, 17, 31, 17, 17, 17], // A
    [30, 17, 17, 30, 17, 17, 30], // B
    [14, 17, 16, 16, 16, 17, 14], // C
    [28, 18, 17, 17, 17, 18, 28], // D
    [31, 16, 16, 30, 16, 16, 31], // E
    [31, 16, 16, 30, 16, 16, 16], // F
    [14, 17, 16, 23, 17, 17, 15], // G
    [17, 17, 17, 31, 17, 17, 17], // H
    [14, 4, 4, 4, 4, 4, 14],      // I
    [7, 2, 2, 2, 2, 18, 12],      // J
    [17, 18, 20, 24, 20, 18, 17], // K
    [16, 16, 16, 16, 16, 16, 31], // L
    [17, 27, 21, 21, 17, 17, 17], // M
    [17, 17, 25, 21, 19, 17, 17], // N
    [14, 17, 17, 17, 17, 17, 14], // O
    [30, 17, 17, 30, 16, 16, 16], // P
    [14, 17, 17, 17, 21, 18, 13], // Q
    [30, 17, 17, 30, 20, 18, 17], // R
    [15, 16, 16, 14, 1, 1, 30],   // S
    [31, 4, 4, 4, 4, 4, 4],       // T
    [17, 17, 17, 17, 17, 17, 14], // U
    [17, 17, 17, 17, 17, 10, 4],  // V
    [17, 17, 17, 21, 21, 21, 10], // W
    [17, 17, 10, 4, 10, 17, 17],  // X
    [17, 17, 17, 10, 4, 4, 4],    // Y
    [31, 1, 2, 4, 8, 16, 31],     // Z
];

/// Lower case sits on the same baseline; descenders (g j p q y) are folded into 7 rows.
const LOWER: [[u8; 7]; 26] = [
    [0, 0, 14, 1, 15, 17, 15],    // a
    [16, 16, 22, 25, 17, 17, 30], // b
    [0, 0, 14, 16, 16, 17, 14],   // c
    [1, 1, 13, 19, 17, 17, 15],   // d
    [0, 0, 14, 17, 31, 16, 14],   // e
    [6, 9, 8, 28, 8, 8, 8],       // f
    [0, 15, 17, 17, 15, 1, 14],   // g
    [16, 16, 22, 25, 17, 17, 17], // h
    [4, 0, 12, 4, 4, 4, 14],      // i
    [2, 0, 6, 2, 2, 18, 12],      // j
    [16, 16, 18, 20, 24, 20, 18], // k
    [12, 4, 4, 4, 4, 4, 14],      // l
    [0, 0, 26, 21, 21, 17, 17],   // m
    [0, 0, 22, 25, 17, 17, 17],   // n
    [0, 0, 14, 17, 17, 17, 14],   // o
    [0, 30, 17, 17, 30, 16, 16],  // p
    [0, 15, 17, 17, 15, 1, 1],    // q
    [0, 0, 22, 25, 16, 16, 16],   // r
    [0, 0, 15, 16, 14, 1, 30],    // s
    [8, 8, 28, 8, 8, 9, 6],       // t
    [0, 0, 17, 17, 17, 19, 13],   // u
    [0, 0, 17, 17, 17, 10, 4],    // v
    [0, 0, 17, 17, 21, 21, 10],   // w
    [0, 0, 17, 10, 4, 10, 17],    // x
    [0, 17, 17, 17, 15, 1, 14],   // y
    [0, 0, 31, 2, 4, 8, 31],      // z
];

#[cfg(test)]
mod tests {
    use super::*;

    fn look<'a>(nx: usize, ny: usize, values: &'a [f32], valid: &'a [bool]) -> QuickLook<'a> {
        QuickLook {
            nx,
            ny,
            values,
            valid,
            terrain: None,
            cell_size: 1.0,
            title: "depth t = 600.0 s".into(),
            units: "m".into(),
            vmax: 2.0,
            min_depth: 0.0,
        }
    }

    fn write_and_open(q: &QuickLook) -> RgbImage {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("q.png");
        write_quicklook(&path, q).unwrap();
        image::open(&path).unwrap().to_rgb8()
    }

    fn lum(p: Rgb<u8>) -> u32 {
        p.0.iter().map(|&c| c as u32).sum()
    }

    /// The middle pixel of cell (i, j) when the map is magnified `s` times.
    fn cell_pixel(img: &RgbImage, ny: usize, s: usize, i: usize, j: usize) -> Rgb<u8> {
        let (x, y) = (i * s + s / 2, (ny - 1 - j) * s + s / 2);
        *img.get_pixel(PAD + x as u32, MAP_Y + y as u32)
    }

    #[test]
    fn writes_a_png_north_up_with_deep_water_darker_and_outside_white() {
        let (nx, ny) = (50, 20);
        let mut values = vec![0.0f32; nx * ny];
        values[0] = 0.2; // south-west corner: shallow
        values[nx * ny - 1] = 1.8; // north-east corner: deep
        let mut valid = vec![true; nx * ny];
        valid[nx - 1] = false; // south-east corner: outside
        let img = write_and_open(&look(nx, ny, &values, &valid));
        let s = MIN_SIDE.div_ceil(nx); // 8 pixels per cell: 400 px wide
        assert!(img.width() >= (nx * s) as u32 && img.width() <= (MAX_SIDE + 300) as u32);
        let (shallow, deep) = (
            cell_pixel(&img, ny, s, 0, 0),
            cell_pixel(&img, ny, s, nx - 1, ny - 1),
        );
        assert!(
            lum(deep) < lum(shallow),
            "deep {deep:?} shallow {shallow:?}"
        );
        assert_eq!(cell_pixel(&img, ny, s, nx - 1, 0), WHITE);
        assert_eq!(cell_pixel(&img, ny, s, 1, 0), DRY);
        // South is at the bottom: the top-left cell is the dry north-west one.
        assert_eq!(cell_pixel(&img, ny, s, 0, ny - 1), DRY);
    }

    #[test]
    fn map_size_stays_between_400_and_1600_pixels() {
        for (nx, ny, side) in [(1, 1, 400), (3, 7, 406), (300, 10, 600), (1600, 5, 1600)] {
            let values = vec![0.0f32; nx * ny];
            let valid = vec![true; nx * ny];
            let q = look(nx, ny, &values, &valid);
            let (w, h) = render_map(&q, 1.0).dimensions();
            assert_eq!(w.max(h), side as u32, "{nx}×{ny}");
            let img = write_and_open(&q);
            assert!(
                img.width() > w + 2 * PAD && img.width() < w + 300,
                "{nx}×{ny}"
            );
            assert!(img.height() > h + MAP_Y && img.height() < h.max(MIN_BAR_H) + 120);
        }
    }

    #[test]
    fn large_grids_are_binned_and_keep_their_deepest_cell() {
        let (nx, ny) = (3300, 40); // 3 cells per pixel: 1100 px wide
        let mut values = vec![0.0f32; nx * ny];
        values[1000 + nx * 10] = 1.0; // one wet cell in pixel (333, 3)
        let valid = vec![true; nx * ny];
        let img = write_and_open(&look(nx, ny, &values, &valid));
        assert_eq!(scale(nx, ny), (3, 1));
        let h = ny.div_ceil(3);
        let p = *img.get_pixel(PAD + 333, MAP_Y + (h - 1 - 3) as u32);
        assert_eq!(p, water_colour(0.5));
        assert_eq!(*img.get_pixel(PAD + 332, MAP_Y + (h - 1 - 3) as u32), DRY);
        assert!(img.width() <= (MAX_SIDE + 300) as u32);
    }

    #[test]
    fn all_dry_fields_are_shaded_from_the_north_west() {
        // A ridge along x: its west face tilts to the north-west light, its east face away.
        let (nx, ny) = (40, 40);
        let values = vec![0.0f32; nx * ny];
        let valid = vec![true; nx * ny];
        let terrain: Vec<f32> = (0..nx * ny)
            .map(|c| 20.0 - (c % nx).abs_diff(20) as f32)
            .collect();
        let mut q = look(nx, ny, &values, &valid);
        q.terrain = Some(&terrain);
        let img = write_and_open(&q);
        let s = MIN_SIDE.div_ceil(nx);
        let (west, east) = (
            cell_pixel(&img, ny, s, 10, 20),
            cell_pixel(&img, ny, s, 30, 20),
        );
        assert!(lum(west) > lum(east), "west {west:?} east {east:?}");
        assert!(west.0[0] == west.0[1] && west.0[1] == west.0[2] && west != WHITE);
        // No terrain: a flat light grey.
        q.terrain = None;
        assert_eq!(cell_pixel(&write_and_open(&q), ny, s, 10, 20), DRY);
    }

    #[test]
    fn a_scale_without_a_top_uses_one() {
        let values = [0.5f32, 3.0, 0.0, f32::NAN];
        let valid = [true; 4];
        for vmax in [0.0, -2.0, f32::NAN] {
            let mut q = look(2, 2, &values, &valid);
            q.vmax = vmax;
            let img = write_and_open(&q);
            assert_eq!(cell_pixel(&img, 2, 200, 0, 0), water_colour(0.5));
            assert_eq!(cell_pixel(&img, 2, 200, 1, 1), DRY, "NaN is dry");
        }
    }

    #[test]
    fn mismatched_sizes_are_errors_not_panics() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.png");
        let values = [0.0f32; 4];
        let e = write_quicklook(&path, &look(2, 3, &values, &[true; 6])).unwrap_err();
        assert!(
            e.contains("bad.png") && e.contains("values has 4 cells"),
            "{e}"
        );
        let e = write_quicklook(&path, &look(0, 3, &[], &[])).unwrap_err();
        assert!(e.contains("empty grid"), "{e}");
    }

    #[test]
    fn ticks_have_two_or_three_significant_digits() {
        let cases = [
            (0.0, "0"),
            (0.5, "0.5"),
            (2.0, "2"),
            (0.125, "0.125"),
            (12.5, "12.5"),
            (0.0025, "0.0025"),
            (3.4567, "3.46"),
            (1234.0, "1234"),
            (0.0001, "1e-4"),
            (2.5e6, "2.5e6"),
        ];
        for (v, s) in cases {
            assert_eq!(format_tick(v), s);
        }
    }

    #[test]
    fn the_font_covers_titles_and_labels() {
        let all = "0123456789.-+e=:/() abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
        for c in all.chars() {
            assert!(glyph(c).is_some(), "{c:?}");
        }
        for g in UPPER.iter().chain(&LOWER) {
            assert!(g.iter().all(|&row| row < 32) && g.iter().any(|&row| row != 0));
        }
    }

    #[test]
    fn colours_darken_with_depth() {
        let lums: Vec<u32> = (0..=20)
            .map(|k| lum(water_colour(k as f32 / 20.0)))
            .collect();
        assert!(lums.windows(2).all(|w| w[1] < w[0]), "{lums:?}");
        assert_eq!(water_colour(5.0), water_colour(1.0), "clamped above vmax");
    }
}
