//! The entries every instance table shares, solver or node: boxing a new instance behind its
//! handle, `reset`, the three state calls and `destroy`. Each kind of instance says how it
//! resets, seals and loads its state ([`Hosted`]); the C bodies here are generic over it, and
//! [`Lifecycle::of`] hands one kind's instantiations to the export macros.

use super::guarded;
use crate::services::with_services;
use crate::{state, SolveError, StateReader, StateWriter};
use flip_abi::{DestroyFn, ErrorBuf, HostServices, LoadStateFn, ResetFn, SaveStateFn, StateSizeFn};
use std::ffi::c_void;
use std::panic::catch_unwind;

/// What the shared entries need of an instance.
pub(crate) trait Hosted: 'static {
    /// The algorithm's or node kind's name, which seals its state.
    fn name(&self) -> &'static str;
    /// The sealed state `state_size` computed, kept for the `save_state` right after it.
    fn pending_state(&mut self) -> &mut Option<Vec<u8>>;
    /// Forgets everything learned from earlier calls.
    fn reset(&mut self);
    /// Writes the state a resumed run needs.
    ///
    /// # Errors
    /// Why the state cannot be saved (for example a capability the instance lacks).
    fn save(&self, out: &mut StateWriter) -> Result<(), SolveError>;
    /// Replaces everything learned by a saved state.
    ///
    /// # Errors
    /// [`SolveError::BadValue`] for a state the instance cannot read.
    fn load(&mut self, state: &mut StateReader<'_>) -> Result<(), SolveError>;
}

/// One kind of instance's `reset`, state calls and `destroy`, for its export macro's table.
pub struct Lifecycle {
    /// Body of `reset`.
    pub reset: ResetFn,
    /// Body of `state_size`.
    pub state_size: StateSizeFn,
    /// Body of `save_state`.
    pub save_state: SaveStateFn,
    /// Body of `load_state`.
    pub load_state: LoadStateFn,
    /// Body of `destroy`.
    pub destroy: DestroyFn,
}

impl Lifecycle {
    /// The entries for instances of type `I`.
    pub(crate) const fn of<I: Hosted>() -> Self {
        Self {
            reset: reset::<I>,
            state_size: state_size::<I>,
            save_state: save_state::<I>,
            load_state: load_state::<I>,
            destroy: destroy::<I>,
        }
    }
}

/// Boxes the instance `make` builds (with the call's host services installed) behind the
/// handle `instance`, under `catch_unwind`.
///
/// # Safety
/// The ABI's `create` contract: `services` is null or valid for the call, `instance` and
/// `error` are null or writable.
pub(crate) unsafe fn create_boxed<I: Hosted>(
    services: *const HostServices,
    instance: *mut *mut c_void,
    error: *mut ErrorBuf,
    make: impl FnOnce() -> Result<I, SolveError>,
) -> i32 {
    if instance.is_null() {
        super::write_error(error, "null instance pointer");
        return flip_abi::STATUS_BAD_VALUE;
    }
    guarded(error, || {
        let body = || {
            let handle = Box::new(make()?);
            // SAFETY: `instance` is non-null and writable (checked above).
            unsafe { *instance = Box::into_raw(handle).cast::<c_void>() };
            Ok(())
        };
        // SAFETY: the caller's contract: `services` is the host's table for this call.
        unsafe { with_services(services, body) }
    })
}

/// The instance behind a handle, or an error for a null one.
///
/// # Safety
/// `instance` is null or came from [`create_boxed`] with the same `I` and is not used
/// concurrently.
pub(crate) unsafe fn instance<'a, I: Hosted>(
    instance: *mut c_void,
) -> Result<&'a mut I, SolveError> {
    if instance.is_null() {
        return Err(SolveError::BadValue("null instance".into()));
    }
    // SAFETY: the caller's contract.
    Ok(unsafe { &mut *instance.cast::<I>() })
}

fn sealed_state<I: Hosted>(inst: &I) -> Result<Vec<u8>, SolveError> {
    let mut w = StateWriter::default();
    inst.save(&mut w)?;
    Ok(state::seal(inst.name(), w.as_slice()))
}

/// Body of `reset`.
///
/// # Safety
/// The ABI's `reset` contract.
unsafe extern "C" fn reset<I: Hosted>(instance_ptr: *mut c_void, error: *mut ErrorBuf) -> i32 {
    guarded(error, || {
        // SAFETY: the caller's contract.
        let inst = unsafe { instance::<I>(instance_ptr)? };
        *inst.pending_state() = None;
        inst.reset();
        Ok(())
    })
}

