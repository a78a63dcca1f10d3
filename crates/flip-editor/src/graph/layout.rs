//! "Tidy": lays nodes out in columns by dependency depth (sources left), stacked by document
//! order, using the sizes the nodes were last drawn with, so that nothing overlaps. To stay
//! compact, the nodes in that order flow into columns of a height limit (a long column goes on
//! in the next one), the limit that makes the whole layout fit the canvas at the largest zoom.

use crate::graph::convert::EditorDoc;
use egui::{vec2, Id, Rect, Vec2};
use egui_node_graph2::NodeId;
use std::collections::HashMap;

/// Gap between columns and between stacked nodes (file units).
const GAP: f32 = 36.0;
/// The canvas's usable size at the editor's default window, 1600×900 (Fit's margins off).
pub const DEFAULT_VIEW: Vec2 = vec2(975.0, 805.0);
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

    /// Moves every node: in order of dependency depth, then document order, flowed into
    /// columns no taller than the limit that fits a canvas of `view` (screen points) at the
    /// largest zoom. `sizes` are node sizes in file units (missing ones get a default).
    pub fn tidy(&mut self, sizes: &HashMap<NodeId, Vec2>, view: Vec2) {
        let depth = self.depths();
        let mut nodes = self.nodes_in_order();
        nodes.sort_by_key(|n| depth[n]); // stable: document order within a depth
        let sizes: Vec<Vec2> = nodes
            .iter()
            .map(|n| sizes.get(n).copied().unwrap_or(DEFAULT_SIZE))
            .collect();
        // every column height a flow can stop at is a candidate limit
        let tallest = sizes.iter().map(|s| s.y + GAP).fold(0.0, f32::max);
        let total: f32 = sizes.iter().map(|s| s.y + GAP).sum();
        let steps = 64;
        let limit = (0..=steps)
            .map(|i| tallest + (total - tallest) * i as f32 / steps as f32)
            .max_by(|a, b| {
                let za = fit_zoom(flow(&sizes, *a).1, view);
                let zb = fit_zoom(flow(&sizes, *b).1, view);
                za.total_cmp(&zb)
            })
            .unwrap_or(total);
        let zoom = self.state.pan_zoom.zoom;
        for (n, p) in nodes.iter().zip(flow(&sizes, limit).0) {
            self.state.node_positions[*n] = self.origin + (p + vec2(40.0, 40.0)) * zoom;
        }
    }
}

/// Flows boxes of `sizes` top to bottom into columns of at most `limit` height (a box taller
/// than the limit gets a column of its own): each box's position and the whole extent.
pub fn flow(sizes: &[Vec2], limit: f32) -> (Vec<Vec2>, Vec2) {
    let mut at = Vec::with_capacity(sizes.len());
    let (mut x, mut y, mut width, mut height) = (0.0f32, 0.0f32, 0.0f32, 0.0f32);
    for s in sizes {
        if y > 0.0 && y + s.y > limit {
            x += width + GAP;
            (y, width) = (0.0, 0.0);
        }
        at.push(vec2(x, y));
        y += s.y + GAP;
        width = width.max(s.x);
        height = height.max(y);
    }
    (at, vec2(x + width, height))
}

/// The zoom at which an `extent` (file units) fits `view`.
pub fn fit_zoom(extent: Vec2, view: Vec2) -> f32 {
    let e = extent.max(vec2(1.0, 1.0));
    (view.x / e.x).min(view.y / e.y)
}
