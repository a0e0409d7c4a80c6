//! PNG quick-looks: a depth map over a hillshade of the terrain, with a title, a legend of
//! the fixed depth classes (`depth_classes`) and a scale bar under the map.

use crate::io::depth_classes;
use crate::io::font::{draw_text, fill_rect, text_width, CHAR_H};
use crate::io::scale_bar::{self, ScaleBar};
use image::{Rgb, RgbImage};
use std::path::Path;

pub struct QuickLook<'a> {
    pub nx: usize,
    pub ny: usize,
    /// Water depth (m). Row 0 is the south row.
    pub depth: &'a [f32],
    /// False outside the domain.
    pub valid: &'a [bool],
    /// Bed elevation for the hillshade under dry cells, laid out like `depth`.
    pub terrain: Option<&'a [f32]>,
    /// Metres a cell: for the hillshade's slopes and the scale bar.
    pub cell_size: f64,
    /// E.g. "depth  t = 01:30".
    pub title: String,
}

const PAD: u32 = 10;
/// Title line, then the legend's heading, then the map.
const HEADING_Y: u32 = PAD + CHAR_H + 6;
const MAP_Y: u32 = HEADING_Y + CHAR_H + 12;
const HEADING: &str = "depth (m)";
/// Legend swatches: one per class, deepest on top, each with its label to its right.
const SWATCH_W: u32 = 18;
const SWATCH_H: u32 = 24;
const SWATCH_GAP: u32 = 4;
const LABEL_GAP: u32 = 8;
/// Between the map and the scale bar under it.
const SCALE_BAR_GAP: u32 = 10;
/// The map's longer side in pixels stays within these, up to the integer scaling.
const MIN_SIDE: usize = 400;
const MAX_SIDE: usize = 1600;
const WHITE: Rgb<u8> = Rgb([255, 255, 255]);
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

/// The quick-look as an image: title, map, scale bar and legend.
pub fn render(q: &QuickLook) -> Result<RgbImage, String> {
    check(q)?;
    let map = render_map(q);
    let (mw, mh) = map.dimensions();
    let bar = ScaleBar::new(mw, pixels_per_metre(q))
        .ok_or_else(|| format!("no scale bar for cell size {}", q.cell_size))?;
    let legend_x = PAD + mw + 2 * PAD;
    let width = (legend_x + legend_width() + PAD)
        .max(PAD + bar.width() + PAD)
        .max(2 * PAD + text_width(&q.title));
    let height = MAP_Y + (mh + SCALE_BAR_GAP + scale_bar::HEIGHT).max(legend_height()) + PAD;
    let mut img = RgbImage::from_pixel(width, height, WHITE);
    image::imageops::replace(&mut img, &map, PAD as i64, MAP_Y as i64);
    draw_text(&mut img, PAD, PAD, &q.title);
    bar.draw(&mut img, PAD, MAP_Y + mh + SCALE_BAR_GAP);
    draw_legend(&mut img, legend_x);
    Ok(img)
}

