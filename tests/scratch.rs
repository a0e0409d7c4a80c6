mod common;
#[test]
fn scratch() {
    let src = std::fs::read_to_string("tests/dam_break_exact.rs").unwrap();
    let _ = src;
    let n = 100;
    let toml = format!("[domain]\ncell_size = 2.0\nnx = {n}\nny = 16\n[terrain]\ntype = \"flat\"\n[initial]\nwater_level = 0.1\n[[initial.region]]\nshape = \"rectangle\"\nmin = [0.0, -1.0]\nmax = [100.0, 1e9]\nwater_level = 1.0\n[time]\nend = 10.0\n");
    let m = common::model(&toml);
    let s = quadflood::exact::Stoker::new(9.81, 1.0, 0.1, 100.0);
    let (f, st) = common::run_to(&m, 10.0);
    println!("t {} steps {}", st.t, st.steps);
    for i in (30..100).step_by(3) {
        let x = (i as f64 + 0.5) * 2.0;
        println!("x {x:6.1} h {:.4} exact {:.4}  row0 {:.4}", f.depth[8 * n + i], s.depth(x, 10.0), f.depth[i]);
    }
}
