//! The names of a run's files: one file per output, whatever the output times and gauge
//! names, and short where that is enough; and which names in an output folder are a run's
//! own (so that an earlier run's files are cleared away, never taken for this run's).

use std::collections::HashSet;

/// Labels output times in file names: seconds, zero-padded to seven digits before the
/// point so that files sort in time, with as many decimals as tell the run's times apart
/// (one where tenths are enough: `0000600.0s`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeLabels {
    pub decimals: usize,
}

/// Decimals tried before giving up on a fixed count (times closer than 1e-12 s).
const MOST_DECIMALS: usize = 12;

impl TimeLabels {
    /// The fewest decimals (at least `at_least`, at least one) that give every time in
    /// `times` a label of its own.
    pub fn for_times(times: &[f64], at_least: usize) -> TimeLabels {
        let decimals = (at_least.max(1)..=MOST_DECIMALS)
            .find(|&d| {
                let mut seen = HashSet::new();
                times.iter().all(|&t| seen.insert(label(t, d)))
            })
            .unwrap_or(MOST_DECIMALS + 1);
        TimeLabels { decimals }
    }

    pub fn label(&self, t: f64) -> String {
        match self.decimals {
            d if d <= MOST_DECIMALS => label(t, d),
            // Times closer than any fixed count tells apart: the shortest text that reads
            // back to the same f64 tells any two apart.
            _ => format!("{t:?}s"),
        }
    }

    /// A label for `t` that no time in `others` has (a checkpoint taken between output
    /// times when a signal stopped the run): more decimals where this count gives a clash.
    pub fn label_apart(&self, t: f64, others: &[f64]) -> String {
        let mut all = others.to_vec();
        all.retain(|&o| o != t);
        all.push(t);
        TimeLabels::for_times(&all, self.decimals).label(t)
    }
}

fn label(t: f64, decimals: usize) -> String {
    format!("{t:0width$.decimals$}s", width = 8 + decimals)
}

/// Longest part of a file name taken from a gauge's or section's own name.
const MOST_NAME_CHARS: usize = 80;

/// A name as a file name keeps it: ASCII letters, digits, `-` and `_`; anything else
/// becomes `_`.
pub fn safe_name(name: &str) -> String {
    name.chars()
        .take(MOST_NAME_CHARS)
        .map(
            |c| match c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                true => c,
                false => '_',
            },
        )
        .collect()
}

/// A file stem for each of `names` (gauges or sections), no two alike even where the file
/// system ignores case: a name's safe form where no other name shares it, else the safe
/// form and `-k` with the smallest k that clashes with nothing.
pub fn distinct_stems(names: &[String]) -> Vec<String> {
    let safe: Vec<String> = names.iter().map(|n| safe_name(n)).collect();
    let folded: Vec<String> = safe.iter().map(|s| s.to_lowercase()).collect();
    let mut count = std::collections::HashMap::new();
    for f in &folded {
        *count.entry(f.as_str()).or_insert(0) += 1;
    }
    let mut taken: HashSet<String> = folded.iter().cloned().collect();
    safe.iter()
        .zip(&folded)
        .map(|(s, f)| {
            if count[f.as_str()] == 1 {
                return s.clone();
            }
            let stem = (1..)
                .map(|k| format!("{s}-{k}"))
                .find(|c| !taken.contains(&c.to_lowercase()))
                .expect("a free suffix");
            taken.insert(stem.to_lowercase());
            stem
        })
        .collect()
}

/// The scenario as the run resolved it, and the run's log (`run::record_inputs`), with
/// how each begins: names a user's own files may have too (`--out .` beside a scenario,
/// a batch job's log), so a file of that name is the run's only if it begins so.
pub const RESOLVED_SCENARIO: &str = "resolved_scenario.toml";
pub const RUN_LOG: &str = "run.log";
pub const RESOLVED_SCENARIO_START: &str = "# The scenario as this run resolved it";
pub const RUN_LOG_START: &str = "quadflood ";

/// Map names written at output times (`{name}_{label}.{ext}`).
const TIMED_MAPS: [&str; 7] = [
    "depth_",
    "velocity_",
    "level_",
    "speed_",
    "u_",
    "v_",
    "diagnostic_last_good_",
];
/// Map names of the whole run (`{name}.{ext}`).
const RUN_MAPS: [&str; 10] = [
    "max_depth",
    "max_level",
    "max_hazard_arr",
    "max_hazard_uk",
    "max_hazard_uk_class",
    "inundation_duration",
    "max_speed",
    "max_hazard",
    "time_of_max_depth",
    "arrival_time",
];
/// (`prj`: the CRS beside an ESRI ASCII map.)
const MAP_EXTENSIONS: [&str; 4] = ["tif", "asc", "png", "prj"];

