//! Volume correction: a density projection of the particles (Kugelstadt et al. 2019), solved by
//! a plugin algorithm through the same ABI as the pressure solve.
//!
//! Two wirings. Before advection (the shipped graphs): the level-set node's `level_set` and
//! `density` come in, so nothing is measured here, and the displacement goes out on `shift`
//! to the advect node, which applies it in its own particle pass. After advection (older
//! graphs): the node measures the advected particles itself and moves them.
use super::common::{failed, spec};
use super::pressure::params::{
    create_solver, default_solver, distributable, distributed_solvers, with_logs,
};
use super::pressure::state::{load_solver, save_solver};
use super::pressure::window::solve as solve_windowed;
use crate::kinds::{TypedInputs, VelocityField, LEVEL_SET, PARTICLES, SCALAR, SOLIDS, VELOCITY};
use crate::roles::{MemoryModel, NodeRole, Traffic};
use crate::stats::{CorrectionSolve, VolumeCorrectionStats};
use flip_sdk::Problem;

mod window;
use crate::params::Params;
use flip_core::pressure::PressureSystem;
use flip_core::volume::{
    assemble_correction, displace, displacement, interior_density, liquid_volume, measure,
    CorrectionTarget, Measurement, VolumeScratch,
};
use flip_core::{Grid3, Particles, Solids};
use flip_graph::{
    decode_state, encode_state, EvalCtx, Node, NodeError, NodeInit, NodeIo, NodeKind, NodeState,
    ParamSpec, ParamValue, PortSpec, Value, WindowRefusal,
};
use flip_host::{PluginSet, SolveLimits, SolverInstance};
use rayon::prelude::*;
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
    /// The last `shift` output, reused when the advect node has let go of it.
    spare_shift: Option<Arc<VelocityField>>,
    /// The `shift` output when there is no displacement (kept, not allocated every step).
    zero: Option<Arc<VelocityField>>,
    reset_error: Option<String>,
    /// The loaded solvers that would solve the correction's problem distributed.
    distributed_solvers: Vec<String>,
}

/// The input particles, or only their count when the node does not need them.
struct Kept {
    count: usize,
    particles: Option<Arc<Particles>>,
}

impl Kept {
    fn get(&mut self) -> Result<&mut Arc<Particles>, NodeError> {
        self.particles
            .as_mut()
            .ok_or_else(|| failed("the particles were let go of but are needed"))
    }
}

/// The level-set node's liquid signed distance and particle density.
type LevelSetMeasurement = (Arc<Grid3<f32>>, Arc<Grid3<f32>>);

