//! The two modes as peers: switching between them (each keeps its state while the other is
//! shown), and what goes to the shown one (Space, the top bar's controls and timeline, its
//! panels, a scripted run's steps).

use crate::app::{App, Mode};
use crate::hints::Hint;
use crate::run::autorun::AutoAction;
use crate::run::worker::Command;
use egui::{Context, Ui};

impl App {
    /// "Edit | Compare" in the top bar.
    pub(crate) fn mode_switch(&mut self, ui: &mut Ui) {
        let compare = self.mode == Mode::Compare;
        if ui
            .selectable_label(!compare, "Edit")
            .hint("the node graph and one run")
            .clicked()
            && compare
        {
            self.compare.pause();
            self.mode = Mode::Run;
        }
        let r = ui.selectable_label(compare, "Compare").hint(
            "run variants of this graph (solvers, any parameter) side by side with the same seed",
        );
        if r.clicked() && !compare {
            self.enter_compare();
        }
    }

    /// Shows the compare mode (pausing the run mode's simulation).
    pub(crate) fn enter_compare(&mut self) {
        if self.run.playback.playing {
            self.toggle_play();
        }
        if self.compare.drafts.is_empty() {
            self.compare.forget(&self.doc.to_doc());
        }
        self.mode = Mode::Compare;
    }

    /// (Re)builds every variant of the current graph, paused at frame 0.
    pub(crate) fn start_compare(&mut self) {
        self.compare.start(&self.doc, &self.user.base_dir);
    }

    /// Space: play or pause the shown mode.
    pub(crate) fn play_pause(&mut self) {
        match self.mode {
            Mode::Compare => self.compare.play(&self.doc, &self.user.base_dir),
            Mode::Run => self.toggle_play(),
        }
    }

    /// The shown mode's Play/Step/Reset, options and timeline.
    pub(crate) fn mode_controls(&mut self, ui: &mut Ui) {
        match self.mode {
            Mode::Compare => {
                self.compare.controls(ui, &self.doc, &self.user.base_dir);
                ui.separator();
                self.compare.timeline(ui);
            }
            Mode::Run => {
                if self.run.controls(ui, &self.doc, &self.user.base_dir) {
                    self.refresh_status();
                }
                ui.separator();
                if self.run.timeline(ui, self.doc.settings.frames) {
                    self.refresh_status();
                }
            }
        }
    }

    /// The compare mode's panels: the variant list and the variants' views.
    pub(crate) fn compare_ui(&mut self, ctx: &Context) {
        let stored = self
            .compare
            .ui(ctx, &mut self.doc, &self.plugins, &self.user.base_dir);
        if stored {
            self.file.dirty = true;
            self.notify("variants stored in the graph (unsaved)");
        }
    }

    /// Advances a scripted run on the shown mode; called once per UI update.
    pub(crate) fn auto_step(&mut self, ctx: &Context) {
        if !self.auto.active() {
            return;
        }
        let (mode, run, compare) = (self.mode, &self.run, &self.compare);
        let progress = match mode {
            Mode::Compare => compare.progress(),
            Mode::Run => run.progress(),
        };
        let problems = || match mode {
            Mode::Compare => compare.problem_summary(),
            Mode::Run => run.problem_summary(),
        };
        match self.auto.advance(ctx, progress, problems) {
            AutoAction::Wait => {}
            AutoAction::Step => match self.mode {
                Mode::Compare => self.compare.step(),
                Mode::Run => self.run.worker.send(Command::Step),
            },
            AutoAction::Close => self.chrome.allow_close = true,
        }
    }
}
