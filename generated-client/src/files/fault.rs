//! Failure points for the module's own tests: every step that changes the file system first
//! asks [`step`], which in a test build can be told to fail the n-th step of the thread
//! ([`fail_at`]). Outside tests it is a no-op the compiler removes. The rollback and cleanup
//! steps never ask: they are what the tests watch.

use std::io;

#[cfg(test)]
thread_local! {
    /// Steps left before the injected failure (`None`: no failure planned).
    static LEFT: std::cell::Cell<Option<u32>> = const { std::cell::Cell::new(None) };
    /// Whether the planned failure happened.
    static FIRED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Called before every step: what a process killed there would leave.
    static WATCH: std::cell::RefCell<Option<Box<dyn FnMut()>>> = const { std::cell::RefCell::new(None) };
}

/// One step that changes the file system is about to run: fails when it is the planned one.
#[cfg(test)]
pub(super) fn step() -> io::Result<()> {
    WATCH.with_borrow_mut(|watch| watch.as_mut().map(|watch| watch()));
    match LEFT.get() {
        Some(0) => {
            LEFT.set(None);
            FIRED.set(true);
            Err(io::Error::other(
                "injected failure (a test's failure point)",
            ))
        }
        Some(left) => {
            LEFT.set(Some(left - 1));
            Ok(())
        }
        None => Ok(()),
    }
}

#[cfg(not(test))]
#[inline(always)]
pub(super) fn step() -> io::Result<()> {
    Ok(())
}

/// Plans the failure of this thread's step number `n` from now (0: the next one), or none.
#[cfg(test)]
pub(super) fn fail_at(n: Option<u32>) {
    LEFT.set(n);
    FIRED.set(false);
}

/// Whether the planned failure happened since [`fail_at`]; clears the plan.
#[cfg(test)]
pub(super) fn fired() -> bool {
    LEFT.set(None);
    FIRED.replace(false)
}

/// Calls `watch` before every step of this thread from now on (`None`: no more), as if the
/// process were killed there.
#[cfg(test)]
pub(super) fn watch(watch: Option<Box<dyn FnMut()>>) {
    WATCH.set(watch);
}
