//! The ranges `quadflood bench` accepts, from the adapter's limits and the host's memory:
//! a grid side of 0 or 100000 cells, no steps or more sub-domains than blocks are refused
//! with exit code 2 naming the flag and its range, instead of a panic or nonsense figures.

use crate::error::InputError;
use crate::gpu::Gpu;
use crate::grid::BLOCK;

/// The benchmark's grid and run, as given (n and ny resolved to their defaults).
#[derive(Clone, Copy, Debug)]
pub struct BenchArgs {
    pub n: usize,
    pub ny: usize,
    pub steps: u64,
    /// Sub-domains on this GPU (`--split`), or ranks under mpirun: the grid is cut into
    /// this many pieces, each with buffers of its own.
    pub pieces: usize,
    /// Which flag sets `pieces`, for messages.
    pub pieces_flag: &'static str,
}

/// Most steps a benchmark may take: enough for any timing.
pub const MAX_STEPS: u64 = 10_000_000;
/// Bytes of the state buffer per stored cell (h, hu, hv, z in f32): the binding that
/// limits a grid's size on one GPU.
const STATE_BYTES_PER_CELL: u64 = 16;

fn bad(flag: &str, message: String) -> InputError {
    InputError::new(message).at_key(flag)
}

/// Checks the arguments against `gpu`'s limits and this host's memory.
pub fn check(gpu: &Gpu, a: &BenchArgs) -> Result<(), InputError> {
    if !(1..=MAX_STEPS).contains(&a.steps) {
        return Err(bad(
            "--steps",
            format!("expected 1 to {MAX_STEPS} steps, found {}", a.steps),
        ));
    }
    let binding = gpu
        .limits
        .max_storage_buffer_binding_size
        .min(gpu.limits.max_buffer_size);
    let per_piece = binding / STATE_BYTES_PER_CELL;
    // Cells all the pieces hold together, within the grid's own cap.
    let most = (per_piece.saturating_mul(a.pieces.max(1) as u64))
        .min(crate::scenario::limits::MAX_CELLS as u64);
    let why = format!(
        "one storage binding of {} MiB on {} holds {per_piece} cells{}",
        binding >> 20,
        gpu.info.name,
        if a.pieces > 1 {
            format!(", and the grid is cut into {} pieces", a.pieces)
        } else {
            "; --split K runs a larger grid as K sub-domains".into()
        }
    );
    let side = |flag: &str, v: usize, other: usize| -> Result<(), InputError> {
        let max = (most / other.max(1) as u64).max(BLOCK as u64);
        if v < BLOCK || v as u64 > max {
            return Err(bad(
                flag,
                format!("expected {BLOCK} to {max} cells, found {v}: {why}"),
            ));
        }
        Ok(())
    };
    if a.n == a.ny {
        let max = ((most as f64).sqrt().floor() as u64).max(BLOCK as u64);
        if a.n < BLOCK || a.n as u64 > max {
            return Err(bad(
                "--n",
                format!(
                    "expected {BLOCK} to {max} cells a side, found {}: {why}",
                    a.n
                ),
            ));
        }
    } else {
        side("--n", a.n, BLOCK)?;
        side("--ny", a.ny, a.n)?;
    }
    let blocks = a.n.div_ceil(BLOCK) * a.ny.div_ceil(BLOCK);
    if a.pieces == 0 || a.pieces > blocks {
        return Err(bad(
            a.pieces_flag,
            format!(
                "expected 1 to {blocks} pieces (the grid's {BLOCK} x {BLOCK} blocks), found {}",
                a.pieces
            ),
        ));
    }
    if let Some(why) = crate::scenario::limits::stored_too_large(a.n, a.ny, a.n * a.ny) {
        return Err(bad("--n", why));
    }
    Ok(())
}
