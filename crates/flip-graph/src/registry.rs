use crate::node::{Node, NodeError, NodeInit};
use crate::spec::{NodeSpec, ParamSpec};
use crate::step::StateSlot;
use crate::value::ParamMap;
use std::collections::HashMap;

/// Builds a node instance from validated parameters.
pub type NodeFactory = Box<dyn Fn(&NodeInit<'_>) -> Result<Box<dyn Node>, NodeError> + Send + Sync>;
/// Parameters that depend on other parameters (the solver node's algorithm parameters).
pub type DynamicParams = Box<dyn Fn(&ParamMap) -> Result<Vec<ParamSpec>, BoxError> + Send + Sync>;
/// A kind's cheap check of a node's parameters: no file read, no work or allocation that grows
/// with a number in the graph (node creation may do both).
pub type NodeCheck = Box<dyn Fn(&NodeInit<'_>) -> Result<(), NodeError> + Send + Sync>;
/// Why a kind's dynamic parameters cannot be listed: the kind's own typed error.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A registered node kind: its spec and how to instantiate it.
pub struct NodeKind {
    /// Ports and parameters.
    pub spec: NodeSpec,
    factory: NodeFactory,
    dynamic_params: Option<DynamicParams>,
    check: Option<NodeCheck>,
}

impl NodeKind {
    /// A kind with a fixed parameter list.
    pub fn new(spec: NodeSpec, factory: NodeFactory) -> Self {
        Self {
            spec,
            factory,
            dynamic_params: None,
            check: None,
        }
    }

    /// Adds a cheap check, run for every node of a graph before any node is created, so a
    /// graph is refused before its costly node creations (meshes prepared for its grid).
    pub fn with_check(mut self, check: NodeCheck) -> Self {
        self.check = Some(check);
        self
    }

    /// Runs the cheap check (none: fine).
    ///
    /// # Errors
    /// What the check refuses.
    pub fn check(&self, init: &NodeInit<'_>) -> Result<(), NodeError> {
        self.check.as_ref().map_or(Ok(()), |c| c(init))
    }

    /// Adds parameters computed from the other parameters' values.
    pub fn with_dynamic_params(mut self, params: DynamicParams) -> Self {
        self.dynamic_params = Some(params);
        self
    }

    /// All parameters for a node with these values: the fixed ones, then the dynamic ones.
    ///
    /// # Errors
    /// The dynamic part's error (e.g. an unknown solver).
    pub fn params_for(&self, values: &ParamMap) -> Result<Vec<ParamSpec>, BoxError> {
        let mut all = self.spec.params.clone();
        if let Some(dynamic) = &self.dynamic_params {
            all.extend(dynamic(values)?);
        }
        Ok(all)
    }

    /// Creates an instance.
    ///
    /// # Errors
    /// The factory's message.
    pub fn instantiate(&self, init: &NodeInit<'_>) -> Result<Box<dyn Node>, NodeError> {
        (self.factory)(init)
    }
}

/// A set of node kinds registered together (Bevy-style plugin group).
pub trait NodePack {
    /// Registers the pack's kinds.
    ///
    /// # Errors
    /// A duplicate kind id.
    fn register(&self, registry: &mut NodeRegistry) -> Result<(), RegistryError>;
    /// Name for diagnostics.
    fn name(&self) -> &str {
        std::any::type_name::<Self>()
    }
}

/// A registry refusal.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    /// Two kinds with one id.
    #[error("node kind `{0}` is registered twice")]
    DuplicateId(String),
}

/// Every node kind known to this session: the single source for the CLI's `nodes` listing, the
/// editor palette and graph validation.
pub struct NodeRegistry {
    kinds: Vec<NodeKind>,
    index: HashMap<String, usize>,
    state: Vec<StateSlot>,
}

impl NodeRegistry {
    /// A registry holding only the step-state pair, which carries `state` from one step to
    /// the next.
    pub fn with_state(state: Vec<StateSlot>) -> Self {
        let mut r = Self {
            kinds: Vec::new(),
            index: HashMap::new(),
            state,
        };
        for kind in crate::step::kinds(&r.state) {
            r.register(kind).expect("step kinds are registered first");
        }
        r
    }

    /// The values carried from one step to the next.
    pub fn state(&self) -> &[StateSlot] {
        &self.state
    }

    /// Adds a kind.
    ///
    /// # Errors
    /// [`RegistryError::DuplicateId`]; nothing is replaced silently.
    pub fn register(&mut self, kind: NodeKind) -> Result<(), RegistryError> {
        if self.index.contains_key(&kind.spec.kind) {
            return Err(RegistryError::DuplicateId(kind.spec.kind.clone()));
        }
        self.index.insert(kind.spec.kind.clone(), self.kinds.len());
        self.kinds.push(kind);
        Ok(())
    }

    /// Adds a pack.
    ///
    /// # Errors
    /// A duplicate kind id.
    pub fn add_pack(&mut self, pack: &dyn NodePack) -> Result<&mut Self, RegistryError> {
        pack.register(self)?;
        Ok(self)
    }

    /// The kind with this id.
    pub fn get(&self, kind: &str) -> Option<&NodeKind> {
        self.index.get(kind).map(|&i| &self.kinds[i])
    }

    /// All kinds in registration order.
    pub fn kinds(&self) -> impl Iterator<Item = &NodeKind> {
        self.kinds.iter()
    }
}
