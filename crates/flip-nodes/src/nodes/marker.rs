//! Cell marking: solid from the colliders, fluid where a particle is, air elsewhere
//! (Karlsson Alg. 4).
use super::common::spec;
use crate::kinds::{TypedInputs, CELLS, PARTICLES, SOLIDS};
use crate::roles::{NodeRole, Traffic};
use flip_core::marker::mark_cells;
use flip_core::{CellGrid, CellKind};
use flip_graph::{EvalCtx, Node, NodeError, NodeIo, NodeKind, PortSpec, Value, WindowRefusal};
use std::sync::Arc;

/// Output port: the cell kinds.
pub const CELLS_OUT: &str = "cells";

#[derive(Default)]
struct Marker {
    spare: Option<Arc<CellGrid>>,
}

impl Node for Marker {
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        Ok(0)
    }

    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let particles = io.particles("particles")?;
        let solids = io.solids("solids")?;
        let g = &ctx.grid;
        let mut cells = match self.spare.take() {
            Some(c) if Arc::strong_count(&c) == 1 && c.dims() == g.dims() => c,
            _ => Arc::new(CellGrid::new(g.ni, g.nj, g.nk, CellKind::Air)),
        };
        mark_cells(g, &particles, &solids, Arc::make_mut(&mut cells));
        self.spare = Some(cells.clone());
        io.set(CELLS_OUT, Value::shared(CELLS, cells));
        Ok(())
    }
}

/// The marker node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "marker",
        "Cell Marker",
        "Grid",
        "Classifies cells: solid from colliders, fluid where a particle lies, air elsewhere \
         (Karlsson Alg. 4).",
        vec![
            PortSpec::new("particles", PARTICLES, "marker particles"),
            PortSpec::new("solids", SOLIDS, "colliders and walls"),
        ],
        vec![PortSpec::new(CELLS_OUT, CELLS, "cell kinds")],
        vec![],
    )
    .with(NodeRole::CellMarker)
    // positions read; solid distance read, cell kinds written
    .with(Traffic::new(12.0, 5.0));
    NodeKind::new(s, Box::new(|_| Ok(Box::<Marker>::default())))
}
