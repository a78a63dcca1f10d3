//! What the editor asks a simulation to keep of each frame for the overlays and colouring.

use flip_graph::{GraphDoc, NodeDoc, NodeRegistry, Simulation};
use flip_nodes::nodes::{g2p, level_set, marker, pressure, solids, whitewater};
use flip_nodes::roles::{KindFacts, NodeRole};

/// Asks `sim` for the values the overlays draw (see [`probe_list`]).
pub fn set_overlay_probes(sim: &mut Simulation, doc: &GraphDoc, registry: &NodeRegistry) {
    let probes = probe_list(doc, registry);
    let refs: Vec<(&str, &str)> = probes
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    sim.set_probes(&refs);
}

/// The role of `node`'s kind in `registry` (`None` for unknown kinds).
fn role_of(registry: &NodeRegistry, node: &NodeDoc) -> Option<NodeRole> {
    registry.get(&node.kind).map(|k| k.spec.role())
}

/// Probes for the overlays: `(node id, port)` of the first level-set, marker and last solids
/// node, of the smoke density carried to the next step, of the first whitewater node's
/// diffuse particles, then those of [`attribute_probes`].
pub fn probe_list(doc: &GraphDoc, registry: &NodeRegistry) -> Vec<(String, String)> {
    let role = |n: &NodeDoc| role_of(registry, n);
    let first = |r: NodeRole| {
        doc.nodes
            .iter()
            .find(|n| role(n) == Some(r))
            .map(|n| n.id.clone())
    };
    let mut probes = vec![];
    if let Some(id) = first(NodeRole::LevelSet) {
        probes.push((id, level_set::LEVEL_SET_OUT.to_string()));
    }
    if let Some(id) = first(NodeRole::CellMarker) {
        probes.push((id, marker::CELLS_OUT.to_string()));
    }
    // The end of a solids chain: a solids node whose output feeds no other solids node (rigid
    // bodies are the end of theirs: their solids hold the bodies where they are).
    let is_solids = |n: &NodeDoc| matches!(role(n), Some(NodeRole::Solids | NodeRole::RigidBodies));
    let feeds_solids = |id: &str| {
        doc.edges
            .iter()
            .any(|e| e.from.node == id && doc.node(&e.to.node).is_some_and(is_solids))
    };
    let last = doc
        .nodes
        .iter()
        .filter(|n| is_solids(n))
        .find(|n| !feeds_solids(&n.id));
    if let Some(n) = last {
        probes.push((n.id.clone(), solids::SOLIDS_OUT.to_string()));
    }
    if let Some(out) = first(NodeRole::StepOutput) {
        let to = flip_graph::Endpoint::new(out, "density");
        if let Some(e) = doc.edges.iter().find(|e| e.to == to) {
            probes.push((e.from.node.clone(), e.from.port.clone()));
        }
    }
    if let Some(id) = first(NodeRole::Whitewater) {
        probes.push((id, whitewater::DIFFUSE_OUT.to_string()));
    }
    probes.extend(attribute_probes(doc, registry));
    probes
}

/// Probes for the attributes of a liquid graph: the first pressure node's pressure and the
/// velocity the first grid-to-particle node reads (none for graphs without one, e.g. smoke).
pub fn attribute_probes(doc: &GraphDoc, registry: &NodeRegistry) -> Vec<(String, String)> {
    let first =
        |r: NodeRole| (doc.nodes.iter()).find(|n| role_of(registry, n) == Some(r) && !n.bypass);
    let Some(to_particles) = first(NodeRole::GridToParticle) else {
        return vec![];
    };
    let to = flip_graph::Endpoint::new(to_particles.id.as_str(), g2p::VELOCITY_IN);
    let mut probes = vec![];
    if let Some(p) = first(NodeRole::Pressure) {
        probes.push((p.id.clone(), pressure::PRESSURE_OUT.to_string()));
    }
    if let Some(e) = doc.edges.iter().find(|e| e.to == to) {
        probes.push((e.from.node.clone(), e.from.port.clone()));
    }
    probes
}
