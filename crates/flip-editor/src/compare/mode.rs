//! The compare mode's state: the variant list the user edits ([`crate::compare::drafts`]), and
//! the frames and metrics of the last run, one cache per variant, scrubbed together by one
//! playback.

use crate::compare::drafts::{initial_drafts, list_problem, VariantDraft};
use crate::compare::worker::{CompareCommand, CompareEvent, CompareWorker, VariantStart};
use crate::frames::{enforce_budget, FrameData, CACHE_BUDGET_BYTES};
use crate::run::autorun::Progress;
use crate::run::playback::Playback;
use crate::viewport::camera::Camera;
use flip_graph::{GraphDoc, NodeRegistry};
use flip_nodes::compare::FrameMetrics;
use std::path::PathBuf;
use std::sync::Arc;

/// One variant of the current run.
pub struct VariantView {
    /// Name, grid and any failure at start.
    pub start: VariantStart,
    /// Frames (index = frame − 1); `None` from its failure on.
    pub frames: Vec<Option<Arc<FrameData>>>,
    /// Metrics of the frames it completed.
    pub metrics: Vec<FrameMetrics>,
}

/// The compare mode.
pub struct CompareMode {
    /// The variant list being edited (the first is the baseline).
    pub drafts: Vec<VariantDraft>,
    /// Frames to simulate.
    pub frames: u32,
    registry: Arc<NodeRegistry>,
    wake: Arc<dyn Fn() + Send + Sync>,
    worker: Option<CompareWorker>,
    gen: u64,
    /// Variants of the current run.
    pub variants: Vec<VariantView>,
    /// Why the run could not start.
    pub problem: Option<String>,
    /// Frames completed by the run.
    pub done: usize,
    /// The shown frame (of every variant), following, simulating.
    pub playback: Playback,
    /// The drafts changed since the run was started.
    pub stale: bool,
    /// One camera for every viewport, so they stay aligned.
    pub cam: Camera,
}

impl CompareMode {
    /// An idle compare mode; its thread starts with the first run.
    pub fn new(registry: Arc<NodeRegistry>, wake: impl Fn() + Send + Sync + 'static) -> Self {
        Self {
            drafts: vec![],
            frames: 0,
            registry,
            wake: Arc::new(wake),
            worker: None,
            gen: 0,
            variants: vec![],
            problem: None,
            done: 0,
            playback: Playback::default(),
            stale: false,
            cam: Camera::default(),
        }
    }

    fn send(&mut self, cmd: CompareCommand) {
        let worker = self.worker.get_or_insert_with(|| {
            let wake = self.wake.clone();
            CompareWorker::spawn(self.registry.clone(), move || wake())
        });
        worker.send(cmd);
    }

    /// Builds the drafts' variants of `doc` (paused at frame 0; drops the old run's frames).
    pub fn load(&mut self, doc: &GraphDoc, base_dir: PathBuf) {
        self.gen += 1;
        self.variants.clear();
        self.problem = list_problem(&self.drafts);
        self.done = 0;
        self.playback = Playback::default();
        self.stale = false;
        if self.problem.is_some() {
            return;
        }
        if self.frames == 0 {
            self.frames = doc.settings.frames.max(1);
        }
        let Ok(variants) = self.drafts.iter().map(VariantDraft::spec).collect() else {
            return; // list_problem said why
        };
        self.send(CompareCommand::Load {
            gen: self.gen,
            doc: Box::new(doc.clone()),
            variants,
            base_dir,
            frames: self.frames,
        });
    }

    /// Starts over for another document: its saved variants, no run.
    pub fn forget(&mut self, doc: &GraphDoc) {
        self.pause();
        self.gen += 1;
        self.variants.clear();
        self.drafts = initial_drafts(doc);
        self.frames = doc.settings.frames;
        (self.problem, self.done, self.playback.shown) = (None, 0, 0);
        (self.playback.finished, self.stale) = (false, false);
    }

    /// Whether a run is loaded (and not stale).
    pub fn loaded(&self) -> bool {
        !self.variants.is_empty() && !self.stale
    }

