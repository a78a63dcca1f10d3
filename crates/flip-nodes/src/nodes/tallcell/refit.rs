//! Level-set reinitialisation and the re-fit of the tall cells to the new surface (the
//! paper's RM stage): every field is re-sampled onto the new layout.
use crate::kinds::{TypedInputs, TALL_LIQUID};
use crate::nodes::common::spec;
use crate::params::Params;
use crate::roles::NodeRole;
use crate::stats::RefitStats;
use flip_core::tallcell::reinit::reinitialise;
use flip_graph::{EvalCtx, Node, NodeError, NodeIo, NodeKind, ParamSpec, Value};
use std::sync::Arc;

struct Refit {
    reinitialise: bool,
}

impl Node for Refit {
    fn eval(&mut self, _: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let mut liquid = io.tall_liquid("tall_liquid")?;
        let l = Arc::make_mut(&mut liquid);
        if self.reinitialise {
            reinitialise(l);
        }
        let before = l.grid.tall.clone();
        l.refit();
        let moved = before
            .iter()
            .zip(&l.grid.tall)
            .filter(|(a, b)| a != b)
            .count();
        io.report(RefitStats {
            refitted_columns: moved,
        });
        io.set("tall_liquid", Value::shared(TALL_LIQUID, liquid));
        Ok(())
    }
}

/// The tall-cell re-fit node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "tallcell_refit",
        "Tall-Cell Re-fit",
        "Tall cells",
        "Reinitialises the level set to a signed distance (fast sweeping on the regular rows) \
         and re-fits the tall cells: each top follows the liquid surface minus half the regular \
         layers, neighbours differ by at most D; fields are re-sampled with the old layout's \
         rule. A regular grid is never re-fitted.",
        vec![super::port("the liquid")],
        vec![super::port("the re-fitted liquid")],
        vec![ParamSpec::bool(
            "reinitialise",
            "Reinitialise",
            "redistance the level set before the re-fit",
            true,
        )],
    )
    .with(NodeRole::Grid);
    NodeKind::new(
        s,
        Box::new(|init| {
            let reinitialise = Params(init.params).bool("reinitialise")?;
            Ok(Box::new(Refit { reinitialise }))
        }),
    )
}
