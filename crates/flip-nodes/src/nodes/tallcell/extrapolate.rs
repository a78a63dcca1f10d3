//! Velocity extrapolation on the tall-cell grid (the paper's VE stage).
use crate::nodes::common::spec;
use crate::params::Params;
use crate::roles::NodeRole;
use flip_core::tallcell::extrapolate::extrapolate_velocity;
use flip_graph::{EvalCtx, Node, NodeError, NodeIo, NodeKind, ParamSpec};

struct Extrapolate {
    layers: usize,
}

impl Node for Extrapolate {
    fn eval(&mut self, _: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        super::modify(io, |l| {
            extrapolate_velocity(l, self.layers);
            Ok(())
        })
    }
}

/// The tall-cell extrapolation node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "tallcell_extrapolate",
        "Tall-Cell Extrapolate",
        "Tall cells",
        "Extrapolates the velocity from faces next to liquid into the air, `layers` samples \
         deep (layer-by-layer means over the column's slots and the neighbouring columns read \
         through the tall-cell rule).",
        vec![super::port("the liquid")],
        vec![super::port("the liquid, velocity extrapolated")],
        vec![ParamSpec::int(
            "layers",
            "Layers",
            "samples to extrapolate into the air",
            4,
            0,
            64,
        )],
    )
    .with(NodeRole::Grid);
    NodeKind::new(
        s,
        Box::new(|init| {
            let layers = Params(init.params).usize("layers")?;
            Ok(Box::new(Extrapolate { layers }))
        }),
    )
}
