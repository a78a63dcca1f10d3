//! `flipgraph run`.

use crate::session::{format_errors, Session};
use crate::summary::RunSummary;
use anyhow::{anyhow, Context, Result};
use clap::Args;
use flip_graph::{RunPaths, Simulation};
use flip_plugin::sanitize;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};

/// Arguments of `run`.
#[derive(Args)]
pub struct RunArgs {
    /// Graph file (.ron).
    pub graph: PathBuf,
    /// Frames to simulate (default: the graph's `settings.frames`).
    #[arg(long)]
    pub frames: Option<u32>,
    /// Output folder (default: out/<graph name>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Override a parameter: node.param=value or settings.field=value (repeatable).
    #[arg(long = "set", value_name = "NODE.PARAM=VALUE")]
    pub sets: Vec<String>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Let export folders lie outside the output folder (absolute paths, `..`).
    #[arg(long)]
    pub allow_outside_out: bool,
}

/// The run stopped on SIGINT (exit status 130). A second SIGINT ends the process at once
/// (also with 130), for a plugin that ignores the cancel service.
#[derive(Debug)]
pub struct Interrupted(pub String);

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Interrupted {}

/// Routes SIGINT to the simulation's stop flag.
fn stop_on_sigint(flag: &std::sync::Arc<std::sync::atomic::AtomicBool>) -> Result<()> {
    use signal_hook::consts::SIGINT;
    signal_hook::flag::register_conditional_shutdown(SIGINT, 130, flag.clone())?;
    signal_hook::flag::register(SIGINT, flag.clone())?;
    Ok(())
}

/// Default output folder for a graph: `out/<stem>`.
pub fn default_out(graph: &Path) -> PathBuf {
    PathBuf::from("out").join(graph.file_stem().unwrap_or_default())
}

/// Builds a simulation, turning validation errors into one readable error.
pub fn build(
    session: &Session,
    doc: &flip_graph::GraphDoc,
    graph: &Path,
    out: &Path,
) -> Result<Simulation> {
    build_with(session, doc, graph, out, false)
}

/// [`build`], optionally letting export folders leave `out`.
pub fn build_with(
    session: &Session,
    doc: &flip_graph::GraphDoc,
    graph: &Path,
    out: &Path,
    allow_outside_out: bool,
) -> Result<Simulation> {
    let paths = RunPaths {
        out_dir: out,
        base_dir: graph.parent().unwrap_or(Path::new(".")),
        allow_outside_out,
    };
    Simulation::with_paths(doc, &session.registry, paths)
        .map_err(|e| anyhow!(format_errors(&e, graph)))
}

/// Runs `args`.
pub fn run(session: &Session, args: &RunArgs) -> Result<()> {
    let doc = session.graph(&args.graph, &args.sets)?;
    let out = args.out.clone().unwrap_or_else(|| default_out(&args.graph));
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let mut sim = build_with(session, &doc, &args.graph, &out, args.allow_outside_out)?;
    let frames = args.frames.unwrap_or(doc.settings.frames);
    println!(
        "{}: {} — {} frames on {:?} cells, output in {}",
        sanitize(&args.graph.display().to_string()),
        sanitize(&doc.description),
        frames,
        doc.settings.grid,
        out.display()
    );
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(u64::from(frames))
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:30} {pos}/{len} frames {elapsed_precise} eta {eta} {msg}",
        )
        .expect("valid template"),
    );
    let mut summary = RunSummary::new(&sim);
    let stop = sim.cancel_flag();
    stop_on_sigint(&stop)?;
    for _ in 0..frames {
        let reports = sim.advance_frame().map_err(|e| {
            bar.abandon();
            let kept = format!("frames written so far are kept in {}", out.display());
            if stop.load(std::sync::atomic::Ordering::Relaxed) {
                let at = sim.frame() + 1;
                return anyhow::Error::new(Interrupted(format!(
                    "interrupted (SIGINT) during frame {at}; {kept}"
                )));
            }
            anyhow!("{}: {e} ({kept})", args.graph.display())
        })?;
        summary.add_frame(&reports);
        let last = summary.solves.last();
        bar.set_message(format!(
            "{} substeps, {} particles, solver {} it, res {:.1e}",
            reports.len(),
            summary.particles,
            last.map_or(0.0, |s| s.iterations),
            last.map_or(0.0, |s| s.residual)
        ));
        bar.inc(1);
    }
    bar.finish_and_clear();
    summary.print();
    Ok(())
}
