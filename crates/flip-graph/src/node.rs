use crate::doc::Settings;
use crate::stats::NodeStats;
use crate::value::{ParamMap, Value};
use flip_core::GridSpec;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// What a node needs to know when it is created.
pub struct NodeInit<'a> {
    /// Node id.
    pub id: &'a str,
    /// Parameters, validated, with defaults filled in.
    pub params: &'a ParamMap,
    /// Global settings.
    pub settings: &'a Settings,
    /// Folder where output nodes write (the CLI's `--out`).
    pub out_dir: &'a std::path::Path,
    /// Folder that relative input paths are resolved against (the graph file's folder).
    pub base_dir: &'a std::path::Path,
    /// Whether output folders may lie outside `out_dir` (`..`, absolute paths); the CLI's
    /// `--allow-outside-out`.
    pub allow_outside_out: bool,
}

/// Per-substep context handed to every node.
#[derive(Clone, Debug)]
pub struct EvalCtx {
    /// Grid geometry.
    pub grid: GridSpec,
    /// Global settings.
    pub settings: Arc<Settings>,
    /// This substep's time step (s).
    pub dt: f32,
    /// Simulation time at the start of the substep (s).
    pub time: f64,
    /// Global substep counter since the start.
    pub step: u64,
    /// Frame being simulated (0-based).
    pub frame: u32,
    /// Substep index within the frame.
    pub substep: u32,
    /// Whether this substep ends the frame (output nodes write then).
    pub frame_end: bool,
    /// Whether substeps come in pairs of equal length (a node of the graph asks for it,
    /// [`Node::pairs_substeps`]); `substep` is even in the first of a pair.
    pub paired: bool,
    /// Output folder.
    pub out_dir: PathBuf,
    /// Set when the run is asked to stop (SIGINT, the editor's Stop): long work (pressure
    /// solves) polls it and stops early.
    pub cancel: Arc<AtomicBool>,
    /// In a decomposed run (`run --mpi`), this rank's window; `grid` is then the window's grid
    /// and positions are in window coordinates.
    pub window: Option<Arc<crate::window::Window>>,
}

impl EvalCtx {
    /// How long forces (and viscosity) act in this substep: `dt`; with paired substeps
    /// (advection–reflection, [`Node::pairs_substeps`]) nothing in the first of a pair, which
    /// only advects and reflects its projection, and the whole pair (`2·dt`) in the second.
    pub fn force_dt(&self) -> Option<f32> {
        match (self.paired, self.substep % 2) {
            (false, _) => Some(self.dt),
            (true, 0) => None,
            (true, _) => Some(2.0 * self.dt),
        }
    }
}

/// Why a node failed.
#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    /// A required input did not arrive (e.g. an optional upstream produced nothing).
    #[error("input `{0}` has no value")]
    MissingInput(String),
    /// A parameter the node cannot work with (found when the node is created).
    #[error("`{param}`: {message}")]
    Param {
        /// The parameter's name.
        param: String,
        /// What is wrong.
        message: String,
    },
    /// Anything else.
    #[error("{0}")]
    Failed(String),
    /// The node panicked (the runner caught it).
    #[error("panicked: {0}")]
    Panicked(String),
    /// A component the node called failed (a solver plugin, a file): its typed error, shown
    /// as it is (`NodeError::cause` finds it again).
    #[error(transparent)]
    Other(Box<dyn std::error::Error + Send + Sync>),
}

impl NodeError {
    /// A problem with parameter `param`.
    pub fn param(param: &str, message: impl Into<String>) -> Self {
        Self::Param {
            param: param.into(),
            message: message.into(),
        }
    }
}

impl NodeError {
    /// The validation error of node `node` refusing with this error, naming the parameter
    /// when the node says which.
    pub fn at_node(self, node: &str) -> crate::GraphError {
        match self {
            Self::Param { param, message } => crate::GraphError::node(node, Some(&param), message),
            e => crate::GraphError::node(node, None, e.to_string()),
        }
    }

    /// Wraps the typed error of a component the node called.
    pub fn other(e: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self::Other(Box::new(e))
    }

    /// The typed error of a component the node called, when it is an `E`.
    pub fn cause<E: std::error::Error + 'static>(&self) -> Option<&E> {
        match self {
            Self::Other(e) => e.downcast_ref(),
            _ => None,
        }
    }
}

impl From<String> for NodeError {
    fn from(message: String) -> Self {
        Self::Failed(message)
    }
}

