//! Stopping long work that has no progress callback (preparing an aged drive) when the
//! caller asks: Ctrl-C in the Python bindings (issue 14, item 5).
//!
//! The caller runs the work inside `with_hook(hook, f)`; long loops call `check()`,
//! which asks the hook (every 64 calls) whether to go on. When the hook
//! says stop, `check` unwinds (`resume_unwind`, which prints nothing) to `with_hook`,
//! which returns `Err(Interrupted)`: every partial structure is dropped on the way, so
//! nothing half-prepared is kept or cached. Without a hook (plain Rust use), `check`
//! costs a thread-local counter and never stops. The hook is per thread, so parallel
//! runs on other threads are not affected.

use std::cell::{Cell, RefCell};

/// The work was stopped by the hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interrupted;

type Hook = Box<dyn FnMut() -> bool>;

thread_local! {
    static HOOK: RefCell<Option<Hook>> = const { RefCell::new(None) };
    static CALLS: Cell<u32> = const { Cell::new(0) };
}

/// Call from a long loop: unwinds to `with_hook` when the hook says stop.
#[inline]
pub fn check() {
    let n = CALLS.with(|c| {
        let n = c.get().wrapping_add(1);
        c.set(n);
        n
    });
    if !n.is_multiple_of(64) {
        return;
    }
    let go_on = HOOK.with(|h| match h.try_borrow_mut() {
        Ok(mut h) => h.as_mut().is_none_or(|f| f()),
        Err(_) => true,
    });
    if !go_on {
        std::panic::resume_unwind(Box::new(Interrupted));
    }
}

/// Ask the hook now (for waits rather than loops): unwinds when it says stop.
pub fn poll() {
    CALLS.with(|c| c.set(63));
    check();
}

/// Run `f` with `hook` asked by `check()` on this thread; `Err(Interrupted)` when the
/// hook stopped it. Other panics go on unwinding.
pub fn with_hook<T>(hook: Hook, f: impl FnOnce() -> T) -> Result<T, Interrupted> {
    struct Restore(Option<Hook>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let prev = self.0.take();
            HOOK.with(|h| *h.borrow_mut() = prev);
        }
    }
    let prev = HOOK.with(|h| h.borrow_mut().replace(hook));
    let _restore = Restore(prev);
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(v) => Ok(v),
        Err(p) if p.is::<Interrupted>() => Err(Interrupted),
        Err(p) => std::panic::resume_unwind(p),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hook_that_says_stop_ends_the_work() {
        let r = with_hook(Box::new(|| false), || loop {
            check();
        });
        assert_eq!(r, Err::<(), _>(Interrupted));
        // without a hook, check never stops
        for _ in 0..10_000 {
            check();
        }
        let r = with_hook(Box::new(|| true), || {
            for _ in 0..10_000 {
                check();
            }
            7
        });
        assert_eq!(r, Ok(7));
    }
}

/// Items between two `check()`s (or two looks at the halt flag) in `Halt`'s loops.
const HALT_EVERY: usize = 1024;

/// Work split over this thread and helper threads (which have no hook): this thread
/// asks the hook as it goes (`tick`); when it unwinds, its `guard` raises a flag the
/// helpers look at (`stopped`), so they end early and the scope they run in can join
/// them at once.
#[derive(Default)]
pub struct Halt(std::sync::atomic::AtomicBool);

/// Raises its `Halt` if the thread unwinds while it is held.
pub struct HaltOnUnwind<'a>(&'a Halt);

impl Drop for HaltOnUnwind<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0 .0.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

impl Halt {
    /// Held by the thread with the hook for the time of its share of the work.
    pub fn guard(&self) -> HaltOnUnwind<'_> {
        HaltOnUnwind(self)
    }

    /// The hook's thread, at item `k` of its share: `check()` every `HALT_EVERY` items.
    #[inline]
    pub fn tick(&self, k: usize) {
        if k.is_multiple_of(HALT_EVERY) {
            check();
        }
    }

    /// At item `k` of a share of the work: on the hook's thread (`main`) ask the hook
    /// (unwinding on stop), on a helper say whether to go on.
    #[inline]
    pub fn go_on(&self, main: bool, k: usize) -> bool {
        if main {
            self.tick(k);
            true
        } else {
            !self.stopped(k)
        }
    }

    /// A helper thread, at item `k` of its share: has the hook's thread stopped?
    #[inline]
    pub fn stopped(&self, k: usize) -> bool {
        k.is_multiple_of(HALT_EVERY) && self.0.load(std::sync::atomic::Ordering::Relaxed)
    }
}
