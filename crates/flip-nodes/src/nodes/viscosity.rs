//! Implicit viscosity (Batty & Bridson 2008): assembles the variational viscosity system on the
//! face velocities (`flip_core::viscosity`), hands it to a plugin algorithm as the viscosity
//! problem kind, writes the solution back.
//!
//! Place: after the forces and the extrapolation, before the pressure solve, the order of
//! Batty & Bridson's step (advect, forces, viscosity, projection): the projection comes last, so
//! the velocity G2P reads is divergence-free, and the viscous step sees the extrapolated
//! velocities at the partly filled faces of the surface.

use super::common::{check_grid, failed, spec};
use super::pressure::params::{self, Poses};
use super::pressure::solvers::Solvers;
use crate::kinds::{TypedInputs, LEVEL_SET, SCALAR, SOLIDS, VELOCITY};
use crate::params::Params;
use crate::roles::{MemoryModel, NodeRole, Traffic};
use crate::stats::{SolveReport, SolvedGrid, ViscositySolve as Figures};
use flip_core::viscosity::{apply, assemble, ViscositySystem, Viscous, Walls};
use flip_core::Grid3;
use flip_graph::{
    EvalCtx, Node, NodeError, NodeInit, NodeIo, NodeKind, ParamSpec, ParamValue, PortSpec, Value,
};
use flip_host::{PluginSet, ProblemRef, SolveLimits};
use std::sync::Arc;
use std::time::Instant;

struct ViscositySolve {
    solvers: Solvers,
    /// Kinematic viscosity (m²/s) where no field is wired.
    nu: f32,
    nu_grid: Grid3<f32>,
    walls: Walls,
    system: ViscositySystem,
    time_limit: Option<std::time::Duration>,
    /// A failed plugin reset, reported by the next evaluation.
    reset_error: Option<String>,
}

impl ViscositySolve {
    fn new(init: &NodeInit<'_>, plugins: &PluginSet) -> Result<Self, NodeError> {
        let p = Params(init.params);
        Ok(Self {
            solvers: Solvers::posing(plugins, init.params, Poses::Viscosity)?,
            nu: p.f32("viscosity")?,
            nu_grid: Grid3::new(0, 0, 0, 0.0),
            walls: match p.text("walls")? {
                "free_slip" => Walls::FreeSlip,
                _ => Walls::NoSlip,
            },
            system: ViscositySystem::default(),
            time_limit: params::time_limit(&p)?,
            reset_error: None,
        })
    }
}

impl Node for ViscositySolve {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let mut field = io.velocity("velocity")?;
        let phi = io.level_set("level_set")?;
        let solids = io.solids("solids")?;
        let nu_field = io.scalar_opt("viscosity")?;
        let g = &ctx.grid;
        // With advection–reflection (`reflect`) viscosity acts once a pair of substeps, in the
        // second, so that the first reflects only the projection of the advected velocity
        // (viscosity would otherwise damp the expansion advection leaves in a rotating body,
        // which the reflection then cannot give back).
        let Some(dt) = ctx.force_dt() else {
            io.set("velocity", Value::shared(VELOCITY, field));
            return Ok(());
        };
        if nu_field.is_none() && self.nu <= 0.0 {
            // off: the velocity passes through untouched (nothing to fill or scan)
            io.set("velocity", Value::shared(VELOCITY, field));
            return Ok(());
        }
        match &nu_field {
            Some(f) => {
                check_grid("viscosity", f, g)?;
                self.nu_grid.clone_from(f);
            }
            None => self.nu_grid.reset(g.ni, g.nj, g.nk, self.nu),
        }
        if let Some(e) = self.reset_error.take() {
            return Err(failed(format!("resetting the solver failed: {e}")));
        }
        if self.nu_grid.data.iter().all(|&v| v <= 0.0) {
            io.set("velocity", Value::shared(VELOCITY, field));
            return Ok(());
        }
        if self
            .nu_grid
            .data
            .iter()
            .any(|v| !(v.is_finite() && *v >= 0.0))
        {
            return Err(failed("the viscosity must be finite and not negative"));
        }
        let start = Instant::now();
        let sys = &mut self.system;
        let liquid = Viscous {
            nu: &self.nu_grid,
            walls: self.walls,
        };
        assemble(g, &field.vel, &phi, &solids, liquid, dt, sys);
        sys.csr.step = ctx.step;
        let assemble_ms = start.elapsed().as_secs_f64() * 1e3;
        let unknowns = sys.rows();
        if unknowns == 0 {
            io.set("velocity", Value::shared(VELOCITY, field));
            return Ok(());
        }
        let limits = SolveLimits {
            time_limit: self.time_limit,
            cancel: Some(ctx.cancel.clone().into()),
            ..SolveLimits::default()
        };
        let before = sys.csr.pressure.clone();
        let start = Instant::now();
        let solved = self.solvers.solve_with(limits, |s| {
            sys.csr.pressure.clone_from(&before);
            s.solve_any(ProblemRef::Viscosity(&mut sys.problem()))
        });
        for event in self.solvers.take_events() {
            io.event(event);
        }
        let stats = solved?;
        let solve_ms = start.elapsed().as_secs_f64() * 1e3;
        let max_change = sys
            .csr
            .pressure
            .iter()
            .zip(&before)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        apply(sys, &mut Arc::make_mut(&mut field).vel);
        let transfer = self.solvers.active().last_transfer();
        io.report(SolveReport::new(
            &stats,
            solve_ms,
            0.0,
            unknowns,
            SolvedGrid::Viscosity(Figures {
                initial_residual: stats.initial_residual,
                assemble_ms,
                transfer_ms: transfer.map(|t| t.as_secs_f64() * 1e3),
                on_fallback: self.solvers.on_fallback(),
                max_change,
            }),
        ));
        io.set("velocity", Value::shared(VELOCITY, field));
        Ok(())
    }

    fn reset(&mut self) {
        self.reset_error = self.solvers.reset().err().map(|e| e.to_string());
    }
}

