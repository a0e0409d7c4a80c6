pub mod ascii_grid;
pub mod gridmap;
pub mod outputs;
pub mod quicklook;
