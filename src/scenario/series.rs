//! Time series from the scenario: constants, inline tables and CSV columns.

use crate::error::InputError;
use crate::scenario::model::Series;
use crate::scenario::reference::{self, TimeReference};
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

/// The series a model's forcing refers to by index, gathered as the scenario is read,
/// with the reference date that date-time columns count from.
pub struct SeriesList {
    series: Vec<Series>,
    reference: Option<TimeReference>,
}

impl SeriesList {
    pub fn new(reference: Option<TimeReference>) -> SeriesList {
        SeriesList {
            series: Vec::new(),
            reference,
        }
    }

    pub fn reference(&self) -> Option<&TimeReference> {
        self.reference.as_ref()
    }

    pub fn into_series(self) -> Vec<Series> {
        self.series
    }
}

impl std::ops::Deref for SeriesList {
    type Target = Vec<Series>;
    fn deref(&self) -> &Vec<Series> {
        &self.series
    }
}

impl std::ops::DerefMut for SeriesList {
    fn deref_mut(&mut self) -> &mut Vec<Series> {
        &mut self.series
    }
}

/// The time unit that reads a CSV's time column as ISO 8601 date-times.
pub const DATETIME: &str = "datetime";

/// How a CSV's time column becomes model seconds.
#[derive(Clone, Copy)]
enum TimeColumn<'a> {
    /// Numbers, times this factor.
    Numbers(f64),
    /// ISO 8601 date-times, counted from the reference.
    Dates(&'a TimeReference),
}

impl TimeColumn<'_> {
    /// The time column's unit as stated at `key`; dates need the scenario's reference.
    fn of<'r>(
        given: Option<&str>,
        reference: Option<&'r TimeReference>,
        key: &str,
    ) -> Result<TimeColumn<'r>, InputError> {
        let given = given.map(str::trim);
        if given != Some(DATETIME) {
            let stated = TIME_UNITS.iter().find(|(u, _)| Some(*u) == given);
            return stated.map(|(_, f)| TimeColumn::Numbers(*f)).ok_or_else(|| {
                let allowed = format!("{}, {DATETIME:?}", names(&TIME_UNITS));
                let m = match given {
                    None => format!(
                        "a series read from files must state its units: expected one of {allowed}"
                    ),
                    Some(g) => format!("expected one of {allowed}, found {g:?}"),
                };
                InputError::new(m).at_key(key)
            });
        }
        reference.map(TimeColumn::Dates).ok_or_else(|| {
            InputError::new(
                "a time column of date-times needs the scenario's `time.reference` (the date-time of t = 0): add it to [time], or give times in \"s\", \"min\", \"h\" or \"day\"",
            )
            .at_key(key)
        })
    }

    /// A cell's time in model seconds, or what was expected.
    fn seconds(&self, cell: &str) -> Result<f64, String> {
        let found = || format!("found {cell:?}");
        match self {
            TimeColumn::Numbers(f) => cell
                .parse::<f64>()
                .map(|t| t * f)
                .map_err(|_| format!("expected a number, {}", found())),
            TimeColumn::Dates(r) => reference::parse(cell)
                .and_then(|d| r.seconds_to(d))
                .ok_or_else(|| format!("expected {}, {}", reference::FORMS, found())),
        }
    }
}

