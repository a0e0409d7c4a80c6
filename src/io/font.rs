//! A built-in 5×7 font for the text of the PNGs (titles, legends, labels), so that no
//! system fonts are needed.

use image::{Rgb, RgbImage};

/// Text is drawn at twice the font's size: a 5×7 glyph in a 6-pixel advance.
const TEXT_SCALE: u32 = 2;
pub const CHAR_W: u32 = 6 * TEXT_SCALE;
pub const CHAR_H: u32 = 7 * TEXT_SCALE;
pub const INK: Rgb<u8> = Rgb([20, 20, 20]);

pub fn text_width(text: &str) -> u32 {
    text.chars().count() as u32 * CHAR_W
}

/// Draws text with its top-left at (x, y); pixels off the image are dropped.
pub fn draw_text(img: &mut RgbImage, x: u32, y: u32, text: &str) {
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

pub fn fill_rect(img: &mut RgbImage, x: u32, y: u32, w: u32, h: u32, colour: Rgb<u8>) {
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
        '<' => [2, 4, 8, 16, 8, 4, 2],
        '>' => [8, 4, 2, 1, 2, 4, 8],
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
    [0, 0, 30, 17, 30, 16, 16],   // p
    [0, 0, 15, 17, 15, 1, 1],     // q
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

    #[test]
    fn the_font_covers_titles_and_labels() {
        let all = "0123456789.-+e=:/()<> abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
        for c in all.chars() {
            assert!(glyph(c).is_some(), "{c:?}");
        }
        for g in UPPER.iter().chain(&LOWER) {
            assert!(g.iter().all(|&row| row < 32) && g.iter().any(|&row| row != 0));
        }
    }
}
