//! The dry-map: skipping dry blocks must not change the result by a single bit, and it must
//! do less work.

mod common;

fn scenario(skip: bool) -> String {
    format!(
        r#"
[domain]
cell_size = 1.0
nx = 160
ny = 128

[terrain]
type = "slope"
slope_x = 0.002
slope_y = 0.001

[[initial.region]]
shape = "circle"
center = [30.0, 30.0]
radius = 10.0
depth = 1.5

[friction]
manning = 0.025

[numerics]
skip_dry_blocks = {skip}

[time]
end = 1e6
"#
    )
}

#[test]
fn skipping_dry_blocks_changes_nothing_and_saves_work() {
    let skipping = common::model(&scenario(true));
    let everything = common::model(&scenario(false));
    let (a, sa) = common::run_steps(&skipping, 400);
    let (b, sb) = common::run_steps(&everything, 400);
    assert_eq!(sa.t.to_bits(), sb.t.to_bits(), "same clock");
    for c in 0..a.depth.len() {
        assert_eq!(
            a.depth[c].to_bits(),
            b.depth[c].to_bits(),
            "depth differs at cell {c}"
        );
        assert_eq!(
            a.hu[c].to_bits(),
            b.hu[c].to_bits(),
            "hu differs at cell {c}"
        );
        assert_eq!(
            a.hv[c].to_bits(),
            b.hv[c].to_bits(),
            "hv differs at cell {c}"
        );
    }
    println!(
        "cell updates: {} with skipping, {} without",
        sa.cell_updates, sb.cell_updates
    );
    assert_eq!(sb.cell_updates, 400 * 80 * 256);
    assert!(
        10 * sa.cell_updates < 7 * sb.cell_updates,
        "skipping should save work"
    );
    // The water spread: the test covers a moving front, not a static puddle.
    let wet = a.depth.iter().filter(|&&h| h > 0.0).count();
    assert!(wet > 2 * 314, "only {wet} wet cells");
}

/// A one-rank grid whose blocks the dry-map all launches (here: all wet) runs through the
/// fixed list (in block order, faster than the dry-map's list), with the same bits as
/// without skipping; a partly dry one keeps the dry-map's list. (A wrong block number on
/// the fixed-list path would show in every test with rain or skipping off, which take it
/// from the first step.)
#[test]
fn a_fully_wet_grid_launches_every_block_through_the_fixed_list() {
    let wet_everywhere = |skip: bool| {
        common::model(&scenario(skip).replace(
            "[[initial.region]]",
            "[initial]\ndepth = 0.2\n\n[[initial.region]]",
        ))
    };
    let (a, sa) = common::run_steps(&wet_everywhere(true), 60);
    let (b, sb) = common::run_steps(&wet_everywhere(false), 60);
    assert!(sa.all_launched, "every block is wet, so launched: {sa:?}");
    assert_eq!(sa.active_blocks, 80);
    assert_eq!(sa.t.to_bits(), sb.t.to_bits(), "same clock");
    common::assert_same_fields(&a, &b, "fully wet, skipping dry blocks or not");
    let (_, partly) = common::run_steps(&common::model(&scenario(true)), 60);
    assert!(!partly.all_launched, "most blocks are dry: {partly:?}");
}

/// The benchmark's wet sweep: a levee keeps the confined dam break in its strip (its
/// blocks and one column of dry neighbours are all that is launched), while the same water
/// without the levee spreads and launches more.
#[test]
fn the_confined_wet_sweep_stays_in_its_strip() {
    use quadflood::bench::{wet_fraction, WetSweep};
    let n = 128; // 8 columns of blocks; the strip is 32 cells, 2 columns
    let (_, confined) = wet_fraction(common::gpu(), n, 0.25, 60, WetSweep::Confined).unwrap();
    let (_, spreading) = wet_fraction(common::gpu(), n, 0.25, 60, WetSweep::Spreading).unwrap();
    let strip_and_ring = 3.0 / 8.0;
    assert!(
        confined <= strip_and_ring + 1e-9,
        "confined: {confined} of the blocks launched"
    );
    assert!(
        confined >= 2.0 / 8.0,
        "confined: {confined} of the blocks launched, fewer than the strip"
    );
    assert!(
        spreading > confined,
        "spreading {spreading} against confined {confined}"
    );
}

/// On one rank, stage 2 marks the next step's blocks as its workgroups end and its last
/// workgroup ends the step, where ranks scan every block in a dispatch of its own (the
/// dry-map's two ways, shaders/drymap.wgsl). Forced either way with QUADFLOOD_STEP_END,
/// the results must not change by one bit: dry blocks skipped (the dam breaks, one of them
/// on three levels, so with the multi-resolution kernels, and once with its regular blocks
/// in kernels of their own, so that the regular stage 2 marks blocks and the level-change
/// one ends the step), and every block launched by rain with an inflow and gauges (the
/// river).
#[test]
fn ending_steps_in_stage_2_changes_no_result() {
    if !common::long_tests("ending steps in stage 2 (about 4 min on 2 cores)") {
        return;
    }
    // The 512² grid has 1024 blocks, four to each thread of the scanning workgroup.
    let fine = [
        "domain.cell_size=0.5",
        "domain.nx=512",
        "domain.ny=512",
        "time.end=1",
        "time.output_interval=0.5",
    ];
    for (scenario, settings, classes) in [
        ("circular-dam-break.toml", &["time.end=20"][..], "one"),
        ("circular-dam-break.toml", &fine[..], "one"),
        (
            "circular-dam-break-3-levels.toml",
            &["time.end=10"][..],
            "one",
        ),
        (
            "circular-dam-break-3-levels.toml",
            &["time.end=10"][..],
            "split",
        ),
        ("river-valley.toml", &["time.end=120"][..], "one"),
    ] {
        let run = |step_end| {
            let env = [
                ("QUADFLOOD_STEP_END", step_end),
                ("QUADFLOOD_LEVEL_CLASSES", classes),
            ];
            common::run_shipped(scenario, settings, &env)
        };
        common::assert_same_results(
            &run("apart"),
            &run("stage2"),
            &format!(
                "{scenario} {settings:?}, {classes} class(es), steps ended apart and in stage 2"
            ),
        );
    }
}
