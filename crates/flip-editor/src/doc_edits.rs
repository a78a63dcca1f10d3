//! Whole-document edits on a [`GraphDoc`]: swapping a node's kind while keeping its wires
//! (e.g. one pressure solver node for another). Plain functions, tested without a window.

use flip_graph::{EdgeDoc, GraphDoc, NodeRegistry, NodeSpec};

/// Why a swap was refused.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum SwapError {
    /// No such node.
    #[error("no node `{0}` in the graph")]
    NoNode(String),
    /// No such kind.
    #[error("unknown node kind `{0}`")]
    NoKind(String),
}

/// Whether `spec` has a port `port` of the same data kind as `old`'s (`input`: an input port).
fn same_port(old: Option<&NodeSpec>, spec: &NodeSpec, port: &str, input: bool) -> bool {
    let ports = |s: &NodeSpec| {
        if input {
            s.inputs.clone()
        } else {
            s.outputs.clone()
        }
    };
    let Some(new) = ports(spec).into_iter().find(|p| p.name == port) else {
        return false;
    };
    // the old kind unknown (not registered): trust the name
    old.is_none_or(|o| {
        ports(o)
            .iter()
            .any(|p| p.name == port && p.kind == new.kind)
    })
}

/// Makes node `id` a `kind` node: its wires stay where the new kind has a port of the same name
/// and data type, its parameters where the new kind knows them. Returns the wires dropped.
///
/// # Errors
/// An unknown node or kind.
pub fn swap_kind(
    doc: &mut GraphDoc,
    id: &str,
    kind: &str,
    registry: &NodeRegistry,
) -> Result<Vec<EdgeDoc>, SwapError> {
    let new = registry
        .get(kind)
        .ok_or_else(|| SwapError::NoKind(kind.into()))?;
    let node = doc
        .node_mut(id)
        .ok_or_else(|| SwapError::NoNode(id.into()))?;
    let old = registry.get(&node.kind).map(|k| &k.spec);
    node.kind = kind.into();
    let known = new
        .params_for(&node.params)
        .unwrap_or_else(|_| new.spec.params.clone());
    node.params
        .retain(|name, _| known.iter().any(|p| &p.name == name));
    let keeps = |end: &str, input: bool| match end.split_once('.') {
        Some((n, port)) if n == id => same_port(old, &new.spec, port, input),
        _ => true,
    };
    let (kept, dropped) = doc
        .edges
        .drain(..)
        .partition(|e| keeps(&e.from, false) && keeps(&e.to, true));
    doc.edges = kept;
    Ok(dropped)
}

/// Kinds `id` can be swapped to: those sharing a port name with its kind, by label.
pub fn swap_candidates(registry: &NodeRegistry, kind: &str) -> Vec<(String, String)> {
    let Some(old) = registry.get(kind).map(|k| &k.spec) else {
        return vec![];
    };
    let names = |s: &NodeSpec| -> Vec<String> {
        s.inputs
            .iter()
            .chain(&s.outputs)
            .map(|p| p.name.clone())
            .collect()
    };
    let mine = names(old);
    let mut out: Vec<(String, String)> = registry
        .kinds()
        .map(|k| &k.spec)
        .filter(|s| s.kind != kind && names(s).iter().any(|n| mine.contains(n)))
        .map(|s| (s.kind.clone(), s.label.clone()))
        .collect();
    out.sort_by(|a, b| a.1.cmp(&b.1));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use flip_plugin::host::PluginSet;
    use std::sync::Arc;

    fn scene() -> (GraphDoc, NodeRegistry) {
        let doc = GraphDoc::from_ron(crate::app::DEFAULT_SCENE, "dam break").unwrap();
        (
            doc,
            flip_nodes::builtin_registry(Arc::new(PluginSet::default())),
        )
    }

    #[test]
    fn swapping_a_kind_keeps_the_wires_the_new_kind_has() {
        let (mut doc, reg) = scene();
        let id = doc
            .nodes
            .iter()
            .find(|n| n.kind == "extrapolate")
            .unwrap()
            .id
            .clone();
        let wires = |d: &GraphDoc| {
            d.edges
                .iter()
                .filter(|e| {
                    e.from.starts_with(&format!("{id}.")) || e.to.starts_with(&format!("{id}."))
                })
                .count()
        };
        let before = wires(&doc);
        assert!(before > 0);
        // to the same kind: nothing is lost
        let same = swap_kind(&mut doc.clone(), &id, "extrapolate", &reg).unwrap();
        assert!(same.is_empty());
        // to another kind: wires of ports it lacks go, the rest stay
        let other = swap_candidates(&reg, "extrapolate");
        assert!(!other.is_empty());
        let (kind, _) = &other[0];
        let mut swapped = doc.clone();
        let dropped = swap_kind(&mut swapped, &id, kind, &reg).unwrap();
        assert_eq!(swapped.node(&id).unwrap().kind, *kind);
        assert_eq!(wires(&swapped) + dropped.len(), before);
        let spec = &reg.get(kind).unwrap().spec;
        for e in swapped
            .edges
            .iter()
            .filter(|e| e.to.starts_with(&format!("{id}.")))
        {
            let port = e.to.split_once('.').unwrap().1;
            assert!(spec.input(port).is_some(), "{port} kept on {kind}");
        }
        assert_eq!(
            swap_kind(&mut doc, "nope", kind, &reg),
            Err(SwapError::NoNode("nope".into()))
        );
        assert!(swap_kind(&mut doc, &id, "nope", &reg).is_err());
    }
}
