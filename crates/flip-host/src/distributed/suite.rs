//! The C table of the distributed suite over a [`Distribution`]: what `fetch_suite` hands a
//! plugin, each entry checking its pointers and lengths before calling the safe methods.

use super::Distribution;
use flip_abi::{self as abi, DistributedSuite, SlabLayout};
use std::ffi::c_void;
use std::sync::atomic::Ordering;

/// The C table over `dist` (valid while `dist` is alive and unmoved).
pub(crate) fn suite_of(dist: &Distribution) -> DistributedSuite {
    DistributedSuite {
        size: std::mem::size_of::<DistributedSuite>() as u32,
        version: abi::DISTRIBUTED_SUITE_VERSION,
        context: std::ptr::from_ref(dist).cast_mut().cast(),
        rank: rank_of,
        ranks: ranks_of,
        layout: layout_of,
        all_reduce_sum_f64: sum_of,
        all_reduce_max_f64: max_of,
        halo_exchange_f64: halo_of,
        all_gather_owned_f64: gather_of,
        all_gather_blocks_f64: all_gather_blocks_of,
        gather_blocks_f64: gather_blocks_of,
        scatter_blocks_f64: scatter_blocks_of,
    }
}

/// # Safety
/// `ctx` is the `Distribution` a suite table was made from, alive for the call.
unsafe fn dist<'a>(ctx: *mut c_void) -> &'a Distribution {
    // SAFETY: the caller's contract.
    unsafe { &*ctx.cast::<Distribution>() }
}

unsafe extern "C" fn rank_of(ctx: *mut c_void) -> u32 {
    // SAFETY: the plugin passes back the suite's context.
    unsafe { dist(ctx) }.comm().rank()
}

unsafe extern "C" fn ranks_of(ctx: *mut c_void) -> u32 {
    // SAFETY: as above.
    unsafe { dist(ctx) }.comm().ranks()
}

unsafe extern "C" fn layout_of(ctx: *mut c_void, out: *mut SlabLayout) -> i32 {
    if out.is_null() {
        return abi::STATUS_BAD_VALUE;
    }
    // SAFETY: as above; `out` is a plugin-owned SlabLayout.
    unsafe { *out = *dist(ctx).layout() };
    abi::STATUS_OK
}

/// # Safety
/// `values` holds `n` writable values (or `n == 0`).
unsafe fn reduce(ctx: *mut c_void, values: *mut f64, n: usize, max: bool) -> i32 {
    if values.is_null() && n > 0 {
        return abi::STATUS_BAD_VALUE;
    }
    // SAFETY: as above.
    let d = unsafe { dist(ctx) };
    let start = std::time::Instant::now();
    let v = if n == 0 {
        &mut [][..]
    } else {
        // SAFETY: the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(values, n) }
    };
    if max {
        // NaN counts as +∞, so a diverged rank is never hidden by the others.
        v.iter_mut()
            .filter(|x| x.is_nan())
            .for_each(|x| *x = f64::INFINITY);
        d.comm().max(v);
    } else {
        d.comm().sum(v);
    }
    d.stats.collectives.fetch_add(1, Ordering::Relaxed);
    d.stats.add_time(start);
    abi::STATUS_OK
}

unsafe extern "C" fn sum_of(ctx: *mut c_void, values: *mut f64, n: usize) -> i32 {
    // SAFETY: the plugin's contract for `values`.
    unsafe { reduce(ctx, values, n, false) }
}

unsafe extern "C" fn max_of(ctx: *mut c_void, values: *mut f64, n: usize) -> i32 {
    // SAFETY: the plugin's contract for `values`.
    unsafe { reduce(ctx, values, n, true) }
}

unsafe extern "C" fn halo_of(ctx: *mut c_void, field: *mut f64, layers: u32) -> i32 {
    // SAFETY: as above.
    let d = unsafe { dist(ctx) };
    let l = d.layout();
    let lo_ok = l.ghost_lo == 0 || layers <= l.ghost_lo;
    let hi_ok = l.ghost_hi == 0 || layers <= l.ghost_hi;
    if field.is_null() || !lo_ok || !hi_ok || layers > l.owned {
        return abi::STATUS_BAD_VALUE;
    }
    let n = l.local_dims().iter().product();
    // SAFETY: the suite's contract: `field` is a local cell field.
    d.halo_exchange(
        unsafe { std::slice::from_raw_parts_mut(field, n) },
        layers as usize,
    );
    abi::STATUS_OK
}

