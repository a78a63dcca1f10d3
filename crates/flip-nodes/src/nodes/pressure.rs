//! Pressure solve: assembles the pressure system (Karlsson §5.1-5.2; variational solid faces of
//! Batty et al. 2007 and the ghost-fluid free surface by default), hands it to the chosen
//! plugin algorithm, applies the gradient. Warm-starts from
//! the previous step's pressure; reports iterations, residual, time and the divergence left.

mod bodies;
pub(crate) mod params;
pub(crate) mod solvers;

pub use params::SolverFailure;
pub(crate) mod state;
pub(crate) mod window;

use super::common::{failed, spec};
use crate::kinds::{TypedInputs, BODIES, CELLS, LEVEL_SET, SCALAR, SOLIDS, VELOCITY};
use crate::params::Params;
use crate::roles::{MemoryModel, NodeRole, Traffic};
use crate::stats::{RegularSolve, SolveReport, SolvedGrid};
use flip_abi::CELL_FLUID;
use flip_core::pressure::PressureSystem;
use flip_core::project::{
    apply_pressure, assemble, divergence_field, violation, AssembleParams, Geometry,
};
use flip_core::rigid::{with_body_velocities, BodyState, Coupling, Twist};
use flip_core::{CellGrid, CellKind, Grid3};
use flip_graph::{
    decode_state, encode_state, EvalCtx, Node, NodeError, NodeInit, NodeIo, NodeKind, NodeState,
    ParamSpec, PortSpec, Value, WindowRefusal,
};
use flip_host::{PluginSet, SolveLimits};
use flip_sdk::CoupledProblem;
use std::sync::Arc;
use std::time::Instant;

/// Output port: the pressure (Pa).
pub const PRESSURE_OUT: &str = "pressure";

struct PressureSolve {
    solvers: solvers::Solvers,
    separating: bool,
    geometry: Geometry,
    warm_start: bool,
    system: PressureSystem,
    previous: Vec<f64>,
    dump_dir: Option<std::path::PathBuf>,
    time_limit: Option<std::time::Duration>,
    /// A failed plugin reset, reported by the next evaluation.
    reset_error: Option<String>,
    /// The loaded solvers that would solve this node's problems distributed.
    distributed_solvers: Vec<String>,
}

impl PressureSolve {
    fn new(init: &NodeInit<'_>, plugins: &PluginSet) -> Result<Self, NodeError> {
        let p = Params(init.params);
        let separating = p.text("boundary")? == "separating";
        let solvers = solvers::Solvers::new(plugins, init.params, separating)?;
        let geometry = match p.text("geometry").unwrap_or("variational") {
            "voxelized" => Geometry::Voxelized,
            _ => Geometry::Variational,
        };
        Ok(Self {
            solvers,
            separating,
            geometry,
            warm_start: p.bool("warm_start")?,
            system: PressureSystem::default(),
            previous: Vec::new(),
            time_limit: params::time_limit(&p)?,
            reset_error: None,
            distributed_solvers: params::distributed_solvers(plugins, separating),
            dump_dir: p
                .bool("dump_problems")?
                .then(|| init.out_dir.join(format!("{}_problems", init.id))),
        })
    }
}

