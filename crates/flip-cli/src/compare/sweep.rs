//! A comparison as a cluster sweep: `compare --slurm DIR` writes `DIR/sweep.json` (the plan:
//! graph, overrides, frames, variants) and `DIR/sweep.sbatch`, a Slurm array job whose task K
//! runs variant K (`compare --sweep DIR --task K`) into `DIR/tasks/K`; `compare --merge DIR`
//! then writes the report a plain `compare` writes.

use crate::manifest::sha256_hex;
use crate::session::Session;
use anyhow::{anyhow, Context, Result};
use flip_nodes::compare::VariantSpec;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The plan file of a sweep.
pub const PLAN_FILE: &str = "sweep.json";
/// The Slurm script of a sweep.
pub const SCRIPT_FILE: &str = "sweep.sbatch";

/// What every task of a sweep runs, and what the merge expects.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SweepPlan {
    /// The graph, as given (relative to `workdir`, so that messages read as in a plain compare).
    pub graph: PathBuf,
    /// The folder `compare --slurm` ran in; tasks run there.
    pub workdir: PathBuf,
    /// SHA-256 of the graph file when the sweep was written (a task refuses a changed graph).
    pub graph_sha256: String,
    /// `--set` overrides applied to every variant.
    pub sets: Vec<flip_graph::Override>,
    /// Frames each variant simulates.
    pub frames: u32,
    /// Frames rendered side by side.
    pub preview_frames: Vec<u32>,
    /// The variants; task K runs the K-th (the first is the baseline).
    pub variants: Vec<VariantSpec>,
}

impl SweepPlan {
    /// The plan of comparing `variants` of `graph`.
    ///
    /// # Errors
    /// The graph cannot be read.
    pub fn new(
        graph: &Path,
        sets: &[flip_graph::Override],
        frames: u32,
        preview_frames: Vec<u32>,
        variants: Vec<VariantSpec>,
    ) -> Result<Self> {
        Ok(Self {
            graph_sha256: graph_hash(graph)?,
            graph: graph.to_path_buf(),
            workdir: std::env::current_dir().context("cannot read the working folder")?,
            sets: sets.to_vec(),
            frames,
            preview_frames,
            variants,
        })
    }

    /// Reads `dir/sweep.json`.
    ///
    /// # Errors
    /// Missing or malformed plan.
    pub fn read(dir: &Path) -> Result<Self> {
        let path = dir.join(PLAN_FILE);
        let text = std::fs::read_to_string(&path).with_context(|| {
            format!(
                "cannot read {} (is {} a sweep written by `compare --slurm`?)",
                path.display(),
                dir.display()
            )
        })?;
        serde_json::from_str(&text).with_context(|| format!("{}: malformed plan", path.display()))
    }
}

/// SHA-256 of the graph file.
pub fn graph_hash(graph: &Path) -> Result<String> {
    let bytes = std::fs::read(graph).with_context(|| format!("cannot read {}", graph.display()))?;
    Ok(sha256_hex(&bytes))
}

/// The folder of task `k`.
pub fn task_dir(dir: &Path, k: usize) -> PathBuf {
    dir.join("tasks").join(k.to_string())
}

/// Writes the plan and the Slurm script into `dir` (task folders made, for Slurm's logs).
///
/// # Errors
/// I/O, or an `#SBATCH` option with a line break.
pub fn write(session: &Session, plan: &SweepPlan, dir: &Path, sbatch: &[String]) -> Result<()> {
    if let Some(bad) = sbatch.iter().find(|o| o.contains(['\n', '\r'])) {
        return Err(anyhow!("--sbatch {bad:?}: an option must be one line"));
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let dir = std::fs::canonicalize(dir)?;
    for k in 0..plan.variants.len() {
        std::fs::create_dir_all(task_dir(&dir, k))?;
    }
    let plan_text = serde_json::to_string_pretty(plan)?;
    std::fs::write(dir.join(PLAN_FILE), plan_text)?;
    let exe = std::env::current_exe().context("cannot find the flipgraph executable")?;
    let script = script(session, plan, &dir, &exe, sbatch)?;
    let path = dir.join(SCRIPT_FILE);
    std::fs::write(&path, script).with_context(|| format!("cannot write {}", path.display()))?;
    println!(
        "sweep of {} variants written to {}\n  submit: sbatch {}\n  then:   flipgraph compare --merge {}",
        plan.variants.len(),
        dir.display(),
        path.display(),
        dir.display()
    );
    Ok(())
}

/// The array-job script: task `$SLURM_ARRAY_TASK_ID` runs that variant.
fn script(
    session: &Session,
    plan: &SweepPlan,
    dir: &Path,
    exe: &Path,
    sbatch: &[String],
) -> Result<String> {
    let stem = plan.graph.file_stem().unwrap_or_default().to_string_lossy();
    let name: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut s = String::from("#!/bin/bash\n");
    writeln!(
        s,
        "# flipgraph sweep: {} variants of {}, one per array task.",
        plan.variants.len(),
        plan.graph.display()
    )?;
    writeln!(
        s,
        "# Submit with `sbatch {}`; afterwards `flipgraph compare --merge {}`.",
        dir.join(SCRIPT_FILE).display(),
        dir.display()
    )?;
    writeln!(s, "#SBATCH --job-name=flipgraph-{name}")?;
    writeln!(s, "#SBATCH --array=0-{}", plan.variants.len() - 1)?;
    writeln!(
        s,
        "#SBATCH --output={}/tasks/%a/slurm-%A.log",
        dir.display()
    )?;
    for option in sbatch {
        writeln!(s, "#SBATCH {option}")?;
    }
    s.push_str("set -eu\n");
    let mut cmd = vec![quote(&exe.to_string_lossy())];
    for d in &session.extra_dirs {
        let d = std::fs::canonicalize(d).unwrap_or_else(|_| d.clone());
        cmd.push(format!("--plugin-dir {}", quote(&d.to_string_lossy())));
    }
    if session.allow_override {
        cmd.push("--allow-plugin-override".into());
    }
    cmd.push(format!(
        "compare --sweep {} --task \"$SLURM_ARRAY_TASK_ID\"",
        quote(&dir.to_string_lossy())
    ));
    writeln!(s, "exec {}", cmd.join(" "))?;
    Ok(s)
}

/// `text` quoted for the shell.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}
