//! Cooling: lava that stiffens from its surface. The particles' viscosity attribute relaxes
//! towards its cold value within a depth of the surface (`flip_core::viscosity::cooling`).
use super::common::spec;
use crate::kinds::{TypedInputs, LEVEL_SET, PARTICLES};
use crate::params::Params;
use crate::roles::NodeRole;
use flip_core::viscosity::{cool, Cooling};
use flip_graph::{
    EvalCtx, Node, NodeError, NodeInit, NodeIo, NodeKind, ParamSpec, PortSpec, Value,
};
use std::sync::Arc;

struct CoolingNode {
    law: Cooling,
}

impl CoolingNode {
    fn new(init: &NodeInit<'_>) -> Result<Self, NodeError> {
        let p = Params(init.params);
        let law = Cooling {
            cold: p.f32("cold_viscosity")?,
            rate: p.f32("rate")?,
            depth: p.f32("depth")?,
        };
        let positive = |v: f32| v.is_finite() && v > 0.0;
        for (name, value, ok) in [
            ("cold_viscosity", law.cold, positive(law.cold)),
            ("rate", law.rate, law.rate.is_finite() && law.rate >= 0.0),
            ("depth", law.depth, positive(law.depth)),
        ] {
            if !ok {
                return Err(NodeError::param(name, format!("out of range: {value}")));
            }
        }
        Ok(Self { law })
    }
}

impl Node for CoolingNode {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let mut particles = io.particles("particles")?;
        let phi = io.level_set("level_set")?;
        if particles.has_viscosity() {
            let ps = Arc::make_mut(&mut particles);
            cool(&ctx.grid, ps, &phi, self.law, ctx.dt);
        }
        io.set("particles", Value::shared(PARTICLES, particles));
        Ok(())
    }
}

/// The cooling node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "cooling",
        "Cooling",
        "Liquid",
        "Lava that stiffens as it cools: within `depth` of the surface the particles' viscosity \
         attribute relaxes towards `cold_viscosity` as ln ν does under Newton cooling with an \
         exponential viscosity law (the rate is Newton's k); deeper particles keep their heat. \
         Particles without the attribute are left alone.",
        vec![
            PortSpec::new("particles", PARTICLES, "particles with a viscosity"),
            PortSpec::new("level_set", LEVEL_SET, "liquid signed distance"),
        ],
        vec![PortSpec::new(
            "particles",
            PARTICLES,
            "particles with the cooled viscosity",
        )],
        vec![
            ParamSpec::float(
                "cold_viscosity",
                "Cold viscosity (m²/s)",
                "the viscosity at the ambient temperature, approached as the lava cools",
                50.0,
                1e-9,
                1e6,
            ),
            ParamSpec::float(
                "rate",
                "Rate (1/s)",
                "Newton's cooling rate k: the gap of ln ν to the cold value shrinks as e^(−k t)",
                0.5,
                0.0,
                1e3,
            ),
            ParamSpec::float(
                "depth",
                "Depth (m)",
                "how far below the surface the liquid cools",
                0.02,
                1e-6,
                1e3,
            ),
        ],
    )
    .with(NodeRole::ParticleAttribute);
    NodeKind::new(s, Box::new(|init| Ok(Box::new(CoolingNode::new(init)?))))
}
