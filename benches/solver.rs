//! `cargo bench`: the single-GPU benchmark (a fully wet N×N dam break and a copy kernel),
//! the same as `quadflood bench`. N defaults to 512 on a CPU adapter and 4096 on a GPU;
//! QUADFLOOD_BENCH_N and QUADFLOOD_BENCH_STEPS override.

use quadflood::{bench, gpu::Gpu};

fn main() {
    let gpu = match Gpu::open(std::env::var("QUADFLOOD_ADAPTER").ok().as_deref()) {
        Ok(gpu) => gpu,
        Err(e) => {
            eprintln!("benchmark skipped: {e}");
            return;
        }
    };
    let env = |key: &str| std::env::var(key).ok().and_then(|v| v.parse().ok());
    let n = env("QUADFLOOD_BENCH_N").unwrap_or_else(|| bench::default_n(&gpu) as u64) as usize;
    let steps = env("QUADFLOOD_BENCH_STEPS").unwrap_or(200);
    match bench::run(&gpu, bench::dam_break_model(n, n), steps, false) {
        Ok(result) => println!("{}", result.report()),
        Err(e) => eprintln!("benchmark failed: {e}"),
    }
}
