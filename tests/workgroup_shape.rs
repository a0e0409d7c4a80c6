//! The stage kernels' workgroups may change shape without changing one bit of the results.

mod common;

/// The regular stage kernels run 16 × 17 threads where the adapter allows it (one round of
/// faces per direction) and 16 × 16 where it does not (`REGULAR_ROWS` in
/// shaders/flux.wgsl), forced either way with QUADFLOOD_REGULAR_ROWS.
#[test]
fn sixteen_or_seventeen_rows_of_threads_give_the_same_bits() {
    for (scenario, settings, step_end) in [
        // Stage 2's last workgroup ends each step, with every thread scanning blocks.
        ("circular-dam-break.toml", &["time.end=5"][..], "stage2"),
        // Stage 1, stage 2 and the step's end as three dispatches.
        ("circular-dam-break.toml", &["time.end=5"][..], "apart"),
        // An inflow edge and walls: every thread fills ghost cells.
        ("inflow-box.toml", &["time.end=40"][..], "stage2"),
    ] {
        let run = |rows| {
            let env = [
                ("QUADFLOOD_REGULAR_ROWS", rows),
                ("QUADFLOOD_STEP_END", step_end),
            ];
            common::run_shipped(scenario, settings, &env)
        };
        common::assert_same_results(
            &run("17"),
            &run("16"),
            &format!("{scenario} {settings:?}, steps ending {step_end}, 17 and 16 rows of threads"),
        );
    }
}

/// Each shipped case, scaled down, writes the same bytes with `variable` set to either value.
fn a_knob_changes_no_bit(variable: &str, values: [&str; 2], cases: &[(&str, &[&str])]) {
    for &(scenario, settings) in cases {
        let run = |value| common::run_shipped(scenario, settings, &[(variable, value)]);
        common::assert_same_results(
            &run(values[0]),
            &run(values[1]),
            &format!(
                "{scenario} {settings:?}, {variable} {} and {}",
                values[0], values[1]
            ),
        );
    }
}

/// WebGPU zeroes workgroup memory at each workgroup's start; the solver skips that
/// (QUADFLOOD_ZERO_WORKGROUP=on restores it), so the kernels must write every workgroup
/// value they read: across level changes (virtual halos, side faces) and on the domain
/// edge with an inflow.
#[test]
fn workgroup_memory_need_not_start_zeroed() {
    a_knob_changes_no_bit(
        "QUADFLOOD_ZERO_WORKGROUP",
        ["on", "off"],
        &[
            ("circular-dam-break-3-levels.toml", &["time.end=5"]),
            ("inflow-box.toml", &["time.end=40"]),
        ],
    );
}

/// On devices that bound buffer accesses themselves (lavapipe and the NVIDIA drivers among
/// them), the solver leaves out naga's clamps of its own arrays' indices, which stay in range
/// by construction; QUADFLOOD_SHADER_CHECKS=all puts them back. A clamp that ever bit would
/// change a result: across level changes, on the domain's edge with an inflow, with rain on
/// real-looking terrain.
#[test]
fn the_index_clamps_left_out_change_no_bit() {
    a_knob_changes_no_bit(
        "QUADFLOOD_SHADER_CHECKS",
        ["all", "default"],
        &[
            ("circular-dam-break-3-levels.toml", &["time.end=5"]),
            ("inflow-box.toml", &["time.end=40"]),
            ("river-valley.toml", &["time.end=60"]),
        ],
    );
}
