//! Scenarios: the TOML file a user writes (`spec`), how it becomes fields on the grid
//! (`build`, `fields`, `series`), and the resulting [`model::Model`] the solver runs.

pub mod build;
pub mod fields;
pub mod model;
pub mod refine;
pub mod series;
pub mod spec;

use crate::error::InputError;
use std::path::Path;

/// Reads, checks and builds a scenario file. Errors name this file unless they concern
/// another one (a raster, a CSV series).
pub fn load(path: &Path) -> Result<model::Model, InputError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| InputError::new(format!("cannot read the scenario: {e}")).in_file(path))?;
    let spec: spec::Spec =
        toml::from_str(&text).map_err(|e| InputError::new(e.to_string()).in_file(path))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    build::build(&spec, dir).map_err(|e| if e.file.is_none() { e.in_file(path) } else { e })
}

/// Parses scenario text directly (tests and tools), resolving paths against `dir`.
pub fn from_str(text: &str, dir: &Path) -> Result<model::Model, InputError> {
    let spec: spec::Spec = toml::from_str(text).map_err(|e| InputError::new(e.to_string()))?;
    build::build(&spec, dir)
}
