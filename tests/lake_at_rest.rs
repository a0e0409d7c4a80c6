//! Well-balancing: a lake at rest over an irregular bed, with an emerged island and
//! shorelines, stays at rest. The scheme is built so that this holds to the last bit.

mod common;

#[test]
fn lake_at_rest_stays_at_rest_for_1000_steps() {
    let model = common::scenario("lake-at-rest.toml");
    let (depth0, bed) = (model.domain(&model.depth), model.domain(&model.bed));
    assert!(
        depth0.contains(&0.0),
        "the island must stick out of the lake"
    );
    let (f, status) = common::run_steps(&model, 1000);
    assert_eq!(status.steps, 1000);
    let mut max_speed = 0.0f32;
    let mut max_level_error = 0.0f64;
    for c in 0..f.depth.len() {
        let h = f.depth[c];
        if h > 0.0 {
            max_speed = max_speed.max(f.hu[c].abs() / h).max(f.hv[c].abs() / h);
            let level = h as f64 + bed[c] as f64 + model.datum;
            max_level_error = max_level_error.max((level - 1.0).abs());
        } else {
            assert_eq!(depth0[c], 0.0, "cell {c} dried out");
        }
        if depth0[c] == 0.0 {
            assert_eq!(h, 0.0, "dry cell {c} got wet");
        }
    }
    println!("max speed {max_speed:e} m/s, max level error {max_level_error:e} m");
    assert!(max_speed < 1e-5, "max |u|, |v| = {max_speed} m/s");
    // f32 holds a level near 1 m to 6e-8 m; the datum shift adds a little more.
    assert!(
        max_level_error < 1e-5,
        "max level error {max_level_error} m"
    );
}
