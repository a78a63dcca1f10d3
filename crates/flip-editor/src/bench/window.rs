//! The editor in a real window, as users run it: the app drawn through eframe's GL renderer
//! (Mesa's software rasteriser under Xvfb with `LIBGL_ALWAYS_SOFTWARE=1`, the GPU otherwise)
//! while it simulates, for the 2D dam break at SIZE² and the 3D drop at 48³. Reports the
//! simulation's steps/s in the editor and the UI frame times: the app's update, the CPU time
//! of a whole UI frame as eframe counts it (update, tessellation and GL calls, without the
//! buffer swap) and as the system does (the UI thread and the GL driver's threads, see
//! [`flip_editor::app::ui_cost`]); and, where asked, how long clicks on the node canvas take
//! to show (see [`super::clicks`]). The window repaints when the app asks (a new frame, an
//! animation, input), as it does for users.

use super::clicks::Clicker;
use flip_editor::run::autorun::AutoRun;
use flip_editor::{App, Options};
use flip_graph::{GraphDoc, NodeRegistry};
use flip_host::PluginSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

/// Seconds left out at the start (plugins, first frames, font atlas).
const WARM_UP: f64 = 3.0;

/// What one windowed run measured.
#[derive(Clone, Debug, Default)]
pub struct Windowed {
    /// The scene.
    pub name: String,
    /// Particles in the last frame.
    pub particles: usize,
    /// Simulation steps (substeps) and frames per second after the warm-up.
    pub steps_per_s: f64,
    pub frames_per_s: f64,
    /// Milliseconds in `App::ui` per UI frame, and CPU milliseconds of whole UI frames as
    /// eframe counts them and with the GL driver's threads.
    pub update_ms: Vec<f64>,
    pub frame_ms: Vec<f64>,
    pub full_frame_ms: Vec<f64>,
    /// Seconds from a click on a node to the frame showing it selected, and clicks missed.
    pub click_s: Vec<f64>,
    pub clicks_missed: usize,
    /// UI frames drawn per second.
    pub ui_frames_per_s: f64,
}

/// Opens the editor on `doc` for `seconds` (plus the warm-up) and measures it, clicking the
/// nodes `click` in turn if any.
pub fn measure(
    name: &str,
    doc: &GraphDoc,
    plugins: Arc<PluginSet>,
    registry: NodeRegistry,
    seconds: f64,
    click: Vec<String>,
) -> anyhow::Result<Windowed> {
    let path =
        std::env::temp_dir().join(format!("flipgraph-bench-{}-{name}.ron", std::process::id()));
    doc.save(&path)?;
    let result = Arc::new(Mutex::new(Windowed {
        name: name.into(),
        ..Default::default()
    }));
    let out = result.clone();
    let native = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_inner_size([1600.0, 1000.0])
            .with_title("flipgraph editor bench"),
        // the UI's flat colours do not band; dithering's noise costs every pixel of every frame
        // with Mesa's software rasteriser
        dithering: false,
        vsync: false,
        ..Default::default()
    };
    let graph: PathBuf = path.clone();
    eframe::run_native(
        "flipgraph editor bench",
        native,
        Box::new(move |cc| {
            let mut auto = AutoRun::default();
            auto.autoplay = true;
            let opts = Options {
                graph: Some(graph),
                auto,
                recent: None,
            };
            let app = App::new(&cc.egui_ctx, plugins, registry, opts);
            Ok(Box::new(Timed::new(app, seconds, out, click)))
        }),
    )
    .map_err(|e| anyhow::anyhow!("cannot open the window: {e}"))?;
    let _ = std::fs::remove_file(Path::new(&path));
    let measured = result
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    Ok(measured)
}

/// The app with a stopwatch around its UI frames.
struct Timed {
    app: App,
    start: Instant,
    seconds: f64,
    /// Steps and frames simulated at the end of the warm-up, and when.
    mark: Option<(usize, usize, Instant)>,
    out: Arc<Mutex<Windowed>>,
    /// The nodes to click after the warm-up, and the clicker once started.
    click: Vec<String>,
    clicker: Option<Clicker>,
}

impl Timed {
    fn new(app: App, seconds: f64, out: Arc<Mutex<Windowed>>, click: Vec<String>) -> Self {
        Self {
            app,
            start: Instant::now(),
            seconds,
            mark: None,
            out,
            click,
            clicker: None,
        }
    }

    /// Steps (substeps) and frames simulated so far.
    fn simulated(&self) -> (usize, usize) {
        let frames = self.app.frames();
        (frames.iter().map(|f| f.substeps).sum(), frames.len())
    }
}