/// Reads a series of `quantity` in SI units; `key` names it in errors, `dir` resolves
/// relative CSV paths, and `reference` dates t = 0 for date-time columns.
pub fn load(
    spec: &SeriesSpec,
    key: &str,
    dir: &Path,
    quantity: Quantity,
    reference: Option<&TimeReference>,
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
            let time =
                TimeColumn::of(time_unit.as_deref(), reference, &format!("{key}.time_unit"))?;
            unit_scale = factor(unit.as_deref(), quantity.units(), &format!("{key}.unit"))?;
            let columns = [time_column.as_deref(), value_column.as_deref()];
            let path = dir.join(csv);
            // The file and the line say where; the key says which input it is.
            let csv_key = format!("{key}.csv");
            let rows = read_csv(&path, columns, time).map_err(|e| match e.key {
                None => e.at_key(&csv_key),
                Some(_) => e,
            })?;
            check(&rows.first, &rows.second)
                .map_err(|m| InputError::new(m).in_file(&path).at_key(&csv_key))?;
            (rows.first, rows.second)
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

/// Two columns of a CSV file, row by row, with each row's line and the columns' names.
pub(crate) struct Columns {
    pub first: Vec<f64>,
    pub second: Vec<f64>,
    pub lines: Vec<u64>,
    pub names: [String; 2],
}

/// Two columns of numbers of a CSV file (`read_csv`), the first two by default.
pub(crate) fn read_numbers(path: &Path, columns: [Option<&str>; 2]) -> Result<Columns, InputError> {
    read_csv(path, columns, TimeColumn::Numbers(1.0))
}

/// Two columns of a CSV file with a header line, the first two by default: times (as
/// `time` reads them) and values. The file is read whole with a size bound, then parsed as
/// spreadsheets write CSV: a UTF-8 BOM, `#` comment lines, quoted fields, blank lines,
/// spaces around fields and CRLF line ends are all accepted.
fn read_csv(
    path: &Path,
    [time_col, value_col]: [Option<&str>; 2],
    time: TimeColumn,
) -> Result<Columns, InputError> {
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
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let mut reader = csv::ReaderBuilder::new()
        .comment(Some(b'#'))
        .trim(csv::Trim::All)
        .flexible(true)
        .from_reader(text.as_bytes());
    let line = |p: Option<&csv::Position>| p.map_or(0, csv::Position::line);
    let names = reader
        .headers()
        .map_err(|e| fail(format!("line {}: {}", line(e.position()), csv_error(&e))))?
        .clone();
    if names.iter().all(str::is_empty) {
        return Err(fail("expected a header line, the file is empty".into()));
    }
    let column = |want: Option<&str>, default: usize| -> Result<usize, InputError> {
        let Some(w) = want else {
            return Ok(default);
        };
        let all: Vec<&str> = names.iter().collect();
        let mut at = names
            .iter()
            .enumerate()
            .filter(|(_, n)| *n == w)
            .map(|(k, _)| k);
        match (at.next(), at.next()) {
            (Some(k), None) => Ok(k),
            (None, _) => Err(fail(format!(
                "no column named {w:?}; the header has {all:?}"
            ))),
            // The first of two was taken silently.
            (Some(_), Some(_)) => Err(fail(format!(
                "the header names {w:?} more than once ({all:?}): expected one column of that name"
            ))),
        }
    };
    let (tc, vc) = (column(time_col, 0)?, column(value_col, 1)?);
    if names.len() < 2 {
        let all: Vec<&str> = names.iter().collect();
        return Err(fail(format!(
            "the header has one column, {all:?}: expected a time and a value column, separated by commas"
        )));
    }
    if tc == vc {
        return Err(fail(format!(
            "the times and the values are the same column, {:?}: expected two columns",
            &names[tc]
        )));
    }
    let mut times = Vec::new();
    let mut values = Vec::new();
    let mut lines = Vec::new();
    for record in reader.records() {
        let record =
            record.map_err(|e| fail(format!("line {}: {}", line(e.position()), csv_error(&e))))?;
        if record.iter().all(str::is_empty) {
            continue;
        }
        let n = line(record.position());
        let cell = |c: usize| {
            record.get(c).ok_or_else(|| {
                fail(format!(
                    "line {n}: expected {} columns, found {}",
                    c + 1,
                    record.len()
                ))
            })
        };
        let t = time
            .seconds(cell(tc)?)
            .map_err(|m| fail(format!("line {n}, column {:?}: {m}", &names[tc])))?;
        let v = cell(vc)?;
        let v = v.parse::<f64>().map_err(|_| {
            fail(format!(
                "line {n}, column {:?}: expected a number, found {v:?}",
                &names[vc]
            ))
        })?;
        times.push(t);
        values.push(v);
        lines.push(n);
    }
    Ok(Columns {
        first: times,
        second: values,
        lines,
        names: [names[tc].to_string(), names[vc].to_string()],
    })
}

/// A CSV parser's error without the position, which the caller writes as a line number.
fn csv_error(e: &csv::Error) -> String {
    match e.kind() {
        csv::ErrorKind::Utf8 { .. } => "not UTF-8 text".into(),
        _ => e.to_string(),
    }
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
            None,
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
            None,
        )
        .unwrap();
        assert_eq!(s.times, vec![0.0, 3600.0]);
        assert_eq!(s.values, vec![1e-3, 2e-3]);
        let e = load(
            &csv("q.csv", None, Some("m3/s")),
            "k",
            dir.path(),
            Quantity::Discharge,
            None,
        )
        .unwrap_err();
        assert_eq!(e.key.as_deref(), Some("k.time_unit"), "{e}");
        let e = load(
            &csv("q.csv", Some("s"), Some("mm/h")),
            "k",
            dir.path(),
            Quantity::Discharge,
            None,
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
        let e = load(&spec, "k", dir.path(), Quantity::Discharge, None).unwrap_err();
        assert!(e.to_string().contains("line 3"), "{e}");
        assert!(e.file.unwrap().ends_with("bad.csv"));
        // A header of one column and no rows (another separator than commas) panicked.
        let e = from_csv("minutes|level\n", [None, None], "s").unwrap_err();
        assert!(e.to_string().contains("one column"), "{e}");
    }

    fn from_csv(text: &str, columns: [Option<&str>; 2], unit: &str) -> Result<Series, InputError> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("s.csv"), text).unwrap();
        let spec = SeriesSpec::Csv(SeriesCsv {
            csv: "s.csv".into(),
            time_column: columns[0].map(Into::into),
            value_column: columns[1].map(Into::into),
            time_unit: Some(unit.into()),
            unit: Some("m".into()),
        });
        let reference =
            TimeReference::from_toml(&toml::Value::String("2026-11-27T06:00:00Z".into())).unwrap();
        load(&spec, "k", dir.path(), Quantity::Level, Some(&reference))
    }

    #[test]
    fn spreadsheet_csv_is_read() {
        // Excel's "CSV UTF-8": a BOM and CRLF; with comment lines, a quoted header holding
        // a comma, quoted cells, spaces around cells and a blank line.
        let text = "\u{feff}# exported from the gauge archive\r\n\"time, s\" ,\"level (m, AHD)\"\r\n# a comment between rows\r\n 0 ,\"1.5\" \r\n\r\n3600,2.5\r\n";
        let s = from_csv(text, [Some("time, s"), Some("level (m, AHD)")], "s").unwrap();
        assert_eq!((s.times, s.values), (vec![0.0, 3600.0], vec![1.5, 2.5]));
        let s = from_csv(text, [None, None], "h").unwrap();
        assert_eq!(s.times, vec![0.0, 3600.0 * 3600.0]);
    }

    #[test]
    fn csv_errors_name_the_file_line_and_what_was_expected() {
        let text = "# note\nt,level\n0,1\n60,one\n";
        let e = from_csv(text, [None, None], "s").unwrap_err();
        assert!(e.file.as_ref().unwrap().ends_with("s.csv"), "{e}");
        assert!(
            e.message.contains("line 4")
                && e.message.contains("column \"level\"")
                && e.message.contains("expected a number, found \"one\""),
            "{e}"
        );
        let e = from_csv("t,level\n0,1\n", [Some("t"), Some("stage")], "s").unwrap_err();
        assert!(
            e.file.is_some()
                && e.message.contains("no column named \"stage\"")
                && e.message.contains("\"level\""),
            "{e}"
        );
        let e = from_csv("t,level\n0,1\n60\n", [None, None], "s").unwrap_err();
        assert!(
            e.message.contains("line 3: expected 2 columns, found 1"),
            "{e}"
        );
        let e = from_csv("\u{feff}\n", [None, None], "s").unwrap_err();
        assert!(e.message.contains("header"), "{e}");
        // Both were taken silently: one column as times and values, and the first of two
        // columns of one name.
        let e = from_csv("t,Q\n0,1\n", [Some("Q"), Some("Q")], "s").unwrap_err();
        assert!(e.message.contains("the same column, \"Q\""), "{e}");
        let e = from_csv("t,Q,Q\n0,1,2\n", [None, Some("Q")], "s").unwrap_err();
        assert!(e.message.contains("\"Q\" more than once"), "{e}");
        // The key too, not the file alone (times out of order named only "s.csv").
        let e = from_csv("t,level\n60,1\n0,2\n", [None, None], "s").unwrap_err();
        assert!(
            e.key.as_deref() == Some("k.csv") && e.message.contains("times must increase"),
            "{e}"
        );
        let e = from_csv("t,level\n0,one\n", [None, None], "s").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("k.csv"), "{e}");
    }

    #[test]
    fn date_time_columns_count_from_the_reference() {
        let text =
            "when,level\n2026-11-27T06:00:00Z,1\n2026-11-27 07:30,2\n2026-11-27T18:00:00+10:00,3\n";
        let s = from_csv(text, [None, None], "datetime").unwrap();
        assert_eq!(s.times, vec![0.0, 5400.0, 7200.0]);
        let e = from_csv("when,level\n27/11/2026 06:00,1\n", [None, None], "datetime").unwrap_err();
        assert!(
            e.message.contains("line 2") && e.message.contains("ISO 8601"),
            "{e}"
        );
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("s.csv"), text).unwrap();
        let spec = SeriesSpec::Csv(SeriesCsv {
            csv: "s.csv".into(),
            time_column: None,
            value_column: None,
            time_unit: Some("datetime".into()),
            unit: Some("m".into()),
        });
        let e = load(&spec, "k", dir.path(), Quantity::Level, None).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("k.time_unit"));
        assert!(e.message.contains("time.reference"), "{e}");
        let e = from_csv(text, [None, None], "hours").unwrap_err();
        assert!(
            e.message.contains("\"datetime\"") && e.message.contains("\"hours\""),
            "{e}"
        );
    }
}
