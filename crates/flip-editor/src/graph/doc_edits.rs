//! Whole-document edits on a [`GraphDoc`]: swapping a node's kind while keeping its wires
//! (e.g. one pressure solver node for another), inserting an unwired node on a wire. Plain
//! functions, tested without a window.

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
    /// The node cannot go on this wire.
    #[error("cannot insert the node on {0}")]
    NoWire(String),
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
    let keeps = |end: &flip_graph::Endpoint, input: bool| {
        end.node != id || same_port(old, &new.spec, &end.port, input)
    };
    let (kept, dropped) = doc
        .edges
        .drain(..)
        .partition(|e| keeps(&e.from, false) && keeps(&e.to, true));
    doc.edges = kept;
    Ok(dropped)
}

/// A wire as the editor names it (`from -> to`: the default fonts have no `→`).
pub fn wire_label(wire: &EdgeDoc) -> String {
    format!("{} -> {}", wire.from, wire.to)
}

/// Kinds `id` can be swapped to: those sharing a port name with its kind, by label; for a kind
/// the registry does not know (a typo, a plugin not loaded), the kinds nearest its name.
pub fn swap_candidates(registry: &NodeRegistry, kind: &str) -> Vec<(String, String)> {
    let Some(old) = registry.get(kind).map(|k| &k.spec) else {
        let kinds = registry.kinds().map(|k| k.spec.kind.as_str());
        return (flip_graph::suggest::nearest(kind, kinds).into_iter())
            .filter_map(|k| registry.get(k))
            .map(|k| (k.spec.kind.clone(), k.spec.label.clone()))
            .collect();
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

/// The wires unwired node `id` can be inserted on: it has an output of the wire's data kind and
/// an input that passes it on (the input a bypass would use, [`flip_graph::bypass`]).
pub fn wires_to_insert_on(doc: &GraphDoc, registry: &NodeRegistry, id: &str) -> Vec<EdgeDoc> {
    let touches = |e: &EdgeDoc| e.from.node == id || e.to.node == id;
    if doc.edges.iter().any(touches) {
        return vec![];
    }
    doc.edges
        .iter()
        .filter(|e| insertion_ports(doc, registry, id, e).is_some())
        .cloned()
        .collect()
}

/// `(input, output)` of node `id` that would carry `wire` on.
fn insertion_ports<'a>(
    doc: &GraphDoc,
    registry: &'a NodeRegistry,
    id: &str,
    wire: &EdgeDoc,
) -> Option<(&'a str, &'a str)> {
    let spec = |node: &str| Some(&registry.get(&doc.node(node)?.kind)?.spec);
    let from_spec = spec(&wire.from.node)?;
    let kind = from_spec
        .outputs
        .get(from_spec.output(&wire.from.port)?)?
        .kind;
    let mine = spec(id)?;
    let out = mine
        .outputs
        .iter()
        .filter(|o| o.kind == kind)
        .find_map(|o| Some((flip_graph::bypass::passing_input(mine, &o.name)?, &o.name)))?;
    Some((out.0, out.1.as_str()))
}

/// Puts unwired node `id` on `wire`: `from → id.input`, `id.output → to`.
///
/// # Errors
/// The wire is not in the graph or the node has no ports to carry it.
pub fn insert_on_wire(
    doc: &mut GraphDoc,
    registry: &NodeRegistry,
    id: &str,
    wire: &EdgeDoc,
) -> Result<(), SwapError> {
    let refuse = || SwapError::NoWire(wire_label(wire));
    let at = doc
        .edges
        .iter()
        .position(|e| e == wire)
        .ok_or_else(refuse)?;
    let (input, output) = insertion_ports(doc, registry, id, wire).ok_or_else(refuse)?;
    let (input, output) = (
        flip_graph::Endpoint::new(id, input),
        flip_graph::Endpoint::new(id, output),
    );
    doc.edges.remove(at);
    doc.edges.insert(at, EdgeDoc::new(output, wire.to.clone()));
    doc.edges.insert(at, EdgeDoc::new(wire.from.clone(), input));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use flip_host::PluginSet;
    use std::sync::Arc;

    fn scene() -> (GraphDoc, NodeRegistry) {
        let doc = GraphDoc::from_ron(crate::graph::document::DEFAULT_SCENE, "dam break").unwrap();
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
                .filter(|e| e.from.node == id || e.to.node == id)
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
        for e in swapped.edges.iter().filter(|e| e.to.node == id) {
            let port = &e.to.port;
            assert!(spec.input(port).is_some(), "{port} kept on {kind}");
        }
        assert_eq!(
            swap_kind(&mut doc, "nope", kind, &reg),
            Err(SwapError::NoNode("nope".into()))
        );
        assert!(swap_kind(&mut doc, &id, "nope", &reg).is_err());
    }

    #[test]
    fn an_unwired_node_goes_on_a_wire_of_its_type() {
        let (mut doc, reg) = scene();
        doc.nodes
            .push(flip_graph::NodeDoc::new("more_gravity", "gravity"));
        let wires = wires_to_insert_on(&doc, &reg, "more_gravity");
        let wire = EdgeDoc::new("gravity.velocity", "extrapolate.velocity");
        assert!(wires.contains(&wire), "{wires:?}");
        assert!(
            wires.iter().all(|w| w.from.node != "source"),
            "velocity wires only: {wires:?}"
        );
        insert_on_wire(&mut doc, &reg, "more_gravity", &wire).unwrap();
        let new = [
            EdgeDoc::new("gravity.velocity", "more_gravity.velocity"),
            EdgeDoc::new("more_gravity.velocity", "extrapolate.velocity"),
        ];
        assert!(new.iter().all(|e| doc.edges.contains(e)) && !doc.edges.contains(&wire));
        let errors = flip_graph::compile(&doc, &reg).err().unwrap_or_default();
        assert!(errors
            .iter()
            .all(|e| e.node.as_deref() != Some("more_gravity")));
        // wired now: no more offers, and the old wire is gone
        assert!(wires_to_insert_on(&doc, &reg, "more_gravity").is_empty());
        assert!(insert_on_wire(&mut doc, &reg, "more_gravity", &wire).is_err());
    }
}
