//! Velocity extrapolation into the air band, only on faces without a valid value
//! (Karlsson §4.3).
use super::common::spec;
use crate::kinds::{TypedInputs, LEVEL_SET, SOLIDS, VELOCITY};
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
        let solids = io.solids_opt("solids")?;
        let f = Arc::make_mut(&mut field);
        if let Some(solids) = &solids {
            hold_solid_faces(solids, f);
        }
        extrapolate(&ctx.grid, &mut f.vel, &mut f.valid, &phi, self.layers);
        io.set("velocity", Value::shared(VELOCITY, field));
        Ok(())
    }
}

/// No-slip walls: faces closed by a solid take the solid's velocity and count as valid, so
/// G2P reads the wall's velocity there rather than the liquid's, extrapolated.
fn hold_solid_faces(solids: &flip_core::Solids, f: &mut crate::kinds::VelocityField) {
    let moving = solids.velocity.as_ref().map(flip_core::MacGrid::axes);
    let open = solids.face_open.axes();
    for (a, (g, m)) in f
        .vel
        .axes_mut()
        .into_iter()
        .zip(f.valid.axes_mut())
        .enumerate()
    {
        if open[a].len() != g.len() {
            continue;
        }
        for (i, (u, valid)) in g.data.iter_mut().zip(m.data.iter_mut()).enumerate() {
            if open[a].data[i] <= 0.0 {
                *u = moving.map_or(0.0, |v| v[a].data[i]);
                *valid = 1;
            }
        }
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
            PortSpec::optional(
                "solids",
                SOLIDS,
                "wired: faces closed by solids keep the solid's velocity (no-slip walls, for \
                 viscous liquids); unwired: they are extrapolated like air faces (free slip)",
            ),
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
