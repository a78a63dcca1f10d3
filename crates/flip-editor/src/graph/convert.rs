//! `GraphDoc` ⇄ editor state. The file format stays [`GraphDoc`] (never the library's
//! serialised state): ports are addressed by name, node ids and order, parameters that were
//! written explicitly, unknown parameters and unresolvable edges all survive a round trip.

use crate::graph::groups::{endpoint_kind, group_parts, GROUP_KIND};
use crate::types::{
    build_ports, port_types, DataType, EditorState, GroupBody, NodeData, Ports, UserState,
    ValueType,
};
use egui::{pos2, Pos2, Vec2};
use egui_node_graph2::{InputId, InputParamKind, NodeId, OutputId};
use flip_graph::{EdgeDoc, GraphDoc, NodeRegistry, ParamMap, Settings};
use flip_nodes::roles::{KindFacts, NodeRole};
use std::collections::{BTreeMap, HashMap};

/// The document being edited: the library's editor state plus what the file holds besides the
/// graph.
pub struct EditorDoc {
    /// Nodes, ports, connections, positions, pan/zoom.
    pub state: EditorState,
    /// `format_version` of the loaded file.
    pub format_version: u32,
    /// One-line description.
    pub description: String,
    /// Global simulation settings.
    pub settings: Settings,
    /// Edge order of the loaded file (kept so saved files diff cleanly).
    pub edge_order: Vec<EdgeDoc>,
    /// Saved comparison variants (edited by hand or the CLI; kept as they are).
    pub variants: Vec<flip_graph::doc::VariantDoc>,
    /// Edges whose ports do not exist (or that doubled up an input); written back unchanged.
    pub dangling: Vec<EdgeDoc>,
    /// Canvas point that is the file's (0, 0): follows the library's zoom so saved positions
    /// do not depend on the zoom level.
    pub origin: Pos2,
}

/// Ports of a node whose kind is not registered, inferred from the edges that name it.
fn inferred_ports(doc: &GraphDoc, registry: &NodeRegistry, id: &str) -> (Ports, Ports) {
    let (mut ins, mut outs): (Ports, Ports) = (vec![], vec![]);
    for e in &doc.edges {
        let typ = |other: &flip_graph::Endpoint, other_is_output: bool| {
            endpoint_kind(doc, registry, other, other_is_output)
                .map_or(DataType::Unknown, DataType::Port)
        };
        let (to, from) = (&e.to, &e.from);
        if to.is_well_formed() && to.node == id && !ins.iter().any(|(q, _)| *q == to.port) {
            ins.push((to.port.clone(), typ(from, true)));
        }
        if from.is_well_formed() && from.node == id && !outs.iter().any(|(q, _)| *q == from.port) {
            outs.push((from.port.clone(), typ(to, false)));
        }
    }
    (ins, outs)
}

/// Builds the node data and port lists of one document node.
fn node_parts(
    doc: &GraphDoc,
    registry: &NodeRegistry,
    order: usize,
) -> (NodeData, String, Ports, Ports) {
    let n = &doc.nodes[order];
    let explicit = n.params.keys().cloned().collect();
    let mut data = NodeData {
        doc_id: n.id.clone(),
        kind: n.kind.clone(),
        role: NodeRole::Other,
        order: order as u64,
        inputs: vec![],
        params: vec![],
        explicit,
        extra: ParamMap::new(),
        known: false,
        help: String::new(),
        bypass: n.bypass,
        group: None,
    };
    let Some(kind) = registry.get(&n.kind) else {
        data.extra = n.params.clone();
        let (ins, outs) = inferred_ports(doc, registry, &n.id);
        return (data, n.kind.clone(), ins, outs);
    };
    // An unknown solver leaves only the fixed parameters; compile reports the solver.
    data.params = kind
        .params_for(&n.params)
        .unwrap_or_else(|_| kind.spec.params.clone());
    data.extra = n
        .params
        .iter()
        .filter(|(k, _)| data.param(k).is_none())
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    data.inputs = kind.spec.inputs.clone();
    data.role = kind.spec.role();
    data.known = true;
    data.help = kind.spec.help.clone();
    let ins = port_types(&kind.spec.inputs);
    let outs = port_types(&kind.spec.outputs);
    (data, kind.spec.label.clone(), ins, outs)
}

/// The connection-only input `name` of `node`.
pub fn port_input(state: &EditorState, node: NodeId, name: &str) -> Option<InputId> {
    let g = &state.graph;
    g[node]
        .inputs
        .iter()
        .find(|(n, id)| n == name && matches!(g[*id].kind(), InputParamKind::ConnectionOnly))
        .map(|(_, id)| *id)
}

