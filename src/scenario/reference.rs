//! The scenario's reference date (`time.reference`): the calendar instant of the model's
//! t = 0. The model clock stays seconds; dates exist only at the edges, where series are
//! read (date-time columns of CSV files) and where results are written (dates beside
//! seconds).

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, SecondsFormat, TimeDelta};

/// The forms a date-time may take, for error messages.
pub const FORMS: &str = "an ISO 8601 date-time such as \"2026-11-27T06:00:00Z\", \"2026-11-27T06:00:00+10:00\", \"2026-11-27 06:00\" (UTC where no offset is given) or \"2026-11-27\" (midnight UTC)";

/// Date-times with an offset (`Z` is read as +00:00 before these are tried).
const WITH_OFFSET: [&str; 4] = [
    "%Y-%m-%dT%H:%M:%S%.f%#z",
    "%Y-%m-%d %H:%M:%S%.f%#z",
    "%Y-%m-%dT%H:%M%#z",
    "%Y-%m-%d %H:%M%#z",
];
/// Date-times without an offset, taken as UTC.
const WITHOUT_OFFSET: [&str; 4] = [
    "%Y-%m-%dT%H:%M:%S%.f",
    "%Y-%m-%d %H:%M:%S%.f",
    "%Y-%m-%dT%H:%M",
    "%Y-%m-%d %H:%M",
];

/// A date-time in one of the [`FORMS`], with the offset it was written in (+00:00 where
/// none was).
pub fn parse(text: &str) -> Option<DateTime<FixedOffset>> {
    let text = text.trim();
    let utc = FixedOffset::east_opt(0)?;
    let zulu = text
        .strip_suffix('Z')
        .or_else(|| text.strip_suffix('z'))
        .map(|t| format!("{t}+00:00"));
    let text = zulu.as_deref().unwrap_or(text);
    let with_offset = WITH_OFFSET
        .iter()
        .find_map(|f| DateTime::parse_from_str(text, f).ok());
    let naive = || {
        WITHOUT_OFFSET
            .iter()
            .find_map(|f| NaiveDateTime::parse_from_str(text, f).ok())
            .or_else(|| {
                NaiveDate::parse_from_str(text, "%Y-%m-%d")
                    .ok()
                    .and_then(|d| d.and_hms_opt(0, 0, 0))
            })
            .map(|n| n.and_utc().with_timezone(&utc))
    };
    with_offset.or_else(naive)
}

/// The instant of the model's t = 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeReference {
    /// As written: titles show dates in its offset.
    at: DateTime<FixedOffset>,
}

/// The most seconds a date may lie from the reference: ±10,000 years.
pub const MAX_SPAN_S: f64 = 3.2e11;

impl TimeReference {
    /// `time.reference`'s value: a string, or a TOML date-time written without quotes.
    pub fn from_toml(value: &toml::Value) -> Result<TimeReference, String> {
        let text = match value {
            toml::Value::String(s) => s.clone(),
            toml::Value::Datetime(d) => d.to_string(),
            other => return Err(format!("expected {FORMS}, found {other}")),
        };
        let at = parse(&text).ok_or_else(|| format!("expected {FORMS}, found {text:?}"))?;
        if at.timestamp_subsec_nanos() != 0 {
            return Err(format!(
                "expected a reference in whole seconds, found {text:?}"
            ));
        }
        Ok(TimeReference { at })
    }

    /// Seconds from the reference to `instant` (negative before it); None past ±10,000
    /// years, which no flood runs for.
    pub fn seconds_to(&self, instant: DateTime<FixedOffset>) -> Option<f64> {
        let d = instant.signed_duration_since(self.at);
        let s = d.num_seconds() as f64 + f64::from(d.subsec_nanos()) * 1e-9;
        (s.abs() <= MAX_SPAN_S).then_some(s)
    }

    /// The instant of model time `t` (s), to the millisecond; None where `t` is not finite
    /// or lies past ±10,000 years.
    fn instant(&self, t: f64) -> Option<DateTime<FixedOffset>> {
        if !t.is_finite() || t.abs() > MAX_SPAN_S {
            return None;
        }
        let ms = TimeDelta::try_milliseconds((t * 1e3).round() as i64)?;
        self.at.checked_add_signed(ms)
    }

    /// Model time `t` as an ISO 8601 date-time in UTC: `2026-11-27T07:30:00Z`, with
    /// milliseconds where `t` has them (`...T07:30:00.500Z`).
    pub fn utc(&self, t: f64) -> String {
        match self.instant(t) {
            Some(at) => at.to_utc().to_rfc3339_opts(SecondsFormat::AutoSi, true),
            None => format!("{t} s after {}", self.iso()),
        }
    }

