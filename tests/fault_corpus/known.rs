//! Defects the corpus found whose fix belongs to the kernels, each with the focused test
//! that fails (ignored) until it is fixed. A case's failure that one of them explains is
//! counted as known, not failed, and listed after the table. Remove the entry with the fix:
//! from then on the corpus holds the fix to it.

use super::case::Case;

pub struct Known {
    pub name: &'static str,
    pub test: &'static str,
    /// Whether the failure (one line of a case's failures) is this defect's doing.
    pub explains: fn(&Case, &str) -> bool,
}

pub const KNOWN: &[Known] = &[Known {
    name: "the kernels read series at f32 times: late in a run, inflows, sources and rain do not enter as their integral",
    test: "tests/forcing_on_dry_land.rs, a_hydrograph_late_in_a_long_run_enters_as_its_integral",
    // f32 times are 0.06 ms apart at 1000 s, 7.8 ms at a day.
    explains: |case, failure| {
        case.clock > 1000.0
            && (failure.starts_with("mass_inflow_m3") || failure.starts_with("mass_rain_m3"))
    },
}];

/// The known defect that explains `failure`, if one does.
pub fn explained(case: &Case, failure: &str) -> Option<&'static Known> {
    KNOWN.iter().find(|k| (k.explains)(case, failure))
}
