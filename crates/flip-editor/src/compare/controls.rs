//! Switching between the run and compare modes, and the compare mode's top-bar controls
//! (the same Play/Step/Reset buttons and timeline as the run mode, driving every variant).

use crate::app::App;
use crate::hints::Hint;
use crate::run::controls::{run_buttons, RunButton};
use crate::run::timeline::timeline_bar;
use egui::{RichText, Ui};

impl App {
    /// "Edit | Compare" in the top bar.
    pub(crate) fn mode_switch(&mut self, ui: &mut Ui) {
        let active = self.compare.active;
        if ui
            .selectable_label(!active, "Edit")
            .hint("the node graph and one run")
            .clicked()
            && active
        {
            self.compare.pause();
            self.compare.active = false;
        }
        let r = ui.selectable_label(active, "Compare").hint(
            "run variants of this graph (solvers, any parameter) side by side with the same seed",
        );
        if r.clicked() && !active {
            self.enter_compare();
        }
    }

    /// Shows the compare mode (pausing the run mode's simulation).
    pub(crate) fn enter_compare(&mut self) {
        if self.playing {
            self.toggle_play();
        }
        if self.compare.drafts.is_empty() {
            self.compare.forget(&self.doc.to_doc());
        }
        self.compare.active = true;
    }

    /// (Re)builds every variant of the current graph, paused at frame 0.
    pub(crate) fn start_compare(&mut self) {
        let doc = self.doc.to_doc();
        self.compare.load(&doc, self.user.base_dir.clone());
    }

    /// Play or pause the variants; a finished or outdated run starts over first.
    pub(crate) fn compare_play(&mut self) {
        let c = &self.compare;
        if !c.playing && (!c.loaded() || c.finished) {
            self.start_compare();
        }
        self.compare.toggle_play();
    }

    pub(crate) fn compare_controls(&mut self, ui: &mut Ui) {
        match run_buttons(ui, self.compare.playing) {
            Some(RunButton::PlayPause) => self.compare_play(),
            Some(RunButton::Step) => {
                if !self.compare.loaded() {
                    self.start_compare();
                }
                self.compare.step();
            }
            Some(RunButton::Reset) => self.start_compare(),
            None => {}
        }
    }

    pub(crate) fn compare_timeline(&mut self, ui: &mut Ui) {
        let c = &mut self.compare;
        if let Some(k) = timeline_bar(ui, c.shown, c.done, c.frames) {
            c.shown = k;
            c.follow = k + 1 == c.done;
        }
        if c.playing {
            ui.label(RichText::new("running…").weak());
        } else if c.finished {
            ui.label(RichText::new("finished").weak());
        }
    }
}
