//! The user types egui_node_graph2 is instantiated with, and the traits that describe ports and
//! the palette. Node kinds come from the runtime [`NodeRegistry`] (plugins included), so the
//! template is a small index into the registry, not a compile-time enum.

use egui::Color32;
use egui_node_graph2::{
    DataTypeTrait, Graph, GraphEditorState, InputParamKind, NodeId, NodeTemplateIter,
    NodeTemplateTrait, UserResponseTrait,
};
use flip_graph::step::{STEP_INPUT, STEP_OUTPUT};
use flip_graph::NodeStats;
use flip_graph::{
    DataKind, EdgeDoc, GraphDoc, GroupDoc, NodeDoc, NodeRegistry, ParamMap, ParamSpec, ParamValue,
    PortSpec,
};
use flip_nodes::roles::{KindFacts, NodeRole};
use flip_nodes::stats::SolveReport;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

/// Port type. Only equal types connect (the library's one connection rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataType {
    /// A data port of the simulation graph.
    Port(DataKind),
    /// A port of a node whose kind is unknown, joined to another unknown port.
    Unknown,
    /// An inline parameter (never drawn as a port).
    Param,
}

/// Inline constant of an input: nothing for data ports, the parameter value for parameters.
/// Cheap to `Default` because the library `mem::take`s it around every widget call.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum ValueType {
    /// A data port (no inline value).
    #[default]
    None,
    /// A parameter value, exactly as stored in the graph file.
    Param(ParamValue),
}

/// Per-node data: the document id and kind, the parameter specs the widgets are built from,
/// and what must survive a load/save round trip unchanged.
#[derive(Clone, Debug)]
pub struct NodeData {
    /// Id in the graph file (e.g. `pressure`); unique in the graph.
    pub doc_id: String,
    /// Kind id in the registry.
    pub kind: String,
    /// What the kind does in a step ([`NodeRole::Other`] for unknown kinds and groups).
    pub role: NodeRole,
    /// Position in the document's node list (the scheduler breaks ties by it).
    pub order: u64,
    /// Input port specs (help texts for tooltips); empty for unknown kinds.
    pub inputs: Vec<PortSpec>,
    /// Current parameter specs (for the pressure node they depend on `solver`).
    pub params: Vec<ParamSpec>,
    /// Parameters written to the file even when equal to their default (present in the loaded
    /// file, or edited).
    pub explicit: BTreeSet<String>,
    /// Parameters of the file that the kind does not declare; written back verbatim.
    pub extra: ParamMap,
    /// Whether the kind is in the registry.
    pub known: bool,
    /// One-sentence description of the kind.
    pub help: String,
    /// Left out of the run, inputs passed to outputs of the same name (drawn greyed).
    pub bypass: bool,
    /// A node group's members (the node is the group's canvas node).
    pub group: Option<Box<GroupBody>>,
}

impl NodeData {
    /// Whether this is one of the step-state boundary nodes.
    pub fn is_step_boundary(&self) -> bool {
        self.kind == STEP_INPUT || self.kind == STEP_OUTPUT
    }
    /// The spec of parameter `name`.
    pub fn param(&self, name: &str) -> Option<&ParamSpec> {
        self.params.iter().find(|p| p.name == name)
    }
}

/// What a group's canvas node carries besides its ports: its members, their positions and the
/// wires between them ride along until the group is expanded or the document saved.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupBody {
    /// The group as stored (id, label, exposed ports).
    pub doc: GroupDoc,
    /// Member nodes with their positions in the document's node list.
    pub members: Vec<(u64, NodeDoc)>,
    /// Wires between members.
    pub edges: Vec<EdgeDoc>,
    /// Member positions (file units).
    pub positions: BTreeMap<String, (f32, f32)>,
}

impl GroupBody {
    /// The group's members and internal wires taken from `doc`.
    pub fn from_doc(doc: &GraphDoc, group: &GroupDoc) -> Self {
        let is_member = |n: &NodeDoc| n.group.as_deref() == Some(group.id.as_str());
        let members: Vec<(u64, NodeDoc)> = doc
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| is_member(n))
            .map(|(i, n)| (i as u64, n.clone()))
            .collect();
        let ids: BTreeSet<&str> = members.iter().map(|(_, n)| n.id.as_str()).collect();
        let inside = |end: &flip_graph::Endpoint| ids.contains(end.node.as_str());
        let edges = doc
            .edges
            .iter()
            .filter(|e| inside(&e.from) && inside(&e.to))
            .cloned()
            .collect();
        let positions = ids
            .iter()
            .filter_map(|id| Some((id.to_string(), *doc.layout.positions.get(*id)?)))
            .collect();
        Self {
            doc: group.clone(),
            members,
            edges,
            positions,
        }
    }

    /// Whether `id` is one of the members.
    pub fn has_member(&self, id: &str) -> bool {
        self.members.iter().any(|(_, n)| n.id == id)
    }
}

