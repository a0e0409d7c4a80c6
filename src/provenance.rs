//! Where a run's results came from: the quadflood build, the command line and its `--set`
//! overrides, when and on which host the run started. `summary.json` and `run.log` carry
//! it, so that a map found months later can be traced to the binary and inputs that made
//! it.

use serde_json::json;
use std::time::SystemTime;

/// The package version and the git commit of the build (`-modified` when the source
/// differed from the commit; `unknown` outside a git checkout: see build.rs).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
pub const COMMIT: &str = env!("QUADFLOOD_GIT_COMMIT");

#[derive(Clone, Debug, PartialEq)]
pub struct Provenance {
    pub command_line: Vec<String>,
    pub overrides: Vec<String>,
    /// ISO 8601, UTC.
    pub started_utc: String,
    pub host: String,
}

impl Provenance {
    /// This process's: its arguments, now, this host.
    pub fn of_this_run(overrides: &[String]) -> Provenance {
        Provenance {
            // args() panics on an argument that is not UTF-8, which a path may be.
            command_line: std::env::args_os()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
            overrides: overrides.to_vec(),
            started_utc: utc_iso8601(SystemTime::now()),
            host: hostname(),
        }
    }

    pub fn json(&self) -> serde_json::Value {
        json!({
            "quadflood_version": VERSION,
            "git_commit": COMMIT,
            "command_line": self.command_line,
            "overrides": self.overrides,
            "started_utc": self.started_utc,
            "host": self.host,
        })
    }

    /// The lines that open `run.log`.
    pub fn log_header(&self) -> String {
        let overrides = match self.overrides.is_empty() {
            true => "none".to_string(),
            false => self.overrides.join(" "),
        };
        format!(
            "quadflood {VERSION} (commit {COMMIT})\nstarted {} on {}\ncommand: {}\noverrides (--set): {overrides}\n",
            self.started_utc,
            self.host,
            self.command_line.join(" "),
        )
    }
}

/// `2026-11-27T08:15:00Z`: whole seconds, UTC.
pub fn utc_iso8601(t: SystemTime) -> String {
    chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

#[cfg(unix)]
pub fn hostname() -> String {
    let mut name = [0u8; 256];
    match unsafe { libc::gethostname(name.as_mut_ptr().cast(), name.len()) } {
        0 => {
            let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
            String::from_utf8_lossy(&name[..end]).into_owned()
        }
        _ => "this host".into(),
    }
}

#[cfg(not(unix))]
pub fn hostname() -> String {
    "this host".into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    fn at(secs: u64) -> String {
        utc_iso8601(UNIX_EPOCH + Duration::from_secs(secs))
    }

    #[test]
    fn dates_are_utc_iso_8601() {
        assert_eq!(at(0), "1970-01-01T00:00:00Z");
        assert_eq!(at(86_399), "1970-01-01T23:59:59Z");
        // A leap day of a year divisible by 400, and the day after.
        assert_eq!(at(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(at(951_868_800), "2000-03-01T00:00:00Z");
        assert_eq!(at(1_700_000_000), "2023-11-14T22:13:20Z");
        // 2100 is not a leap year: 28 February is followed by 1 March.
        assert_eq!(at(4_107_456_000), "2100-02-28T00:00:00Z");
        assert_eq!(at(4_107_542_400), "2100-03-01T00:00:00Z");
        // Before 1970: rounded down to the whole second.
        assert_eq!(
            utc_iso8601(UNIX_EPOCH - Duration::from_millis(1500)),
            "1969-12-31T23:59:58Z"
        );
    }

    #[test]
    fn the_record_names_build_command_overrides_and_host() {
        let p = Provenance {
            command_line: vec!["quadflood".into(), "run".into(), "a.toml".into()],
            overrides: vec!["time.end=60".into()],
            started_utc: "2026-11-27T08:00:00Z".into(),
            host: "node7".into(),
        };
        let j = p.json();
        assert_eq!(j["quadflood_version"], VERSION);
        assert_eq!(j["git_commit"], COMMIT);
        assert!(!COMMIT.is_empty());
        assert_eq!(j["overrides"][0], "time.end=60");
        assert_eq!(j["host"], "node7");
        let header = p.log_header();
        assert!(header.contains("quadflood run a.toml"), "{header}");
        assert!(header.contains("time.end=60") && header.contains("node7"));
    }
}
