//! Sources inside the domain (a point, a line and a polygon) add the volume of their
//! hydrographs, on a grid with three levels, and the volume balance counts them. A dry
//! domain must still take short steps where a source pours in (see `source_speed`).

mod common;

const SCENARIO: &str = r#"
[domain]
cell_size = 1.0
nx = 96
ny = 64

[refinement]
levels = 3

[[refinement.region]]
shape = "circle"
center = [20.0, 20.0]
radius = 6.0
level = 0

[terrain]
type = "expression"
expression = "0.01*x + 0.2*sin(y/7)"

[friction]
manning = 0.03

# On the finest level.
[[source]]
name = "culvert"
point = [20.5, 20.5]
discharge = { time = [0.0, 10.0, 30.0], value = [0.0, 2.0, 0.0] }

# Across coarse cells and a level change.
[[source]]
line = [[30.0, 50.0], [90.0, 10.0]]
discharge = 1.5

[[source]]
polygon = [[60.0, 40.0], [80.0, 40.0], [70.0, 60.0]]
discharge = { time = [0.0, 40.0], value = [3.0, 0.0] }

[time]
end = 40.0
"#;

#[test]
fn sources_add_the_volume_of_their_hydrographs() {
    let model = common::model(SCENARIO);
    assert!(model.grid.levels == 3 && model.sources.len() > 40);
    let shares: f64 = model.sources.iter().map(|s| s.fraction).sum();
    assert!(
        (shares - 3.0).abs() < 1e-9,
        "each source's shares add up to 1: {shares}"
    );
    let expected: f64 = model.series.iter().map(|s| s.integral(0.0, 40.0)).sum();
    assert!((expected - (30.0 + 60.0 + 60.0)).abs() < 1e-9);
    let mut sim = quadflood::solver::Simulation::new(common::gpu(), &model).unwrap();
    sim.advance_to(40.0, &mut |_| {}).unwrap();
    let stored = model.volume(&sim.read_fields().depth);
    let (inflow, outflow) = sim.edge_volumes();
    println!("stored {stored} m3, hydrographs {expected} m3, counted in {inflow}, out {outflow}");
    assert_eq!(outflow, 0.0, "walls pass no water");
    // f32 depths summed over ~10^3 steps: the same bound as the edge inflow test.
    assert!(
        (stored - expected).abs() / expected < 1e-4,
        "stored {stored} vs {expected}"
    );
    assert!(
        (inflow - stored).abs() / expected < 1e-4,
        "counted {inflow} vs stored {stored}"
    );
}

#[test]
fn a_source_outside_the_domain_or_without_a_place_is_refused() {
    for (bad, key) in [
        ("point = [200.0, 20.0]", "source[0].point"),
        ("line = [[10.0, 10.0], [150.0, 10.0]]", "source[0].line"),
        (
            "polygon = [[200.0, 200.0], [210.0, 200.0], [205.0, 210.0]]",
            "source[0].polygon",
        ),
        (
            "point = [1.0, 1.0]\nline = [[1.0, 1.0], [2.0, 2.0]]",
            "source[0]",
        ),
    ] {
        let text = SCENARIO.replace("point = [20.5, 20.5]", bad);
        let Err(e) = quadflood::scenario::from_str(&text, std::path::Path::new(".")) else {
            panic!("a misplaced source is an error");
        };
        assert_eq!(e.key.as_deref(), Some(key), "{bad}: {e}");
    }
}