impl eframe::App for Timed {
    fn clear_color(&self, visuals: &egui::Visuals) -> [f32; 4] {
        eframe::App::clear_color(&self.app, visuals)
    }

    fn raw_input_hook(&mut self, ctx: &egui::Context, raw: &mut egui::RawInput) {
        if let Some(clicker) = &mut self.clicker {
            clicker.input(&self.app, ctx, raw);
        }
    }

    fn update(&mut self, ctx: &egui::Context, frame: &mut eframe::Frame) {
        let full = self.app.record_frame_cost(frame.info().cpu_usage);
        let t = Instant::now();
        self.app.ui(ctx);
        let update = t.elapsed();
        if let Some(clicker) = &mut self.clicker {
            clicker.after_update(&self.app, ctx);
        }
        let elapsed = self.start.elapsed().as_secs_f64();
        if elapsed < WARM_UP {
            return;
        }
        if self.clicker.is_none() && !self.click.is_empty() {
            self.clicker = Some(Clicker::start(ctx.clone(), self.click.clone()));
        }
        let now = self.simulated();
        let (steps0, frames0, t0) = *self.mark.get_or_insert((now.0, now.1, t));
        let mut out = self.out.lock().unwrap_or_else(PoisonError::into_inner);
        out.update_ms.push(update.as_secs_f64() * 1e3);
        if let Some(cpu) = frame.info().cpu_usage {
            out.frame_ms.push(f64::from(cpu) * 1e3);
        }
        if let Some(cpu) = full {
            out.full_frame_ms.push(f64::from(cpu) * 1e3);
        }
        if let Some(clicker) = &self.clicker {
            out.click_s.clone_from(&clicker.latencies);
            out.clicks_missed = clicker.missed;
        }
        let span = t0.elapsed().as_secs_f64().max(1e-9);
        out.ui_frames_per_s = out.update_ms.len() as f64 / span;
        out.steps_per_s = (now.0 - steps0) as f64 / span;
        out.frames_per_s = (now.1 - frames0) as f64 / span;
        out.particles = self.app.frames().last().map_or(0, |f| f.particles);
        if elapsed >= WARM_UP + self.seconds {
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
    }
}

/// The table of the windowed runs.
pub fn print(runs: &[Windowed]) {
    let gl = match std::env::var("LIBGL_ALWAYS_SOFTWARE").as_deref() {
        Ok("1") | Ok("true") => "Mesa software GL (LIBGL_ALWAYS_SOFTWARE=1)",
        _ => "the default GL driver",
    };
    println!("\nThe editor in a 1600×1000 window, {gl}, simulating while it draws");
    println!(
        "| scene | particles | steps/s | frames/s | UI frames/s | update ms median / p95 | UI frame CPU ms (eframe) median / p95 / max | UI frame CPU ms (UI + GL threads) median / p95 / max | UI CPU share of a core |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in runs {
        let (u, f, g) = (
            quantiles(&r.update_ms),
            quantiles(&r.frame_ms),
            quantiles(&r.full_frame_ms),
        );
        let share = r.full_frame_ms.iter().sum::<f64>() * 1e-3 * r.ui_frames_per_s
            / r.full_frame_ms.len().max(1) as f64;
        println!(
            "| {} | {} | {:.1} | {:.1} | {:.1} | {:.1} / {:.1} | {:.1} / {:.1} / {:.1} | {:.1} / {:.1} / {:.1} | {:.0} % |",
            r.name,
            r.particles,
            r.steps_per_s,
            r.frames_per_s,
            r.ui_frames_per_s,
            u.0,
            u.1,
            f.0,
            f.1,
            f.2,
            g.0,
            g.1,
            g.2,
            100.0 * share
        );
    }
    for r in runs
        .iter()
        .filter(|r| !r.click_s.is_empty() || r.clicks_missed > 0)
    {
        let c = quantiles(&r.click_s);
        println!(
            "\nClicks on nodes while simulating {}: {} answered, {} missed; click to the frame showing it selected: median {:.3} s, max {:.3} s",
            r.name,
            r.click_s.len(),
            r.clicks_missed,
            c.0,
            c.2
        );
    }
}

/// Median, 95th percentile and largest value.
fn quantiles(xs: &[f64]) -> (f64, f64, f64) {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let at = |q: f64| {
        v.get(((v.len() as f64 - 1.0) * q).round() as usize)
            .copied()
    };
    (
        at(0.5).unwrap_or(f64::NAN),
        at(0.95).unwrap_or(f64::NAN),
        v.last().copied().unwrap_or(f64::NAN),
    )
}
