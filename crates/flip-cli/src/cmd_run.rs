//! `flipgraph run`: a fresh run, `--resume` of an interrupted one, `--from` a fork of a
//! finished one (which also extends it with `--frames`).

use crate::bake::{latest_checkpoint, read_checkpoint, Bake, Signals, CHECKPOINT_DIR};
use crate::exit::{fail, ExitStatus};
use crate::manifest::{ForkRecord, Manifest, RunStatus};
use crate::progress::{Progress, ProgressMode};
use crate::session::{format_errors, Session};
use crate::summary::RunSummary;
use anyhow::{anyhow, Context, Result};
use clap::Args;
use flip_graph::overrides::apply_overrides;
use flip_graph::Override;
use flip_graph::RunPaths;
use flip_graph::{GraphDoc, Simulation};
use std::path::{Path, PathBuf};

/// Checkpoint interval when `--checkpoint-every` is not given.
pub const DEFAULT_CHECKPOINT_EVERY: u32 = 10;

/// Arguments of `run`.
#[derive(Args)]
pub struct RunArgs {
    /// Graph file (.ron); not with --resume or --from, which take the graph from run.json.
    #[arg(required_unless_present_any = ["resume", "from"], conflicts_with_all = ["resume", "from"])]
    pub graph: Option<PathBuf>,
    /// Frames to simulate in all (default: the graph's `settings.frames`; with --resume or
    /// --from, past the run's end extends it).
    #[arg(long)]
    pub frames: Option<u32>,
    /// Output folder (default: out/<graph name>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Override a parameter: node.param=value or settings.field=value (repeatable).
    #[arg(
        long = "set",
        value_name = "NODE.PARAM=VALUE",
        conflicts_with = "resume"
    )]
    pub sets: Vec<Override>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Progress as a bar, or as JSON lines on stdout.
    #[arg(long, value_enum, default_value = "bar")]
    pub progress: ProgressMode,
    /// Write a checkpoint every N frames (also always after the last frame and on
    /// SIGINT/SIGTERM).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub checkpoint_every: Option<u32>,
    /// Keep only the newest N checkpoints, deleting older ones as new ones are written
    /// (default: keep all, so the run can be forked at any of them).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub keep_checkpoints: Option<u32>,
    /// Continue the interrupted run in this output folder from its newest checkpoint.
    #[arg(long, value_name = "OUT", conflicts_with_all = ["from", "out"])]
    pub resume: Option<PathBuf>,
    /// Fork the run in this output folder at --frame into --out (frames before are referenced).
    #[arg(long, value_name = "OUT", requires_all = ["frame", "out"])]
    pub from: Option<PathBuf>,
    /// Frame to fork at (needs a checkpoint there).
    #[arg(long, requires = "from")]
    pub frame: Option<u32>,
    /// Run even if the memory estimate exceeds what this machine has.
    #[arg(long)]
    pub ignore_memory_check: bool,
    /// Let export folders lie outside the output folder (absolute paths, `..`).
    #[arg(long)]
    pub allow_outside_out: bool,
    /// Run decomposed over the ranks of `mpirun -np N` (slabs along the grid's outermost
    /// axis; rank 0 writes the frames). A resume or fork needs a run made on as many ranks.
    /// (Hidden in builds without the `mpi` feature, which refuse it saying how to build one.)
    #[arg(long, hide = !crate::features::MPI.enabled)]
    pub mpi: bool,
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
    if args.mpi {
        crate::features::MPI.require("run --mpi")?;
        #[cfg(feature = "mpi")]
        return crate::cmd_run_mpi::run(session, args);
    }
    let (doc, mut manifest, out, fresh_nodes) = if let Some(dir) = &args.resume {
        let m = Manifest::read(dir).map_err(|e| fail(ExitStatus::Usage, format!("{e:#}")))?;
        refuse_decomposed(&m, dir, &format!("--resume {}", dir.display()))?;
        (m.doc()?, m, dir.clone(), Vec::new())
    } else if let Some(parent) = &args.from {
        let out = args.out.clone().expect("clap requires --out");
        fork_manifest(session, parent, args, &out, None)?
    } else {
        let graph = args.graph.as_ref().expect("clap requires a graph");
        let doc = session.graph(graph, &args.sets)?;
        let frames = args.frames.unwrap_or(doc.settings.frames);
        let out = args.out.clone().unwrap_or_else(|| default_out(graph));
        let m = Manifest::new(&doc, graph, &session.plugins, frames);
        (doc, m, out, Vec::new())
    };
    let graph_file = manifest.graph_file.clone();
    let frames = settle(&mut manifest, args);
    let ignore = args.ignore_memory_check;
    crate::estimate::check_fits(&doc, &graph_file.display(), &session.registry, ignore)?;
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let mut sim = build_with(session, &doc, &graph_file, &out, args.allow_outside_out)?;
    let left_out = flip_graph::unwired::unwired(&doc);
    if !left_out.is_empty() && !args.quiet {
        let names = left_out.join(", ");
        let names = flip_abi::sanitize(&names);
        eprintln!("note: left out of the run (no wires): {names}");
    }
    let resume_at = match (&args.resume, &args.from) {
        (Some(_), _) => latest_checkpoint(&out, &manifest, None),
        (_, Some(parent)) => latest_checkpoint(parent, &Manifest::read(parent)?, args.frame),
        _ => None,
    };
    if let Some((at, path)) = &resume_at {
        let hash = match &args.from {
            Some(parent) => Manifest::read(parent)?.graph_sha256,
            None => manifest.graph_sha256.clone(),
        };
        let fresh: Vec<&str> = fresh_nodes.iter().map(String::as_str).collect();
        sim.restore(read_checkpoint(path, &hash)?, &fresh)
            .map_err(|e| fail(ExitStatus::Usage, format!("{}: {e:#}", path.display())))?;
        manifest.frame_records.retain(|r| r.frame <= *at);
    } else {
        manifest.frame_records.clear();
    }
    manifest.status = RunStatus::Running;
    manifest.ended_unix = None;
    manifest.write(&out)?;
    let progress = Progress::new(args.progress, args.quiet, sim.frame(), frames);
    progress.started(&graph_file, &out, doc.settings.grid, &doc.description);
    let signals = Signals::install(sim.cancel_flag(), &out, &manifest.graph_sha256)?;
    let mut summary = RunSummary::new(&sim);
    if resume_at.is_some() {
        summary.particles = manifest.last_particles().unwrap_or_default();
    }
    let mut bake = Bake {
        sim,
        manifest,
        out,
        progress,
        signals,
    };
    bake.report_overdue_calls();
    if args.from.is_some() {
        let snap = bake.sim.snapshot().map_err(|e| anyhow!("{e}"))?;
        bake.write_checkpoint(&snap)?;
    }
    bake.run(frames, &mut summary)?;
    if bake.progress.human() {
        summary.print();
    }
    Ok(())
}

