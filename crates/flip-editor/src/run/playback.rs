//! Where a mode's timeline stands (the frame shown, following the newest, simulating,
//! replaying the cache) and the controls that move it: one implementation for the run and
//! compare modes.

use crate::hints::Hint;
use crate::run::timeline::{timeline_bar, Replay};
use egui::{RichText, Ui};

/// A mode's playback: which of its cached frames is shown and what moves it on.
#[derive(Debug)]
pub struct Playback {
    /// Index of the shown frame.
    pub shown: usize,
    /// Show the newest frame as it arrives.
    pub follow: bool,
    /// Frames are being simulated.
    pub playing: bool,
    /// The run is over (its last frame reached, or nothing left running).
    pub finished: bool,
    /// Cached frames being replayed at the graph's rate.
    pub replay: Option<Replay>,
}

impl Default for Playback {
    fn default() -> Self {
        Self {
            shown: 0,
            follow: true,
            playing: false,
            finished: false,
            replay: None,
        }
    }
}

impl Playback {
    /// Whether frames are advancing (simulated or replayed).
    pub fn is_playing(&self) -> bool {
        self.playing || self.replay.is_some()
    }

    /// The worker's news: whether it is simulating and whether the run is over.
    pub fn worker_says(&mut self, playing: bool, finished: bool) {
        self.playing = playing;
        self.finished = finished;
    }

    /// A frame arrived, making `cached` frames: shown when following the newest.
    pub fn arrived(&mut self, cached: usize) {
        if self.follow {
            self.shown = cached - 1;
        }
    }

    /// Shows frame index `k` of `cached` (a scrub; stops a replay); following again from the
    /// newest.
    pub fn scrub(&mut self, k: usize, cached: usize) {
        self.replay = None;
        self.shown = k;
        self.follow = k + 1 == cached;
    }

    /// The frame counter and the cache bar over `total` frames, then what is going on
    /// (`simulating`: the label while frames are simulated). Returns whether it was scrubbed.
    pub fn timeline(&mut self, ui: &mut Ui, cached: usize, total: u32, simulating: &str) -> bool {
        let scrubbed = timeline_bar(ui, self.shown, cached, total);
        if let Some(k) = scrubbed {
            self.scrub(k, cached);
        }
        if self.replay.is_some() {
            ui.label(RichText::new("playing cache").weak());
        } else if self.playing {
            ui.label(RichText::new(simulating).weak());
        } else if self.finished {
            ui.label(RichText::new("finished").weak());
        }
        scrubbed.is_some()
    }
}

/// A run-control button that was pressed.
pub(crate) enum RunButton {
    /// ▶ Play / ⏸ Pause.
    PlayPause,
    /// ⏭ Step.
    Step,
    /// ⟲ Reset.
    Reset,
}

/// Play/Pause, Step and Reset buttons (run and compare modes).
pub(crate) fn run_buttons(ui: &mut Ui, playing: bool) -> Option<RunButton> {
    let label = if playing { "⏸ Pause" } else { "▶ Play" };
    let mut pressed = None;
    if ui.button(label).hint("Space").clicked() {
        pressed = Some(RunButton::PlayPause);
    }
    if ui.button("⏭ Step").hint("simulate one frame").clicked() {
        pressed = Some(RunButton::Step);
    }
    if ui.button("⟲ Reset").hint("back to frame 0").clicked() {
        pressed = Some(RunButton::Reset);
    }
    pressed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scrub_to_the_newest_frame_follows_again_and_stops_a_replay() {
        let mut p = Playback::default();
        p.arrived(3);
        assert_eq!((p.shown, p.follow), (2, true));
        p.replay = Some(Replay::new(0, 24.0));
        p.scrub(0, 3);
        assert_eq!((p.shown, p.follow, p.is_playing()), (0, false, false));
        p.arrived(4);
        assert_eq!(p.shown, 0, "not following: the shown frame stays");
        p.scrub(3, 4);
        p.arrived(5);
        assert_eq!(p.shown, 4);
    }
}
