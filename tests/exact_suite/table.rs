//! The suite's results table: every case prints its measurements (run with
//! `--nocapture` to see them) and, with `QUADFLOOD_VALIDATION_DOC=1`, writes its row into
//! the table of `docs/validation.md` (between the `exact-suite` markers), replacing the
//! row of the same case and keeping the others. Rows are recorded before the case's
//! assertions run, so a failing case still reports what it measured.

use std::sync::Mutex;

/// The cases in the order the docs list them.
pub const ORDER: &[&str] = &[
    "macdonald-subcritical",
    "macdonald-supercritical",
    "macdonald-transcritical",
    "macdonald-jump",
    "bump-subcritical",
    "bump-transcritical",
    "bump-shock",
    "ritter-thin",
    "step-up",
    "step-down",
    "thacker-planar",
    "thacker-radial",
    "stage-dry-flat",
    "stage-dry-manning",
    "inflow-dry-flat",
];

const BEGIN: &str =
    "<!-- exact-suite: begin (QUADFLOOD_VALIDATION_DOC=1 cargo test --test exact_suite -- --include-ignored) -->";
const END: &str = "<!-- exact-suite: end -->";
/// docs/validation.md: every measure.
const FULL_HEADER: &str = "| case | grids (cells along x) | L1 depth error (finest) | order | L1 discharge error (finest) | order | mass error (worst) | other measures | targets |\n|---|---|---|---|---|---|---|---|---|";

/// What one case measured on its grids, finest last.
pub struct Row {
    pub case: &'static str,
    pub grids: Vec<usize>,
    /// Relative L1 errors per grid.
    pub depth_l1: Vec<f64>,
    pub discharge_l1: Vec<f64>,
    /// Relative mass error per grid.
    pub mass: Vec<f64>,
    /// Other measures, as text ("jump spike 31%").
    pub notes: String,
}

impl Row {
    fn orders(errors: &[f64]) -> String {
        let o = crate::harness::orders(errors);
        if o.is_empty() || o.iter().any(|v| !v.is_finite()) {
            return "–".into();
        }
        o.iter()
            .map(|v| format!("{v:.2}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn markdown(&self, failures: &[String]) -> String {
        let grids = self
            .grids
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(" / ");
        let last = |v: &[f64]| match v.last() {
            Some(e) if e.is_finite() => format!("{e:.2e}"),
            _ => "–".into(),
        };
        let worst_mass = self.mass.iter().fold(0.0f64, |a, &b| a.max(b));
        let verdict = if failures.is_empty() {
            "met".to_string()
        } else {
            format!("**not met**: {}", failures.join("; "))
        };
        format!(
            "| `{}` | {grids} | {} | {} | {} | {} | {worst_mass:.1e} | {} | {verdict} |",
            self.case,
            last(&self.depth_l1),
            Row::orders(&self.depth_l1),
            last(&self.discharge_l1),
            Row::orders(&self.discharge_l1),
            self.notes,
        )
    }

    fn print(&self) {
        println!("{}: cells, L1 depth, L1 discharge, mass", self.case);
        for k in 0..self.grids.len() {
            println!(
                "  {:6}  {:.3e}  {:.3e}  {:.1e}",
                self.grids[k], self.depth_l1[k], self.discharge_l1[k], self.mass[k]
            );
        }
        println!(
            "  orders: depth {}, discharge {}",
            Row::orders(&self.depth_l1),
            Row::orders(&self.discharge_l1)
        );
        if !self.notes.is_empty() {
            println!("  {}", self.notes);
        }
    }
}

/// Targets a case checks; each failure is kept with the measured value, so that one run
/// lists every target missed.
#[derive(Default)]
pub struct Checks {
    failures: Vec<String>,
}

impl Checks {
    /// Requires `value ≤ bound`.
    pub fn at_most(&mut self, what: &str, value: f64, bound: f64) {
        // NaN fails too.
        if value.is_nan() || value > bound {
            self.failures
                .push(format!("{what} {value:.3e} > {bound:.1e}"));
        }
    }

    /// Requires `value ≥ bound`.
    pub fn at_least(&mut self, what: &str, value: f64, bound: f64) {
        if value.is_nan() || value < bound {
            self.failures.push(format!("{what} {value:.3} < {bound}"));
        }
    }

    /// Requires the order between the two finest grids to be at least `bound`, or the
    /// finest grid's relative error to lie within f32 round-off (`ROUND_OFF`), where there
    /// is no order left to measure: a steady flow's discharge, as its faces pass it, is
    /// exact to a few ulps on every grid.
    pub fn order(&mut self, what: &str, errors: &[f64], bound: f64) {
        if errors.last().is_some_and(|&e| e <= ROUND_OFF) {
            return;
        }
        if let Some(&o) = crate::harness::orders(errors).last() {
            self.at_least(&format!("{what} order"), o, bound);
        }
    }
}

/// A relative L1 error of 64 f32 ulps (2^-24 each).
pub const ROUND_OFF: f64 = 64.0 / 16_777_216.0;

static DOC: Mutex<()> = Mutex::new(());

/// Prints the row, writes it into the docs when asked, then fails the test if any
/// target was missed.
pub fn report(row: Row, checks: Checks) {
    row.print();
    let line = row.markdown(&checks.failures);
    println!("{line}");
    if std::env::var_os("QUADFLOOD_VALIDATION_DOC").is_some() {
        let _guard = DOC.lock().unwrap_or_else(|e| e.into_inner());
        write_row("docs/validation.md", FULL_HEADER, row.case, &line);
    }
    assert!(
        checks.failures.is_empty(),
        "{}: {}",
        row.case,
        checks.failures.join("; ")
    );
}

/// Replaces (or adds) the row of `case` in the table between the markers of the file at
/// `path` (relative to the repository), keeping the other rows in [`ORDER`].
fn write_row(path: &str, header: &str, case: &str, line: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let (Some(b), Some(e)) = (text.find(BEGIN), text.find(END)) else {
        panic!("{} has no exact-suite markers", path.display());
    };
    let (head, body, tail) = (
        &text[..b],
        &text[b + BEGIN.len()..e],
        &text[e + END.len()..],
    );
    let key = |l: &str| l.split('`').nth(1).map(str::to_string);
    let mut rows: Vec<(String, String)> = body
        .lines()
        .filter(|l| l.starts_with("| `"))
        .filter_map(|l| Some((key(l)?, l.to_string())))
        .filter(|(k, _)| k != case)
        .collect();
    rows.push((case.to_string(), line.to_string()));
    let rank = |k: &str| ORDER.iter().position(|c| *c == k).unwrap_or(ORDER.len());
    rows.sort_by_key(|(k, _)| rank(k));
    let table: Vec<String> = rows.into_iter().map(|(_, l)| l).collect();
    let out = format!("{head}{BEGIN}\n{header}\n{}\n{END}{tail}", table.join("\n"));
    let tmp = path.with_extension("md.tmp");
    std::fs::write(&tmp, out).expect("writing the table");
    std::fs::rename(&tmp, &path).expect("renaming the table into place");
}

#[cfg(test)]
mod round_off {
    #[test]
    fn an_order_is_asked_of_errors_above_round_off_only() {
        let mut checks = super::Checks::default();
        checks.order("flat", &[4e-6, 3.5e-6, 3.0e-6], 1.8);
        assert!(checks.failures.is_empty(), "{:?}", checks.failures);
        checks.order("slow", &[4e-4, 3.5e-4, 3.0e-4], 1.8);
        assert_eq!(checks.failures.len(), 1, "{:?}", checks.failures);
    }
}
