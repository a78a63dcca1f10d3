//! The bodies of the node suite's exported C functions. Each runs inside `catch_unwind`
//! ([`crate::ffi::guarded`]), so a panicking node returns `STATUS_PANIC` with its message
//! instead of unwinding into the host.

use super::{Context, Direction, NodeInstance, NodeIo, NodeKind, NodePlugin};
use crate::ffi::{create_boxed, guarded, instance, param_desc, resolved_params, Hosted, Lifecycle};
use crate::services::with_services;
use crate::{SolveError, StateReader, StateWriter};
use flip_abi::node::{self as abi, NodeContext, NodeKindDesc, PortData, PortDesc};
use flip_abi::{ErrorBuf, HostServices, ParamDesc, ParamValue};
use std::ffi::{c_char, c_void, CString};
use std::panic::catch_unwind;
use std::sync::OnceLock;

/// NUL-terminated copies of a plugin's node descriptions, built once, kept for the library's
/// life.
pub struct NodeDescriptions {
    _strings: Vec<CString>,
    _choice_lists: Vec<Vec<*const c_char>>,
    _ports: Vec<Vec<PortDesc>>,
    _params: Vec<Vec<ParamDesc>>,
    kinds: Vec<NodeKindDesc>,
}
// SAFETY: built once, never mutated; the raw pointers point into the owned vectors above.
unsafe impl Send for NodeDescriptions {}
// SAFETY: as above.
unsafe impl Sync for NodeDescriptions {}

fn build<P: NodePlugin>() -> NodeDescriptions {
    let mut strings = Vec::new();
    let mut cstr = |s: &str| {
        let c = CString::new(s.replace('\0', " ")).expect("NULs were replaced");
        let p = c.as_ptr();
        strings.push(c);
        p
    };
    let (mut choice_lists, mut all_ports, mut all_params, mut kinds) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for kind in P::KINDS {
        let ports: Vec<PortDesc> = kind
            .ports
            .iter()
            .map(|p| PortDesc {
                name: cstr(p.name),
                help: cstr(p.help),
                direction: match p.direction {
                    Direction::Input => abi::PORT_INPUT,
                    Direction::Output => abi::PORT_OUTPUT,
                },
                data_kind: p.kind.tag(),
                flags: p.flags,
            })
            .collect();
        let mut params = Vec::with_capacity(kind.params.len());
        for p in kind.params {
            let (desc, choices) = param_desc(p, &mut cstr);
            choice_lists.push(choices);
            params.push(desc);
        }
        let or_null = |n: usize, p| if n == 0 { std::ptr::null() } else { p };
        kinds.push(NodeKindDesc {
            name: cstr(kind.name),
            label: cstr(kind.label),
            category: cstr(kind.category),
            help: cstr(kind.help),
            ports: or_null(ports.len(), ports.as_ptr()),
            port_count: ports.len() as u32,
            params: if params.is_empty() {
                std::ptr::null()
            } else {
                params.as_ptr()
            },
            param_count: params.len() as u32,
            acceleration_hint: kind.acceleration_hint,
        });
        all_ports.push(ports);
        all_params.push(params);
    }
    NodeDescriptions {
        _strings: strings,
        _choice_lists: choice_lists,
        _ports: all_ports,
        _params: all_params,
        kinds,
    }
}

/// What a node instance handle points to.
struct Instance {
    node: Box<dyn NodeInstance>,
    kind: &'static NodeKind,
    pending_state: Option<Vec<u8>>,
}

impl Hosted for Instance {
    fn name(&self) -> &'static str {
        self.kind.name
    }

    fn pending_state(&mut self) -> &mut Option<Vec<u8>> {
        &mut self.pending_state
    }

    fn reset(&mut self) {
        self.node.reset();
    }

    fn save(&self, out: &mut StateWriter) -> Result<(), SolveError> {
        self.node.save_state(out);
        Ok(())
    }

    fn load(&mut self, state: &mut StateReader<'_>) -> Result<(), SolveError> {
        self.node.load_state(state)
    }
}

/// `reset`, the state calls and `destroy` of a node instance.
pub const NODE: Lifecycle = Lifecycle::of::<Instance>();

/// Body of `describe`.
///
/// # Safety
/// `out` is null or writable for one [`NodeKindDesc`].
pub unsafe fn describe<P: NodePlugin>(
    cache: &OnceLock<NodeDescriptions>,
    index: u32,
    out: *mut NodeKindDesc,
) -> i32 {
    let result = catch_unwind(|| {
        let descs = cache.get_or_init(build::<P>);
        match descs.kinds.get(index as usize) {
            Some(d) if !out.is_null() => {
                // SAFETY: non-null, writable (the caller's contract).
                unsafe { out.write(NodeKindDesc { ..*d }) };
                flip_abi::STATUS_OK
            }
            _ => flip_abi::STATUS_BAD_VALUE,
        }
    });
    result.unwrap_or(flip_abi::STATUS_PANIC)
}

/// Body of `create`.
///
/// # Safety
/// The ABI's `create` contract.
pub unsafe fn create<P: NodePlugin>(
    index: u32,
    params: *const ParamValue,
    count: u32,
    services: *const HostServices,
    instance: *mut *mut c_void,
    error: *mut ErrorBuf,
) -> i32 {
    let make = || {
        let kind = P::KINDS
            .get(index as usize)
            .ok_or_else(|| SolveError::BadValue(format!("no node kind #{index}")))?;
        // SAFETY: the caller's contract.
        let resolved = unsafe { resolved_params(kind.params, params, count)? };
        Ok(Instance {
            node: P::create(kind, &resolved)?,
            kind,
            pending_state: None,
        })
    };
    // SAFETY: the caller's contract.
    unsafe { create_boxed(services, instance, error, make) }
}

/// Body of `eval`.
///
/// # Safety
/// The ABI's `eval` contract.
pub unsafe extern "C" fn eval(
    instance_ptr: *mut c_void,
    context: *const NodeContext,
    ports: *const PortData,
    port_count: u32,
    services: *const HostServices,
    error: *mut ErrorBuf,
) -> i32 {
    guarded(error, || {
        // SAFETY: the caller's contract.
        let inst = unsafe { instance::<Instance>(instance_ptr)? };
        if context.is_null() || (ports.is_null() && port_count > 0) {
            return Err(SolveError::BadValue("null context or ports".into()));
        }
        if port_count as usize != inst.kind.ports.len() {
            return Err(SolveError::BadValue(format!(
                "{port_count} ports passed, the kind declares {}",
                inst.kind.ports.len()
            )));
        }
        // SAFETY: valid for reads during the call (the caller's contract).
        let ctx = Context::from_abi(unsafe { &*context });
        let ports: &[PortData] = if port_count == 0 {
            &[]
        } else {
            // SAFETY: `port_count` entries, valid during the call.
            unsafe { std::slice::from_raw_parts(ports, port_count as usize) }
        };
        // SAFETY: the caller's contract on every port's arrays.
        let mut io = unsafe { NodeIo::new(inst.kind, ports) };
        let node = &mut inst.node;
        // SAFETY: `services` is the host's table for this call.
        unsafe { with_services(services, || node.eval(&ctx, &mut io)) }
    })
}
