//! MPI through rsmpi: one rank per GPU.
