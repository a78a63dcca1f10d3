//! Velocity extrapolation into the air band, only on faces without a valid value
//! (Karlsson §4.3).
use super::common::spec;
use crate::kinds::{TypedInputs, LEVEL_SET, VELOCITY};
use crate::params::Params;
use crate::roles::{NodeRole, Traffic};
use flip_core::extrapolate::extrapolate;
use flip_graph::{
    EvalCtx, Node, NodeError, NodeIo, NodeKind, ParamSpec, PortSpec, Value, WindowRefusal,
};
use std::sync::Arc;

struct Extrapolate {
    layers: usize,
}

impl Node for Extrapolate {
    /// Values travel `layers` faces into the air band.
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        Ok(self.layers)
    }

    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let mut field = io.velocity("velocity")?;
        let phi = io.level_set("level_set")?;
        let f = Arc::make_mut(&mut field);
        extrapolate(&ctx.grid, &mut f.vel, &mut f.valid, &phi, self.layers);
        io.set("velocity", Value::shared(VELOCITY, field));
        Ok(())
    }
}

/// The extrapolation node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "extrapolate",
        "Extrapolate Velocity",
        "Grid",
        "Extends valid face velocities into faces that got no particle weight, along the \
         level-set normal (Karlsson §4.3); valid faces are never changed.",
        vec![
            PortSpec::new("velocity", VELOCITY, "grid velocity with valid mask"),
            PortSpec::new("level_set", LEVEL_SET, "liquid signed distance"),
        ],
        vec![PortSpec::new("velocity", VELOCITY, "extrapolated velocity")],
        vec![ParamSpec::int(
            "layers",
            "Layers",
            "how many faces away from valid ones to fill",
            4,
            1,
            64,
        )],
    )
    .with(NodeRole::Grid)
    // velocity, validity and distance read, velocity written
    .with(Traffic::new(0.0, 31.0));
    NodeKind::new(
        s,
        Box::new(|init| {
            let layers = Params(init.params).usize("layers")?;
            Ok(Box::new(Extrapolate { layers }))
        }),
    )
}
