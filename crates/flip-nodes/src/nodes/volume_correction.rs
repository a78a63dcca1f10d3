//! Volume correction: a density projection of the particles after advection (Kugelstadt et al.
//! 2019), solved by a plugin algorithm through the same ABI as the pressure solve.
use super::common::{failed, spec};
use super::pressure::params::{create_solver, default_solver, with_logs};
use super::pressure::state::{load_solver, save_solver};
use crate::params::Params;
use flip_core::pressure::PressureSystem;
use flip_core::volume::{
    assemble_correction, displace, interior_density, liquid_volume, measure, VolumeScratch,
};
use flip_core::Grid3;
use flip_graph::{
    decode_state, encode_state, DataKind, EvalCtx, Node, NodeError, NodeInit, NodeIo, NodeKind,
    NodeState, ParamSpec, ParamValue, PortSpec, Value,
};
use flip_plugin::host::{PluginSet, SolveLimits, SolverInstance};
use std::sync::Arc;
use std::time::Instant;

struct VolumeCorrection {
    solver: Option<SolverInstance>,
    strength: f32,
    /// Rest density from the parameter, or measured on the first step with interior cells.
    rest: Option<f32>,
    rest_param: Option<f32>,
    /// Level-set volume per particle, measured with the rest density.
    per_particle: Option<f64>,
    system: PressureSystem,
    scratch: VolumeScratch,
    reset_error: Option<String>,
}

impl VolumeCorrection {
    fn new(init: &NodeInit<'_>, plugins: &PluginSet) -> Result<Self, String> {
        let p = Params(init.params);
        let enabled = p.bool("enabled").map_err(|e| e.to_string())?;
        let rest = p.f32("rest_density").map_err(|e| e.to_string())?;
        let rest_param = (rest > 0.0).then_some(rest);
        // a per-step correction needs no tight solve: the node's tolerance goes to the
        // algorithm's `rel_tolerance` where it has one
        let mut values = init.params.clone();
        let tolerance = p.f32("tolerance").map_err(|e| e.to_string())?;
        values.insert(
            "rel_tolerance".into(),
            ParamValue::Number(f64::from(tolerance)),
        );
        Ok(Self {
            solver: if enabled {
                Some(create_solver(plugins, &values, false)?)
            } else {
                None
            },
            strength: p.f32("strength").map_err(|e| e.to_string())?,
            rest: rest_param,
            rest_param,
            per_particle: None,
            system: PressureSystem::default(),
            scratch: VolumeScratch::default(),
            reset_error: None,
        })
    }

    /// Measures, solves and moves the particles; `None` when there is nothing to correct.
    fn correct(
        &mut self,
        ctx: &EvalCtx,
        io: &mut NodeIo,
        particles: &mut flip_core::Particles,
        solids: &flip_core::Solids,
        solver: &mut SolverInstance,
    ) -> Result<(), NodeError> {
        let g = &ctx.grid;
        let t0 = Instant::now();
        measure(g, &particles.pos, solids, &mut self.scratch);
        io.stat("correction_measure_ms", t0.elapsed().as_secs_f64() * 1e3);
        if self.rest.is_none() {
            self.rest = interior_density(g, &self.scratch);
        }
        let Some(rest) = self.rest else {
            return Ok(());
        };
        let n = particles.len() as f64;
        if self.per_particle.is_none() && n > 0.0 {
            self.per_particle = Some(liquid_volume(g, solids, &self.scratch) / n);
        }
        let sys = &mut self.system;
        let (target, strength) = (self.per_particle.map_or(0.0, |v| n * v), self.strength);
        let report = assemble_correction(g, solids, target, rest, strength, &mut self.scratch, sys);
        sys.step = ctx.step;
        solver.set_limits(SolveLimits {
            time_limit: None,
            cancel: Some(ctx.cancel.clone().into()),
            ..SolveLimits::default()
        });
        let start = Instant::now();
        let stats = solver
            .solve(&mut sys.problem.view())
            .map_err(|e| failed(with_logs(e, solver.take_logs())))?;
        io.stat("correction_solve_ms", start.elapsed().as_secs_f64() * 1e3);
        let t1 = Instant::now();
        let shift = displace(g, particles, solids, sys, &mut self.scratch);
        io.stat("correction_displace_ms", t1.elapsed().as_secs_f64() * 1e3);
        // named apart from the pressure solve's statistics, which summaries add up
        io.stat("correction_iterations", f64::from(stats.iterations));
        io.stat("correction_residual", stats.residual);
        io.stat("rest_density", f64::from(rest));
        io.stat("density_error", report.mean_error);
        io.stat("volume_error", report.volume_error);
        io.stat("max_shift_cells", f64::from(shift));
        Ok(())
    }
}

