//! Messages to the terminal that cannot fail a run. A batch job's stderr and stdout are
//! often files on the disk the run writes to; when it is full, `eprintln!` and `println!`
//! panic, which would turn a run's clean failure (exit code 1) or even its success into a
//! panic (exit code 101). A message that cannot be written is dropped instead: the exit
//! code still tells what happened.
//!
//! Every message also goes to the run's `run.log` once the run has opened it
//! (`open_log`); what was said before, while the scenario loaded, is kept until then.

use std::fmt::Arguments;
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

/// One line to stderr, in one write (lines from several ranks or threads stay whole).
pub fn line_to_stderr(args: Arguments) {
    let text = format!("{args}\n");
    let _ = std::io::stderr().write_all(text.as_bytes());
    to_log(&text);
}

/// Text to stderr as it is (a table that ends its own lines).
pub fn text_to_stderr(args: Arguments) {
    let text = format!("{args}");
    let _ = std::io::stderr().write_all(text.as_bytes());
    to_log(&text);
}

/// One line to stdout.
pub fn line_to_stdout(args: Arguments) {
    let text = format!("{args}\n");
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    to_log(&text);
}

/// Where messages go besides the terminal: kept in memory until a run opens its log
/// (at most `EARLY_BYTES`: a process that never opens one keeps no more), then the file.
enum LogSink {
    Early(String),
    File(File),
}

const EARLY_BYTES: usize = 64 << 10;

static LOG: Mutex<LogSink> = Mutex::new(LogSink::Early(String::new()));

fn to_log(text: &str) {
    let mut sink = LOG.lock().unwrap_or_else(|p| p.into_inner());
    match &mut *sink {
        LogSink::Early(kept) if kept.len() + text.len() <= EARLY_BYTES => kept.push_str(text),
        LogSink::Early(_) => {}
        // Written through at once: a run killed mid-way leaves its log up to that line.
        LogSink::File(f) => {
            let _ = f.write_all(text.as_bytes());
        }
    }
}

/// Opens the run's log at `path` (appending: a restart continues its run's log), writes
/// `header` and what was said so far, and sends every later message there too.
pub fn open_log(path: &Path, header: &str) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    let mut sink = LOG.lock().unwrap_or_else(|p| p.into_inner());
    let early = match &mut *sink {
        LogSink::Early(kept) => std::mem::take(kept),
        LogSink::File(_) => String::new(),
    };
    file.write_all(format!("{header}{early}").as_bytes())?;
    *sink = LogSink::File(file);
    Ok(())
}

/// `eprintln!` that never panics (`console::line_to_stderr`).
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::console::line_to_stderr(format_args!($($arg)*))
    };
}

/// `println!` that never panics (`console::line_to_stdout`).
#[macro_export]
macro_rules! tell {
    ($($arg:tt)*) => {
        $crate::console::line_to_stdout(format_args!($($arg)*))
    };
}
