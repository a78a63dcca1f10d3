//! The run mode's Play/Step and timeline: cached frames play back at the graph's fps, the
//! simulation only runs past the cache (see [`crate::run::timeline`]).

use crate::app::App;
use crate::run::timeline::{play_action, timeline_bar, PlayAction, Playback};
use crate::run::worker::Command;
use egui::{Context, RichText, Ui};

impl App {
    /// Whether frames are advancing (simulated or played back).
    pub(crate) fn is_playing(&self) -> bool {
        self.playing || self.playback.is_some()
    }

    /// Whether the simulation can go on (valid graph, no failure).
    fn can_simulate(&self) -> bool {
        self.failure.is_none() && self.invalid.is_empty()
    }

    /// Frames in the cache (simulated so far in this generation).
    pub fn cached_frames(&self) -> usize {
        self.frames.len()
    }

    /// Whether the worker is simulating frames (not playing the cache back).
    pub fn is_simulating(&self) -> bool {
        self.playing
    }

    /// Play or pause: plays the cache back from the shown frame, then simulates past it.
    pub fn toggle_play(&mut self) {
        if self.is_playing() {
            self.playback = None;
            if self.playing {
                self.playing = false;
                self.worker.send(Command::Pause);
            }
            return;
        }
        if self.pending_reload.is_some() {
            self.reload();
        }
        let total = self.doc.settings.frames;
        match play_action(self.shown, self.frames.len(), total, self.can_simulate()) {
            PlayAction::Playback(from) => {
                self.shown = from;
                self.follow = false;
                self.playback = Some(Playback::new(from, self.doc.settings.fps));
                self.refresh_status();
            }
            PlayAction::Simulate => self.simulate_on(),
        }
    }

    fn simulate_on(&mut self) {
        self.playing = true;
        self.follow = true;
        self.worker.send(Command::Play);
    }

    /// One frame on: the next cached frame, else one simulated frame.
    pub(crate) fn step_frame(&mut self) {
        self.playback = None;
        if self.pending_reload.is_some() {
            self.reload();
        }
        if self.shown + 1 < self.frames.len() {
            self.shown += 1;
            self.refresh_status();
            return;
        }
        self.follow = true;
        self.worker.send(Command::Step);
    }

    /// Advances a playback to the frame due; at the end of the cache, simulates on (when
    /// there is more to simulate).
    pub(crate) fn tick_playback(&mut self, ctx: &Context) {
        let Some(p) = self.playback else { return };
        let last = self.frames.len().saturating_sub(1);
        let due = p.frame_now();
        if due >= last {
            self.shown = last;
            self.playback = None;
            let more = self.frames.len() < self.doc.settings.frames as usize;
            if more && self.can_simulate() {
                self.simulate_on();
            }
        } else {
            self.shown = due;
            ctx.request_repaint_after(p.period());
        }
        self.refresh_status();
    }

    /// The frame counter and the cache bar over the graph's frame range.
    pub(crate) fn timeline(&mut self, ui: &mut Ui) {
        let n = self.frames.len();
        if let Some(k) = timeline_bar(ui, self.shown, n, self.doc.settings.frames) {
            self.playback = None;
            self.shown = k;
            self.follow = self.shown + 1 == n;
            self.refresh_status();
        }
        if self.playback.is_some() {
            ui.label(RichText::new("playing cache").weak());
        } else if self.playing {
            ui.label(RichText::new("simulating…").weak());
        } else if self.finished {
            ui.label(RichText::new("finished").weak());
        }
    }
}
