//! SIGINT/SIGTERM (stop) and SIGUSR1 (print the lateness so far) while the server
//! runs: the handlers only set flags, which the loop reads after its wait. The three
//! signals are blocked except inside the wait (ppoll's signal mask), so one that
//! arrives between the check and the wait still ends the wait. The previous handlers come back on drop, so the
//! Python interpreter that called the server gets its own Ctrl-C handling back.
//! Simplified: process-wide flags, so one server per process at a time.

use std::sync::atomic::{AtomicBool, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);
static STATUS: AtomicBool = AtomicBool::new(false);

extern "C" fn on_stop(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

extern "C" fn on_status(_: libc::c_int) {
    STATUS.store(true, Ordering::SeqCst);
}

pub struct Handlers {
    old: Vec<(libc::c_int, libc::sigaction)>,
    /// The thread's signal mask before: the one to wait with.
    old_mask: libc::sigset_t,
}

fn install(sig: libc::c_int, f: extern "C" fn(libc::c_int)) -> libc::sigaction {
    // SAFETY: sigaction with a zeroed struct and a handler that only stores to atomics.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = f as usize;
        libc::sigemptyset(&mut sa.sa_mask);
        sa.sa_flags = 0; // no SA_RESTART: the wait returns EINTR
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(sig, &sa, &mut old);
        old
    }
}

impl Handlers {
    pub fn install() -> Handlers {
        STOP.store(false, Ordering::SeqCst);
        STATUS.store(false, Ordering::SeqCst);
        let old = [
            (libc::SIGINT, on_stop as extern "C" fn(libc::c_int)),
            (libc::SIGTERM, on_stop),
            (libc::SIGUSR1, on_status),
        ]
        .into_iter()
        .map(|(s, f)| (s, install(s, f)))
        .collect();
        // SAFETY: plain sigset operations on zeroed local sets.
        let old_mask = unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            for s in [libc::SIGINT, libc::SIGTERM, libc::SIGUSR1] {
                libc::sigaddset(&mut set, s);
            }
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old);
            old
        };
        Handlers { old, old_mask }
    }

    /// The signal mask to wait with (the three signals unblocked).
    pub fn wait_mask(&self) -> *const libc::sigset_t {
        &self.old_mask
    }

    pub fn stop_requested(&self) -> bool {
        STOP.load(Ordering::SeqCst)
    }

    /// True once per SIGUSR1 received.
    pub fn take_status_request(&self) -> bool {
        STATUS.swap(false, Ordering::SeqCst)
    }
}

impl Drop for Handlers {
    fn drop(&mut self) {
        // Unblock first: a signal pending now reaches our handler, not the caller's.
        // SAFETY: restoring the mask saved by `install`.
        unsafe {
            libc::pthread_sigmask(libc::SIG_SETMASK, &self.old_mask, std::ptr::null_mut());
        }
        for (sig, old) in &self.old {
            // SAFETY: restoring the handler saved by `install`.
            unsafe {
                libc::sigaction(*sig, old, std::ptr::null_mut());
            }
        }
    }
}
