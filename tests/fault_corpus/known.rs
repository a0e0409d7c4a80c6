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

pub const KNOWN: &[Known] = &[];

/// The known defect that explains `failure`, if one does.
pub fn explained(case: &Case, failure: &str) -> Option<&'static Known> {
    KNOWN.iter().find(|k| (k.explains)(case, failure))
}
