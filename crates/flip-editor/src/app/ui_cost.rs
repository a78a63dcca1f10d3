//! What a UI frame really costs the machine. eframe's `cpu_usage` times the update, the
//! tessellation and the GL calls, but not `swap_buffers`; with Mesa's software rasteriser
//! (llvmpipe) that is where the pixels are drawn, on threads of Mesa's own: measured under Xvfb
//! on 2 cores, eframe said 6 ms a frame while llvmpipe's thread spent about 50. On Linux this
//! clock reads the CPU time the kernel accounts to the UI thread and to llvmpipe's threads
//! (`/proc/thread-self/schedstat`, `/proc/self/task/*/schedstat`), so a lap between two UI
//! frames is the whole cost of one; elsewhere it says nothing and eframe's number is used.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// Mesa's software rasteriser names its threads `llvmpipe-N`.
const GL_THREAD_PREFIX: &str = "llvmpipe";
/// Laps between two looks for GL threads (they start with the first frame drawn).
const RESCAN_LAPS: u32 = 120;

/// CPU time of the UI thread and the GL driver's threads, read lap by lap on the UI thread.
#[derive(Debug, Default)]
pub struct UiCpuClock {
    /// The total at the last lap (ns).
    last: Option<u64>,
    /// `schedstat` files of the GL driver's threads.
    gl_threads: Vec<PathBuf>,
    laps: u32,
}

impl UiCpuClock {
    /// The CPU time spent by the calling (UI) thread and the GL threads since the last lap;
    /// `None` on the first lap and where the kernel does not say.
    pub fn lap(&mut self) -> Option<Duration> {
        if self.laps.is_multiple_of(RESCAN_LAPS) {
            self.gl_threads = gl_thread_stats();
        }
        self.laps = self.laps.wrapping_add(1);
        let ui = on_cpu_ns(Path::new("/proc/thread-self/schedstat"))?;
        let gl: u64 = self.gl_threads.iter().filter_map(|p| on_cpu_ns(p)).sum();
        let total = ui + gl;
        let lap = self.last.map(|last| total.saturating_sub(last));
        self.last = Some(total);
        lap.map(Duration::from_nanos)
    }
}

/// The first field of a `schedstat` file: nanoseconds the thread ran.
fn on_cpu_ns(path: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// `schedstat` files of this process's GL driver threads.
fn gl_thread_stats() -> Vec<PathBuf> {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return vec![];
    };
    tasks
        .filter_map(Result::ok)
        .map(|t| t.path())
        .filter(|t| {
            std::fs::read_to_string(t.join("comm"))
                .is_ok_and(|name| name.starts_with(GL_THREAD_PREFIX))
        })
        .map(|t| t.join("schedstat"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_os = "linux")]
    fn a_lap_counts_the_work_done_on_the_ui_thread() {
        let mut clock = UiCpuClock::default();
        assert_eq!(clock.lap(), None, "the first lap only starts the clock");
        // a fixed amount of work on this thread (tens of milliseconds, whatever the load)
        let mut x = 0u64;
        for _ in 0..60_000_000 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
        }
        let busy = clock.lap().expect("Linux accounts thread CPU time");
        assert!(busy >= Duration::from_millis(5), "counted {busy:?}");
        // sleeping costs (almost) nothing
        std::thread::sleep(Duration::from_millis(50));
        let idle = clock.lap().expect("a second lap");
        assert!(idle * 10 < busy, "counted {idle:?} asleep, {busy:?} busy");
    }
}
