#[path = "/tmp/stubs/ascii.rs"]
pub mod ascii_grid;
pub mod outputs;
#[path = "/tmp/stubs/ql.rs"]
pub mod quicklook;
