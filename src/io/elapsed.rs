//! Model times as titles write them: hours and minutes (`01:30` for 5400 s), days in front
//! past a day (`1 d 02:15`), and seconds where a run is short or its output times are not
//! whole minutes (`00:00:12`, `00:00:12.5`). A time is rounded to the nearest unit shown.
//!
//! Without a reference date, titles count from the model's t = 0 (`t = 01:30`). With the
//! scenario's `time.reference`, the day count becomes the calendar date and hh:mm the time
//! of day, in the reference's offset, which is named (`2026-11-27 07:30 UTC`,
//! `2026-11-27 17:30 +10:00`); `Clock` keeps the two apart for that.

use crate::scenario::reference::TimeReference;
use chrono::TimeDelta;

/// Runs shorter than this show seconds: a lab case's maps are seconds apart.
const SHORT_RUN_S: f64 = 600.0;
/// The finest resolution tried: milliseconds.
const MOST_DECIMALS: usize = 3;

/// How finely titles write times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolution {
    Minutes,
    /// Seconds with this many decimals.
    Seconds(usize),
}

impl Resolution {
    /// The coarsest resolution that writes every time in `output_times` as it is, so no
    /// title rounds its time (nor gives two maps one time): minutes, unless the run (from
    /// `t_start` to `t_end`) is shorter than 10 minutes; the finest where none does.
    /// With a reference, the times of day must be exact: a reference at 06:00:30 writes
    /// whole-minute model times with their seconds.
    pub fn for_run(
        t_start: f64,
        t_end: f64,
        output_times: &[f64],
        reference: Option<&TimeReference>,
    ) -> Resolution {
        let shift = reference.map_or(0.0, |r| r.local_day().1);
        let exact = |r: &Resolution| {
            output_times.iter().all(|&t| {
                let units = (t + shift) * r.per_second();
                (units - units.round()).abs() < 1e-6
            })
        };
        std::iter::once(Resolution::Minutes)
            .filter(|_| t_end - t_start >= SHORT_RUN_S)
            .chain((0..=MOST_DECIMALS).map(Resolution::Seconds))
            .find(exact)
            .unwrap_or(Resolution::Seconds(MOST_DECIMALS))
    }

    /// "01:30", "1 d 02:15", "00:00:12", "-00:05"; a time that is not finite as it is.
    pub fn format(&self, t: f64) -> String {
        match Clock::of(t, *self) {
            Some(clock) => clock.to_string(),
            None => format!("{t} s"),
        }
    }

    /// A title's time: `t = 01:30` counted from t = 0, or with a reference the date and
    /// time of day, `2026-11-27 07:30 UTC`.
    pub fn title(&self, t: f64, reference: Option<&TimeReference>) -> String {
        let dated = reference.and_then(|r| self.date(t, r));
        dated.unwrap_or_else(|| format!("t = {}", self.format(t)))
    }

    /// Model time `t` as the date and time of day it falls on; None past ±10,000 years.
    fn date(&self, t: f64, reference: &TimeReference) -> Option<String> {
        const DAY: f64 = 86_400.0;
        let (day, since_midnight) = reference.local_day();
        let total = t + since_midnight;
        if !total.is_finite() || total.abs() > crate::scenario::reference::MAX_SPAN_S {
            return None;
        }
        let whole_days = (total / DAY).floor();
        // Rounding may carry the time of day over to the next day.
        let clock = Clock::of(total - whole_days * DAY, *self)?;
        let days = TimeDelta::try_days(whole_days as i64 + clock.days as i64)?;
        let date = day.checked_add_signed(days)?;
        Some(format!(
            "{} {} {}",
            date.format("%Y-%m-%d"),
            clock.time_of_day(),
            reference.zone()
        ))
    }

    /// Units of this resolution in a second.
    fn per_second(&self) -> f64 {
        match self {
            Resolution::Minutes => 1.0 / 60.0,
            Resolution::Seconds(d) => 10f64.powi(*d as i32),
        }
    }
}

/// A time rounded to a resolution and split into days and time of day.
struct Clock {
    negative: bool,
    days: u64,
    hours: u64,
    minutes: u64,
    /// Seconds in units of 10^-decimals; None at minutes.
    seconds: Option<(u64, usize)>,
}

impl Clock {
    fn of(t: f64, resolution: Resolution) -> Option<Clock> {
        let units = (t.abs() * resolution.per_second()).round();
        if !(units.is_finite() && units < u64::MAX as f64) {
            return None;
        }
        let units = units as u64;
        let (minutes, seconds) = match resolution {
            Resolution::Minutes => (units, None),
            Resolution::Seconds(d) => {
                let per_minute = 60 * 10u64.pow(d as u32);
                (units / per_minute, Some((units % per_minute, d)))
            }
        };
        Some(Clock {
            negative: t < 0.0 && units > 0,
            days: minutes / (24 * 60),
            hours: minutes / 60 % 24,
            minutes: minutes % 60,
            seconds,
        })
    }
}

impl Clock {
    /// "01:30", "01:30:05", "01:30:05.25": hours, minutes and the seconds asked for.
    fn time_of_day(&self) -> String {
        let hh_mm = format!("{:02}:{:02}", self.hours, self.minutes);
        match self.seconds {
            Some((s, 0)) => format!("{hh_mm}:{s:02}"),
            Some((s, d)) => {
                let scale = 10u64.pow(d as u32);
                format!("{hh_mm}:{:02}.{:0d$}", s / scale, s % scale)
            }
            None => hh_mm,
        }
    }
}