impl Node for PressureSolve {
    /// Distributed when the chosen algorithm is (refused before the run starts otherwise).
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        self.solvers.distributable(&self.distributed_solvers)?;
        Ok(0)
    }

    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let mut field = io.velocity("velocity")?;
        let cells = io.cells("cells")?;
        let phi = io.level_set("level_set")?;
        let solids = io.solids("solids")?;
        let bodies = io.bodies_opt("bodies")?;
        if bodies.is_some() && ctx.window.is_some() {
            return Err(failed("rigid bodies are not coupled in decomposed runs"));
        }
        let g = &ctx.grid;
        let ap = AssembleParams {
            density: ctx.settings.density,
            // pascals from the impulse over the time the forces acted: the pair of substeps
            // when they are paired (advection–reflection), so frame ends read ρ·g·depth
            dt: ctx.force_dt().unwrap_or(ctx.dt),
            separating: self.separating,
            geometry: self.geometry,
        };
        let previous = (self.warm_start && self.previous.len() == g.cell_count())
            .then_some(&self.previous[..]);
        assemble(
            g,
            &field.vel,
            &cells,
            &phi,
            &solids,
            &ap,
            previous,
            &mut self.system,
        );
        self.system.step = ctx.step;
        let coupled = bodies.as_ref().is_some_and(|b| !b.bodies.is_empty());
        if coupled && self.separating {
            return Err(failed(
                "rigid bodies are coupled with standard walls only (the coupled problem kind is \
                 linear): set `boundary` to \"standard\"",
            ));
        }
        if ctx.window.is_none() && !coupled {
            // An isolated solver's inputs are assembled in its shared memory from the next step
            // (a coupled problem's travel with the bodies' terms, copied).
            self.solvers.active().lend_storage(&mut self.system.problem);
        }
        let sys = &mut self.system;
        if let Some(e) = self.reset_error.take() {
            return Err(failed(format!("resetting the solver failed: {e}")));
        }
        let limits = SolveLimits {
            time_limit: self.time_limit,
            cancel: Some(ctx.cancel.clone().into()),
            ..SolveLimits::default()
        };
        let mut coupling = (bodies.as_ref())
            .filter(|_| coupled)
            .map(|b| Coupling::new(g, &sys.problem, b, f64::from(ctx.settings.density)));
        if let Some(c) = &coupling {
            c.shift_rhs(&mut sys.problem.rhs);
        }
        if let Some(dir) = &self.dump_dir {
            dump(dir, ctx.step, sys, coupling.as_ref())?;
        }
        let start = Instant::now();
        let mut resting = vec![];
        let solved = match (&ctx.window, &coupling) {
            (Some(w), _) => {
                window::solve(w, &mut sys.problem, limits, |v, l| self.solvers.solve(v, l))
            }
            (None, Some(c)) => {
                let b = bodies.as_deref().expect("coupled with bodies");
                bodies::solve_resting(sys, c, b, &mut self.solvers, &limits).map(
                    |(stats, pinned, flags)| {
                        if pinned.is_some() {
                            coupling = pinned;
                        }
                        resting = flags;
                        stats
                    },
                )
            }
            (None, None) => self.solvers.solve(&mut sys.problem.view(), limits),
        };
        for event in self.solvers.take_events() {
            io.event(event);
        }
        let stats = solved?;
        let solve_ms = start.elapsed().as_secs_f64() * 1e3;
        if self.warm_start {
            self.previous.clone_from(&sys.pressure);
        }
        // the bodies take the pressure's impulse, and the liquid at their faces their velocity
        let (solids, bodies) = match (&coupling, bodies) {
            (Some(c), Some(b)) => {
                let mut b = Arc::unwrap_or_clone(b);
                let dv = c.velocity_change(&sys.pressure);
                b.add_impulse(&dv);
                b.resting = resting;
                let solids = with_body_velocities(&solids, &sys.problem, &b.bodies, &dv);
                (Arc::new(solids), Some(b))
            }
            (_, b) => (solids, b.map(Arc::unwrap_or_clone)),
        };
        let f = Arc::make_mut(&mut field);
        apply_pressure(g, sys, &solids, &mut f.vel, &mut f.valid);
        if let (Some(c), Some(b)) = (&coupling, &bodies) {
            let after: Vec<Twist> = b.end.iter().map(BodyState::twist).collect();
            c.add_extrapolated_flux(&mut f.vel, &after, &b.solved);
        }
        if let Some(b) = bodies {
            io.set("bodies", Value::new(BODIES, b));
        }
        // isolated: shared-memory copies, part of solve_ms
        let transfer = self.solvers.active().last_transfer();
        let mut div = Grid3::new(0, 0, 0, 0.0f32);
        divergence_field(g, &f.vel, &solids, sys, &mut div);
        // On separating walls (set S) positive divergence is liquid leaving the wall.
        // (the host checked the solve's residual against its bound before)
        let max_div = match &ctx.window {
            Some(w) => window::owned_divergence(w, &mut div, sys),
            None => violation(&div, sys),
        };
        io.report(SolveReport::new(
            &stats,
            solve_ms,
            max_div,
            sys.cell_kind.iter().filter(|&&k| k == CELL_FLUID).count(),
            SolvedGrid::Regular(RegularSolve {
                outer_iterations: stats.outer_iterations,
                initial_residual: stats.initial_residual,
                transfer_ms: transfer.map(|t| t.as_secs_f64() * 1e3),
                on_fallback: self.solvers.on_fallback(),
            }),
        ));
        io.set(
            PRESSURE_OUT,
            Value::shared(SCALAR, Arc::new(sys.physical_pressure())),
        );
        io.set("divergence", Value::shared(SCALAR, Arc::new(div)));
        io.set(
            "cells",
            Value::shared(CELLS, Arc::new(problem_cells(g, sys))),
        );
        io.set("velocity", Value::shared(VELOCITY, field));
        Ok(())
    }

    fn reset(&mut self) {
        self.previous.clear();
        // The plugin forgets what it learned too (policies, hierarchies), so a run after a
        // reset equals a fresh run.
        self.reset_error = self.solvers.reset().err().map(|e| e.to_string());
    }

    /// The warm-start pressure and the plugin's learned state.
    fn save_state(&mut self) -> Result<NodeState, NodeError> {
        let (solver, incomplete) = if self.solvers.on_fallback() {
            let why =
                "the fallback solver took over: a resumed run starts the chosen solver afresh";
            (None, Some(why.to_string()))
        } else {
            state::save_solver(self.solvers.active())?
        };
        Ok(NodeState {
            bytes: encode_state(&(&self.previous, solver))?,
            incomplete,
        })
    }

    fn load_state(&mut self, bytes: &[u8]) -> Result<(), NodeError> {
        let (previous, solver): (Vec<f64>, Option<Vec<u8>>) = decode_state(bytes)?;
        self.previous = previous;
        state::load_solver(self.solvers.active(), solver.as_deref())
    }
}

