//! Nodes with no wire at all (scratch nodes kept on the canvas): they are left out of the run,
//! by the CLI and the editor alike, since nothing they compute can reach the state.
//! [`compile`](crate::compile) still checks their ids, kinds and parameters, but not their
//! ports, and creates none of them; front ends name them with [`unwired`]. The step-state pair
//! is never left out: it is the graph's frame, wired or not.

use crate::doc::GraphDoc;
use crate::step::{STEP_INPUT, STEP_OUTPUT};
use std::borrow::Cow;

/// The ids of the nodes of `doc` (the step pair aside) that no edge touches, in document order.
pub fn unwired(doc: &GraphDoc) -> Vec<&str> {
    let wired = |id: &str| {
        doc.edges
            .iter()
            .any(|e| e.from.node == id || e.to.node == id)
    };
    doc.nodes
        .iter()
        .filter(|n| n.kind != STEP_INPUT && n.kind != STEP_OUTPUT)
        .map(|n| n.id.as_str())
        .filter(|id| !wired(id))
        .collect()
}

/// `doc` without its [`unwired`] nodes (borrowed when it has none).
pub fn without_unwired(doc: &GraphDoc) -> Cow<'_, GraphDoc> {
    let gone = unwired(doc);
    if gone.is_empty() {
        return Cow::Borrowed(doc);
    }
    let mut out = doc.clone();
    out.nodes.retain(|n| !gone.contains(&n.id.as_str()));
    Cow::Owned(out)
}
