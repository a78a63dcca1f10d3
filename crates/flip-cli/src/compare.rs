//! `flipgraph compare`: the same graph and seed under several variants (any node parameter),
//! advanced in lockstep frame by frame, with per-frame metrics, a summary table, CSV/JSON,
//! PNG plots and side-by-side previews. A failing variant is reported; the others finish.
//! `--slurm` writes the same comparison as a cluster array job instead (`sweep`), whose
//! tasks (`--task`) are merged into the same report (`--merge`).

mod merge;
mod metrics;
mod plots;
mod preview;
mod sweep;
mod task;

use crate::cmd_run::build;
use crate::exit::{fail, ExitStatus};
use crate::session::Session;
use anyhow::{anyhow, Context, Result};
use clap::Args;
use flip_graph::{GraphDoc, Simulation};
use flip_nodes::compare::{default_jobs, Lockstep, VariantReport, VariantSpec};
use flip_nodes::roles::{KindFacts, NodeRole};
use std::path::{Path, PathBuf};

/// Arguments of `compare`.
#[derive(Args)]
pub struct CompareArgs {
    /// Graph file (.ron).
    #[arg(required_unless_present_any = ["task", "merge"])]
    pub graph: Option<PathBuf>,
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
    pub sets: Vec<flip_graph::Override>,
    /// Write a Slurm array job to DIR (one variant per array task) instead of running.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["task", "merge"])]
    pub slurm: Option<PathBuf>,
    /// Extra `#SBATCH` option for `--slurm`, e.g. `--time=02:00:00` (repeatable).
    #[arg(long = "sbatch", value_name = "OPTION", requires = "slurm")]
    pub sbatch: Vec<String>,
    /// Run task K (0-based variant) of the sweep in `--sweep DIR` (what each array task runs).
    #[arg(long, value_name = "K", requires = "sweep", conflicts_with = "merge")]
    pub task: Option<usize>,
    /// The sweep folder written by `--slurm` (for `--task`).
    #[arg(long, value_name = "DIR")]
    pub sweep: Option<PathBuf>,
    /// Merge the tasks of the sweep in DIR into its report (written to DIR).
    #[arg(long, value_name = "DIR")]
    pub merge: Option<PathBuf>,
}

/// Runs the comparison (or writes, runs a task of, or merges a sweep).
pub fn run(session: &Session, a: &CompareArgs) -> Result<()> {
    if let Some(dir) = &a.merge {
        return merge::merge(dir);
    }
    if let (Some(k), Some(dir)) = (a.task, &a.sweep) {
        return task::run_task(session, dir, k);
    }
    let graph = a.graph.as_ref().expect("clap requires a graph");
    let base_doc = session.graph(graph, &a.sets)?;
    let frames = a.frames.unwrap_or(base_doc.settings.frames);
    let specs =
        variant_specs(&base_doc, &a.variants).map_err(|e| anyhow!("{}: {e:#}", graph.display()))?;
    let previews = a
        .preview_frames
        .clone()
        .unwrap_or_else(|| vec![1, frames.div_ceil(2).max(1), frames]);
    if let Some(dir) = &a.slurm {
        let plan = sweep::SweepPlan::new(graph, &a.sets, frames, previews, specs)?;
        return sweep::write(session, &plan, dir, &a.sbatch);
    }
    let out = a.out.clone().unwrap_or_else(|| default_report_dir(graph));
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let jobs = a.jobs.unwrap_or_else(default_jobs).max(1);
    let mut variants = Lockstep::new(&base_doc, &session.registry, &specs, jobs, |spec, doc| {
        variant_sim(session, doc, graph, &out.join(&spec.name))
    })?;
    let grid = base_doc.settings.grid_spec();
    println!(
        "compare {}: {} variants, {frames} frames, {jobs} at a time, report in {}",
        graph.display(),
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
        for run in variants.runs() {
            warn_events(&run.spec.name, &run.last_steps);
        }
        show_frame(frame, frames);
    }
    println!();
    write_report(&out, graph, &variants.into_reports())
}

/// Default report folder for a graph: `out/compare/<stem>` (each variant writes into its own
/// folder under it).
pub fn default_report_dir(graph: &Path) -> PathBuf {
    PathBuf::from("out/compare").join(graph.file_stem().unwrap_or_default())
}

/// The variants given on the command line, else those saved in the graph.
fn variant_specs(doc: &GraphDoc, given: &[String]) -> Result<Vec<VariantSpec>> {
    let specs: Vec<VariantSpec> = if given.is_empty() {
        VariantSpec::saved(doc)?
    } else {
        given
            .iter()
            .map(|t| VariantSpec::parse(t))
            .collect::<Result<_, _>>()?
    };
    if specs.is_empty() {
        return Err(anyhow!(
            "no variants: pass --variant NAME:node.param=value or save `variants` in the graph"
        ));
    }
    Ok(specs)
}

/// Builds one variant's simulation writing into `out`, probing the solids its previews draw.
fn variant_sim(
    session: &Session,
    doc: &GraphDoc,
    graph: &Path,
    out: &Path,
) -> Result<Simulation, String> {
    let mut sim = build(session, doc, graph, out).map_err(|e| format!("{e:#}"))?;
    // The last solids node of the graph is what the previews draw.
    let solids = sim
        .plan()
        .nodes
        .iter()
        .rev()
        .find(|n| n.spec.role() == NodeRole::Solids)
        .map(|n| n.id.clone());
    if let Some(id) = solids {
        sim.set_probes(&[(id.as_str(), flip_nodes::nodes::solids::SOLIDS_OUT)]);
    }
    Ok(sim)
}

/// What a variant's nodes told the user in its last frame, on stderr.
fn warn_events(variant: &str, steps: &[flip_graph::StepReport]) {
    for (node, event) in steps.iter().flat_map(|s| &s.events) {
        let node = flip_abi::sanitize(node);
        eprintln!("\nwarning: variant `{variant}`, node `{node}`: {event}");
    }
}

fn show_frame(frame: u32, frames: u32) {
    use std::io::Write as _;
    print!("\rframe {frame}/{frames}");
    std::io::stdout().flush().ok();
}

/// The report of a comparison of `graph`: table, metrics.csv, summary.json and plots in `out`.
///
/// # Errors
/// I/O, or a variant failed (exit 6, after the report is written), naming each and why.
fn write_report(out: &Path, graph: &Path, reports: &[VariantReport]) -> Result<()> {
    metrics::print_table(reports);
    metrics::write_files(out, reports)?;
    plots::write_all(out, reports)?;
    println!(
        "report: {} (metrics.csv, summary.json, plot_*.png, preview_*.png)",
        out.display()
    );
    let failed: Vec<String> = reports
        .iter()
        .filter_map(|r| {
            Some(format!(
                "variant `{}` failed: {}",
                r.name,
                r.failure.as_ref()?
            ))
        })
        .collect();
    if failed.is_empty() {
        return Ok(());
    }
    Err(fail(
        ExitStatus::VariantFailed,
        format!(
            "{}: {} of {} variants failed (report written to {}):\n  {}",
            graph.display(),
            failed.len(),
            reports.len(),
            out.display(),
            failed.join("\n  ")
        ),
    ))
}
