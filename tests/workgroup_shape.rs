//! The regular stage kernels run 16 × 17 threads where the adapter allows it (one round of
//! faces per direction) and 16 × 16 where it does not (`REGULAR_ROWS` in
//! shaders/flux.wgsl). Forced either way with QUADFLOOD_REGULAR_ROWS, the results must not
//! change by one bit.

mod common;

#[test]
fn sixteen_or_seventeen_rows_of_threads_give_the_same_bits() {
    let run = |scenario: &str, settings: &[&str], step_end: &str, rows: &str| {
        let mut args = vec!["--set", "output.png=false"];
        for setting in settings {
            args.extend(["--set", setting]);
        }
        let env = [
            ("QUADFLOOD_REGULAR_ROWS", rows),
            ("QUADFLOOD_STEP_END", step_end),
        ];
        common::run_results(&common::shipped(scenario), &args, &env)
    };
    for (scenario, settings, step_end) in [
        // Stage 2's last workgroup ends each step, with every thread scanning blocks.
        ("circular-dam-break.toml", &["time.end=5"][..], "stage2"),
        // Stage 1, stage 2 and the step's end as three dispatches.
        ("circular-dam-break.toml", &["time.end=5"][..], "apart"),
        // An inflow edge and walls: every thread fills ghost cells.
        ("inflow-box.toml", &["time.end=40"][..], "stage2"),
    ] {
        let seventeen = run(scenario, settings, step_end, "17");
        let sixteen = run(scenario, settings, step_end, "16");
        assert!(seventeen.len() > 2, "{scenario}: {} files", seventeen.len());
        assert_eq!(seventeen.len(), sixteen.len(), "{scenario}");
        for ((name, a), (_, b)) in seventeen.iter().zip(&sixteen) {
            assert!(
                a == b,
                "{scenario} {settings:?}, steps ending {step_end}: {name} differs between 16 and 17 rows of threads"
            );
        }
    }
}

/// WebGPU zeroes workgroup memory at each workgroup's start; QUADFLOOD_ZERO_WORKGROUP=off
/// skips that, to measure what it costs. The kernels write every workgroup value they read,
/// so the results must not change by one bit: across level changes (virtual halos, side
/// faces) and on the domain edge with an inflow.
#[test]
fn workgroup_memory_need_not_start_zeroed() {
    let run = |scenario: &str, settings: &[&str], zeroed: &str| {
        let mut args = vec!["--set", "output.png=false"];
        for setting in settings {
            args.extend(["--set", setting]);
        }
        let env = [("QUADFLOOD_ZERO_WORKGROUP", zeroed)];
        common::run_results(&common::shipped(scenario), &args, &env)
    };
    for (scenario, settings) in [
        ("circular-dam-break-3-levels.toml", &["time.end=5"][..]),
        ("inflow-box.toml", &["time.end=40"][..]),
    ] {
        let zeroed = run(scenario, settings, "on");
        let not_zeroed = run(scenario, settings, "off");
        assert!(zeroed.len() > 2, "{scenario}: {} files", zeroed.len());
        assert_eq!(zeroed.len(), not_zeroed.len(), "{scenario}");
        for ((name, a), (_, b)) in zeroed.iter().zip(&not_zeroed) {
            assert!(
                a == b,
                "{scenario}: {name} differs when workgroup memory does not start zeroed"
            );
        }
    }
}
