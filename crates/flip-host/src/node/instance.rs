//! A node plugin's instance, in this process or isolated in a child ([`super::remote`]):
//! `create`, `eval` over the host's buffers with the ports checked before the call and the
//! outputs after it, `reset`, saved state, `destroy`.

use super::guard;
use super::load::{LoadedNodePlugin, NodeKindInfo};
use crate::in_flight::InFlight;
use crate::instance::{call_create, message, Buf};
use crate::isolation::wire::{Answer, Request};
use crate::isolation::ChildSolver;
use crate::services::{CallContext, CancelToken};
use crate::PluginError;
use flip_abi::node::{
    self as abi, CellFieldView, CellKindsView, FaceVelocityView, NodeContext, ParticlesView,
    PortData, PortViewUnion,
};
use flip_abi::{STATUS_OK, STATUS_PANIC};
use std::ffi::c_void;
use std::sync::Arc;
use std::time::Duration;

/// The host's buffer behind one port of an `eval` call, in declaration order. Inputs are
/// shared slices (the plugin reads them only), outputs mutable ones; ids stay read-only.
///
/// Each written output array may come with a `guard`: bytes of the same allocation right
/// after the array (empty: none), which the host fills with [`guard::CANARY`] before the call
/// and checks after it, so a node writing past the end of the view fails the run instead of
/// corrupting memory unseen. A non-empty guard that does not start where its array ends is
/// refused.
#[derive(Debug)]
pub enum PortRef<'a> {
    /// An unconnected optional input.
    Absent,
    /// Particles read.
    Particles {
        /// Positions.
        position: &'a [[f32; 3]],
        /// Velocities.
        velocity: &'a [[f32; 3]],
        /// Ids (empty when none).
        ids: &'a [u64],
    },
    /// Particles written in place.
    ParticlesMut {
        /// Positions.
        position: &'a mut [[f32; 3]],
        /// Velocities.
        velocity: &'a mut [[f32; 3]],
        /// Ids (empty when none); the host checks the plugin left them alone.
        ids: &'a [u64],
        /// Guards after the positions and the velocities.
        guards: [&'a mut [u8]; 2],
    },
    /// A face velocity read.
    Velocity {
        /// Cells per axis.
        dims: [usize; 3],
        /// u, v, w.
        components: [&'a [f32]; 3],
        /// Valid-face masks.
        valid: [&'a [u8]; 3],
    },
    /// A face velocity written.
    VelocityMut {
        /// Cells per axis.
        dims: [usize; 3],
        /// u, v, w.
        components: [&'a mut [f32]; 3],
        /// Valid-face masks.
        valid: [&'a [u8]; 3],
        /// Guards after u, v, w.
        guards: [&'a mut [u8]; 3],
    },
    /// A cell field read (scalar, level set, solid distance).
    Field {
        /// Cells per axis.
        dims: [usize; 3],
        /// Values.
        data: &'a [f32],
    },
    /// A cell field written.
    FieldMut {
        /// Cells per axis.
        dims: [usize; 3],
        /// Values.
        data: &'a mut [f32],
        /// Guard after the values.
        guard: &'a mut [u8],
    },
    /// Cell kinds read.
    Cells {
        /// Cells per axis.
        dims: [usize; 3],
        /// Kinds.
        data: &'a [u8],
    },
    /// Cell kinds written.
    CellsMut {
        /// Cells per axis.
        dims: [usize; 3],
        /// Kinds.
        data: &'a mut [u8],
        /// Guard after the kinds.
        guard: &'a mut [u8],
    },
}

impl PortRef<'_> {
    /// Each written array's bytes (start, length) with its guard.
    fn guarded(&mut self) -> Vec<(*const u8, usize, &mut [u8])> {
        match self {
            PortRef::ParticlesMut {
                position,
                velocity,
                guards: [gp, gv],
                ..
            } => vec![
                (position.as_ptr().cast(), 12 * position.len(), &mut **gp),
                (velocity.as_ptr().cast(), 12 * velocity.len(), &mut **gv),
            ],
            PortRef::VelocityMut {
                components, guards, ..
            } => components
                .iter()
                .zip(guards.iter_mut())
                .map(|(c, g)| (c.as_ptr().cast::<u8>(), 4 * c.len(), &mut **g))
                .collect(),
            PortRef::FieldMut { data, guard, .. } => {
                vec![(data.as_ptr().cast(), 4 * data.len(), &mut **guard)]
            }
            PortRef::CellsMut { data, guard, .. } => {
                vec![(data.as_ptr(), data.len(), &mut **guard)]
            }
            _ => Vec::new(),
        }
    }
}

/// Where the plugin's instance lives.
pub(super) enum Backend {
    /// In this process: the plugin's handle.
    Local(*mut c_void),
    /// In a child process ([`NodeInstance::create_isolated`]).
    Child(Box<ChildSolver>),
}

/// A live instance of a plugin node kind, in this process or isolated in a child process.
pub struct NodeInstance {
    pub(super) plugin: Arc<LoadedNodePlugin>,
    pub(super) kind: NodeKindInfo,
    pub(super) backend: Backend,
    /// Set after a panic: nothing is called on the instance again.
    pub(super) poisoned: bool,
    /// Wall-clock limit of an isolated `eval` ([`NodeInstance::set_time_limit`]).
    pub(super) time_limit: Option<Duration>,
}

// SAFETY: the ABI requires instances to be usable from any thread, one at a time; `&mut self`
// on every call keeps it to one.
unsafe impl Send for NodeInstance {}

/// Fills the guards of every output with the canary; refuses a guard that does not follow its
/// array.
fn arm_guards(kind: &NodeKindInfo, ports: &mut [PortRef<'_>]) -> Result<(), String> {
    for (info, port) in kind.ports.iter().zip(ports.iter_mut()) {
        for (data, bytes, g) in port.guarded() {
            if !guard::follows(data, bytes, g) {
                return Err(format!(
                    "port `{}` was given a guard that does not follow its array",
                    info.name
                ));
            }
            guard::fill(g);
        }
    }
    Ok(())
}

/// Whether every output's guards still hold the canary after `eval`.
fn guards_intact(kind: &NodeKindInfo, ports: &mut [PortRef<'_>]) -> Result<(), String> {
    for (info, port) in kind.ports.iter().zip(ports.iter_mut()) {
        if port.guarded().iter().any(|(_, _, g)| !guard::intact(g)) {
            return Err(guard::overrun(&info.name));
        }
    }
    Ok(())
}

fn u32_dims(d: [usize; 3]) -> [u32; 3] {
    d.map(|x| x as u32)
}

fn cells(d: [usize; 3]) -> usize {
    d.iter().product()
}

fn faces(d: [usize; 3], axis: usize) -> usize {
    let mut f = d;
    f[axis] += 1;
    cells(f)
}

/// FNV-1a over ids: detects a plugin writing through the read-only id view.
fn id_digest(ids: &[u64]) -> u64 {
    ids.iter().fold(0xcbf2_9ce4_8422_2325, |h, &id| {
        (h ^ id).wrapping_mul(0x0100_0000_01b3)
    })
}

impl NodeInstance {
    /// Creates an instance of `kind` (bare name) of `plugin` with `params` (validated by the
    /// graph against the kind's schema, encoded as the ABI's f64s).
    ///
    /// # Errors
    /// [`PluginError::NodeCall`] with the plugin's message.
    pub fn create(
        plugin: Arc<LoadedNodePlugin>,
        kind: &str,
        params: &[(String, f64)],
    ) -> Result<Self, PluginError> {
        let info = plugin
            .kind(kind)
            .cloned()
            .ok_or_else(|| PluginError::UnknownAlgorithm(format!("{}/{kind}", plugin.id)))?;
        let ctx = CallContext::new(None, None);
        let create = plugin.table().create.expect("checked at load");
        let what = format!("plugin `{}` node `{}`: `create`", plugin.id, info.name);
        let handle = call_create(create, info.index, params, what, &plugin.path, &ctx).map_err(
            |(status, message)| PluginError::NodeCall {
                plugin: plugin.id.clone(),
                node: info.name.clone(),
                status,
                message,
            },
        )?;
        Ok(Self {
            plugin,
            kind: info,
            backend: Backend::Local(handle),
            poisoned: false,
            time_limit: None,
        })
    }

    /// The kind's description.
    pub fn kind(&self) -> &NodeKindInfo {
        &self.kind
    }

    /// The plugin.
    pub fn plugin(&self) -> &Arc<LoadedNodePlugin> {
        &self.plugin
    }

    /// Whether the instance lives in a child process.
    pub fn is_isolated(&self) -> bool {
        matches!(self.backend, Backend::Child(_))
    }

    /// The wall-clock limit of each `eval` of an isolated instance: past it the node is asked
    /// to stop (the cancel service), and a child still running at twice the limit plus a second
    /// is killed. An instance in this process cannot be stopped and ignores it.
    pub fn set_time_limit(&mut self, limit: Option<Duration>) {
        self.time_limit = limit;
    }

    pub(super) fn fail(&self, status: i32, message: String) -> PluginError {
        PluginError::NodeCall {
            plugin: self.plugin.id.clone(),
            node: self.kind.name.clone(),
            status,
            message,
        }
    }

    pub(super) fn ports_error(&self, message: String) -> PluginError {
        PluginError::NodeOutput {
            plugin: self.plugin.id.clone(),
            node: self.kind.name.clone(),
            message,
        }
    }

    fn usable(&self) -> Result<(), PluginError> {
        if self.poisoned {
            return Err(self.fail(
                STATUS_PANIC,
                "the node panicked earlier; it is not called again".into(),
            ));
        }
        Ok(())
    }

    /// Evaluates one substep over `ports` (one per declared port, in order), then checks the
    /// outputs: finite floats, valid cell kinds, particle ids untouched, and (isolated) the
    /// guards after the output views.
    ///
    /// # Errors
    /// [`PluginError::NodeCall`] (the plugin's status and message; a panic poisons the
    /// instance), [`PluginError::NodeOutput`] (ports that do not match the kind, or an output
    /// that fails a check), [`PluginError::NodeIsolated`] (the child crashed, exited or hung).
    pub fn eval(
        &mut self,
        ctx: &NodeContext,
        ports: &mut [PortRef<'_>],
        cancel: Option<CancelToken>,
    ) -> Result<(), PluginError> {
        let data = self.prepare(ctx, ports)?;
        let digests: Vec<u64> = ports
            .iter()
            .map(|p| match p {
                PortRef::ParticlesMut { ids, .. } => id_digest(ids),
                _ => 0,
            })
            .collect();
        match self.backend {
            Backend::Local(handle) => self.call_eval(handle, ctx, &data, cancel)?,
            Backend::Child(_) => {
                drop(data);
                self.remote_eval(ctx, ports, cancel)?;
            }
        }
        guards_intact(&self.kind, ports).map_err(|m| self.ports_error(m))?;
        self.check_outputs(ports, &digests)
            .map_err(|m| self.ports_error(m))
    }

    /// Before a call: the instance usable, the guards armed, the ports checked against the
    /// kind and viewed as the ABI's records.
    fn prepare(
        &self,
        ctx: &NodeContext,
        ports: &mut [PortRef<'_>],
    ) -> Result<Vec<PortData>, PluginError> {
        self.usable()?;
        arm_guards(&self.kind, ports).map_err(|m| self.ports_error(m))?;
        self.port_data(ctx.dims.map(|d| d as usize), ports)
            .map_err(|m| self.ports_error(m))
    }

    /// `eval` in this process without the checks after it (the isolated node's child: the
    /// host checks).
    pub(crate) fn eval_unchecked(
        &mut self,
        ctx: &NodeContext,
        ports: &mut [PortRef<'_>],
        cancel: Option<CancelToken>,
    ) -> Result<(), PluginError> {
        let data = self.prepare(ctx, ports)?;
        let Backend::Local(handle) = self.backend else {
            unreachable!("the child's instances are local");
        };
        self.call_eval(handle, ctx, &data, cancel)
    }

    /// Calls the plugin's `eval` in this process over `data`.
    fn call_eval(
        &mut self,
        handle: *mut c_void,
        ctx: &NodeContext,
        data: &[PortData],
        cancel: Option<CancelToken>,
    ) -> Result<(), PluginError> {
        let call = CallContext::new(cancel, None);
        let services = call.services();
        let mut buf = Buf::new();
        let eval = self.plugin.table().eval.expect("checked at load");
        let what = format!(
            "plugin `{}` node `{}`: `eval`",
            self.plugin.id, self.kind.name
        );
        let in_flight = InFlight::enter(what, &self.plugin.path);
        // SAFETY: `data` views the buffers of the caller's ports, which are borrowed for this
        // call and have the lengths the ABI documents (checked by `port_data`); inputs are
        // shared and outputs exclusive borrows; `ctx` and `services` outlive the call.
        let status = unsafe {
            eval(
                handle,
                ctx,
                data.as_ptr(),
                data.len() as u32,
                services.table(),
                &mut buf.raw(),
            )
        };
        drop((in_flight, services));
        if status == STATUS_PANIC {
            self.poisoned = true;
        }
        if status != STATUS_OK {
            return Err(self.fail(status, message(&buf.0)));
        }
        if let Some(message) = call.refusals() {
            return Err(self.fail(flip_abi::STATUS_BAD_VALUE, message));
        }
        Ok(())
    }

    /// The ABI's view of every port, checked against the kind's declaration and the grid.
    fn port_data(
        &self,
        dims: [usize; 3],
        ports: &mut [PortRef<'_>],
    ) -> Result<Vec<PortData>, String> {
        if ports.len() != self.kind.ports.len() {
            return Err(format!(
                "{} ports given, the kind declares {}",
                ports.len(),
                self.kind.ports.len()
            ));
        }
        let mut out = Vec::with_capacity(ports.len());
        for (info, port) in self.kind.ports.iter().zip(ports.iter_mut()) {
            let name = &info.name;
            let grid = |d: [usize; 3]| {
                if d == dims {
                    Ok(())
                } else {
                    Err(format!(
                        "port `{name}` is on {d:?} cells, the grid on {dims:?}"
                    ))
                }
            };
            let len = |got: usize, want: usize| {
                if got == want {
                    Ok(())
                } else {
                    Err(format!("port `{name}` has {got} values, expected {want}"))
                }
            };
            let (kind, writable, view) = match port {
                PortRef::Absent
                    if info.input && (info.optional || self.kind.feeds_output(info)) =>
                {
                    out.push(PortData {
                        data_kind: info.data_kind,
                        present: 0,
                        // SAFETY: plain data; all-zero is a valid (null) view.
                        view: unsafe { std::mem::zeroed() },
                    });
                    continue;
                }
                PortRef::Absent => return Err(format!("port `{name}` has no value")),
                PortRef::Particles {
                    position,
                    velocity,
                    ids,
                } => {
                    len(velocity.len(), position.len())?;
                    if !ids.is_empty() {
                        len(ids.len(), position.len())?;
                    }
                    let v = ParticlesView {
                        count: position.len() as u64,
                        position: position.as_ptr().cast::<f32>().cast_mut(),
                        velocity: velocity.as_ptr().cast::<f32>().cast_mut(),
                        ids: if ids.is_empty() {
                            std::ptr::null()
                        } else {
                            ids.as_ptr()
                        },
                    };
                    (abi::DATA_PARTICLES, false, PortViewUnion { particles: v })
                }
                PortRef::ParticlesMut {
                    position,
                    velocity,
                    ids,
                    ..
                } => {
                    len(velocity.len(), position.len())?;
                    if !ids.is_empty() {
                        len(ids.len(), position.len())?;
                    }
                    let v = ParticlesView {
                        count: position.len() as u64,
                        position: position.as_mut_ptr().cast::<f32>(),
                        velocity: velocity.as_mut_ptr().cast::<f32>(),
                        ids: if ids.is_empty() {
                            std::ptr::null()
                        } else {
                            ids.as_ptr()
                        },
                    };
                    (abi::DATA_PARTICLES, true, PortViewUnion { particles: v })
                }
                PortRef::Velocity {
                    dims: d,
                    components,
                    valid,
                } => {
                    grid(*d)?;
                    for a in 0..3 {
                        len(components[a].len(), faces(*d, a))?;
                        len(valid[a].len(), faces(*d, a))?;
                    }
                    let v = FaceVelocityView {
                        dims: u32_dims(*d),
                        u: components[0].as_ptr().cast_mut(),
                        v: components[1].as_ptr().cast_mut(),
                        w: components[2].as_ptr().cast_mut(),
                        valid_u: valid[0].as_ptr(),
                        valid_v: valid[1].as_ptr(),
                        valid_w: valid[2].as_ptr(),
                    };
                    (
                        abi::DATA_FACE_VELOCITY,
                        false,
                        PortViewUnion { velocity: v },
                    )
                }
                PortRef::VelocityMut {
                    dims: d,
                    components,
                    valid,
                    ..
                } => {
                    grid(*d)?;
                    for a in 0..3 {
                        len(components[a].len(), faces(*d, a))?;
                        len(valid[a].len(), faces(*d, a))?;
                    }
                    let [u, v, w] = components;
                    let view = FaceVelocityView {
                        dims: u32_dims(*d),
                        u: u.as_mut_ptr(),
                        v: v.as_mut_ptr(),
                        w: w.as_mut_ptr(),
                        valid_u: valid[0].as_ptr(),
                        valid_v: valid[1].as_ptr(),
                        valid_w: valid[2].as_ptr(),
                    };
                    (
                        abi::DATA_FACE_VELOCITY,
                        true,
                        PortViewUnion { velocity: view },
                    )
                }
                PortRef::Field { dims: d, data } => {
                    grid(*d)?;
                    len(data.len(), cells(*d))?;
                    let v = CellFieldView {
                        dims: u32_dims(*d),
                        data: data.as_ptr().cast_mut(),
                    };
                    (info.data_kind, false, PortViewUnion { field: v })
                }
                PortRef::FieldMut { dims: d, data, .. } => {
                    grid(*d)?;
                    len(data.len(), cells(*d))?;
                    let v = CellFieldView {
                        dims: u32_dims(*d),
                        data: data.as_mut_ptr(),
                    };
                    (info.data_kind, true, PortViewUnion { field: v })
                }
                PortRef::Cells { dims: d, data } => {
                    grid(*d)?;
                    len(data.len(), cells(*d))?;
                    let v = CellKindsView {
                        dims: u32_dims(*d),
                        data: data.as_ptr().cast_mut(),
                    };
                    (abi::DATA_CELL_KINDS, false, PortViewUnion { cells: v })
                }
                PortRef::CellsMut { dims: d, data, .. } => {
                    grid(*d)?;
                    len(data.len(), cells(*d))?;
                    let v = CellKindsView {
                        dims: u32_dims(*d),
                        data: data.as_mut_ptr(),
                    };
                    (abi::DATA_CELL_KINDS, true, PortViewUnion { cells: v })
                }
            };
            let is_field = matches!(
                info.data_kind,
                abi::DATA_CELL_SCALAR | abi::DATA_LEVEL_SET | abi::DATA_SOLIDS_SDF
            );
            let kind_matches = kind == info.data_kind
                || (is_field && matches!(port, PortRef::Field { .. } | PortRef::FieldMut { .. }));
            if !kind_matches || writable == info.input {
                return Err(format!(
                    "port `{name}` was given a buffer of another kind or direction"
                ));
            }
            out.push(PortData {
                data_kind: info.data_kind,
                present: 1,
                view,
            });
        }
        Ok(out)
    }

    /// The post-conditions of `eval` the host does not trust the plugin with.
    fn check_outputs(&self, ports: &[PortRef<'_>], digests: &[u64]) -> Result<(), String> {
        let finite =
            |name: &str, what: &str, data: &[f32]| match data.iter().position(|x| !x.is_finite()) {
                None => Ok(()),
                Some(i) => Err(format!(
                    "output `{name}` {what}[{i}] = {} is not finite",
                    data[i]
                )),
            };
        for ((info, port), digest) in self.kind.ports.iter().zip(ports).zip(digests) {
            let name = info.name.as_str();
            match port {
                PortRef::ParticlesMut {
                    position,
                    velocity,
                    ids,
                    ..
                } => {
                    finite(name, "position", position.as_flattened())?;
                    finite(name, "velocity", velocity.as_flattened())?;
                    if id_digest(ids) != *digest {
                        return Err(format!(
                            "output `{name}`: the node changed particle ids (they are read-only)"
                        ));
                    }
                }
                PortRef::VelocityMut { components, .. } => {
                    for (c, axis) in components.iter().zip(["u", "v", "w"]) {
                        finite(name, axis, c)?;
                    }
                }
                PortRef::FieldMut { data, .. } => finite(name, "value", data)?,
                PortRef::CellsMut { data, .. } => {
                    if let Some(i) = data.iter().position(|&c| c > abi::CELL_SOLID) {
                        return Err(format!(
                            "output `{name}` cell {i} has kind {}, not one of fluid, air, solid",
                            data[i]
                        ));
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Forgets what the node carried between steps.
    ///
    /// # Errors
    /// [`PluginError::NodeCall`].
    pub fn reset(&mut self) -> Result<(), PluginError> {
        self.usable()?;
        let handle = match self.backend {
            Backend::Local(handle) => handle,
            Backend::Child(_) => return self.remote_call(&Request::Reset, "reset").map(drop),
        };
        let mut buf = Buf::new();
        let reset = self.plugin.table().reset.expect("checked at load");
        // SAFETY: a live handle of this plugin, used by one thread.
        let status = unsafe { reset(handle, &mut buf.raw()) };
        if status == STATUS_PANIC {
            self.poisoned = true;
        }
        if status != STATUS_OK {
            return Err(self.fail(status, message(&buf.0)));
        }
        Ok(())
    }

    /// The node's saved state; `None` when the plugin has no state entries.
    ///
    /// # Errors
    /// [`PluginError::NodeCall`].
    pub fn save_state(&mut self) -> Result<Option<Vec<u8>>, PluginError> {
        self.usable()?;
        let handle = match self.backend {
            Backend::Local(handle) => handle,
            Backend::Child(_) => {
                return match self.remote_call(&Request::SaveState, "save_state")? {
                    Answer::State(state) => Ok(state),
                    _ => Err(self.protocol("save_state")),
                }
            }
        };
        let t = self.plugin.table();
        let (Some(size_fn), Some(save)) = (t.state_size, t.save_state) else {
            return Ok(None);
        };
        let (mut size, mut buf) = (0u64, Buf::new());
        // SAFETY: a live handle; `size` is writable.
        let status = unsafe { size_fn(handle, &mut size, &mut buf.raw()) };
        if status != STATUS_OK {
            self.poisoned |= status == STATUS_PANIC;
            return Err(self.fail(status, message(&buf.0)));
        }
        if size > 1 << 32 {
            return Err(self.fail(flip_abi::STATUS_BAD_VALUE, format!("state of {size} bytes")));
        }
        let mut data = vec![0u8; size as usize];
        let mut written = 0u64;
        // SAFETY: `data` is writable for `size` bytes.
        let status = unsafe {
            save(
                handle,
                data.as_mut_ptr(),
                size,
                &mut written,
                &mut buf.raw(),
            )
        };
        if status != STATUS_OK || written > size {
            self.poisoned |= status == STATUS_PANIC;
            return Err(self.fail(status, message(&buf.0)));
        }
        data.truncate(written as usize);
        Ok(Some(data))
    }

    /// Restores a state from [`NodeInstance::save_state`].
    ///
    /// # Errors
    /// [`PluginError::NodeCall`], also when the plugin keeps no state but `bytes` is not empty.
    pub fn load_state(&mut self, bytes: &[u8]) -> Result<(), PluginError> {
        self.usable()?;
        let handle = match self.backend {
            Backend::Local(handle) => handle,
            Backend::Child(_) => {
                let req = Request::LoadState(bytes.to_vec());
                return self.remote_call(&req, "load_state").map(drop);
            }
        };
        let Some(load) = self.plugin.table().load_state else {
            if bytes.is_empty() {
                return Ok(());
            }
            return Err(self.fail(
                flip_abi::STATUS_BAD_VALUE,
                "the plugin saves no state".into(),
            ));
        };
        let mut buf = Buf::new();
        // SAFETY: `bytes` is readable for its length during the call.
        let status = unsafe { load(handle, bytes.as_ptr(), bytes.len() as u64, &mut buf.raw()) };
        if status != STATUS_OK {
            self.poisoned |= status == STATUS_PANIC;
            return Err(self.fail(status, message(&buf.0)));
        }
        Ok(())
    }
}

impl Drop for NodeInstance {
    fn drop(&mut self) {
        let Backend::Local(handle) = self.backend else {
            return; // the child destroys its instance when the channel closes
        };
        if self.poisoned {
            return; // the ABI: nothing is called after a panic, not even `destroy`
        }
        let destroy = self.plugin.table().destroy.expect("checked at load");
        // SAFETY: a live handle of this plugin, destroyed once.
        unsafe { destroy(handle) };
    }
}
