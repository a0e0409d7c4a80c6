//! The exact-solution suite: each case runs the solver on a small grid (lavapipe in CI)
//! against a solution coded from its formulas in `quadflood::exact`, at several
//! resolutions, and checks the targets of issue 22: the observed order of the L1 error
//! (≥ 1.8 on smooth steady states, ≥ 0.8 across fronts and shocks), error bounds stated
//! with each case, and the mass balance (≤ 1e-5 relative, with the volumes that crossed
//! open boundaries counted).
//!
//! `cargo test --test exact_suite -- --nocapture` prints every case's measurements;
//! `QUADFLOOD_VALIDATION_DOC=1 cargo test --test exact_suite` also writes them into the
//! table of `docs/validation.md`.

#[path = "../common/mod.rs"]
mod common;
mod harness;
mod steady;
mod table;

mod bump;
mod dam_break;
mod film;
mod fronts;
mod macdonald;
mod step;
mod thacker;