/// Editor state for `doc`. Nodes without a stored position are placed in a row below the
/// others.
pub fn from_doc(doc: &GraphDoc, registry: &NodeRegistry) -> EditorDoc {
    let mut state = EditorState::new(1.0);
    let mut ids: HashMap<String, NodeId> = HashMap::new();
    let bottom = doc
        .layout
        .positions
        .values()
        .map(|p| p.1)
        .fold(0.0f32, f32::max);
    let mut unplaced = 0;
    let grouped = |n: &flip_graph::NodeDoc| {
        let g = n.group.as_deref();
        g.is_some_and(|g| doc.groups.iter().any(|d| d.id == g))
    };
    let mut parts: Vec<_> = (0..doc.nodes.len())
        .filter(|i| !grouped(&doc.nodes[*i]))
        .map(|i| {
            (
                doc.nodes[i].id.clone(),
                node_parts(doc, registry, i),
                doc.nodes[i].params.clone(),
            )
        })
        .collect();
    for g in &doc.groups {
        let body = GroupBody::from_doc(doc, g);
        let parts_of = group_parts(body, |e, out| endpoint_kind(doc, registry, e, out));
        parts.push((g.id.clone(), parts_of, ParamMap::new()));
    }
    let mut members: HashMap<&str, &str> = HashMap::new();
    for n in &doc.nodes {
        if let Some(g) = n.group.as_deref().filter(|_| grouped(n)) {
            members.insert(&n.id, g);
        }
    }
    for (doc_id, (data, label, ins, outs), values) in parts {
        let node_id = state.graph.add_node(label, data, |g, id| {
            build_ports(g, id, &ins, &outs, &values);
        });
        let pos = doc.layout.positions.get(&doc_id).map_or_else(
            || {
                unplaced += 1;
                pos2(40.0 + 240.0 * (unplaced - 1) as f32, bottom + 320.0)
            },
            |&(x, y)| pos2(x, y),
        );
        state.node_positions.insert(node_id, pos);
        state.node_order.push(node_id);
        ids.entry(doc_id).or_insert(node_id);
    }
    let mut dangling = Vec::new();
    for e in &doc.edges {
        let group_of = |end: &flip_graph::Endpoint| members.get(end.node.as_str());
        if group_of(&e.from).is_some() && group_of(&e.from) == group_of(&e.to) {
            continue; // inside a group: its body keeps it
        }
        match resolve_edge(&state, &ids, &members, e) {
            Some((out, input)) if state.graph.connections(input).is_empty() => {
                state.graph.add_connection(out, input, 0);
            }
            _ => dangling.push(e.clone()),
        }
    }
    EditorDoc {
        state,
        format_version: doc.format_version,
        description: doc.description.clone(),
        settings: doc.settings.clone(),
        edge_order: doc.edges.clone(),
        variants: doc.variants.clone(),
        dangling,
        origin: Pos2::ZERO,
    }
}

/// The canvas ends of an edge; an end on a group member is the group's port named after it.
fn resolve_edge(
    state: &EditorState,
    ids: &HashMap<String, NodeId>,
    members: &HashMap<&str, &str>,
    e: &EdgeDoc,
) -> Option<(OutputId, InputId)> {
    let canvas_end = |end: &flip_graph::Endpoint| -> Option<(NodeId, String)> {
        if !end.is_well_formed() {
            return None;
        }
        match members.get(end.node.as_str()) {
            Some(group) => Some((*ids.get(*group)?, end.to_string())),
            None => Some((*ids.get(end.node.as_str())?, end.port.clone())),
        }
    };
    let (fnode, fport) = canvas_end(&e.from)?;
    let (tnode, tport) = canvas_end(&e.to)?;
    let out = state.graph[fnode].get_output(&fport).ok()?;
    let input = port_input(state, tnode, &tport)?;
    Some((out, input))
}

impl EditorDoc {
    /// Builds a fresh editor for `doc`; `user_state` gets the graph's base folder unchanged.
    pub fn new(doc: &GraphDoc, user_state: &UserState) -> Self {
        from_doc(doc, &user_state.registry)
    }

    /// Node ids in document order.
    pub fn nodes_in_order(&self) -> Vec<NodeId> {
        let g = &self.state.graph;
        let mut ids: Vec<NodeId> = g.iter_nodes().collect();
        ids.sort_by(|a, b| {
            let (a, b) = (&g[*a].user_data, &g[*b].user_data);
            (a.order, &a.doc_id).cmp(&(b.order, &b.doc_id))
        });
        ids
    }

    /// The node with document id `id`.
    pub fn find(&self, id: &str) -> Option<NodeId> {
        let g = &self.state.graph;
        g.iter_nodes().find(|n| g[*n].user_data.doc_id == id)
    }