/// Where the correction's measurement comes from and where its displacement goes.
enum Wiring {
    /// The particles before advection, with the level-set node's measurement of them
    /// (`None`: its method gives no density, so they are measured here); the displacement
    /// goes out on `shift`.
    BeforeAdvection(Option<LevelSetMeasurement>),
    /// Measured here on the advected particles, which are moved here.
    AfterAdvection,
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
            spare_shift: None,
            zero: None,
            reset_error: None,
            distributed_solvers: distributed_solvers(plugins, false),
        })
    }

    /// A zero displacement on the grid `g`.
    fn zero_shift(&mut self, g: &flip_core::GridSpec) -> Arc<VelocityField> {
        match &self.zero {
            Some(z) if flip_core::transfer::matches_spec(g, &z.vel) => z.clone(),
            _ => self.zero.insert(Arc::new(VelocityField::zeros(g))).clone(),
        }
    }

    /// Measures (or takes the level-set node's measurement), solves, and moves the particles
    /// (after advection) or returns the displacement (before advection); `Ok(None)` when there
    /// is nothing to correct yet.
    fn correct(
        &mut self,
        ctx: &EvalCtx,
        reported: &mut VolumeCorrectionStats,
        wiring: &Wiring,
        particles: &mut Kept,
        solids: &Solids,
        solver: &mut SolverInstance,
    ) -> Result<Option<Arc<VelocityField>>, NodeError> {
        let g = &ctx.grid;
        let m = match wiring {
            Wiring::BeforeAdvection(Some((phi, density))) => {
                if phi.dims() != g.dims() || density.dims() != g.dims() {
                    return Err(failed("`level_set` or `density` is not on the grid"));
                }
                Measurement { phi, density }
            }
            Wiring::BeforeAdvection(None) | Wiring::AfterAdvection => {
                let t0 = Instant::now();
                measure(g, &particles.get()?.pos, solids, &mut self.scratch);
                reported.measure_ms = Some(t0.elapsed().as_secs_f64() * 1e3);
                Measurement {
                    phi: &self.scratch.phi,
                    density: &self.scratch.density,
                }
            }
        };
        let domain = match &ctx.window {
            Some(w) => window::measure(w, g, solids, m, particles.get()?),
            None => window::DomainMeasure {
                // measured once: the first step with interior cells sets it
                rest: self.rest.or_else(|| interior_density(g, m)),
                volume: liquid_volume(g, solids, m),
                particles: particles.count as f64,
            },
        };
        if self.rest.is_none() {
            self.rest = domain.rest;
        }
        let Some(rest) = self.rest else {
            return Ok(None);
        };
        let n = domain.particles;
        if self.per_particle.is_none() && n > 0.0 {
            self.per_particle = Some(domain.volume / n);
        }
        let target = CorrectionTarget {
            rest_volume: self.per_particle.map_or(0.0, |v| n * v),
            volume: domain.volume,
            rest,
            strength: self.strength,
        };
        let sys = &mut self.system;
        let t0 = Instant::now();
        let report = assemble_correction(g, solids, m, target, &mut self.scratch.cells, sys);
        let assemble_ms = t0.elapsed().as_secs_f64() * 1e3;
        sys.step = ctx.step;
        let limits = SolveLimits {
            time_limit: None,
            cancel: Some(ctx.cancel.clone().into()),
            ..SolveLimits::default()
        };
        let start = Instant::now();
        let mut solve = |view: &mut Problem<'_>, limits| {
            solver.set_limits(limits);
            solver
                .solve(view)
                .map_err(|e| with_logs(e, solver.take_logs()))
        };
        let stats = match &ctx.window {
            Some(w) => solve_windowed(w, &mut sys.problem, limits, solve)?,
            None => solve(&mut sys.problem.view(), limits)?,
        };
        let solve_ms = start.elapsed().as_secs_f64() * 1e3;
        let t1 = Instant::now();
        let (shift, out) = match wiring {
            Wiring::AfterAdvection => {
                let ps = Arc::make_mut(particles.get()?);
                (displace(g, ps, solids, sys, &mut self.scratch), None)
            }
            Wiring::BeforeAdvection(_) => {
                let mut field = match self.spare_shift.take() {
                    Some(f) if Arc::strong_count(&f) == 1 => f,
                    _ => Arc::new(VelocityField::zeros(g)),
                };
                let f = Arc::make_mut(&mut field);
                let shift = displacement(g, sys, &mut f.vel, &mut f.valid);
                self.spare_shift = Some(field.clone());
                (shift, Some(field))
            }
        };
        reported.solve = Some(CorrectionSolve {
            assemble_ms,
            solve_ms,
            displace_ms: t1.elapsed().as_secs_f64() * 1e3,
            iterations: stats.iterations,
            residual: stats.residual,
            rest_density: rest,
            density_error: report.mean_error,
            volume_error: report.volume_error,
            max_shift_cells: shift,
        });
        Ok(out)
    }
}

