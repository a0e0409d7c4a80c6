//! Every scenario shipped in `scenarios/` is valid.

#[test]
fn shipped_scenarios_check() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let model = quadflood::scenario::load(&path).unwrap_or_else(|e| panic!("{e}"));
            assert!(model.valid_cells() > 0);
            count += 1;
        }
    }
    assert!(count >= 3, "found only {count} scenarios");
}
