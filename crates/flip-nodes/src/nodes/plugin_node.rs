//! Node kinds from node plugins (`flip_abi::node`): each kind a loaded plugin offers becomes a
//! registry kind named `<plugin id>/<kind name>`, whose instances lend the graph's values to
//! the plugin's `eval` as the host's buffers ([`flip_host::PortRef`]) and put the outputs back
//! on the edges. Outputs that start from their input modify that value in place (copied only
//! while another node still shares it, like the built-in nodes).

mod buffers;

use super::pressure::params::{
    isolated, isolation_spec, plugin_param_specs, plugin_param_values, time_limit, time_limit_spec,
};
use crate::kinds::{CELLS, LEVEL_SET, PARTICLES, SCALAR, SOLIDS, VELOCITY};
use flip_abi::node as abi;
use flip_graph::{
    DataKind, EvalCtx, Node, NodeError, NodeIo, NodeKind, NodeSpec, NodeState, PortSpec,
};
use flip_host::{ChildCommand, LoadedNodePlugin, NodeInstance, NodeKindInfo};
use std::path::PathBuf;
use std::sync::Arc;

/// Where a plugin node kind comes from, attached to its spec (`flipgraph nodes` lists the
/// library and its hash).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PluginSource {
    /// Plugin id.
    pub plugin: String,
    /// The library file.
    pub library: PathBuf,
    /// Its SHA-256.
    pub sha256: String,
    /// Plugin version.
    pub version: String,
}

/// The graph's data kind of an ABI data-kind tag.
pub fn data_kind(tag: u32) -> Option<DataKind> {
    Some(match tag {
        abi::DATA_PARTICLES => PARTICLES,
        abi::DATA_FACE_VELOCITY => VELOCITY,
        abi::DATA_CELL_SCALAR => SCALAR,
        abi::DATA_LEVEL_SET => LEVEL_SET,
        abi::DATA_CELL_KINDS => CELLS,
        abi::DATA_SOLIDS_SDF => SOLIDS,
        _ => return None,
    })
}

/// The plugin node's own parameters after the plugin's: `isolation` and `time_limit`.
fn isolation_specs() -> [flip_graph::ParamSpec; 2] {
    [
        isolation_spec(
            "none: the node runs in this process; process: in a child process on shared \
             memory, so a crash, exit or hang of the plugin stops the run with a clear error \
             and the host keeps running",
        ),
        time_limit_spec(
            "with isolation = process: wall-clock limit per evaluation, 0 = none: past it the \
             node is told to stop, and a node still running at twice the limit is killed",
        ),
    ]
}

/// The registry kind of a plugin's node kind; `child` starts the child of an isolated
/// instance (None: this program offers no process isolation).
pub fn kind(
    plugin: Arc<LoadedNodePlugin>,
    info: &NodeKindInfo,
    child: Option<ChildCommand>,
) -> NodeKind {
    let port = |p: &flip_host::PortInfo| {
        let kind = data_kind(p.data_kind).expect("data kinds are checked at load");
        if p.optional {
            PortSpec::optional(&p.name, kind, &p.help)
        } else {
            PortSpec::new(&p.name, kind, &p.help)
        }
    };
    let spec = NodeSpec::new(
        &info.qualified(),
        &info.label,
        &info.category,
        &info.help,
        info.ports.iter().filter(|p| p.input).map(port).collect(),
        info.ports.iter().filter(|p| !p.input).map(port).collect(),
        plugin_param_specs(&info.params)
            .into_iter()
            .chain(isolation_specs())
            .collect(),
    )
    .with(PluginSource {
        plugin: plugin.id.clone(),
        library: plugin.path.clone(),
        sha256: plugin.sha256.clone(),
        version: plugin.version.clone(),
    });
    let name = info.name.clone();
    NodeKind::new(
        spec,
        Box::new(move |init| {
            let kind = plugin.kind(&name).expect("registered from this plugin");
            let values =
                plugin_param_values(&kind.params, init.params).map_err(NodeError::Failed)?;
            let instance = if isolated(init.params) {
                let Some(cmd) = &child else {
                    let why = "\"process\" is not offered by this program (it cannot start a \
                        child process); use \"none\"";
                    return Err(NodeError::param("isolation", why));
                };
                let mut instance =
                    NodeInstance::create_isolated(plugin.clone(), &name, &values, cmd)
                        .map_err(NodeError::other)?;
                instance.set_time_limit(time_limit(&crate::params::Params(init.params))?);
                instance
            } else {
                NodeInstance::create(plugin.clone(), &name, &values).map_err(NodeError::other)?
            };
            Ok(Box::new(PluginNode { instance }))
        }),
    )
}

/// An instance of a plugin node kind.
struct PluginNode {
    instance: NodeInstance,
}

impl Node for PluginNode {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let kind = self.instance.kind().clone();
        let mut held = buffers::take(&kind, io, &ctx.grid)?;
        let context = abi::NodeContext {
            dims: ctx.grid.dims().map(|d| d as u32),
            dimension: ctx.grid.dimension() as u32,
            dx: ctx.grid.dx,
            dt: ctx.dt,
            time: ctx.time,
            step: ctx.step,
            frame: ctx.frame,
            reserved: 0,
        };
        let grid = ctx.grid.dims();
        let mut ports: Vec<_> = held.iter_mut().map(|h| h.port(grid)).collect();
        let cancel = Some(flip_host::CancelToken::from(ctx.cancel.clone()));
        let result = self.instance.eval(&context, &mut ports, cancel);
        drop(ports);
        result.map_err(NodeError::other)?;
        for (info, h) in kind.ports.iter().zip(held) {
            if let (false, Some(value)) = (info.input, h.into_value()) {
                io.set(&info.name, value);
            }
        }
        Ok(())
    }

    fn reset(&mut self) {
        // A failing reset poisons or reports on the next eval, which names the plugin.
        let _ = self.instance.reset();
    }

    fn save_state(&mut self) -> Result<NodeState, NodeError> {
        match self.instance.save_state().map_err(NodeError::other)? {
            Some(bytes) => Ok(NodeState {
                bytes,
                incomplete: None,
            }),
            None => Ok(NodeState {
                bytes: Vec::new(),
                incomplete: Some(format!(
                    "node plugin `{}` saves no state; a resumed run re-creates its node",
                    self.instance.plugin().id
                )),
            }),
        }
    }

    fn load_state(&mut self, state: &[u8]) -> Result<(), NodeError> {
        self.instance.load_state(state).map_err(NodeError::other)
    }

    fn acceleration_hint(&self) -> f32 {
        self.instance.kind().acceleration_hint as f32
    }
}
