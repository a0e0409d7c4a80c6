//! `cargo bench --bench grid_build`: building a 100 M-cell scenario (10,000² finest cells of
//! an expression terrain, three levels refined by slope and around a region) and cutting
//! its blocks into 4 Hilbert partitions, on the host. The target is under 10 s on a 2-core
//! machine. QUADFLOOD_GRID_N overrides the side (cells).

use quadflood::partition::{partition, per_block, Method};
use std::time::Instant;

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

fn main() {
    let n = std::env::var("QUADFLOOD_GRID_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000usize);
    let text = scenario(n);
    let started = Instant::now();
    let model = match quadflood::scenario::from_str(&text, std::path::Path::new(".")) {
        Ok(m) => m,
        Err(e) => return eprintln!("grid build failed: {e}"),
    };
    let built = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let p = partition(&model.grid, 4, Method::Hilbert, &per_block);
    let cut = started.elapsed().as_secs_f64();
    println!(
        "{n}x{n} finest cells ({:.1} M), {} blocks on {} levels ({:?} per level), {} stored cells: built in {built:.2} s, 4 Hilbert partitions in {cut:.3} s ({} ranks), total {:.2} s",
        (n * n) as f64 / 1e6,
        model.grid.nblocks(),
        model.grid.levels,
        model.grid.blocks_per_level(),
        model.grid.stored_cells(),
        p.ranks,
        built + cut
    );
}
