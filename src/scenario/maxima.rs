//! The run's maxima per cell, as the GPU keeps them: 16 bytes a cell (`Peak` in
//! `shaders/common.wgsl`), so that a run with maxima still fits in 48 bytes of GPU memory
//! per cell.
//!
//! - max depth: f32;
//! - max speed and max depth × speed: f16 each (3 significant digits, plenty for a map);
//! - time of max depth and arrival time: 16-bit codes on the run's own clock, 65,534 steps
//!   from the scenario's start to its end (1.3 s over a day, 13 s over ten days);
//! - the UK hazard rating's maximum (f16) and the inundation duration: the clock's codes
//!   that passed in the steps that ended with the cell at least `duration_depth` deep (each
//!   wet spell counts the codes between its ends, so the duration is within a step and a
//!   code of the truth per spell). On the GPU the duration is kept *running* (`Spells`):
//!   while a spell lasts it holds the duration less the code the spell began at (modulo
//!   2^16), so only a spell's first and last steps write the record, not every step.

use bytemuck::{Pod, Zeroable};
use half::f16;

/// Arrival code of a cell the flood has not reached.
pub const NEVER: u32 = 0xffff;
/// The last time code: the scenario's end.
const LAST_CODE: u32 = NEVER - 1;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Peak {
    pub depth: f32,
    /// Max speed (low half) and max depth × speed (high half), as f16.
    pub speed_hazard: u32,
    /// Time codes: time of max depth (low half), arrival time (high half, NEVER if none).
    pub times: u32,
    /// Max UK hazard rating HR as f16 (low half); inundation duration in clock codes (high
    /// half).
    pub hazard_duration: u32,
}

impl Peak {
    /// The maxima of a cell at the run's start: its state then, reached if `arrived`, with
    /// its UK hazard rating `rating`.
    pub fn initial(depth: f32, speed: f32, code: u32, arrived: bool, rating: f32) -> Peak {
        let arrival = if arrived { code } else { NEVER };
        Peak {
            depth,
            speed_hazard: pack_f16(speed, depth * speed),
            times: code | arrival << 16,
            hazard_duration: pack_f16(rating, 0.0),
        }
    }

    /// Max of the UK hazard rating HR = d (v + 0.5) + DF (`crate::io::hazard`).
    pub fn uk_rating(&self) -> f32 {
        f16::from_bits(self.hazard_duration as u16).to_f32()
    }

    /// Seconds the cell stood at least `duration_depth` deep.
    pub fn duration(&self, clock: &PeakClock) -> f64 {
        (self.hazard_duration >> 16) as f64 * clock.quantum
    }

    pub fn speed(&self) -> f32 {
        f16::from_bits(self.speed_hazard as u16).to_f32()
    }

    /// Max of depth × speed (m²/s), the usual flood hazard rating's core.
    pub fn hazard(&self) -> f32 {
        f16::from_bits((self.speed_hazard >> 16) as u16).to_f32()
    }

    pub fn time_of_max_depth(&self, clock: &PeakClock) -> f64 {
        clock.time(self.times & 0xffff)
    }

    /// When the depth first reached the arrival depth; None where it never did.
    pub fn arrival(&self, clock: &PeakClock) -> Option<f64> {
        let code = self.times >> 16;
        (code != NEVER).then(|| clock.time(code))
    }

    /// The same record on another clock (a restart whose scenario ends at another time).
    pub fn on_clock(&self, from: &PeakClock, to: &PeakClock) -> Peak {
        let max_at = to.code(self.time_of_max_depth(from));
        let arrival = self.arrival(from).map_or(NEVER, |t| to.code(t));
        let duration = (self.duration(from) / to.quantum)
            .round()
            .min(LAST_CODE as f64) as u32;
        Peak {
            times: max_at | arrival << 16,
            hazard_duration: (self.hazard_duration & 0xffff) | duration << 16,
            ..*self
        }
    }
}

/// Turns the running inundation durations the GPU keeps into durations and back, from the
/// cells' depths and the clock where they stand.
#[derive(Clone, Copy, Debug)]
pub struct Spells {
    /// `duration_depth` as the GPU compares it.
    pub depth: f32,
    pub clock: PeakClock,
}

impl Spells {
    /// Durations as the GPU keeps them (the cells `depth` deep at clock `t`, double-f32).
    pub fn running(&self, peaks: &mut [Peak], depth: impl Fn(usize) -> f32, t: (f32, f32)) {
        self.shift(peaks, depth, t, |d, code| d.wrapping_sub(code))
    }

    /// The durations so far, from what the GPU keeps.
    pub fn settled(&self, peaks: &mut [Peak], depth: impl Fn(usize) -> f32, t: (f32, f32)) {
        self.shift(peaks, depth, t, |d, code| d.wrapping_add(code))
    }

    fn shift(
        &self,
        peaks: &mut [Peak],
        depth: impl Fn(usize) -> f32,
        t: (f32, f32),
        by: impl Fn(u32, u32) -> u32,
    ) {
        let code = self.clock.gpu_code(t);
        for (k, p) in peaks.iter_mut().enumerate() {
            if depth(k) >= self.depth {
                let duration = by(p.hazard_duration >> 16, code) & 0xffff;
                p.hazard_duration = (p.hazard_duration & 0xffff) | duration << 16;
            }
        }
    }
}

