//! Scratch diagnostics (not committed).
use crate::harness::{profile, Channel, End, Run, G};
use quadflood::exact::{MacDonald, Profile};

fn dump(name: &str, m: &MacDonald, east: End, grids: &[usize], times: &[f64]) {
    for &n in grids {
        let mut ch = Channel::new(1000.0, n, End::Inflow(2.0), east);
        ch.manning = 0.033;
        let exact = |x: f64| [m.bed(x), m.depth(x), 2.0];
        let mut model = ch.model(&exact);
        if std::env::var_os("VA").is_some() { model.numerics.limiter = quadflood::scenario::model::Limiter::VanAlbada; }
        if let Ok(c) = std::env::var("CFL") { model.numerics.cfl = c.parse().unwrap(); }
        let mut run = Run::new(model);
        let x = ch.centres();
        for &t in times {
            run.advance_to(t);
            let (h, q) = profile(&run.fields(), n);
            let l1: f64 = (0..n).map(|i| (h[i] - m.depth(x[i])).abs()).sum::<f64>()
                / (0..n).map(|i| m.depth(x[i])).sum::<f64>();
            println!("{name} n={n} t={t}: L1 {l1:.3e}");
            if t == *times.last().unwrap() {
                let stride = (n / 40).max(1);
                for i in (0..n).step_by(stride) {
                    println!(
                        "  x {:7.2} h {:.5} dh {:+.3e} q {:+.3e} Fr {:.3}",
                        x[i],
                        h[i],
                        h[i] - m.depth(x[i]),
                        q[i] - 2.0,
                        m.froude(x[i])
                    );
                }
            }
        }
    }
}

#[test]
fn scratch_super() {
    let p = Profile::Exponential { drop: 0.25, rate: 4.0 };
    let m = MacDonald::new(G, 2.0, 0.033, 1000.0, p).unwrap();
    dump("super", &m, End::Open, &[40, 80, 160], &[600.0, 1200.0]);
}

#[test]
fn scratch_sub() {
    let p = Profile::Gaussian { base: 1.0, amplitude: 0.5, width: 16.0 };
    let m = MacDonald::new(G, 2.0, 0.033, 1000.0, p).unwrap();
    let st = End::Stage(m.bed(1000.0) + m.depth(1000.0));
    dump("sub", &m, st, &[40, 80, 160], &[600.0, 1200.0, 2400.0]);
}

#[test]
fn scratch_trans() {
    let p = Profile::Tanh { amplitude: 1.0 / 3.0, steepness: 3.0, centre: 0.5 };
    let m = MacDonald::new(G, 2.0, 0.033, 1000.0, p).unwrap();
    dump("trans", &m, End::Open, &[40, 80, 160], &[600.0, 1200.0]);
}

#[test]
fn scratch_sub_tail() {
    let p = Profile::Gaussian { base: 1.0, amplitude: 0.5, width: 16.0 };
    let m = MacDonald::new(G, 2.0, 0.033, 1000.0, p).unwrap();
    let st = End::Stage(m.bed(1000.0) + m.depth(1000.0));
    let n = 160;
    let mut ch = Channel::new(1000.0, n, End::Inflow(2.0), st);
    ch.manning = 0.033;
    let exact = |x: f64| [m.bed(x), m.depth(x), 2.0];
    let mut run = Run::new(ch.model(&exact));
    let x = ch.centres();
    let mut prev: Vec<f64> = vec![];
    for t in [1200.0, 1203.0, 1206.0, 1209.0] {
        run.advance_to(t);
        let (h, q) = profile(&run.fields(), n);
        println!("t = {t}");
        for i in 100..n {
            println!("  i {i} x {:7.2} dh {:+.3e} q {:+.3e} change {:+.2e}", x[i], h[i] - m.depth(x[i]), q[i] - 2.0,
                if prev.is_empty() { 0.0 } else { h[i] - prev[i] });
        }
        prev = h;
    }
}

fn bump_dump(name: &str, flow: &quadflood::exact::BumpFlow, east: End, grids: &[usize], times: &[f64], window: (f64, f64)) {
    use quadflood::exact::Bump;
    for &n in grids {
        let ch = Channel::new(25.0, n, End::Inflow(flow.q), east);
        let exact = |x: f64| [Bump::CLASSIC.bed(x), flow.depth(x), flow.q];
        let mut model = ch.model(&exact);
        if std::env::var_os("VA").is_some() { model.numerics.limiter = quadflood::scenario::model::Limiter::VanAlbada; }
        let mut run = Run::new(model);
        let x = ch.centres();
        for &t in times {
            run.advance_to(t);
            let (h, q) = profile(&run.fields(), n);
            let hs: f64 = (0..n).map(|i| flow.depth(x[i])).sum();
            let l1: f64 = (0..n).map(|i| (h[i] - flow.depth(x[i])).abs()).sum::<f64>() / hs;
            let q1: f64 = (0..n).map(|i| (q[i] - flow.q).abs()).sum::<f64>() / (n as f64 * flow.q);
            let worst = (0..n).max_by(|&a, &b| ((h[a] - flow.depth(x[a])) / flow.depth(x[a])).abs().total_cmp(&((h[b] - flow.depth(x[b])) / flow.depth(x[b])).abs())).unwrap();
            println!("{name} n={n} t={t}: L1 h {l1:.3e} q {q1:.3e}; worst cell x {:.2} {:+.2}%", x[worst], 100.0 * (h[worst] - flow.depth(x[worst])) / flow.depth(x[worst]));
            if t == *times.last().unwrap() && std::env::var_os("PROFILE").is_some() {
                for i in 0..n {
                    if x[i] < window.0 || x[i] > window.1 { continue; }
                    println!("  x {:6.3} h {:.5} dh {:+.3e} ({:+.2}%) q {:+.3e}", x[i], h[i], h[i] - flow.depth(x[i]), 100.0 * (h[i] - flow.depth(x[i])) / flow.depth(x[i]), q[i] - flow.q);
                }
            }
        }
    }
}

#[test]
fn scratch_bump_sub() {
    use quadflood::exact::{bump::Regime, Bump, BumpFlow};
    let flow = BumpFlow::new(G, 4.42, Bump::CLASSIC, Regime::Subcritical { h_out: 2.0 }).unwrap();
    bump_dump("bsub", &flow, End::Stage(2.0), &[25, 50, 100], &[40.0, 80.0, 160.0], (6.0, 14.0));
}

#[test]
fn scratch_bump_trans() {
    use quadflood::exact::{bump::Regime, Bump, BumpFlow};
    let flow = BumpFlow::new(G, 1.53, Bump::CLASSIC, Regime::Transcritical).unwrap();
    bump_dump("btrans", &flow, End::Open, &[25, 50, 100], &[25.0, 50.0, 100.0], (7.0, 13.0));
}
