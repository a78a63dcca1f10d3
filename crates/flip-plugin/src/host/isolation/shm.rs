//! The shared memory of an isolated solver: one file in `/dev/shm` (else the temporary folder),
//! mapped by the host and the child, unlinked as soon as both have it mapped. Layout: a 64-byte
//! header (the cancel flag, an `AtomicU32` at offset 0), then the problem's arrays, each at a
//! 64-byte aligned offset, in the order of [`structured_fields`] or [`csr_fields`]; both sides
//! compute the offsets from the same [`SolveMeta`], so only the metadata crosses the pipe.

use super::wire::SolveMeta;
use crate::sdk::{CsrProblem, Problem};
use memmap2::MmapRaw;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// Bytes before the first array.
const HEADER: usize = 64;
/// Alignment of every array.
const ALIGN: usize = 64;

/// A shared mapping (host or child side).
pub(crate) struct Segment {
    map: MmapRaw,
    /// The file, until [`Segment::unlink`] removed its name.
    path: Option<PathBuf>,
}

/// Where shared files are created: `/dev/shm` when it is a folder (memory only), else the
/// temporary folder.
fn shm_dir() -> PathBuf {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        shm.into()
    } else {
        std::env::temp_dir()
    }
}

impl Segment {
    /// Creates a new zeroed file of `len` bytes (mode 0600) and maps it.
    pub fn create(len: usize) -> std::io::Result<Self> {
        use std::os::unix::fs::OpenOptionsExt;
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let name = format!("flipgraph-solver-{}-{n}-{nanos:x}", std::process::id());
        let path = shm_dir().join(name);
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)?;
        let mapped = file
            .set_len(len.max(HEADER) as u64)
            .and_then(|()| MmapRaw::map_raw(&file));
        match mapped {
            Ok(map) => Ok(Self {
                map,
                path: Some(path),
            }),
            Err(e) => {
                let _ = std::fs::remove_file(&path);
                Err(e)
            }
        }
    }

    /// Maps the host's file `path`, which must hold at least `len` bytes.
    pub fn open(path: &Path, len: usize) -> std::io::Result<Self> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)?;
        if len < HEADER || file.metadata()?.len() < len as u64 {
            return Err(std::io::Error::other("shared file shorter than announced"));
        }
        Ok(Self {
            map: MmapRaw::map_raw(&file)?,
            path: None,
        })
    }

    /// The file's path while it has one.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Removes the file's name (the mappings stay).
    pub fn unlink(&mut self) {
        if let Some(p) = self.path.take() {
            let _ = std::fs::remove_file(p);
        }
    }

    /// Mapped bytes.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// The cancel flag both processes see.
    pub fn cancel_flag(&self) -> &AtomicU32 {
        // SAFETY: the mapping is page-aligned and at least HEADER bytes long (checked by every
        // constructor's caller through `total`); AtomicU32 has no invalid bit patterns.
        unsafe { &*self.map.as_mut_ptr().cast::<AtomicU32>() }
    }

    /// `count` elements of `T` at `offset`.
    ///
    /// # Safety
    /// `offset..offset + count·size_of::<T>()` lies in the mapping, is aligned for `T`, and no
    /// other live slice of this process overlaps it mutably.
    unsafe fn slice<'a, T>(&self, offset: usize, count: usize) -> &'a mut [T] {
        debug_assert!(offset + count * std::mem::size_of::<T>() <= self.len());
        // SAFETY: the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(self.map.as_mut_ptr().add(offset).cast(), count) }
    }
}

impl Drop for Segment {
    fn drop(&mut self) {
        self.unlink();
    }
}

/// `(element size, count)` of each array, in layout order, and the offsets and total size.
fn layout(fields: &[(usize, usize)]) -> (Vec<usize>, usize) {
    let mut at = HEADER;
    let offsets = fields
        .iter()
        .map(|&(size, count)| {
            let o = at;
            at = (at + size * count).div_ceil(ALIGN) * ALIGN;
            o
        })
        .collect();
    (offsets, at)
}

/// Structured arrays: pressure, rhs (f64); diag, off x/y/z, liquid φ, solid φ, face_open
/// x/y/z (f32); cell kinds, complementarity (u8).
fn structured_fields(n: usize) -> Vec<(usize, usize)> {
    let mut f = vec![(8, n), (8, n)];
    f.extend([(4, n); 9]);
    f.extend([(1, n); 2]);
    f
}

