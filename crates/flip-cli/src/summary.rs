//! Accumulates step reports into per-node timings and per-solve records, and prints them.

use flip_graph::{Simulation, StepReport};
use flip_nodes::roles::{KindFacts, NodeRole};
use flip_nodes::stats::{SolveReport, SolvedGrid, VolumeBalance, WhitewaterStats};
use std::time::Duration;

/// One pressure solve, as reported by a pressure node.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct SolveRecord {
    /// Node id.
    pub node: String,
    /// Frame.
    pub frame: u32,
    /// Iterations (inner iterations summed for LCP outer methods).
    pub iterations: f64,
    /// Outer iterations (policy / penalty).
    pub outer_iterations: f64,
    /// Final residual.
    pub residual: f64,
    /// Whether the tolerance was met.
    pub converged: bool,
    /// Solve time (ms).
    pub solve_ms: f64,
    /// Max |∇·u| after projection (1/s).
    pub max_divergence: f64,
    /// Fluid cells.
    pub fluid_cells: f64,
}

/// Totals over a run.
#[derive(Clone, Debug, Default)]
pub struct RunSummary {
    /// Node ids (plan order).
    pub ids: Vec<String>,
    /// Node kinds.
    pub kinds: Vec<String>,
    /// Their roles.
    pub roles: Vec<NodeRole>,
    /// Time per node.
    pub node_time: Vec<Duration>,
    /// Substeps run.
    pub steps: usize,
    /// Frames run.
    pub frames: usize,
    /// Wall time of all substeps (scheduler included).
    pub wall: Duration,
    /// Sum over substeps of the longest chain of node times (the nodes' share of the wall).
    pub critical: Duration,
    /// Every pressure solve.
    pub solves: Vec<SolveRecord>,
    /// Every viscosity solve (`viscosity` nodes).
    pub viscosity_solves: Vec<SolveRecord>,
    /// Particles at the end.
    pub particles: usize,
    /// Each whitewater node's last report, with its births summed over the run.
    pub whitewater: Vec<(String, WhitewaterStats, usize)>,
    /// The last frame's liquid volume balance.
    pub volume: VolumeBalance,
    /// Cell size (m) and dimensions, for volumes.
    cell: (f64, usize),
}

impl RunSummary {
    /// An empty summary for `sim`'s nodes.
    pub fn new(sim: &Simulation) -> Self {
        let nodes = &sim.plan().nodes;
        Self {
            ids: nodes.iter().map(|n| n.id.clone()).collect(),
            kinds: nodes.iter().map(|n| n.kind.clone()).collect(),
            roles: nodes.iter().map(|n| n.spec.role()).collect(),
            node_time: vec![Duration::ZERO; nodes.len()],
            cell: {
                let g = sim.settings().grid_spec();
                (f64::from(g.dx), g.dimension())
            },
            ..Default::default()
        }
    }

    /// Adds one frame's substeps.
    pub fn add_frame(&mut self, reports: &[StepReport]) {
        self.frames += 1;
        let (dx, dims) = self.cell;
        self.volume = VolumeBalance::of_steps(reports, &self.ids, self.particles, dx, dims);
        for r in reports {
            self.steps += 1;
            self.wall += r.wall;
            self.critical += r.critical_path;
            self.particles = r.count;
            for (i, t) in r.node_times.iter().enumerate() {
                self.node_time[i] += *t;
            }
            for (i, w) in r.all_stats::<WhitewaterStats>() {
                let id = &self.ids[i];
                match self.whitewater.iter_mut().find(|(n, ..)| n == id) {
                    Some(entry) => (entry.1, entry.2) = (*w, entry.2 + w.emitted),
                    None => self.whitewater.push((id.clone(), *w, w.emitted)),
                }
            }
            for (i, s) in r.all_stats::<SolveReport>() {
                let list = if matches!(s.grid, SolvedGrid::Viscosity(_)) {
                    &mut self.viscosity_solves
                } else {
                    &mut self.solves
                };
                list.push(SolveRecord {
                    node: self.ids[i].clone(),
                    frame: r.frame,
                    iterations: f64::from(s.iterations),
                    outer_iterations: f64::from(s.outer_iterations()),
                    residual: s.residual,
                    converged: s.converged,
                    solve_ms: s.solve_ms,
                    max_divergence: f64::from(s.max_divergence),
                    fluid_cells: s.fluid_cells().map_or(0.0, |n| n as f64),
                });
            }
        }
    }