    /// Canvas position of a node in file coordinates.
    pub fn doc_position(&self, node: NodeId) -> (f32, f32) {
        let p = self.state.node_positions[node];
        let v = (p - self.origin) / self.state.pan_zoom.zoom;
        let round = |x: f32| (x * 10.0).round() / 10.0;
        (round(v.x), round(v.y))
    }

    /// The file coordinates of screen point `screen` on a canvas drawn in `canvas`.
    pub fn doc_point(&self, screen: egui::Pos2, canvas: egui::Rect) -> (f32, f32) {
        let p = screen - canvas.min.to_vec2() - self.state.pan_zoom.pan;
        let v = (p - self.origin) / self.state.pan_zoom.zoom;
        (v.x, v.y)
    }

    /// Follows a zoom from `zoom_before` exactly as the library moves the nodes.
    pub fn track_zoom(&mut self, zoom_before: f32) {
        let pz = &self.state.pan_zoom;
        if pz.zoom == zoom_before {
            return;
        }
        let half: Vec2 = pz.clip_rect.size() / 2.0;
        let local = self.origin.to_vec2() - half + pz.pan;
        self.origin = (local * (pz.zoom / zoom_before) + half - pz.pan).to_pos2();
    }

    /// The document for the current state.
    pub fn to_doc(&self) -> GraphDoc {
        let g = &self.state.graph;
        let order = self.nodes_in_order();
        let mut nodes: Vec<(u64, flip_graph::NodeDoc)> = Vec::with_capacity(order.len());
        let mut positions = BTreeMap::new();
        let mut groups = vec![];
        for &id in &order {
            let data = &g[id].user_data;
            positions.insert(data.doc_id.clone(), self.doc_position(id));
            if let Some(body) = &data.group {
                nodes.extend(body.members.iter().cloned());
                positions.extend(body.positions.clone());
                groups.push(body.doc.clone());
                continue;
            }
            nodes.push((data.order, self.node_doc(id)));
        }
        nodes.sort_by_key(|(order, _)| *order);
        GraphDoc {
            format_version: self.format_version,
            description: self.description.clone(),
            settings: self.settings.clone(),
            nodes: nodes.into_iter().map(|(_, n)| n).collect(),
            edges: self.edges(&order),
            groups,
            variants: self.variants.clone(),
            layout: flip_graph::doc::Layout { positions },
        }
    }

    /// The document node of a (non-group) canvas node.
    fn node_doc(&self, id: NodeId) -> flip_graph::NodeDoc {
        let g = &self.state.graph;
        let data = &g[id].user_data;
        let mut params = data.extra.clone();
        for (name, input) in &g[id].inputs {
            let ValueType::Param(v) = &g[*input].value else {
                continue;
            };
            let default = data.param(name).map(|p| &p.default);
            if data.explicit.contains(name) || default != Some(v) {
                params.insert(name.clone(), v.clone());
            }
        }
        flip_graph::NodeDoc {
            id: data.doc_id.clone(),
            kind: data.kind.clone(),
            params,
            bypass: data.bypass,
            group: None,
        }
    }

    /// Edges: those of the loaded file that still exist, in file order, then new ones in
    /// node/port order.
    fn edges(&self, order: &[NodeId]) -> Vec<EdgeDoc> {
        let g = &self.state.graph;
        let mut current = Vec::new();
        for &node in order {
            for (name, input) in &g[node].inputs {
                for out in g.connections(*input) {
                    let src = g.get_output(out).node;
                    let oname = g[src]
                        .outputs
                        .iter()
                        .find(|(_, o)| *o == out)
                        .map(|(n, _)| n.as_str())
                        .unwrap_or_default();
                    current.push(EdgeDoc::new(
                        canvas_endpoint(&g[src].user_data, oname),
                        canvas_endpoint(&g[node].user_data, name),
                    ));
                }
            }
            if let Some(body) = &g[node].user_data.group {
                current.extend(body.edges.iter().cloned());
            }
        }
        let mut rest: Vec<EdgeDoc> = current.into_iter().chain(self.dangling.clone()).collect();
        let mut edges = Vec::with_capacity(rest.len());
        for e in &self.edge_order {
            if let Some(i) = rest.iter().position(|k| k == e) {
                edges.push(rest.remove(i));
            }
        }
        edges.extend(rest);
        edges
    }
}

/// The document endpoint of port `port` of a canvas node: a group's ports are inner endpoints.
fn canvas_endpoint(data: &NodeData, port: &str) -> String {
    if data.kind == GROUP_KIND && data.group.is_some() {
        port.to_string()
    } else {
        format!("{}.{port}", data.doc_id)
    }
}
