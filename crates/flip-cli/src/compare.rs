//! `flipgraph compare`: the same graph and seed under several variants (any node parameter),
//! advanced in lockstep frame by frame, with per-frame metrics, a summary table, CSV/JSON,
//! PNG plots and side-by-side previews. A failing variant is reported; the others finish.

mod metrics;
mod plots;
mod preview;

use crate::cmd_run::build;
use crate::session::Session;
use anyhow::{anyhow, Context, Result};
use clap::Args;
use flip_graph::compare::{default_jobs, Lockstep, VariantReport, VariantSpec};
use std::path::PathBuf;

/// Arguments of `compare`.
#[derive(Args)]
pub struct CompareArgs {
    /// Graph file (.ron).
    pub graph: PathBuf,
    /// NAME:node.param=value[,node.param=value...] (repeatable; the first is the baseline).
    /// Default: the graph's saved `variants`.
    #[arg(long = "variant")]
    pub variants: Vec<String>,
    /// Frames (default: the graph's).
    #[arg(long)]
    pub frames: Option<u32>,
    /// Report folder (default out/compare/<graph name>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Frames (1-based) to render side by side (default: first, middle, last).
    #[arg(long, value_delimiter = ',')]
    pub preview_frames: Option<Vec<u32>>,
    /// Variants simulated at once (default: 1 on ≤ 2 cores, else half the cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Overrides applied to every variant (repeatable).
    #[arg(long = "set")]
    pub sets: Vec<String>,
}

/// Runs the comparison.
pub fn run(session: &Session, a: &CompareArgs) -> Result<()> {
    let base_doc = session.graph(&a.graph, &a.sets)?;
    let frames = a.frames.unwrap_or(base_doc.settings.frames);
    let out = a.out.clone().unwrap_or_else(|| {
        PathBuf::from("out/compare").join(a.graph.file_stem().unwrap_or_default())
    });
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let specs: Vec<VariantSpec> = if a.variants.is_empty() {
        VariantSpec::saved(&base_doc)
    } else {
        a.variants
            .iter()
            .map(|t| VariantSpec::parse(t))
            .collect::<Result<_, _>>()?
    };
    if specs.is_empty() {
        return Err(anyhow!(
            "no variants: pass --variant NAME:node.param=value or save `variants` in the graph"
        ));
    }
    let jobs = a.jobs.unwrap_or_else(default_jobs).max(1);
    let mut variants = Lockstep::new(&base_doc, &session.registry, &specs, jobs, |spec, doc| {
        let mut sim =
            build(session, doc, &a.graph, &out.join(&spec.name)).map_err(|e| format!("{e:#}"))?;
        // The last solids node of the graph is what the previews draw.
        let solids = sim
            .plan()
            .nodes
            .iter()
            .rev()
            .find(|n| n.kind == "solids")
            .map(|n| n.id.clone());
        if let Some(id) = solids {
            sim.set_probes(&[(id.as_str(), "solids")]);
        }
        Ok(sim)
    })?;
    let previews = a
        .preview_frames
        .clone()
        .unwrap_or_else(|| vec![1, frames.div_ceil(2).max(1), frames]);
    let grid = base_doc.settings.grid_spec();
    println!(
        "compare {}: {} variants, {frames} frames, {jobs} at a time, report in {}",
        a.graph.display(),
        specs.len(),
        out.display()
    );
    for _ in 0..frames {
        variants.advance();
        let frame = variants.frame();
        if previews.contains(&frame) {
            preview::side_by_side(
                &out,
                frame,
                &grid,
                &variants
                    .runs()
                    .iter()
                    .map(|v| (v.spec.name.as_str(), v.sim.as_ref()))
                    .collect::<Vec<_>>(),
            )?;
        }
        print!("\rframe {frame}/{frames}");
        use std::io::Write as _;
        std::io::stdout().flush().ok();
    }
    println!();
    let reports: Vec<VariantReport> = variants.into_reports();
    metrics::print_table(&reports);
    metrics::write_files(&out, &reports)?;
    plots::write_all(&out, &reports)?;
    println!(
        "report: {} (metrics.csv, summary.json, plot_*.png, preview_*.png)",
        out.display()
    );
    if reports.iter().all(|r| r.failure.is_some()) {
        return Err(anyhow!("every variant failed"));
    }
    Ok(())
}
