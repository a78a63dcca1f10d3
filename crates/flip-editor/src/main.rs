//! `flipgraph-editor [GRAPH] [--plugin-dir DIR]…`: the node editor. A separate binary keeps the
//! headless `flipgraph` CLI free of GUI dependencies.
#![forbid(unsafe_code)]

mod bench;

use anyhow::{anyhow, bail, Context as _, Result};
use flip_editor::app::recent::RecentFiles;
use flip_editor::run::autorun::AutoRun;
use flip_editor::viewport::camera::Overlay;
use flip_editor::{App, Options};
use flip_host::probe::{default_cache_dir, ProbeCommand};
use flip_host::{ChildCommand, LoadOptions, PluginSet};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;

const USAGE: &str = "\
usage: flipgraph-editor [GRAPH] [options]

Opens GRAPH (a graphs/*.ron file; default: the built-in 2D dam break).

options:
  --plugin-dir DIR         extra folder with solver plugins (repeatable; searched after the
                           bundled plugins, before $FLIPGRAPH_PLUGIN_PATH)
  --allow-plugin-override  let such a plugin replace a bundled one of the same id or name
  --compare                open in the compare mode with the graph's saved variants
  --autoplay               start playing at once
  --quit-after-frames N    pause after N frames and quit
  --screenshot PNG         with --quit-after-frames: save a screenshot of the window first
  --overlay KIND           show an overlay: none | level-set | cells
  --size WxH               window size in pixels (default 1600x900)
  --bench [SIZE] [FRAMES] [UI_SECONDS] [SET…]
                           time the run mode and the UI frames without a window, then quit
                           (defaults 256 48 20; run from the repository root)
  -h, --help               this text";

struct Args {
    graph: Option<PathBuf>,
    plugin_dirs: Vec<PathBuf>,
    allow_override: bool,
    auto: AutoRun,
    size: [f32; 2],
}

fn parse_args() -> Result<Args> {
    let mut args = Args {
        graph: None,
        plugin_dirs: vec![],
        allow_override: false,
        auto: AutoRun::default(),
        size: [1600.0, 900.0],
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or_else(|| anyhow!("{a} needs a value"));
        match a.as_str() {
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            "--plugin-dir" => args.plugin_dirs.push(value()?.into()),
            "--allow-plugin-override" => args.allow_override = true,
            "--probe-plugin" => {
                let file = PathBuf::from(value()?);
                std::process::exit(flip_host::probe::child_main(&file));
            }
            "--solver-child" => std::process::exit(flip_host::isolation::child_main()),
            "--bench" => {
                bench::run(it.by_ref())?;
                std::process::exit(0);
            }
            "--autoplay" => args.auto.autoplay = true,
            "--compare" => args.auto.compare = true,
            "--screenshot" => args.auto.screenshot = Some(value()?.into()),
            "--quit-after-frames" => {
                let v = value()?;
                args.auto.quit_after = Some(v.parse().with_context(|| format!("frames: {v}"))?);
            }
            "--overlay" => {
                args.auto.overlay = Some(match value()?.as_str() {
                    "none" => Overlay::None,
                    "level-set" | "levelset" => Overlay::LevelSet,
                    "cells" => Overlay::Cells,
                    other => bail!("unknown overlay `{other}` (none, level-set, cells)"),
                })
            }
            "--size" => {
                let v = value()?;
                let (w, h) = v
                    .split_once('x')
                    .ok_or_else(|| anyhow!("--size WxH, got {v}"))?;
                args.size = [w.parse()?, h.parse()?];
            }
            s if s.starts_with('-') => bail!("unknown option {s}\n\n{USAGE}"),
            _ if args.graph.is_none() => args.graph = Some(a.into()),
            _ => bail!("more than one graph given\n\n{USAGE}"),
        }
    }
    Ok(args)
}

/// Mesa's software rasteriser (llvmpipe) draws with a thread per core by default, which on a
/// small machine takes the cores from the simulation for a faster redraw nobody sees; one
/// render thread unless the user chose (GPU drivers ignore the variable). Measured with
/// `--bench window 256 15 pressure.solver=multigrid/mgpcg` under Xvfb on 2 cores: the 2D dam
/// break simulates at 14.2 steps/s in the window with one render thread, 8.1 with the default.
fn one_software_render_thread() {
    if std::env::var_os("LP_NUM_THREADS").is_none() {
        // the first thing main does: no other thread reads the environment yet
        std::env::set_var("LP_NUM_THREADS", "1");
    }
}

fn main() -> Result<()> {
    one_software_render_thread();
    let args = parse_args()?;
    // New plugin libraries are probed in a child (this binary with --probe-plugin FILE).
    let opts = LoadOptions {
        allow_override: args.allow_override,
        probe: ProbeCommand::current_exe(&["--probe-plugin"]).ok(),
        // Isolated solvers (`isolation = "process"`) run in this binary with --solver-child.
        solver_child: ChildCommand::current_exe(&["--solver-child"]).ok(),
        cache_dir: default_cache_dir(),
        builtin_node_kinds: flip_nodes::builtin_kind_names(),
        ..LoadOptions::with_user_dirs(&args.plugin_dirs)
    };
    let plugins = Arc::new(PluginSet::load(&opts));
    for r in &plugins.refused {
        eprintln!("flipgraph-editor: plugin refused: {r}");
    }
    for w in &plugins.warnings {
        eprintln!("flipgraph-editor: warning: {w}");
    }
    let registry = flip_nodes::builtin_registry(plugins.clone());
    let exit_code = args.auto.exit_code.clone();
    // scripted runs leave the user's recent graphs alone
    let recent = (!args.auto.active())
        .then(RecentFiles::default_list)
        .flatten();
    let opts = Options {
        graph: args.graph,
        auto: args.auto,
        recent,
    };
    let native = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_inner_size(args.size)
            .with_title("flipgraph editor"),
        // the UI's flat colours do not band; dithering's noise costs every pixel of every frame
        // with Mesa's software rasteriser
        dithering: false,
        ..Default::default()
    };
    let started = eframe::run_native(
        "flipgraph editor",
        native,
        Box::new(move |cc| Ok(Box::new(App::new(&cc.egui_ctx, plugins, registry, opts)))),
    )
    .map_err(|e| anyhow!("cannot start the window: {e}"));
    // The window closed: a solve still running on the editor's thread ends with the process.
    flip_host::host_exits();
    started?;
    match exit_code.load(Ordering::Relaxed) {
        0 => Ok(()),
        code => std::process::exit(code),
    }
}
