pub mod ascii_grid;
pub mod outputs;
pub mod quicklook;
