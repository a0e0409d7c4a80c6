//! Scenarios: the TOML file a user writes (`spec`), how it becomes fields on the grid
//! (`build`, `fields`, `series`), and the resulting [`model::Model`] the solver runs.

pub(crate) mod boundaries;
pub mod build;
pub mod digest;
pub mod drainage;
pub mod fields;
pub(crate) mod forcing;
pub mod forcing_limits;
pub(crate) mod frame;
pub mod limits;
pub mod losses;
pub mod maxima;
pub mod model;
mod nodata;
pub(crate) mod observations;
pub mod outflow;
pub mod polygon;
pub mod reference;
pub mod refine;
pub(crate) mod schedule;
mod segment_lines;
pub mod series;
pub(crate) mod settings;
pub mod spec;
pub mod structures;
pub(crate) mod terrain;
pub mod water;
pub mod weirs;

use crate::error::InputError;
use std::path::Path;

/// Reads, checks and builds a scenario file. Errors name this file unless they concern
/// another one (a raster, a CSV series).
pub fn load(path: &Path) -> Result<model::Model, InputError> {
    load_with(path, &[])
}

/// As [`load`], with `key.path=value` overrides applied over the file (`--set`), e.g.
/// `time.end=600` or `terrain.cell_size=40`; the value is TOML (a bare word is a string).
pub fn load_with(path: &Path, overrides: &[String]) -> Result<model::Model, InputError> {
    let text = crate::io::bounded::read_text(
        path,
        crate::io::bounded::MAX_SCENARIO_BYTES,
        "the most a scenario file may hold",
    )?;
    let in_file = |e: toml::de::Error| InputError::new(plain(&e.to_string())).in_file(path);
    let mut table: toml::Table = toml::from_str(&text).map_err(in_file)?;
    for o in overrides {
        apply_override(&mut table, o)?;
    }
    // Straight from the text when nothing is overridden, so errors keep their line numbers.
    let spec: spec::Spec = if overrides.is_empty() {
        toml::from_str(&text).map_err(in_file)?
    } else {
        toml::Value::Table(table.clone())
            .try_into()
            .map_err(|e: toml::de::Error| {
                InputError::new(from_override(&plain(&e.to_string()), overrides)).in_file(path)
            })?
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut model =
        build::build(&spec, dir).map_err(|e| if e.file.is_none() { e.in_file(path) } else { e })?;
    model.scenario_keys = digest::scenario_keys(&table);
    model.resolved_scenario = resolved_text(path, &text, &table, overrides)?;
    model.input_files = named_files(&table, dir);
    model
        .input_files
        .push(("the scenario file".into(), path.to_path_buf()));
    Ok(model)
}

/// Every string value of the scenario that names an existing file (relative to `dir`), with
/// its key's dotted path.
fn named_files(table: &toml::Table, dir: &Path) -> Vec<(String, std::path::PathBuf)> {
    fn walk(key: &str, v: &toml::Value, dir: &Path, out: &mut Vec<(String, std::path::PathBuf)>) {
        match v {
            toml::Value::String(s) if !s.is_empty() && dir.join(s).is_file() => {
                out.push((key.to_string(), dir.join(s)));
            }
            toml::Value::Table(t) => {
                for (k, v) in t {
                    walk(&format!("{key}.{k}"), v, dir, out);
                }
            }
            toml::Value::Array(a) => {
                for (i, v) in a.iter().enumerate() {
                    walk(&format!("{key}[{i}]"), v, dir, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (k, v) in table {
        walk(k, v, dir, &mut out);
    }
    out
}

/// A TOML reader's message in the scenario's words: "expected struct DomainSpec" (a Rust
/// type, for `--set domain=5`) becomes "expected a table".
fn plain(message: &str) -> String {
    let mut out = String::new();
    let mut rest = message;
    while let Some(k) = rest.find("struct ") {
        let (before, after) = rest.split_at(k);
        let name_end = after[7..]
            .find(|c: char| !c.is_alphanumeric())
            .map_or(after.len(), |e| 7 + e);
        out.push_str(before);
        if after[7..name_end].ends_with("Spec") {
            out.push_str("a table");
        } else {
            out.push_str(&after[..name_end]);
        }
        rest = &after[name_end..];
    }
    let out = out + rest;
    let number = "expected a number";
    let whole = "expected a whole number";
    [
        ("expected f64", number),
        ("expected f32", number),
        ("expected u64", whole),
        ("expected u32", whole),
        ("expected usize", whole),
        ("expected i64", whole),
        ("expected i32", whole),
        ("expected u8", whole),
        ("expected u16", whole),
        ("expected a sequence", "expected a list [...]"),
    ]
    .iter()
    .fold(out, |m, (rust, words)| m.replace(rust, words))
}

/// A reader's message about a key an override set, said of the override: "in `time.end`"
/// after `--set time.end=abc` is the override's fault, not the file's.
fn from_override(message: &str, overrides: &[String]) -> String {
    let key = message
        .rsplit_once("in `")
        .and_then(|(_, k)| k.split('`').next())
        .unwrap_or("");
    let set = overrides.iter().rev().find(|o| {
        let (path, _) = o.split_once('=').unwrap_or((o, ""));
        let path = path.trim();
        !key.is_empty() && (key == path || key.starts_with(&format!("{path}.")))
    });
    match set {
        Some(o) => format!("--set {o}: {}", message.trim_end()),
        None => message.to_string(),
    }
}

/// The scenario as resolved: the file as written (comments and all) when nothing is
/// overridden, else its keys with the overrides applied. Either way it says where the
/// file was, since its relative paths (rasters, CSVs) are relative to that folder.
fn resolved_text(
    path: &Path,
    text: &str,
    table: &toml::Table,
    overrides: &[String],
) -> Result<String, InputError> {
    let file = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let mut out = format!(
        "{}, from {}\n# (relative paths are relative to that file's folder)\n",
        crate::io::names::RESOLVED_SCENARIO_START,
        file.display()
    );
    if overrides.is_empty() {
        return Ok(out + text);
    }
    for o in overrides {
        out += &format!("# --set {o}\n");
    }
    let keys = toml::to_string(table).map_err(|e| {
        InputError::new(format!(
            "the scenario with its --set overrides cannot be written out as TOML: {e}"
        ))
        .in_file(path)
    })?;
    Ok(out + &keys)
}

fn apply_override(table: &mut toml::Table, o: &str) -> Result<(), InputError> {
    let fail = |m: &str| InputError::new(format!("--set {o:?}: {m}"));
    let (key, raw) = o
        .split_once('=')
        .ok_or_else(|| fail("expected key.path=value"))?;
    let value: toml::Value = toml::from_str::<toml::Table>(&format!("v = {raw}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.trim().to_string()));
    let parts: Vec<&str> = key.trim().split('.').collect();
    let (last, path) = parts.split_last().ok_or_else(|| fail("empty key"))?;
    let mut at = table;
    for p in path {
        at = at
            .entry(p.to_string())
            .or_insert_with(|| toml::Value::Table(Default::default()))
            .as_table_mut()
            .ok_or_else(|| fail(&format!("{p} is not a table")))?;
    }
    at.insert(last.to_string(), value);
    Ok(())
}

/// Parses scenario text directly (tests and tools), resolving paths against `dir`.
pub fn from_str(text: &str, dir: &Path) -> Result<model::Model, InputError> {
    let spec: spec::Spec = toml::from_str(text).map_err(|e| InputError::new(e.to_string()))?;
    let mut model = build::build(&spec, dir)?;
    if let Ok(table) = toml::from_str(text) {
        model.scenario_keys = digest::scenario_keys(&table);
    }
    Ok(model)
}

#[cfg(test)]
mod message_tests {
    use super::*;

    #[test]
    fn messages_speak_of_tables_numbers_and_overrides() {
        assert_eq!(
            plain("invalid type: string \"abc\", expected f64\nin `time.end`"),
            "invalid type: string \"abc\", expected a number\nin `time.end`"
        );
        assert_eq!(
            plain("invalid type: integer `5`, expected struct DomainSpec"),
            "invalid type: integer `5`, expected a table"
        );
        assert!(plain("expected u32").ends_with("a whole number"));
        let overrides = ["time.end=abc".to_string()];
        let m = from_override(
            "invalid type, expected a number\nin `time.end`\n",
            &overrides,
        );
        assert!(m.starts_with("--set time.end=abc: "), "{m}");
        let m = from_override("invalid type\nin `domain.nx`", &overrides);
        assert!(!m.contains("--set"), "{m}");
    }
}