/// Sets the frames to run and the checkpoint interval and count from `args` (a resumed run
/// keeps its own unless they are given); returns the frames.
pub fn settle(manifest: &mut Manifest, args: &RunArgs) -> u32 {
    manifest.frames = args.frames.unwrap_or(manifest.frames);
    manifest.checkpoint_every = args
        .checkpoint_every
        .or((manifest.checkpoint_every > 0).then_some(manifest.checkpoint_every))
        .unwrap_or(DEFAULT_CHECKPOINT_EVERY);
    if let Some(keep) = args.keep_checkpoints {
        manifest.keep_checkpoints = keep;
    }
    manifest.frames
}

/// Refuses to continue a decomposed run in one process (`how`: the `run` arguments that
/// would, under mpirun): its checkpoints are one file per rank.
fn refuse_decomposed(m: &Manifest, dir: &Path, how: &str) -> Result<()> {
    match m.mpi_ranks {
        Some(n) => Err(fail(
            ExitStatus::Usage,
            format!(
                "{} is a run on {n} MPI ranks, whose checkpoints hold one rank each: continue it \
                 with `mpirun -np {n} flipgraph run --mpi {how}`",
                dir.display()
            ),
        )),
        None => Ok(()),
    }
}

/// Refuses to `verb` (resume, fork) the run in `dir` on `ranks` MPI ranks unless it was made on
/// as many: its checkpoints hold one rank each.
pub fn require_ranks(m: &Manifest, dir: &Path, ranks: u32, verb: &str) -> Result<()> {
    if m.mpi_ranks == Some(ranks) {
        return Ok(());
    }
    let was = m
        .mpi_ranks
        .map_or("one process".to_string(), |n| format!("{n} ranks"));
    Err(fail(
        ExitStatus::Usage,
        format!(
            "{}: the run was made on {was}; its checkpoints {verb} only on as many (this is \
             {ranks} ranks)",
            dir.display()
        ),
    ))
}

/// The manifest of a fork of `parent` at `--frame`: the parent's graph with `--set` applied,
/// the frames before the fork referenced, and the nodes whose parameters changed (they start
/// without saved state). `ranks`: the fork runs decomposed on that many ranks (`run --mpi`),
/// which the parent must have been made on too.
pub fn fork_manifest(
    session: &Session,
    parent: &Path,
    args: &RunArgs,
    out: &Path,
    ranks: Option<u32>,
) -> Result<(GraphDoc, Manifest, PathBuf, Vec<String>)> {
    let usage = |m: String| fail(ExitStatus::Usage, m);
    let pm = Manifest::read(parent).map_err(|e| usage(format!("{e:#}")))?;
    match ranks {
        None => {
            let how = format!("--from {} --frame F --out OUT", parent.display());
            refuse_decomposed(&pm, parent, &how)?;
        }
        Some(n) => require_ranks(&pm, parent, n, "fork")?,
    }
    let at = args.frame.expect("clap requires --frame");
    if !pm.checkpoints.contains(&at) {
        return Err(usage(format!(
            "{} has no checkpoint after frame {at} (it has {:?} in {}); fork at one of those",
            parent.display(),
            pm.checkpoints,
            parent.join(CHECKPOINT_DIR).display()
        )));
    }
    if std::fs::canonicalize(parent).ok() == std::fs::canonicalize(out).ok() {
        return Err(usage("--out must differ from --from".into()));
    }
    let before = pm.doc()?;
    let mut doc = before.clone();
    apply_overrides(&mut doc, &args.sets).map_err(|e| anyhow!("--set: {e}"))?;
    let changed = doc
        .nodes
        .iter()
        .filter(|n| before.node(&n.id).is_none_or(|b| b.params != n.params))
        .map(|n| n.id.clone())
        .collect();
    let mut m = Manifest::new(&doc, &pm.graph_file, &session.plugins, pm.frames);
    if let Some(n) = ranks {
        m.threads *= n as usize;
        m.mpi_ranks = Some(n);
    }
    m.checkpoint_every = pm.checkpoint_every;
    m.keep_checkpoints = pm.keep_checkpoints;
    let abs_parent = std::path::absolute(parent)?;
    m.forked_from = Some(ForkRecord {
        run: abs_parent.clone(),
        frame: at,
    });
    m.frame_records = pm.frame_records;
    m.frame_records.retain(|r| r.frame <= at);
    for f in m.frame_records.iter_mut().flat_map(|r| r.files.iter_mut()) {
        f.path = abs_parent.join(&f.path);
    }
    Ok((doc, m, out.to_path_buf(), changed))
}
