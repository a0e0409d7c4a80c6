//! Time series from the scenario: constants, inline tables and CSV columns.

use crate::error::InputError;
use crate::scenario::model::Series;
use crate::scenario::spec::{SeriesCsv, SeriesSpec, SeriesTable};
use std::path::Path;

/// What a series measures, and the units a CSV may state for it. Numbers and tables in the
/// scenario are in the first unit listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantity {
    Discharge,
    Level,
    RainRate,
}

impl Quantity {
    /// (unit, factor to SI).
    fn units(self) -> &'static [(&'static str, f64)] {
        match self {
            Quantity::Discharge => &[("m3/s", 1.0), ("l/s", 1e-3)],
            Quantity::Level => &[("m", 1.0)],
            Quantity::RainRate => &[("mm/h", 1.0 / 3.6e6), ("mm/min", 1.0 / 6.0e4), ("m/s", 1.0)],
        }
    }
}

const TIME_UNITS: [(&str, f64); 4] = [("s", 1.0), ("min", 60.0), ("h", 3600.0), ("day", 86400.0)];

fn names(units: &[(&str, f64)]) -> String {
    units
        .iter()
        .map(|(u, _)| format!("{u:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The SI factor of a unit the user stated, or an error listing the allowed ones.
fn factor(given: Option<&str>, allowed: &[(&str, f64)], key: &str) -> Result<f64, InputError> {
    let Some(given) = given else {
        return Err(InputError::new(format!(
            "a series read from files must state its units: expected one of {}",
            names(allowed)
        ))
        .at_key(key));
    };
    allowed
        .iter()
        .find(|(u, _)| *u == given.trim())
        .map(|(_, f)| *f)
        .ok_or_else(|| {
            InputError::new(format!(
                "expected one of {}, found {given:?}",
                names(allowed)
            ))
            .at_key(key)
        })
}

/// The SI factor of the unit a scenario states for a quantity, or an error at `key`.
pub fn unit_factor(quantity: Quantity, given: Option<&str>, key: &str) -> Result<f64, InputError> {
    factor(given, quantity.units(), key)
}

/// The factor to seconds of a stated time unit, or an error at `key`.
pub fn time_factor(given: Option<&str>, key: &str) -> Result<f64, InputError> {
    factor(given, &TIME_UNITS, key)
}

/// Reads a series of `quantity` in SI units; `key` names it in errors and `dir` resolves
/// relative CSV paths.
pub fn load(
    spec: &SeriesSpec,
    key: &str,
    dir: &Path,
    quantity: Quantity,
) -> Result<Series, InputError> {
    let mut unit_scale = quantity.units()[0].1;
    let (times, values) = match spec {
        SeriesSpec::Constant(v) => (vec![0.0], vec![*v]),
        SeriesSpec::Table(SeriesTable { time, value }) => {
            if time.len() != value.len() {
                return Err(InputError::new(format!(
                    "expected as many values as times, found {} times and {} values",
                    time.len(),
                    value.len()
                ))
                .at_key(key));
            }
            (time.clone(), value.clone())
        }
        SeriesSpec::Csv(SeriesCsv {
            csv,
            time_column,
            value_column,
            time_unit,
            unit,
        }) => {
            let time_scale = factor(
                time_unit.as_deref(),
                &TIME_UNITS,
                &format!("{key}.time_unit"),
            )?;
            unit_scale = factor(unit.as_deref(), quantity.units(), &format!("{key}.unit"))?;
            let path = dir.join(csv);
            let (t, v) = read_csv(&path, time_column.as_deref(), value_column.as_deref())?;
            (t.iter().map(|t| t * time_scale).collect(), v)
        }
    };
    check(&times, &values).map_err(|m| InputError::new(m).at_key(key))?;
    Ok(Series {
        name: key.to_string(),
        times,
        values: values.iter().map(|v| v * unit_scale).collect(),
    })
}

pub(crate) fn check(times: &[f64], values: &[f64]) -> Result<(), String> {
    if times.is_empty() {
        return Err("expected at least one (time, value) point".into());
    }
    if let Some(k) = (0..times.len()).find(|&k| !times[k].is_finite() || !values[k].is_finite()) {
        return Err(format!("point {} is not a finite number", k + 1));
    }
    if let Some(k) = (1..times.len()).find(|&k| times[k] <= times[k - 1]) {
        return Err(format!(
            "times must increase: point {} has t = {} after t = {}",
            k + 1,
            times[k],
            times[k - 1]
        ));
    }
    Ok(())
}

/// Two columns of a CSV file with a header line; the first two columns by default.
fn read_csv(
    path: &Path,
    time_col: Option<&str>,
    value_col: Option<&str>,
) -> Result<(Vec<f64>, Vec<f64>), InputError> {
    let fail = |m: String| InputError::new(m).in_file(path);
    let text = crate::io::bounded::read_text(
        path,
        crate::io::bounded::MAX_SERIES_BYTES,
        "the most a CSV series may hold: ten million rows",
    )?;
    let limit = crate::io::bounded::MAX_SERIES_LINE;
    if let Some((n, _)) = text.lines().enumerate().find(|(_, l)| l.len() > limit) {
        return Err(fail(format!(
            "line {} is longer than {limit} bytes: expected a time and a value per line",
            n + 1
        )));
    }
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (_, header) = lines
        .next()
        .ok_or_else(|| fail("expected a header line, the file is empty".into()))?;
    let names: Vec<&str> = header.split(',').map(str::trim).collect();
    let column = |want: Option<&str>, default: usize| -> Result<usize, InputError> {
        match want {
            None => Ok(default),
            Some(w) => names
                .iter()
                .position(|n| *n == w)
                .ok_or_else(|| fail(format!("no column named {w:?}; the header has {names:?}"))),
        }
    };
    let (tc, vc) = (column(time_col, 0)?, column(value_col, 1)?);
    let mut times = Vec::new();
    let mut values = Vec::new();
    for (n, line) in lines {
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        let get = |c: usize| -> Result<f64, InputError> {
            let cell = cells
                .get(c)
                .ok_or_else(|| fail(format!("line {}: expected {} columns", n + 1, c + 1)))?;
            cell.parse::<f64>()
                .map_err(|_| fail(format!("line {}: expected a number, found {cell:?}", n + 1)))
        };
        times.push(get(tc)?);
        values.push(get(vc)?);
    }
    check(&times, &values).map_err(fail)?;
    Ok((times, values))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_must_increase() {
        let spec = SeriesSpec::Table(SeriesTable {
            time: vec![0.0, 10.0, 5.0],
            value: vec![1.0, 2.0, 3.0],
        });
        let e = load(
            &spec,
            "boundary.segment[0].discharge",
            Path::new("."),
            Quantity::Discharge,
        )
        .unwrap_err();
        assert!(e.to_string().contains("times must increase"), "{e}");
        assert_eq!(e.key.as_deref(), Some("boundary.segment[0].discharge"));
    }

    #[test]
    fn csv_columns_and_units() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("q.csv"), "hour,t,Q\n0,0,1\n1,3600,2\n").unwrap();
        let csv = |file: &str, time: Option<&str>, unit: Option<&str>| {
            SeriesSpec::Csv(SeriesCsv {
                csv: file.into(),
                time_column: Some("hour".into()),
                value_column: Some("Q".into()),
                time_unit: time.map(Into::into),
                unit: unit.map(Into::into),
            })
        };
        let s = load(
            &csv("q.csv", Some("h"), Some("l/s")),
            "k",
            dir.path(),
            Quantity::Discharge,
        )
        .unwrap();
        assert_eq!(s.times, vec![0.0, 3600.0]);
        assert_eq!(s.values, vec![1e-3, 2e-3]);
        let e = load(
            &csv("q.csv", None, Some("m3/s")),
            "k",
            dir.path(),
            Quantity::Discharge,
        )
        .unwrap_err();
        assert_eq!(e.key.as_deref(), Some("k.time_unit"), "{e}");
        let e = load(
            &csv("q.csv", Some("s"), Some("mm/h")),
            "k",
            dir.path(),
            Quantity::Discharge,
        )
        .unwrap_err();
        assert!(
            e.key.as_deref() == Some("k.unit") && e.message.contains("\"l/s\""),
            "{e}"
        );
        std::fs::write(dir.path().join("bad.csv"), "t,Q\n0,1\n1,x\n").unwrap();
        let spec = SeriesSpec::Csv(SeriesCsv {
            csv: "bad.csv".into(),
            time_column: None,
            value_column: None,
            time_unit: Some("s".into()),
            unit: Some("m3/s".into()),
        });
        let e = load(&spec, "k", dir.path(), Quantity::Discharge).unwrap_err();
        assert!(e.to_string().contains("line 3"), "{e}");
        assert!(e.file.unwrap().ends_with("bad.csv"));
    }
}
