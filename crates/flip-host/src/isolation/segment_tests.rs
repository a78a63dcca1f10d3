//! The input segment's seals: whoever maps it after the host, through any route, cannot write
//! it or change its size, while the host's own mapping stays writable.

use super::{Access, Segment};
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;

/// `open(2)` of `path` with `flags`; the descriptor or the error.
fn open(path: &std::path::Path, flags: libc::c_int) -> Result<libc::c_int, std::io::Error> {
    let c = CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid C string.
    let fd = unsafe { libc::open(c.as_ptr(), flags) };
    if fd < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(fd)
    }
}

/// Every way another mapping could change the file; `Ok` for each that succeeded.
fn attacks(path: &std::path::Path, len: usize) -> Vec<(&'static str, bool)> {
    let mut out = Vec::new();
    // SAFETY: plain system calls on descriptors and mappings made here; a mapping that
    // succeeds is only unmapped.
    unsafe {
        // The /proc path opens read-write (the file is the host's, same user).
        let rw = open(path, libc::O_RDWR).expect("open read-write");
        let byte = [0x5au8];
        out.push((
            "write(2)",
            libc::pwrite(rw, byte.as_ptr().cast(), 1, 0) == 1,
        ));
        let shared_rw = libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            rw,
            0,
        );
        out.push(("writable shared mmap", shared_rw != libc::MAP_FAILED));
        if shared_rw != libc::MAP_FAILED {
            libc::munmap(shared_rw, len);
        }
        let ro = libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_SHARED,
            rw,
            0,
        );
        assert_ne!(ro, libc::MAP_FAILED, "a read-only mapping is allowed");
        let upgraded = libc::mprotect(ro, len, libc::PROT_READ | libc::PROT_WRITE) == 0;
        out.push(("mprotect to writable", upgraded));
        libc::munmap(ro, len);
        out.push(("ftruncate (shrink)", libc::ftruncate(rw, 0) == 0));
        out.push(("ftruncate (grow)", libc::ftruncate(rw, 2 * len as i64) == 0));
        let punch = libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE;
        out.push((
            "fallocate punch hole",
            libc::fallocate(rw, punch, 0, len as i64) == 0,
        ));
        libc::close(rw);
    }
    out
}

#[test]
fn no_later_mapping_can_write_or_resize_the_sealed_inputs() {
    let len = 3 * 4096;
    let seg = Segment::create(len, Access::ReadOnly).unwrap();
    let path = seg.proc_path().unwrap();
    // SAFETY: the host's own writable mapping, this test's only reference to it.
    let host = unsafe { seg.slice_mut::<u8>(0, len) };
    host.fill(7);
    let succeeded: Vec<_> = attacks(&path, len)
        .into_iter()
        .filter(|&(_, ok)| ok)
        .map(|(name, _)| name)
        .collect();
    assert!(succeeded.is_empty(), "these got through: {succeeded:?}");
    assert!(host.iter().all(|&b| b == 7), "the inputs changed");
    assert_eq!(std::fs::metadata(&path).unwrap().len(), len as u64);
    // The host still writes through the mapping it made before sealing.
    host[5] = 9;
    let child = Segment::open(&path, len, Access::ReadOnly).unwrap();
    // SAFETY: in bounds; read only.
    assert_eq!(
        unsafe { child.slice::<u8>(0, 8) },
        &[7, 7, 7, 7, 7, 9, 7, 7]
    );
}

#[test]
fn the_exchange_is_writable_by_both_but_keeps_its_size() {
    let len = 4096;
    let seg = Segment::create(len, Access::Shared).unwrap();
    let path = seg.proc_path().unwrap();
    let other = Segment::open(&path, len, Access::Shared).unwrap();
    // SAFETY: two mappings of one file; each slice is the only reference in its mapping.
    unsafe {
        other.slice_mut::<f64>(64, 1)[0] = 2.5;
        assert_eq!(seg.slice::<f64>(64, 1)[0], 2.5);
    }
    let rw = open(&path, libc::O_RDWR).unwrap();
    // SAFETY: a descriptor opened here.
    let (shrunk, grown) = unsafe {
        let r = (libc::ftruncate(rw, 0) == 0, libc::ftruncate(rw, 8192) == 0);
        libc::close(rw);
        r
    };
    assert!(!shrunk && !grown, "resized under the host");
}
