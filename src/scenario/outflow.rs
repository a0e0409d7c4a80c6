//! Outflow edge segments. A `rating` segment's curve Q(level): an inline table, or two
//! columns of a CSV file read as the time series are, stored as a series whose "times" are
//! its levels above the datum, which the kernels look up by the edge cells' water level
//! instead of by time (`rating_discharge` in `shaders/flux.wgsl`). A `normal_depth`
//! segment's discharge follows Manning's n of its cells, which must be > 0.

use super::frame::Frame;
use super::model::Series;
use super::series::{self, Quantity};
use super::spec::{RatingCsv, RatingSpec, RatingTable, SegmentSpec};
use crate::error::InputError;
use std::path::Path;

/// A point that breaks the rules: its index, its column (0 level, 1 discharge), and what
/// was expected.
type Fault = (usize, usize, String);

/// Levels strictly increasing, discharges finite, >= 0 and never decreasing.
fn check(level: &[f64], discharge: &[f64]) -> Result<(), Fault> {
    for k in 0..level.len() {
        for (col, v) in [(0, level[k]), (1, discharge[k])] {
            if !v.is_finite() {
                return Err((k, col, format!("expected a finite number, found {v}")));
            }
        }
        if discharge[k] < 0.0 {
            let q = discharge[k];
            return Err((k, 1, format!("expected a discharge >= 0 m³/s, found {q}")));
        }
        if k == 0 {
            continue;
        }
        let (l0, l1) = (level[k - 1], level[k]);
        if l1 <= l0 {
            let m = format!("expected levels that strictly increase, found {l1} after {l0}");
            return Err((k, 0, m));
        }
        let (q0, q1) = (discharge[k - 1], discharge[k]);
        if q1 < q0 {
            let m = format!(
                "expected discharges that never decrease as the level rises, found {q1} after {q0}"
            );
            return Err((k, 1, m));
        }
    }
    Ok(())
}

const COLUMNS: [&str; 2] = ["level", "discharge"];

fn too_few(n: usize) -> String {
    format!("expected at least two (level, discharge) points, found {n}")
}

/// Reads the rating at `key` (m³/s against m of the terrain's datum) as a series of
/// levels above `datum`; `dir` resolves a relative CSV path.
pub fn load_rating(
    spec: &RatingSpec,
    key: &str,
    dir: &Path,
    datum: f64,
) -> Result<Series, InputError> {
    let (level, discharge) = match spec {
        RatingSpec::Table(RatingTable { level, discharge }) => {
            if level.len() != discharge.len() {
                return Err(InputError::new(format!(
                    "expected as many discharges as levels, found {} levels and {} discharges",
                    level.len(),
                    discharge.len()
                ))
                .at_key(key));
            }
            if level.len() < 2 {
                return Err(InputError::new(too_few(level.len())).at_key(key));
            }
            check(level, discharge).map_err(|(k, col, m)| {
                InputError::new(format!("point {}: {m}", k + 1))
                    .at_key(format!("{key}.{}", COLUMNS[col]))
            })?;
            (level.clone(), discharge.clone())
        }
        RatingSpec::Csv(RatingCsv {
            csv,
            level_column,
            discharge_column,
            unit,
        }) => {
            let scale =
                series::unit_factor(Quantity::Discharge, unit.as_deref(), &format!("{key}.unit"))?;
            let path = dir.join(csv);
            let columns = [level_column.as_deref(), discharge_column.as_deref()];
            let rows = series::read_numbers(&path, columns).map_err(|e| e.or_key(key))?;
            let fail = |m: String| InputError::new(m).in_file(&path).at_key(key);
            if rows.first.len() < 2 {
                return Err(fail(too_few(rows.first.len())));
            }
            check(&rows.first, &rows.second).map_err(|(k, col, m)| {
                fail(format!(
                    "line {}, column {:?}: {m}",
                    rows.lines[k], rows.names[col]
                ))
            })?;
            let discharge = rows.second.iter().map(|q| q * scale).collect();
            (rows.first, discharge)
        }
    };
    Ok(Series {
        name: key.to_string(),
        times: level.iter().map(|l| l - datum).collect(),
        values: discharge,
    })
}