unsafe extern "C" fn gather_of(ctx: *mut c_void, local: *const f64, global: *mut f64) -> i32 {
    if local.is_null() || global.is_null() {
        return abi::STATUS_BAD_VALUE;
    }
    // SAFETY: as above.
    let d = unsafe { dist(ctx) };
    let l = d.layout();
    let n_local = l.local_dims().iter().product();
    let n_global = l.global_dims.iter().map(|&x| x as usize).product();
    // SAFETY: the suite's contract on both lengths.
    let (loc, glob) = unsafe {
        (
            std::slice::from_raw_parts(local, n_local),
            std::slice::from_raw_parts_mut(global, n_global),
        )
    };
    d.all_gather(loc, glob);
    abi::STATUS_OK
}

unsafe extern "C" fn all_gather_blocks_of(
    ctx: *mut c_void,
    local: *const f64,
    local_len: usize,
    global: *mut f64,
    capacity: usize,
    total: *mut usize,
) -> i32 {
    if (local.is_null() && local_len > 0) || (global.is_null() && capacity > 0) || total.is_null() {
        return abi::STATUS_BAD_VALUE;
    }
    // SAFETY: as above; the suite's contract on both lengths.
    let (d, loc, glob) = unsafe {
        (
            dist(ctx),
            slice_or_empty(local, local_len),
            slice_or_empty_mut(global, capacity),
        )
    };
    match d.all_gather_blocks(loc, glob) {
        Some(n) => {
            // SAFETY: checked non-null; the plugin's out parameter.
            unsafe { *total = n };
            abi::STATUS_OK
        }
        None => abi::STATUS_BAD_VALUE,
    }
}

unsafe extern "C" fn gather_blocks_of(
    ctx: *mut c_void,
    root: u32,
    local: *const f64,
    local_len: usize,
    global: *mut f64,
    capacity: usize,
    total: *mut usize,
) -> i32 {
    // SAFETY: as above.
    let d = unsafe { dist(ctx) };
    let is_root = d.comm().rank() == root;
    let bad_global = is_root && global.is_null() && capacity > 0;
    if root >= d.comm().ranks()
        || (local.is_null() && local_len > 0)
        || bad_global
        || total.is_null()
    {
        return abi::STATUS_BAD_VALUE;
    }
    // SAFETY: the suite's contract on both lengths (the root's `global` only).
    let (loc, glob) = unsafe {
        (
            slice_or_empty(local, local_len),
            if is_root {
                slice_or_empty_mut(global, capacity)
            } else {
                &mut []
            },
        )
    };
    let n = d.gather_blocks(root, loc, glob);
    // SAFETY: checked non-null; the plugin's out parameter.
    unsafe { *total = n.unwrap_or(0) };
    if n.is_some() {
        abi::STATUS_OK
    } else {
        abi::STATUS_BAD_VALUE
    }
}

unsafe extern "C" fn scatter_blocks_of(
    ctx: *mut c_void,
    root: u32,
    global: *const f64,
    lens: *const usize,
    local: *mut f64,
    capacity: usize,
    received: *mut usize,
) -> i32 {
    // SAFETY: as above.
    let d = unsafe { dist(ctx) };
    let ranks = d.comm().ranks() as usize;
    let is_root = d.comm().rank() == root;
    let bad_root = is_root && lens.is_null();
    if root as usize >= ranks || bad_root || (local.is_null() && capacity > 0) || received.is_null()
    {
        return abi::STATUS_BAD_VALUE;
    }
    // SAFETY: the suite's contract: on the root `lens` holds one length per rank and `global`
    // their sum (null only when that sum is zero); `local` holds `capacity` values.
    let (counts, glob, loc) = unsafe {
        let counts = if is_root {
            std::slice::from_raw_parts(lens, ranks)
        } else {
            &[]
        };
        let total = counts.iter().fold(0usize, |a, &n| a.saturating_add(n));
        if is_root && global.is_null() && total > 0 {
            return abi::STATUS_BAD_VALUE;
        }
        (
            counts,
            slice_or_empty(global, total),
            slice_or_empty_mut(local, capacity),
        )
    };
    let (n, fits) = d.scatter_blocks(root, glob, counts, loc);
    // SAFETY: checked non-null; the plugin's out parameter.
    unsafe { *received = n };
    if fits {
        abi::STATUS_OK
    } else {
        abi::STATUS_BAD_VALUE
    }
}

/// # Safety
/// `p` holds `n` readable values, or `n == 0`.
unsafe fn slice_or_empty<'a>(p: *const f64, n: usize) -> &'a [f64] {
    if n == 0 {
        &[]
    } else {
        // SAFETY: the caller's contract.
        unsafe { std::slice::from_raw_parts(p, n) }
    }
}

/// # Safety
/// `p` holds `n` writable values, or `n == 0`.
unsafe fn slice_or_empty_mut<'a>(p: *mut f64, n: usize) -> &'a mut [f64] {
    if n == 0 {
        &mut []
    } else {
        // SAFETY: the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(p, n) }
    }
}
