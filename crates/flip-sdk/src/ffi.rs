//! The bodies of the exported C functions. Each one runs inside `catch_unwind`, so a panicking
//! plugin returns `STATUS_PANIC` instead of aborting the host, and installs the host services of
//! the call ([`crate::services::with_services`]).

mod instance;
mod lifecycle;

pub use instance::solve;
pub use lifecycle::Lifecycle;
pub(crate) use lifecycle::{create_boxed, instance, Hosted};

/// `reset`, the state calls and `destroy` of a solver instance.
pub const SOLVER: Lifecycle = Lifecycle::of::<Instance>();

use super::{
    Algorithm, ParamKind, Params, PressureSolver, SolveError, SolverPlugin, StateReader,
    StateWriter,
};
use flip_abi::{self as abi, AlgorithmDesc, ErrorBuf, HostServices, ParamDesc, ParamValue};
use std::ffi::{c_char, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

/// NUL-terminated copies of a plugin's descriptions, built once and kept for the library's life.
pub struct CDescriptions {
    _strings: Vec<CString>,
    _choice_lists: Vec<Vec<*const c_char>>,
    _params: Vec<Vec<ParamDesc>>,
    algorithms: Vec<AlgorithmDesc>,
}
// SAFETY: built once, never mutated; the raw pointers point into the owned vectors above.
unsafe impl Send for CDescriptions {}
// SAFETY: as above.
unsafe impl Sync for CDescriptions {}

/// What an instance handle points to.
pub(crate) struct Instance {
    pub solver: Box<dyn PressureSolver>,
    pub algorithm: &'static Algorithm,
    /// The sealed state computed by the last `state_size`, for the `save_state` after it.
    pub pending_state: Option<Vec<u8>>,
}

impl Hosted for Instance {
    fn name(&self) -> &'static str {
        self.algorithm.name
    }

    fn pending_state(&mut self) -> &mut Option<Vec<u8>> {
        &mut self.pending_state
    }

    fn reset(&mut self) {
        self.solver.reset();
    }

    fn save(&self, out: &mut StateWriter) -> Result<(), SolveError> {
        self.solver.save_state(out);
        if !out.as_slice().is_empty() && self.algorithm.capabilities & abi::CAP_SAVES_STATE == 0 {
            return Err(SolveError::Failed(format!(
                "algorithm `{}` saves state but its capabilities lack CAP_SAVES_STATE",
                self.algorithm.name
            )));
        }
        Ok(())
    }

    fn load(&mut self, state: &mut StateReader<'_>) -> Result<(), SolveError> {
        self.solver.load_state(state)
    }
}

pub(crate) fn param_desc(
    p: &super::ParamSchema,
    cstr: &mut impl FnMut(&str) -> *const c_char,
) -> (ParamDesc, Vec<*const c_char>) {
    let choices: Vec<*const c_char> = p.choices.iter().map(|c| cstr(c)).collect();
    let desc = ParamDesc {
        name: cstr(p.name),
        label: cstr(p.label),
        help: cstr(p.help),
        kind: match p.kind {
            ParamKind::Float => abi::PARAM_FLOAT,
            ParamKind::Int => abi::PARAM_INT,
            ParamKind::Bool => abi::PARAM_BOOL,
            ParamKind::Choice => abi::PARAM_CHOICE,
        },
        default: p.default,
        min: p.min,
        max: p.max,
        choices: if choices.is_empty() {
            std::ptr::null()
        } else {
            choices.as_ptr()
        },
        choice_count: choices.len() as u32,
    };
    (desc, choices)
}

fn build<P: SolverPlugin>() -> CDescriptions {
    let mut strings = Vec::new();
    let mut cstr = |s: &str| {
        let c = CString::new(s.replace('\0', " ")).expect("NULs were replaced");
        let p = c.as_ptr();
        strings.push(c);
        p
    };
    let (mut choice_lists, mut params, mut algorithms) = (Vec::new(), Vec::new(), Vec::new());
    for alg in P::ALGORITHMS {
        let mut descs = Vec::with_capacity(alg.params.len());
        for p in alg.params {
            let (desc, choices) = param_desc(p, &mut cstr);
            choice_lists.push(choices);
            descs.push(desc);
        }
        algorithms.push(AlgorithmDesc {
            name: cstr(alg.name),
            label: cstr(alg.label),
            help: cstr(alg.help),
            capabilities: alg.capabilities,
            params: if descs.is_empty() {
                std::ptr::null()
            } else {
                descs.as_ptr()
            },
            param_count: descs.len() as u32,
        });
        params.push(descs);
    }
    CDescriptions {
        _strings: strings,
        _choice_lists: choice_lists,
        _params: params,
        algorithms,
    }
}