/// Preferred default: the AMG-preconditioned CG, then IC(0)-PCG, then any viscosity solver.
fn default_solver(plugins: &PluginSet) -> String {
    let names = params::viscosity_solvers(plugins);
    params::preferred(&names, &["multigrid/amg-pcg", "pcg/ic0-pcg"])
}

/// The viscosity node kind, offering the algorithms of `plugins` that take viscosity problems.
pub fn kind(plugins: Arc<PluginSet>) -> NodeKind {
    let names = params::viscosity_solvers(&plugins);
    let default = default_solver(&plugins);
    let choices: Vec<&str> = names.iter().map(String::as_str).collect();
    let s = spec(
        "viscosity",
        "Viscosity",
        "Solve",
        "Implicit viscosity with a traction-free surface (Batty & Bridson 2008): minimises the \
         kinetic energy change plus Δt·ν·‖strain rate‖² over the new face velocities, the \
         strains weighted by the liquid fractions of their control volumes (cells, edges), \
         no-slip or free-slip at solids. Stable at any viscosity and time step, keeps rigid rotation. Wire \
         it after the forces and before the pressure solve.",
        vec![
            PortSpec::new(
                "velocity",
                VELOCITY,
                "extrapolated grid velocity after forces",
            ),
            PortSpec::new("level_set", LEVEL_SET, "liquid signed distance"),
            PortSpec::new("solids", SOLIDS, "colliders and walls"),
            PortSpec::optional(
                "viscosity",
                SCALAR,
                "optional kinematic viscosity per cell (m²/s), instead of the parameter",
            ),
        ],
        vec![PortSpec::new(
            "velocity",
            VELOCITY,
            "velocity after the viscous step",
        )],
        vec![
            ParamSpec::float(
                "viscosity",
                "Viscosity (m²/s)",
                "kinematic viscosity ν = μ/ρ: water 1e-6, olive oil 1e-4, honey 1e-2 to 1e-1, \
                 0 = off",
                0.0,
                0.0,
                1e4,
            ),
            ParamSpec::choice(
                "walls",
                "Walls",
                "no_slip: the liquid sticks to solids; free_slip: it slides along them (no \
                 shear stress at a wall)",
                &["no_slip", "free_slip"],
                "no_slip",
            ),
            ParamSpec::choice(
                "solver",
                "Solver",
                "plugin algorithm taking viscosity problems (plugin/algorithm)",
                &choices,
                &default,
            ),
        ]
        .into_iter()
        .chain(params::solving_specs(&choices))
        .collect(),
    )
    .with(NodeRole::Viscosity)
    // velocity, distance and solid distance read; the system (about 20 f64 entries per face)
    // written and read by the solver; velocity written
    .with(Traffic::new(0.0, 60.0))
    .with_live_params(&["viscosity", "rel_tolerance", "abs_tolerance"])
    // weights, the CSR system of three faces per cell and a solver's vectors
    .with(MemoryModel::per_cell(900.0));
    let for_params = plugins.clone();
    NodeKind::new(
        s,
        Box::new(move |init| Ok(Box::new(ViscositySolve::new(init, &plugins)?))),
    )
    .with_dynamic_params(Box::new(move |values| {
        let mut values = values.clone();
        values
            .entry("solver".into())
            .or_insert_with(|| ParamValue::Text(default_solver(&for_params)));
        params::algorithm_specs(&for_params, &values)
            .map_err(|e| NodeError::param("solver", e).into())
    }))
}