impl Node for VolumeCorrection {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let mut particles = io.particles("particles")?;
        if let Some(e) = self.reset_error.take() {
            return Err(failed(format!("resetting the solver failed: {e}")));
        }
        if let Some(mut solver) = self.solver.take() {
            let solids = io.solids("solids")?;
            let ps = Arc::make_mut(&mut particles);
            // the particles have been advected: moving solids as at the end of the substep
            let done = self.correct(ctx, io, ps, solids.at_end(), &mut solver);
            self.solver = Some(solver);
            done?;
        }
        let density = match self.rest {
            Some(rest) if self.scratch.density.dims() == ctx.grid.dims() => {
                let mut d = self.scratch.density.clone();
                d.data.iter_mut().for_each(|x| *x /= rest);
                d
            }
            _ => Grid3::new(ctx.grid.ni, ctx.grid.nj, ctx.grid.nk, 0.0),
        };
        io.set("density", Value::Scalar(Arc::new(density)));
        io.set("particles", Value::Particles(particles));
        Ok(())
    }

    fn reset(&mut self) {
        self.rest = self.rest_param;
        self.per_particle = None;
        if let Some(s) = self.solver.as_mut() {
            self.reset_error = s.reset().err().map(|e| e.to_string());
        }
    }

    /// The measured rest density and volume per particle, and the plugin's learned state.
    fn save_state(&mut self) -> Result<NodeState, NodeError> {
        let (solver, incomplete) = match self.solver.as_mut() {
            Some(s) => save_solver(s)?,
            None => (None, None),
        };
        Ok(NodeState {
            bytes: encode_state(&(self.rest, self.per_particle, solver))?,
            incomplete,
        })
    }

    fn load_state(&mut self, bytes: &[u8]) -> Result<(), NodeError> {
        let (rest, per_particle, solver): (Option<f32>, Option<f64>, Option<Vec<u8>>) =
            decode_state(bytes)?;
        (self.rest, self.per_particle) = (rest, per_particle);
        match self.solver.as_mut() {
            Some(s) => load_solver(s, solver.as_deref()),
            None => Ok(()),
        }
    }
}

/// The volume-correction node kind; its `solver` offers every algorithm in `plugins`.
pub fn kind(plugins: Arc<PluginSet>) -> NodeKind {
    let names: Vec<String> = plugins.algorithms().into_iter().map(|(n, _)| n).collect();
    let default = default_solver(&names);
    let choices: Vec<&str> = names.iter().map(String::as_str).collect();
    let s = spec(
        "volume_correction",
        "Volume Correction",
        "Motion",
        "Keeps the liquid's volume: measures the particle density against the rest density and \
         moves particles from over- to under-dense regions along −∇q, where q solves the \
         pressure Poisson problem with the density error as its source (implicit density \
         projection, Kugelstadt et al. 2019). Near the surface only over-density is corrected; a \
         uniform source steers the level set's volume to the particles' rest volume (volume \
         control, Kim et al. 2007). \
         Particles stay in the domain and out of solids.",
        vec![
            PortSpec::new("particles", DataKind::Particles, "advected particles"),
            PortSpec::new("solids", DataKind::Solids, "colliders and walls"),
        ],
        vec![
            PortSpec::new("particles", DataKind::Particles, "corrected particles"),
            PortSpec::new(
                "density",
                DataKind::Scalar,
                "particle density over rest density, before the correction",
            ),
        ],
        params(&choices, &default),
    );
    NodeKind::new(
        s,
        Box::new(move |init| Ok(Box::new(VolumeCorrection::new(init, &plugins)?))),
    )
}

fn params(choices: &[&str], default: &str) -> Vec<ParamSpec> {
    vec![
        ParamSpec::bool(
            "enabled",
            "Enabled",
            "off: particles pass through unchanged",
            true,
        ),
        ParamSpec::float(
            "strength",
            "Strength",
            "share of the density error corrected per step",
            1.0,
            0.0,
            1.0,
        ),
        ParamSpec::float(
            "rest_density",
            "Rest density",
            "particles per cell at rest; 0 = measured in the liquid's interior on the first step",
            0.0,
            0.0,
            1e3,
        ),
        ParamSpec::float(
            "tolerance",
            "Tolerance",
            "relative residual of the correction's solve (the algorithm's `rel_tolerance`)",
            1e-3,
            1e-9,
            1.0,
        ),
        ParamSpec::choice(
            "solver",
            "Solver",
            "plugin algorithm for the correction's Poisson problem (plugin/algorithm)",
            choices,
            default,
        ),
    ]
}