/// Writes `message` into the host's error buffer (truncated to its capacity).
pub(crate) fn write_error(error: *mut ErrorBuf, message: &str) {
    if error.is_null() {
        return;
    }
    // SAFETY: the host passes a valid buffer description or null (checked above).
    let buf = unsafe { &*error };
    if buf.data.is_null() || buf.capacity == 0 {
        return;
    }
    let bytes = message.as_bytes();
    let n = bytes.len().min(buf.capacity - 1);
    // SAFETY: `data` is writable for `capacity` bytes; we write n < capacity bytes plus a NUL.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), buf.data.cast::<u8>(), n);
        *buf.data.add(n) = 0;
    }
}

/// The status of an error.
pub(crate) fn status_of(err: &SolveError) -> i32 {
    match err {
        SolveError::Unsupported(_) => abi::STATUS_UNSUPPORTED,
        SolveError::BadValue(_) => abi::STATUS_BAD_VALUE,
        SolveError::Cancelled(_) => abi::STATUS_CANCELLED,
        SolveError::Failed(_) => abi::STATUS_FAILED,
    }
}

/// Runs `f` under `catch_unwind` and turns its result into a status and a message.
pub(crate) fn guarded(error: *mut ErrorBuf, f: impl FnOnce() -> Result<(), SolveError>) -> i32 {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => abi::STATUS_OK,
        Ok(Err(e)) => {
            write_error(error, &e.to_string());
            status_of(&e)
        }
        Err(payload) => {
            let text = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic payload".into());
            write_error(error, &format!("plugin panicked: {text}"));
            abi::STATUS_PANIC
        }
    }
}

/// Body of `describe`.
///
/// # Safety
/// `out` is null or writable for one [`AlgorithmDesc`].
pub unsafe fn describe<P: SolverPlugin>(
    cache: &OnceLock<CDescriptions>,
    index: u32,
    out: *mut AlgorithmDesc,
) -> i32 {
    let result = catch_unwind(|| {
        let descs = cache.get_or_init(build::<P>);
        match descs.algorithms.get(index as usize) {
            Some(d) if !out.is_null() => {
                // SAFETY: `out` is non-null and points to writable storage (caller's contract).
                unsafe { out.write(AlgorithmDesc { ..*d }) };
                abi::STATUS_OK
            }
            _ => abi::STATUS_BAD_VALUE,
        }
    });
    result.unwrap_or(abi::STATUS_PANIC)
}

/// The parameters of `schema` resolved from a host parameter list (defaults for those not
/// given).
///
/// # Safety
/// As [`given_params`].
pub(crate) unsafe fn resolved_params(
    schema: &'static [super::ParamSchema],
    params: *const ParamValue,
    count: u32,
) -> Result<Params, SolveError> {
    // SAFETY: the caller's contract.
    let given = unsafe { given_params(params, count)? };
    let pairs: Vec<(&str, f64)> = given.iter().map(|(n, v)| (n.as_str(), *v)).collect();
    Params::resolve(schema, &pairs)
}

/// The (name, value) pairs of a host parameter list.
///
/// # Safety
/// `params` points to `count` values with NUL-terminated names, or `count` is 0.
unsafe fn given_params(
    params: *const ParamValue,
    count: u32,
) -> Result<Vec<(String, f64)>, SolveError> {
    if count == 0 {
        return Ok(Vec::new());
    }
    if params.is_null() {
        return Err(SolveError::BadValue("null parameter list".into()));
    }
    // SAFETY: the host passes `count` valid values.
    let raw = unsafe { std::slice::from_raw_parts(params, count as usize) };
    raw.iter()
        .map(|v| {
            if v.name.is_null() {
                return Err(SolveError::BadValue("parameter with a null name".into()));
            }
            // SAFETY: non-null NUL-terminated string owned by the host for this call.
            let name = unsafe { CStr::from_ptr(v.name) }.to_string_lossy();
            Ok((name.into_owned(), v.value))
        })
        .collect()
}

/// Body of `create`.
///
/// # Safety
/// The ABI's `create` contract: `params` holds `count` values, `services` is null or valid for
/// the call, `instance` and `error` are null or writable.
pub unsafe fn create<P: SolverPlugin>(
    index: u32,
    params: *const ParamValue,
    count: u32,
    services: *const HostServices,
    instance: *mut *mut c_void,
    error: *mut ErrorBuf,
) -> i32 {
    let make = || {
        let algorithm = P::ALGORITHMS
            .get(index as usize)
            .ok_or_else(|| SolveError::BadValue(format!("no algorithm #{index}")))?;
        // SAFETY: the caller's contract.
        let resolved = unsafe { resolved_params(algorithm.params, params, count)? };
        Ok(Instance {
            solver: P::create(algorithm, &resolved)?,
            algorithm,
            pending_state: None,
        })
    };
    // SAFETY: the caller's contract.
    unsafe { create_boxed(services, instance, error, make) }
}
