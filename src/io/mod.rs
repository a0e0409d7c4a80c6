pub mod animation;
pub mod ascii_grid;
pub mod checkpoint;
pub mod georaster;
pub mod gridmap;
pub mod outputs;
pub mod quicklook;
pub mod vector;
