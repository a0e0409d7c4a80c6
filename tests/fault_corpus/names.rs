//! Colliding names: gauges and cross-sections named alike but for case, punctuation,
//! spaces, control characters, path separators, characters a file name cannot keep, or a
//! tail past the 80 characters a file name keeps (or named exactly alike); output times a
//! tenth to a billionth of a second apart, some on a clock past 10^7 s. Every gauge, section
//! and output time must get a file of its own, each saying whose it is, and summary.json
//! must say which file holds which gauge.

use super::case::{arg, Case};
use super::proc::Limits;
use super::verdict::{label_time, Bound};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

fn pool() -> Vec<String> {
    let long = "l".repeat(85);
    let mut names: Vec<String> = [
        "a b",
        "a_b",
        "A_B",
        "a/b",
        "a\\b",
        "a.b",
        "ä",
        "å",
        "a\nb",
        "a\tb",
        "a\rb",
        " ",
        ".",
        "..",
        "-",
        "-1",
        "x",
        "x-1",
        "x-2",
        "X",
        "CON",
        "mass_balance",
        "../../up",
        "😀",
        "a,b",
        "a\"b",
        "gauge_x",
        "x.csv",
        "#",
        "a\u{2028}b",
    ]
    .map(String::from)
    .to_vec();
    names.extend([format!("{long}1"), format!("{long}2"), format!("{long}1 ")]);
    names
}

/// As the series files write a name on their first line (control characters as spaces).
fn one_line(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// Output times: groups of times a tenth to a billionth of a second apart, as an f64
/// clock at `start` can still tell apart.
fn times(c: &mut Case, start: f64, end: f64) -> Vec<f64> {
    let mut t = Vec::new();
    for _ in 0..1 + c.rng.below(3) {
        let mut at = start + c.rng.float(0.05, 0.9) * (end - start);
        for _ in 0..1 + c.rng.below(3) {
            t.push(at);
            at += *c.rng.pick(&[0.1, 0.05, 0.01, 1e-3, 1e-4, 1e-6, 1e-9]);
        }
    }
    t.sort_by(f64::total_cmp);
    t.dedup();
    t.retain(|&x| x > start && x < end);
    t
}

/// The first line of each file whose name starts with `prefix`, and the names.
fn first_lines(out: &Path, prefix: &str) -> BTreeMap<String, String> {
    std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(prefix))
        .map(|n| {
            let text = std::fs::read_to_string(out.join(&n)).unwrap_or_default();
            let first = text.lines().next().unwrap_or_default().to_string();
            (n, first)
        })
        .collect()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

pub fn case(c: &mut Case) {
    let pool = pool();
    let start = *c
        .rng
        .pick(&[0.0, 0.0, 123_456.789, 9_999_999.25, 1e7 + 0.5, 3e8]);
    let end = start + 1.0;
    let output_times = times(c, start, end);
    let mut toml = format!(
        "[domain]\ncell_size = 1.0\nnx = 16\nny = 16\n\n[terrain]\ntype = \"flat\"\n\n[initial]\ndepth = 0.1\n\n[time]\nstart = {start:?}\nend = {end:?}\noutput_times = {:?}\ngauge_interval = 0.25\n\n[output]\nformat = \"{}\"\npng = false\nmaxima = false\n\n",
        output_times.iter().copied().chain([end]).collect::<Vec<f64>>(),
        if c.rng.percent(30) { "geotiff" } else { "ascii" }
    );
    let mut gauges = Vec::new();
    for _ in 0..2 + c.rng.below(6) {
        let name = c.rng.pick(&pool).clone();
        let (x, y) = (c.rng.int(0, 15) as f64 + 0.5, c.rng.int(0, 15) as f64 + 0.5);
        writeln!(
            toml,
            "[[gauge]]\nname = {}\nx = {x:?}\ny = {y:?}\n",
            toml_string(&name)
        )
        .unwrap();
        gauges.push((name, x, y));
    }
    let mut sections = Vec::new();
    for _ in 0..c.rng.below(4) {
        let name = c.rng.pick(&pool).clone();
        let x = c.rng.int(1, 15) as f64;
        writeln!(
            toml,
            "[[cross_section]]\nname = {}\nline = [[{x:?}, 0.5], [{x:?}, 15.5]]\n",
            toml_string(&name)
        )
        .unwrap();
        sections.push(name);
    }
    let end_text = output_times.len() + 1;
    c.note(format!(
        "gauges {:?}; sections {:?}; {end_text} output times from {start} s: {output_times:?}",
        gauges.iter().map(|g| &g.0).collect::<Vec<_>>(),
        sections
    ));
    let scenario = c.write("names.toml", toml.as_bytes());
    let out = c.dir.join("out");
    let o = c.quadflood(
        &["run", &arg(&scenario), "--out", &arg(&out), "--quiet"].map(String::from),
        &Limits::gpu(),
    );
    c.judge(&o, &[arg(&scenario)]);
    if o.code != Some(0) {
        return c.fail("the run did not end with exit code 0");
    }
    let bound = Bound {
        head: Some(0.1),
        finest_area: 1.0,
        ..Bound::default()
    };
    c.expect_sound(&out, &bound);
    c.expect_whole(&out, false);
    check_series(c, &out, &gauges, &sections);
    check_maps(c, &out, &output_times, end);
    check_summary(c, &out, &gauges);
}

fn check_series(c: &mut Case, out: &Path, gauges: &[(String, f64, f64)], sections: &[String]) {
    let found = first_lines(out, "gauge_");
    let expected: Vec<String> = gauges
        .iter()
        .map(|(n, x, y)| format!("# gauge {} at x = {x} m, y = {y} m", one_line(n)))
        .collect();
    if sorted(found.values().cloned().collect()) != sorted(expected) {
        c.fail(format!("gauge files and what they hold: {found:?}"));
    }
    let found = first_lines(out, "section_");
    let expected: Vec<String> = sections
        .iter()
        .map(|n| {
            format!(
                "# cross-section {}: discharge positive to the left of the line's direction",
                one_line(n)
            )
        })
        .collect();
    if sorted(found.values().cloned().collect()) != sorted(expected) {
        c.fail(format!("section files and what they hold: {found:?}"));
    }
    let mut folded: Vec<String> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_lowercase())
        .collect();
    let all = folded.len();
    folded.sort();
    folded.dedup();
    if folded.len() != all {
        c.fail("two files whose names differ only in case");
    }
}

