//! Validation and the execution plan. `compile` reports *every* problem it finds, each naming
//! the node and port/parameter, so the editor can mark all broken nodes at once.

use crate::doc::{GraphDoc, Settings};
use crate::error::GraphError;
use crate::levels::levels;
use crate::registry::NodeRegistry;
use crate::settings_check::check_settings;
use crate::spec::NodeSpec;
use crate::step::{STEP_INPUT, STEP_OUTPUT};
use crate::value::ParamMap;
use std::collections::{HashMap, HashSet};

/// A node of the plan.
#[derive(Clone, Debug)]
pub struct PlanNode {
    /// Node id.
    pub id: String,
    /// Kind id.
    pub kind: String,
    /// Spec of the kind.
    pub spec: NodeSpec,
    /// Parameters with defaults filled in.
    pub params: ParamMap,
    /// Per input port: the producing `(node index, output index)`.
    pub sources: Vec<Option<(usize, usize)>>,
    /// Per output port: how many inputs read it.
    pub consumers: Vec<usize>,
}

/// A validated graph, ready to run: nodes and their dependency levels (nodes in one level do
/// not depend on each other and run in parallel).
#[derive(Clone, Debug)]
pub struct ExecPlan {
    /// Nodes in document order.
    pub nodes: Vec<PlanNode>,
    /// Dependency levels, each sorted by node index (deterministic).
    pub levels: Vec<Vec<usize>>,
    /// Index of `step_input`, if any.
    pub step_input: Option<usize>,
    /// Index of `step_output`, if any.
    pub step_output: Option<usize>,
    /// Settings.
    pub settings: Settings,
}

/// Why `kind` is not in the registry: a node plugin's kind (`<plugin>/<kind>`) whose plugin
/// is not loaded or does not offer it, or an unknown kind with the nearest known one.
fn unknown_kind(reg: &NodeRegistry, kind: &str) -> String {
    let known = || reg.kinds().map(|k| k.spec.kind.as_str());
    let near = crate::suggest::did_you_mean(kind, known());
    let Some((plugin, name)) = kind.split_once('/') else {
        return format!("unknown node kind `{kind}`{near}");
    };
    let prefix = format!("{plugin}/");
    if known().any(|k| k.starts_with(&prefix)) {
        format!("node plugin `{plugin}` offers no node kind `{name}`{near}")
    } else {
        format!(
            "node kind `{name}` comes from node plugin `{plugin}`, which is not loaded \
             (`flipgraph plugins` lists the plugins found and refused; add its folder with \
             --plugin-dir)"
        )
    }
}

fn resolve_params(
    reg: &NodeRegistry,
    node: &crate::doc::NodeDoc,
    errors: &mut Vec<GraphError>,
) -> Option<(NodeSpec, ParamMap)> {
    let Some(kind) = reg.get(&node.kind) else {
        errors.push(GraphError::node(
            &node.id,
            None,
            unknown_kind(reg, &node.kind),
        ));
        return None;
    };
    // Fixed parameters first; the dynamic ones depend on their values.
    let mut params = kind.spec.params.clone();
    let mut resolved = ParamMap::new();
    let before = errors.len();
    check_params(&node.id, &params, &node.params, &mut resolved, errors);
    let fixed_ok = errors.len() == before;
    match kind.params_for(&node.params) {
        Ok(all) => {
            let dynamic = all[params.len()..].to_vec();
            check_params(&node.id, &dynamic, &node.params, &mut resolved, errors);
            params = all;
            for name in node.params.keys() {
                if !params.iter().any(|p| &p.name == name) {
                    errors.push(GraphError::node(
                        &node.id,
                        Some(name),
                        format!("unknown parameter for `{}`", node.kind),
                    ));
                }
            }
        }
        // Says why (e.g. which solver plugins were found or refused), naming the parameter
        // when the kind says which; not again when a fixed parameter it reads was refused.
        Err(_) if !fixed_ok => {}
        Err(e) => errors.push(match e.downcast::<crate::node::NodeError>() {
            Ok(e) => e.at_node(&node.id),
            Err(e) => GraphError::node(&node.id, None, e.to_string()),
        }),
    }
    // The node keeps its ports even when its parameters are wrong, so edges still check.
    Some((kind.spec.clone(), resolved))
}

fn check_id(id: &str, errors: &mut Vec<GraphError>) {
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        errors.push(GraphError::node(
            id,
            None,
            "node ids use letters, digits and _ only",
        ));
    }
}

fn check_params(
    id: &str,
    specs: &[crate::spec::ParamSpec],
    given: &ParamMap,
    resolved: &mut ParamMap,
    errors: &mut Vec<GraphError>,
) {
    for p in specs {
        let value = given.get(&p.name).unwrap_or(&p.default);
        match p.check(value) {
            Ok(()) => {
                resolved.insert(p.name.clone(), value.clone());
            }
            Err(e) => errors.push(GraphError::node(id, Some(&p.name), e.to_string())),
        }
    }
}

