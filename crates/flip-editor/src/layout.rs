//! "Tidy": lays nodes out in columns by dependency depth (sources left), stacked by document
//! order, using the sizes the nodes were last drawn with, so that nothing overlaps.

use crate::app::App;
use crate::convert::EditorDoc;
use egui::{vec2, Context, Id, Rect, Vec2};
use egui_node_graph2::NodeId;
use std::collections::HashMap;

/// Gap between columns and between stacked nodes (file units).
const GAP: f32 = 36.0;
/// Size assumed for a node that has not been drawn yet (file units).
pub const DEFAULT_SIZE: Vec2 = vec2(200.0, 160.0);

/// Screen rectangles of the nodes as the library drew them last frame.
pub fn drawn_rects(
    ctx: &egui::Context,
    nodes: impl Iterator<Item = NodeId>,
) -> HashMap<NodeId, Rect> {
    nodes
        .filter_map(|n| {
            let r = ctx.read_response(Id::new((n, "window")))?;
            Some((n, r.rect))
        })
        .collect()
}

/// Whether any two drawn nodes overlap.
pub fn any_overlap(rects: &HashMap<NodeId, Rect>) -> bool {
    let all: Vec<&Rect> = rects.values().collect();
    all.iter().enumerate().any(|(i, a)| {
        all[i + 1..]
            .iter()
            .any(|b| a.shrink(2.0).intersects(b.shrink(2.0)))
    })
}

impl EditorDoc {
    /// Depth of each node: 0 for nodes without connected inputs, else one more than the
    /// deepest node feeding it.
    pub fn depths(&self) -> HashMap<NodeId, usize> {
        let g = &self.state.graph;
        let mut feeds: HashMap<NodeId, Vec<NodeId>> = HashMap::new();
        for (input, outputs) in g.iter_connection_groups() {
            for o in outputs {
                feeds
                    .entry(g.get_input(input).node)
                    .or_default()
                    .push(g.get_output(o).node);
            }
        }
        let mut depth: HashMap<NodeId, usize> = HashMap::new();
        // Relax until stable; graphs are acyclic, and the bound guards against a cycle.
        for _ in 0..=g.nodes.len() {
            let mut changed = false;
            for n in g.iter_nodes() {
                let d = feeds
                    .get(&n)
                    .into_iter()
                    .flatten()
                    .map(|p| depth.get(p).copied().unwrap_or(0) + 1)
                    .max()
                    .unwrap_or(0);
                if depth.insert(n, d) != Some(d) {
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        depth
    }

    /// Moves every node: one column per depth, stacked in document order. `sizes` are node
    /// sizes in file units (missing ones get a default).
    pub fn tidy(&mut self, sizes: &HashMap<NodeId, Vec2>) {
        let depth = self.depths();
        let columns = depth.values().copied().max().map_or(0, |d| d + 1);
        let mut cols: Vec<Vec<NodeId>> = vec![vec![]; columns];
        for n in self.nodes_in_order() {
            cols[depth[&n]].push(n);
        }
        let size = |n: &NodeId| sizes.get(n).copied().unwrap_or(DEFAULT_SIZE);
        let zoom = self.state.pan_zoom.zoom;
        let mut x = 40.0;
        for col in &cols {
            let mut y = 40.0;
            for n in col {
                self.state.node_positions[*n] = self.origin + vec2(x, y) * zoom;
                y += size(n).y + GAP;
            }
            x += col.iter().map(|n| size(n).x).fold(0.0, f32::max) + GAP;
        }
    }
}

impl App {
    /// Rearranges the nodes with the sizes they were drawn with.
    pub(crate) fn tidy_layout(&mut self, ctx: &Context) {
        let zoom = self.doc.state.pan_zoom.zoom;
        let rects = drawn_rects(ctx, self.doc.state.graph.iter_nodes());
        let sizes = rects
            .into_iter()
            .map(|(n, r)| (n, r.size() / zoom))
            .collect();
        self.doc.tidy(&sizes);
        self.dirty = true;
        self.fit_view = true;
    }

    /// A few frames after loading: suggests Tidy when nodes overlap.
    pub(crate) fn check_overlap(&mut self, ctx: &Context) {
        if self.overlap_check == 0 {
            return;
        }
        self.overlap_check -= 1;
        ctx.request_repaint();
        if self.overlap_check == 0 {
            // the nodes have been drawn now: fit with their real sizes
            self.fit_view = true;
            let rects = drawn_rects(ctx, self.doc.state.graph.iter_nodes());
            if any_overlap(&rects) {
                self.notify("some nodes overlap: press Tidy to rearrange them");
            }
        }
    }
}
