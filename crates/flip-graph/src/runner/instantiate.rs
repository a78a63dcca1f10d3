//! Creating a plan's node instances: where a node reads its files (masks) and checks its
//! output folders, so `validate` finds the same problems as `run`.

use crate::compile::{ExecPlan, PlanNode};
use crate::error::GraphError;
use crate::node::{Node, NodeInit};
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
/// node says which. The kinds' cheap checks run first, for every node: a graph they refuse
/// creates no node.
pub(crate) fn instantiate(
    plan: &ExecPlan,
    registry: &NodeRegistry,
    paths: RunPaths<'_>,
) -> Result<Vec<Box<dyn Node>>, Vec<GraphError>> {
    let mut errors = Vec::new();
    let mut kinds = Vec::with_capacity(plan.nodes.len());
    for p in &plan.nodes {
        match registry.get(&p.kind) {
            Some(kind) => kinds.push(kind),
            None => errors.push(GraphError::node(&p.id, None, "kind is not registered")),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let inits = || {
        plan.nodes
            .iter()
            .zip(&kinds)
            .map(|(p, k)| (p, k, init(plan, p, paths)))
    };
    for (p, kind, init) in inits() {
        if let Err(e) = kind.check(&init) {
            errors.push(e.at_node(&p.id));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut nodes = Vec::with_capacity(plan.nodes.len());
    for (p, kind, init) in inits() {
        match kind.instantiate(&init) {
            Ok(n) => nodes.push(n),
            Err(e) => errors.push(e.at_node(&p.id)),
        }
    }
    if errors.is_empty() {
        Ok(nodes)
    } else {
        Err(errors)
    }
}

/// What node `p` of `plan` is created with.
fn init<'a>(plan: &'a ExecPlan, p: &'a PlanNode, paths: RunPaths<'a>) -> NodeInit<'a> {
    NodeInit {
        id: &p.id,
        params: &p.params,
        settings: &plan.settings,
        out_dir: paths.out_dir,
        base_dir: paths.base_dir,
        allow_outside_out: paths.allow_outside_out,
    }
}
