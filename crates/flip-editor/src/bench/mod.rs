//! The editor's interactivity targets, measured without a window:
//!
//! 1. simulated steps per second of the run mode (its simulation thread, with the per-frame
//!    state saving and frame capture the editor does) on the reference 2D dam break, next to
//!    the bare simulation (`Simulation::advance_frame` alone, what `flipgraph bench step`
//!    times) run right before and after it, so the machine's load changes show;
//! 2. UI frame times (the real app's `App::ui` plus egui's tessellation, no GPU upload) while
//!    the worker simulates `graphs/drop_3d.ron` (3D, 48³).
//!
//! ```sh
//! flipgraph-editor --bench [SIZE] [FRAMES] [UI_SECONDS] [SET…]
//! # defaults: 256 48 20; FRAMES 0 skips the run mode, UI_SECONDS 0 the UI frames;
//! # SET: overrides of the dam break, e.g. pressure.solver=multigrid/mgpcg
//! ```
//!
//! A flag of the editor binary rather than a `flipgraph bench` subcommand: it drives the real
//! `App` and the editor's worker thread, so it needs the GUI crates that the headless CLI must
//! not link. Run it from the repository root (it reads `graphs/`).

mod run_mode;
mod ui_frames;

use flip_graph::{GraphDoc, NodeRegistry};
use flip_host::{default_plugin_dirs, PluginSet};
use std::sync::Arc;

/// Runs the benchmark with the arguments after `--bench`.
pub fn run(args: impl IntoIterator<Item = String>) -> anyhow::Result<()> {
    let mut args = args.into_iter();
    let size: usize = args.next().map_or(Ok(256), |s| s.parse())?;
    let frames: u32 = args.next().map_or(Ok(48), |s| s.parse())?;
    let ui_seconds: f64 = args.next().map_or(Ok(20.0), |s| s.parse())?;
    let sets = flip_graph::overrides::parse_overrides(&args.collect::<Vec<_>>())?;
    let plugins = Arc::new(PluginSet::load_dirs(&default_plugin_dirs()));
    let registry = Arc::new(flip_nodes::builtin_registry(plugins.clone()));

    println!("load average before: {}", load_average());
    if frames > 0 {
        let mut doc = dam_break(size, frames)?;
        flip_graph::overrides::apply_overrides(&mut doc, &sets)?;
        if !sets.is_empty() {
            let texts: Vec<String> = sets.iter().map(ToString::to_string).collect();
            println!("overrides: {}", texts.join(" "));
        }
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