    /// Play or pause.
    pub fn toggle_play(&mut self) {
        let p = &mut self.playback;
        if self.problem.is_some() {
            // Nothing was loaded (bad list): nothing to play.
            p.playing = false;
            return;
        }
        p.follow = true;
        p.playing = !p.playing;
        let cmd = if p.playing {
            CompareCommand::Play
        } else {
            CompareCommand::Pause
        };
        self.send(cmd);
    }

    /// Pauses (leaving the mode).
    pub fn pause(&mut self) {
        if self.playback.playing {
            self.toggle_play();
        }
    }

    /// One frame of every variant.
    pub fn step(&mut self) {
        if self.problem.is_some() {
            return;
        }
        self.playback.follow = true;
        self.send(CompareCommand::Step);
    }

    /// Whether every variant has failed.
    pub fn all_failed(&self) -> bool {
        self.problem.is_some()
            || (!self.variants.is_empty()
                && self.variants.iter().all(|v| v.start.failure.is_some()))
    }

    /// Frames done, whether the run is over, whether every variant failed: what a scripted
    /// run waits for.
    pub fn progress(&self) -> Progress {
        Progress {
            frames: self.done,
            finished: self.playback.finished,
            broken: self.all_failed(),
        }
    }

    /// One line naming what went wrong (empty: nothing).
    pub fn problem_summary(&self) -> String {
        let failed = self.variants.iter().filter_map(|v| {
            let msg = v.start.failure.as_ref()?;
            Some(format!("variant `{}` failed: {msg}", v.start.name))
        });
        let all: Vec<String> = self.problem.iter().cloned().chain(failed).collect();
        all.join("; ")
    }

    /// Applies the thread's events; returns whether anything changed.
    pub fn poll(&mut self) -> bool {
        let Some(worker) = &self.worker else {
            return false;
        };
        let events: Vec<CompareEvent> = worker.rx.try_iter().collect();
        let changed = !events.is_empty();
        for e in events {
            self.apply(e);
        }
        changed
    }

    fn apply(&mut self, e: CompareEvent) {
        match e {
            CompareEvent::Loaded { gen, variants } if gen == self.gen => {
                self.variants = variants
                    .into_iter()
                    .map(|start| VariantView {
                        start,
                        frames: vec![],
                        metrics: vec![],
                    })
                    .collect();
            }
            CompareEvent::Invalid { gen, message } if gen == self.gen => {
                self.problem = Some(message);
            }
            CompareEvent::VariantFailed {
                gen,
                index,
                message,
            } if gen == self.gen => {
                if let Some(v) = self.variants.get_mut(index) {
                    v.start.failure = Some(message);
                }
            }
            CompareEvent::Frame {
                gen,
                frame,
                variants,
            } if gen == self.gen => {
                let budget = CACHE_BUDGET_BYTES / variants.len().max(1);
                for (v, f) in self.variants.iter_mut().zip(variants) {
                    v.frames.resize(frame as usize - 1, None);
                    match f {
                        Some(f) => {
                            v.frames.push(Some(Arc::from(f.data)));
                            v.metrics.push(f.metrics);
                            enforce_budget_of(&mut v.frames, budget);
                        }
                        None => v.frames.push(None),
                    }
                }
                self.done = frame as usize;
                self.playback.arrived(self.done);
            }
            CompareEvent::Playing {
                gen,
                playing,
                finished,
            } if gen == self.gen => {
                self.playback.worker_says(playing, finished);
            }
            _ => {}
        }
    }

    /// Variant `i`'s frame on screen (`None` before its first frame or after its failure).
    pub fn shown_frame(&self, i: usize) -> Option<&Arc<FrameData>> {
        self.variants
            .get(i)?
            .frames
            .get(self.playback.shown)?
            .as_ref()
    }
}

/// [`enforce_budget`] over the frames a variant still has.
fn enforce_budget_of(frames: &mut [Option<Arc<FrameData>>], budget: usize) {
    let kept: Vec<usize> = (0..frames.len()).filter(|&i| frames[i].is_some()).collect();
    let mut live: Vec<Arc<FrameData>> = kept.iter().filter_map(|&i| frames[i].take()).collect();
    enforce_budget(&mut live, budget);
    for (i, f) in kept.into_iter().zip(live) {
        frames[i] = Some(f);
    }
}
