//! `flipgraph run`.

use crate::session::{format_errors, Session};
use crate::summary::RunSummary;
use anyhow::{anyhow, Context, Result};
use clap::Args;
use flip_graph::Simulation;
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
    let base = graph.parent().unwrap_or(Path::new("."));
    Simulation::new(doc, &session.registry, out, base)
        .map_err(|e| anyhow!(format_errors(&e, graph)))
}

/// Runs `args`.
pub fn run(session: &Session, args: &RunArgs) -> Result<()> {
    let doc = session.graph(&args.graph, &args.sets)?;
    let out = args.out.clone().unwrap_or_else(|| default_out(&args.graph));
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let mut sim = build(session, &doc, &args.graph, &out)?;
    let frames = args.frames.unwrap_or(doc.settings.frames);
    println!(
        "{}: {} — {} frames on {:?} cells, output in {}",
        args.graph.display(),
        doc.description,
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
    for _ in 0..frames {
        let reports = sim.advance_frame().map_err(|e| {
            bar.abandon();
            anyhow!(
                "{}: {e} (frames written so far are kept in {})",
                args.graph.display(),
                out.display()
            )
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
