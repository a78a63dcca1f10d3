//! Scripted runs (`--autoplay --screenshot out.png --quit-after-frames 20`, optionally
//! `--compare`): play, wait for N frames, capture the window with `ViewportCommand::Screenshot`,
//! save it as PNG and quit. Used by `tests/editor_smoke.sh` under Xvfb.

use crate::app::App;
use crate::viewport::Overlay;
use egui::{Context, ViewportCommand};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;

/// Progress of a scripted run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Stage {
    /// Simulating.
    #[default]
    Running,
    /// Target reached; repaint a few times so the last frame is on screen.
    Settle(u8),
    /// Screenshot requested.
    Requested,
    /// Closing.
    Done,
}

/// Command-line automation.
#[derive(Debug, Default)]
pub struct AutoRun {
    /// Start playing at once (implied by a screenshot or frame limit, which step exactly that
    /// many frames).
    pub autoplay: bool,
    /// Save a screenshot here when done.
    pub screenshot: Option<PathBuf>,
    /// Stop (and quit) after this many frames.
    pub quit_after: Option<u32>,
    /// Overlay to show.
    pub overlay: Option<Overlay>,
    /// Open in the compare mode with the graph's saved variants (steps count compare frames).
    pub compare: bool,
    /// Process exit code: 0, or 2 when the graph was invalid or the run failed.
    pub exit_code: Arc<AtomicI32>,
    stage: Stage,
    /// Frames requested so far (scripted runs step frame by frame).
    stepped: usize,
}

impl AutoRun {
    /// Whether the app will quit by itself.
    pub fn active(&self) -> bool {
        self.screenshot.is_some() || self.quit_after.is_some()
    }
}

/// Writes an egui screenshot as PNG.
///
/// # Errors
/// The image crate's error.
pub fn save_png(image: &egui::ColorImage, path: &Path) -> Result<(), image::ImageError> {
    let [w, h] = image.size;
    let bytes: Vec<u8> = image.pixels.iter().flat_map(|c| c.to_array()).collect();
    image::save_buffer(
        path,
        &bytes,
        w as u32,
        h as u32,
        image::ExtendedColorType::Rgba8,
    )
}

impl App {
    /// Advances a scripted run; called once per UI update.
    pub(crate) fn auto_step(&mut self, ctx: &Context) {
        if !self.auto.active() {
            return;
        }
        let target = self.auto.quit_after.unwrap_or(1) as usize;
        let (n, finished, broken) = self.auto_progress();
        match self.auto.stage {
            Stage::Running => {
                if n >= target || finished || broken {
                    if broken {
                        self.auto.exit_code.store(2, Ordering::Relaxed);
                    }
                    let problems = self.problem_summary();
                    if !problems.is_empty() {
                        eprintln!("flipgraph-editor: {problems}");
                    }
                    self.auto.stage = Stage::Settle(3);
                } else if self.auto.stepped <= n {
                    // One frame at a time, so the run stops at exactly `target` frames.
                    self.auto.stepped = n + 1;
                    if self.compare.active {
                        self.compare.step();
                    } else {
                        self.worker.send(crate::run::worker::Command::Step);
                    }
                }
            }
            Stage::Settle(0) => {
                if self.auto.screenshot.is_some() {
                    ctx.send_viewport_cmd(ViewportCommand::Screenshot);
                    self.auto.stage = Stage::Requested;
                } else {
                    self.auto.stage = Stage::Done;
                }
            }
            Stage::Settle(n) => self.auto.stage = Stage::Settle(n - 1),
            Stage::Requested => self.take_screenshot(ctx),
            Stage::Done => {
                self.allow_close = true;
                ctx.send_viewport_cmd(ViewportCommand::Close);
            }
        }
        ctx.request_repaint();
    }

    fn take_screenshot(&mut self, ctx: &Context) {
        let image = ctx.input(|i| {
            i.raw.events.iter().find_map(|e| match e {
                egui::Event::Screenshot { image, .. } => Some(image.clone()),
                _ => None,
            })
        });
        let (Some(image), Some(path)) = (image, self.auto.screenshot.clone()) else {
            return;
        };
        match save_png(&image, &path) {
            Ok(()) => println!(
                "flipgraph-editor: screenshot {} ({}x{}) after {} frame(s)",
                path.display(),
                image.size[0],
                image.size[1],
                self.auto_progress().0
            ),
            Err(e) => {
                eprintln!("flipgraph-editor: cannot write {}: {e}", path.display());
                self.auto.exit_code.store(1, Ordering::Relaxed);
            }
        }
        self.auto.stage = Stage::Done;
    }

    /// Frames done, whether the run is over, whether it is broken (run mode: invalid graph or
    /// failed run; compare mode: every variant failed).
    fn auto_progress(&self) -> (usize, bool, bool) {
        let c = &self.compare;
        if c.active {
            return (c.done, c.finished, c.all_failed());
        }
        let broken = self.failure.is_some() || !self.invalid.is_empty();
        (self.frames.len(), self.finished, broken)
    }

    /// One line naming what went wrong (empty: nothing).
    pub(crate) fn problem_summary(&self) -> String {
        if self.compare.active {
            let failed = self.compare.variants.iter().filter_map(|v| {
                let msg = v.start.failure.as_ref()?;
                Some(format!("variant `{}` failed: {msg}", v.start.name))
            });
            let all: Vec<String> = self.compare.problem.iter().cloned().chain(failed).collect();
            return all.join("; ");
        }
        if let Some((node, msg)) = &self.failure {
            return match node {
                Some(n) => format!("node `{n}` failed: {msg}"),
                None => msg.clone(),
            };
        }
        let mut all: Vec<String> = self
            .invalid
            .iter()
            .flat_map(|(n, errs)| errs.iter().map(move |e| format!("node `{n}`: {e}")))
            .collect();
        all.sort();
        all.join("; ")
    }
}
