//! Node groups on the canvas ([`flip_graph::groups`] holds the format and the document edits):
//! a group is one canvas node whose ports are the exposed inner `node.port` ends; its member
//! nodes, their positions and the wires between them ride along in [`GroupBody`] until the
//! group is expanded or the document saved.

use crate::app::App;
use crate::types::{DataType, NodeData, Ports};
use egui_node_graph2::NodeId;
use flip_graph::{DataKind, EdgeDoc, GraphDoc, GroupDoc, NodeDoc, NodeRegistry, ParamMap};
use std::collections::{BTreeMap, BTreeSet};

/// The `kind` of a group's canvas node (never a registry kind).
pub const GROUP_KIND: &str = "group";

/// What a group's canvas node carries besides its ports.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupBody {
    /// The group as stored (id, label, exposed ports).
    pub doc: GroupDoc,
    /// Member nodes with their positions in the document's node list.
    pub members: Vec<(u64, NodeDoc)>,
    /// Wires between members.
    pub edges: Vec<EdgeDoc>,
    /// Member positions (file units).
    pub positions: BTreeMap<String, (f32, f32)>,
}

impl GroupBody {
    /// The group's members and internal wires taken from `doc`.
    pub fn from_doc(doc: &GraphDoc, group: &GroupDoc) -> Self {
        let is_member = |n: &NodeDoc| n.group.as_deref() == Some(group.id.as_str());
        let members: Vec<(u64, NodeDoc)> = doc
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| is_member(n))
            .map(|(i, n)| (i as u64, n.clone()))
            .collect();
        let ids: BTreeSet<&str> = members.iter().map(|(_, n)| n.id.as_str()).collect();
        let inside = |end: &str| ids.contains(end.split_once('.').map_or(end, |(n, _)| n));
        let edges = doc
            .edges
            .iter()
            .filter(|e| inside(&e.from) && inside(&e.to))
            .cloned()
            .collect();
        let positions = ids
            .iter()
            .filter_map(|id| Some((id.to_string(), *doc.layout.positions.get(*id)?)))
            .collect();
        Self {
            doc: group.clone(),
            members,
            edges,
            positions,
        }
    }

    /// Whether `id` is one of the members.
    pub fn has_member(&self, id: &str) -> bool {
        self.members.iter().any(|(_, n)| n.id == id)
    }
}

/// Node data, title and ports of `group`'s canvas node; `kind_of` gives the data kind of an
/// inner endpoint (`output`: an output port).
pub fn group_parts(
    body: GroupBody,
    kind_of: impl Fn(&str, bool) -> Option<DataKind>,
) -> (NodeData, String, Ports, Ports) {
    let typ = |end: &String, output: bool| {
        let t = kind_of(end, output).map_or(DataType::Unknown, DataType::Port);
        (end.clone(), t)
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

/// Kind of port `endpoint` (`"node.port"`) of a registered node in `doc`.
pub fn endpoint_kind(
    doc: &GraphDoc,
    registry: &NodeRegistry,
    endpoint: &str,
    output: bool,
) -> Option<DataKind> {
    let (node, port) = endpoint.split_once('.')?;
    let spec = &registry.get(&doc.node(node)?.kind)?.spec;
    let ports = if output { &spec.outputs } else { &spec.inputs };
    ports.iter().find(|p| p.name == port).map(|p| p.kind)
}

impl App {
    /// Ctrl+G: collapses the selected nodes into a group (undoable).
    pub(crate) fn group_selection(&mut self) {
        let g = &self.doc.state.graph;
        let ids: Vec<String> = self
            .doc
            .state
            .selected_nodes
            .iter()
            .filter_map(|n| g.nodes.get(*n))
            .map(|n| n.user_data.doc_id.clone())
            .collect();
        match flip_graph::groups::collapse(&self.doc.to_doc(), &ids, "") {
            Ok((doc, id)) => {
                self.show_doc(&doc, &[id]);
                self.unrecorded = true;
                self.notify(format!("grouped {} node(s)", ids.len()));
            }
            Err(e) => self.notify(e.to_string()),
        }
    }

    /// A group node's Expand button: its nodes become plain nodes again (undoable).
    pub(crate) fn expand_group(&mut self, node: NodeId) {
        let Some(n) = self.doc.state.graph.nodes.get(node) else {
            return;
        };
        let Some(body) = &n.user_data.group else {
            return;
        };
        let members: Vec<String> = body.members.iter().map(|(_, m)| m.id.clone()).collect();
        match flip_graph::groups::expand(&self.doc.to_doc(), &n.user_data.doc_id) {
            Ok(doc) => {
                self.show_doc(&doc, &members);
                self.unrecorded = true;
            }
            Err(e) => self.notify(e.to_string()),
        }
    }
}
