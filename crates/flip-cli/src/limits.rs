//! How much more memory this process may use: the machine's available memory, its cgroup's
//! limit (v2 and v1) and its address-space / data rlimits, whichever is smallest.

/// The smallest of the memory limits that apply, with where it comes from.
pub fn available_memory() -> Option<(u64, String)> {
    [
        meminfo_available(),
        cgroup_v2(),
        cgroup_v1(),
        rlimit(libc::RLIMIT_AS, "ulimit -v"),
        rlimit(libc::RLIMIT_DATA, "ulimit -d"),
    ]
    .into_iter()
    .flatten()
    .min_by_key(|(bytes, _)| *bytes)
}

fn meminfo_available() -> Option<(u64, String)> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some((kib * 1024, "MemAvailable in /proc/meminfo".into()))
}

/// This process's cgroup folder (v2: the `0::` line of /proc/self/cgroup).
fn cgroup_dir(controller: Option<&str>) -> Option<std::path::PathBuf> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = text.lines().find_map(|l| {
        let mut parts = l.splitn(3, ':');
        let (_, names, path) = (parts.next()?, parts.next()?, parts.next()?);
        let ours = match controller {
            None => names.is_empty(),
            Some(c) => names.split(',').any(|n| n == c),
        };
        ours.then(|| path.trim_start_matches('/').to_string())
    })?;
    let root = match controller {
        None => "/sys/fs/cgroup".to_string(),
        Some(c) => format!("/sys/fs/cgroup/{c}"),
    };
    Some(std::path::Path::new(&root).join(path))
}

fn read_u64(path: &std::path::Path) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

fn cgroup_v2() -> Option<(u64, String)> {
    let dir = cgroup_dir(None)?;
    let max = read_u64(&dir.join("memory.max"))?; // "max" (no limit) does not parse
    let used = read_u64(&dir.join("memory.current")).unwrap_or(0);
    Some((
        max.saturating_sub(used),
        format!("{}/memory.max", dir.display()),
    ))
}

fn cgroup_v1() -> Option<(u64, String)> {
    let dir = cgroup_dir(Some("memory"))?;
    let max = read_u64(&dir.join("memory.limit_in_bytes"))?;
    if max >= 1 << 60 {
        return None; // the "unlimited" value
    }
    let used = read_u64(&dir.join("memory.usage_in_bytes")).unwrap_or(0);
    let source = format!("{}/memory.limit_in_bytes", dir.display());
    Some((max.saturating_sub(used), source))
}

/// An address-space or data rlimit, less what the process already maps.
fn rlimit(resource: libc::__rlimit_resource_t, name: &str) -> Option<(u64, String)> {
    // SAFETY: an all-zero rlimit is valid; getrlimit only writes into it.
    let mut lim: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: `lim` is a valid out-pointer.
    if unsafe { libc::getrlimit(resource, &mut lim) } != 0 || lim.rlim_cur == libc::RLIM_INFINITY {
        return None;
    }
    let mapped = statm(0) * page_size();
    Some((
        lim.rlim_cur.saturating_sub(mapped),
        format!("the `{name}` limit"),
    ))
}

/// Field `index` of /proc/self/statm (pages): 0 mapped, 1 resident.
fn statm(index: usize) -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(index)?.parse().ok())
        .unwrap_or(0)
}

fn page_size() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    u64::try_from(size).unwrap_or(4096)
}

/// Resident memory of this process now (bytes).
pub fn current_rss() -> u64 {
    statm(1) * page_size()
}

/// Peak resident memory of this process so far (bytes), from getrusage.
pub fn peak_rss() -> u64 {
    // SAFETY: an all-zero rusage is valid and getrusage only writes into it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid out-pointer.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return 0;
    }
    u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024
}
