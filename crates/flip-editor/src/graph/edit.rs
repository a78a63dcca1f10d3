//! Graph edits the library does not do itself: unique ids for new nodes, duplicate, delete,
//! cycle rejection, and rebuilding a node's parameter inputs when its parameter list depends on
//! a value (the pressure node's `solver`).

use crate::graph::convert::EditorDoc;
use crate::types::{add_param_input, EditorGraph, ValueType};
use egui::vec2;
use egui_node_graph2::{InputId, NodeId, OutputId};
use flip_graph::{GraphDoc, NodeRegistry, ParamMap};
use std::collections::{HashMap, HashSet};

/// Whether following connections from `from` reaches `to`.
pub fn reaches(g: &EditorGraph, from: NodeId, to: NodeId) -> bool {
    let mut next: HashMap<NodeId, Vec<NodeId>> = HashMap::new();
    for (input, outputs) in g.iter_connection_groups() {
        for o in outputs {
            next.entry(g.get_output(o).node)
                .or_default()
                .push(g.get_input(input).node);
        }
    }
    let (mut stack, mut seen) = (vec![from], HashSet::new());
    while let Some(n) = stack.pop() {
        if n == to {
            return true;
        }
        if seen.insert(n) {
            stack.extend(next.get(&n).into_iter().flatten().copied());
        }
    }
    false
}

impl EditorDoc {
    /// A node id not used in the graph: `base`, else `base_2`, `base_3`, …
    pub fn unique_id(&self, base: &str) -> String {
        let taken: HashSet<&str> = self
            .state
            .graph
            .nodes
            .values()
            .flat_map(|n| {
                let members = n.user_data.group.iter().flat_map(|b| &b.members);
                std::iter::once(n.user_data.doc_id.as_str())
                    .chain(members.map(|(_, m)| m.id.as_str()))
            })
            .collect();
        if !taken.contains(base) {
            return base.to_string();
        }
        (2..)
            .map(|i| format!("{base}_{i}"))
            .find(|c| !taken.contains(c.as_str()))
            .expect("some suffix is free")
    }

    /// Gives a node made by the finder a unique id and puts it last in document order.
    pub fn adopt_new_node(&mut self, node: NodeId) {
        let base = self.state.graph[node].user_data.kind.clone();
        self.rename_unique(node, &base);
        self.adopt_order(node);
    }

    /// Sets the node's id to `base` or the first free `base_N` (not counting its own id).
    fn rename_unique(&mut self, node: NodeId, base: &str) {
        self.state.graph[node].user_data.doc_id = String::new();
        let id = self.unique_id(base);
        self.state.graph[node].user_data.doc_id = id;
    }

    /// Copies a node (parameters, not connections) next to the original; returns the copy.
    pub fn duplicate(&mut self, node: NodeId) -> NodeId {
        let g = &self.state.graph;
        let src = &g[node];
        let data = src.user_data.clone();
        let label = src.label.clone();
        let inputs: Vec<(String, InputId)> = src.inputs.clone();
        let outputs: Vec<(String, OutputId)> = src.outputs.clone();
        let copy = self.state.graph.add_node(label, data, |g, id| {
            for (name, input) in &inputs {
                let p = g.get_input(*input);
                let (typ, value, kind) = (p.typ, p.value.clone(), p.kind());
                g.add_input_param(id, name.clone(), typ, value, kind, true);
            }
            for (name, output) in &outputs {
                let typ = g.get_output(*output).typ;
                g.add_output_param(id, name.clone(), typ);
            }
        });
        let pos = self.state.node_positions[node] + vec2(30.0, 30.0);
        self.state.node_positions.insert(copy, pos);
        self.state.node_order.push(copy);
        let id = self.state.graph[node].user_data.doc_id.clone();
        let base = id.trim_end_matches(|c: char| c.is_ascii_digit() || c == '_');
        self.rename_unique(copy, if base.is_empty() { "node" } else { base });
        self.adopt_order(copy);
        copy
    }

    fn adopt_order(&mut self, node: NodeId) {
        let g = &self.state.graph;
        let order = g
            .iter_nodes()
            .filter(|n| *n != node)
            .flat_map(|n| {
                let members = g[n].user_data.group.iter().flat_map(|b| &b.members);
                std::iter::once(g[n].user_data.order).chain(members.map(|(o, _)| *o))
            })
            .map(|o| o + 1)
            .max()
            .unwrap_or(0);
        self.state.graph[node].user_data.order = order;
    }

    /// Removes a node with its connections, keeping the library's bookkeeping consistent.
    pub fn delete(&mut self, node: NodeId) {
        if self.state.graph.nodes.contains_key(node) {
            self.state.graph.remove_node(node);
        }
        self.state.node_positions.remove(node);
        self.state.node_order.retain(|n| *n != node);
        self.state.selected_nodes.retain(|n| *n != node);
    }

