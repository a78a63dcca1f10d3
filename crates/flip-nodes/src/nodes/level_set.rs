//! Liquid level set from the fluid cells, reinitialised by fast sweeping (Karlsson §4.1-4.2).
use super::common::spec;
use crate::params::Params;
use flip_core::levelset::liquid_phi;
use flip_core::Grid3;
use flip_graph::{
    DataKind, EvalCtx, Node, NodeError, NodeIo, NodeKind, ParamSpec, PortSpec, Value,
};
use std::sync::Arc;

struct LevelSet {
    sweeps: usize,
    spare: Option<Arc<Grid3<f32>>>,
}

impl Node for LevelSet {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let cells = io.cells("cells")?;
        let g = &ctx.grid;
        let mut phi = match self.spare.take() {
            Some(p) if Arc::strong_count(&p) == 1 && p.dims() == g.dims() => p,
            _ => Arc::new(Grid3::new(g.ni, g.nj, g.nk, 0.0)),
        };
        liquid_phi(g, &cells, self.sweeps, Arc::make_mut(&mut phi));
        self.spare = Some(phi.clone());
        io.set("level_set", Value::LevelSet(phi));
        Ok(())
    }
}

/// The level-set node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "level_set",
        "Level Set",
        "Grid",
        "Signed distance to the liquid surface: −dx/2 in fluid cells, far outside, then fast \
         sweeping for |∇φ| = 1 (Karlsson Alg. 5, §4.2, Zhao's method).",
        vec![PortSpec::new("cells", DataKind::Cells, "cell kinds")],
        vec![PortSpec::new(
            "level_set",
            DataKind::LevelSet,
            "liquid signed distance (m)",
        )],
        vec![ParamSpec::int(
            "sweeps",
            "Sweeps",
            "full fast-sweeping passes (each visits all orderings)",
            2,
            1,
            16,
        )],
    );
    NodeKind::new(
        s,
        Box::new(|init| {
            let sweeps = Params(init.params)
                .usize("sweeps")
                .map_err(|e| e.to_string())?;
            Ok(Box::new(LevelSet {
                sweeps,
                spare: None,
            }))
        }),
    )
}
