//! Node groups on the canvas ([`flip_graph::groups`] holds the format and the document edits):
//! a group is one canvas node whose ports are the exposed inner `node.port` ends; its member
//! nodes, their positions and the wires between them ride along in a [`GroupBody`] until the
//! group is expanded or the document saved.

use crate::types::{DataType, GroupBody, NodeData, Ports};
use flip_graph::{DataKind, GraphDoc, NodeRegistry, ParamMap};
use flip_nodes::roles::NodeRole;
use std::collections::BTreeSet;

/// The `kind` of a group's canvas node (never a registry kind).
pub const GROUP_KIND: &str = "group";

/// Node data, title and ports of `group`'s canvas node; `kind_of` gives the data kind of an
/// inner endpoint (`output`: an output port).
pub fn group_parts(
    body: GroupBody,
    kind_of: impl Fn(&flip_graph::Endpoint, bool) -> Option<DataKind>,
) -> (NodeData, String, Ports, Ports) {
    let typ = |end: &flip_graph::Endpoint, output: bool| {
        let t = kind_of(end, output).map_or(DataType::Unknown, DataType::Port);
        (end.to_string(), t)
    };
    let ins = body.doc.inputs.iter().map(|e| typ(e, false)).collect();
    let outs = body.doc.outputs.iter().map(|e| typ(e, true)).collect();
    let label = if body.doc.label.is_empty() {
        format!("Group ({} nodes)", body.members.len())
    } else {
        body.doc.label.clone()
    };
    let data = NodeData {
        doc_id: body.doc.id.clone(),
        kind: GROUP_KIND.into(),
        role: NodeRole::Other,
        order: body.members.iter().map(|m| m.0).min().unwrap_or(0),
        inputs: vec![],
        params: vec![],
        explicit: BTreeSet::new(),
        extra: ParamMap::new(),
        known: true,
        help: "a node group: its ports are the inner ports wired across its boundary; \
               Expand shows its nodes again"
            .into(),
        bypass: false,
        group: Some(Box::new(body)),
    };
    (data, label, ins, outs)
}

/// Kind of port `endpoint` of a registered node in `doc`.
pub fn endpoint_kind(
    doc: &GraphDoc,
    registry: &NodeRegistry,
    endpoint: &flip_graph::Endpoint,
    output: bool,
) -> Option<DataKind> {
    let spec = &registry.get(&doc.node(&endpoint.node)?.kind)?.spec;
    let ports = if output { &spec.outputs } else { &spec.inputs };
    ports
        .iter()
        .find(|p| p.name == endpoint.port)
        .map(|p| p.kind)
}
