//! Gravity on the tall-cell liquid's vertical velocity.
use crate::nodes::common::spec;
use crate::params::Params;
use crate::roles::NodeRole;
use flip_core::tallcell::advect::add_gravity;
use flip_graph::{EvalCtx, Node, NodeError, NodeIo, NodeKind, ParamSpec};

struct Gravity {
    g: f32,
}

impl Node for Gravity {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        super::modify(io, |l| {
            add_gravity(l, self.g, ctx.dt);
            Ok(())
        })
    }

    fn acceleration_hint(&self) -> f32 {
        self.g.abs()
    }
}

/// The tall-cell gravity node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "tallcell_gravity",
        "Tall-Cell Gravity",
        "Tall cells",
        "Adds `gravity·dt` to the vertical velocity on every open face.",
        vec![super::port("the liquid")],
        vec![super::port("the accelerated liquid")],
        vec![ParamSpec::float(
            "gravity",
            "Gravity (m/s²)",
            "vertical acceleration",
            -9.81,
            -1e3,
            1e3,
        )],
    )
    .with(NodeRole::Force);
    NodeKind::new(
        s,
        Box::new(|init| {
            let g = Params(init.params).f32("gravity")?;
            Ok(Box::new(Gravity { g }))
        }),
    )
}
