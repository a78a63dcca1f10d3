//! The real app driven headless: a UI frame completes while the worker is stuck in a long
//! step (the UI never waits for the simulation), and the frame shows up once the step ends.

mod common;

use egui::{Pos2, RawInput, Rect};
use flip_editor::run::autorun::AutoRun;
use flip_editor::{App, Options};
use flip_graph::{EvalCtx, Node, NodeError, NodeIo, NodeKind, NodeRegistry, NodeSpec, PortSpec};
use flip_host::PluginSet;
use flip_nodes::kinds::{TypedInputs, PARTICLES};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Set when the slow node's step has begun.
static ENTERED: AtomicBool = AtomicBool::new(false);
/// Lets the slow node's step finish.
static RELEASE: AtomicBool = AtomicBool::new(false);

/// Passes the particles on once [`RELEASE`] is set (or after 30 s, or when cancelled).
struct Slow;

impl Node for Slow {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        ENTERED.store(true, Ordering::SeqCst);
        let start = Instant::now();
        while !RELEASE.load(Ordering::SeqCst)
            && !ctx.cancel.load(Ordering::SeqCst)
            && start.elapsed() < Duration::from_secs(30)
        {
            std::thread::sleep(Duration::from_millis(5));
        }
        let p = io.particles("particles")?;
        io.set("particles", flip_graph::Value::shared(PARTICLES, p));
        Ok(())
    }
}

fn registry() -> NodeRegistry {
    let spec = NodeSpec {
        kind: "slow".into(),
        label: "Slow".into(),
        category: "Test".into(),
        help: String::new(),
        inputs: vec![PortSpec::new("particles", PARTICLES, "in")],
        outputs: vec![PortSpec::new("particles", PARTICLES, "out")],
        params: vec![],
        ..Default::default()
    };
    let mut r = NodeRegistry::with_state(flip_nodes::kinds::state_slots());
    r.register(NodeKind::new(spec, Box::new(|_| Ok(Box::new(Slow)))))
        .unwrap();
    r
}

/// One UI pass of the app; how long it took.
fn ui_frame(ctx: &egui::Context, app: &mut App, time: f64) -> Duration {
    let start = Instant::now();
    let input = RawInput {
        screen_rect: Some(Rect::from_min_size(Pos2::ZERO, egui::vec2(1600.0, 1000.0))),
        time: Some(time),
        ..Default::default()
    };
    let out = ctx.run(input, |ctx| app.ui(ctx));
    let _ = ctx.tessellate(out.shapes, out.pixels_per_point);
    start.elapsed()
}

#[test]
fn a_ui_frame_completes_while_the_worker_is_in_a_long_step() {
    let mut doc = common::graph("slow", false);
    doc.nodes[1].kind = "slow".into();
    let path =
        std::env::temp_dir().join(format!("flip-editor-ui-frame-{}.ron", std::process::id()));
    doc.save(&path).unwrap();
    let ctx = egui::Context::default();
    let mut auto = AutoRun::default();
    auto.autoplay = true;
    let opts = Options {
        graph: Some(path.clone()),
        auto,
        recent: None,
    };
    let mut app = App::new(&ctx, Arc::new(PluginSet::default()), registry(), opts);
    let mut time = 0.0;
    let start = Instant::now();
    while !ENTERED.load(Ordering::SeqCst) {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the step never began"
        );
        time += 0.1;
        ui_frame(&ctx, &mut app, time);
        std::thread::sleep(Duration::from_millis(10));
    }
    for _ in 0..5 {
        time += 0.1;
        let took = ui_frame(&ctx, &mut app, time);
        assert!(
            took < Duration::from_millis(500),
            "a UI frame took {took:?}"
        );
    }
    assert!(app.is_simulating(), "the step is still running");
    assert_eq!(app.cached_frames(), 0, "the first frame is not done yet");
    RELEASE.store(true, Ordering::SeqCst);
    let released = Instant::now();
    while app.cached_frames() == 0 {
        assert!(
            released.elapsed() < Duration::from_secs(20),
            "no frame arrived"
        );
        time += 0.1;
        ui_frame(&ctx, &mut app, time);
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = std::fs::remove_file(path);
}
