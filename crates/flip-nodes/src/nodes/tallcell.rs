//! Nodes of tall-cell water (Chentanez & Müller 2011, 2D and 3D): a source that builds the liquid
//! over a terrain, one node per stage of the paper's step, and the pressure solve through a
//! CSR-capable solver plugin. They pass one `tall_liquid` value along the chain, carried
//! between steps by `step_output`/`step_input`, as the smoke nodes pass grids.

pub mod advect;
pub mod export;
pub mod extrapolate;
pub mod gravity;
pub mod pressure;
pub mod refit;
pub mod source;

use crate::kinds::{TypedInputs, TALL_LIQUID};
use flip_core::tallcell::TallLiquid;
use flip_graph::{NodeIo, PortSpec, Value};
use std::sync::Arc;

/// The `tall_liquid` port, in or out.
pub(crate) fn port(help: &str) -> PortSpec {
    PortSpec::new("tall_liquid", TALL_LIQUID, help)
}

/// Takes the `tall_liquid` input, applies `f` to it (copying only if it is shared) and
/// publishes the result.
pub(crate) fn modify(
    io: &mut NodeIo,
    f: impl FnOnce(&mut TallLiquid) -> Result<(), flip_graph::NodeError>,
) -> Result<(), flip_graph::NodeError> {
    let mut liquid = io.tall_liquid("tall_liquid")?;
    f(Arc::make_mut(&mut liquid))?;
    io.set("tall_liquid", Value::shared(TALL_LIQUID, liquid));
    Ok(())
}