/// Body of `state_size`: seals the state now and keeps it for the `save_state` that follows.
///
/// # Safety
/// The ABI's `state_size` contract.
unsafe extern "C" fn state_size<I: Hosted>(
    instance_ptr: *mut c_void,
    size: *mut u64,
    error: *mut ErrorBuf,
) -> i32 {
    guarded(error, || {
        // SAFETY: the caller's contract.
        let inst = unsafe { instance::<I>(instance_ptr)? };
        if size.is_null() {
            return Err(SolveError::BadValue("null size pointer".into()));
        }
        let sealed = sealed_state(inst)?;
        // SAFETY: non-null, writable.
        unsafe { size.write(sealed.len() as u64) };
        *inst.pending_state() = Some(sealed);
        Ok(())
    })
}

/// Body of `save_state`.
///
/// # Safety
/// The ABI's `save_state` contract: `data` writable for `capacity` bytes.
unsafe extern "C" fn save_state<I: Hosted>(
    instance_ptr: *mut c_void,
    data: *mut u8,
    capacity: u64,
    written: *mut u64,
    error: *mut ErrorBuf,
) -> i32 {
    guarded(error, || {
        // SAFETY: the caller's contract.
        let inst = unsafe { instance::<I>(instance_ptr)? };
        let sealed = match inst.pending_state().take() {
            Some(s) => s,
            None => sealed_state(inst)?,
        };
        // SAFETY: the caller's contract.
        unsafe { write_state(&sealed, data, capacity, written) }
    })
}

/// Body of `load_state`.
///
/// # Safety
/// The ABI's `load_state` contract: `data` readable for `len` bytes.
unsafe extern "C" fn load_state<I: Hosted>(
    instance_ptr: *mut c_void,
    data: *const u8,
    len: u64,
    error: *mut ErrorBuf,
) -> i32 {
    guarded(error, || {
        // SAFETY: the caller's contract.
        let inst = unsafe { instance::<I>(instance_ptr)? };
        // SAFETY: the caller's contract.
        let bytes = unsafe { state_bytes(data, len)? };
        let payload = state::open(inst.name(), bytes)?;
        *inst.pending_state() = None;
        inst.load(&mut StateReader::new(payload))
    })
}

/// Body of `destroy`.
///
/// # Safety
/// `instance_ptr` came from [`create_boxed`] with the same `I` and is destroyed once.
unsafe extern "C" fn destroy<I: Hosted>(instance_ptr: *mut c_void) {
    if instance_ptr.is_null() {
        return;
    }
    let _ = catch_unwind(|| {
        // SAFETY: from `Box::into_raw` in `create_boxed`, destroyed once (the caller's contract).
        drop(unsafe { Box::from_raw(instance_ptr.cast::<I>()) });
    });
}

/// Copies a sealed state into the host's `save_state` buffer and reports its length.
///
/// # Safety
/// `data` is null or writable for `capacity` bytes; `written` is null or writable.
unsafe fn write_state(
    sealed: &[u8],
    data: *mut u8,
    capacity: u64,
    written: *mut u64,
) -> Result<(), SolveError> {
    if data.is_null() || written.is_null() || (sealed.len() as u64) > capacity {
        return Err(SolveError::BadValue(format!(
            "state needs {} bytes, buffer holds {capacity}",
            sealed.len()
        )));
    }
    // SAFETY: `data` is writable for `capacity >= sealed.len()` bytes; `written` non-null.
    unsafe {
        std::ptr::copy_nonoverlapping(sealed.as_ptr(), data, sealed.len());
        written.write(sealed.len() as u64);
    }
    Ok(())
}

/// The bytes handed to `load_state` (empty for `len == 0`).
///
/// # Safety
/// `data` is null or readable for `len` bytes for the call's duration.
unsafe fn state_bytes<'a>(data: *const u8, len: u64) -> Result<&'a [u8], SolveError> {
    if len == 0 {
        Ok(&[])
    } else if data.is_null() {
        Err(SolveError::BadValue("null state buffer".into()))
    } else {
        // SAFETY: readable for `len` bytes (the caller's contract).
        Ok(unsafe { std::slice::from_raw_parts(data, len as usize) })
    }
}
