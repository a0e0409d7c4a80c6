//! Running `quadflood` as a user does: its own process, with limits (a time limit, and
//! where asked a file-size limit standing in for a full disk and an address-space limit),
//! its output captured in files beside the case.

use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A `check`, or a run refused before it opens a GPU, takes about 0.2 s on a loaded
/// 2-core machine; the limit is over 50 times that.
pub const QUICK: Duration = Duration::from_secs(15);
/// A tiny run takes 2-6 s there (most of it building the GPU pipelines); the limit is
/// over 5 times the slowest seen with two cases at once.
pub const GPU: Duration = Duration::from_secs(90);
/// Address space allowed to a process that reads hostile files (KiB): an allocation a
/// size guard should have refused then fails visibly (abort) instead of exhausting the
/// machine. Lavapipe needs more than `check` does.
pub const MEMORY_KIB: u64 = 6 << 20;

#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub time: Duration,
    /// `ulimit -f` (KiB), with SIGXFSZ ignored so that writes fail with EFBIG as they
    /// would with ENOSPC.
    pub file_kib: Option<u64>,
    pub memory_kib: Option<u64>,
}

impl Limits {
    pub fn quick() -> Limits {
        Limits {
            time: QUICK,
            memory_kib: Some(MEMORY_KIB),
            ..Limits::default()
        }
    }
    pub fn gpu() -> Limits {
        Limits {
            time: GPU,
            memory_kib: Some(MEMORY_KIB),
            ..Limits::default()
        }
    }
}

/// How a process ended.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub args: Vec<String>,
    pub code: Option<i32>,
    pub signal: Option<i32>,
    pub timed_out: bool,
    pub stdout: String,
    pub stderr: String,
    pub wall: Duration,
}

impl Outcome {
    /// The column of the summary table it counts in.
    pub fn label(&self) -> String {
        match (self.timed_out, self.code, self.signal) {
            (true, _, _) => "hang".into(),
            (_, Some(c), _) => c.to_string(),
            (_, None, Some(9)) => "KILL".into(),
            (_, None, Some(s)) => format!("sig{s}"),
            _ => "?".into(),
        }
    }

    pub fn said(&self, text: &str) -> bool {
        self.stderr.contains(text)
    }

    pub fn describe(&self) -> String {
        format!(
            "quadflood {}\n    exit code {:?}, signal {:?}{}, {:.2?}\n    stdout: {}\n    stderr: {}",
            self.args.join(" "),
            self.code,
            self.signal,
            if self.timed_out { ", TIMED OUT" } else { "" },
            self.wall,
            self.stdout.trim_end(),
            self.stderr.trim_end()
        )
    }
}

pub fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_quadflood")
}

/// `quadflood ARGS` under `limits`, through `bash` where a `ulimit` is asked for. Its
/// stdout and stderr are pipes: a file-size limit must not cut the case's own record of
/// them short.
pub fn command(args: &[String], limits: &Limits) -> Command {
    let mut script = String::new();
    if let Some(kib) = limits.file_kib {
        script += &format!("ulimit -f {kib} || exit 99; trap '' XFSZ; ");
    }
    if let Some(kib) = limits.memory_kib {
        script += &format!("ulimit -v {kib} 2>/dev/null; ");
    }
    let mut c = if script.is_empty() {
        Command::new(binary())
    } else {
        let mut c = Command::new("bash");
        c.arg("-c")
            .arg(format!("{script}exec \"$0\" \"$@\""))
            .arg(binary());
        c
    };
    c.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env(
            "XDG_RUNTIME_DIR",
            std::env::var("XDG_RUNTIME_DIR").unwrap_or("/tmp".into()),
        )
        .env("RUST_BACKTRACE", "1");
    c
}

/// Reads a pipe to its end on a thread of its own (a full pipe would block the process).
fn drain(pipe: Option<impl std::io::Read + Send + 'static>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut p) = pipe {
            let _ = p.read_to_end(&mut bytes);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// A process started by `start`, to wait for or signal.
pub struct Running {
    pub child: Child,
    args: Vec<String>,
    output: [std::thread::JoinHandle<String>; 2],
    started: Instant,
    limit: Duration,
}

pub fn start(args: &[String], limits: &Limits) -> Running {
    let mut child = command(args, limits).spawn().expect("start quadflood");
    let output = [drain(child.stdout.take()), drain(child.stderr.take())];
    Running {
        child,
        args: args.to_vec(),
        output,
        started: Instant::now(),
        limit: limits.time,
    }
}

impl Running {
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    pub fn finished(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }

    pub fn signal(&self, signal: i32) {
        // The process is ours and not yet reaped: its pid is not reused.
        unsafe {
            libc::kill(self.child.id() as i32, signal);
        }
    }

    /// Waits for the end, killing the process at its time limit.
    pub fn wait(mut self) -> Outcome {
        let mut timed_out = false;
        let status: ExitStatus = loop {
            if let Some(status) = self.child.try_wait().expect("wait for quadflood") {
                break status;
            }
            if self.started.elapsed() > self.limit {
                timed_out = true;
                let _ = self.child.kill();
                break self.child.wait().expect("wait for quadflood");
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let wall = self.started.elapsed();
        let [stdout, stderr] = self.output.map(|h| h.join().unwrap_or_default());
        Outcome {
            args: self.args,
            code: status.code(),
            signal: std::os::unix::process::ExitStatusExt::signal(&status),
            timed_out,
            stdout,
            stderr,
            wall,
        }
    }
}

/// `quadflood ARGS` to its end (or its time limit).
pub fn run(args: &[String], limits: &Limits) -> Outcome {
    start(args, limits).wait()
}

/// Arguments from string slices.
pub fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

pub fn path(p: &Path) -> String {
    p.to_str().expect("a UTF-8 path").to_string()
}
