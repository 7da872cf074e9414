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
