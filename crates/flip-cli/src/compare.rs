//! `flipgraph compare`: the same graph and seed under several variants (any node parameter),
//! advanced in lockstep frame by frame, with per-frame metrics, a summary table, CSV/JSON,
//! PNG plots and side-by-side previews. A failing variant is reported; the others finish.

mod metrics;
mod plots;
mod preview;

use crate::cmd_run::build;
use crate::overrides::apply_override;
use crate::session::Session;
use anyhow::{anyhow, Context, Result};
use clap::Args;
use flip_graph::Simulation;
use metrics::{FrameMetrics, VariantReport};
use rayon::prelude::*;
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

struct Variant {
    name: String,
    sim: Option<Simulation>,
    report: VariantReport,
}

fn parse_variant(text: &str) -> Result<(String, Vec<String>)> {
    let (name, rest) = text.split_once(':').map_or((text, ""), |(n, r)| (n, r));
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-".contains(c))
    {
        return Err(anyhow!(
            "variant `{text}`: name must be letters, digits, - or _"
        ));
    }
    let sets = rest
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.trim().to_string())
        .collect();
    Ok((name.to_string(), sets))
}

/// Runs the comparison.
pub fn run(session: &Session, a: &CompareArgs) -> Result<()> {
    let base_doc = session.graph(&a.graph, &a.sets)?;
    let frames = a.frames.unwrap_or(base_doc.settings.frames);
    let out = a.out.clone().unwrap_or_else(|| {
        PathBuf::from("out/compare").join(a.graph.file_stem().unwrap_or_default())
    });
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let specs: Vec<(String, Vec<String>)> = if a.variants.is_empty() {
        base_doc
            .variants
            .iter()
            .map(|v| (v.name.clone(), v.set.clone()))
            .collect()
    } else {
        a.variants
            .iter()
            .map(|t| parse_variant(t))
            .collect::<Result<_>>()?
    };
    if specs.is_empty() {
        return Err(anyhow!(
            "no variants: pass --variant NAME:node.param=value or save `variants` in the graph"
        ));
    }
    let mut variants = Vec::new();
    for (name, sets) in specs {
        let mut doc = base_doc.clone();
        let mut report = VariantReport::new(&name, &sets);
        let sim = sets
            .iter()
            .try_for_each(|s| apply_override(&mut doc, s).map_err(|e| anyhow!(e)))
            .and_then(|()| build(session, &doc, &a.graph, &out.join(&name)));
        let mut sim = sim
            .map_err(|e| report.failure = Some(format!("{e:#}")))
            .ok();
        if let Some(sim) = sim.as_mut() {
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
        }
        variants.push(Variant { name, sim, report });
    }
    let previews = a
        .preview_frames
        .clone()
        .unwrap_or_else(|| vec![1, frames.div_ceil(2).max(1), frames]);
    let jobs = a.jobs.unwrap_or(if rayon::current_num_threads() <= 2 {
        1
    } else {
        rayon::current_num_threads() / 2
    });
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()?;
    let grid = base_doc.settings.grid_spec();
    println!(
        "compare {}: {} variants, {frames} frames, {jobs} at a time, report in {}",
        a.graph.display(),
        variants.len(),
        out.display()
    );
    for frame in 0..frames {
        pool.install(|| variants.par_iter_mut().for_each(|v| step_variant(v, frame)));
        let baseline = variants[0].sim.as_ref().and_then(Simulation::particles);
        for v in &mut variants {
            let Some(sim) = &v.sim else { continue };
            let particles = sim.particles();
            if let Some(m) = v.report.frames.last_mut().filter(|m| m.frame == frame + 1) {
                metrics::finish(m, &grid, particles.as_deref(), baseline.as_deref());
            }
        }
        if previews.contains(&(frame + 1)) {
            preview::side_by_side(
                &out,
                frame + 1,
                &grid,
                &variants
                    .iter()
                    .map(|v| (v.name.as_str(), v.sim.as_ref()))
                    .collect::<Vec<_>>(),
            )?;
        }
        print!("\rframe {}/{frames}", frame + 1);
        use std::io::Write as _;
        std::io::stdout().flush().ok();
    }
    println!();
    let reports: Vec<VariantReport> = variants.into_iter().map(|v| v.report).collect();
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

fn step_variant(v: &mut Variant, frame: u32) {
    let Some(sim) = v.sim.as_mut() else { return };
    match sim.advance_frame() {
        Ok(reports) => v
            .report
            .frames
            .push(FrameMetrics::from_steps(frame + 1, &reports)),
        Err(e) => {
            v.report.failure = Some(format!("frame {}: {e}", frame + 1));
            v.sim = None;
        }
    }
}
