//! The `--profile` figures: GPU time per kernel and step, as JSON and as a table.

use serde_json::json;

pub fn profile_json(p: &crate::solver::profile::Profile, host_us: f64) -> serde_json::Value {
    let kernels: serde_json::Map<String, serde_json::Value> = p
        .kernel_us
        .iter()
        .map(|(name, us)| (format!("{name}_us_per_step"), (*us).into()))
        .collect();
    let mut profile = json!({
        "timed_steps": p.steps,
        "gpu_us_per_step": p.gpu_us_per_step(),
        "kernels": kernels,
    });
    if host_us > 0.0 {
        profile["host_us_per_step"] = host_us.into(); // not counted on ranks
    }
    if !p.idle_before_us.is_empty() {
        let idle: serde_json::Map<String, serde_json::Value> = p
            .idle_before_us
            .iter()
            .map(|(name, us)| (format!("{name}_us_per_step"), (*us).into()))
            .collect();
        profile["gpu_idle_before_pass"] = idle.into();
    }
    profile
}

/// The profile as a table: GPU time per step of each kernel, its share, and the host's.
pub fn profile_table(p: &crate::solver::profile::Profile, host_us: f64) -> String {
    let total = p.gpu_us_per_step();
    let w = p
        .kernel_us
        .iter()
        .map(|k| k.0.len())
        .max()
        .unwrap_or(0)
        .max(14);
    let whose = if p.idle_before_us.is_empty() {
        ""
    } else {
        ", rank 0; every rank's in summary.json"
    };
    let mut out = format!("GPU time per step ({} steps timed{whose})\n", p.steps);
    for (name, us) in &p.kernel_us {
        out += &format!(
            "  {name:<w$} {us:>10.2} us  {:>5.1}%\n",
            100.0 * us / total.max(1e-12)
        );
    }
    out += &format!("  {:<w$} {total:>10.2} us\n", "all kernels");
    if !p.idle_before_us.is_empty() {
        let idle: f64 = p.idle_before_us.iter().map(|k| k.1).sum();
        out += "GPU idle or copying before each pass\n";
        for (name, us) in &p.idle_before_us {
            out += &format!("  {name:<w$} {us:>10.2} us\n");
        }
        out += &format!("  {:<w$} {idle:>10.2} us\n", "in all");
    }
    if host_us > 0.0 {
        out += &format!(
            "  {:<w$} {host_us:>10.2} us  (recording and submitting)\n",
            "host"
        );
    }
    out
}
