//! Advection: RK2 midpoint through the grid velocity, push-out of solids, clamp to the domain
//! (Karlsson eq. 24-27).
use super::common::spec;
use crate::kinds::{TypedInputs, PARTICLES, SOLIDS, VELOCITY};
use crate::params::Params;
use crate::roles::{NodeRole, Traffic};
use flip_core::advect::advect_shifted;
use flip_graph::{
    EvalCtx, Node, NodeError, NodeIo, NodeKind, ParamSpec, PortSpec, Value, WindowRefusal,
};
use std::sync::Arc;

struct Advect {
    /// Reorder the particles by cell every this many substeps (0: never).
    sort_every: u64,
}

impl Node for Advect {
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        Ok(0)
    }

    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let mut particles = io.particles("particles")?;
        let vel = io.velocity("velocity")?;
        let solids = io.solids("solids")?;
        let shift = io.velocity_opt("shift")?;
        let moved = Arc::make_mut(&mut particles);
        advect_shifted(
            &ctx.grid,
            moved,
            &vel.vel,
            shift.as_ref().map(|s| &s.vel),
            solids.at_end(),
            ctx.dt,
        );
        if self.sort_every > 0 && ctx.step.is_multiple_of(self.sort_every) {
            moved.sort_by_cell(&ctx.grid);
        }
        io.set("particles", Value::shared(PARTICLES, particles));
        Ok(())
    }
}

/// The advect node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "advect",
        "Advect",
        "Motion",
        "Moves particles with RK2 (midpoint) through the grid velocity (Karlsson eq. 24-26), \
         pushes them out of solids (eq. 27, β = 1.5; moving solids where they are at the end of \
         the substep) and keeps them in the domain. A `shift` (the volume correction's \
         displacement) is added to each particle's move, sampled where it started. Every few \
         substeps the particles are reordered by the cell they are in (stable, ids kept), so \
         the particle stages read the grids in memory order.",
        vec![
            PortSpec::new("particles", PARTICLES, "marker particles"),
            PortSpec::new("velocity", VELOCITY, "divergence-free grid velocity"),
            PortSpec::new("solids", SOLIDS, "colliders and walls"),
            PortSpec::optional(
                "shift",
                VELOCITY,
                "displacement added to the move (m), e.g. the volume correction's",
            ),
        ],
        vec![PortSpec::new("particles", PARTICLES, "moved particles")],
        vec![ParamSpec::int(
            "sort_every",
            "Sort every",
            "reorder the particles by cell every this many substeps, so the particle stages \
             read the grids in order (0: never; the order of particles in exported files then \
             stays the emission order)",
            8,
            0,
            100_000,
        )],
    )
    .with(NodeRole::ParticleAdvect)
    // positions read and written; velocity, shift and solid distance read
    .with(Traffic::new(24.0, 28.0));
    NodeKind::new(
        s,
        Box::new(|init| {
            let sort_every = Params(init.params).usize("sort_every")? as u64;
            Ok(Box::new(Advect { sort_every }))
        }),
    )
}