/// The cell kinds of the assembled problem (the unknowns the solver saw).
fn problem_cells(g: &flip_core::GridSpec, sys: &PressureSystem) -> CellGrid {
    let mut cells = CellGrid::new(g.ni, g.nj, g.nk, CellKind::Air);
    for (o, &k) in cells.data.iter_mut().zip(&sys.cell_kind) {
        *o = match k {
            CELL_FLUID => CellKind::Fluid,
            flip_abi::CELL_SOLID => CellKind::Solid,
            _ => CellKind::Air,
        };
    }
    cells
}

/// Writes the problem (before solving; coupled with the bodies' terms when `coupling` is
/// given) as `<dir>/step_<n>.fgprob` (see `flip_sdk`'s dump format), atomically.
fn dump(
    dir: &std::path::Path,
    step: u64,
    sys: &mut PressureSystem,
    coupling: Option<&Coupling>,
) -> Result<(), NodeError> {
    let path = dir.join(format!("step_{step:06}.fgprob"));
    let tmp = path.with_extension("tmp");
    let write = |f: std::fs::File| {
        let w = std::io::BufWriter::new(f);
        match coupling {
            Some(c) => CoupledProblem {
                grid: sys.problem.view(),
                bodies: c.terms().view(),
            }
            .write_dump(w),
            None => sys.problem.view().write_dump(w),
        }
    };
    std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::File::create(&tmp))
        .and_then(write)
        .and_then(|()| std::fs::rename(&tmp, &path))
        .map_err(|e| failed(format!("cannot write {}: {e}", path.display())))
}

