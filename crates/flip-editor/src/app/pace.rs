//! How soon the UI repaints when a simulation thread reports a new frame.
//!
//! A UI frame costs what drawing the window does: about a millisecond on a GPU, tens of
//! milliseconds with Mesa's software rasteriser, which draws on the same cores as the
//! simulation (measured with its threads, see [`crate::app::ui_cost`]). Repainting for every
//! simulated frame then takes most of a 2-core machine away from the simulation (which runs at
//! a lower priority, see [`crate::run::priority`]). So a simulation's wake asks for a repaint
//! after [`UI_SHARE_INVERSE`] times the last UI frame's cost, and so does a particle image
//! built in the background (see [`crate::viewport::points_cache::set_show_delay`]): one UI
//! frame per gap shows the newest image built and starts the newest frame's, the frames in
//! between are skipped, and the window follows the simulation at a rate that leaves the
//! simulation most of the machine, but at least every [`MAX_GAP`]. Input (a click, a drag) is
//! not paced: egui repaints for it at once.

use egui::Context;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Repaints for new frames come at most every this many times the last UI frame's cost, so
/// drawing them takes at most about `1 / UI_SHARE_INVERSE` of a core (unless capped by
/// [`MAX_GAP`]).
pub const UI_SHARE_INVERSE: f64 = 5.0;
/// The shortest gap between repaints for new frames (a 60 Hz display's).
pub const MIN_GAP: Duration = Duration::from_micros(16_667);
/// The longest: the window shows at least 10 new pictures a second while simulating, and
/// trails the simulation by at most about two gaps.
pub const MAX_GAP: Duration = Duration::from_millis(100);

/// The measured cost of UI frames, shared with the simulation threads' wakes.
#[derive(Clone, Debug, Default)]
pub struct RepaintPace {
    /// CPU microseconds of the last UI frame (update, tessellation and drawing).
    frame_us: Arc<AtomicU64>,
}

impl RepaintPace {
    /// Records the CPU seconds of the last whole UI frame (eframe's `cpu_usage`).
    pub fn record(&self, cpu_seconds: Option<f32>) {
        if let Some(s) = cpu_seconds.filter(|s| s.is_finite() && *s >= 0.0) {
            let us = (f64::from(s) * 1e6).round() as u64;
            self.frame_us.store(us, Ordering::Relaxed);
        }
    }

    /// How long after a new frame the UI repaints for it.
    pub fn gap(&self) -> Duration {
        let cost = Duration::from_micros(self.frame_us.load(Ordering::Relaxed));
        cost.mul_f64(UI_SHARE_INVERSE).clamp(MIN_GAP, MAX_GAP)
    }

    /// The wake a simulation thread calls after each event: a repaint of `ctx` after
    /// [`RepaintPace::gap`] (egui keeps the earliest repaint asked for, so the wakes of
    /// several frames within one gap make one repaint).
    pub fn waker(&self, ctx: Context) -> impl Fn() + Send + Sync + 'static {
        let pace = self.clone();
        move || ctx.request_repaint_after(pace.gap())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn costly_ui_frames_space_the_repaints_for_new_frames() {
        let pace = RepaintPace::default();
        assert_eq!(pace.gap(), MIN_GAP, "before any frame: a display's rate");
        // a GPU's frame: the display's rate
        pace.record(Some(0.002));
        assert_eq!(pace.gap(), MIN_GAP);
        // a cheap software-GL frame: 15 ms, one per gap, leaves the simulation 80 % of a core
        pace.record(Some(0.015));
        assert_eq!(pace.gap(), Duration::from_millis(75));
        // a costly one: the window still shows 10 pictures a second
        pace.record(Some(0.5));
        assert_eq!(pace.gap(), MAX_GAP);
        // no measurement keeps the last
        pace.record(None);
        assert_eq!(pace.gap(), MAX_GAP);
    }

    #[test]
    fn a_wake_asks_for_a_repaint_after_the_gap() {
        let ctx = Context::default();
        let pace = RepaintPace::default();
        pace.record(Some(0.015));
        let wake = pace.waker(ctx.clone());
        // (egui repaints at once after a context's first passes)
        for _ in 0..3 {
            let _ = ctx.run(Default::default(), |_| {});
        }
        let out = ctx.run(Default::default(), |_| wake());
        let delay = out.viewport_output[&egui::ViewportId::ROOT].repaint_delay;
        // egui starts the repaint a frame's time early (1/60 s by default)
        let early = delay..=delay + Duration::from_millis(17);
        assert!(
            delay > Duration::ZERO && early.contains(&Duration::from_millis(75)),
            "repaint asked for after {delay:?}"
        );
    }
}
