//! Gas domain: the cell kinds and level set that make the pressure node project a gas (smoke)
//! filling every open cell instead of a liquid under a free surface.
use super::common::spec;
use crate::kinds::{TypedInputs, CELLS, LEVEL_SET, SOLIDS};
use crate::params::Params;
use crate::roles::NodeRole;
use flip_core::smoke::domain_cells;
use flip_core::{CellKind, Grid3};
use flip_graph::{
    EvalCtx, Node, NodeError, NodeIo, NodeKind, ParamSpec, PortSpec, Value, Window, WindowRefusal,
};
use std::sync::Arc;

struct GasDomain {
    open_top: bool,
    /// The last solids and what was built from them.
    cache: Option<(Arc<flip_core::Solids>, Value, Value)>,
}

impl Node for GasDomain {
    /// In a decomposed run the top row is open only in the window that holds the domain's top.
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        Ok(0)
    }

    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let solids = io.solids("solids")?;
        let fresh = !matches!(&self.cache, Some((s, _, _)) if Arc::ptr_eq(s, &solids));
        if fresh {
            let g = &ctx.grid;
            let holds_top = ctx.window.as_ref().is_none_or(|w| holds_domain_top(w));
            let cells = domain_cells(g, &solids, self.open_top && holds_top);
            if let Some(w) = &ctx.window {
                refuse_closed(w, &cells)?;
            }
            let half = 0.5 * g.dx;
            let phi = Grid3 {
                ni: cells.ni,
                nj: cells.nj,
                nk: cells.nk,
                data: cells
                    .data
                    .iter()
                    .map(|c| if *c == CellKind::Air { half } else { -half })
                    .collect(),
            };
            let (cells, phi) = (
                Value::shared(CELLS, Arc::new(cells)),
                Value::shared(LEVEL_SET, Arc::new(phi)),
            );
            self.cache = Some((solids, cells, phi));
        }
        let (_, cells, phi) = self.cache.as_ref().expect("built above");
        io.set("cells", cells.clone());
        io.set("level_set", phi.clone());
        Ok(())
    }

    fn reset(&mut self) {
        self.cache = None;
    }
}

/// Whether window `w`'s top row (y) is the domain's.
fn holds_domain_top(w: &Window) -> bool {
    w.axis != 1 || w.offset + w.local.nj == w.global.nj
}

/// A gas domain without air has its pressure fixed only up to a constant per enclosed region;
/// the single-process solvers remove that null space region by region, the distributed ones
/// cannot, so a decomposed run refuses it (collective: every rank refuses together).
fn refuse_closed(w: &Window, cells: &flip_core::CellGrid) -> Result<(), NodeError> {
    let owned = w.owned_cells(&cells.data);
    let mut air = [owned.iter().filter(|&&c| c == CellKind::Air).count() as f64];
    w.comm().sum(&mut air);
    if air[0] == 0.0 {
        return Err(NodeError::Failed(
            "a closed gas domain (no open cell anywhere) cannot run decomposed: its pressure is \
             fixed only up to a constant, which the distributed solve does not remove; set \
             `open_top` and open the top wall, or run without --mpi"
                .into(),
        ));
    }
    Ok(())
}

/// The gas domain node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "gas_domain",
        "Gas Domain",
        "Smoke",
        "Marks every open cell as fluid, for projecting smoke's velocity (Wave §2.1.3). With \
         `open_top` the open cells of the top row are air (pressure 0): carve the top wall with \
         a subtracting solid box to let smoke leave.",
        vec![PortSpec::new("solids", SOLIDS, "walls and colliders")],
        vec![
            PortSpec::new("cells", CELLS, "cell kinds for the pressure node"),
            PortSpec::new("level_set", LEVEL_SET, "level set for the pressure node"),
        ],
        vec![ParamSpec::bool(
            "open_top",
            "Open top",
            "the top row is an open (pressure 0) boundary",
            false,
        )],
    )
    .with(NodeRole::Grid);
    NodeKind::new(
        s,
        Box::new(|init| {
            let open_top = Params(init.params).bool("open_top")?;
            Ok(Box::new(GasDomain {
                open_top,
                cache: None,
            }))
        }),
    )
}