/// Whether `name` is one a run writes into its output folder (or one of their temporary
/// names): the files a new run clears away before it starts. Anything else in the folder
/// is left alone.
pub fn is_run_file(name: &str) -> bool {
    if let Some(inner) = name
        .strip_prefix('.')
        .and_then(|n| n.strip_suffix(super::durable::TEMPORARY_SUFFIX))
    {
        return is_run_file(inner);
    }
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return false;
    };
    match ext {
        "csv" => {
            stem == "mass_balance" || stem.starts_with("gauge_") || stem.starts_with("section_")
        }
        "qfck" => stem.strip_prefix("checkpoint_").is_some_and(is_time_label),
        "json" => stem == "summary",
        "toml" => name == RESOLVED_SCENARIO,
        "log" => name == RUN_LOG,
        "nc" => stem == "event",
        "gif" => stem == "flood",
        "png" if stem.starts_with("partition_step_") => true,
        e if MAP_EXTENSIONS.contains(&e) => {
            RUN_MAPS.contains(&stem)
                || TIMED_MAPS
                    .iter()
                    .any(|m| stem.strip_prefix(m).is_some_and(is_time_label))
        }
        _ => false,
    }
}

/// `0000010.0s`, `0000010.01s`, `1e-13s`...: a number and `s`.
fn is_time_label(text: &str) -> bool {
    text.strip_suffix('s')
        .is_some_and(|n| n.parse::<f64>().is_ok_and(f64::is_finite))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_as_short_as_keeps_them_apart() {
        let tenths = TimeLabels::for_times(&[0.0, 600.0, 600.1], 0);
        assert_eq!(tenths.label(600.0), "0000600.0s");
        let close = TimeLabels::for_times(&[10.0, 10.01, 10.02], 0);
        assert_eq!(
            [close.label(10.01), close.label(10.02)],
            ["0000010.01s", "0000010.02s"]
        );
        // Alike at one decimal, apart at two.
        assert_eq!(TimeLabels::for_times(&[0.21, 0.24], 0).decimals, 2);
        let tiny = TimeLabels::for_times(&[1.0, 1.0 + 1e-14], 0);
        assert_ne!(tiny.label(1.0), tiny.label(1.0 + 1e-14));
        // A checkpoint between output times gets a label of its own.
        let at = tenths.label_apart(29.98, &[10.0, 20.0, 30.0]);
        assert_eq!(at, "0000029.98s");
        assert_eq!(tenths.label_apart(25.0, &[10.0, 30.0]), "0000025.0s");
    }

    #[test]
    fn stems_are_distinct_whatever_the_names() {
        let names: Vec<String> = ["a b", "a_b", "A_B", "a_b-1", "plain", "x/y"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let stems = distinct_stems(&names);
        assert_eq!(stems, ["a_b-2", "a_b-3", "A_B-4", "a_b-1", "plain", "x_y"]);
        let long = vec!["n".repeat(500), "n".repeat(400)];
        let stems = distinct_stems(&long);
        assert_ne!(stems[0], stems[1]);
        assert!(stems[0].len() <= MOST_NAME_CHARS + 3);
    }

    #[test]
    fn a_runs_own_files_are_told_from_others() {
        for ours in [
            "depth_0000010.0s.tif",
            "depth_0000010.01s.png",
            "u_0000600.0s.asc",
            "max_depth.tif",
            "arrival_time.asc",
            "gauge_a_b-2.csv",
            "section_x.csv",
            "mass_balance.csv",
            "checkpoint_0000016.0s.qfck",
            "summary.json",
            "flood.gif",
            "partition_step_00000012.png",
            ".depth_0000010.0s.tif.tmp",
            ".summary.json.tmp",
            "diagnostic_last_good_0000010.0s.asc",
            "run.log",
            "resolved_scenario.toml",
            "event.nc",
            "max_hazard_arr.tif",
            "velocity_0000010.0s.tif",
        ] {
            assert!(is_run_file(ours), "{ours}");
        }
        for theirs in [
            "scenario.toml",
            "dem.tif",
            "depth_notes.tif",
            "u_turn.asc",
            "checkpoint_final.qfck",
            "notes.json",
            "slurm.log",
            "rain.nc",
            ".hidden.tmp",
            "README",
        ] {
            assert!(!is_run_file(theirs), "{theirs}");
        }
    }
}
