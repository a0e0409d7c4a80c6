//! Hostile series: the CSV files of an inflow hydrograph, a stage and rain with times out of
//! order, repeated or a trillionth of a second apart, cells that are not numbers or out of
//! range, columns missing, extra or named twice, other separators, quotes, a byte-order
//! mark, CRLF, NUL bytes, rows cut short, no rows or no file; and the keys that read them
//! (columns, units) given names no series has. `check` must accept each (exit 0) or refuse
//! it (exit 2) naming the file or the key; now and then an accepted one is run too, which
//! must end as documented with its files whole and, on exit 0, its mass balance kept.

use super::case::{arg, Case};
use super::proc::Limits;
use super::rng::Rng;
use super::verdict::Bound;

const SCENARIO: &str = r#"name = "series"

[domain]
cell_size = 2.0
nx = 24
ny = 20

[terrain]
type = "slope"
slope_x = -0.01

[friction]
manning = 0.03

[boundary]
east = "open"

[[boundary.segment]]
edge = "west"
type = "inflow"
from = 10.0
to = 30.0
discharge = { csv = "q.csv", time_column = "time_s", value_column = "q_m3s", time_unit = "s", unit = "m3/s" }

[[boundary.segment]]
edge = "north"
type = "stage"
from = 10.0
to = 30.0
level = { csv = "stage.csv", time_unit = "min", unit = "m" }

[rain]
rate = { csv = "rain.csv", time_column = "t", value_column = "mm_h", time_unit = "s", unit = "mm/h" }

[time]
end = 2.0
output_interval = 1.0

[output]
format = "ascii"
png = false
"#;

const Q: &str = "time_s,q_m3s,note\n0,0.0,start\n0.5,3.5,peak\n1.5,1.0,\n2,0.2,end\n";
const STAGE: &str = "minutes,level\n0,0.1\n0.01,0.4\n1,0.3\n";
const RAIN: &str = "t,mm_h\n0,10\n1,80\n2,0\n";

const CELLS: &[&str] = &[
    "nan", "NaN", "inf", "-inf", "1e400", "-1e400", "1e308", "-1", "-0", "1e-320", "", " ", "abc",
    "1,5", "\"2\"", "0x10", "1_0", "+3", "\u{661}", "1e5", "1e12", "3.4e38", ".", "--1", "1..2",
    "TRUE",
];

fn joined_lines(lines: &[String]) -> Vec<u8> {
    (lines.join("\n") + "\n").into_bytes()
}

/// One change to a CSV file's text; returns what changed.
fn mutate(rng: &mut Rng, text: &str) -> (Vec<u8>, String) {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    if lines.len() < 2 {
        // An earlier change left no data row (or no line) to work on.
        lines.push("0,1".into());
        return (joined_lines(&lines), "a row added after the header".into());
    }
    let rows = lines.len() - 1;
    let row = 1 + rng.below(rows.max(1));
    let joined = joined_lines;
    let what = match rng.below(18) {
        0 => {
            let (a, b) = (1 + rng.below(rows), 1 + rng.below(rows));
            lines.swap(a, b);
            format!("rows {a} and {b} swapped")
        }
        1 => {
            lines.insert(row, lines[row].clone());
            format!("row {row} twice")
        }
        2..=5 => {
            let mut cells: Vec<String> = lines[row].split(',').map(String::from).collect();
            let k = rng.below(cells.len().min(2));
            let v = rng.pick(CELLS).to_string();
            cells[k] = v.clone();
            lines[row] = cells.join(",");
            format!("row {row} column {k} = {v:?}")
        }
        6 => {
            lines[row] = lines[row].split(',').next().unwrap().to_string();
            format!("row {row} has one column")
        }
        7 => {
            lines[row] += ",,,";
            format!("row {row} has extra commas")
        }
        8 => {
            lines.truncate(1);
            "header only".into()
        }
        9 => return (Vec::new(), "empty".into()),
        10 => {
            let sep = *rng.pick(&[";", "\t", " ", "|"]);
            return (
                text.replace(',', sep).into_bytes(),
                format!("{sep:?} for commas"),
            );
        }
        11 => {
            return (
                format!("\u{feff}{text}").into_bytes(),
                "a byte-order mark".into(),
            )
        }
        12 => return (text.replace('\n', "\r\n").into_bytes(), "CRLF".into()),
        13 => {
            let mut b = joined(&lines);
            let k = rng.below(b.len());
            b.truncate(k);
            return (b, format!("cut to {k} bytes"));
        }
        14 => {
            // Times a trillionth of a second apart, as f64 can still tell apart.
            let start: f64 = lines[1].split(',').next().unwrap().parse().unwrap_or(0.0);
            let mut dense = vec![lines[0].clone()];
            dense.extend(
                (0..rng.int(2, 200)).map(|k| format!("{},{}", start + k as f64 * 1e-12, k % 7)),
            );
            lines = dense;
            "times 1e-12 s apart".into()
        }
        15 => {
            lines[0] = lines[0].replace(lines[0].split(',').next().unwrap(), "renamed");
            "the time column renamed".into()
        }
        16 => {
            let first = lines[0].clone();
            lines.insert(1, first);
            "the header twice".into()
        }
        _ => {
            let n = rng.int(1000, 20000);
            let mut long = vec![lines[0].clone()];
            long.extend((0..n).map(|k| format!("{},{}", k as f64 * 1e-4, (k % 13) as f64 * 0.3)));
            lines = long;
            format!("{n} rows")
        }
    };
    (joined(&lines), what)
}

