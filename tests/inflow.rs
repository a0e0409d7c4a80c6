//! An inflow hydrograph into a closed box: the stored volume equals the integral of Q(t).

mod common;

#[test]
fn stored_volume_matches_the_hydrograph() {
    let model = common::scenario("inflow-box.toml");
    let expected = model.series[0].integral(0.0, 80.0);
    assert!((expected - 90.0).abs() < 1e-9);
    let mut sim = quadflood::solver::Simulation::new(common::gpu(), &model).unwrap();
    sim.advance_to(80.0, &mut |_| {}).unwrap();
    let stored = model.volume(&sim.read_fields().depth);
    let (inflow, outflow) = sim.edge_volumes();
    println!("stored {stored} m3, hydrograph {expected} m3, counted in {inflow}, out {outflow}");
    assert_eq!(outflow, 0.0, "walls pass no water");
    assert!(
        (stored - expected).abs() / expected < 1e-4,
        "stored {stored} vs {expected}"
    );
    assert!(
        (inflow - expected).abs() / expected < 1e-4,
        "counted inflow {inflow} vs {expected}"
    );
}
