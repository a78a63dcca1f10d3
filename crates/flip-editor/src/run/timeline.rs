//! The run mode's timeline, Houdini-style: it spans the graph's whole frame range, a bar marks
//! the cached frames, and Play plays cached frames back at the graph's fps before simulating
//! past the cache. The rules are plain functions so they are tested without a window.

use crate::hints::Hint;
use egui::{Color32, Rect, Sense, Ui};
use std::time::{Duration, Instant};

/// What Play does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayAction {
    /// Play the cache back from this frame index.
    Playback(usize),
    /// Simulate the frames after the cache.
    Simulate,
}

/// What Play does with `cached` frames cached of `total`, showing index `shown`; `can_simulate`:
/// the simulation is valid and not failed.
pub fn play_action(shown: usize, cached: usize, total: u32, can_simulate: bool) -> PlayAction {
    let complete = cached >= total as usize || !can_simulate;
    if cached == 0 || (shown + 1 >= cached && !complete) {
        return PlayAction::Simulate;
    }
    if shown + 1 >= cached {
        // at the end of a complete cache: from the start again
        PlayAction::Playback(0)
    } else {
        PlayAction::Playback(shown)
    }
}

/// Cached frames being played back at the graph's rate.
#[derive(Clone, Copy, Debug)]
pub struct Replay {
    from: usize,
    started: Instant,
    fps: f32,
}

impl Replay {
    /// Starts at frame index `from`, `fps` frames per second.
    pub fn new(from: usize, fps: f32) -> Self {
        Self {
            from,
            started: Instant::now(),
            fps: if fps.is_finite() && fps > 0.0 {
                fps
            } else {
                24.0
            },
        }
    }

    /// The frame index due after `elapsed`.
    pub fn frame_after(&self, elapsed: Duration) -> usize {
        self.from + (elapsed.as_secs_f64() * f64::from(self.fps)) as usize
    }

    /// The frame index due now.
    pub fn frame_now(&self) -> usize {
        self.frame_after(self.started.elapsed())
    }

    /// Time between frames.
    pub fn period(&self) -> Duration {
        Duration::from_secs_f32(1.0 / self.fps)
    }
}

/// Frame index under `x` on a bar spanning `rect` for `total` frames, clamped to the `cached`.
pub fn frame_at(rect: Rect, x: f32, total: u32, cached: usize) -> Option<usize> {
    if cached == 0 {
        return None;
    }
    let t = ((x - rect.left()) / rect.width().max(1.0)).clamp(0.0, 1.0);
    let k = (t * total.max(1) as f32).floor() as usize;
    Some(k.min(cached - 1))
}

/// "frame k / total" and a bar over the whole frame range: cached frames in green, the shown
/// frame as a marker; clicking or dragging scrubs the cached frames. Returns the index scrubbed
/// to.
pub fn timeline_bar(ui: &mut Ui, shown: usize, cached: usize, total: u32) -> Option<usize> {
    let number = if cached == 0 { 0 } else { shown + 1 };
    ui.label(egui::RichText::new(format!("frame {number:>3} / {total}")).monospace())
        .hint(format!("{cached} of {total} frame(s) cached"));
    let width = (ui.available_width() - 120.0).max(80.0);
    let (rect, r) = ui.allocate_exact_size(egui::vec2(width, 18.0), Sense::click_and_drag());
    let p = ui.painter();
    p.rect_filled(rect, 3.0, Color32::from_gray(50));
    let total_f = total.max(1) as f32;
    let x_of = |k: f32| rect.left() + rect.width() * (k / total_f).min(1.0);
    let bar = Rect::from_x_y_ranges(rect.left()..=x_of(cached as f32), rect.y_range());
    p.rect_filled(
        bar.shrink2(egui::vec2(0.0, 5.0)),
        2.0,
        Color32::from_rgb(70, 150, 90),
    );
    if cached > 0 {
        let x = x_of(shown as f32 + 0.5);
        p.line_segment(
            [egui::pos2(x, rect.top()), egui::pos2(x, rect.bottom())],
            egui::Stroke::new(2.0, Color32::from_rgb(240, 200, 80)),
        );
    }
    let r = r.hint("green: cached frames (click or drag to scrub)");
    let x = r.interact_pointer_pos().map(|p| p.x)?;
    (r.clicked() || r.dragged()).then(|| frame_at(rect, x, total, cached))?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn play_plays_the_cache_back_then_simulates_past_it() {
        // 10 of 48 frames cached, looking at frame 3: play the cache back from there
        assert_eq!(play_action(2, 10, 48, true), PlayAction::Playback(2));
        // at the end of the cache: simulate on (no restart from frame 0)
        assert_eq!(play_action(9, 10, 48, true), PlayAction::Simulate);
        assert_eq!(play_action(0, 0, 48, true), PlayAction::Simulate);
        // a finished run at its last frame plays from the start again
        assert_eq!(play_action(47, 48, 48, true), PlayAction::Playback(0));
        // a failed run cannot simulate: its cache plays back
        assert_eq!(play_action(9, 10, 48, false), PlayAction::Playback(0));
    }

    #[test]
    fn playback_follows_the_graph_fps_and_the_bar_spans_the_frame_range() {
        let p = Replay::new(4, 24.0);
        assert_eq!(p.frame_after(Duration::ZERO), 4);
        assert_eq!(p.frame_after(Duration::from_millis(1000)), 28);
        assert_eq!(
            Replay::new(0, f32::NAN).period(),
            Duration::from_secs_f32(1.0 / 24.0)
        );
        let rect = Rect::from_min_size(egui::pos2(100.0, 0.0), egui::vec2(480.0, 18.0));
        // 48 frames over 480 px: 10 px a frame; only cached frames can be shown
        assert_eq!(frame_at(rect, 100.0 + 55.0, 48, 48), Some(5));
        assert_eq!(frame_at(rect, 100.0 + 300.0, 48, 10), Some(9));
        assert_eq!(frame_at(rect, 0.0, 48, 10), Some(0));
        assert_eq!(frame_at(rect, 200.0, 48, 0), None);
    }
}
