//! Time series from the scenario: constants, inline tables and CSV columns.

use crate::error::InputError;
use crate::scenario::model::Series;
use crate::scenario::spec::{SeriesCsv, SeriesSpec, SeriesTable};
use std::path::Path;

/// Reads a series; `key` names it in errors, `dir` resolves relative CSV paths, and
/// `unit_scale` converts the user's unit to SI (e.g. mm/h to m/s).
pub fn load(
    spec: &SeriesSpec,
    key: &str,
    dir: &Path,
    unit_scale: f64,
) -> Result<Series, InputError> {
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
        }) => {
            let path = dir.join(csv);
            read_csv(&path, time_column.as_deref(), value_column.as_deref())?
        }
    };
    check(&times, &values).map_err(|m| InputError::new(m).at_key(key))?;
    Ok(Series {
        name: key.to_string(),
        times,
        values: values.iter().map(|v| v * unit_scale).collect(),
    })
}

fn check(times: &[f64], values: &[f64]) -> Result<(), String> {
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
    let text = std::fs::read_to_string(path).map_err(|e| fail(format!("cannot read: {e}")))?;
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
        let e = load(&spec, "boundary.segment[0].discharge", Path::new("."), 1.0).unwrap_err();
        assert!(e.to_string().contains("times must increase"), "{e}");
        assert_eq!(e.key.as_deref(), Some("boundary.segment[0].discharge"));
    }

    #[test]
    fn csv_columns_and_units() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("q.csv"), "hour,t,Q\n0,0,1\n1,3600,2\n").unwrap();
        let spec = SeriesSpec::Csv(SeriesCsv {
            csv: "q.csv".into(),
            time_column: Some("t".into()),
            value_column: Some("Q".into()),
        });
        let s = load(&spec, "k", dir.path(), 2.0).unwrap();
        assert_eq!(s.times, vec![0.0, 3600.0]);
        assert_eq!(s.values, vec![2.0, 4.0]);
        std::fs::write(dir.path().join("bad.csv"), "t,Q\n0,1\n1,x\n").unwrap();
        let spec = SeriesSpec::Csv(SeriesCsv {
            csv: "bad.csv".into(),
            time_column: None,
            value_column: None,
        });
        let e = load(&spec, "k", dir.path(), 1.0).unwrap_err();
        assert!(e.to_string().contains("line 3"), "{e}");
        assert!(e.file.unwrap().ends_with("bad.csv"));
    }
}