impl Node for VolumeCorrection {
    /// Distributed when the correction's solver is (refused before the run starts otherwise).
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        if let Some(s) = &self.solver {
            distributable(s, &self.distributed_solvers)?;
        }
        Ok(0)
    }

    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let particles = io.particles("particles")?;
        if let Some(e) = self.reset_error.take() {
            return Err(failed(format!("resetting the solver failed: {e}")));
        }
        let wiring = match (io.level_set_opt("level_set")?, io.scalar_opt("density")?) {
            (Some(phi), Some(density)) => Wiring::BeforeAdvection(Some((phi, density))),
            (Some(_), None) => Wiring::BeforeAdvection(None),
            (None, None) => Wiring::AfterAdvection,
            (None, Some(_)) => {
                return Err(failed(
                    "`density` needs `level_set` from the same level-set node wired too",
                ))
            }
        };
        // Before advection with the level set's measurement, only the count is needed: the
        // particles are let go of unless their pass-through output is read, so that G2P
        // updates them in place instead of copying them while this node solves.
        let needed = !matches!(wiring, Wiring::BeforeAdvection(Some(_)))
            || ctx.window.is_some()
            || io.is_read("particles");
        let mut particles = Kept {
            count: particles.len(),
            particles: needed.then_some(particles),
        };
        let mut shift = None;
        if let Some(mut solver) = self.solver.take() {
            let solids = io.solids("solids")?;
            // before advection: the solids the level set saw; after: where moving solids are
            // at the end of the substep
            let solids = match wiring {
                Wiring::BeforeAdvection(_) => &*solids,
                Wiring::AfterAdvection => solids.at_end(),
            };
            let mut stats = VolumeCorrectionStats::default();
            let done = self.correct(
                ctx,
                &mut stats,
                &wiring,
                &mut particles,
                solids,
                &mut solver,
            );
            if !stats.is_empty() {
                io.report(stats);
            }
            self.solver = Some(solver);
            shift = done?;
        }
        let g = &ctx.grid;
        let shift = shift.unwrap_or_else(|| self.zero_shift(g));
        if io.is_read("density") {
            let measured = match &wiring {
                Wiring::BeforeAdvection(Some((_, density))) => density,
                _ => &self.scratch.density,
            };
            let density = relative_density(g, measured, self.rest);
            io.set("density", Value::shared(SCALAR, Arc::new(density)));
        }
        io.set("shift", Value::shared(VELOCITY, shift));
        if let Some(p) = particles.particles {
            io.set("particles", Value::shared(PARTICLES, p));
        }
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

/// `measured / rest` on the grid `g` (zero before the rest density is known).
fn relative_density(
    g: &flip_core::GridSpec,
    measured: &Grid3<f32>,
    rest: Option<f32>,
) -> Grid3<f32> {
    match rest {
        Some(rest) if measured.dims() == g.dims() => {
            let mut d = measured.clone();
            d.data.par_iter_mut().for_each(|x| *x /= rest);
            d
        }
        _ => Grid3::new(g.ni, g.nj, g.nk, 0.0),
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
            PortSpec::new(
                "particles",
                PARTICLES,
                "the particles the level set was built from (before advection), or the \
                 advected particles",
            ),
            PortSpec::new("solids", SOLIDS, "colliders and walls"),
            PortSpec::optional(
                "level_set",
                LEVEL_SET,
                "the level-set node's surface of these particles: wired, the node works \
                 before advection and hands its displacement to advect's `shift`",
            ),
            PortSpec::optional(
                "density",
                SCALAR,
                "the level-set node's particle density (particles per cell); unwired or \
                 empty, the particles are measured here",
            ),
        ],
        vec![
            PortSpec::new(
                "particles",
                PARTICLES,
                "corrected particles (after advection) or the input unchanged",
            ),
            PortSpec::new(
                "shift",
                VELOCITY,
                "displacement for advect's `shift` (m; zero after advection)",
            ),
            PortSpec::new(
                "density",
                SCALAR,
                "particle density over rest density, before the correction",
            ),
        ],
        params(&choices, &default),
    )
    .with(NodeRole::VolumeCorrection)
    // distance, density and solid distance read; the system written and read once by the
    // solver; the shift and the density ratio written
    .with(Traffic::new(0.0, 78.0))
    // its own system and a solver's vectors, like the pressure solve's (estimate's figure)
    .with(MemoryModel::per_cell(180.0));
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
