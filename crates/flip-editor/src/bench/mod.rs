//! The editor's interactivity targets, measured without a window:
//!
//! 1. simulated steps per second of the run mode (its simulation thread, with the per-frame
//!    state saving and frame capture the editor does) on the reference 2D dam break, next to
//!    the bare simulation (`Simulation::advance_frame` alone, what `flipgraph bench step`
//!    times) run right before and after it, so the machine's load changes show;
//! 2. UI frame times (the real app's `App::ui` plus egui's tessellation, no GPU upload) while
//!    the worker simulates `graphs/drop_3d.ron` (3D, 48³).
//!
//! 3. with `window` first: the editor in a real window (eframe's GL renderer) simulating the
//!    2D dam break at SIZE² and then the 3D drop at 48³, steps/s and UI frame times as users
//!    see them, and in 3D the time from a click on a node to the frame showing it selected;
//!    under Xvfb with Mesa's software GL that is what CI and most remote users have.
//!
//! ```sh
//! flipgraph-editor --bench [SIZE] [FRAMES] [UI_SECONDS] [SET…]
//! # defaults: 256 48 20; FRAMES 0 skips the run mode, UI_SECONDS 0 the UI frames;
//! # SET: overrides of the dam break, e.g. pressure.solver=multigrid/mgpcg
//! LIBGL_ALWAYS_SOFTWARE=1 xvfb-run -a -s "-screen 0 1600x1000x24" \
//!     flipgraph-editor --bench window [SIZE] [SECONDS] [SET…]     # defaults: 256 20
//! ```
//!
//! A flag of the editor binary rather than a `flipgraph bench` subcommand: it drives the real
//! `App` and the editor's worker thread, so it needs the GUI crates that the headless CLI must
//! not link. Run it from the repository root (it reads `graphs/`).

mod clicks;
mod run_mode;
mod ui_frames;
mod window;

use flip_graph::{GraphDoc, NodeRegistry};
use flip_host::{default_plugin_dirs, PluginSet};
use std::sync::Arc;

/// Runs the benchmark with the arguments after `--bench`.
pub fn run(args: impl IntoIterator<Item = String>) -> anyhow::Result<()> {
    let mut args = args.into_iter().peekable();
    if args.peek().map(String::as_str) == Some("window") {
        args.next();
        return run_windowed(args);
    }
    let size: usize = args.next().map_or(Ok(256), |s| s.parse())?;
    let frames: u32 = args.next().map_or(Ok(48), |s| s.parse())?;
    let ui_seconds: f64 = args.next().map_or(Ok(20.0), |s| s.parse())?;
    let sets = flip_graph::overrides::parse_overrides(&args.collect::<Vec<_>>())?;
    let plugins = Arc::new(PluginSet::load_dirs(&default_plugin_dirs()));
    let registry = Arc::new(flip_nodes::builtin_registry(plugins.clone()));

    println!("load average before: {}", load_average());
    if frames > 0 {
        let mut doc = dam_break(size, frames)?;
        apply_and_show(&mut doc, &sets)?;
        let bare_before = run_mode::bare(&doc, &registry)?;
        let editor = run_mode::editor(&doc, registry.clone())?;
        let bare_after = run_mode::bare(&doc, &registry)?;
        println!("load average after the run mode: {}", load_average());
        run_mode::print_table(size, &[bare_before, editor, bare_after]);
    }

    if ui_seconds > 0.0 {
        let registry = flip_nodes::builtin_registry(plugins.clone());
        let ui = ui_frames::measure(plugins, registry, ui_seconds)?;
        println!("load average after the UI frames: {}", load_average());
        ui.print();
    }
    Ok(())
}

/// `--bench window [SIZE] [SECONDS] [SET…]`: the 2D dam break at SIZE² (with the overrides SET),
/// then the 3D drop at 48³, each in a window for SECONDS.
fn run_windowed(mut args: impl Iterator<Item = String>) -> anyhow::Result<()> {
    let size: usize = args.next().map_or(Ok(256), |s| s.parse())?;
    let seconds: f64 = args.next().map_or(Ok(20.0), |s| s.parse())?;
    let sets = flip_graph::overrides::parse_overrides(&args.collect::<Vec<_>>())?;
    let plugins = Arc::new(PluginSet::load_dirs(&default_plugin_dirs()));
    let registry = || flip_nodes::builtin_registry(plugins.clone());
    println!("load average before: {}", load_average());
    let mut dam = dam_break(size, 100_000)?;
    apply_and_show(&mut dam, &sets)?;
    let drop_text = include_str!("../../../../graphs/drop_3d.ron");
    let mut drop = GraphDoc::from_ron(drop_text, "drop_3d.ron")?;
    drop.settings.frames = 100_000;
    let runs = [
        window::measure(
            &format!("dam break 2D {size}²"),
            &dam,
            plugins.clone(),
            registry(),
            seconds,
            vec![],
        )?,
        window::measure(
            "drop 3D 48³",
            &drop,
            plugins.clone(),
            registry(),
            seconds,
            CLICKED_3D.iter().map(|s| s.to_string()).collect(),
        )?,
    ];
    println!("load average after: {}", load_average());
    window::print(&runs);
    Ok(())
}

/// Nodes of `graphs/drop_3d.ron` the window bench clicks in turn while the 3D drop simulates.
const CLICKED_3D: [&str; 3] = ["gravity", "p2g", "marker"];

/// Applies the command line's overrides to the dam break and says which they were.
fn apply_and_show(doc: &mut GraphDoc, sets: &[flip_graph::Override]) -> anyhow::Result<()> {
    flip_graph::overrides::apply_overrides(doc, sets)?;
    if !sets.is_empty() {
        let texts: Vec<String> = sets.iter().map(ToString::to_string).collect();
        println!("overrides of the dam break: {}", texts.join(" "));
    }
    Ok(())
}

/// The reference 2D dam break at `size`² cells for `frames` frames (one step per frame).
fn dam_break(size: usize, frames: u32) -> anyhow::Result<GraphDoc> {
    let text = include_str!("../../../../graphs/bench_dam_break_2d.ron");
    let mut doc = GraphDoc::from_ron(text, "bench_dam_break_2d.ron")?;
    doc.settings.grid = [size, size, 1];
    doc.settings.cell_size = 1.0 / size as f32;
    doc.settings.frames = frames;
    Ok(doc)
}

/// The 1, 5 and 15 minute load averages (`/proc/loadavg`), or "?" where unreadable.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg").map_or_else(
        |_| "?".into(),
        |s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
    )
}

/// The registry type both measurements share.
type Registry = Arc<NodeRegistry>;
