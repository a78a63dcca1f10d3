//! Copy and paste of a selection of nodes as RON text (so it travels between files and editor
//! windows through the system clipboard): the nodes with their parameters, the wires between
//! them, and their positions. Pasting gives the nodes fresh ids and rewires them to each other.

use flip_graph::{EdgeDoc, GraphDoc, NodeDoc};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};

/// First line of copied text, so the clipboard says what it holds.
const HEADER: &str = "// flipgraph nodes\n";

/// Copied nodes, the edges between them, and their layout positions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fragment {
    /// The nodes, in document order.
    pub nodes: Vec<NodeDoc>,
    /// Edges whose two ends are among the nodes.
    #[serde(default)]
    pub edges: Vec<EdgeDoc>,
    /// Positions by node id.
    #[serde(default)]
    pub positions: BTreeMap<String, (f32, f32)>,
}

/// Why a paste did nothing.
#[derive(Debug, thiserror::Error)]
pub enum PasteError {
    /// The text is neither copied nodes nor a graph file.
    #[error("the clipboard holds no flipgraph nodes ({0})")]
    NotNodes(String),
}

/// The nodes `ids` of `doc` with the edges among them, as clipboard text.
pub fn copy(doc: &GraphDoc, ids: &[String]) -> String {
    let keep: HashSet<&str> = ids.iter().map(String::as_str).collect();
    let fragment = Fragment {
        nodes: doc
            .nodes
            .iter()
            .filter(|n| keep.contains(n.id.as_str()))
            .cloned()
            .collect(),
        edges: doc
            .edges
            .iter()
            .filter(|e| keep.contains(e.from.node.as_str()) && keep.contains(e.to.node.as_str()))
            .cloned()
            .collect(),
        positions: doc
            .layout
            .positions
            .iter()
            .filter(|(id, _)| keep.contains(id.as_str()))
            .map(|(id, p)| (id.clone(), *p))
            .collect(),
    };
    let config = ron::ser::PrettyConfig::new().struct_names(false);
    let body = ron::ser::to_string_pretty(&fragment, config).expect("nodes serialise");
    format!("{HEADER}{body}\n")
}

/// Reads clipboard text: copied nodes, or a whole graph file (all its nodes).
///
/// # Errors
/// [`PasteError::NotNodes`] with the parser's complaint.
pub fn parse(text: &str) -> Result<Fragment, PasteError> {
    let options =
        ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
    match options.from_str::<Fragment>(text) {
        Ok(f) => Ok(f),
        Err(e) => match GraphDoc::from_ron(text, "clipboard") {
            Ok(doc) => Ok(Fragment {
                nodes: doc.nodes,
                edges: doc.edges,
                positions: doc.layout.positions,
            }),
            Err(_) => Err(PasteError::NotNodes(format!(
                "{} at {}",
                e.code, e.position
            ))),
        },
    }
}

/// `base` or `base_2`, `base_3`, … whichever is not in `taken`.
fn free_id(taken: &HashSet<String>, id: &str) -> String {
    let base = id.trim_end_matches(|c: char| c.is_ascii_digit() || c == '_');
    let base = if base.is_empty() { "node" } else { base };
    if !taken.contains(base) {
        return base.to_string();
    }
    (2..)
        .map(|i| format!("{base}_{i}"))
        .find(|c| !taken.contains(c))
        .expect("some suffix is free")
}

/// Adds the fragment's nodes to `doc` under ids not used there, wired to each other as they
/// were, placed `offset` from where they were copied. Returns the new ids.
pub fn paste(doc: &mut GraphDoc, fragment: &Fragment, offset: (f32, f32)) -> Vec<String> {
    let mut taken: HashSet<String> = doc.nodes.iter().map(|n| n.id.clone()).collect();
    let mut renamed: HashMap<&str, String> = HashMap::new();
    for n in &fragment.nodes {
        let id = free_id(&taken, &n.id);
        taken.insert(id.clone());
        renamed.insert(n.id.as_str(), id);
    }
    let rename = |end: &flip_graph::Endpoint| -> Option<flip_graph::Endpoint> {
        Some(flip_graph::Endpoint::new(
            renamed.get(end.node.as_str())?.as_str(),
            end.port.as_str(),
        ))
    };
    for e in &fragment.edges {
        if let (Some(from), Some(to)) = (rename(&e.from), rename(&e.to)) {
            doc.edges.push(EdgeDoc::new(from, to));
        }
    }
    let mut ids = Vec::with_capacity(fragment.nodes.len());
    for n in &fragment.nodes {
        let id = renamed[n.id.as_str()].clone();
        let (x, y) = fragment.positions.get(&n.id).copied().unwrap_or_default();
        doc.layout
            .positions
            .insert(id.clone(), (x + offset.0, y + offset.1));
        doc.nodes.push(NodeDoc {
            id: id.clone(),
            group: None,
            ..n.clone()
        });
        ids.push(id);
    }
    ids
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scene() -> GraphDoc {
        GraphDoc::from_ron(crate::graph::document::DEFAULT_SCENE, "dam break").unwrap()
    }

    #[test]
    fn a_copied_selection_pastes_with_its_internal_wires_under_new_ids() {
        let doc = scene();
        let (a, b) = (&doc.edges[0].from, &doc.edges[0].to);
        let ids = [a.node.clone(), b.node.clone()];
        let text = copy(&doc, &ids);
        assert!(text.starts_with(HEADER));
        let fragment = parse(&text).unwrap();
        assert_eq!(fragment.nodes.len(), 2);
        let internal = fragment.edges.len();
        assert!(internal >= 1, "the wire between the two is copied");
        // into the same graph: fresh ids, the same wiring among the copies, moved by the offset
        let mut into = doc.clone();
        let new = paste(&mut into, &fragment, (40.0, 20.0));
        assert_eq!(into.nodes.len(), doc.nodes.len() + 2);
        assert!(new.iter().all(|id| doc.node(id).is_none()), "{new:?}");
        let among_new = |e: &&EdgeDoc| new.contains(&e.from.node) && new.contains(&e.to.node);
        assert_eq!(into.edges.iter().filter(among_new).count(), internal);
        let (x0, y0) = doc.layout.positions[&ids[0]];
        assert_eq!(into.layout.positions[&new[0]], (x0 + 40.0, y0 + 20.0));
        assert_eq!(
            into.node(&new[0]).unwrap().params,
            doc.node(&ids[0]).unwrap().params
        );
        // into an empty graph (another file): the original ids are free
        let mut empty = doc.clone();
        empty.nodes.clear();
        empty.edges.clear();
        assert_eq!(paste(&mut empty, &fragment, (0.0, 0.0)), ids);
        assert_eq!(empty.edges.len(), internal);
    }

    #[test]
    fn whole_graph_files_paste_and_other_text_is_refused() {
        let doc = scene();
        let whole = parse(&doc.to_ron()).unwrap();
        assert_eq!(whole.nodes.len(), doc.nodes.len());
        let err = parse("hello").unwrap_err().to_string();
        assert!(err.contains("no flipgraph nodes"), "{err}");
    }
}
