//! Node groups. A group is a view of the graph, like a collapsed subnetwork: its member nodes
//! stay in `nodes` (each names the group in its `group` field) and the edges stay as they are,
//! so the run, overrides and error messages see the flat graph. The editor draws the members
//! as one node whose ports are the group's `inputs` / `outputs` (inner `node.port` ends of
//! the wires that crossed the boundary when the group was made).

use crate::doc::{GraphDoc, GroupDoc};
use crate::error::GraphError;
use std::collections::HashSet;

/// A fresh group id: `group`, `group_2`, … (free among node and group ids).
pub fn fresh_id(doc: &GraphDoc) -> String {
    let taken =
        |id: &str| doc.nodes.iter().any(|n| n.id == id) || doc.groups.iter().any(|g| g.id == id);
    let mut id = "group".to_string();
    let mut k = 1;
    while taken(&id) {
        k += 1;
        id = format!("group_{k}");
    }
    id
}

/// `doc` with the nodes `members` collapsed into a new group titled `label`; the new group's
/// id. Its ports are the members' ends of the wires that cross the group's boundary, in edge
/// order; it sits at the members' mean position.
///
/// # Errors
/// No members, an unknown node, or a node that is in a group already (groups do not nest).
pub fn collapse(
    doc: &GraphDoc,
    members: &[String],
    label: &str,
) -> Result<(GraphDoc, String), GraphError> {
    if members.is_empty() {
        return Err(GraphError::field("groups", "select nodes to group"));
    }
    for id in members {
        match doc.node(id) {
            None => return Err(GraphError::node(id, None, "no such node to group")),
            Some(n) if n.group.is_some() => {
                let msg = "is in a group already (expand that group first)";
                return Err(GraphError::node(id, None, msg));
            }
            Some(_) => {}
        }
    }
    let inside: HashSet<&str> = members.iter().map(String::as_str).collect();
    let mut group = GroupDoc {
        id: fresh_id(doc),
        label: label.to_string(),
        inputs: vec![],
        outputs: vec![],
    };
    for e in &doc.edges {
        let (from_in, to_in) = (
            inside.contains(e.from.node.as_str()),
            inside.contains(e.to.node.as_str()),
        );
        if to_in && !from_in && !group.inputs.contains(&e.to) {
            group.inputs.push(e.to.clone());
        }
        if from_in && !to_in && !group.outputs.contains(&e.from) {
            group.outputs.push(e.from.clone());
        }
    }
    let mut out = doc.clone();
    for n in out
        .nodes
        .iter_mut()
        .filter(|n| inside.contains(n.id.as_str()))
    {
        n.group = Some(group.id.clone());
    }
    let placed: Vec<(f32, f32)> = members
        .iter()
        .filter_map(|id| doc.layout.positions.get(id).copied())
        .collect();
    if !placed.is_empty() {
        let k = placed.len() as f32;
        let sum = placed
            .iter()
            .fold((0.0, 0.0), |a, p| (a.0 + p.0, a.1 + p.1));
        let mean = ((sum.0 / k).round(), (sum.1 / k).round());
        out.layout.positions.insert(group.id.clone(), mean);
    }
    let id = group.id.clone();
    out.groups.push(group);
    Ok((out, id))
}

/// `doc` with group `id` expanded: its nodes are plain nodes again.
///
/// # Errors
/// No group `id`.
pub fn expand(doc: &GraphDoc, id: &str) -> Result<GraphDoc, GraphError> {
    let Some(at) = doc.groups.iter().position(|g| g.id == id) else {
        return Err(GraphError::node(id, None, "no such group to expand"));
    };
    let mut out = doc.clone();
    out.groups.remove(at);
    for n in out.nodes.iter_mut() {
        if n.group.as_deref() == Some(id) {
            n.group = None;
        }
    }
    out.layout.positions.remove(id);
    Ok(out)
}

/// `doc` with every group expanded (the graph the run sees, without the view).
pub fn ungrouped(doc: &GraphDoc) -> GraphDoc {
    let mut out = doc.clone();
    for g in &doc.groups {
        out.layout.positions.remove(&g.id);
    }
    out.groups.clear();
    out.nodes.iter_mut().for_each(|n| n.group = None);
    out
}

/// Problems with `doc`'s groups, each naming the group or node: a bad or doubled id, a node in
/// an unknown group, an empty group, an exposed port outside the group.
pub fn check(doc: &GraphDoc) -> Vec<GraphError> {
    let mut errors = vec![];
    let mut seen: HashSet<&str> = doc.nodes.iter().map(|n| n.id.as_str()).collect();
    for g in &doc.groups {
        let field = format!("groups.{}", g.id);
        if g.id.is_empty() || !g.id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            errors.push(GraphError::field(
                &field,
                "group ids use letters, digits and _ only",
            ));
        }
        if !seen.insert(&g.id) {
            errors.push(GraphError::field(
                &field,
                "id already used by a node or group",
            ));
        }
        let members: HashSet<&str> = doc
            .nodes
            .iter()
            .filter(|n| n.group.as_deref() == Some(&g.id))
            .map(|n| n.id.as_str())
            .collect();
        if members.is_empty() {
            errors.push(GraphError::field(&field, "the group has no nodes"));
        }
        for end in g.inputs.iter().chain(&g.outputs) {
            if !members.contains(end.node.as_str()) {
                let msg = format!("exposed port `{end}` is not on a node of the group");
                errors.push(GraphError::field(&field, msg));
            }
        }
    }
    for n in &doc.nodes {
        if let Some(g) = &n.group {
            if !doc.groups.iter().any(|d| &d.id == g) {
                let msg = format!("names group `{g}`, which is not in `groups`");
                errors.push(GraphError::node(&n.id, Some("group"), msg));
            }
        }
    }
    errors
}
