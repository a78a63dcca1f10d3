//! The run mode's Play/Step/Reset and timeline: cached frames play back at the graph's fps,
//! the simulation only runs past the cache (see [`crate::run::timeline`]). Each call that may
//! change the shown frame or the run's problems returns whether it did (the app then rebuilds
//! the node status).

use crate::graph::convert::EditorDoc;
use crate::hints::Hint;
use crate::run::mode::RunMode;
use crate::run::playback::{run_buttons, RunButton};
use crate::run::timeline::{play_action, PlayAction, Replay};
use crate::run::worker::Command;
use egui::{Context, Ui};
use std::path::Path;

const FROM_HERE_HELP: &str = "Simulate from here: 0.3 s after the last edit the graph is \
    re-validated and the run continues from the state saved after the shown frame (frames up \
    to it stay cached; nodes the edit changed start afresh, like `flipgraph run --from`). \
    Off: edits rerun from frame 0. Settings (grid, cell size, fps, …) always rerun from 0. \
    Moving nodes, and adding, editing or deleting a node with no wires, keep the cache.";
const LIVE_HELP: &str = "Live edits: gravity, the FLIP ratio and the solver tolerances apply \
    to the running simulation from its newest frame on, without dropping cached frames.";

impl RunMode {
    /// Whether the simulation can go on (valid graph, no failure).
    fn can_simulate(&self) -> bool {
        self.failure.is_none() && self.invalid.is_empty()
    }

    /// Play or pause: plays the cache back from the shown frame, then simulates past it.
    pub fn toggle_play(&mut self, doc: &EditorDoc, base_dir: &Path) -> bool {
        let p = &mut self.playback;
        if p.is_playing() {
            p.replay = None;
            if p.playing {
                p.playing = false;
                self.worker.send(Command::Pause);
            }
            return false;
        }
        let reloaded = self.pending_reload.is_some() && self.reload(doc, base_dir);
        let (total, can) = (doc.settings.frames, self.can_simulate());
        let p = &mut self.playback;
        match play_action(p.shown, self.frames.len(), total, can) {
            PlayAction::Playback(from) => {
                p.shown = from;
                p.follow = false;
                p.replay = Some(Replay::new(from, doc.settings.fps));
                true
            }
            PlayAction::Simulate => {
                self.simulate_on();
                reloaded
            }
        }
    }

    fn simulate_on(&mut self) {
        self.playback.playing = true;
        self.playback.follow = true;
        self.worker.send(Command::Play);
    }

    /// One frame on: the next cached frame, else one simulated frame.
    pub fn step_frame(&mut self, doc: &EditorDoc, base_dir: &Path) -> bool {
        self.playback.replay = None;
        let reloaded = self.pending_reload.is_some() && self.reload(doc, base_dir);
        let p = &mut self.playback;
        if p.shown + 1 < self.frames.len() {
            p.shown += 1;
            return true;
        }
        p.follow = true;
        self.worker.send(Command::Step);
        reloaded
    }

    /// Advances a replay to the frame due; at the end of the cache, simulates on (when there
    /// is more of the graph's `total` frames to simulate).
    pub fn tick(&mut self, ctx: &Context, total: u32) -> bool {
        let Some(r) = self.playback.replay else {
            return false;
        };
        let last = self.frames.len().saturating_sub(1);
        let due = r.frame_now();
        if due >= last {
            self.playback.shown = last;
            self.playback.replay = None;
            let more = self.frames.len() < total as usize;
            if more && self.can_simulate() {
                self.simulate_on();
            }
        } else {
            self.playback.shown = due;
            ctx.request_repaint_after(r.period());
        }
        true
    }

    /// The frame counter and the cache bar over the graph's `total` frames.
    pub fn timeline(&mut self, ui: &mut Ui, total: u32) -> bool {
        let cached = self.frames.len();
        self.playback.timeline(ui, cached, total, "simulating…")
    }

    /// Play/Step/Reset and the run's options (from here, live, exports).
    pub fn controls(&mut self, ui: &mut Ui, doc: &EditorDoc, base_dir: &Path) -> bool {
        let mut changed = match run_buttons(ui, self.playback.is_playing()) {
            Some(RunButton::PlayPause) => self.toggle_play(doc, base_dir),
            Some(RunButton::Step) => self.step_frame(doc, base_dir),
            Some(RunButton::Reset) => {
                self.loaded = None; // a fresh run even when the graph did not change
                let reloaded = self.reload(doc, base_dir);
                self.worker.send(Command::Reset);
                reloaded
            }
            None => false,
        };
        ui.checkbox(&mut self.edit_policy.from_here, "from here")
            .hint(FROM_HERE_HELP);
        ui.checkbox(&mut self.edit_policy.live, "live")
            .hint(LIVE_HELP);
        let r = ui.checkbox(&mut self.write_exports, "exports");
        let r = r.hint(
            "Run export nodes (PLY/PNG files under <graph folder>/out). Off: export nodes are \
             left out of editor runs.",
        );
        if r.changed() {
            changed |= self.reload(doc, base_dir);
        }
        changed
    }
}