impl std::fmt::Display for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        if self.negative {
            write!(f, "-")?;
        }
        if self.days > 0 {
            write!(f, "{} d ", self.days)?;
        }
        f.write_str(&self.time_of_day())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Resolution::{Minutes, Seconds};

    #[test]
    fn times_read_as_hours_and_minutes_with_days_past_a_day() {
        let cases = [
            (0.0, "00:00"),
            (59.0, "00:01"),
            (29.9, "00:00"),
            (5400.0, "01:30"),
            (5399.7, "01:30"),
            (86_340.0, "23:59"),
            (86_399.0, "1 d 00:00"),
            (90_061.0, "1 d 01:01"),
            (10.0 * 86_400.0 + 3600.0, "10 d 01:00"),
            (-300.0, "-00:05"),
            (-10.0, "00:00"),
        ];
        for (t, text) in cases {
            assert_eq!(Minutes.format(t), text, "{t} s");
        }
    }

    #[test]
    fn seconds_are_rounded_to_the_decimals_asked() {
        let cases = [
            (Seconds(0), 0.0, "00:00:00"),
            (Seconds(0), 59.0, "00:00:59"),
            (Seconds(0), 12.4, "00:00:12"),
            (Seconds(0), 12.5, "00:00:13"),
            (Seconds(0), 59.6, "00:01:00"),
            (Seconds(0), 5400.0, "01:30:00"),
            (Seconds(0), 90_061.0, "1 d 01:01:01"),
            (Seconds(0), 86_399.6, "1 d 00:00:00"),
            (Seconds(1), 12.25, "00:00:12.3"),
            (Seconds(1), 0.04, "00:00:00.0"),
            (Seconds(2), 61.07, "00:01:01.07"),
        ];
        for (resolution, t, text) in cases {
            assert_eq!(resolution.format(t), text, "{t} s at {resolution:?}");
        }
        assert_eq!(Minutes.format(f64::NAN), "NaN s");
        assert_eq!(Seconds(0).format(f64::INFINITY), "inf s");
    }

    #[test]
    fn seconds_show_where_the_run_is_short_or_its_times_are_not_whole_minutes() {
        let every = |dt: f64, end: f64| -> Vec<f64> {
            (1..=(end / dt).round() as usize)
                .map(|k| k as f64 * dt)
                .collect()
        };
        let r = |end: f64, dt: f64| Resolution::for_run(0.0, end, &every(dt, end), None);
        assert_eq!(r(7200.0, 900.0), Minutes, "sagehen-rain: 15 min maps");
        assert_eq!(r(600.0, 300.0), Minutes, "10 minutes is not short");
        assert_eq!(r(80.0, 20.0), Seconds(0), "inflow-box");
        assert_eq!(
            r(3600.0, 30.0),
            Seconds(0),
            "30 s maps: minutes would repeat"
        );
        assert_eq!(r(20.0, 0.5), Seconds(1));
        assert_eq!(r(1.0, 0.01), Seconds(2));
        assert_eq!(
            Resolution::for_run(0.0, 1.0, &[0.1, 0.10001], None),
            Seconds(MOST_DECIMALS),
            "finer than a millisecond: the finest there is"
        );
        assert_eq!(
            Resolution::for_run(3600.0, 3900.0, &[3900.0], None),
            Seconds(0),
            "a short run that starts late"
        );
    }

    fn reference(text: &str) -> TimeReference {
        TimeReference::from_toml(&toml::Value::String(text.into())).unwrap()
    }

    #[test]
    fn with_a_reference_titles_show_the_date_and_time_of_day() {
        let utc = reference("2026-11-27T06:00:00Z");
        let r = Some(&utc);
        assert_eq!(Minutes.title(5400.0, None), "t = 01:30");
        assert_eq!(Minutes.title(5400.0, r), "2026-11-27 07:30 UTC");
        assert_eq!(Minutes.title(18.0 * 3600.0, r), "2026-11-28 00:00 UTC");
        assert_eq!(
            Minutes.title(18.0 * 3600.0 - 20.0, r),
            "2026-11-28 00:00 UTC"
        );
        assert_eq!(Minutes.title(-7.0 * 3600.0, r), "2026-11-26 23:00 UTC");
        assert_eq!(Seconds(1).title(12.25, r), "2026-11-27 06:00:12.3 UTC");
        assert_eq!(Minutes.title(f64::NAN, r), "t = NaN s");
        let brisbane = reference("2026-11-27T16:00:00+10:00");
        assert_eq!(
            Minutes.title(9.0 * 3600.0, Some(&brisbane)),
            "2026-11-28 01:00 +10:00"
        );
    }

    #[test]
    fn a_reference_off_the_minute_shows_seconds() {
        let times = [600.0, 1200.0];
        assert_eq!(Resolution::for_run(0.0, 1200.0, &times, None), Minutes);
        let utc = reference("2026-11-27T06:00:00Z");
        assert_eq!(
            Resolution::for_run(0.0, 1200.0, &times, Some(&utc)),
            Minutes
        );
        let late = reference("2026-11-27T06:00:30Z");
        let r = Resolution::for_run(0.0, 1200.0, &times, Some(&late));
        assert_eq!(r, Seconds(0));
        assert_eq!(r.title(600.0, Some(&late)), "2026-11-27 06:10:30 UTC");
    }
}
