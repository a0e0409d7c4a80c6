//! What a scenario may ask of a machine: cells within its memory, steps and stops within a
//! run's lifetime. Each limit is refused at load (so `quadflood check` refuses it too) with
//! the key, the value and the limit, instead of aborting in an allocation or running for
//! ever.

use crate::error::InputError;
use std::path::Path;

/// Largest grid we agree to build, in finest cells (2^31, about 46341²): past it a typo in
/// nx or cell_size is likelier than intent.
pub const MAX_CELLS: usize = 1 << 31;

/// Host memory (bytes) that building a grid takes, at its peak, per finest cell (the
/// terrain in f64 and f32, the friction field) and per stored cell (the cell centres and
/// the initial water worked out cell by cell). Measured as VmHWM of `quadflood check` of a
/// wet scenario on expression terrain at 2048² and 4096² cells: 88 bytes per cell on one
/// level (4.2 M → 16.8 M cells: 401 → 1487 MB), 16.8 per finest cell on three levels
/// (1096 → 4168 blocks: 110 → 317 MB); with a margin.
pub const BUILD_BYTES_PER_FINEST_CELL: u64 = 20;
pub const BUILD_BYTES_PER_STORED_CELL: u64 = 80;

/// Host memory a run takes at its peak (writing the last maps, the maxima and the
/// animation beside the model and the state read back): measured as VmHWM of a one-step
/// `quadflood run` with every output on, at 1024² and 2048² cells on one level (450 →
/// 1200 MB) and at 2048² and 4096² on three levels (610 → 1549 MB), which solve to 67
/// bytes per finest cell and 177 per stored cell. That was on lavapipe, whose GPU buffers
/// (48 bytes per stored cell with the maxima) are host memory: on a GPU they are not.
/// At 512² → 1024² on one level the growth was 253 bytes per cell, against 244 above:
/// the figures carry a margin of about 12% over the larger. The maps added since (the
/// model as built in `check/`, velocity in two bands, `max_level` and the hazard class,
/// written side by side with the others, and `event.nc` read back from the maps) raised
/// that growth to 319 bytes a cell (`tests/input_guards.rs`, 2026-11-27): the finest
/// cell's figure grew by 58 bytes, keeping a margin of 7%. Cloud Optimized GeoTIFFs (each
/// map assembled in memory, then copied out with its overviews) and maxima of 16 bytes
/// raised it to 365 (2026-11-28; 322 just before, the same machine), and to 378 in a debug
/// build (as CI tests): the finest cell's figure grew by 70 bytes, a margin of 9% over the
/// debug build's.
pub const RUN_BYTES_PER_FINEST_CELL: u64 = 200;
pub const RUN_BYTES_PER_STORED_CELL: u64 = 160;
/// GPU buffers per stored cell (state, U*, maxima, friction...), where the GPU's memory
/// is the host's (a CPU adapter): 44.6 with the maxima, and a margin.
pub const GPU_BYTES_PER_STORED_CELL: u64 = 52;

/// The smallest CFL number: below it a run takes more steps than it is worth (a value of
/// 1e-300 ran for ever).
pub const MIN_CFL: f64 = 0.01;
/// Most time steps a run may need at `time.dt_max`: 1e9 steps are days of GPU time.
pub const MAX_STEPS: f64 = 1e9;
/// Most times a run may stop at (outputs, gauge samples and checkpoints together).
pub const MAX_STOPS: usize = 1_000_000;
/// Most output times: each writes a set of maps.
pub const MAX_OUTPUT_TIMES: usize = 100_000;
/// Largest time (s, either sign) a run may start or end at. The GPU keeps the clock as a
/// pair of f32, about 48 bits: at 1e15 s a step of a second left it where it was and the
/// run never ended; at 1e9 s it still resolves microseconds. (Series are evaluated at f32
/// times, 64 s apart at 1e9 s: count times from the start of the event.)
pub const MAX_TIME: f64 = 1e9;

/// A number as a person would write it: plainly, or in exponent form when it is tiny or
/// huge (1e-300, not three hundred zeros).
pub fn num(v: f64) -> String {
    if v == 0.0 || !v.is_finite() || (1e-4..1e7).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// Bytes as GB, or MB below one GB.
pub fn gb(bytes: u64) -> String {
    if bytes < 1_000_000_000 {
        format!("{:.0} MB", bytes as f64 / 1e6)
    } else {
        format!("{:.1} GB", bytes as f64 / 1e9)
    }
}

/// Host memory this process may still take (bytes): the memory available, capped by its
/// control group's limit (a batch job's) and its address-space limit (`ulimit -v`).
/// None where /proc does not say.
pub fn host_memory() -> Option<u64> {
    let kib = |text: &str, key: &str| -> Option<u64> {
        let line = text.lines().find(|l| l.starts_with(key))?;
        Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
    };
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let mut available = kib(&meminfo, "MemAvailable:")?;
    if let Some(left) = cgroup_memory_left() {
        available = available.min(left);
    }
    let limit = std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("Max address space"))?;
            line.split_whitespace().nth(3)?.parse::<u64>().ok()
        });
    if let Some(limit) = limit {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let mapped = kib(&status, "VmSize:").unwrap_or(0);
        available = available.min(limit.saturating_sub(mapped));
    }
    Some(available)
}