/// A key of a series read from CSV changed; returns the scenario and what changed.
fn mutate_keys(rng: &mut Rng) -> (String, String) {
    let (from, to) = *rng.pick(&[
        (
            "time_unit = \"s\", unit = \"m3/s\"",
            "time_unit = \"sec\", unit = \"m3/s\"",
        ),
        ("unit = \"m3/s\"", "unit = \"mm/h\""),
        ("unit = \"m3/s\"", "unit = \"l/s\""),
        ("time_unit = \"min\"", "time_unit = \"day\""),
        ("time_unit = \"min\"", "time_unit = \"\""),
        ("value_column = \"q_m3s\"", "value_column = \"note\""),
        ("value_column = \"q_m3s\"", "value_column = \"time_s\""),
        ("value_column = \"mm_h\"", "value_column = \"MM_H\""),
        ("csv = \"q.csv\"", "csv = \"missing.csv\""),
        ("csv = \"q.csv\"", "csv = \"/dev/null\""),
        ("csv = \"rain.csv\"", "csv = \".\""),
        ("unit = \"mm/h\"", "unit = \"m/s\""),
    ]);
    (SCENARIO.replace(from, to), format!("{from} -> {to}"))
}

pub fn case(c: &mut Case) {
    let mut files = vec![
        ("q.csv", Q.as_bytes().to_vec()),
        ("stage.csv", STAGE.as_bytes().to_vec()),
        ("rain.csv", RAIN.as_bytes().to_vec()),
    ];
    let mut scenario_text = SCENARIO.to_string();
    for _ in 0..1 + c.rng.below(2) {
        if c.rng.percent(15) {
            let (text, what) = mutate_keys(&mut c.rng);
            scenario_text = text;
            c.note(what);
        } else {
            let f = c.rng.below(files.len());
            let text = String::from_utf8_lossy(&files[f].1).into_owned();
            let (bytes, what) = mutate(&mut c.rng, &text);
            c.note(format!("{}: {what}", files[f].0));
            files[f].1 = bytes;
        }
    }
    for (name, bytes) in &files {
        c.write(name, bytes);
    }
    let scenario = c.write("series.toml", scenario_text.as_bytes());
    let names = vec![arg(&c.dir), "`".into(), "/dev/null".into()];
    let o = c.quadflood(&["check".into(), arg(&scenario)], &Limits::quick());
    c.judge(&o, &names);
    if o.code == Some(0) && c.rng.percent(if c.long { 20 } else { 6 }) {
        let out = c.dir.join("out");
        let o = c.quadflood(
            &["run", &arg(&scenario), "--out", &arg(&out), "--quiet"].map(String::from),
            &Limits::gpu(),
        );
        c.judge(&o, &names);
        if o.code == Some(0) {
            c.expect_sound(&out, &Bound::unbounded());
        }
        c.expect_whole(&out, false);
    }
}

/// Seed 12345 once drew a CSV change after an earlier one had left the file without a data
/// row, and `mutate` panicked choosing a row. Every change must work on any text.
#[test]
fn a_csv_without_data_rows_can_still_be_changed() {
    for k in 0..200 {
        let mut rng = Rng::new(12345, "series_csv", k);
        for text in ["", "time,value\n", "time,value\n0,1\n"] {
            let (_, what) = mutate(&mut rng, text);
            assert!(!what.is_empty(), "a change must say what it changed");
        }
    }
}
