//! `compare --merge DIR`: the tasks of a sweep merged into the report a plain `compare` of the
//! same variants writes. A task that left no result, or stopped before its end, is a failed
//! variant in the report (never dropped).

use super::sweep::{task_dir, SweepPlan};
use super::task::{panel_path, positions_path, read_positions, TaskResult, RESULT_FILE};
use super::{preview, write_report};
use anyhow::{Context, Result};
use flip_nodes::compare::{rms_distance, VariantReport, VariantSpec};
use std::path::Path;

/// Merges the sweep in `dir` into its report (written to `dir`).
///
/// # Errors
/// No plan, I/O, or a variant failed.
pub fn merge(dir: &Path) -> Result<()> {
    let plan = SweepPlan::read(dir)?;
    let mut reports: Vec<VariantReport> = plan
        .variants
        .iter()
        .enumerate()
        .map(|(k, spec)| task_report(dir, k, spec, plan.frames))
        .collect();
    fill_baseline_distances(dir, plan.frames, &mut reports);
    for frame in 1..=plan.frames {
        if plan.preview_frames.contains(&frame) {
            let panels: Vec<_> = reports
                .iter()
                .enumerate()
                .map(|(k, r)| {
                    let panel = image::open(panel_path(&task_dir(dir, k), frame)).ok();
                    (r.name.as_str(), panel.map(|p| p.to_rgb8()))
                })
                .collect();
            preview::compose(dir, frame, &panels)?;
        }
    }
    println!(
        "merged {} tasks of {} ({} frames)",
        reports.len(),
        plan.graph.display(),
        plan.frames
    );
    write_report(dir, &plan.graph, &reports)
}

/// Task `k`'s report, or a failed one saying why it has none or stopped early.
fn task_report(dir: &Path, k: usize, spec: &VariantSpec, frames: u32) -> VariantReport {
    let path = task_dir(dir, k).join(RESULT_FILE);
    let failed = |why: String| VariantReport {
        failure: Some(why),
        ..VariantReport::new(&spec.name, &spec.overrides)
    };
    let result = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))
        .and_then(|t| {
            serde_json::from_str::<TaskResult>(&t)
                .with_context(|| format!("{}: malformed", path.display()))
        });
    match result {
        Err(e) => failed(format!(
            "task {k} left no result ({e:#}): it did not run or was lost"
        )),
        Ok(t) if t.report.name != spec.name || t.task != k => failed(format!(
            "task {k}: {} holds variant `{}`, expected `{}`",
            path.display(),
            t.report.name,
            spec.name
        )),
        Ok(t) if !t.complete => VariantReport {
            failure: Some(format!(
                "task {k} stopped after frame {} of {frames} without finishing \
                 (killed, out of time or crashed: see its slurm log)",
                t.report.frames.len()
            )),
            ..t.report
        },
        Ok(t) => t.report,
    }
}

/// The RMS distance of every variant's particles to the baseline's (task 0), frame by frame,
/// as the lockstep computes it: n/a where either has no particles that frame.
fn fill_baseline_distances(dir: &Path, frames: u32, reports: &mut [VariantReport]) {
    for frame in 1..=frames {
        let baseline = read_positions(&positions_path(&task_dir(dir, 0), frame));
        for (k, r) in reports.iter_mut().enumerate() {
            let Some(m) = r.frames.iter_mut().find(|m| m.frame == frame) else {
                continue;
            };
            let own = read_positions(&positions_path(&task_dir(dir, k), frame));
            m.rms_vs_baseline = match (&own, &baseline) {
                (Some(p), Some(b)) => Some(rms_distance(p, b)),
                _ => None,
            };
        }
    }
}
