//! Flood hazard classes from the run's maxima.
//!
//! The UK flood hazard rating HR = d (v + 0.5) + DF (Defra/Environment Agency, "Flood
//! risks to people", FD2320/FD2321): depth d (m), speed v (m/s) and a debris factor DF
//! that grows with depth and speed and depends on the land use. HR does not follow from
//! the other maxima (depth and speed peak at different times), so the GPU keeps its own
//! maximum, step by step (`uk_rating` in shaders/update.wgsl computes it as here).
//!
//! The Australian hazard categories H1-H6 (Australian Rainfall and Runoff 2019, Book 6
//! chapter 7; AIDR guideline 7-3): a cell is in the lowest category whose limits on depth,
//! speed and depth × speed all hold. Each limit grows with its variable, so the category is
//! the highest of the three variables' own categories, and the highest category over the
//! event is the one of each variable's maximum: the maps of the maxima give it exactly, to
//! the precision they are kept in (f16 speeds: 3 significant digits).

/// The land use whose debris factors the UK hazard rating takes (`output.debris`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LandUse {
    Pasture,
    Woodland,
    /// Debris wherever the water is past 0.25 m: the conservative choice.
    #[default]
    Urban,
}

impl LandUse {
    pub fn parse(name: &str) -> Option<LandUse> {
        match name {
            "pasture" | "arable" => Some(LandUse::Pasture),
            "woodland" => Some(LandUse::Woodland),
            "urban" | "conservative" => Some(LandUse::Urban),
            _ => None,
        }
    }

    /// DF where 0.25 m < d ≤ 0.75 m and v ≤ 2 m/s, and where d > 0.75 m or v > 2 m/s
    /// (FD2320's table of debris factors; 0 up to 0.25 m).
    pub fn debris_factors(self) -> [f32; 2] {
        match self {
            LandUse::Pasture => [0.0, 0.5],
            LandUse::Woodland => [0.5, 1.0],
            LandUse::Urban => [1.0, 1.0],
        }
    }
}

/// The UK hazard rating of water `depth` deep moving at `speed`.
pub fn uk_rating(depth: f32, speed: f32, land: LandUse) -> f32 {
    let [mid, high] = land.debris_factors();
    let debris = if depth <= 0.25 {
        0.0
    } else if depth > 0.75 || speed > 2.0 {
        high
    } else {
        mid
    };
    depth * (speed + 0.5) + debris
}

/// Upper limits of the UK rating's classes 1..3 (low, moderate, significant); above,
/// class 4 (extreme).
const UK_LIMITS: [f32; 3] = [0.75, 1.25, 2.0];

/// What each class means, for the map's band description.
pub const UK_CLASSES: &str = "UK flood hazard rating class from the maximum HR = d(v + 0.5) + DF (FD2321): 1 low, HR < 0.75 (caution); 2 moderate, 0.75-1.25 (danger for some); 3 significant, 1.25-2.0 (danger for most); 4 extreme, above 2.0 (danger for all)";

/// The class (1..=4) of a rating.
pub fn uk_class(rating: f32) -> u8 {
    UK_LIMITS.iter().position(|&l| rating < l).unwrap_or(3) as u8 + 1
}

/// Upper limits of H1..H5 on depth (m), speed (m/s) and depth × speed (m²/s); above H5's,
/// H6.
const DEPTH_LIMITS: [f32; 5] = [0.3, 0.5, 1.2, 2.0, 4.0];
const SPEED_LIMITS: [f32; 5] = [2.0, 2.0, 2.0, 2.0, 4.0];
const DEPTH_SPEED_LIMITS: [f32; 5] = [0.3, 0.6, 0.6, 1.0, 4.0];

/// What each category means, for the map's band description.
pub const ARR_CATEGORIES: &str = "ARR 2019 hazard category from the maxima: 1 (H1) generally safe; 2 (H2) unsafe for small vehicles; 3 (H3) unsafe for vehicles, children and the elderly; 4 (H4) unsafe for vehicles and people; 5 (H5) unsafe for vehicles and people, buildings need special engineering design; 6 (H6) unsafe for vehicles and people, all buildings vulnerable to failure";

