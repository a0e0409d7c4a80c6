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
    /// Bed elevation for the hillshade under dry cells.
    pub terrain: Option<&'a [f32]>,
    pub cell_size: f64,
    pub title: String,
    pub units: String,
    /// Top of the colour scale; values <= 0 are dry.
    pub vmax: f32,
}

const TOP: u32 = 34;
const MARGIN: u32 = 12;
const BAR_W: u32 = 18;
const LEGEND_W: u32 = 110;
const MAX_SIDE: usize = 1600;
const MIN_SIDE: usize = 400;
const WHITE: Rgb<u8> = Rgb([255, 255, 255]);
const INK: Rgb<u8> = Rgb([20, 20, 20]);

pub fn write_quicklook(path: &Path, q: &QuickLook) -> Result<(), String> {
    let vmax = if q.vmax > 0.0 { q.vmax } else { 1.0 };
    let map = render_map(q, vmax);
    let (mw, mh) = map.dimensions();
    let width = MARGIN + mw + MARGIN + LEGEND_W;
    let height = (TOP + mh + MARGIN).max(TOP + 200);
    let mut img = RgbImage::from_pixel(width, height, WHITE);
    image::imageops::overlay(&mut img, &map, MARGIN as i64, TOP as i64);
    draw_text(&mut img, MARGIN, 10, &q.title, 2);
    draw_colour_bar(
        &mut img,
        MARGIN + mw + MARGIN,
        TOP,
        mh.max(200),
        vmax,
        &q.units,
    );
    img.save(path)
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Cells per pixel (when the grid is large) and pixels per cell (when it is small).
fn scale(nx: usize, ny: usize) -> (usize, usize) {
    let side = nx.max(ny);
    if side > MAX_SIDE {
        (side.div_ceil(MAX_SIDE), 1)
    } else {
        (1, (MIN_SIDE / side).max(1))
    }
}

fn render_map(q: &QuickLook, vmax: f32) -> RgbImage {
    let (k, s) = scale(q.nx, q.ny);
    let (w, h) = (q.nx.div_ceil(k), q.ny.div_ceil(k));
    let mut img = RgbImage::new((w * s) as u32, (h * s) as u32);
    for py in 0..h {
        for px in 0..w {
            let colour = pixel_colour(q, px * k, py * k, k, vmax);
            // Row 0 is south: it goes at the bottom of the image.
            let y0 = (h - 1 - py) * s;
            for dy in 0..s {
                for dx in 0..s {
                    img.put_pixel((px * s + dx) as u32, (y0 + dy) as u32, colour);
                }
            }
        }
    }
    img
}

/// The colour of a k×k group of cells: the deepest water in it, else the terrain.
fn pixel_colour(q: &QuickLook, i0: usize, j0: usize, k: usize, vmax: f32) -> Rgb<u8> {
    let mut depth = 0.0f32;
    let mut valid = None;
    for j in j0..(j0 + k).min(q.ny) {
        for i in i0..(i0 + k).min(q.nx) {
            let c = i + q.nx * j;
            if q.valid[c] {
                valid.get_or_insert(c);
                depth = depth.max(q.values[c]);
            }
        }
    }
    match valid {
        None => WHITE,
        Some(_) if depth > 0.0 => water_colour(depth / vmax),
        Some(c) => dry_colour(q, c),
    }
}

/// Light cyan for shallow water to dark navy at the top of the scale.
pub fn water_colour(f: f32) -> Rgb<u8> {
    const STOPS: [(f32, [f32; 3]); 3] = [
        (0.0, [198.0, 236.0, 255.0]),
        (0.5, [40.0, 120.0, 190.0]),
        (1.0, [8.0, 29.0, 88.0]),
    ];
    let f = f.clamp(0.0, 1.0);
    let k = if f <= STOPS[1].0 { 0 } else { 1 };
    let (a, b) = (STOPS[k], STOPS[k + 1]);
    let w = (f - a.0) / (b.0 - a.0);
    Rgb(std::array::from_fn(|c| {
        (a.1[c] + w * (b.1[c] - a.1[c])).round() as u8
    }))
}

/// Grey hillshade lit from the north-west, so the terrain reads under a dry map.
fn dry_colour(q: &QuickLook, c: usize) -> Rgb<u8> {
    let Some(z) = q.terrain else {
        return Rgb([225, 225, 225]);
    };
    let (i, j) = (c % q.nx, c / q.nx);
    let at = |ii: usize, jj: usize| {
        let cc = ii + q.nx * jj;
        if q.valid[cc] {
            z[cc] as f64
        } else {
            z[c] as f64
        }
    };
    let dzdx = (at((i + 1).min(q.nx - 1), j) - at(i.saturating_sub(1), j)) / (2.0 * q.cell_size);
    let dzdy = (at(i, (j + 1).min(q.ny - 1)) - at(i, j.saturating_sub(1))) / (2.0 * q.cell_size);
    // Lambertian shade for a light at azimuth 315°, altitude 45°.
    let (lx, ly, lz) = (-0.5f64, 0.5, std::f64::consts::FRAC_1_SQRT_2);
    let norm = (dzdx * dzdx + dzdy * dzdy + 1.0).sqrt();
    let shade = ((-dzdx * lx - dzdy * ly + lz) / norm).clamp(0.0, 1.0);
    let g = (150.0 + 100.0 * shade) as u8;
    Rgb([g, g, g])
}

fn draw_colour_bar(img: &mut RgbImage, x0: u32, y0: u32, height: u32, vmax: f32, units: &str) {
    for y in 0..height {
        let colour = water_colour(1.0 - y as f32 / (height - 1) as f32);
        for x in 0..BAR_W {
            img.put_pixel(x0 + x, y0 + y, colour);
        }
    }
    for k in 0..=4 {
        let y = y0 + (height - 1) * (4 - k) / 4;
        for x in BAR_W..BAR_W + 4 {
            img.put_pixel(x0 + x, y, INK);
        }
        let label = format_tick(vmax * k as f32 / 4.0);
        draw_text(
            img,
            x0 + BAR_W + 7,
            y.saturating_sub(7).max(y0.saturating_sub(7)),
            &label,
            2,
        );
    }
    draw_text(img, x0, y0.saturating_sub(16), units, 2);
}

fn format_tick(v: f32) -> String {
    if v == 0.0 {
        "0".into()
    } else if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 1.0 {
        format!("{v:.2}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    } else {
        format!("{v:.3}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    }
}

/// Draws text at (x, y) with the 5×7 font at an integer scale.
pub fn draw_text(img: &mut RgbImage, x: u32, y: u32, text: &str, scale: u32) {
    let mut cx = x;
    for ch in text.chars() {
        if let Some(rows) = glyph(ch) {
            for (r, bits) in rows.iter().enumerate() {
                for col in 0..5u32 {
                    if bits & (0b10000 >> col) != 0 {
                        for dy in 0..scale {
                            for dx in 0..scale {
                                let (px, py) = (cx + col * scale + dx, y + r as u32 * scale + dy);
                                if px < img.width() && py < img.height() {
                                    img.put_pixel(px, py, INK);
                                }
                            }
                        }
                    }
                }
            }
        }
        cx += 6 * scale;
    }
}

/// 5×7 glyphs, one row per byte, leftmost pixel in bit 4. Letters are drawn in capitals.
fn glyph(ch: char) -> Option<[u8; 7]> {
    let g: [u8; 7] = match ch.to_ascii_uppercase() {
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
        'A' => [14, 17, 17, 31, 17, 17, 17],
        'B' => [30, 17, 17, 30, 17, 17, 30],
        'C' => [14, 17, 16, 16, 16, 17, 14],
        'D' => [28, 18, 17, 17, 17, 18, 28],
        'E' => [31, 16, 16, 30, 16, 16, 31],
        'F' => [31, 16, 16, 30, 16, 16, 16],
        'G' => [14, 17, 16, 23, 17, 17, 15],
        'H' => [17, 17, 17, 31, 17, 17, 17],
        'I' => [14, 4, 4, 4, 4, 4, 14],
        'J' => [7, 2, 2, 2, 2, 18, 12],
        'K' => [17, 18, 20, 24, 20, 18, 17],
        'L' => [16, 16, 16, 16, 16, 16, 31],
        'M' => [17, 27, 21, 21, 17, 17, 17],
        'N' => [17, 17, 25, 21, 19, 17, 17],
        'O' => [14, 17, 17, 17, 17, 17, 14],
        'P' => [30, 17, 17, 30, 16, 16, 16],
        'Q' => [14, 17, 17, 17, 21, 18, 13],
        'R' => [30, 17, 17, 30, 20, 18, 17],
        'S' => [15, 16, 16, 14, 1, 1, 30],
        'T' => [31, 4, 4, 4, 4, 4, 4],
        'U' => [17, 17, 17, 17, 17, 17, 14],
        'V' => [17, 17, 17, 17, 17, 10, 4],
        'W' => [17, 17, 17, 21, 21, 21, 10],
        'X' => [17, 17, 10, 4, 10, 17, 17],
        'Y' => [17, 17, 17, 10, 4, 4, 4],
        'Z' => [31, 1, 2, 4, 8, 16, 31],
        '.' => [0, 0, 0, 0, 0, 12, 12],
        '-' => [0, 0, 0, 31, 0, 0, 0],
        '+' => [0, 4, 4, 31, 4, 4, 0],
        '=' => [0, 0, 31, 0, 31, 0, 0],
        ':' => [0, 12, 12, 0, 12, 12, 0],
        '/' => [0, 1, 2, 4, 8, 16, 0],
        '(' => [2, 4, 8, 8, 8, 4, 2],
        ')' => [8, 4, 2, 2, 2, 4, 8],
        '_' => [0, 0, 0, 0, 0, 0, 31],
        ' ' => [0; 7],
        _ => return None,
    };
    Some(g)
}

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
            title: "depth t = 1.0 s".into(),
            units: "m".into(),
            vmax: 2.0,
        }
    }

    #[test]
    fn writes_a_png_with_deep_water_darker() {
        let dir = tempfile::tempdir().unwrap();
        let (nx, ny) = (50, 20);
        let mut values = vec![0.0f32; nx * ny];
        values[0] = 0.2; // south-west corner: shallow
        values[nx * ny - 1] = 1.8; // north-east corner: deep
        let mut valid = vec![true; nx * ny];
        valid[nx - 1] = false; // south-east corner outside
        let path = dir.path().join("q.png");
        write_quicklook(&path, &look(nx, ny, &values, &valid)).unwrap();
        let img = image::open(&path).unwrap().to_rgb8();
        let s = (MIN_SIDE / nx) as u32;
        assert!(img.width() >= 400 && img.width() <= 1600 + 200);
        let px = |i: u32, j: u32| {
            *img.get_pixel(
                MARGIN + i * s + s / 2,
                TOP + (ny as u32 - 1 - j) * s + s / 2,
            )
        };
        let (shallow, deep) = (px(0, 0), px(nx as u32 - 1, ny as u32 - 1));
        let lum = |p: Rgb<u8>| p.0.iter().map(|&c| c as u32).sum::<u32>();
        assert!(
            lum(deep) < lum(shallow),
            "deep {deep:?} shallow {shallow:?}"
        );
        assert_eq!(px(nx as u32 - 1, 0), WHITE);
    }

    #[test]
    fn dry_fields_and_bad_scales_do_not_panic() {
        let dir = tempfile::tempdir().unwrap();
        let values = vec![0.0f32; 4000 * 10];
        let valid = vec![true; 4000 * 10];
        let terrain: Vec<f32> = (0..40000).map(|c| (c % 4000) as f32 * 0.01).collect();
        let mut q = look(4000, 10, &values, &valid);
        q.vmax = 0.0;
        q.terrain = Some(&terrain);
        write_quicklook(&dir.path().join("dry.png"), &q).unwrap();
        let img = image::open(dir.path().join("dry.png")).unwrap();
        assert!(img.width() <= 1600 + 200);
    }

    #[test]
    fn ticks_and_glyphs() {
        assert_eq!(format_tick(0.5), "0.5");
        assert_eq!(format_tick(2.0), "2");
        assert_eq!(format_tick(0.125), "0.125");
        for c in "depth t = 12.5 s (m)".chars() {
            assert!(glyph(c).is_some(), "{c}");
        }
    }
}