    /// Average of `f` over solves (0 if none).
    pub fn mean(&self, f: impl Fn(&SolveRecord) -> f64) -> f64 {
        if self.solves.is_empty() {
            0.0
        } else {
            self.solves.iter().map(f).sum::<f64>() / self.solves.len() as f64
        }
    }

    /// Maximum of `f` over solves.
    pub fn max(&self, f: impl Fn(&SolveRecord) -> f64) -> f64 {
        self.solves.iter().map(f).fold(0.0, f64::max)
    }

    /// The closing table: time per node, then solver statistics.
    pub fn print(&self) {
        let total: f64 = self.node_time.iter().map(Duration::as_secs_f64).sum();
        let steps = self.steps.max(1) as f64;
        let (wall, critical) = (self.wall.as_secs_f64(), self.critical.as_secs_f64());
        println!("\n{} frames, {} substeps, {} particles, {:.2} s wall ({:.1} ms/substep; node time {:.1} ms, critical path {:.1} ms, scheduler and state check {:.2} ms)",
            self.frames, self.steps, self.particles, wall,
            1e3 * wall / steps, 1e3 * total / steps, 1e3 * critical / steps,
            1e3 * (wall - critical).max(0.0) / steps);
        println!(
            "{:<18} {:<12} {:>10} {:>12} {:>7}",
            "node", "kind", "total s", "ms/substep", "share"
        );
        let mut order: Vec<usize> = (0..self.ids.len()).collect();
        order.sort_by(|&a, &b| self.node_time[b].cmp(&self.node_time[a]));
        for i in order {
            let t = self.node_time[i].as_secs_f64();
            if t == 0.0 && self.roles[i].is_step_boundary() {
                continue;
            }
            println!(
                "{:<18} {:<12} {:>10.3} {:>12.3} {:>6.1}%",
                self.ids[i],
                self.kinds[i],
                t,
                1e3 * t / steps,
                100.0 * t / total.max(1e-12)
            );
        }
        for (id, w, born) in &self.whitewater {
            println!(
                "\nwhitewater {id}: {} spray, {} foam, {} bubbles at the end | {born} born, {} expired and {} left the domain in the last frame",
                w.spray, w.foam, w.bubbles, w.expired, w.outside
            );
        }
        if !self.solves.is_empty() {
            let unconverged = self.solves.iter().filter(|s| !s.converged).count();
            println!("\npressure solves: {} | iterations mean {:.1}, max {:.0} | outer mean {:.2} | residual mean {:.2e}, max {:.2e} | not converged {} | max |div| after projection {:.2e} 1/s | solve {:.2} ms mean",
                self.solves.len(), self.mean(|s| s.iterations), self.max(|s| s.iterations),
                self.mean(|s| s.outer_iterations), self.mean(|s| s.residual), self.max(|s| s.residual),
                unconverged, self.max(|s| s.max_divergence), self.mean(|s| s.solve_ms));
        }
        let v = &self.viscosity_solves;
        if !v.is_empty() {
            let n = v.len() as f64;
            let mean = |f: fn(&SolveRecord) -> f64| v.iter().map(f).sum::<f64>() / n;
            let max = |f: fn(&SolveRecord) -> f64| v.iter().map(f).fold(0.0, f64::max);
            println!("viscosity solves: {} | iterations mean {:.1}, max {:.0} | residual mean {:.2e}, max {:.2e} | not converged {} | solve {:.2} ms mean",
                v.len(), mean(|s| s.iterations), max(|s| s.iterations), mean(|s| s.residual),
                max(|s| s.residual), v.iter().filter(|s| !s.converged).count(), mean(|s| s.solve_ms));
        }
    }
}
