//! What `run` tells while it works: a progress bar for people, or with `--progress json` one
//! JSON object per line on stdout for scripts and farms (docs/guide/running.md, "Machine-readable progress").

use crate::summary::RunSummary;
use clap::ValueEnum;
use flip_graph::StepReport;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Value};
use std::path::Path;
use std::time::Instant;

/// How `run` reports progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProgressMode {
    /// A progress bar on stderr (hidden with --quiet).
    Bar,
    /// One JSON object per line on stdout.
    Json,
}

/// The reporter of one run.
#[derive(Clone)]
pub struct Progress {
    mode: ProgressMode,
    bar: ProgressBar,
    start: Instant,
    first: u32,
    total: u32,
}

impl Progress {
    /// A reporter for frames `first+1..=total`.
    pub fn new(mode: ProgressMode, quiet: bool, first: u32, total: u32) -> Self {
        let bar = if quiet || mode == ProgressMode::Json {
            ProgressBar::hidden()
        } else {
            ProgressBar::new(u64::from(total))
        };
        bar.set_style(
            ProgressStyle::with_template(
                "{bar:30} {pos}/{len} frames {elapsed_precise} eta {eta} {msg}",
            )
            .expect("valid template"),
        );
        bar.set_position(u64::from(first));
        bar.reset_eta();
        Self {
            mode,
            bar,
            start: Instant::now(),
            first,
            total,
        }
    }

    /// Whether people read the output (plain text on stdout is allowed).
    pub fn human(&self) -> bool {
        self.mode == ProgressMode::Bar
    }

    fn emit(&self, event: &str, mut body: Value) {
        if self.mode == ProgressMode::Json {
            body["event"] = json!(event);
            println!("{body}");
        }
    }

    /// The run starts.
    pub fn started(&self, graph: &Path, out: &Path, grid: [usize; 3], description: &str) {
        if self.human() {
            println!(
                "{}: {} — {} frames on {grid:?} cells, output in {}",
                flip_abi::sanitize(&graph.display().to_string()),
                flip_abi::sanitize(description),
                self.total,
                out.display()
            );
        }
        self.emit(
            "started",
            json!({"graph": graph, "out": out, "first_frame": self.first + 1,
                   "frames": self.total, "grid": grid}),
        );
    }

    /// Frame `frame` (1-based) is written.
    pub fn frame(&self, frame: u32, reports: &[StepReport], summary: &RunSummary, wall_s: f64) {
        let last = summary.solves.last();
        let (iterations, residual) = last.map_or((0.0, 0.0), |s| (s.iterations, s.residual));
        let done = frame.saturating_sub(self.first).max(1);
        let per_frame = self.start.elapsed().as_secs_f64() / f64::from(done);
        let eta = per_frame * f64::from(self.total.saturating_sub(frame));
        self.bar.set_message(format!(
            "{} substeps, {} particles, solver {iterations} it, res {residual:.1e}",
            reports.len(),
            summary.particles,
        ));
        self.bar.set_position(u64::from(frame));
        let dts: Vec<f32> = reports.iter().map(|r| r.dt).collect();
        self.emit(
            "frame",
            json!({"frame": frame, "frames": self.total, "substeps": reports.len(), "dt": dts,
                   "wall_s": wall_s, "particles": summary.particles,
                   "solver": {"iterations": iterations, "residual": residual},
                   "volume": summary.volume, "eta_s": eta}),
        );
    }

    /// What nodes told the user in these steps: a warning line each, or with `--progress json`
    /// a typed event each (`"event": "solver_fallback"`, with `node`, `frame`, `substep` and
    /// the event's fields).
    pub fn node_events(&self, reports: &[StepReport]) {
        for r in reports {
            for (node, event) in &r.events {
                match self.mode {
                    ProgressMode::Bar => self.bar.suspend(|| {
                        eprintln!("warning: node `{}`: {event}", flip_abi::sanitize(node));
                    }),
                    ProgressMode::Json => {
                        let mut body = serde_json::to_value(event).unwrap_or_default();
                        body["node"] = json!(node);
                        body["frame"] = json!(r.frame + 1);
                        body["substep"] = json!(r.substep);
                        println!("{body}");
                    }
                }
            }
        }
    }

    /// A checkpoint was written.
    pub fn checkpoint(&self, frame: u32, path: &Path) {
        self.emit("checkpoint", json!({"frame": frame, "path": path}));
    }

    /// Something the user should know.
    pub fn warning(&self, message: &str) {
        match self.mode {
            ProgressMode::Bar => self.bar.suspend(|| eprintln!("warning: {message}")),
            ProgressMode::Json => self.emit("warning", json!({"message": message})),
        }
    }

    /// The run stopped with `message` and exit status `code` (printed on stderr by `main`).
    pub fn error(&self, message: &str, code: i32) {
        self.bar.abandon();
        self.emit("error", json!({"message": message, "exit_code": code}));
    }

    /// Every frame is written.
    pub fn finished(&self, frames: u32) {
        self.bar.finish_and_clear();
        self.emit(
            "finished",
            json!({"frames": frames, "wall_s": self.start.elapsed().as_secs_f64()}),
        );
    }
}
