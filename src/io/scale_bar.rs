//! The scale bar under a quick-look's map: a bar of a round length (1, 2 or 5 × 10^k m)
//! with its label ("500 m", "2 km").

use crate::io::font::{draw_text, fill_rect, text_width, CHAR_H, INK};
use image::RgbImage;

/// Height of the bar and its label, in pixels.
pub const HEIGHT: u32 = CHAR_H;
/// The bar's thickness; end ticks span the label's height.
const THICKNESS: u32 = 6;
const TICK_W: u32 = 2;
const LABEL_GAP: u32 = 8;

/// A round length: `mantissa` (1, 2 or 5) × 10^`exponent` m.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BarLength {
    mantissa: u32,
    exponent: i32,
}

impl BarLength {
    /// The longest 1, 2 or 5 × 10^k m that is at most a third of a map `width` metres
    /// wide, so the bar spans between 2/15 and 1/3 of the map. None for a width that is
    /// not positive and finite.
    pub fn for_width(width: f64) -> Option<BarLength> {
        let most = width / 3.0;
        if !(most > 0.0 && most.is_finite()) {
            return None;
        }
        // log10 may land a hair either side of a power of ten: try the decade above too.
        let decade = most.log10().floor() as i32;
        (decade - 1..=decade + 1)
            .rev()
            .flat_map(|exponent| [5, 2, 1].map(|mantissa| BarLength { mantissa, exponent }))
            .find(|bar| bar.metres() <= most * (1.0 + 1e-12))
    }

    pub fn metres(&self) -> f64 {
        f64::from(self.mantissa) * 10f64.powi(self.exponent)
    }

    /// "500 m", "2 km", "0.05 m": kilometres from 1 km, never a float's noise.
    pub fn label(&self) -> String {
        let m = self.mantissa;
        match self.exponent {
            e if e >= 3 => format!("{} km", u64::from(m) * 10u64.pow((e - 3) as u32)),
            e if e >= 0 => format!("{} m", u64::from(m) * 10u64.pow(e as u32)),
            e => format!("{:.*} m", (-e) as usize, self.metres()),
        }
    }
}

/// A bar for a map `map_width` pixels wide at `px_per_m` pixels a metre.
#[derive(Clone, Debug, PartialEq)]
pub struct ScaleBar {
    length: BarLength,
    /// The bar's length in pixels.
    pub pixels: u32,
}

impl ScaleBar {
    /// None where the scale gives no length.
    pub fn new(map_width: u32, px_per_m: f64) -> Option<ScaleBar> {
        let length = BarLength::for_width(f64::from(map_width) / px_per_m)?;
        let pixels = ((length.metres() * px_per_m).round() as u32).max(1);
        Some(ScaleBar { length, pixels })
    }

    pub fn metres(&self) -> f64 {
        self.length.metres()
    }

    /// The bar and its label, in pixels.
    pub fn width(&self) -> u32 {
        self.pixels + LABEL_GAP + text_width(&self.length.label())
    }

    /// Draws the bar with its top-left at (x, y) and its label to its right.
    pub fn draw(&self, img: &mut RgbImage, x: u32, y: u32) {
        let length = self.pixels;
        fill_rect(img, x, y + (HEIGHT - THICKNESS) / 2, length, THICKNESS, INK);
        for tick_x in [x, x + length.saturating_sub(TICK_W)] {
            fill_rect(img, tick_x, y, TICK_W.min(length), HEIGHT, INK);
        }
        draw_text(img, x + length + LABEL_GAP, y, &self.length.label());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bar(width: f64) -> (f64, String) {
        let b = BarLength::for_width(width).unwrap();
        (b.metres(), b.label())
    }

    #[test]
    fn lengths_are_round_and_span_two_fifteenths_to_a_third_of_the_map() {
        let cases = [
            (3000.0, 1000.0, "1 km"),
            (2999.0, 500.0, "500 m"),
            (1500.0, 500.0, "500 m"),
            (1499.0, 200.0, "200 m"),
            (100.0, 20.0, "20 m"),
            (14.9, 2.0, "2 m"),
            (1.0, 0.2, "0.2 m"),
            (0.3, 0.1, "0.1 m"),
            (0.29, 0.05, "0.05 m"),
            (60_000.0, 20_000.0, "20 km"),
            (6.0e6, 2.0e6, "2000 km"),
        ];
        for (width, metres, label) in cases {
            assert_eq!(bar(width), (metres, label.to_string()), "{width} m");
        }
        for k in 0..2000 {
            let width = 0.7 * 1.01f64.powi(k);
            let (metres, _) = bar(width);
            let share = metres / width;
            assert!(
                (2.0 / 15.0 - 1e-9..=1.0 / 3.0 + 1e-9).contains(&share),
                "{width}: {metres}"
            );
        }
    }

    #[test]
    fn no_length_for_a_width_that_is_not_positive() {
        for width in [0.0, -5.0, f64::NAN, f64::INFINITY] {
            assert_eq!(BarLength::for_width(width), None, "{width}");
        }
    }
}