/// The category (1..=6) of a cell whose greatest depth, speed and depth × speed were
/// these.
pub fn arr_category(depth: f32, speed: f32, depth_speed: f32) -> u8 {
    let of = |value: f32, limits: &[f32; 5]| {
        limits.iter().position(|&l| value <= l).unwrap_or(5) as u8 + 1
    };
    of(depth, &DEPTH_LIMITS)
        .max(of(speed, &SPEED_LIMITS))
        .max(of(depth_speed, &DEPTH_SPEED_LIMITS))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_limit_bounds_its_category() {
        // Still, shallow water: H1; at each depth limit the category it ends, just past it
        // the next.
        assert_eq!(arr_category(0.1, 0.0, 0.0), 1);
        for (k, &d) in DEPTH_LIMITS.iter().enumerate() {
            assert_eq!(arr_category(d, 0.0, 0.0), k as u8 + 1, "depth {d}");
            assert_eq!(
                arr_category(d * 1.001, 0.0, 0.0),
                k as u8 + 2,
                "depth past {d}"
            );
        }
        // Speed alone: up to 2 m/s H1, then H5, past 4 m/s H6.
        assert_eq!(arr_category(0.05, 2.0, 0.1), 1);
        assert_eq!(arr_category(0.05, 2.1, 0.105), 5);
        assert_eq!(arr_category(0.05, 4.1, 0.205), 6);
        // Depth × speed: H2 to 0.6, then H4 (H3 shares H2's limit), H5 to 4, then H6.
        assert_eq!(arr_category(0.25, 1.6, 0.4), 2);
        assert_eq!(arr_category(0.45, 1.5, 0.675), 4);
        assert_eq!(arr_category(1.0, 1.9, 1.9), 5);
        assert_eq!(arr_category(2.5, 1.8, 4.5), 6);
    }

    #[test]
    fn the_uk_rating_adds_debris_past_a_quarter_metre() {
        // Shallow, still water: d/2, no debris.
        assert_eq!(uk_rating(0.2, 0.0, LandUse::Urban), 0.1);
        // 0.5 m at 1 m/s: 0.75 + DF (pasture 0, woodland 0.5, urban 1).
        assert_eq!(uk_rating(0.5, 1.0, LandUse::Pasture), 0.75);
        assert_eq!(uk_rating(0.5, 1.0, LandUse::Woodland), 1.25);
        assert_eq!(uk_rating(0.5, 1.0, LandUse::Urban), 1.75);
        // Past 2 m/s or 0.75 m, the higher factor.
        assert_eq!(uk_rating(0.5, 2.5, LandUse::Pasture), 0.5 * 3.0 + 0.5);
        assert_eq!(uk_rating(1.0, 0.0, LandUse::Woodland), 0.5 + 1.0);
        assert_eq!(LandUse::parse("conservative"), Some(LandUse::Urban));
        assert_eq!(LandUse::parse("forest"), None);
    }

    #[test]
    fn uk_classes_start_at_their_limits() {
        assert_eq!(uk_class(0.0), 1);
        assert_eq!(uk_class(0.7499), 1);
        assert_eq!(uk_class(0.75), 2);
        assert_eq!(uk_class(1.25), 3);
        assert_eq!(uk_class(1.99), 3);
        assert_eq!(uk_class(2.0), 4);
        assert_eq!(uk_class(40.0), 4);
    }

    #[test]
    fn the_category_never_falls_as_any_variable_grows() {
        let steps = [
            0.0, 0.2, 0.3, 0.31, 0.5, 0.6, 0.9, 1.2, 1.9, 2.0, 2.5, 4.0, 5.0,
        ];
        for &d in &steps {
            for &v in &steps {
                for &dv in &steps {
                    let c = arr_category(d, v, dv);
                    assert!((1..=6).contains(&c));
                    for &more in steps.iter().filter(|&&m| m > d) {
                        assert!(arr_category(more, v, dv) >= c);
                    }
                    for &more in steps.iter().filter(|&&m| m > v) {
                        assert!(arr_category(d, more, dv) >= c);
                    }
                    for &more in steps.iter().filter(|&&m| m > dv) {
                        assert!(arr_category(d, v, more) >= c);
                    }
                }
            }
        }
    }
}