impl From<&str> for NodeError {
    fn from(message: &str) -> Self {
        Self::Failed(message.into())
    }
}

/// Something a node tells the user during an evaluation, typed so that front ends can show or
/// forward it (`run --progress json` writes it as an event of its own).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum NodeEvent {
    /// The isolated solver failed; `fallback` solves this step and the rest of the run.
    SolverFallback {
        /// The failed solver's plugin id.
        plugin: String,
        /// Its algorithm.
        algorithm: String,
        /// `plugin/algorithm` of the fallback.
        fallback: String,
        /// What happened (sanitised).
        reason: String,
    },
}

impl std::fmt::Display for NodeEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::SolverFallback {
                reason, fallback, ..
            } => write!(
                f,
                "{reason}; this step and the rest of the run are solved with the fallback `{fallback}`"
            ),
        }
    }
}

/// A node's inputs, outputs and reported statistics for one evaluation, by port name.
#[derive(Debug, Default)]
pub struct NodeIo {
    pub(crate) input_names: Vec<String>,
    pub(crate) inputs: Vec<Option<Value>>,
    pub(crate) output_names: Vec<String>,
    pub(crate) outputs: Vec<Option<Value>>,
    /// Outputs that nothing reads in this evaluation (set by the runner; none by default).
    pub(crate) unread: Vec<bool>,
    /// Statistics to report for this evaluation (a node family's [`NodeStats`]).
    pub stats: Option<Arc<dyn NodeStats>>,
    /// Files this evaluation wrote (output nodes), for the run manifest.
    pub files: Vec<PathBuf>,
    /// What the node told the user in this evaluation.
    pub events: Vec<NodeEvent>,
}

impl NodeIo {
    /// Builds an io block for the given port names (used by the runner and by tests).
    pub fn new(inputs: Vec<(String, Option<Value>)>, outputs: &[String]) -> Self {
        let (input_names, inputs) = inputs.into_iter().unzip();
        Self {
            input_names,
            inputs,
            output_names: outputs.to_vec(),
            outputs: vec![None; outputs.len()],
            unread: vec![false; outputs.len()],
            stats: None,
            files: Vec::new(),
            events: Vec::new(),
        }
    }

    /// Takes the value of input `name` (None if unconnected or empty).
    pub fn take(&mut self, name: &str) -> Option<Value> {
        let i = self
            .input_names
            .iter()
            .position(|n| n == name)
            .unwrap_or_else(|| panic!("node asked for undeclared input `{name}`"));
        self.inputs[i].take()
    }

    /// Takes input `name`, which must be present.
    ///
    /// # Errors
    /// [`NodeError::MissingInput`].
    pub fn require(&mut self, name: &str) -> Result<Value, NodeError> {
        self.take(name)
            .ok_or_else(|| NodeError::MissingInput(name.into()))
    }

    /// Sets output `name`.
    pub fn set(&mut self, name: &str, value: Value) {
        let i = self
            .output_names
            .iter()
            .position(|n| n == name)
            .unwrap_or_else(|| panic!("node wrote undeclared output `{name}`"));
        self.outputs[i] = Some(value);
    }

    /// Whether anything reads output `name` in this evaluation: no node wired to it, no probe
    /// (a node can then let go of what it would pass through, so that a later in-place edit
    /// of the value does not copy it). True when the runner did not say.
    pub fn is_read(&self, name: &str) -> bool {
        let i = self
            .output_names
            .iter()
            .position(|n| n == name)
            .unwrap_or_else(|| panic!("node asked about undeclared output `{name}`"));
        !self.unread[i]
    }

    /// Reads output `name` after evaluation (tests).
    pub fn output(&self, name: &str) -> Option<&Value> {
        let i = self.output_names.iter().position(|n| n == name)?;
        self.outputs[i].as_ref()
    }

    /// Tells the user something ([`NodeEvent`]).
    pub fn event(&mut self, event: NodeEvent) {
        self.events.push(event);
    }

    /// Reports this evaluation's statistics.
    pub fn report(&mut self, stats: impl NodeStats) {
        self.stats = Some(Arc::new(stats));
    }

    /// Records a file this evaluation wrote (a frame), so the run manifest can hash it.
    pub fn wrote(&mut self, path: PathBuf) {
        self.files.push(path);
    }
}