/// One depth map per output time, and its name tells which.
fn check_maps(c: &mut Case, out: &Path, times: &[f64], end: f64) {
    let labels: Vec<(f64, String)> = first_lines(out, "depth_")
        .into_keys()
        .filter_map(|n| label_time(&n, "depth_").map(|t| (t, n)))
        .collect();
    let times: Vec<f64> = times.iter().copied().chain([end]).collect();
    if labels.len() != times.len() {
        return c.fail(format!(
            "{} depth maps for {} output times: {:?}",
            labels.len(),
            times.len(),
            labels.iter().map(|l| &l.1).collect::<Vec<_>>()
        ));
    }
    // Each time's nearest label is its own.
    let mut nearest: Vec<usize> = times
        .iter()
        .map(|&t| {
            (0..labels.len())
                .min_by(|&a, &b| (labels[a].0 - t).abs().total_cmp(&(labels[b].0 - t).abs()))
                .unwrap()
        })
        .collect();
    nearest.sort();
    nearest.dedup();
    if nearest.len() != times.len() {
        c.fail(format!(
            "the map names do not tell the output times apart: {:?}",
            labels.iter().map(|l| &l.1).collect::<Vec<_>>()
        ));
    }
}

/// summary.json names each gauge's file.
fn check_summary(c: &mut Case, out: &Path, gauges: &[(String, f64, f64)]) {
    let Ok(text) = std::fs::read(out.join("summary.json")) else {
        return;
    };
    let summary: serde_json::Value = serde_json::from_slice(&text).unwrap_or_default();
    let files = &summary["gauge_files"];
    for (name, x, y) in gauges {
        let twin = gauges.iter().filter(|g| &g.0 == name).count() > 1;
        let Some(file) = files[name.as_str()].as_str() else {
            c.fail(format!("summary.json names no file for gauge {name:?}"));
            continue;
        };
        let first = first_lines(out, file).remove(file).unwrap_or_default();
        if !twin && first != format!("# gauge {} at x = {x} m, y = {y} m", one_line(name)) {
            c.fail(format!(
                "summary.json gives gauge {name:?} the file {file}, which holds {first:?}"
            ));
        }
    }
}
