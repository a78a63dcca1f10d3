//! The whole editor driven headless as a user drives it: key presses and clicks on painted
//! labels, one `App::ui` pass at a time (0.1 s of egui time apart).

use egui::{Event, Key, Modifiers, PointerButton, Pos2, RawInput, Rect, Shape};
use flip_editor::run::autorun::AutoRun;
use flip_editor::{App, Options};
use flip_graph::{GraphDoc, NodeRegistry};
use flip_host::{default_plugin_dirs, PluginSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A shipped graph made small (`grid`² cells, `frames` frames) and saved in a fresh folder.
pub fn small_graph(
    name: &str,
    grid: usize,
    frames: u32,
    edit: impl FnOnce(&mut GraphDoc),
) -> PathBuf {
    let shipped = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../graphs")
        .join(name);
    let mut doc = GraphDoc::load(&shipped).unwrap();
    doc.settings.grid = [grid, grid, 1];
    doc.settings.cell_size = 1.0 / grid as f32;
    doc.settings.frames = frames;
    edit(&mut doc);
    let dir = std::env::temp_dir().join(format!(
        "flip-editor-ui-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    doc.save(&path).unwrap();
    path
}

/// A shipped graph file copied as it is into a fresh folder.
pub fn shipped_copy(name: &str) -> PathBuf {
    let path = small_graph(name, 8, 1, |_| {});
    let shipped = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../graphs")
        .join(name);
    std::fs::copy(shipped, &path).unwrap();
    path
}

static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The built-in nodes and the solver plugins built alongside the tests.
pub fn plugins_and_registry() -> (Arc<PluginSet>, NodeRegistry) {
    let plugins = Arc::new(PluginSet::load_dirs(&default_plugin_dirs()));
    let registry = flip_nodes::builtin_registry(plugins.clone());
    (plugins, registry)
}

/// The editor in a 1600×1000 window.
pub struct EditorUi {
    pub ctx: egui::Context,
    pub app: App,
    /// The window title the app last asked for.
    pub title: String,
    time: f64,
}

impl EditorUi {
    /// The editor with `graph` open (`None`: the built-in scene).
    pub fn open(graph: Option<&Path>) -> Self {
        Self::with_recent(graph, None)
    }

    /// [`EditorUi::open`], keeping the recent graphs in `recent`.
    pub fn with_recent(graph: Option<&Path>, recent: Option<PathBuf>) -> Self {
        let (plugins, registry) = plugins_and_registry();
        let ctx = egui::Context::default();
        let opts = Options {
            graph: graph.map(Path::to_path_buf),
            auto: AutoRun::default(),
            recent,
        };
        let app = App::new(&ctx, plugins, registry, opts);
        let mut ui = Self {
            ctx,
            app,
            title: String::new(),
            time: 0.0,
        };
        ui.frames(3);
        ui
    }

    /// One UI pass with `events`; the shapes painted (groups flattened).
    pub fn frame(&mut self, events: Vec<Event>) -> Vec<Shape> {
        self.time += 0.1;
        let input = RawInput {
            screen_rect: Some(Rect::from_min_size(Pos2::ZERO, egui::vec2(1600.0, 1000.0))),
            time: Some(self.time),
            events,
            ..Default::default()
        };
        let app = &mut self.app;
        let out = self.ctx.run(input, |ctx| app.ui(ctx));
        for v in out.viewport_output.values() {
            for c in &v.commands {
                if let egui::ViewportCommand::Title(t) = c {
                    self.title = t.clone();
                }
            }
        }
        let mut shapes = vec![];
        flatten(out.shapes.into_iter().map(|s| s.shape), &mut shapes);
        shapes
    }

    /// `n` passes without input.
    pub fn frames(&mut self, n: usize) {
        for _ in 0..n {
            self.frame(vec![]);
        }
    }

    /// Passes (10 ms of real time apart) until `done` holds; panics after 60 s.
    pub fn until(&mut self, what: &str, done: impl Fn(&App) -> bool) {
        let start = Instant::now();
        while !done(&self.app) {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "timed out: {what}"
            );
            self.frame(vec![]);
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Presses `key` with `modifiers` (and lets the edit reach the simulation: edits are sent
    /// after 0.3 s of quiet).
    pub fn press(&mut self, key: Key, modifiers: Modifiers) {
        let event = |pressed| Event::Key {
            key,
            physical_key: None,
            pressed,
            repeat: false,
            modifiers,
        };
        self.frame(vec![event(true)]);
        self.frame(vec![event(false)]);
        self.settle();
    }

    /// A click at `pos` (then lets the edit reach the simulation).
    pub fn click(&mut self, pos: Pos2) {
        let button = |pressed| Event::PointerButton {
            pos,
            button: PointerButton::Primary,
            pressed,
            modifiers: Default::default(),
        };
        self.frame(vec![Event::PointerMoved(pos)]);
        self.frame(vec![button(true)]);
        self.frame(vec![button(false)]);
        self.settle();
    }

    /// Waits out the editor's delay before an edit reaches the simulation.
    pub fn settle(&mut self) {
        std::thread::sleep(Duration::from_millis(350));
        self.frames(3);
    }

    /// Where labels reading exactly `text` are painted (their centres).
    pub fn find_text(&mut self, text: &str) -> Vec<Pos2> {
        texts(&self.frame(vec![]))
            .into_iter()
            .filter(|(t, _)| t == text)
            .map(|(_, r)| r.center())
            .collect()
    }

    /// Every painted text.
    pub fn all_text(&mut self) -> Vec<String> {
        texts(&self.frame(vec![]))
            .into_iter()
            .map(|(t, _)| t)
            .collect()
    }
}

/// The painted texts and their rectangles.
pub fn texts(shapes: &[Shape]) -> Vec<(String, Rect)> {
    shapes
        .iter()
        .filter_map(|s| match s {
            Shape::Text(t) => Some((
                t.galley.text().to_string(),
                t.galley.rect.translate(t.pos.to_vec2()),
            )),
            _ => None,
        })
        .collect()
}

fn flatten(shapes: impl Iterator<Item = Shape>, out: &mut Vec<Shape>) {
    for s in shapes {
        match s {
            Shape::Vec(v) => flatten(v.into_iter(), out),
            s => out.push(s),
        }
    }
}

/// The bits of the particle positions of the frames.
pub fn position_bits(frames: impl Iterator<Item = Vec<[f32; 3]>>) -> Vec<Vec<[u32; 3]>> {
    frames
        .map(|f| f.iter().map(|p| p.map(f32::to_bits)).collect())
        .collect()
}

impl EditorUi {
    /// Types `text` into the value field at `pos`: a click opens it for typing, Ctrl+A selects
    /// what it holds, Enter confirms.
    pub fn type_into(&mut self, pos: Pos2, text: &str) {
        self.click(pos);
        self.press(Key::A, Modifiers::COMMAND);
        self.frame(vec![Event::Text(text.into())]);
        self.press(Key::Enter, Modifiers::NONE);
    }
}
