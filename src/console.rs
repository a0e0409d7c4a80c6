//! Messages to the terminal that cannot fail a run. A batch job's stderr and stdout are
//! often files on the disk the run writes to; when it is full, `eprintln!` and `println!`
//! panic, which would turn a run's clean failure (exit code 1) or even its success into a
//! panic (exit code 101). A message that cannot be written is dropped instead: the exit
//! code still tells what happened.

use std::fmt::Arguments;
use std::io::Write;

/// One line to stderr, in one write (lines from several ranks or threads stay whole).
pub fn line_to_stderr(args: Arguments) {
    let _ = std::io::stderr().write_all(format!("{args}\n").as_bytes());
}

/// Text to stderr as it is (a table that ends its own lines).
pub fn text_to_stderr(args: Arguments) {
    let _ = std::io::stderr().write_all(format!("{args}").as_bytes());
}

/// One line to stdout.
pub fn line_to_stdout(args: Arguments) {
    let mut out = std::io::stdout().lock();
    let _ = out
        .write_all(format!("{args}\n").as_bytes())
        .and_then(|()| out.flush());
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
