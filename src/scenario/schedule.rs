//! When a run writes: output, gauge and checkpoint times.

use super::frame::*;
use crate::error::InputError;
use crate::scenario::limits;
use crate::scenario::spec::*;

/// Output times (always ending at t_end) and gauge sample times.
pub(crate) fn schedule(
    t: &TimeSpec,
    with_gauges: bool,
) -> Result<(Vec<f64>, Vec<f64>), InputError> {
    if !(t.end > t.start && t.end.is_finite() && t.start.is_finite()) {
        return Err(bad(
            "time.end",
            format!(
                "expected an end time after time.start = {}, found {}",
                t.start, t.end
            ),
        ));
    }
    limits::check_times(t.start, t.end)?;
    let mut outputs = match (&t.output_times, t.output_interval) {
        (Some(_), Some(_)) => {
            return Err(bad(
                "time",
                "give output_times or output_interval, not both",
            ))
        }
        (Some(list), None) => {
            if list.len() > limits::MAX_OUTPUT_TIMES {
                return Err(bad(
                    "time.output_times",
                    format!(
                        "{} output times; expected at most {:.0e}",
                        list.len(),
                        limits::MAX_OUTPUT_TIMES as f64
                    ),
                ));
            }
            for (k, &v) in list.iter().enumerate() {
                if v <= t.start || v > t.end {
                    return Err(bad(
                        "time.output_times",
                        format!(
                            "output time {v} s lies outside (start, end] = ({}, {}]",
                            t.start, t.end
                        ),
                    ));
                }
                if k > 0 && v <= list[k - 1] {
                    return Err(bad(
                        "time.output_times",
                        format!("times must increase: {v} after {}", list[k - 1]),
                    ));
                }
            }
            list.clone()
        }
        (None, Some(dt)) => every(t, dt, "time.output_interval", limits::MAX_OUTPUT_TIMES)?,
        (None, None) => Vec::new(),
    };
    if outputs.last() != Some(&t.end) {
        outputs.push(t.end);
    }
    let gauges = if with_gauges {
        let dt = t.gauge_interval.unwrap_or((t.end - t.start) / 500.0);
        every(t, dt, "time.gauge_interval", limits::MAX_STOPS)?
    } else {
        Vec::new()
    };
    Ok((outputs, gauges))
}

/// `t` snapped to the nearest microsecond where it lies within rounding of it: k × dt
/// landed a bit off (495 × 7.2 s printed as 3564.0000000000005 in the gauge CSVs).
fn on_the_microsecond(t: f64) -> f64 {
    let snapped = (t * 1e6).round() / 1e6;
    if (snapped - t).abs() <= 1e-12 * t.abs().max(1.0) {
        snapped
    } else {
        t
    }
}

pub(crate) fn every(t: &TimeSpec, dt: f64, key: &str, max: usize) -> Result<Vec<f64>, InputError> {
    let n = limits::check_interval(t.start, t.end, dt, key, max)?;
    let mut times: Vec<f64> = (1..=n)
        .map(|k| on_the_microsecond(t.start + k as f64 * dt))
        .filter(|&v| v < t.end)
        .collect();
    times.push(t.end);
    Ok(times)
}

#[cfg(test)]
mod tests {
    #[test]
    fn times_off_a_microsecond_by_rounding_land_on_it() {
        assert_eq!(super::on_the_microsecond(7.0 * 0.1), 0.7);
        assert_eq!(super::on_the_microsecond(3.0 * 0.1), 0.3);
        assert_eq!(super::on_the_microsecond(1.0 / 3.0), 1.0 / 3.0);
    }
}