/// CSR arrays: pressure, rhs (f64, rows); values (f64, nnz); row_ptr (u64, rows + 1); col_idx
/// (u32, nnz); row flags (u8, rows or none).
fn csr_fields(rows: usize, nnz: usize, flags: bool) -> Vec<(usize, usize)> {
    vec![
        (8, rows),
        (8, rows),
        (8, nnz),
        (8, rows + 1),
        (4, nnz),
        (1, if flags { rows } else { 0 }),
    ]
}

/// Offsets and total bytes of a problem's arrays.
pub(crate) fn plan(meta: &SolveMeta) -> (Vec<usize>, usize) {
    match *meta {
        SolveMeta::Structured { dims, .. } => {
            let n = dims.iter().map(|&d| d as usize).product();
            layout(&structured_fields(n))
        }
        SolveMeta::Csr {
            rows, nnz, flags, ..
        } => layout(&csr_fields(rows as usize, nnz as usize, flags)),
    }
}

/// The metadata of a structured problem.
pub(crate) fn structured_meta(p: &Problem<'_>) -> SolveMeta {
    SolveMeta::Structured {
        dims: p.dims.map(|d| d as u64),
        dimension: p.dimension as u32,
        dx: p.dx,
        lcp: p.lcp,
        step: p.step,
    }
}

/// The metadata of a CSR problem.
pub(crate) fn csr_meta(p: &CsrProblem<'_>) -> SolveMeta {
    SolveMeta::Csr {
        rows: p.rows() as u64,
        nnz: p.values.len() as u64,
        symmetric: p.symmetric,
        lcp: p.lcp,
        step: p.step,
        flags: p.row_flags.is_some(),
    }
}

/// Bytes compared at a time by [`sync`] (a page).
const SYNC_BLOCK: usize = 4096;

/// Makes `dst` equal to `src` bit for bit, writing only the blocks that differ. The mapping
/// still holds the previous problem and much of the next is the same (solids, face fractions,
/// most cell kinds and coefficients), so two reads replace a read, a write and a write-back.
/// Nothing in the mapping is trusted: whatever differs, the child's scribbles included, is
/// rewritten.
fn sync<T: Copy>(dst: &mut [T], src: &[T]) {
    // SAFETY: the element types used here (f64, f32, u64, u32, u8) have no padding, so their
    // bytes are initialised and plain; the views cover exactly the two slices.
    let (d, s) = unsafe {
        (
            std::slice::from_raw_parts_mut(
                dst.as_mut_ptr().cast::<u8>(),
                std::mem::size_of_val(dst),
            ),
            std::slice::from_raw_parts(src.as_ptr().cast::<u8>(), std::mem::size_of_val(src)),
        )
    };
    for (d, s) in d.chunks_mut(SYNC_BLOCK).zip(s.chunks(SYNC_BLOCK)) {
        if d != s {
            d.copy_from_slice(s);
        }
    }
}

/// Brings a validated structured problem into `seg`, laid out by `plan(structured_meta(p))`
/// (only what changed since the last problem is written, [`sync`]).
pub(crate) fn write_structured(seg: &Segment, offsets: &[usize], p: &Problem<'_>) {
    let n = p.cell_count();
    // SAFETY: `offsets` come from the plan `seg` was sized for; the host holds no other slice
    // of the mapping, and the child is idle between calls.
    unsafe {
        sync(seg.slice(offsets[0], n), p.pressure);
        sync(seg.slice(offsets[1], n), p.rhs);
        let f32s = [
            p.diag,
            p.off[0],
            p.off[1],
            p.off[2],
            p.liquid_phi,
            p.solid_phi,
        ];
        let f32s = f32s.into_iter().chain(p.face_open);
        for (i, a) in f32s.enumerate() {
            sync(seg.slice(offsets[2 + i], n), a);
        }
        sync(seg.slice(offsets[11], n), p.cell_kind);
        sync(seg.slice(offsets[12], n), p.complementarity);
    }
}

