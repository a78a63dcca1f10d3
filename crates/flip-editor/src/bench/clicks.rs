//! Clicks on the node canvas while the editor simulates, and how long each takes to show. A
//! thread of its own plays the user: at uneven moments (0.5-1.1 s apart) it marks a click and
//! wakes the window, as an input event from the system does. The next UI frame gets the press
//! through egui's raw input, on the title of a node other than the selected one, and the frame
//! after it the release. The latency is from the mark to the start of the UI frame after the
//! one whose update first shows the node selected, i.e. until that frame was drawn (painted
//! and swapped).

use egui::{Event, PointerButton, Pos2, RawInput};
use flip_editor::App;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Where on a node a click lands: on its title text, as in the canvas tests.
const ON_TITLE: egui::Vec2 = egui::vec2(30.0, 14.0);
/// A click not shown after this long counts as missed.
const GIVE_UP: Duration = Duration::from_secs(5);

/// A click on its way through the UI frames.
#[derive(Clone, Debug)]
enum Stage {
    /// Marked by the user thread, not yet given to egui.
    Marked(Instant),
    /// Pressed on `node`'s title in a UI frame; released in the next.
    Pressed(Instant, String, Pos2),
    /// Released; waiting for a frame that shows `node` selected.
    Released(Instant, String),
    /// Shown selected by the last update: the click is answered once that frame is drawn.
    Shown(Instant),
}

/// The scripted user and the latencies measured.
pub struct Clicker {
    stage: Arc<Mutex<Option<Stage>>>,
    /// The nodes clicked in turn (graph-file ids).
    targets: Vec<String>,
    turn: usize,
    /// Seconds from each click to the frame showing its effect.
    pub latencies: Vec<f64>,
    /// Clicks whose node was not drawn where it could be clicked.
    pub missed: usize,
    stop: Arc<AtomicBool>,
}

impl Clicker {
    /// Starts clicking `targets` in turn on `ctx`'s window.
    pub fn start(ctx: egui::Context, targets: Vec<String>) -> Self {
        let stage = Arc::new(Mutex::new(None));
        let stop = Arc::new(AtomicBool::new(false));
        let (user_stage, user_stop) = (stage.clone(), stop.clone());
        let _ = std::thread::Builder::new()
            .name("bench clicks".into())
            .spawn(move || {
                for k in 0u64.. {
                    // uneven moments, so clicks do not lock onto the UI's rhythm
                    std::thread::sleep(Duration::from_millis(500 + (k * 277) % 600));
                    if user_stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let mut s = user_stage.lock().unwrap_or_else(PoisonError::into_inner);
                    // (a click still on its way is let finish)
                    if s.is_none() {
                        *s = Some(Stage::Marked(Instant::now()));
                        ctx.request_repaint();
                    }
                }
            });
        Self {
            stage,
            targets,
            turn: 0,
            latencies: vec![],
            missed: 0,
            stop,
        }
    }

    /// Before a UI frame: ends a click whose effect the last frame drew, and gives egui the
    /// press or release due.
    pub fn input(&mut self, app: &App, ctx: &egui::Context, raw: &mut RawInput) {
        let mut stage = self.stage.lock().unwrap_or_else(PoisonError::into_inner);
        let button = |pos, pressed| Event::PointerButton {
            pos,
            button: PointerButton::Primary,
            pressed,
            modifiers: Default::default(),
        };
        match stage.clone() {
            Some(Stage::Shown(at)) => {
                self.latencies.push(at.elapsed().as_secs_f64());
                *stage = None;
            }
            Some(Stage::Marked(at)) => {
                let selected = app.selected_ids();
                let node = (0..self.targets.len())
                    .map(|k| &self.targets[(self.turn + k) % self.targets.len()])
                    .find(|id| !selected.contains(id))
                    .cloned();
                self.turn += 1;
                let pos = node.as_ref().and_then(|id| {
                    let p = app.drawn_node_rect(ctx, id)?.min + ON_TITLE;
                    ctx.screen_rect().contains(p).then_some(p)
                });
                let (Some(node), Some(pos)) = (node, pos) else {
                    self.missed += 1;
                    *stage = None;
                    return;
                };
                raw.events.push(Event::PointerMoved(pos));
                raw.events.push(button(pos, true));
                *stage = Some(Stage::Pressed(at, node, pos));
                ctx.request_repaint();
            }
            Some(Stage::Pressed(at, node, pos)) => {
                raw.events.push(button(pos, false));
                *stage = Some(Stage::Released(at, node));
                ctx.request_repaint();
            }
            Some(Stage::Released(at, _)) if at.elapsed() > GIVE_UP => {
                self.missed += 1;
                *stage = None;
            }
            Some(Stage::Released(..)) | None => {}
        }
    }

    /// After a UI frame's update: whether it shows the clicked node selected.
    pub fn after_update(&mut self, app: &App, ctx: &egui::Context) {
        let mut stage = self.stage.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(Stage::Released(at, node)) = stage.clone() {
            if app.selected_ids() == [node] {
                *stage = Some(Stage::Shown(at));
                // the next frame's start marks this one drawn
                ctx.request_repaint();
            }
        }
    }
}

impl Drop for Clicker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}
