//! Runs a compiled graph step after step: substeps from the CFL rule inside each frame, each
//! node started on the rayon pool as soon as its inputs are ready, values moved along edges
//! when their last reader takes them (so `Arc::make_mut` copies only when a value is really
//! shared).

use crate::compile::{compile, ExecPlan};
use crate::doc::{GraphDoc, Settings};
use crate::error::{GraphError, RunError};
use crate::node::{EvalCtx, Node};
use crate::registry::NodeRegistry;
use crate::stats::NodeStats;
use crate::step::StateSlot;
use crate::value::Value;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Stopping a run from another thread.
mod cancel;
/// Saving and restoring a run at a frame boundary.
pub mod checkpoint;
mod dataflow;
mod instantiate;
#[cfg(test)]
mod pairing_tests;
mod state_check;
mod windowed;
use dataflow::Dataflow;
use instantiate::instantiate;
pub use instantiate::RunPaths;
pub use windowed::NotDecomposable;

/// Accumulated time of one node.
#[derive(Clone, Debug, Default)]
pub struct NodeTiming {
    /// Node id.
    pub id: String,
    /// Kind id.
    pub kind: String,
    /// Total time in `eval`.
    pub total: Duration,
    /// Number of evaluations.
    pub calls: u64,
}

/// What one substep did.
#[derive(Clone, Debug, Default)]
pub struct StepReport {
    /// Frame.
    pub frame: u32,
    /// Substep within the frame.
    pub substep: u32,
    /// Time step (s).
    pub dt: f32,
    /// Whether this substep ended the frame.
    pub frame_end: bool,
    /// Per node (plan order): time spent.
    pub node_times: Vec<Duration>,
    /// Per node (plan order): statistics it reported.
    pub node_stats: Vec<Option<Arc<dyn NodeStats>>>,
    /// Elements of the state after the step, as its data kinds count them (the particles of
    /// a liquid).
    pub count: usize,
    /// Largest speed carried to the next step (m/s), as its data kinds measure it.
    pub max_speed: f32,
    /// Time of the end-of-step state check (largest speed for the CFL step, blow-up test),
    /// part of `wall`.
    pub state_check: Duration,
    /// Longest chain of node times through the graph: the substep's wall time on unlimited
    /// cores, without scheduling.
    pub critical_path: Duration,
    /// Wall time of the whole substep, scheduler included.
    pub wall: Duration,
    /// Files the output nodes wrote in this substep.
    pub files: Vec<PathBuf>,
    /// What nodes told the user in this substep: (node id, event).
    pub events: Vec<(String, crate::node::NodeEvent)>,
    /// In a decomposed run: what the exchange between windows before the substep moved, and
    /// its time (part of `wall`).
    pub exchange: Option<(crate::window::ExchangeCounts, Duration)>,
}

impl StepReport {
    /// The statistics node `node` (plan index) reported in this substep, if they are a `T`.
    #[must_use]
    pub fn stats<T: NodeStats>(&self, node: usize) -> Option<&T> {
        self.node_stats.get(node)?.as_deref()?.downcast_ref()
    }

    /// Every node's statistics that are a `T`, with the node's plan index.
    pub fn all_stats<T: NodeStats>(&self) -> impl Iterator<Item = (usize, &T)> {
        (0..self.node_stats.len()).filter_map(|i| Some((i, self.stats(i)?)))
    }
}

/// A running simulation of one graph.
pub struct Simulation {
    plan: ExecPlan,
    /// The plan's dependencies, shared so a substep can walk them while mutating `self`.
    flow: Arc<Dataflow>,
    nodes: Vec<Box<dyn Node>>,
    settings: Arc<Settings>,
    out_dir: PathBuf,
    /// The values carried from one step to the next, and their slots.
    slots: Vec<StateSlot>,
    state: Vec<Option<Value>>,
    timings: Vec<NodeTiming>,
    time: f64,
    frame: u32,
    step: u64,
    probes: Vec<(usize, usize)>,
    probed: Vec<Option<Value>>,
    /// Largest speed of the current state, from the last state check.
    state_speed: Option<f32>,
    /// Stop request, polled between substeps and by long node work.
    cancel: Arc<AtomicBool>,
    /// This rank's window in a decomposed run.
    window: Option<Arc<crate::window::Window>>,
}

impl Simulation {
    /// Validates `doc` and instantiates its nodes. Output nodes write under `out_dir`; relative
    /// input paths are resolved against `base_dir` (the graph file's folder).
    ///
    /// # Errors
    /// Every validation problem, or a node that refused its parameters.
    pub fn new(
        doc: &GraphDoc,
        registry: &NodeRegistry,
        out_dir: &Path,
        base_dir: &Path,
    ) -> Result<Self, Vec<GraphError>> {
        let paths = RunPaths {
            out_dir,
            base_dir,
            allow_outside_out: false,
        };
        Self::with_paths(doc, registry, paths)
    }