    /// Current parameter values of a node (as the file would hold them, defaults included).
    pub fn param_values(&self, node: NodeId) -> ParamMap {
        let g = &self.state.graph;
        g[node]
            .inputs
            .iter()
            .filter_map(|(name, id)| match &g[*id].value {
                ValueType::Param(v) => Some((name.clone(), v.clone())),
                ValueType::None => None,
            })
            .collect()
    }

    /// Recomputes the node's parameter list from its values (`NodeKind::params_for`); when it
    /// changed, rebuilds the parameter inputs, keeping the values of parameters that still
    /// exist. Ports and connections are untouched. Returns whether anything changed.
    pub fn sync_params(&mut self, node: NodeId, registry: &NodeRegistry) -> bool {
        let Some(kind) = registry.get(&self.state.graph[node].user_data.kind) else {
            return false;
        };
        let values = self.param_values(node);
        let Ok(specs) = kind.params_for(&values) else {
            return false;
        };
        let g = &mut self.state.graph;
        if specs == g[node].user_data.params {
            return false;
        }
        let old: Vec<InputId> = g[node]
            .inputs
            .iter()
            .filter(|(_, id)| matches!(g[*id].value, ValueType::Param(_)))
            .map(|(_, id)| *id)
            .collect();
        for id in old {
            g.remove_input_param(id);
        }
        for spec in &specs {
            add_param_input(g, node, spec, values.get(&spec.name));
        }
        let data = &mut g[node].user_data;
        data.explicit.retain(|n| specs.iter().any(|s| &s.name == n));
        data.params = specs;
        true
    }
}

impl EditorDoc {
    /// Replaces the graph with `doc` (an undo step, a paste), keeping the canvas view: the
    /// same zoom, pan and file origin, and the selection of nodes whose ids remain, plus
    /// `select` (new ids to select).
    pub fn replace_keeping_view(
        &mut self,
        doc: &GraphDoc,
        registry: &NodeRegistry,
        select: &[String],
    ) {
        let g = &self.state.graph;
        let mut selected: Vec<String> = self
            .state
            .selected_nodes
            .iter()
            .filter_map(|n| g.nodes.get(*n).map(|n| n.user_data.doc_id.clone()))
            .collect();
        selected.extend(select.iter().cloned());
        let mut fresh = crate::graph::convert::from_doc(doc, registry);
        fresh.state.pan_zoom = self.state.pan_zoom.clone();
        fresh.origin = self.origin;
        let zoom = fresh.state.pan_zoom.zoom;
        for pos in fresh.state.node_positions.values_mut() {
            *pos = self.origin + pos.to_vec2() * zoom;
        }
        fresh.state.selected_nodes = selected.iter().filter_map(|id| fresh.find(id)).collect();
        *self = fresh;
    }

    /// Zooms (down to 0.2, the library's smallest zoom; never above 1) and pans so that the
    /// whole graph fits the canvas. `drawn`: the nodes' screen rectangles of the last frame
    /// (nodes not drawn yet count with a default size).
    pub fn fit(&mut self, ui: &egui::Ui, drawn: &HashMap<NodeId, egui::Rect>) {
        let z0 = self.state.pan_zoom.zoom;
        let Some(span) = self.extent(drawn, z0) else {
            return;
        };
        let margin = vec2(24.0, 24.0);
        let avail = ui.max_rect().size() - margin * 2.0;
        let size = span.size().max(vec2(1.0, 1.0));
        let fit = (avail.x / size.x).min(avail.y / size.y);
        let want = (fit * z0).clamp(0.2, 1.0);
        self.state.zoom(ui, want / z0);
        self.track_zoom(z0);
        let Some(span) = self.extent(drawn, z0) else {
            return;
        };
        // centred horizontally, from the top
        let slack = ((avail.x - span.width()) / 2.0).max(0.0);
        self.state.pan_zoom.pan = margin + vec2(slack, 0.0) - span.min.to_vec2();
    }

    /// Canvas rectangle covering every node at the current zoom; `drawn` sizes were taken at
    /// zoom `drawn_zoom`.
    fn extent(&self, drawn: &HashMap<NodeId, egui::Rect>, drawn_zoom: f32) -> Option<egui::Rect> {
        let zoom = self.state.pan_zoom.zoom;
        let mut rect: Option<egui::Rect> = None;
        for (n, p) in &self.state.node_positions {
            let size = drawn
                .get(&n)
                .map_or(crate::graph::layout::DEFAULT_SIZE * drawn_zoom, |r| {
                    r.size()
                })
                * (zoom / drawn_zoom);
            let r = egui::Rect::from_min_size(*p, size);
            rect = Some(rect.map_or(r, |a| a.union(r)));
        }
        rect
    }
}