/// What the process's control group (cgroup v2) may still take, where it has a limit.
fn cgroup_memory_left() -> Option<u64> {
    let groups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = groups.lines().find_map(|l| l.strip_prefix("0::"))?;
    let dir = Path::new("/sys/fs/cgroup").join(path.trim_start_matches('/'));
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).ok();
    let max: u64 = read("memory.max")?.trim().parse().ok()?; // "max" when unlimited
    let current: u64 = read("memory.current")?.trim().parse().ok()?;
    Some(max.saturating_sub(current))
}

/// Peak host memory of this process so far (VmHWM), where /proc says.
pub fn peak_host_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
}

/// Why a grid of nx × ny finest cells cannot be built here, if it cannot: too many cells,
/// or more host memory than this process may take for its finest-level fields.
pub fn grid_too_large(nx: usize, ny: usize) -> Option<String> {
    let cells = nx.saturating_mul(ny);
    if cells > MAX_CELLS {
        return Some(format!(
            "expected at most {MAX_CELLS} cells in all, found nx = {nx}, ny = {ny}"
        ));
    }
    let need = (cells as u64).saturating_mul(BUILD_BYTES_PER_FINEST_CELL);
    beyond_memory(need, || {
        format!("a {nx} x {ny} grid needs about {} of host memory to build ({BUILD_BYTES_PER_FINEST_CELL} bytes per cell)", gb(need))
    })
}

/// The same once the grid's blocks are known: its stored cells' fields and initial water.
pub fn stored_too_large(nx: usize, ny: usize, stored: usize) -> Option<String> {
    let need = (nx as u64 * ny as u64) * BUILD_BYTES_PER_FINEST_CELL
        + stored as u64 * BUILD_BYTES_PER_STORED_CELL;
    beyond_memory(need, || {
        format!(
            "a {nx} x {ny} grid of {stored} stored cells needs about {} of host memory to build \
             ({BUILD_BYTES_PER_FINEST_CELL} bytes per finest and {BUILD_BYTES_PER_STORED_CELL} \
             per stored cell)",
            gb(need)
        )
    })
}

/// Host memory (bytes) a run of the model takes at its peak; with its GPU buffers where
/// they live in host memory (a CPU adapter).
pub fn run_host_bytes(model: &crate::scenario::model::Model, gpu_in_host: bool) -> u64 {
    let finest = model.nx() as u64 * model.ny() as u64;
    let stored = model.grid.stored_cells() as u64;
    let per_stored = RUN_BYTES_PER_STORED_CELL
        + if gpu_in_host {
            GPU_BYTES_PER_STORED_CELL
        } else {
            0
        };
    finest * RUN_BYTES_PER_FINEST_CELL + stored * per_stored
}

/// Refuses a run that would take more host memory than this process may have, counting
/// what it already holds (the model).
pub fn check_run_memory(
    model: &crate::scenario::model::Model,
    gpu_in_host: bool,
) -> Result<(), InputError> {
    let need = run_host_bytes(model, gpu_in_host);
    let held = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
            Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
        })
        .unwrap_or(0);
    let why = beyond_memory(need.saturating_sub(held), || {
        format!(
            "a run of this {} x {} grid ({} stored cells) needs about {} of host memory at its \
             peak ({RUN_BYTES_PER_FINEST_CELL} bytes per finest and {} per stored cell{})",
            model.nx(),
            model.ny(),
            model.grid.stored_cells(),
            gb(need),
            need.saturating_sub(model.nx() as u64 * model.ny() as u64 * RUN_BYTES_PER_FINEST_CELL)
                / (model.grid.stored_cells() as u64).max(1),
            if gpu_in_host {
                ", the GPU's buffers included: this adapter's memory is the host's"
            } else {
                ""
            }
        )
    });
    match why {
        Some(why) => Err(InputError::new(format!(
            "{why}: run it on a machine with more memory, or as sub-domains on several (mpirun -n K), or coarsen it"
        ))),
        None => Ok(()),
    }
}

/// `Some(message)` when `need` bytes exceed the host memory available.
fn beyond_memory(need: u64, what: impl FnOnce() -> String) -> Option<String> {
    let have = host_memory()?;
    (need > have).then(|| format!("{}, and {} is available", what(), gb(have)))
}

