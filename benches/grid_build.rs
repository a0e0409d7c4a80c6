//! `cargo bench --bench grid_build`: building a 100 M-cell scenario (10,000² finest cells of
//! an expression terrain, three levels refined by slope and around a region) and cutting
//! its blocks into 4 Hilbert partitions, on the host, timed by criterion. The target is
//! under 10 s on a 2-core machine. QUADFLOOD_GRID_N overrides the side (cells).

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};
use quadflood::partition::{partition, per_block, Method};
use quadflood::scenario::model::Model;
use std::time::{Duration, Instant};

fn scenario(n: usize) -> String {
    format!(
        r#"
[domain]
cell_size = 2.0
nx = {n}
ny = {n}

[terrain]
type = "expression"
expression = "0.001*x + 2*sin(x/300)*cos(y/400)"

[refinement]
levels = 3
slope = 0.02

[[refinement.region]]
shape = "circle"
center = [{c}, {c}]
radius = {r}
level = 0

[initial]
depth = 0.0

[time]
end = 60.0
"#,
        c = n as f64,
        r = n as f64 / 4.0
    )
}

fn side() -> usize {
    std::env::var("QUADFLOOD_GRID_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000)
}

fn build(text: &str) -> Model {
    quadflood::scenario::from_str(text, std::path::Path::new("."))
        .unwrap_or_else(|e| panic!("grid build failed: {e}"))
}

fn grid_build(c: &mut Criterion) {
    let n = side();
    let text = scenario(n);
    let started = Instant::now();
    let model = build(&text);
    let once = started.elapsed();
    println!(
        "{n}x{n} finest cells ({:.1} M): {} blocks on {} levels ({:?} per level), {} stored cells; first build {:.2} s",
        (n * n) as f64 / 1e6,
        model.grid.nblocks(),
        model.grid.levels,
        model.grid.blocks_per_level(),
        model.grid.stored_cells(),
        once.as_secs_f64(),
    );
    let mut group = c.benchmark_group(format!("{n}x{n}"));
    // A build takes seconds: the fewest samples criterion allows, one build each.
    group.sample_size(10);
    group.sampling_mode(SamplingMode::Flat);
    group.warm_up_time(Duration::from_millis(1));
    group.measurement_time(Duration::from_secs(1));
    group.bench_function("4 Hilbert partitions", |b| {
        b.iter(|| partition(&model.grid, 4, Method::Hilbert, &per_block))
    });
    drop(model);
    group.measurement_time(once * 10);
    group.bench_function("build and 4 Hilbert partitions", |b| {
        b.iter(|| {
            let model = build(&text);
            partition(&model.grid, 4, Method::Hilbert, &per_block).ranks
        })
    });
    group.finish();
}

criterion_group!(benches, grid_build);
criterion_main!(benches);
