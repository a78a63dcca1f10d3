//! One task of a sweep: one variant simulated into `DIR/tasks/K`, leaving what the merge needs
//! and only its own simulation can give: the variant's report (rewritten after every frame,
//! `complete` once it ends), its particle positions per frame (for the distance to the
//! baseline) and its preview panels.

use super::sweep::{graph_hash, task_dir, SweepPlan};
use super::{preview, show_frame, variant_sim, warn_events};
use crate::session::Session;
use anyhow::{anyhow, Context, Result};
use flip_nodes::compare::{Lockstep, VariantReport};
use flip_nodes::kinds::CarriedParticles;
use glam::Vec3;
use serde::{Deserialize, Serialize};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The result file of a task.
pub const RESULT_FILE: &str = "task.json";

/// What a task leaves for the merge.
#[derive(Debug, Serialize, Deserialize)]
pub struct TaskResult {
    /// The task (variant index).
    pub task: usize,
    /// Whether the task ran to its end (`false`: it was stopped after the frames listed).
    pub complete: bool,
    /// The variant's metrics (its distance to the baseline is filled in by the merge).
    pub report: VariantReport,
}

/// Positions of task `dir`'s particles after `frame` (little-endian f32 x, y, z).
pub fn positions_path(dir: &Path, frame: u32) -> PathBuf {
    dir.join("positions").join(format!("{frame:04}.bin"))
}

/// The preview panel of task `dir` at `frame`.
pub fn panel_path(dir: &Path, frame: u32) -> PathBuf {
    dir.join(format!("panel_{frame:04}.png"))
}

/// Runs task `k` of the sweep in `dir`.
///
/// # Errors
/// No such task, a changed graph, I/O, or the variant failed (after its result is written).
pub fn run_task(session: &Session, dir: &Path, k: usize) -> Result<()> {
    let dir = &std::fs::canonicalize(dir)
        .with_context(|| format!("cannot find the sweep folder {}", dir.display()))?;
    let plan = SweepPlan::read(dir)?;
    // Relative paths (graph, its files, export folders) mean what they meant at submission.
    std::env::set_current_dir(&plan.workdir)
        .with_context(|| format!("cannot enter {}", plan.workdir.display()))?;
    let spec = plan.variants.get(k).ok_or_else(|| {
        anyhow!(
            "task {k}: the sweep in {} has tasks 0-{}",
            dir.display(),
            plan.variants.len() - 1
        )
    })?;
    if graph_hash(&plan.graph)? != plan.graph_sha256 {
        return Err(anyhow!(
            "{} changed since the sweep was written; write the sweep again",
            plan.graph.display()
        ));
    }
    let base_doc = session.graph(&plan.graph, &plan.sets)?;
    let tdir = task_dir(dir, k);
    clear_results(&tdir)?;
    let mut variants = Lockstep::new(
        &base_doc,
        &session.registry,
        std::slice::from_ref(spec),
        1,
        |spec, doc| variant_sim(session, doc, &plan.graph, &dir.join(&spec.name)),
    )?;
    let grid = base_doc.settings.grid_spec();
    println!("task {k}: variant `{}`, {} frames", spec.name, plan.frames);
    write_result(&tdir, k, false, &variants.runs()[0].report)?;
    while variants.frame() < plan.frames && !variants.all_failed() {
        variants.advance();
        let frame = variants.frame();
        let run = &variants.runs()[0];
        warn_events(&spec.name, &run.last_steps);
        if let Some(sim) = &run.sim {
            if let Some(p) = sim.particles() {
                write_positions(&positions_path(&tdir, frame), &p.pos)?;
            }
            if plan.preview_frames.contains(&frame) {
                preview::write_panel(&panel_path(&tdir, frame), &grid, sim)?;
            }
        }
        write_result(&tdir, k, false, &run.report)?;
        show_frame(frame, plan.frames);
    }
    println!();
    let report = variants.into_reports().remove(0);
    write_result(&tdir, k, true, &report)?;
    match &report.failure {
        Some(why) => Err(anyhow!("variant `{}` failed: {why}", spec.name)),
        None => Ok(()),
    }
}

/// Removes what an earlier run of the task left.
fn clear_results(tdir: &Path) -> Result<()> {
    std::fs::create_dir_all(tdir.join("positions"))
        .with_context(|| format!("cannot create {}", tdir.display()))?;
    for e in std::fs::read_dir(tdir.join("positions"))?.chain(std::fs::read_dir(tdir)?) {
        let path = e?.path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if name.ends_with(".bin") || name.starts_with("panel_") || name == RESULT_FILE {
            std::fs::remove_file(&path)?;
        }
    }
    Ok(())
}

/// Writes `task.json` atomically.
fn write_result(tdir: &Path, task: usize, complete: bool, report: &VariantReport) -> Result<()> {
    let result = TaskResult {
        task,
        complete,
        report: report.clone(),
    };
    let (path, tmp) = (tdir.join(RESULT_FILE), tdir.join("task.json.tmp"));
    std::fs::write(&tmp, serde_json::to_string_pretty(&result)?)
        .and_then(|()| std::fs::rename(&tmp, &path))
        .with_context(|| format!("cannot write {}", path.display()))
}

fn write_positions(path: &Path, pos: &[Vec3]) -> Result<()> {
    let mut out = std::io::BufWriter::new(
        std::fs::File::create(path).with_context(|| format!("cannot write {}", path.display()))?,
    );
    for p in pos {
        for c in p.to_array() {
            out.write_all(&c.to_le_bytes())?;
        }
    }
    out.flush()?;
    Ok(())
}

/// Reads positions written by a task (`None`: absent or torn).
pub fn read_positions(path: &Path) -> Option<Vec<Vec3>> {
    let bytes = std::fs::read(path).ok()?;
    if bytes.len() % 12 != 0 {
        return None;
    }
    let f = |b: &[u8]| f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    Some(
        bytes
            .chunks_exact(12)
            .map(|c| Vec3::new(f(&c[0..4]), f(&c[4..8]), f(&c[8..12])))
            .collect(),
    )
}
