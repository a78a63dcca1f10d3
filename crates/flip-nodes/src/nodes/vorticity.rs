//! Vorticity confinement (Wave §2.1.2, Fedkiw et al. 2001): puts back the small swirls that
//! semi-Lagrangian advection smooths away, `f = ε·dx·(N × ω)`.
use super::common::spec;
use crate::kinds::{TypedInputs, VELOCITY};
use crate::params::Params;
use crate::roles::NodeRole;
use flip_core::smoke::vorticity_confinement;
use flip_graph::{
    EvalCtx, Node, NodeError, NodeIo, NodeKind, ParamSpec, PortSpec, Value, WindowRefusal,
};
use std::sync::Arc;

struct Vorticity {
    epsilon: f32,
}

impl Node for Vorticity {
    /// The curl and then the gradient of its magnitude: two cells.
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        Ok(2)
    }

    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let mut field = io.velocity("velocity")?;
        if let Some(dt) = ctx.force_dt() {
            let f = Arc::make_mut(&mut field);
            vorticity_confinement(&ctx.grid, &mut f.vel, self.epsilon, dt);
        }
        io.set("velocity", Value::shared(VELOCITY, field));
        Ok(())
    }
}

/// The vorticity confinement node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "vorticity",
        "Vorticity Confinement",
        "Smoke",
        "Adds ε·dx·(N × ω) to the velocity, N the unit gradient of |ω| (Wave §2.1.2): livelier \
         smoke that keeps its small vortices.",
        vec![PortSpec::new("velocity", VELOCITY, "grid velocity")],
        vec![PortSpec::new(
            "velocity",
            VELOCITY,
            "velocity with confinement",
        )],
        vec![ParamSpec::float(
            "epsilon",
            "Strength ε",
            "confinement strength (0 = off)",
            0.3,
            0.0,
            100.0,
        )],
    )
    .with(NodeRole::Force);
    NodeKind::new(
        s,
        Box::new(|init| {
            let epsilon = Params(init.params).f32("epsilon")?;
            Ok(Box::new(Vorticity { epsilon }))
        }),
    )
}