/// Refuses a normal-depth segment over a cell without friction (Manning's n of the finest
/// cells, `manning`): its discharge h^(5/3) sqrt(S) / n would be unbounded.
pub(crate) fn refuse_frictionless(
    segments: &[SegmentSpec],
    bc_edge: &[u32],
    frame: &Frame,
    manning: &[f32],
) -> Result<(), InputError> {
    let (nx, ny) = (frame.nx, frame.ny);
    for (k, seg) in segments.iter().enumerate() {
        if seg.kind != "normal_depth" {
            continue;
        }
        // Segment k is definition k + 2, after the plain wall and open edges.
        let id = k as u32 + 2;
        let (offset, cells) = match seg.edge_name() {
            "west" => (0, ny),
            "east" => (ny, ny),
            "south" => (2 * ny, nx),
            _ => (2 * ny + nx, nx),
        };
        let cell = |c: usize| match seg.edge_name() {
            "west" => (0, c),
            "east" => (nx - 1, c),
            "south" => (c, 0),
            _ => (c, ny - 1),
        };
        let bare = (0..cells)
            .filter(|&c| bc_edge[offset + c] == id)
            .map(cell)
            .find(|&(i, j)| manning[i + nx * j] <= 0.0);
        if let Some((i, j)) = bare {
            let (x, y) = frame.centre(i, j);
            return Err(InputError::new(format!(
                "a normal-depth boundary needs friction: Manning's n is 0 in its edge cell at ({x}, {y}); expected n > 0 on every cell of the segment (see [friction])"
            ))
            .at_key(format!("boundary.segment[{k}]")));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(level: &[f64], discharge: &[f64]) -> RatingSpec {
        RatingSpec::Table(RatingTable {
            level: level.to_vec(),
            discharge: discharge.to_vec(),
        })
    }

    #[test]
    fn levels_count_from_the_datum() {
        let spec = table(&[101.0, 102.0, 104.0], &[0.0, 2.0, 10.0]);
        let r = load_rating(&spec, "k", Path::new("."), 100.0).unwrap();
        assert_eq!(
            (r.times, r.values),
            (vec![1.0, 2.0, 4.0], vec![0.0, 2.0, 10.0])
        );
    }

    #[test]
    fn bad_tables_name_the_key_the_point_and_what_was_expected() {
        let cases = [
            (
                table(&[1.0, 1.0], &[0.0, 1.0]),
                "k.level",
                "strictly increase",
            ),
            (table(&[1.0, 2.0], &[0.0, -1.0]), "k.discharge", ">= 0"),
            (
                table(&[1.0, 2.0, 3.0], &[0.0, 2.0, 1.0]),
                "k.discharge",
                "never decrease",
            ),
            (table(&[1.0], &[0.0]), "k", "at least two"),
            (
                table(&[1.0, 2.0], &[0.0]),
                "k",
                "as many discharges as levels",
            ),
        ];
        for (spec, key, expected) in cases {
            let e = load_rating(&spec, "k", Path::new("."), 0.0).unwrap_err();
            assert_eq!(e.key.as_deref(), Some(key), "{e}");
            assert!(e.message.contains(expected), "{e}");
        }
    }

    #[test]
    fn csv_ratings_state_their_unit_and_errors_name_the_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("r.csv"), "stage,Q\n10,0\n11,500\n12,400\n").unwrap();
        let csv = |unit: Option<&str>| {
            RatingSpec::Csv(RatingCsv {
                csv: "r.csv".into(),
                level_column: None,
                discharge_column: Some("Q".into()),
                unit: unit.map(Into::into),
            })
        };
        let e = load_rating(&csv(None), "k", dir.path(), 0.0).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("k.unit"), "{e}");
        let e = load_rating(&csv(Some("l/s")), "k", dir.path(), 0.0).unwrap_err();
        assert!(e.file.as_ref().unwrap().ends_with("r.csv"), "{e}");
        assert!(
            e.message.contains("line 4, column \"Q\"") && e.message.contains("never decrease"),
            "{e}"
        );
        std::fs::write(dir.path().join("r.csv"), "stage,Q\n10,0\n11,500\n").unwrap();
        let r = load_rating(&csv(Some("l/s")), "k", dir.path(), 0.0).unwrap();
        assert_eq!(r.values, vec![0.0, 0.5]);
    }
}