    /// [`Simulation::new`] with every path option.
    ///
    /// # Errors
    /// Every validation problem, or every node that refused its parameters.
    pub fn with_paths(
        doc: &GraphDoc,
        registry: &NodeRegistry,
        paths: RunPaths<'_>,
    ) -> Result<Self, Vec<GraphError>> {
        let plan = compile(doc, registry)?;
        let nodes = instantiate(&plan, registry, paths)?;
        let timings = plan
            .nodes
            .iter()
            .map(|p| NodeTiming {
                id: p.id.clone(),
                kind: p.kind.clone(),
                ..Default::default()
            })
            .collect();
        let settings = Arc::new(plan.settings.clone());
        let mut sim = Self {
            flow: Arc::new(Dataflow::new(&plan)),
            plan,
            nodes,
            settings,
            out_dir: paths.out_dir.into(),
            slots: registry.state().to_vec(),
            state: vec![],
            timings,
            time: 0.0,
            frame: 0,
            step: 0,
            probes: Vec::new(),
            probed: Vec::new(),
            state_speed: None,
            cancel: Arc::default(),
            window: None,
        };
        sim.reset();
        Ok(sim)
    }

    /// Back to time 0: empty state, node state forgotten.
    pub fn reset(&mut self) {
        self.state = self.slots.iter().map(|s| s.start.map(|f| f())).collect();
        for n in &mut self.nodes {
            n.reset();
        }
        for t in &mut self.timings {
            t.total = Duration::ZERO;
            t.calls = 0;
        }
        self.time = 0.0;
        self.frame = 0;
        self.step = 0;
        self.state_speed = None;
    }

    /// The compiled plan.
    pub fn plan(&self) -> &ExecPlan {
        &self.plan
    }
    /// Settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }
    /// Frames completed.
    pub fn frame(&self) -> u32 {
        self.frame
    }
    /// Simulated time (s).
    pub fn time(&self) -> f64 {
        self.time
    }
    /// Accumulated node timings (plan order).
    pub fn timings(&self) -> &[NodeTiming] {
        &self.timings
    }

    /// The first value held as a `T` carried to the next step (shares the buffer; the next
    /// step copies it once if you keep this `Arc`).
    pub fn carried_as<T: std::any::Any + Send + Sync>(&self) -> Option<Arc<T>> {
        let v = self
            .state
            .iter()
            .flatten()
            .find(|v| v.get::<T>().is_some())?;
        v.clone().into_shared().ok()
    }

    /// Replaces the value of state slot `name` carried into the next step (e.g. an initial
    /// state built outside the graph, such as an analytic wave).
    ///
    /// # Panics
    /// No slot `name`.
    pub fn set_carried(&mut self, name: &str, value: Value) {
        let slot = self.slots.iter().position(|s| s.name == name);
        self.state[slot.unwrap_or_else(|| panic!("no state slot `{name}`"))] = Some(value);
    }

    /// Asks for copies (shared `Arc`s) of these `(node id, output port)` values at the end of
    /// every frame, e.g. the level set for an editor overlay. Unknown names are ignored.
    /// Probing a value that a later node modifies makes that node copy it once per frame.
    pub fn set_probes(&mut self, probes: &[(&str, &str)]) {
        self.probes = probes
            .iter()
            .filter_map(|(node, port)| {
                let i = self.plan.nodes.iter().position(|p| p.id == *node)?;
                Some((i, self.plan.nodes[i].spec.output(port)?))
            })
            .collect();
        self.probed = vec![None; self.probes.len()];
    }

    /// The probed values of the last completed frame (order of [`Simulation::set_probes`];
    /// `None` for names that did not resolve are skipped).
    pub fn probed(&self) -> &[Option<Value>] {
        &self.probed
    }

    /// Simulates one frame: substeps of `cfl·dx / v_max` (at least `1/(fps·max_substeps)`, or
    /// `fixed_dt`) until the frame's time is covered. When a node pairs substeps
    /// ([`Node::pairs_substeps`]), they come in pairs of equal length and the frame ends on the
    /// second of a pair.
    ///
    /// # Errors
    /// A failing node or a blow-up; the frame is abandoned.
    pub fn advance_frame(&mut self) -> Result<Vec<StepReport>, RunError> {
        // Frame time is summed in f64: an f32 sum stops advancing once dt falls below its
        // rounding step, and the frame would never end.
        let frame_dt = 1.0 / f64::from(self.settings.fps);
        let paired = self.paired();
        let (mut t, mut reports) = (0.0f64, Vec::new());
        let mut second_half = None;
        for substep in 0.. {
            let remaining = frame_dt - t;
            let dt = match second_half.take() {
                Some(first) => fit(first, remaining, t),
                None if paired => {
                    let first = 0.5 * fit(2.0 * self.substep_bound(frame_dt), remaining, t);
                    second_half = Some(first);
                    first
                }
                None => fit(self.substep_bound(frame_dt), remaining, t),
            };
            let frame_end = dt >= remaining;
            reports.push(self.substep(dt as f32, substep, frame_end)?);
            t += dt;
            if frame_end {
                break;
            }
        }
        self.frame += 1;
        Ok(reports)
    }

