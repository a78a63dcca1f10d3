//! Scripted runs (`--autoplay --screenshot out.png --quit-after-frames 20`, optionally
//! `--compare`): play, wait for N frames, capture the window with `ViewportCommand::Screenshot`,
//! save it as PNG and quit. Used by `tests/editor_smoke.sh` under Xvfb.

use crate::viewport::camera::Overlay;
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

/// What a scripted run waits for in the shown mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Frames done.
    pub frames: usize,
    /// Whether the run is over.
    pub finished: bool,
    /// Whether it is broken (run mode: invalid graph or failed run; compare mode: every
    /// variant failed).
    pub broken: bool,
}

/// What a scripted run asks of the app after a UI update.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AutoAction {
    /// Nothing.
    Wait,
    /// Simulate one more frame.
    Step,
    /// Let the window close (it was asked to).
    Close,
}

impl AutoRun {
    /// Whether the app will quit by itself.
    pub fn active(&self) -> bool {
        self.screenshot.is_some() || self.quit_after.is_some()
    }

    /// Advances the script by one UI update of a mode at `progress`; `problems` names what
    /// went wrong (printed when the run stops).
    pub fn advance(
        &mut self,
        ctx: &Context,
        progress: Progress,
        problems: impl FnOnce() -> String,
    ) -> AutoAction {
        let target = self.quit_after.unwrap_or(1) as usize;
        let Progress {
            frames: n,
            finished,
            broken,
        } = progress;
        let mut action = AutoAction::Wait;
        match self.stage {
            Stage::Running => {
                if n >= target || finished || broken {
                    if broken {
                        self.exit_code.store(2, Ordering::Relaxed);
                    }
                    let problems = problems();
                    if !problems.is_empty() {
                        eprintln!("flipgraph-editor: {problems}");
                    }
                    self.stage = Stage::Settle(3);
                } else if self.stepped <= n {
                    // One frame at a time, so the run stops at exactly `target` frames.
                    self.stepped = n + 1;
                    action = AutoAction::Step;
                }
            }
            Stage::Settle(0) => {
                if self.screenshot.is_some() {
                    ctx.send_viewport_cmd(ViewportCommand::Screenshot);
                    self.stage = Stage::Requested;
                } else {
                    self.stage = Stage::Done;
                }
            }
            Stage::Settle(n) => self.stage = Stage::Settle(n - 1),
            Stage::Requested => self.take_screenshot(ctx, n),
            Stage::Done => {
                action = AutoAction::Close;
                ctx.send_viewport_cmd(ViewportCommand::Close);
            }
        }
        ctx.request_repaint();
        action
    }

    /// Saves the screenshot once it arrived (`frames`: how many were simulated).
    fn take_screenshot(&mut self, ctx: &Context, frames: usize) {
        let image = ctx.input(|i| {
            i.raw.events.iter().find_map(|e| match e {
                egui::Event::Screenshot { image, .. } => Some(image.clone()),
                _ => None,
            })
        });
        let (Some(image), Some(path)) = (image, self.screenshot.clone()) else {
            return;
        };
        match save_png(&image, &path) {
            Ok(()) => println!(
                "flipgraph-editor: screenshot {} ({}x{}) after {} frame(s)",
                path.display(),
                image.size[0],
                image.size[1],
                frames
            ),
            Err(e) => {
                eprintln!("flipgraph-editor: cannot write {}: {e}", path.display());
                self.exit_code.store(1, Ordering::Relaxed);
            }
        }
        self.stage = Stage::Done;
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