    /// The reference itself, in UTC: `2026-11-27T06:00:00Z`.
    pub fn iso(&self) -> String {
        self.at.to_utc().to_rfc3339_opts(SecondsFormat::Secs, true)
    }

    /// CF's time units: `seconds since 2026-11-27 06:00:00` (UTC).
    pub fn cf_units(&self) -> String {
        format!(
            "seconds since {}",
            self.at.to_utc().format("%Y-%m-%d %H:%M:%S")
        )
    }

    /// The reference's calendar day as written (in its offset), and its seconds since that
    /// day's midnight: titles count from there.
    pub fn local_day(&self) -> (NaiveDate, f64) {
        let local = self.at.naive_local();
        let midnight = local.date().and_hms_opt(0, 0, 0).unwrap_or(local);
        (local.date(), (local - midnight).num_seconds() as f64)
    }

    /// The offset titles name: `UTC`, or `+10:00`.
    pub fn zone(&self) -> String {
        match self.at.offset().local_minus_utc() {
            0 => "UTC".into(),
            _ => self.at.offset().to_string(),
        }
    }
}

impl std::fmt::Display for TimeReference {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&self.iso())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(text: &str) -> Option<String> {
        parse(text).map(|d| d.to_utc().to_rfc3339_opts(SecondsFormat::AutoSi, true))
    }

    #[test]
    fn iso_8601_forms_are_read_with_their_offsets() {
        let six = Some("2026-11-27T06:00:00Z".to_string());
        for text in [
            "2026-11-27T06:00:00Z",
            "2026-11-27T06:00:00z",
            "2026-11-27T06:00:00+00:00",
            "2026-11-27T16:00:00+10:00",
            "2026-11-27T16:00+10:00",
            "2026-11-27 16:00:00+1000",
            "2026-11-27T01:00:00-05",
            "2026-11-27T06:00:00",
            "2026-11-27 06:00:00",
            "2026-11-27 06:00",
            "2026-11-27T06:00",
            " 2026-11-27T06:00Z ",
        ] {
            assert_eq!(utc(text), six, "{text}");
        }
        assert_eq!(utc("2026-11-27").as_deref(), Some("2026-11-27T00:00:00Z"));
        assert_eq!(
            utc("2026-11-27T06:00:00.25Z").as_deref(),
            Some("2026-11-27T06:00:00.250Z")
        );
        for bad in [
            "",
            "27/11/2026 06:00",
            "2026-13-01",
            "2026-11-27T25:00",
            "2026-11-27T06:00:00+25:00",
            "tomorrow",
            "3600",
        ] {
            assert_eq!(utc(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn model_times_become_dates_and_back() {
        let r = TimeReference::from_toml(&toml::Value::String("2026-11-27T16:00:00+10:00".into()))
            .unwrap();
        assert_eq!(r.iso(), "2026-11-27T06:00:00Z");
        assert_eq!(r.cf_units(), "seconds since 2026-11-27 06:00:00");
        assert_eq!(r.utc(5400.0), "2026-11-27T07:30:00Z");
        assert_eq!(r.utc(0.5), "2026-11-27T06:00:00.500Z");
        assert_eq!(r.utc(-86_400.0), "2026-11-26T06:00:00Z");
        assert_eq!(
            r.seconds_to(parse("2026-11-27T07:30:00Z").unwrap()),
            Some(5400.0)
        );
        assert_eq!(
            r.seconds_to(parse("2026-11-26 06:00").unwrap()),
            Some(-86_400.0)
        );
        assert_eq!(r.local_day().1, 16.0 * 3600.0);
        assert_eq!(r.zone(), "+10:00");
        assert!(r.utc(f64::NAN).contains("NaN"));
    }

    #[test]
    fn a_reference_is_a_date_time_in_whole_seconds() {
        let text = |s: &str| TimeReference::from_toml(&toml::Value::String(s.into()));
        let e = text("27.11.2026").unwrap_err();
        assert!(
            e.contains("\"2026-11-27T06:00:00Z\"") && e.contains("27.11.2026"),
            "{e}"
        );
        let e = text("2026-11-27T06:00:00.5Z").unwrap_err();
        assert!(e.contains("whole seconds"), "{e}");
        let e = TimeReference::from_toml(&toml::Value::Integer(3)).unwrap_err();
        assert!(e.contains("found 3"), "{e}");
        let toml_datetime: toml::Table = toml::from_str("r = 2026-11-27T06:00:00Z").unwrap();
        assert_eq!(
            TimeReference::from_toml(&toml_datetime["r"])
                .unwrap()
                .zone(),
            "UTC"
        );
    }
}