    /// Whether a node asks for the substeps in pairs ([`Node::pairs_substeps`]).
    fn paired(&self) -> bool {
        self.nodes.iter().any(|n| n.pairs_substeps())
    }

    /// The next substep's length before it is fitted to the frame: `fixed_dt`, or the CFL
    /// step (no longer than a moving solid allows, no shorter than `1/(fps·max_substeps)`).
    fn substep_bound(&self, frame_dt: f64) -> f64 {
        if self.settings.fixed_dt > 0.0 {
            return f64::from(self.settings.fixed_dt);
        }
        let min_dt = frame_dt / f64::from(self.settings.max_substeps);
        let v = f64::from(self.global_max(self.speed_bound()));
        let cfl = f64::from(self.settings.cfl * self.settings.cell_size) / v.max(1e-6);
        cfl.min(self.solid_step()).max(min_dt)
    }

    /// Longest substep in which no moving solid travels more than one cell.
    fn solid_step(&self) -> f64 {
        let v = self
            .nodes
            .iter()
            .map(|n| n.solid_speed_hint())
            .fold(0.0f32, f32::max);
        f64::from(self.settings.cell_size) / f64::from(v).max(1e-9)
    }

    /// The carried speed plus Bridson's `sqrt(5·dx·|a|)` for the largest acceleration a node
    /// announces (gravity), so the first step from rest is not too long.
    fn speed_bound(&self) -> f32 {
        let v = self.state_speed.unwrap_or_else(|| self.carried_speed());
        let a = self
            .nodes
            .iter()
            .map(|n| n.acceleration_hint())
            .fold(0.0f32, f32::max);
        v + (5.0 * self.settings.cell_size * a).sqrt()
    }

    /// Runs one substep of length `dt`.
    ///
    /// # Errors
    /// A failing node (error or panic, named) or a blow-up.
    pub fn substep(
        &mut self,
        dt: f32,
        substep: u32,
        frame_end: bool,
    ) -> Result<StepReport, RunError> {
        // On a worker of the pool: the nodes' parallel loops then start inside it, instead of
        // each being injected from this thread (a futex wake and sleep per loop).
        rayon::scope(|_| self.substep_on_pool(dt, substep, frame_end))
    }

    fn substep_on_pool(
        &mut self,
        dt: f32,
        substep: u32,
        frame_end: bool,
    ) -> Result<StepReport, RunError> {
        let start = Instant::now();
        if self.cancel.load(Ordering::Relaxed) {
            return Err(RunError::Cancelled { frame: self.frame });
        }
        let exchange_start = Instant::now();
        let exchange = self.exchange().map(|c| (c, exchange_start.elapsed()));
        let ctx = EvalCtx {
            grid: self
                .window
                .as_ref()
                .map_or_else(|| self.settings.grid_spec(), |w| w.local),
            settings: self.settings.clone(),
            dt,
            time: self.time,
            step: self.step,
            frame: self.frame,
            substep,
            frame_end,
            paired: self.paired(),
            out_dir: self.out_dir.clone(),
            cancel: self.cancel.clone(),
            window: self.window.clone(),
        };
        let n = self.plan.nodes.len();
        let mut slots: Vec<Vec<Option<Value>>> = self
            .plan
            .nodes
            .iter()
            .map(|p| vec![None; p.spec.outputs.len()])
            .collect();
        let left: Vec<Vec<usize>> = self
            .plan
            .nodes
            .iter()
            .map(|p| p.consumers.clone())
            .collect();
        let mut report = StepReport {
            frame: self.frame,
            substep,
            dt,
            frame_end,
            node_times: vec![Duration::ZERO; n],
            node_stats: vec![None; n],
            exchange,
            ..Default::default()
        };
        if let Some(si) = self.plan.step_input {
            slots[si] = std::mem::take(&mut self.state);
        }
        self.run_nodes(&ctx, slots, left, &mut report)
            .map_err(|e| self.cancelled_or(e))?;
        self.time += f64::from(dt);
        self.step += 1;
        let check = Instant::now();
        self.state_speed = None;
        let checked = self.check_state(substep);
        (report.count, report.max_speed) = self.agree(substep, checked)?;
        self.state_speed = Some(report.max_speed);
        report.state_check = check.elapsed();
        report.wall = start.elapsed();
        Ok(report)
    }
}

/// `dt` fitted to a frame with `remaining` seconds left at frame time `t`: the rest of the frame
/// when less than half a step would remain (no sliver), or when the step would not move the
/// frame time at all.
fn fit(dt: f64, remaining: f64, t: f64) -> f64 {
    if dt >= remaining || remaining - dt < 0.5 * dt.min(remaining) || t + dt <= t {
        remaining
    } else {
        dt
    }
}
