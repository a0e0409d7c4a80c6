//! Multi-resolution grids: well-balancing and conservation across level changes.

mod common;

/// A 3-level grid: finest in a disc in the middle, coarsest at the rim, with a ring of
/// the middle level that 2:1 balance puts between them.
fn three_levels(extra: &str) -> String {
    format!(
        r#"
[domain]
cell_size = 1.0
nx = 320
ny = 256

[refinement]
levels = 3

[[refinement.region]]
shape = "circle"
center = [150.0, 128.0]
radius = 20.0
level = 0

[terrain]
type = "expression"
expression = "0.4 + 0.25*sin(x/7)*cos(y/9) + 0.1*sin(x*y/500) + 1.6*exp(-((x-128)^2 + (y-128)^2)/200)"

{extra}

[time]
end = 1e6
"#
    )
}

#[test]
fn grid_has_three_levels() {
    let model = common::model(&three_levels("[initial]\nwater_level = 1.0"));
    let per_level = model.grid.blocks_per_level();
    println!("blocks per level {per_level:?}");
    assert!(per_level.iter().all(|&n| n > 0), "{per_level:?}");
}

#[test]
fn lake_at_rest_across_levels() {
    let model = common::model(&three_levels("[initial]\nwater_level = 1.0"));
    let depth0 = model.domain(&model.depth);
    assert!(depth0.contains(&0.0), "the island must stick out");
    let (f, status) = common::run_steps(&model, 1000);
    assert_eq!(status.steps, 1000);
    let bed = model.domain(&model.bed);
    let mut max_speed = 0.0f32;
    let mut max_level_error = 0.0f64;
    for c in 0..f.depth.len() {
        let h = f.depth[c];
        if h > 0.0 {
            max_speed = max_speed.max(f.hu[c].abs() / h).max(f.hv[c].abs() / h);
            max_level_error =
                max_level_error.max((h as f64 + bed[c] as f64 + model.datum - 1.0).abs());
        }
        assert_eq!(h == 0.0, depth0[c] == 0.0, "wet/dry changed at cell {c}");
    }
    println!("max speed {max_speed:e} m/s, max level error {max_level_error:e} m");
    assert!(max_speed < 1e-5, "max |u|, |v| = {max_speed} m/s");
    assert!(max_level_error < 1e-5);
}

#[test]
fn mass_is_conserved_across_levels() {
    // A column of water in the fine disc runs out across both level changes and back.
    let extra = "[initial]\nwater_level = 0.6\n\n[[initial.region]]\nshape = \"circle\"\ncenter = [155.0, 128.0]\nradius = 12.0\nwater_level = 2.5\n\n[friction]\nmanning = 0.01";
    let model = common::model(&three_levels(extra));
    let before = model.stored_volume(&model.depth);
    let mut sim = quadflood::solver::Simulation::new(common::gpu(), &model).unwrap();
    sim.run_steps(2000).unwrap();
    let after = model.volume(&sim.read_fields().depth);
    let error = (after - before).abs() / before;
    println!(
        "mass {before} -> {after} m3, relative error {error:e}, t = {} s",
        sim.status().t
    );
    assert!(error < 1e-5, "relative mass error {error:e}");
}
