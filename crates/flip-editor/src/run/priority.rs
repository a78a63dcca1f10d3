//! Simulation threads run below the UI's CPU priority: on a machine with fewer cores than busy
//! threads (a 2-core laptop simulating on every core) the UI thread still gets a core when it
//! needs one, and the sim takes whatever the UI leaves.

/// Nice value of the simulation threads (the UI thread keeps its own, normally 0).
pub const SIM_NICE: i32 = 10;

/// Lowers the calling thread's priority to [`SIM_NICE`]. On Linux a priority belongs to a
/// thread, and the threads it starts later (rayon pools, a plugin's own pool) inherit it.
/// Never raises it; best effort: where the system refuses, the thread keeps its priority.
pub fn lower_this_thread() {
    let now = rustix::process::getpriority_process(None).unwrap_or(SIM_NICE);
    if now < SIM_NICE {
        let _ = rustix::process::setpriority_process(None, SIM_NICE);
    }
}

/// Starts rayon's global pool (the nodes' parallel loops) with every worker at the
/// simulation priority, unless something started it already.
pub fn lower_global_pool() {
    let _ = rayon::ThreadPoolBuilder::new()
        .start_handler(|_| lower_this_thread())
        .build_global();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_lowered_thread_and_the_threads_it_starts_lose_priority() {
        let before = rustix::process::getpriority_process(None).expect("own priority");
        let (own, child) = std::thread::spawn(|| {
            lower_this_thread();
            let own = rustix::process::getpriority_process(None).expect("priority");
            let child = std::thread::spawn(|| rustix::process::getpriority_process(None))
                .join()
                .expect("child thread")
                .expect("priority");
            (own, child)
        })
        .join()
        .expect("thread");
        assert_eq!(own, SIM_NICE.max(before));
        assert_eq!(
            child, own,
            "a thread started by a lowered thread inherits its priority"
        );
        let after = rustix::process::getpriority_process(None).expect("own priority");
        assert_eq!(after, before, "the calling (UI) thread keeps its priority");
    }
}