/// Two f16 in one u32, as WGSL's pack2x16float lays them out (the first in the low half).
fn pack_f16(low: f32, high: f32) -> u32 {
    let bits = |v: f32| f16::from_f32(v.min(f16::MAX.to_f32())).to_bits() as u32;
    bits(low) | bits(high) << 16
}

/// How the 16-bit time codes map to run time: code k is `origin + k * quantum` seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PeakClock {
    pub origin: f64,
    pub quantum: f64,
}

impl PeakClock {
    /// The clock of a scenario that runs from `start` to `end` (s).
    pub fn new(start: f64, end: f64) -> PeakClock {
        let span = end - start;
        PeakClock {
            origin: start,
            quantum: if span > 0.0 {
                span / LAST_CODE as f64
            } else {
                1.0
            },
        }
    }

    /// The nearest code to time t, within the scenario. (The GPU rounds halves to even,
    /// this away from zero: a code apart at exact halves, far below the clock's step.)
    pub fn code(&self, t: f64) -> u32 {
        ((t - self.origin) / self.quantum)
            .round()
            .clamp(0.0, LAST_CODE as f64) as u32
    }

    /// The code of double-f32 time `t` as the GPU computes it (`peak_code` in
    /// shaders/update.wgsl: f32, halves to even).
    pub fn gpu_code(&self, t: (f32, f32)) -> u32 {
        let (origin, rate) = self.gpu_params();
        ((t.0 + t.1 - origin) * rate)
            .round_ties_even()
            .clamp(0.0, LAST_CODE as f32) as u32
    }

    /// `params.peak_origin` and `params.peak_rate`.
    pub fn gpu_params(&self) -> (f32, f32) {
        (self.origin as f32, (1.0 / self.quantum) as f32)
    }

    pub fn time(&self, code: u32) -> f64 {
        self.origin + code as f64 * self.quantum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_come_back_within_half_a_step_of_the_clock() {
        let clock = PeakClock::new(600.0, 600.0 + 86_400.0);
        assert!((clock.quantum - 86_400.0 / 65_534.0).abs() < 1e-12);
        for t in [600.0, 601.0, 43_210.7, 87_000.0] {
            let back = clock.time(clock.code(t));
            assert!((back - t).abs() <= clock.quantum / 2.0, "{t} -> {back}");
        }
        assert_eq!(clock.code(0.0), 0);
        assert_eq!(clock.code(1e9), LAST_CODE);
    }

    #[test]
    fn a_peak_keeps_speed_and_hazard_to_f16_and_knows_unreached_cells() {
        let clock = PeakClock::new(0.0, 3600.0);
        let p = Peak::initial(2.5, 3.25, clock.code(1800.0), true, 10.375);
        assert_eq!((p.depth, p.speed(), p.hazard()), (2.5, 3.25, 8.125));
        assert_eq!((p.uk_rating(), p.duration(&clock)), (10.375, 0.0));
        assert_eq!(p.time_of_max_depth(&clock), 1800.0 + 0.0 * clock.quantum);
        assert_eq!(p.arrival(&clock), Some(clock.time(clock.code(1800.0))));
        let speed = 1.2345f32;
        let q = Peak::initial(0.001, speed, 0, false, 0.0);
        assert!((q.speed() - speed).abs() <= speed * 2f32.powi(-11));
        assert_eq!(q.arrival(&clock), None);
        assert_eq!(
            Peak::initial(1e3, 1e3, 0, false, 0.0).hazard(),
            f16::MAX.to_f32()
        );
    }

    #[test]
    fn running_durations_come_back_as_they_went() {
        let clock = PeakClock::new(0.0, 100.0);
        let spells = Spells { depth: 0.05, clock };
        let depths = [0.1f32, 0.01, 0.05];
        let mut peaks: Vec<Peak> = [700u32, 300, 0]
            .iter()
            .map(|&d| Peak {
                hazard_duration: 0x3c00 | d << 16,
                ..Default::default()
            })
            .collect();
        let before = peaks.clone();
        let t = (60.0, 1e-6);
        spells.running(&mut peaks, |k| depths[k], t);
        let code = clock.gpu_code(t);
        assert!(code > 700, "the test needs a code past the first duration");
        // Flooded cells hold the duration less the code now, modulo 2^16; others as they were.
        assert_eq!(
            peaks[0].hazard_duration >> 16,
            (700 + 65536 - code) & 0xffff
        );
        assert_eq!(peaks[1], before[1]);
        assert_eq!(peaks[2].hazard_duration >> 16, 65536 - code);
        assert_eq!(peaks[0].uk_rating(), 1.0);
        spells.settled(&mut peaks, |k| depths[k], t);
        assert_eq!(peaks, before);
    }

    #[test]
    fn a_peak_moves_to_a_longer_clock() {
        let short = PeakClock::new(0.0, 3600.0);
        let long = PeakClock::new(0.0, 7200.0);
        let mut p = Peak::initial(1.0, 0.5, short.code(1000.0), true, 2.0);
        p.hazard_duration |= 1000 << 16;
        let p = p.on_clock(&short, &long);
        assert!((p.time_of_max_depth(&long) - 1000.0).abs() <= long.quantum);
        assert!((p.duration(&long) - 1000.0 * short.quantum).abs() <= long.quantum / 2.0);
        assert_eq!(p.uk_rating(), 2.0);
        let never = Peak::initial(0.0, 0.0, 0, false, 0.0).on_clock(&short, &long);
        assert_eq!(never.arrival(&long), None);
    }
}
