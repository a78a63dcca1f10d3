//! Particles to grid: normalised weighted splat (Karlsson Alg. 2-3); records which faces got
//! particle weight (for extrapolation) and keeps the result as the FLIP reference velocity.
use super::common::spec;
use crate::kinds::{TypedInputs, VelocityField, PARTICLES, VELOCITY};
use crate::roles::{MemoryModel, NodeRole, Traffic};
use flip_core::transfer::{p2g, TransferScratch};
use flip_graph::{EvalCtx, Node, NodeError, NodeIo, NodeKind, PortSpec, Value, WindowRefusal};
use std::sync::Arc;

#[derive(Default)]
struct P2g {
    scratch: TransferScratch,
    spare: Option<Arc<VelocityField>>,
}

impl Node for P2g {
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        Ok(0)
    }

    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let particles = io.particles("particles")?;
        // Reuse last step's buffer when nobody else holds it any more.
        let mut field = match self.spare.take() {
            Some(f) if Arc::strong_count(&f) == 1 && f.vel.u.ni == ctx.grid.ni + 1 => f,
            _ => Arc::new(VelocityField::zeros(&ctx.grid)),
        };
        let f = Arc::make_mut(&mut field);
        p2g(
            &ctx.grid,
            &particles,
            &mut f.vel,
            &mut f.valid,
            &mut self.scratch,
        );
        self.spare = Some(field.clone());
        io.set("velocity", Value::shared(VELOCITY, field));
        Ok(())
    }
}

/// The P2G node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "p2g",
        "Particles to Grid",
        "Transfer",
        "Splats particle velocities onto the MAC grid with normalised hat weights (Karlsson \
         Alg. 2-3); faces that receive no weight are marked invalid for extrapolation.",
        vec![PortSpec::new("particles", PARTICLES, "marker particles")],
        vec![PortSpec::new(
            "velocity",
            VELOCITY,
            "grid velocity; also wire it to G2P's velocity_old for the FLIP update",
        )],
        vec![],
    )
    .with(NodeRole::ParticleToGrid)
    // positions and velocities read; velocity and validity written
    .with(Traffic::new(24.0, 15.0))
    // transfer weights and a spare velocity field
    .with(MemoryModel::per_cell(27.0));
    NodeKind::new(s, Box::new(|_| Ok(Box::<P2g>::default())))
}
