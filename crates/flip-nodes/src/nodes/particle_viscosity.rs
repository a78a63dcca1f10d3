//! Particle viscosity: the emitters' per-particle viscosity attribute as a per-cell field, for
//! the viscosity node's optional `viscosity` input (two liquids of different viscosity in one
//! tank: honey poured into water).
use super::common::spec;
use crate::kinds::{TypedInputs, PARTICLES, SCALAR};
use crate::params::Params;
use crate::roles::NodeRole;
use flip_core::viscosity::particle_viscosity;
use flip_core::Grid3;
use flip_graph::{
    EvalCtx, Node, NodeError, NodeInit, NodeIo, NodeKind, ParamSpec, PortSpec, Value,
};
use std::sync::Arc;

struct ParticleViscosity {
    /// For particles without the attribute and cells no particle reaches (m²/s).
    default: f32,
    spare: Option<Arc<Grid3<f32>>>,
}

impl ParticleViscosity {
    fn new(init: &NodeInit<'_>) -> Result<Self, NodeError> {
        let default = Params(init.params).f32("default")?;
        if !(default.is_finite() && default >= 0.0) {
            return Err(NodeError::param(
                "default",
                format!("a viscosity must be finite and not negative, not {default}"),
            ));
        }
        Ok(Self {
            default,
            spare: None,
        })
    }
}

impl Node for ParticleViscosity {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let particles = io.particles("particles")?;
        let mut field = match self.spare.take() {
            Some(f) if Arc::strong_count(&f) == 1 => f,
            _ => Arc::new(Grid3::new(0, 0, 0, 0.0)),
        };
        particle_viscosity(
            &ctx.grid,
            &particles,
            self.default,
            Arc::make_mut(&mut field),
        );
        self.spare = Some(field.clone());
        io.set("viscosity", Value::shared(SCALAR, field));
        Ok(())
    }
}

/// The particle viscosity node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "particle_viscosity",
        "Particle viscosity",
        "Liquid",
        "The particles' viscosity attribute (set by emitters with Set viscosity) as a \
         kinematic viscosity per cell: the kernel-weighted mean of the particles around each \
         cell centre, the P2G weights. Wire it into the viscosity node's `viscosity` input to \
         give each liquid its own viscosity.",
        vec![PortSpec::new("particles", PARTICLES, "liquid particles")],
        vec![PortSpec::new(
            "viscosity",
            SCALAR,
            "kinematic viscosity per cell (m²/s)",
        )],
        vec![ParamSpec::float(
            "default",
            "Default (m²/s)",
            "for particles without the attribute and cells no particle reaches",
            0.0,
            0.0,
            1e4,
        )],
    )
    .with(NodeRole::Grid);
    NodeKind::new(
        s,
        Box::new(|init| Ok(Box::new(ParticleViscosity::new(init)?))),
    )
}
