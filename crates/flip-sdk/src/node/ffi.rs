//! The bodies of the node suite's exported C functions. Each runs inside `catch_unwind`
//! ([`crate::ffi::guarded`]), so a panicking node returns `STATUS_PANIC` with its message
//! instead of unwinding into the host.

use super::{Context, Direction, NodeInstance, NodeIo, NodeKind, NodePlugin};
use crate::ffi::{guarded, param_desc, resolved_params, state_bytes, write_error, write_state};
use crate::services::with_services;
use crate::{state, SolveError, StateReader, StateWriter};
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
    if instance.is_null() {
        write_error(error, "null instance pointer");
        return flip_abi::STATUS_BAD_VALUE;
    }
    guarded(error, || {
        let body = || {
            let kind = P::KINDS
                .get(index as usize)
                .ok_or_else(|| SolveError::BadValue(format!("no node kind #{index}")))?;
            // SAFETY: the caller's contract.
            let resolved = unsafe { resolved_params(kind.params, params, count)? };
            let node = P::create(kind, &resolved)?;
            let handle = Box::new(Instance {
                node,
                kind,
                pending_state: None,
            });
            // SAFETY: non-null and writable (checked above).
            unsafe { *instance = Box::into_raw(handle).cast::<c_void>() };
            Ok(())
        };
        // SAFETY: the caller's contract: `services` is the host's table for this call.
        unsafe { with_services(services, body) }
    })
}

/// The instance behind a handle.
///
/// # Safety
/// `instance` is null or came from `create` and is not used concurrently.
unsafe fn instance<'a>(instance: *mut c_void) -> Result<&'a mut Instance, SolveError> {
    if instance.is_null() {
        return Err(SolveError::BadValue("null instance".into()));
    }
    // SAFETY: the caller's contract.
    Ok(unsafe { &mut *instance.cast::<Instance>() })
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
        let inst = unsafe { instance(instance_ptr)? };
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

/// Body of `reset`.
///
/// # Safety
/// The ABI's `reset` contract.
pub unsafe extern "C" fn reset(instance_ptr: *mut c_void, error: *mut ErrorBuf) -> i32 {
    guarded(error, || {
        // SAFETY: the caller's contract.
        let inst = unsafe { instance(instance_ptr)? };
        inst.pending_state = None;
        inst.node.reset();
        Ok(())
    })
}

fn sealed_state(inst: &Instance) -> Vec<u8> {
    let mut w = StateWriter::default();
    inst.node.save_state(&mut w);
    state::seal(inst.kind.name, w.as_slice())
}

/// Body of `state_size`.
///
/// # Safety
/// The ABI's `state_size` contract.
pub unsafe extern "C" fn state_size(
    instance_ptr: *mut c_void,
    size: *mut u64,
    error: *mut ErrorBuf,
) -> i32 {
    guarded(error, || {
        // SAFETY: the caller's contract.
        let inst = unsafe { instance(instance_ptr)? };
        if size.is_null() {
            return Err(SolveError::BadValue("null size pointer".into()));
        }
        let sealed = sealed_state(inst);
        // SAFETY: non-null, writable.
        unsafe { size.write(sealed.len() as u64) };
        inst.pending_state = Some(sealed);
        Ok(())
    })
}

/// Body of `save_state`.
///
/// # Safety
/// The ABI's `save_state` contract.
pub unsafe extern "C" fn save_state(
    instance_ptr: *mut c_void,
    data: *mut u8,
    capacity: u64,
    written: *mut u64,
    error: *mut ErrorBuf,
) -> i32 {
    guarded(error, || {
        // SAFETY: the caller's contract.
        let inst = unsafe { instance(instance_ptr)? };
        let sealed = inst
            .pending_state
            .take()
            .unwrap_or_else(|| sealed_state(inst));
        // SAFETY: the caller's contract.
        unsafe { write_state(&sealed, data, capacity, written) }
    })
}

/// Body of `load_state`.
///
/// # Safety
/// The ABI's `load_state` contract.
pub unsafe extern "C" fn load_state(
    instance_ptr: *mut c_void,
    data: *const u8,
    len: u64,
    error: *mut ErrorBuf,
) -> i32 {
    guarded(error, || {
        // SAFETY: the caller's contract.
        let inst = unsafe { instance(instance_ptr)? };
        // SAFETY: the caller's contract.
        let bytes = unsafe { state_bytes(data, len)? };
        let payload = state::open(inst.kind.name, bytes)?;
        inst.pending_state = None;
        inst.node.load_state(&mut StateReader::new(payload))
    })
}

/// Body of `destroy`.
///
/// # Safety
/// `instance_ptr` came from `create` and is destroyed once.
pub unsafe extern "C" fn destroy(instance_ptr: *mut c_void) {
    if instance_ptr.is_null() {
        return;
    }
    let _ = catch_unwind(|| {
        // SAFETY: from `Box::into_raw` in `create`, destroyed once.
        drop(unsafe { Box::from_raw(instance_ptr.cast::<Instance>()) });
    });
}