/// Sizes that do not match would index out of bounds while drawing: say so instead.
fn check(q: &QuickLook) -> Result<(), String> {
    let n = q.nx * q.ny;
    if n == 0 {
        return Err(format!("empty grid ({} × {})", q.nx, q.ny));
    }
    let lengths = [
        ("depth", Some(q.depth.len())),
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
    if !(q.cell_size > 0.0 && q.cell_size.is_finite()) {
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

fn pixels_per_metre(q: &QuickLook) -> f64 {
    let (cells_per_pixel, pixels_per_cell) = scale(q.nx, q.ny);
    pixels_per_cell as f64 / (cells_per_pixel as f64 * q.cell_size)
}

fn render_map(q: &QuickLook) -> RgbImage {
    let (k, s) = scale(q.nx, q.ny);
    let (w, h) = (q.nx.div_ceil(k), q.ny.div_ceil(k));
    let mut img = RgbImage::new((w * s) as u32, (h * s) as u32);
    for py in 0..h {
        // Row 0 is south: it goes at the bottom of the image.
        let y0 = (h - 1 - py) * s;
        for px in 0..w {
            let colour = bin_colour(q, px * k, py * k, k);
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
fn bin_colour(q: &QuickLook, i0: usize, j0: usize, k: usize) -> Rgb<u8> {
    let mut depth = 0.0f32;
    let mut first_valid = None;
    for j in j0..(j0 + k).min(q.ny) {
        for i in i0..(i0 + k).min(q.nx) {
            let c = i + q.nx * j;
            if q.valid[c] {
                first_valid.get_or_insert(c);
                depth = depth.max(q.depth[c]); // f32::max skips NaN
            }
        }
    }
    match first_valid {
        None => WHITE,
        Some(c) => depth_classes::colour(depth).unwrap_or_else(|| dry_colour(q, c)),
    }
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

fn class_count() -> u32 {
    depth_classes::COLOURS.len() as u32
}

/// The top of class k's swatch: the deepest class on top.
fn swatch_y(k: usize) -> u32 {
    MAP_Y + (class_count() - 1 - k as u32) * (SWATCH_H + SWATCH_GAP)
}

/// The swatches, then a line on what is not drawn.
fn legend_height() -> u32 {
    class_count() * (SWATCH_H + SWATCH_GAP) + CHAR_H
}

fn legend_width() -> u32 {
    let labels = (0..class_count() as usize).map(depth_classes::label);
    labels
        .map(|l| SWATCH_W + LABEL_GAP + text_width(&l))
        .chain([HEADING, &depth_classes::below_label()].map(text_width))
        .max()
        .unwrap_or(0)
}

/// A heading, one swatch per class with its edges beside it, and what is left undrawn.
fn draw_legend(img: &mut RgbImage, x: u32) {
    draw_text(img, x, HEADING_Y, HEADING);
    for (k, &colour) in depth_classes::COLOURS.iter().enumerate() {
        let y = swatch_y(k);
        fill_rect(img, x, y, SWATCH_W, SWATCH_H, colour);
        let label_y = y + (SWATCH_H - CHAR_H) / 2;
        draw_text(
            img,
            x + SWATCH_W + LABEL_GAP,
            label_y,
            &depth_classes::label(k),
        );
    }
    let below_y = swatch_y(0) + SWATCH_H + SWATCH_GAP;
    draw_text(img, x, below_y, &depth_classes::below_label());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::depth_classes::{COLOURS, EDGES};
    use crate::io::font::INK;

    fn look<'a>(nx: usize, ny: usize, depth: &'a [f32], valid: &'a [bool]) -> QuickLook<'a> {
        QuickLook {
            nx,
            ny,
            depth,
            valid,
            terrain: None,
            cell_size: 1.0,
            title: "depth  t = 00:10".into(),
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

    fn distance(a: Rgb<u8>, b: Rgb<u8>) -> f64 {
        let d2: i32 = (0..3).map(|c| (a.0[c] as i32 - b.0[c] as i32).pow(2)).sum();
        f64::from(d2).sqrt()
    }

    /// The middle pixel of cell (i, j) when the map is magnified `s` times.
    fn cell_pixel(img: &RgbImage, ny: usize, s: usize, i: usize, j: usize) -> Rgb<u8> {
        let (x, y) = (i * s + s / 2, (ny - 1 - j) * s + s / 2);
        *img.get_pixel(PAD + x as u32, MAP_Y + y as u32)
    }

    /// How many pixels of ink the scale bar's middle row has from its left end, and the
    /// map's size in pixels.
    fn scale_bar_pixels(img: &RgbImage, q: &QuickLook) -> (u32, (u32, u32)) {
        let (mw, mh) = render_map(q).dimensions();
        let y = MAP_Y + mh + SCALE_BAR_GAP + scale_bar::HEIGHT / 2;
        assert_eq!(*img.get_pixel(PAD - 1, y), WHITE);
        let ink = (PAD..img.width())
            .take_while(|&x| *img.get_pixel(x, y) == INK)
            .count();
        (ink as u32, (mw, mh))
    }

    #[test]
    fn writes_a_png_north_up_with_deep_water_darker_and_outside_white() {
        let (nx, ny) = (50, 20);
        let mut depth = vec![0.0f32; nx * ny];
        depth[0] = 0.2; // south-west corner: shallow
        depth[nx * ny - 1] = 1.8; // north-east corner: deep
        let mut valid = vec![true; nx * ny];
        valid[nx - 1] = false; // south-east corner: outside
        let img = write_and_open(&look(nx, ny, &depth, &valid));
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
    fn a_ten_cm_flood_shows_under_a_five_metre_one() {
        // A valley floor tilted down to the east, shaded like real terrain.
        let (nx, ny) = (40, 40);
        let terrain: Vec<f32> = (0..nx * ny).map(|c| -0.1 * (c % nx) as f32).collect();
        let mut depth = vec![0.0f32; nx * ny];
        depth[5 + nx * 20] = 0.1;
        depth[30 + nx * 20] = 5.0;
        depth[6 + nx * 20] = 0.03; // a film of rain: drawn as land
        let valid = vec![true; nx * ny];
        let mut q = look(nx, ny, &depth, &valid);
        q.terrain = Some(&terrain);
        let img = write_and_open(&q);
        let s = MIN_SIDE.div_ceil(nx);
        let flood = cell_pixel(&img, ny, s, 5, 20);
        let deep = cell_pixel(&img, ny, s, 30, 20);
        let land = cell_pixel(&img, ny, s, 7, 20);
        assert_eq!(
            cell_pixel(&img, ny, s, 6, 20),
            land,
            "3 cm is drawn as land"
        );
        assert!(land.0[0] == land.0[1] && land.0[1] == land.0[2], "{land:?}");
        // Clearly apart from the land here and from any grey the hillshade draws.
        assert!(distance(flood, land) > 80.0, "{flood:?} on {land:?}");
        for g in 110..=230 {
            let grey = Rgb([g, g, g]);
            assert!(distance(flood, grey) > 80.0, "{flood:?} against {grey:?}");
        }
        assert!(distance(flood, deep) > 150.0, "{flood:?} against {deep:?}");
        assert_eq!((flood, deep), (COLOURS[0], COLOURS[6]));
    }

    #[test]
    fn the_same_depth_has_the_same_colour_whatever_the_deepest_water() {
        let probes = [0.05f32, 0.1, 0.2, 0.4, 0.7, 1.5, 3.0, 6.0, 0.01, f32::NAN];
        let (nx, ny) = (probes.len() + 1, 1);
        let valid = vec![true; nx];
        let images: Vec<RgbImage> = [0.3f32, 8.0, 250.0]
            .iter()
            .map(|&deepest| {
                let depth: Vec<f32> = probes.iter().copied().chain([deepest]).collect();
                write_and_open(&look(nx, ny, &depth, &valid))
            })
            .collect();
        let s = MIN_SIDE.div_ceil(nx);
        for (i, &d) in probes.iter().enumerate() {
            let expected = depth_classes::colour(d).unwrap_or(DRY);
            for img in &images {
                assert_eq!(cell_pixel(img, ny, s, i, 0), expected, "{d} m");
            }
        }
    }

    #[test]
    fn the_legend_has_one_swatch_per_class_deepest_on_top() {
        let depth = [0.0f32; 4];
        let q = look(2, 2, &depth, &[true; 4]);
        let img = write_and_open(&q);
        let legend_x = PAD + render_map(&q).width() + 2 * PAD;
        // Down the middle of the swatches: runs of one colour; white between them, and
        // the note's ink below.
        let column: Vec<Rgb<u8>> = (MAP_Y..img.height())
            .map(|y| *img.get_pixel(legend_x + SWATCH_W / 2, y))
            .collect();
        let swatches: Vec<Rgb<u8>> = column
            .chunk_by(|a, b| a == b)
            .filter(|run| run[0] != WHITE && run[0] != INK)
            .map(|run| {
                assert_eq!(run.len() as u32, SWATCH_H, "{:?}", run[0]);
                run[0]
            })
            .collect();
        let mut expected = COLOURS.to_vec();
        expected.reverse();
        assert_eq!(swatches, expected);
        assert_eq!(EDGES.len(), COLOURS.len());
    }

    #[test]
    fn the_scale_bar_is_a_round_length_drawn_to_scale() {
        // 50 × 20 cells of 3 m: 8 pixels a cell, 8/3 pixels a metre, a map 150 m wide: a
        // 50 m bar of 133.3 pixels.
        let (nx, ny) = (50, 20);
        let depth = vec![0.0f32; nx * ny];
        let valid = vec![true; nx * ny];
        let mut q = look(nx, ny, &depth, &valid);
        q.cell_size = 3.0;
        let img = write_and_open(&q);
        let (pixels, (mw, _)) = scale_bar_pixels(&img, &q);
        let bar = ScaleBar::new(mw, pixels_per_metre(&q)).unwrap();
        assert_eq!(bar.metres(), 50.0);
        assert!(
            (f64::from(pixels) - 50.0 * 8.0 / 3.0).abs() <= 1.0,
            "{pixels}"
        );
        assert!(
            pixels * 15 >= mw * 2 && pixels * 3 <= mw,
            "{pixels} of {mw}"
        );
        // Binned: 3300 × 40 cells of 2 m, 3 cells a pixel: a 2 km bar of 333.3 pixels.
        let (nx, ny) = (3300, 40);
        let depth = vec![0.0f32; nx * ny];
        let valid = vec![true; nx * ny];
        let mut q = look(nx, ny, &depth, &valid);
        q.cell_size = 2.0;
        let img = write_and_open(&q);
        let (pixels, (mw, _)) = scale_bar_pixels(&img, &q);
        assert_eq!(mw, 1100);
        assert!((f64::from(pixels) - 2000.0 / 6.0).abs() <= 1.0, "{pixels}");
    }

    #[test]
    fn map_size_stays_between_400_and_1600_pixels() {
        for (nx, ny, side) in [(1, 1, 400), (3, 7, 406), (300, 10, 600), (1600, 5, 1600)] {
            let depth = vec![0.0f32; nx * ny];
            let valid = vec![true; nx * ny];
            let q = look(nx, ny, &depth, &valid);
            let (w, h) = render_map(&q).dimensions();
            assert_eq!(w.max(h), side as u32, "{nx}×{ny}");
            let img = write_and_open(&q);
            assert!(
                img.width() > w + 2 * PAD && img.width() < w + 300,
                "{nx}×{ny}"
            );
            assert!(img.height() > h + MAP_Y && img.height() < h.max(legend_height()) + 120);
        }
    }

    #[test]
    fn large_grids_are_binned_and_keep_their_deepest_cell() {
        let (nx, ny) = (3300, 40); // 3 cells per pixel: 1100 px wide
        let mut depth = vec![0.0f32; nx * ny];
        depth[1000 + nx * 10] = 1.0; // one wet cell in pixel (333, 3)
        let valid = vec![true; nx * ny];
        let img = write_and_open(&look(nx, ny, &depth, &valid));
        assert_eq!(scale(nx, ny), (3, 1));
        let h = ny.div_ceil(3);
        let p = *img.get_pixel(PAD + 333, MAP_Y + (h - 1 - 3) as u32);
        assert_eq!(Some(p), depth_classes::colour(1.0));
        assert_eq!(*img.get_pixel(PAD + 332, MAP_Y + (h - 1 - 3) as u32), DRY);
        assert!(img.width() <= (MAX_SIDE + 300) as u32);
    }

    #[test]
    fn all_dry_fields_are_shaded_from_the_north_west() {
        // A ridge along x: its west face tilts to the north-west light, its east face away.
        let (nx, ny) = (40, 40);
        let depth = vec![0.0f32; nx * ny];
        let valid = vec![true; nx * ny];
        let terrain: Vec<f32> = (0..nx * ny)
            .map(|c| 20.0 - (c % nx).abs_diff(20) as f32)
            .collect();
        let mut q = look(nx, ny, &depth, &valid);
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
    fn mismatched_sizes_and_a_cell_size_that_is_not_positive_are_errors_not_panics() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.png");
        let depth = [0.0f32; 4];
        let e = write_quicklook(&path, &look(2, 3, &depth, &[true; 6])).unwrap_err();
        assert!(
            e.contains("bad.png") && e.contains("depth has 4 cells"),
            "{e}"
        );
        let e = write_quicklook(&path, &look(0, 3, &[], &[])).unwrap_err();
        assert!(e.contains("empty grid"), "{e}");
        for cell_size in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let mut q = look(2, 2, &depth, &[true; 4]);
            q.cell_size = cell_size;
            let e = write_quicklook(&path, &q).unwrap_err();
            assert!(e.contains("cell size"), "{e}");
        }
        assert!(!path.exists());
    }
}
