//! The compare mode's top-bar controls: the same Play/Step/Reset buttons and timeline as the
//! run mode, driving every variant of the graph being edited.

use crate::compare::mode::CompareMode;
use crate::graph::convert::EditorDoc;
use crate::run::playback::{run_buttons, RunButton};
use egui::Ui;
use std::path::Path;

impl CompareMode {
    /// (Re)builds every variant of `doc`, paused at frame 0.
    pub fn start(&mut self, doc: &EditorDoc, base_dir: &Path) {
        let doc = doc.to_doc();
        self.load(&doc, base_dir.to_path_buf());
    }

    /// Play or pause the variants; a finished or outdated run starts over first.
    pub fn play(&mut self, doc: &EditorDoc, base_dir: &Path) {
        let p = &self.playback;
        if !p.playing && (!self.loaded() || p.finished) {
            self.start(doc, base_dir);
        }
        self.toggle_play();
    }

    /// Play/Step/Reset.
    pub(crate) fn controls(&mut self, ui: &mut Ui, doc: &EditorDoc, base_dir: &Path) {
        match run_buttons(ui, self.playback.playing) {
            Some(RunButton::PlayPause) => self.play(doc, base_dir),
            Some(RunButton::Step) => {
                if !self.loaded() {
                    self.start(doc, base_dir);
                }
                self.step();
            }
            Some(RunButton::Reset) => self.start(doc, base_dir),
            None => {}
        }
    }

    /// The frame counter and the bar over the frames to simulate.
    pub(crate) fn timeline(&mut self, ui: &mut Ui) {
        let (done, frames) = (self.done, self.frames);
        self.playback.timeline(ui, done, frames, "running…");
    }
}
