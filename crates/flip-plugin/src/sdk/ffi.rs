//! The bodies of the exported C functions. Each one runs inside `catch_unwind`, so a panicking
//! plugin returns `STATUS_PANIC` instead of aborting the host.
#![allow(clippy::not_unsafe_ptr_arg_deref)] // called only by the host, through the table

use super::{ParamKind, Params, PressureSolver, Problem, SolveError, SolverPlugin};
use crate::abi::{
    self, AlgorithmDesc, ErrorBuf, ParamDesc, ParamValue, PressureProblem, SolveStats,
};
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

fn build<P: SolverPlugin>() -> CDescriptions {
    let mut strings = Vec::new();
    let mut cstr = |s: &str| {
        let c = CString::new(s.replace('\0', " ")).expect("NULs were replaced");
        let p = c.as_ptr();
        strings.push(c);
        p
    };
    let mut choice_lists = Vec::new();
    let mut params = Vec::new();
    let mut algorithms = Vec::new();
    for alg in P::ALGORITHMS {
        let descs: Vec<ParamDesc> = alg
            .params
            .iter()
            .map(|p| {
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
                choice_lists.push(choices);
                desc
            })
            .collect();
        algorithms.push(AlgorithmDesc {
            name: cstr(alg.name),
            label: cstr(alg.label),
            help: cstr(alg.help),
            capabilities: alg.capabilities,
            params: descs.as_ptr(),
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

fn write_error(error: *mut ErrorBuf, message: &str) {
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

fn status_of(err: &SolveError) -> i32 {
    match err {
        SolveError::Unsupported(_) => abi::STATUS_UNSUPPORTED,
        SolveError::BadValue(_) => abi::STATUS_BAD_VALUE,
        SolveError::Failed(_) => abi::STATUS_FAILED,
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic payload".into());
    format!("plugin panicked: {text}")
}

/// Body of `describe`.
pub fn describe<P: SolverPlugin>(
    cache: &OnceLock<CDescriptions>,
    index: u32,
    out: *mut AlgorithmDesc,
) -> i32 {
    let result = catch_unwind(|| {
        let descs = cache.get_or_init(build::<P>);
        match descs.algorithms.get(index as usize) {
            Some(d) if !out.is_null() => {
                // SAFETY: `out` is non-null and points to writable storage (host contract).
                unsafe {
                    out.write(AlgorithmDesc { ..*d });
                }
                abi::STATUS_OK
            }
            _ => abi::STATUS_BAD_VALUE,
        }
    });
    result.unwrap_or(abi::STATUS_PANIC)
}

/// Body of `create`.
pub fn create<P: SolverPlugin>(
    index: u32,
    params: *const ParamValue,
    count: u32,
    instance: *mut *mut c_void,
    error: *mut ErrorBuf,
) -> i32 {
    let result = catch_unwind(AssertUnwindSafe(
        || -> Result<Box<dyn PressureSolver>, SolveError> {
            let alg = P::ALGORITHMS
                .get(index as usize)
                .ok_or_else(|| SolveError::BadValue(format!("no algorithm #{index}")))?;
            let raw: &[ParamValue] = if count == 0 || params.is_null() {
                &[]
            } else {
                // SAFETY: the host passes `count` valid values.
                unsafe { std::slice::from_raw_parts(params, count as usize) }
            };
            let mut given = Vec::with_capacity(raw.len());
            for v in raw {
                if v.name.is_null() {
                    return Err(SolveError::BadValue("parameter with a null name".into()));
                }
                // SAFETY: non-null NUL-terminated string owned by the host for this call.
                let name = unsafe { CStr::from_ptr(v.name) }
                    .to_string_lossy()
                    .into_owned();
                given.push((name, v.value));
            }
            let pairs: Vec<(&str, f64)> = given.iter().map(|(n, v)| (n.as_str(), *v)).collect();
            let resolved = Params::resolve(alg.params, &pairs)?;
            P::create(alg, &resolved)
        },
    ));
    match result {
        Ok(Ok(solver)) => {
            if instance.is_null() {
                write_error(error, "null instance pointer");
                return abi::STATUS_BAD_VALUE;
            }
            let handle: Box<Box<dyn PressureSolver>> = Box::new(solver);
            // SAFETY: `instance` is non-null and writable (host contract).
            unsafe { *instance = Box::into_raw(handle).cast::<c_void>() };
            abi::STATUS_OK
        }
        Ok(Err(e)) => {
            write_error(error, &e.to_string());
            status_of(&e)
        }
        Err(payload) => {
            write_error(error, &panic_message(payload.as_ref()));
            abi::STATUS_PANIC
        }
    }
}

/// Body of `solve`.
pub fn solve(
    instance: *mut c_void,
    problem: *const PressureProblem,
    stats: *mut SolveStats,
    error: *mut ErrorBuf,
) -> i32 {
    if instance.is_null() || problem.is_null() {
        write_error(error, "null instance or problem");
        return abi::STATUS_BAD_VALUE;
    }
    let result = catch_unwind(AssertUnwindSafe(|| -> Result<SolveStats, SolveError> {
        // SAFETY: `instance` came from `create` (host contract) and is used by one thread.
        let solver = unsafe { &mut *instance.cast::<Box<dyn PressureSolver>>() };
        // SAFETY: the host guarantees the arrays' validity for this call.
        let mut view = unsafe { Problem::from_abi(&*problem) }
            .map_err(|e| SolveError::BadValue(e.to_string()))?;
        solver.solve(&mut view)
    }));
    match result {
        Ok(Ok(s)) => {
            if !stats.is_null() {
                // SAFETY: non-null, writable (host contract).
                unsafe { stats.write(s) };
            }
            abi::STATUS_OK
        }
        Ok(Err(e)) => {
            write_error(error, &e.to_string());
            status_of(&e)
        }
        Err(payload) => {
            write_error(error, &panic_message(payload.as_ref()));
            abi::STATUS_PANIC
        }
    }
}

/// Body of `destroy`.
pub fn destroy(instance: *mut c_void) {
    if instance.is_null() {
        return;
    }
    let _ = catch_unwind(|| {
        // SAFETY: `instance` came from `Box::into_raw` in `create` and is destroyed once.
        drop(unsafe { Box::from_raw(instance.cast::<Box<dyn PressureSolver>>()) });
    });
}
