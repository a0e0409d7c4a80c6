//! Errors and the exit codes they map to.
//!
//! Bad input (a scenario, raster or series the user wrote) is an [`InputError`] and exits
//! with code 2; a missing GPU exits with 3; a run that went unstable or lost its mass
//! balance with 4; a run stopped by a signal with 128 + its number, as a shell reports one
//! it killed; anything else with 1.

use std::fmt;
use std::path::{Path, PathBuf};

/// A problem with something the user gave us: it names the file, the key (or line) and what
/// was expected, so the user can fix it without reading our source.
#[derive(Debug, Clone, PartialEq)]
pub struct InputError {
    pub file: Option<PathBuf>,
    pub key: Option<String>,
    pub message: String,
}

impl InputError {
    pub fn new(message: impl Into<String>) -> Self {
        InputError {
            file: None,
            key: None,
            message: message.into(),
        }
    }
    pub fn in_file(mut self, file: impl AsRef<Path>) -> Self {
        self.file = Some(file.as_ref().to_path_buf());
        self
    }
    pub fn at_key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }
    /// Names `key` where the error names none yet: a file's reader knows the file, and
    /// the scenario the key that named it.
    pub fn or_key(mut self, key: impl Into<String>) -> Self {
        if self.key.is_none() {
            self.key = Some(key.into());
        }
        self
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{}: ", file.display())?;
        }
        if let Some(key) = &self.key {
            write!(f, "`{key}`: ")?;
        }
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for InputError {}

/// Every failure quadflood reports, with its exit code.
#[derive(Debug)]
pub enum Error {
    Input(InputError),
    NoAdapter(String),
    Gpu(String),
    Io(String),
    /// NaN or infinity appeared in a block (local index) by time t; see `run` for the report.
    Unstable {
        t: f64,
        block: u32,
    },
    /// The same, reported with the place and what was written.
    Diverged(String),
    /// The stored water no longer matches the water that came in and went out.
    MassBalance(String),
    /// A signal (SIGTERM, SIGINT) asked the run to stop, and it stopped cleanly: the
    /// message says where and how to go on.
    Stopped {
        signal: i32,
        message: String,
    },
}

impl Error {
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Input(_) => 2,
            Error::NoAdapter(_) => 3,
            Error::Gpu(_) | Error::Io(_) => 1,
            Error::Unstable { .. } | Error::Diverged(_) | Error::MassBalance(_) => 4,
            Error::Stopped { signal, .. } => 128 + signal,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Input(e) => write!(f, "input error: {e}"),
            Error::NoAdapter(m) => write!(f, "no GPU adapter: {m}"),
            Error::Gpu(m) => write!(f, "GPU error: {m}"),
            Error::Io(m) => write!(f, "I/O error: {m}"),
            Error::Unstable { t, block } => {
                write!(
                    f,
                    "the run went unstable by t = {t:.3} s: NaN or infinity in block {block}"
                )
            }
            Error::Diverged(m) => write!(f, "the run went unstable: {m}"),
            Error::MassBalance(m) => write!(f, "the run cannot vouch for its results: {m}"),
            Error::Stopped { signal, message } => {
                write!(
                    f,
                    "stopped by {}: {message}",
                    crate::interrupt::name(*signal)
                )
            }
        }
    }
}

impl std::error::Error for Error {}

impl From<InputError> for Error {
    fn from(e: InputError) -> Self {
        Error::Input(e)
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e.to_string())
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
