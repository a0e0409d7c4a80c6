//! Fixed depth classes for the quick-looks. Every map and every frame of the animation uses
//! the same classes, so a colour means the same depth wherever it appears, and a 10 cm
//! flood keeps its colour on a map whose deepest water is 5 m (a linear ramp to the run's
//! maximum drew it almost white).
//!
//! Water shallower than the first edge is drawn as the land under it: that is the film
//! rain leaves on every cell of a rain-on-grid run and the fringe of a wetting front, and
//! a class of its own would tint the whole catchment and hide the floods that matter.

use image::Rgb;

/// Lower edge of each class (m); the last class has no upper edge.
pub const EDGES: [f32; 7] = [0.05, 0.15, 0.3, 0.5, 1.0, 2.0, 5.0];

/// One colour per class, shallowest first: sky blue to navy. Luminance steps down by about
/// 36, 35, 31, 29, 25, 19 (of 255) from class to class, so each is visibly darker than the
/// one before, and every class is strongly blue (blue exceeds red by 90 or more), so even
/// the shallowest never reads as the grey hillshade of dry land.
pub const COLOURS: [Rgb<u8>; EDGES.len()] = [
    Rgb([130, 215, 255]),
    Rgb([80, 180, 245]),
    Rgb([40, 145, 225]),
    Rgb([20, 110, 200]),
    Rgb([15, 75, 165]),
    Rgb([10, 45, 125]),
    Rgb([20, 20, 110]),
];

/// The class of `depth`: the last whose lower edge it reaches; None below the first edge
/// and for NaN.
pub fn class_of(depth: f32) -> Option<usize> {
    EDGES.iter().rposition(|&edge| depth >= edge)
}

/// The colour of `depth`, or None where it is drawn as land.
pub fn colour(depth: f32) -> Option<Rgb<u8>> {
    class_of(depth).map(|k| COLOURS[k])
}

/// The legend's text for class `k` (m): "0.05 - 0.15", …, "> 5".
pub fn label(k: usize) -> String {
    match EDGES.get(k + 1) {
        Some(upper) => format!("{} - {}", EDGES[k], upper),
        None => format!("> {}", EDGES[k]),
    }
}

/// The legend's note on what is not drawn: "< 0.05 not shown".
pub fn below_label() -> String {
    format!("< {} not shown", EDGES[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn luminance(c: Rgb<u8>) -> f64 {
        let [r, g, b] = c.0.map(f64::from);
        0.2126 * r + 0.7152 * g + 0.0722 * b
    }

    #[test]
    fn depths_fall_in_the_class_whose_edges_hold_them() {
        let cases = [
            (0.0, None),
            (0.049, None),
            (f32::NAN, None),
            (-1.0, None),
            (0.05, Some(0)),
            (0.1, Some(0)),
            (0.15, Some(1)),
            (0.49, Some(2)),
            (0.5, Some(3)),
            (1.999, Some(4)),
            (4.9, Some(5)),
            (5.0, Some(6)),
            (250.0, Some(6)),
            (f32::INFINITY, Some(6)),
        ];
        for (depth, class) in cases {
            assert_eq!(class_of(depth), class, "{depth}");
        }
    }

    #[test]
    fn each_class_is_darker_than_the_last_and_blue() {
        for pair in COLOURS.windows(2) {
            let step = luminance(pair[0]) - luminance(pair[1]);
            assert!(step > 15.0, "{pair:?}: luminance falls by {step:.1}");
        }
        for c in COLOURS {
            assert!(
                i32::from(c.0[2]) - i32::from(c.0[0]) >= 90,
                "{c:?} is not blue"
            );
        }
    }

    #[test]
    fn labels_name_both_edges_and_the_last_is_open() {
        let labels: Vec<String> = (0..EDGES.len()).map(label).collect();
        assert_eq!(labels[0], "0.05 - 0.15");
        assert_eq!(labels[3], "0.5 - 1");
        assert_eq!(labels[6], "> 5");
        assert_eq!(below_label(), "< 0.05 not shown");
    }
}