/// The pressure-solve node kind, offering every algorithm in `plugins`.
pub fn kind(plugins: Arc<PluginSet>) -> NodeKind {
    let names: Vec<String> = plugins.algorithms().into_iter().map(|(n, _)| n).collect();
    let default = params::default_solver(&names);
    let choices: Vec<&str> = names.iter().map(String::as_str).collect();
    let s = spec(
        "pressure",
        "Pressure Solve",
        "Solve",
        "Makes the velocity divergence-free: assembles the Poisson system (Karlsson §5.1-5.2), \
         by default with solid faces weighted by their open fraction (Batty, Bertails & Bridson \
         2007) and p = 0 at the level set's zero crossing (ghost fluid, Gibou et al. 2002), \
         solves it with a plugin algorithm, subtracts the pressure gradient. `separating` walls \
         pose the LCP 0 ≤ p ⊥ u·n ≥ 0 (Lai et al.).",
        vec![
            PortSpec::new("velocity", VELOCITY, "extrapolated grid velocity"),
            PortSpec::new("cells", CELLS, "cell kinds"),
            PortSpec::new("level_set", LEVEL_SET, "liquid signed distance"),
            PortSpec::new("solids", SOLIDS, "colliders and walls"),
            PortSpec::optional(
                "bodies",
                BODIES,
                "rigid bodies coupled into the solve (from `rigid_bodies`, whose solids this \
                 node must read)",
            ),
        ],
        vec![
            PortSpec::new("velocity", VELOCITY, "divergence-free velocity"),
            PortSpec::new(PRESSURE_OUT, SCALAR, "pressure (Pa)"),
            PortSpec::new(
                "divergence",
                SCALAR,
                "divergence after projection (1/s), faces weighted by their open fraction",
            ),
            PortSpec::new("cells", CELLS, "the unknowns: cell kinds the solver saw"),
            PortSpec::new(
                "bodies",
                BODIES,
                "the bodies after the pressure's push (to `step_output`)",
            ),
        ],
        vec![
            ParamSpec::choice(
                "solver",
                "Solver",
                "plugin algorithm (plugin/algorithm)",
                &choices,
                &default,
            ),
            ParamSpec::choice(
                "boundary",
                "Solid boundary",
                "standard: u·n = 0; separating: liquid may leave walls (LCP)",
                &["standard", "separating"],
                "standard",
            ),
            ParamSpec::choice(
                "geometry",
                "Geometry",
                "variational: solid faces cut by their open fraction and the free surface at the \
                 level set's zero (ghost fluid); voxelized: whole cells, p = 0 at air cell centres",
                &["variational", "voxelized"],
                "variational",
            ),
            ParamSpec::bool(
                "warm_start",
                "Warm start",
                "start from the previous step's pressure",
                true,
            ),
        ]
        .into_iter()
        .chain(params::solving_specs(&choices))
        .chain([ParamSpec::bool(
            "dump_problems",
            "Dump problems",
            "write every pressure system (coupled with the rigid bodies' terms when bodies are wired) to <out>/<node>_problems/ for replaying in solver development",
            false,
        )])
        .collect(),
    )
    .with(NodeRole::Pressure)
    // velocity, validity, distance, solid distance and cell kinds read; the system (kinds,
    // diagonal, couplings, right-hand side) written and read once by the solver; pressure and
    // velocity written
    .with(Traffic::new(0.0, 94.0))
    .with_live_params(&["tolerance", "rel_tolerance", "abs_tolerance"])
    // assembled system (7 f64 coefficients + rhs, pressure, kinds) and a solver's vectors
    .with(MemoryModel::per_cell(160.0));
    let for_params = plugins.clone();
    NodeKind::new(
        s,
        Box::new(move |init| Ok(Box::new(PressureSolve::new(init, &plugins)?))),
    )
    .with_dynamic_params(Box::new(move |values| {
        params::algorithm_specs(&for_params, values)
            .map_err(|e| NodeError::param("solver", e).into())
    }))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_host_reserves_exactly_the_nodes_own_parameter_names() {
        let kind = super::kind(std::sync::Arc::default());
        let mut own: Vec<&str> = kind.spec.params.iter().map(|p| p.name.as_str()).collect();
        let mut reserved = flip_abi::RESERVED_PARAM_NAMES.to_vec();
        own.sort_unstable();
        reserved.sort_unstable();
        assert_eq!(
            own, reserved,
            "a plugin parameter must never collide with these"
        );
    }
}