/// A node kind offered by the finder: index into [`NodeRegistry::kinds`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KindRef(pub usize);

/// Every kind of the registry, for the finder.
pub struct AllKinds(pub usize);

impl NodeTemplateIter for AllKinds {
    type Item = KindRef;
    fn all_kinds(&self) -> Vec<KindRef> {
        (0..self.0).map(KindRef).collect()
    }
}

/// Side effects requested by node widgets.
#[derive(Clone, Debug)]
pub enum Response {
    /// A parameter value was edited.
    ParamChanged {
        /// Node.
        node: NodeId,
        /// Parameter name.
        name: String,
    },
    /// The node's "Duplicate" button.
    Duplicate(NodeId),
    /// The node's "Swap" menu: make it a node of this kind, keeping its wires.
    Swap(NodeId, String),
    /// The node's "Bypass" toggle.
    Bypass(NodeId),
    /// A group node's "Expand" button.
    Expand(NodeId),
    /// The node's "Insert on wire" menu: put the (unwired) node on this wire.
    InsertOnWire(NodeId, EdgeDoc),
}

impl UserResponseTrait for Response {}

/// What the last displayed frame (or validation) says about one node.
#[derive(Clone, Debug, Default)]
pub struct NodeStatus {
    /// Time spent in the node during the frame (all substeps), ms.
    pub time_ms: Option<f64>,
    /// Statistics of the frame's last substep that reported any.
    pub stats: Option<Arc<dyn NodeStats>>,
    /// Whether every substep's solve converged (solver nodes only).
    pub converged: Option<bool>,
    /// Validation or run errors naming this node.
    pub errors: Vec<String>,
    /// What the node reported during the frame without failing (a solver fallback taken).
    pub warnings: Vec<String>,
}

impl NodeStatus {
    /// The solve a pressure node reported.
    pub fn solve(&self) -> Option<&SolveReport> {
        self.stats.as_deref()?.downcast_ref()
    }
}

/// State shared with every node callback.
pub struct UserState {
    /// Node kinds (built-ins plus loaded plugins).
    pub registry: Arc<NodeRegistry>,
    /// Per node id: last timings, statistics and errors.
    pub status: HashMap<String, NodeStatus>,
    /// Folder relative paths in parameters are resolved against (the graph file's folder).
    pub base_dir: PathBuf,
    /// The wires the selected unwired node can be inserted on (the graph edits'
    /// `wires_to_insert_on`).
    pub wire_choices: Option<(NodeId, Vec<EdgeDoc>)>,
    /// Solver algorithms (`plugin/algorithm`) that solve LCPs (separating walls), marked in
    /// the solver combo.
    pub lcp_solvers: std::collections::HashSet<String>,
}

impl UserState {
    /// A state for `registry` with no status.
    pub fn new(registry: Arc<NodeRegistry>) -> Self {
        Self {
            registry,
            status: HashMap::new(),
            base_dir: PathBuf::from("."),
            wire_choices: None,
            lcp_solvers: Default::default(),
        }
    }
    fn kind(&self, k: KindRef) -> &flip_graph::NodeKind {
        self.registry
            .kinds()
            .nth(k.0)
            .expect("templates index the registry they were listed from")
    }
}

/// Port names with their types.
pub type Ports = Vec<(String, DataType)>;

/// The library graph with our types.
pub type EditorGraph = Graph<NodeData, DataType, ValueType>;
/// The library editor state with our types.
pub type EditorState = GraphEditorState<NodeData, DataType, ValueType, KindRef, UserState>;

/// Colour of a data kind's ports and wires.
pub fn kind_color(kind: DataKind) -> Color32 {
    use flip_nodes::kinds::{
        BODIES, CELLS, DIFFUSE, LEVEL_SET, PARTICLES, SCALAR, SOLIDS, TALL_LIQUID, VELOCITY,
    };
    const COLOURS: [(DataKind, [u8; 3]); 9] = [
        (PARTICLES, [80, 170, 255]),
        (VELOCITY, [255, 150, 60]),
        (CELLS, [170, 120, 255]),
        (LEVEL_SET, [60, 210, 160]),
        (SOLIDS, [170, 170, 170]),
        (SCALAR, [235, 215, 70]),
        (TALL_LIQUID, [40, 120, 230]),
        (DIFFUSE, [210, 240, 250]),
        (BODIES, [200, 140, 90]),
    ];
    // a kind of a plugin's or a test's: white
    let [r, g, b] = COLOURS
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or([230, 230, 230], |&(_, c)| c);
    Color32::from_rgb(r, g, b)
}

