//! UI frame times of the real app, headless, while its worker simulates a 3D graph.

use egui::{Pos2, RawInput, Rect};
use flip_editor::run::autorun::AutoRun;
use flip_editor::{App, Options};
use flip_graph::NodeRegistry;
use flip_host::PluginSet;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The 3D scene simulated meanwhile (48³ cells).
const GRAPH: &str = "graphs/drop_3d.ron";
/// A display's refresh period: frames are started no faster than this (like vsync).
const PERIOD: Duration = Duration::from_micros(16_667);
/// First frames left out of the statistics (font atlas, first layout).
const WARM_UP: usize = 3;

/// Frame times and how far the simulation got meanwhile.
pub struct UiFrames {
    times_ms: Vec<f64>,
    /// CPU time the UI thread spent on each frame (the rest of `times_ms` it waited for a core).
    cpu_ms: Vec<f64>,
    /// Per UI frame: whether a new simulation frame came in during it.
    new_frame: Vec<bool>,
    sim_frames: usize,
    sim_running: bool,
    seconds: f64,
}

/// Runs `App::ui` and egui's tessellation in a loop for `seconds` with [`GRAPH`] playing.
pub fn measure(
    plugins: Arc<PluginSet>,
    registry: NodeRegistry,
    seconds: f64,
) -> anyhow::Result<UiFrames> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(GRAPH);
    anyhow::ensure!(path.exists(), "{} is missing", path.display());
    let ctx = egui::Context::default();
    let mut auto = AutoRun::default();
    auto.autoplay = true;
    let opts = Options {
        graph: Some(path),
        auto,
        recent: None,
    };
    let mut app = App::new(&ctx, plugins, registry, opts);
    let start = Instant::now();
    let (mut times_ms, mut cpu_ms, mut new_frame) = (vec![], vec![], vec![]);
    while start.elapsed().as_secs_f64() < seconds {
        let (t, cpu) = (Instant::now(), thread_cpu_ms());
        let cached = app.cached_frames();
        let input = RawInput {
            screen_rect: Some(Rect::from_min_size(Pos2::ZERO, egui::vec2(1600.0, 1000.0))),
            time: Some(start.elapsed().as_secs_f64()),
            ..Default::default()
        };
        let out = ctx.run(input, |ctx| app.ui(ctx));
        let primitives = ctx.tessellate(out.shapes, out.pixels_per_point);
        std::hint::black_box(primitives);
        let took = t.elapsed();
        times_ms.push(took.as_secs_f64() * 1e3);
        cpu_ms.push(thread_cpu_ms() - cpu);
        new_frame.push(app.cached_frames() != cached);
        std::thread::sleep(PERIOD.saturating_sub(took));
    }
    Ok(UiFrames {
        times_ms,
        cpu_ms,
        new_frame,
        sim_frames: app.cached_frames(),
        sim_running: app.is_simulating(),
        seconds: start.elapsed().as_secs_f64(),
    })
}

impl UiFrames {
    /// Median, 95th percentile and largest frame time, and the share over 50 ms.
    pub fn print(&self) {
        let mut t: Vec<f64> = self.times_ms.iter().skip(WARM_UP).copied().collect();
        t.sort_by(f64::total_cmp);
        let at = |q: f64| {
            t.get(((t.len() as f64 - 1.0) * q).round() as usize)
                .copied()
        };
        let over = t.iter().filter(|&&ms| ms >= 50.0).count();
        println!("\nUI frames (App::ui + tessellation, 1600×1000, no GPU) while {GRAPH} simulates");
        println!(
            "seconds  UI frames  median ms  p95 ms  max ms  ≥ 50 ms  sim frames  still simulating"
        );
        println!(
            "{:>7.1}  {:>9}  {:>9.2}  {:>6.2}  {:>6.2}  {:>7}  {:>10}  {}",
            self.seconds,
            t.len(),
            at(0.5).unwrap_or(f64::NAN),
            at(0.95).unwrap_or(f64::NAN),
            t.last().copied().unwrap_or(f64::NAN),
            over,
            self.sim_frames,
            self.sim_running,
        );
        let slow_on_new = (WARM_UP..self.times_ms.len())
            .filter(|&i| self.times_ms[i] >= 50.0 && self.new_frame[i])
            .count();
        println!("of the frames ≥ 50 ms, {slow_on_new} took in a new simulation frame");
        let slow_cpu: Vec<usize> = (WARM_UP..self.times_ms.len())
            .filter(|&i| self.cpu_ms[i] >= 50.0)
            .collect();
        let mut cpu: Vec<f64> = self.cpu_ms.iter().skip(WARM_UP).copied().collect();
        cpu.sort_by(f64::total_cmp);
        println!(
            "UI thread CPU ms per frame: median {:.2}, p95 {:.2}, max {:.2}; ≥ 50 ms of CPU: {} (UI frames {slow_cpu:?})",
            cpu.get(cpu.len() / 2).copied().unwrap_or(f64::NAN),
            cpu.get(cpu.len() * 95 / 100).copied().unwrap_or(f64::NAN),
            cpu.last().copied().unwrap_or(f64::NAN),
            slow_cpu.len(),
        );
        if let Some(first) = self.times_ms.first() {
            println!("(first {WARM_UP} frames left out; the first took {first:.1} ms)");
        }
    }
}

/// CPU time of the calling thread, ms.
fn thread_cpu_ms() -> f64 {
    let ts = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 * 1e-6
}
