//! Semi-Lagrangian advection on the tall-cell grid: the level set (LA) and the velocity by
//! itself (VA), every sample (tall-cell bottoms and tops included) traced back with RK2.
use crate::nodes::common::spec;
use crate::roles::NodeRole;
use flip_core::tallcell::advect::{advect_level_set, advect_velocity};
use flip_graph::{EvalCtx, Node, NodeError, NodeIo, NodeKind};

struct Advect;

impl Node for Advect {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        super::modify(io, |l| {
            advect_level_set(l, ctx.dt);
            advect_velocity(l, ctx.dt);
            Ok(())
        })
    }
}

/// The tall-cell advection node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "tallcell_advect",
        "Tall-Cell Advect",
        "Tall cells",
        "Semi-Lagrangian advection of the level set and of the velocity by itself (RK2 \
         characteristics, values read with the paper's tall-cell interpolation).",
        vec![super::port("the liquid")],
        vec![super::port("the advected liquid")],
        vec![],
    )
    .with(NodeRole::Grid);
    NodeKind::new(s, Box::new(|_| Ok(Box::new(Advect))))
}