/// Validates `doc` against `registry` and builds the plan.
///
/// # Errors
/// Every problem found: settings, unknown kinds, bad parameters, unknown ports, type
/// mismatches, doubly-driven or missing required inputs, cycles (a cycle must pass through
/// the `step_output` → `step_input` boundary, which is not an edge). Nodes with no wire at all
/// are left out after their ids, kinds and parameters are checked ([`crate::unwired`]), then
/// bypassed ones ([`crate::bypass`]).
pub fn compile(doc: &GraphDoc, registry: &NodeRegistry) -> Result<ExecPlan, Vec<GraphError>> {
    let mut errors = crate::groups::check(doc);
    let scratch = crate::unwired::unwired(doc);
    for n in doc
        .nodes
        .iter()
        .filter(|n| scratch.contains(&n.id.as_str()))
    {
        check_id(&n.id, &mut errors);
        let _ = resolve_params(registry, n, &mut errors);
    }
    let wired = crate::unwired::without_unwired(doc);
    let doc = &*crate::bypass::without_bypassed(&wired, registry)?;
    check_settings(&doc.settings, &mut errors);
    if doc.nodes.is_empty() {
        errors.push(GraphError::field("nodes", "the graph has no nodes"));
    }
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut nodes: Vec<Option<PlanNode>> = Vec::new();
    for (i, n) in doc.nodes.iter().enumerate() {
        check_id(&n.id, &mut errors);
        if index.insert(n.id.as_str(), i).is_some() {
            errors.push(GraphError::node(&n.id, None, "duplicate node id"));
        }
        nodes.push(
            resolve_params(registry, n, &mut errors).map(|(spec, params)| PlanNode {
                id: n.id.clone(),
                kind: n.kind.clone(),
                sources: vec![None; spec.inputs.len()],
                consumers: vec![0; spec.outputs.len()],
                spec,
                params,
            }),
        );
    }
    for e in &doc.edges {
        connect(e, &index, &mut nodes, &mut errors);
    }
    // an input with a wire is connected, whatever is wrong with the wire or the node it comes
    // from (that is reported once, there)
    let wired: HashSet<(&str, &str)> = (doc.edges.iter())
        .map(|e| (e.to.node.as_str(), e.to.port.as_str()))
        .collect();
    for n in nodes.iter().flatten() {
        for (port, src) in n.spec.inputs.iter().zip(&n.sources) {
            let has_wire = wired.contains(&(n.id.as_str(), port.name.as_str()));
            if port.required && src.is_none() && !has_wire {
                errors.push(GraphError::node(
                    &n.id,
                    Some(&port.name),
                    "required input is not connected",
                ));
            }
        }
    }
    let find = |kind: &str| {
        doc.nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.kind == kind)
            .map(|(i, _)| i)
            .collect::<Vec<_>>()
    };
    let (ins, outs) = (find(STEP_INPUT), find(STEP_OUTPUT));
    if ins.len() > 1 || outs.len() > 1 || ins.len() != outs.len() {
        errors.push(GraphError::node(
            STEP_INPUT,
            None,
            "a graph needs exactly one step_input and one step_output, or neither",
        ));
    }
    let levels = if errors.is_empty() {
        levels(&doc.nodes, &nodes, &mut errors)
    } else {
        vec![]
    };
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(ExecPlan {
        nodes: nodes
            .into_iter()
            .map(|n| n.expect("no errors: every node resolved"))
            .collect(),
        levels,
        step_input: ins.first().copied(),
        step_output: outs.first().copied(),
        settings: doc.settings.clone(),
    })
}

fn connect(
    e: &crate::doc::EdgeDoc,
    index: &HashMap<&str, usize>,
    nodes: &mut [Option<PlanNode>],
    errors: &mut Vec<GraphError>,
) {
    if !e.from.is_well_formed() || !e.to.is_well_formed() {
        errors.push(GraphError::field(
            &format!("edge {} -> {}", e.from, e.to),
            "edge ends are written `node.port`",
        ));
        return;
    }
    let (fnode, fport) = (e.from.node.as_str(), e.from.port.as_str());
    let (tnode, tport) = (e.to.node.as_str(), e.to.port.as_str());
    let (Some(&fi), Some(&ti)) = (index.get(fnode), index.get(tnode)) else {
        let missing = if index.contains_key(fnode) {
            tnode
        } else {
            fnode
        };
        errors.push(GraphError::node(
            missing,
            None,
            format!(
                "edge {} -> {} names a node that does not exist",
                e.from, e.to
            ),
        ));
        return;
    };
    let (Some(from), Some(to)) = (&nodes[fi], &nodes[ti]) else {
        return;
    };
    let Some(op) = from.spec.output(fport) else {
        errors.push(GraphError::node(
            fnode,
            Some(fport),
            format!("`{}` has no output `{fport}`", from.kind),
        ));
        return;
    };
    let Some(ip) = to.spec.input(tport) else {
        errors.push(GraphError::node(
            tnode,
            Some(tport),
            format!("`{}` has no input `{tport}`", to.kind),
        ));
        return;
    };
    let (fk, tk) = (from.spec.outputs[op].kind, to.spec.inputs[ip].kind);
    if fk != tk {
        errors.push(GraphError::node(
            tnode,
            Some(tport),
            format!(
                "type mismatch: {} carries {}, input expects {}",
                e.from,
                fk.name(),
                tk.name()
            ),
        ));
        return;
    }
    if to.sources[ip].is_some() {
        errors.push(GraphError::node(
            tnode,
            Some(tport),
            "input has more than one incoming edge",
        ));
        return;
    }
    nodes[ti].as_mut().expect("checked").sources[ip] = Some((fi, op));
    nodes[fi].as_mut().expect("checked").consumers[op] += 1;
}
