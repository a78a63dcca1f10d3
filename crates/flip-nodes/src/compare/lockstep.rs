//! Variants advanced in lockstep: every live variant simulates frame n before any simulates
//! frame n + 1, so the metrics and the RMS distance to the baseline (the first variant) compare
//! the same instant.

use super::{CompareError, FrameMetrics, VariantReport, VariantSpec};
use flip_graph::overrides::apply_overrides_scoped;
use flip_graph::{GraphDoc, NodeRegistry, RunError, Simulation, StepReport};
use rayon::prelude::*;
use std::time::{Duration, Instant};

/// Variants simulated at once by default: 1 on two cores or fewer (each simulation is itself
/// parallel), else half the cores.
pub fn default_jobs() -> usize {
    let n = rayon::current_num_threads();
    if n <= 2 {
        1
    } else {
        n / 2
    }
}

/// One variant of a comparison.
pub struct VariantRun {
    /// Its name and overrides.
    pub spec: VariantSpec,
    /// The simulation; `None` once it failed (or never built).
    pub sim: Option<Simulation>,
    /// Metrics of the frames completed, and the failure.
    pub report: VariantReport,
    /// Step reports of the last frame simulated.
    pub last_steps: Vec<StepReport>,
    /// Wall time of the last frame simulated.
    pub last_wall: Duration,
}

impl VariantRun {
    fn step(&mut self, frame: u32) {
        let Some(sim) = self.sim.as_mut() else { return };
        let start = Instant::now();
        match sim.advance_frame() {
            Ok(steps) => {
                self.last_wall = start.elapsed();
                self.report
                    .frames
                    .push(FrameMetrics::from_steps(frame, &steps));
                self.last_steps = steps;
            }
            Err(e) => {
                // `RunError` counts frames from 0; the report counts from 1.
                let why = match e {
                    RunError::NodeFailed {
                        node, kind, error, ..
                    } => format!("node `{node}` ({kind}) failed: {error}"),
                    RunError::BlowUp {
                        substep, message, ..
                    } => format!("simulation blew up at substep {substep}: {message}"),
                    RunError::Cancelled { .. } => "stopped on request".into(),
                };
                self.report.failure = Some(format!("frame {frame}: {why}"));
                self.sim = None;
                self.last_steps.clear();
            }
        }
    }

    /// Metrics of `frame`, when this variant completed it.
    pub fn metrics(&self, frame: u32) -> Option<&FrameMetrics> {
        self.report
            .frames
            .get(frame.checked_sub(1)? as usize)
            .filter(|m| m.frame == frame)
    }
}

/// The variants of one comparison and the frame they are at.
pub struct Lockstep {
    runs: Vec<VariantRun>,
    frame: u32,
    /// `None`: one variant at a time on the caller's thread (simulations stay parallel inside).
    pool: Option<rayon::ThreadPool>,
}

impl Lockstep {
    /// Applies each variant's overrides to `base` (dropping the parameters a solver switch
    /// makes stale, [`apply_overrides_scoped`]) and builds its simulation with `build` (which
    /// may set probes). A variant whose overrides or build fail is kept with its failure;
    /// `jobs` variants are simulated at once.
    ///
    /// # Errors
    /// No variants, or no threads.
    pub fn new(
        base: &GraphDoc,
        registry: &NodeRegistry,
        specs: &[VariantSpec],
        jobs: usize,
        mut build: impl FnMut(&VariantSpec, &GraphDoc) -> Result<Simulation, String>,
    ) -> Result<Self, CompareError> {
        if specs.is_empty() {
            return Err(CompareError::NoVariants);
        }
        let runs = specs
            .iter()
            .map(|spec| {
                let mut report = VariantReport::new(&spec.name, &spec.overrides);
                let mut doc = base.clone();
                let sim = apply_overrides_scoped(&mut doc, &spec.overrides, registry)
                    .map_err(|e| e.to_string())
                    .and_then(|()| build(spec, &doc))
                    .map_err(|e| report.failure = Some(e))
                    .ok();
                VariantRun {
                    spec: spec.clone(),
                    sim,
                    report,
                    last_steps: Vec::new(),
                    last_wall: Duration::ZERO,
                }
            })
            .collect();
        let pool = if jobs > 1 {
            Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(jobs)
                    .thread_name(|i| format!("flipgraph-variant-{i}"))
                    .build()?,
            )
        } else {
            None
        };
        Ok(Self {
            runs,
            frame: 0,
            pool,
        })
    }

    /// Frames completed.
    pub fn frame(&self) -> u32 {
        self.frame
    }

    /// The variants, in the order given (the first is the baseline).
    pub fn runs(&self) -> &[VariantRun] {
        &self.runs
    }

    /// Whether every variant has failed.
    pub fn all_failed(&self) -> bool {
        self.runs.iter().all(|r| r.sim.is_none())
    }

    /// Simulates the next frame of every live variant, then completes its metrics against the
    /// baseline's particles.
    pub fn advance(&mut self) {
        let frame = self.frame + 1;
        let runs = &mut self.runs;
        match &self.pool {
            Some(pool) => pool.install(|| runs.par_iter_mut().for_each(|r| r.step(frame))),
            None => runs.iter_mut().for_each(|r| r.step(frame)),
        }
        let baseline = runs[0].sim.as_ref().and_then(Simulation::carried_as);
        for r in runs.iter_mut() {
            let Some(sim) = &r.sim else { continue };
            let grid = sim.settings().grid_spec();
            let particles = sim.carried_as();
            if let Some(m) = r.report.frames.last_mut().filter(|m| m.frame == frame) {
                m.finish(&grid, particles.as_deref(), baseline.as_deref());
            }
        }
        self.frame = frame;
    }

    /// The reports, in variant order.
    pub fn into_reports(self) -> Vec<VariantReport> {
        self.runs.into_iter().map(|r| r.report).collect()
    }
}
