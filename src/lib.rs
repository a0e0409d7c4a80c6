//! quadflood: a 2D shallow-water flood solver on block-uniform quadtree grids, whose
//! kernels are WGSL run through wgpu on any Vulkan, Metal or DX12 GPU.
//!
//! The crate is organised by concept: [`grid`] (blocks and neighbours), [`gpu`] (device,
//! shaders, buffers), [`solver`] (the time loop), [`scenario`] (input), [`io`] (files),
//! [`run`] (a whole run from scenario to outputs), [`exact`] (analytic solutions).

pub mod balance;
pub mod bench;
pub mod bench_args;
pub mod comm;
pub mod console;
pub mod error;
pub mod exact;
pub mod gpu;
pub mod grid;
pub mod interrupt;
pub mod io;
pub mod parallel;
pub mod partition;
pub mod provenance;
pub mod run;
pub mod scenario;
pub mod solver;
