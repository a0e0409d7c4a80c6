//! Dynamic load balancing (`[load_balancing]`): on four ranks, the shipped wall dam break
//! moves blocks as the flood advances, and the fields stay bit for bit those of one rank;
//! every move keeps every block exactly once, every cell and every drop of water. The ranks
//! are threads sharing the test's GPU (`tests/mpi.rs` runs the scenario under mpirun).

mod common;

use quadflood::partition::balance::{Rule, MIN_SHARE};
use quadflood::partition::{partition, per_block};
use quadflood::scenario::model::Model;
use quadflood::solver::ranks::Ranked;
use quadflood::solver::{Fields, Stepper};
use serde_json::Value;

const RANKS: usize = 4;
const T: f64 = 12.0;

/// Four ranks to `T`: rank 0's fields, rebalancing log, count of steps planned again and
/// volume lost to the ground.
fn balanced_run(model: &Model) -> (Fields, Vec<Value>, u64, f64) {
    let p = partition(&model.grid, RANKS, model.partition, &per_block);
    let mut all = common::on_ranks(RANKS, |c| {
        let mut r = Ranked::new(common::gpu(), model, &p, c).expect("a rank");
        r.advance_to(T, &mut |_| {}).expect("the run");
        let replans = r.status().steps_planned_again;
        let lost = r.lost_volume();
        (r.read_fields(), r.rebalancing(), replans, lost)
    });
    let (fields, log, replans, lost) = all.swap_remove(0);
    (
        fields.expect("fields on rank 0"),
        log.expect("a log on rank 0"),
        replans,
        lost,
    )
}

/// Every move conserves blocks, cells and water, and keeps the weights in bounds.
fn check_moves(model: &Model, log: &[Value]) {
    let cells = model.grid.stored_cells() as u64;
    for e in log {
        assert_eq!(e["every_block_once"], true, "{e}");
        assert_eq!(e["cells_before"], cells, "{e}");
        assert_eq!(e["cells_after"], cells, "{e}");
        let (v0, v1) = (
            e["volume_before_m3"].as_f64().unwrap(),
            e["volume_after_m3"].as_f64().unwrap(),
        );
        assert!(
            v0 > 0.0 && v0.to_bits() == v1.to_bits(),
            "volume {v0} -> {v1}"
        );
        let weights: Vec<f64> = serde_json::from_value(e["weights"].clone()).unwrap();
        assert_eq!(weights.len(), RANKS);
        assert!(
            (weights.iter().sum::<f64>() - 1.0).abs() < 1e-9,
            "{weights:?}"
        );
        assert!(weights
            .iter()
            .all(|&w| w >= MIN_SHARE / RANKS as f64 - 1e-12));
        let blocks: Vec<u64> = serde_json::from_value(e["blocks_per_rank"].clone()).unwrap();
        assert!(blocks.iter().all(|&b| b >= 1), "an empty rank: {blocks:?}");
        assert_eq!(blocks.iter().sum::<u64>(), model.grid.nblocks() as u64);
        assert!(e["blocks_moved"].as_u64().unwrap() >= 1);
        assert!(e["bytes_moved"].as_u64().unwrap() >= 4096);
    }
}

/// The shipped scenario, plus forcing that must follow its blocks from rank to rank: a
/// line source across the wall's east side, an inflow on the west edge and a rain zone;
/// and losses, whose depth lost so far moves with each block (a block that forgot it
/// would take its initial loss again).
fn scenario() -> Model {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/wall-dam-break.toml");
    let text = std::fs::read_to_string(path).unwrap().replace(
        "[friction]",
        r#"[[source]]
line = [[210.0, 20.0], [380.0, 190.0]]
discharge = { time = [0.0, 12.0], value = [0.0, 40.0] }

[[boundary.segment]]
edge = "west"
type = "inflow"
from = 40.0
to = 160.0
discharge = 15.0

[[rain.zone]]
polygon = [[20.0, 20.0], [180.0, 60.0], [100.0, 180.0]]
rate = { time = [0.0, 6.0], value = [0.0, 3000.0] }

[losses]
model = "initial_continuing"
initial = 2.0
continuing = 500.0

[friction]"#,
    );
    common::model(&text)
}

#[test]
fn rebalancing_moves_blocks_and_changes_no_bit() {
    let mut model = scenario();
    let mut sim = quadflood::solver::Simulation::new(common::gpu(), &model).unwrap();
    sim.advance_to(T, &mut |_| {}).unwrap();
    let (one, status, one_lost) = (sim.read_fields(), sim.status().clone(), sim.lost_volume());
    drop(sim);
    assert!(one_lost > 0.0, "the ground took no water");
    let west_wet = (0..model.nx() * model.ny())
        .filter(|&c| c % model.nx() < 190 && one.depth[c] > 0.0)
        .count();
    println!(
        "one rank: {} steps ({} planned again), west of the wall wet cells: {west_wet}",
        status.steps, status.steps_planned_again
    );
    assert!(
        status.steps_planned_again > 0,
        "the dam break's first steps plan again"
    );
    // The cost rule with a long payback, so that it moves often; the idle rule, which moves
    // whenever the threshold is passed.
    for (rule, payback) in [(Rule::Cost, 1e6), (Rule::Idle, 1.0)] {
        let s = model.balance.as_mut().expect("the scenario balances");
        // Short windows: many checks in a short test. Timings on threads sharing a
        // software GPU are noise, so the threshold is 1: any measured imbalance counts,
        // whatever share of the window the GPUs were busy.
        s.every = 8;
        s.threshold = 1.0;
        s.min_busy_share = 0.0;
        s.rule = rule;
        s.payback = payback;
        let (fields, log, replans, lost) = balanced_run(&model);
        println!(
            "{rule}: {} moves, busy time from {}",
            log.len(),
            log.first()
                .map_or(Value::Null, |e| e["busy_measured_by"].clone())
        );
        for e in &log {
            println!(
                "  step {} moved {} blocks ({} B) in {:.3} s, imbalance {:.2} -> predicted {:.2}, after {}",
                e["step"], e["blocks_moved"], e["bytes_moved"], e["seconds"].as_f64().unwrap(),
                e["imbalance_before"].as_f64().unwrap(), e["imbalance_predicted"].as_f64().unwrap(),
                e["imbalance_after"]
            );
        }
        assert!(!log.is_empty(), "{rule}: no rebalance happened");
        if payback > 1e3 {
            assert!(log.len() >= 3, "{rule}: moves one after another");
        }
        check_moves(&model, &log);
        common::assert_same_fields(&one, &fields, &format!("4 ranks, {rule} rule"));
        assert_eq!(lost.to_bits(), one_lost.to_bits(), "{rule}: lost volume");
        // A move rebuilds each rank's simulation: the count goes with the clock.
        assert_eq!(
            replans, status.steps_planned_again,
            "{rule}: steps planned again"
        );
    }
}
