mod common;
fn check(name: &str, expr: &str, east: &str) {
    let toml = format!("[domain]\ncell_size = 1.0\nnx = 40\nny = 32\n[terrain]\ntype = \"expression\"\nexpression = \"{expr}\"\n[initial]\nwater_level = 1.0\n[boundary]\neast = \"{east}\"\n[time]\nend = 1e6\n");
    let m = common::model(&toml);
    let nx = m.nx();
    let level = (1.0 - m.datum) as f32;
    let off = (0..m.depth.len()).filter(|&c| m.depth[c] > 0.0 && m.depth[c] + m.bed[c] != level).count();
    let etas: std::collections::BTreeSet<u32> = (0..m.depth.len()).filter(|&c| m.depth[c] > 0.0).map(|c| (m.depth[c] + m.bed[c]).to_bits()).collect();
    if let Some(c) = (0..m.depth.len()).find(|&c| m.depth[c] > 0.0 && m.depth[c] + m.bed[c] != level) {
        let (h, z) = (m.depth[c], m.bed[c]);
        println!("  off cell {c}: h {h:e} z {z:e} h+z {:e} level {level:e} nudge {:e}", h + z, quadflood::scenario::build::depth_for_level(level, z).0);
    }
    println!("{name}: datum {} level {level} cells off {off} distinct eta {}", m.datum, etas.len());
    let (f, _s) = common::run_steps(&m, 1);
    let mut bad = 0;
    let mut first = String::new();
    for c in 0..f.depth.len() {
        if f.hu[c] != 0.0 || f.hv[c] != 0.0 || f.depth[c] != m.depth[c] {
            if bad == 0 { first = format!("({}, {}) h={} hu={:e} hv={:e} h0={}", c % nx, c / nx, f.depth[c], f.hu[c], f.hv[c], m.depth[c]); }
            bad += 1;
        }
    }
    println!("{name}: {bad} changed; first {first}");
}
#[test]
fn scratch() {
    check("flat", "0.0", "wall");
    check("flat-open", "0.0", "open");
    check("xslope", "0.01*x", "wall");
    check("yslope", "0.01*y", "wall");
    check("sinx", "0.3*sin(x/3)", "wall");
    check("bump", "0.3*sin(x/3)*cos(y/4)", "wall");
}
