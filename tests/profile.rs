//! `run --profile`: GPU timestamps around each kernel land in summary.json, over exactly
//! the steps the run took, and leave the results unchanged.

use std::process::Command;

fn run(out: &std::path::Path, profile: bool) -> serde_json::Value {
    let scenario = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/circular-dam-break.toml"
    );
    let mut args = vec![
        "run",
        scenario,
        "--out",
        out.to_str().unwrap(),
        "--quiet",
        "--set",
        "time.end=0.5",
        "--set",
        "output.png=false",
        "--set",
        "time.gauge_interval=0.25",
    ];
    if profile {
        args.push("--profile");
    }
    let o = Command::new(env!("CARGO_BIN_EXE_quadflood"))
        .args(&args)
        .env("XDG_RUNTIME_DIR", "/tmp")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap()
}

#[test]
fn profiling_times_every_kernel_of_every_step_and_changes_no_result() {
    let dir = tempfile::tempdir().unwrap();
    let plain = run(&dir.path().join("plain"), false);
    let timed = run(&dir.path().join("timed"), true);
    assert!(plain.get("profile").is_none());
    for key in ["steps", "mass_final_m3", "max_depth_m"] {
        assert_eq!(plain[key], timed[key], "{key}");
    }
    let map = if cfg!(feature = "gdal") {
        "depth_0000000.5s.tif"
    } else {
        "depth_0000000.5s.asc"
    };
    let depth = |d: &str| std::fs::read(dir.path().join(d).join(map)).unwrap();
    assert!(depth("plain") == depth("timed"), "the depth maps differ");
    assert!(timed["steps"].as_u64().unwrap() > 10);
    let gpu = quadflood::gpu::Gpu::open(None).unwrap();
    if !gpu.features.contains(wgpu::Features::TIMESTAMP_QUERY) {
        assert!(
            timed.get("profile").is_none(),
            "a profile without timestamps"
        );
        return;
    }
    let p = &timed["profile"];
    assert_eq!(p["timed_steps"], timed["steps"]);
    let kernels = p["kernels"].as_object().unwrap();
    // A small grid of one level has no kernels for blocks at a level change, and its
    // steps end in stage 2's last workgroup.
    let names: Vec<&str> = kernels.keys().map(|k| k.as_str()).collect();
    assert_eq!(names, ["stage1_us_per_step", "stage2_end_us_per_step"]);
    let sum: f64 = kernels.values().map(|v| v.as_f64().unwrap()).sum();
    assert!(kernels["stage1_us_per_step"].as_f64().unwrap() > 0.0);
    assert!((sum - p["gpu_us_per_step"].as_f64().unwrap()).abs() < 1e-6 * sum);
}