impl DataTypeTrait<UserState> for DataType {
    fn data_type_color(&self, _: &mut UserState) -> Color32 {
        match self {
            DataType::Port(k) => kind_color(*k),
            DataType::Unknown => Color32::from_rgb(220, 60, 60),
            DataType::Param => Color32::GRAY,
        }
    }
    fn name(&self) -> Cow<'_, str> {
        match self {
            DataType::Port(k) => Cow::Borrowed(k.name()),
            DataType::Unknown => Cow::Borrowed("unknown"),
            DataType::Param => Cow::Borrowed("parameter"),
        }
    }
}

/// Adds the ports and parameter inputs of a node: inputs first (in spec order), then
/// parameters (values from `values`, else the spec default), then outputs.
pub fn build_ports(
    graph: &mut EditorGraph,
    node_id: NodeId,
    inputs: &[(String, DataType)],
    outputs: &[(String, DataType)],
    values: &ParamMap,
) {
    for (name, typ) in inputs {
        graph.add_input_param(
            node_id,
            name.clone(),
            *typ,
            ValueType::None,
            InputParamKind::ConnectionOnly,
            true,
        );
    }
    let params = graph[node_id].user_data.params.clone();
    for p in &params {
        add_param_input(graph, node_id, p, values.get(&p.name));
    }
    for (name, typ) in outputs {
        graph.add_output_param(node_id, name.clone(), *typ);
    }
}

/// Adds one parameter input with `value` or the spec's default.
pub fn add_param_input(
    graph: &mut EditorGraph,
    node_id: NodeId,
    spec: &ParamSpec,
    value: Option<&ParamValue>,
) {
    let v = value.cloned().unwrap_or_else(|| spec.default.clone());
    graph.add_input_param(
        node_id,
        spec.name.clone(),
        DataType::Param,
        ValueType::Param(v),
        InputParamKind::ConstantOnly,
        true,
    );
}

/// Port lists of a spec as `(name, type)`.
pub fn port_types(ports: &[PortSpec]) -> Ports {
    ports
        .iter()
        .map(|p| (p.name.clone(), DataType::Port(p.kind)))
        .collect()
}

/// Default values of a kind's parameters, dynamic ones included.
pub fn default_values(kind: &flip_graph::NodeKind) -> (Vec<ParamSpec>, ParamMap) {
    let fixed: ParamMap = kind
        .spec
        .params
        .iter()
        .map(|p| (p.name.clone(), p.default.clone()))
        .collect();
    let specs = kind
        .params_for(&fixed)
        .unwrap_or_else(|_| kind.spec.params.clone());
    let values = specs
        .iter()
        .map(|p| (p.name.clone(), p.default.clone()))
        .collect();
    (specs, values)
}

impl NodeTemplateTrait for KindRef {
    type NodeData = NodeData;
    type DataType = DataType;
    type ValueType = ValueType;
    type UserState = UserState;
    type CategoryType = String;

    fn node_finder_label(&self, user_state: &mut UserState) -> Cow<'_, str> {
        Cow::Owned(user_state.kind(*self).spec.label.clone())
    }
    fn node_finder_categories(&self, user_state: &mut UserState) -> Vec<String> {
        vec![user_state.kind(*self).spec.category.clone()]
    }
    fn node_graph_label(&self, user_state: &mut UserState) -> String {
        user_state.kind(*self).spec.label.clone()
    }
    fn user_data(&self, user_state: &mut UserState) -> NodeData {
        let kind = user_state.kind(*self);
        let (params, _) = default_values(kind);
        NodeData {
            // Made unique (and ordered last) when the editor sees `CreatedNode`.
            doc_id: kind.spec.kind.clone(),
            kind: kind.spec.kind.clone(),
            role: kind.spec.role(),
            order: u64::MAX,
            inputs: kind.spec.inputs.clone(),
            params,
            explicit: BTreeSet::new(),
            extra: ParamMap::new(),
            known: true,
            help: kind.spec.help.clone(),
            bypass: false,
            group: None,
        }
    }
    fn build_node(&self, graph: &mut EditorGraph, user_state: &mut UserState, node_id: NodeId) {
        let kind = user_state.kind(*self);
        let (_, values) = default_values(kind);
        let inputs = port_types(&kind.spec.inputs);
        let outputs = port_types(&kind.spec.outputs);
        build_ports(graph, node_id, &inputs, &outputs, &values);
    }
}