/// Brings a validated CSR problem into `seg`, laid out by `plan(csr_meta(p))` ([`sync`]).
pub(crate) fn write_csr(seg: &Segment, offsets: &[usize], p: &CsrProblem<'_>) {
    let (rows, nnz) = (p.rows(), p.values.len());
    // SAFETY: as in `write_structured`.
    unsafe {
        sync(seg.slice(offsets[0], rows), p.pressure);
        sync(seg.slice(offsets[1], rows), p.rhs);
        sync(seg.slice(offsets[2], nnz), p.values);
        sync(seg.slice(offsets[3], rows + 1), p.row_ptr);
        sync(seg.slice(offsets[4], nnz), p.col_idx);
        if let Some(f) = p.row_flags {
            sync(seg.slice(offsets[5], rows), f);
        }
    }
}

/// Copies the solution (the first array of either layout) out of `seg`.
pub(crate) fn read_pressure(seg: &Segment, offsets: &[usize], out: &mut [f64]) {
    // SAFETY: the pressure array of the plan `seg` was sized for; the child has answered.
    out.copy_from_slice(unsafe { seg.slice::<f64>(offsets[0], out.len()) });
}

/// The child's view of the structured problem in `seg`.
///
/// # Safety
/// `seg` holds a problem written by the host for `meta`, and nothing else in this process uses
/// the mapping while the view lives.
pub(crate) unsafe fn structured_view<'a>(
    seg: &'a Segment,
    meta: &SolveMeta,
) -> Result<Problem<'a>, String> {
    let SolveMeta::Structured {
        dims,
        dimension,
        dx,
        lcp,
        step,
    } = *meta
    else {
        return Err("not a structured problem".into());
    };
    let (offsets, total) = plan(meta);
    if total > seg.len() {
        return Err(format!(
            "problem of {total} bytes in a mapping of {}",
            seg.len()
        ));
    }
    let n: usize = dims.iter().map(|&d| d as usize).product();
    // SAFETY: the plan fits the mapping (checked) and every offset is aligned.
    unsafe {
        let f = |i: usize| -> &'a [f32] { seg.slice(offsets[i], n) };
        Ok(Problem {
            dims: dims.map(|d| d as usize),
            dimension: dimension as usize,
            dx,
            lcp,
            step,
            cell_kind: seg.slice(offsets[11], n),
            diag: f(2),
            off: [f(3), f(4), f(5)],
            rhs: seg.slice(offsets[1], n),
            liquid_phi: f(6),
            solid_phi: f(7),
            complementarity: seg.slice(offsets[12], n),
            face_open: [f(8), f(9), f(10)],
            pressure: seg.slice(offsets[0], n),
        })
    }
}

/// The child's view of the CSR problem in `seg`.
///
/// # Safety
/// As [`structured_view`].
pub(crate) unsafe fn csr_view<'a>(
    seg: &'a Segment,
    meta: &SolveMeta,
) -> Result<CsrProblem<'a>, String> {
    let SolveMeta::Csr {
        rows,
        nnz,
        symmetric,
        lcp,
        step,
        flags,
    } = *meta
    else {
        return Err("not a CSR problem".into());
    };
    let (offsets, total) = plan(meta);
    if total > seg.len() {
        return Err(format!(
            "problem of {total} bytes in a mapping of {}",
            seg.len()
        ));
    }
    let (rows, nnz) = (rows as usize, nnz as usize);
    // SAFETY: as in `structured_view`.
    unsafe {
        Ok(CsrProblem {
            symmetric,
            lcp,
            step,
            row_ptr: seg.slice(offsets[3], rows + 1),
            col_idx: seg.slice(offsets[4], nnz),
            values: seg.slice(offsets[2], nnz),
            rhs: seg.slice(offsets[1], rows),
            row_flags: flags.then(|| &*seg.slice(offsets[5], rows)),
            pressure: seg.slice(offsets[0], rows),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::sync;

    #[test]
    fn sync_copies_every_differing_bit_and_only_whole_blocks() {
        let src: Vec<f64> = (0..3000).map(|i| f64::from(i) * 0.5).collect();
        let mut dst = src.clone();
        // Equal under `==` but not bit for bit, and NaN: both must be rewritten.
        dst[10] = -src[0];
        let mut src = src;
        src[2999] = f64::NAN;
        dst[1500] = 7.0;
        sync(&mut dst, &src);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&dst), bits(&src));
    }
}
