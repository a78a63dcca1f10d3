//! Advection: RK2 midpoint through the grid velocity, push-out of solids, clamp to the domain
//! (Karlsson eq. 24-27); particles beyond open domain faces leave, inflow faces seed the
//! liquid that entered ([`flip_core::boundary`]).
use super::common::spec;
use crate::kinds::{TypedInputs, PARTICLES, SOLIDS, VELOCITY};
use crate::params::Params;
use crate::roles::{NodeRole, Traffic};
use crate::stats::BoundaryFlowStats;
use flip_core::advect::advect_shifted;
use flip_core::boundary::{feed_inflow, remove_outside, InflowFeed};
use flip_graph::{
    EvalCtx, Node, NodeError, NodeIo, NodeKind, NodeState, ParamSpec, PortSpec, Value,
    WindowRefusal,
};
use std::sync::Arc;

struct Advect {
    /// Reorder the particles by cell every this many substeps (0: never).
    sort_every: u64,
    /// What each inflow face has fed so far.
    feeds: [InflowFeed; 6],
    /// The inflow's random stream (the graph seed).
    seed: u64,
}

/// Jitter of inflow particles within their sub-cell: the emitter's default (anywhere in it).
const INFLOW_JITTER: f32 = 1.0;

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
        let solids = solids.at_end();
        if !solids.sides.all_walls() {
            let left = remove_outside(&ctx.grid, solids, moved);
            let seed = self.seed ^ ctx.step.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            let entered = feed_inflow(
                &ctx.grid,
                solids,
                &mut self.feeds,
                ctx.dt,
                INFLOW_JITTER,
                seed,
                moved,
            );
            io.report(BoundaryFlowStats { entered, left });
        }
        if self.sort_every > 0 && ctx.step.is_multiple_of(self.sort_every) {
            moved.sort_by_cell(&ctx.grid);
        }
        io.set("particles", Value::shared(PARTICLES, particles));
        Ok(())
    }

    fn reset(&mut self) {
        self.feeds = Default::default();
    }

    fn save_state(&mut self) -> Result<NodeState, NodeError> {
        let mut bytes = Vec::with_capacity(96);
        for f in &self.feeds {
            bytes.extend(f.fed.to_le_bytes());
            bytes.extend(f.layers.to_le_bytes());
        }
        Ok(NodeState {
            bytes,
            incomplete: None,
        })
    }

    fn load_state(&mut self, state: &[u8]) -> Result<(), NodeError> {
        if state.is_empty() {
            return Ok(());
        }
        if state.len() != 96 {
            return Err(NodeError::Failed(format!(
                "advect state: {} bytes, expected 96 (six inflow feeds)",
                state.len()
            )));
        }
        for (f, chunk) in self.feeds.iter_mut().zip(state.chunks_exact(16)) {
            let (a, b) = chunk.split_at(8);
            f.fed = f64::from_le_bytes(a.try_into().expect("8 bytes"));
            f.layers = u64::from_le_bytes(b.try_into().expect("8 bytes"));
        }
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
         the particle stages read the grids in memory order. With open domain faces (see \
         `solids`) particles beyond them are removed, and inflow faces seed the liquid that \
         entered (jittered on a 2^d sub-cell lattice); both are counted for the volume balance.",
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
            Ok(Box::new(Advect {
                sort_every,
                feeds: Default::default(),
                seed: init.settings.seed ^ 0x1f10_3a5e_ed00_b0b5,
            }))
        }),
    )
}
