//! The tokio runtimes the suites run their async cases on, built in one place: a case that
//! needs the fake's server and the client at once on two workers (as the machine's two cores
//! allow), one that must see a single worker's order on one.

use tokio::runtime::{Builder, Runtime};

/// A multi-threaded runtime with two workers, timers and I/O: what most suites run on.
pub fn runtime() -> Runtime {
    runtime_with_workers(2)
}

/// A multi-threaded runtime with `workers` workers, timers and I/O.
pub fn runtime_with_workers(workers: usize) -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// A runtime on the calling thread, timers and I/O enabled.
pub fn current_thread_runtime() -> Runtime {
    Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}