/// The CFL number, within [MIN_CFL, 0.5].
pub fn check_cfl(cfl: f64) -> Result<f64, InputError> {
    // The step is cfl * dx / max(|u|, |v|) + c, bounded by the faster direction only; the
    // 2D update stays stable (and positive) while both directions together stay within 1.
    if (MIN_CFL..=0.5).contains(&cfl) {
        return Ok(cfl);
    }
    Err(InputError::new(format!(
        "expected {MIN_CFL} <= cfl <= 0.5 (0.5 is the limit of the 2D second-order scheme; \
         below {MIN_CFL} a run takes more steps than it is worth), found {}",
        num(cfl)
    ))
    .at_key("time.cfl"))
}

/// Refuses start and end times beyond ±MAX_TIME.
pub fn check_times(start: f64, end: f64) -> Result<(), InputError> {
    for (key, t) in [("time.start", start), ("time.end", end)] {
        if t.abs() > MAX_TIME {
            return Err(InputError::new(format!(
                "expected a time within ±{MAX_TIME:.0e} s (about 31 years), found {} s: the GPU \
                 keeps time in single precision, which cannot step on from there; count times \
                 from the start of the event",
                num(t)
            ))
            .at_key(key));
        }
    }
    Ok(())
}

/// Refuses a run whose span would take more than MAX_STEPS steps of `dt_max`; names
/// `time.dt_max` when the scenario sets it, else `time.end`.
pub fn check_steps(start: f64, end: f64, dt_max: f64, given: bool) -> Result<(), InputError> {
    let steps = (end - start) / dt_max;
    // A span that is no span is `time.end`'s error, reported with the schedule.
    if steps <= MAX_STEPS || !(end > start && start.is_finite() && end.is_finite()) {
        return Ok(());
    }
    let key = if given { "time.dt_max" } else { "time.end" };
    Err(InputError::new(format!(
        "from t = {} s to {} s in steps of at most dt_max = {} s is at least {steps:.0e} \
         steps; expected at most {MAX_STEPS:.0e} (a longer dt_max or a shorter run)",
        num(start),
        num(end),
        num(dt_max)
    ))
    .at_key(key))
}

/// How many stops an interval makes over the run, refused past `max` before any is made.
pub fn check_interval(
    start: f64,
    end: f64,
    dt: f64,
    key: &str,
    max: usize,
) -> Result<usize, InputError> {
    if dt.is_nan() || dt <= 0.0 {
        return Err(InputError::new(format!(
            "expected a positive interval (s), found {}",
            num(dt)
        ))
        .at_key(key));
    }
    let n = ((end - start) / dt + 1e-9).floor();
    if n > max as f64 {
        return Err(InputError::new(format!(
            "every {} s from {} s to {} s is {n:.0e} stops; expected at most {:.0e}: a longer interval",
            num(dt),
            num(start),
            num(end),
            max as f64
        ))
        .at_key(key));
    }
    Ok(n as usize)
}

/// Refuses `--checkpoint-every SECONDS` that is not a positive number or would make more
/// than MAX_STOPS checkpoints.
pub fn check_checkpoint_every(
    model: &crate::scenario::model::Model,
    every: f64,
) -> Result<(), InputError> {
    let key = "--checkpoint-every";
    if !(every > 0.0 && every.is_finite()) {
        return Err(InputError::new(format!(
            "expected a positive number of seconds, found {}",
            num(every)
        ))
        .at_key(key));
    }
    check_interval(model.t_start, model.t_end, every, key, MAX_STOPS).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_name_their_key_and_bound() {
        assert!(check_cfl(0.5).is_ok() && check_cfl(MIN_CFL).is_ok());
        for bad in [0.0, 1e-300, 0.009, 0.51, f64::NAN] {
            let e = check_cfl(bad).unwrap_err();
            assert_eq!(e.key.as_deref(), Some("time.cfl"), "{bad}");
        }
        assert!(check_steps(0.0, 1e9, 1.0, true).is_ok());
        let e = check_steps(0.0, 10.0, 1e-9, true).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("time.dt_max"));
        assert!(e.message.contains("1e10 steps"), "{e}");
        assert_eq!(
            check_steps(0.0, 1e300, 10.0, false)
                .unwrap_err()
                .key
                .as_deref(),
            Some("time.end")
        );
        assert_eq!(check_interval(0.0, 10.0, 1.0, "k", 10).unwrap(), 10);
        let e = check_interval(0.0, 10.0, 1e-300, "k", 10).unwrap_err();
        assert!(e.message.contains("at most 1e1"), "{e}");
    }

    #[test]
    fn the_memory_available_is_known_here() {
        let have = host_memory().expect("Linux says");
        assert!(have > 0);
        assert!(peak_host_bytes().is_some_and(|p| p > 0));
        assert!(grid_too_large(100, 100).is_none());
        let e = grid_too_large(46000, 46000).unwrap_or_default();
        if (46000u64 * 46000 * BUILD_BYTES_PER_FINEST_CELL) > have {
            assert!(
                e.contains("46000 x 46000") && e.contains("available"),
                "{e}"
            );
        }
        assert!(grid_too_large(1 << 20, 1 << 20)
            .unwrap()
            .contains("at most"));
    }
}
