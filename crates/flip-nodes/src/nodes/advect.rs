//! Advection: RK2 midpoint through the grid velocity, push-out of solids, clamp to the domain
//! (Karlsson eq. 24-27).
use super::common::spec;
use crate::kinds::{TypedInputs, PARTICLES, SOLIDS, VELOCITY};
use crate::roles::{NodeRole, Traffic};
use flip_core::advect::advect_shifted;
use flip_graph::{EvalCtx, Node, NodeError, NodeIo, NodeKind, PortSpec, Value, WindowRefusal};
use std::sync::Arc;

struct Advect;

impl Node for Advect {
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        Ok(0)
    }

    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let mut particles = io.particles("particles")?;
        let vel = io.velocity("velocity")?;
        let solids = io.solids("solids")?;
        let shift = io.velocity_opt("shift")?;
        advect_shifted(
            &ctx.grid,
            Arc::make_mut(&mut particles),
            &vel.vel,
            shift.as_ref().map(|s| &s.vel),
            solids.at_end(),
            ctx.dt,
        );
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
         displacement) is added to each particle's move, sampled where it started.",
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
        vec![],
    )
    .with(NodeRole::ParticleAdvect)
    // positions read and written; velocity, shift and solid distance read
    .with(Traffic::new(24.0, 28.0));
    NodeKind::new(s, Box::new(|_| Ok(Box::new(Advect))))
}
