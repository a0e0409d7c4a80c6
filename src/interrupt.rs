//! SIGTERM and SIGINT as a request to stop. A batch scheduler sends SIGTERM at a job's time
//! limit (and SIGKILL a little later), a user at a terminal SIGINT: the run stops at its
//! next batch of steps (under ranks, at a step all ranks agree on), flushes its series,
//! writes a checkpoint where it writes them, and exits with 128 + the signal's number. A
//! second signal ends the process at once, as it would have without this handler.

use std::sync::atomic::{AtomicI32, Ordering};

/// The signal received, 0 while none has been.
static RECEIVED: AtomicI32 = AtomicI32::new(0);

#[cfg(unix)]
extern "C" fn on_signal(signal: libc::c_int) {
    // Only async-signal-safe calls here: an atomic store, signal() and raise().
    if RECEIVED.swap(signal, Ordering::SeqCst) != 0 {
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
        }
    }
}

/// Turns SIGTERM and SIGINT into a request to stop (`quadflood run` only: a library
/// caller keeps its own handling).
#[cfg(unix)]
pub fn install() {
    for signal in [libc::SIGTERM, libc::SIGINT] {
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as *const () as usize;
            // Restarted system calls: a file write in progress is not cut short.
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

#[cfg(not(unix))]
pub fn install() {}

/// The signal that asked the run to stop, if one has.
pub fn requested() -> Option<i32> {
    match RECEIVED.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// The signal's name for messages.
pub fn name(signal: i32) -> String {
    match signal {
        15 => "SIGTERM".into(),
        2 => "SIGINT".into(),
        s => format!("signal {s}"),
    }
}