/// A node's saved state: opaque bytes, and what could not be saved.
#[derive(Clone, Debug, Default)]
pub struct NodeState {
    /// Bytes for [`Node::load_state`] (empty: nothing to restore).
    pub bytes: Vec<u8>,
    /// Why part of the state could not be saved (a plugin without state support: a resumed
    /// run re-creates that solver); `None` when the state is complete.
    pub incomplete: Option<String>,
}

/// Behaviour of a node instance. Instances live for the whole simulation, so they may keep
/// state between steps (a solver's hierarchy, a warm-start pressure).
pub trait Node: Send {
    /// Runs one substep.
    ///
    /// # Errors
    /// [`NodeError`] with a message; the runner adds node id and frame.
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError>;

    /// Forgets state carried between steps (the editor's reset).
    fn reset(&mut self) {}

    /// What this node carries between steps (warm starts, measured constants, a plugin's
    /// learned state), for a checkpoint. Stateless nodes keep the default (no bytes).
    ///
    /// # Errors
    /// A plugin that failed to save its state.
    fn save_state(&mut self) -> Result<NodeState, NodeError> {
        Ok(NodeState::default())
    }

    /// Restores what [`Node::save_state`] returned (called on a freshly created node).
    ///
    /// # Errors
    /// Bytes this node cannot read, or a plugin that refused its state.
    fn load_state(&mut self, state: &[u8]) -> Result<(), NodeError> {
        if state.is_empty() {
            Ok(())
        } else {
            Err(NodeError::Failed("this node keeps no state".into()))
        }
    }

    /// Largest acceleration this node applies (m/s²), for the time-step bound
    /// (`v_max + sqrt(5·dx·a)`, Bridson). Force nodes override it.
    fn acceleration_hint(&self) -> f32 {
        0.0
    }

    /// Largest speed of a solid this node moves (m/s): substeps are cut so that it moves at
    /// most one cell per substep (a thin moving wall must not skip over liquid).
    fn solid_speed_hint(&self) -> f32 {
        0.0
    }

    /// Whether this node needs the substeps in pairs of equal length, a frame always ending on
    /// the second of a pair (advection–reflection's two half steps, `reflect`).
    fn pairs_substeps(&self) -> bool {
        false
    }

    /// Whether this node runs in a decomposed run's window, and how far (cells) a wrong value
    /// at the window's outer faces can travel inward through it (extrapolation's layers);
    /// a refusal is reported under `run --mpi` before the run starts.
    ///
    /// # Errors
    /// Why the node cannot run in a window (by default: it needs the whole domain).
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        Err(WindowRefusal::WholeDomain)
    }
}

/// Why a node cannot run in one rank's window of a decomposed run (`run --mpi`).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum WindowRefusal {
    /// Its algorithm needs the whole domain.
    #[error("needs the whole domain and cannot run decomposed")]
    WholeDomain,
    /// Its solver cannot solve one rank's part of a distributed problem.
    #[error("cannot run decomposed: {why}; {}", can(.alternatives))]
    Solver {
        /// What the chosen solver lacks.
        why: String,
        /// The loaded solvers that would run distributed here.
        alternatives: Vec<String>,
    },
    /// A setting of the node that a decomposed run does not carry.
    #[error("cannot run decomposed: {0}")]
    Setting(&'static str),
}

/// The clause naming the solvers that would do.
fn can(alternatives: &[String]) -> String {
    if alternatives.is_empty() {
        "no loaded solver can".into()
    } else {
        format!("solvers that can: {}", alternatives.join(", "))
    }
}

impl NodeIo {
    /// Takes input `name` as data of kind `kind` held as a `T` (`None` when unconnected or
    /// empty); the node crates' typed accessors (`io.particles("particles")?`) are built on it.
    ///
    /// # Errors
    /// An input of another kind.
    pub fn take_as<T: std::any::Any + Send + Sync>(
        &mut self,
        name: &str,
        kind: crate::kind::DataKind,
    ) -> Result<Option<Arc<T>>, NodeError> {
        let wrong = |found: crate::kind::DataKind| {
            NodeError::Failed(format!(
                "input `{name}` carries {}, expected {}",
                found.name(),
                kind.name()
            ))
        };
        match self.take(name) {
            None => Ok(None),
            Some(v) if v.kind() != kind => Err(wrong(v.kind())),
            Some(v) => v.into_shared().map(Some).map_err(|v| wrong(v.kind())),
        }
    }
}
