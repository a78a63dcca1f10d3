//! Nodes with no wire at all (scratch nodes kept on the canvas): they are left out of the run,
//! by the CLI and the editor alike, since nothing they compute can reach the state. Only a node
//! with at least one wire is validated and run. [`compile`](crate::compile) leaves them out
//! before anything else; front ends name them with [`unwired`].

use crate::doc::GraphDoc;
use std::borrow::Cow;

/// The ids of the nodes of `doc` that no edge touches, in document order.
pub fn unwired(doc: &GraphDoc) -> Vec<&str> {
    let wired = |id: &str| {
        doc.edges
            .iter()
            .any(|e| e.from.node == id || e.to.node == id)
    };
    doc.nodes
        .iter()
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
