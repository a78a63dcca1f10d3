//! Creating a plan's node instances: where a node reads its files (masks) and checks its
//! output folders, so `validate` finds the same problems as `run`.

use crate::compile::ExecPlan;
use crate::error::GraphError;
use crate::node::{Node, NodeError, NodeInit};
use crate::registry::NodeRegistry;
use std::path::Path;

/// Where a run reads and writes.
#[derive(Clone, Copy, Debug)]
pub struct RunPaths<'a> {
    /// Folder where output nodes write (the CLI's `--out`).
    pub out_dir: &'a Path,
    /// Folder relative input paths are resolved against (the graph file's folder).
    pub base_dir: &'a Path,
    /// Whether output folders may lie outside `out_dir`.
    pub allow_outside_out: bool,
}

/// Every node of `plan`, created; or every node that refused, naming the parameter when the
/// node says which.
pub(crate) fn instantiate(
    plan: &ExecPlan,
    registry: &NodeRegistry,
    paths: RunPaths<'_>,
) -> Result<Vec<Box<dyn Node>>, Vec<GraphError>> {
    let mut nodes = Vec::with_capacity(plan.nodes.len());
    let mut errors = Vec::new();
    for p in &plan.nodes {
        let Some(kind) = registry.get(&p.kind) else {
            errors.push(GraphError::node(&p.id, None, "kind is not registered"));
            continue;
        };
        let init = NodeInit {
            id: &p.id,
            params: &p.params,
            settings: &plan.settings,
            out_dir: paths.out_dir,
            base_dir: paths.base_dir,
            allow_outside_out: paths.allow_outside_out,
        };
        match kind.instantiate(&init) {
            Ok(n) => nodes.push(n),
            Err(NodeError::Param { param, message }) => {
                errors.push(GraphError::node(&p.id, Some(&param), message));
            }
            Err(e) => errors.push(GraphError::node(&p.id, None, e.to_string())),
        }
    }
    if errors.is_empty() {
        Ok(nodes)
    } else {
        Err(errors)
    }
}
