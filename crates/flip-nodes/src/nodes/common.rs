use flip_graph::{NodeSpec, ParamSpec, PortSpec};

/// Builds a spec with less noise in the node files.
pub(crate) fn spec(
    kind: &str,
    label: &str,
    category: &str,
    help: &str,
    inputs: Vec<PortSpec>,
    outputs: Vec<PortSpec>,
    params: Vec<ParamSpec>,
) -> NodeSpec {
    NodeSpec {
        kind: kind.into(),
        label: label.into(),
        category: category.into(),
        help: help.into(),
        inputs,
        outputs,
        params,
    }
}

/// Turns a kernel-level string error into a node error.
pub(crate) fn failed(e: impl std::fmt::Display) -> flip_graph::NodeError {
    flip_graph::NodeError::Failed(e.to_string())
}

/// Refuses a cell field of input `name` that is not on the simulation grid.
pub(crate) fn check_grid(
    name: &str,
    field: &flip_core::Grid3<f32>,
    grid: &flip_core::GridSpec,
) -> Result<(), flip_graph::NodeError> {
    if field.dims() == grid.dims() {
        return Ok(());
    }
    Err(flip_graph::NodeError::Failed(format!(
        "input `{name}` has {:?} cells, the grid {:?}",
        field.dims(),
        grid.dims()
    )))
}
