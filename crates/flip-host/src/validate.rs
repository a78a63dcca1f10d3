//! Everything the host checks in a plugin's table before it uses it: required entries, counts,
//! strings (bounded, UTF-8, sanitised), ids, capabilities and parameter schemas. Each error
//! names the entry or field; the caller adds the file.

use super::loaded::{AlgorithmInfo, ParamInfo};
use super::mapped::Pointers;
use flip_abi::text::{is_valid_id, is_valid_param_name, sanitize};
use flip_abi::{self as abi, AlgorithmDesc, ParamDesc, PluginTable, RESERVED_PARAM_NAMES};
use flip_sdk::ParamKind;
use std::collections::HashSet;
use std::ffi::c_char;

/// Why a plugin's text could not be read (the caller names the field before it).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum TextError {
    /// A null pointer.
    #[error("is null")]
    Null,
    /// No NUL within the bound.
    #[error("is longer than {0} bytes (or not NUL-terminated)")]
    TooLong(usize),
    /// Bytes that are not UTF-8.
    #[error("is not UTF-8")]
    NotUtf8(#[source] std::str::Utf8Error),
}

/// Reads a NUL-terminated UTF-8 string of at most `cap` bytes, sanitised.
///
/// # Safety
/// `p` is null or readable up to its NUL or `cap + 1` bytes, whichever comes first.
pub(super) unsafe fn read_text(p: *const c_char, cap: usize) -> Result<String, TextError> {
    if p.is_null() {
        return Err(TextError::Null);
    }
    let mut len = 0;
    // SAFETY: reads byte by byte and stops at the NUL or after `cap + 1` bytes.
    while unsafe { *p.add(len) } != 0 {
        if len == cap {
            return Err(TextError::TooLong(cap));
        }
        len += 1;
    }
    // SAFETY: the `len` bytes before the NUL were just read.
    let bytes = unsafe { std::slice::from_raw_parts(p.cast::<u8>(), len) };
    std::str::from_utf8(bytes)
        .map(|s| sanitize(s).into_owned())
        .map_err(TextError::NotUtf8)
}

/// Reads a text field, naming it in the error: first checked to start in readable memory,
/// then read no further than readable memory goes.
///
/// # Safety
/// As [`read_text`], where `ptrs` lists no mappings.
pub(super) unsafe fn field(
    p: *const c_char,
    cap: usize,
    what: &str,
    ptrs: &Pointers,
) -> Result<String, String> {
    if !p.is_null() {
        ptrs.readable(what, p as usize, 1)?;
    }
    let cap = ptrs.text_cap(p as usize, cap);
    // SAFETY: the caller's contract, within readable memory.
    unsafe { read_text(p, cap) }.map_err(|e| format!("{what} {e}"))
}

/// What is wrong with a plugin table's entries.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum EntriesError {
    /// A required entry is null.
    #[error("required entry `{0}` is null")]
    Missing(&'static str),
    /// Some but not all of the saved-state entries.
    #[error("`state_size`, `save_state` and `load_state` must be all present or all null")]
    PartialState,
    /// More algorithms than the ABI allows.
    #[error("algorithm_count {0} exceeds the limit of {limit}", limit = abi::MAX_ALGORITHMS)]
    TooManyAlgorithms(u32),
}

/// Checks that the required entries are present and the state entries come all or none.
pub(super) fn check_entries(t: &PluginTable) -> Result<(), EntriesError> {
    let required = [
        ("describe", t.describe.is_some()),
        ("create", t.create.is_some()),
        ("solve", t.solve.is_some()),
        ("destroy", t.destroy.is_some()),
        ("reset", t.reset.is_some()),
    ];
    if let Some((name, _)) = required.iter().find(|(_, present)| !present) {
        return Err(EntriesError::Missing(name));
    }
    let state = [
        t.state_size.is_some(),
        t.save_state.is_some(),
        t.load_state.is_some(),
    ];
    if state.iter().any(|&s| s) && !state.iter().all(|&s| s) {
        return Err(EntriesError::PartialState);
    }
    if t.algorithm_count > abi::MAX_ALGORITHMS {
        return Err(EntriesError::TooManyAlgorithms(t.algorithm_count));
    }
    Ok(())
}

/// Reads and checks every algorithm of a checked table.
///
/// # Safety
/// `t` passed [`check_entries`] and its header matched this ABI.
pub(super) unsafe fn algorithms(
    t: &PluginTable,
    plugin: &str,
    ptrs: &Pointers,
) -> Result<Vec<AlgorithmInfo>, String> {
    let describe = t.describe.ok_or("required entry `describe` is null")?;
    let mut out: Vec<AlgorithmInfo> = Vec::with_capacity(t.algorithm_count as usize);
    for index in 0..t.algorithm_count {
        // Zeroed: a `describe` that returns OK without writing leaves a null name.
        // SAFETY: AlgorithmDesc is plain data; all-zero is a valid (null) value.
        let mut desc: AlgorithmDesc = unsafe { std::mem::zeroed() };
        // SAFETY: `describe` writes one AlgorithmDesc (ABI contract).
        let status = unsafe { describe(index, &mut desc) };
        if status != abi::STATUS_OK {
            return Err(format!("describe({index}) returned status {status}"));
        }
        if desc.name.is_null() {
            let wrote_some = !desc.label.is_null()
                || !desc.help.is_null()
                || !desc.params.is_null()
                || desc.capabilities != 0
                || desc.param_count != 0;
            return Err(if wrote_some {
                format!("describe({index}) wrote a description whose `name` is null")
            } else {
                format!("describe({index}) returned OK but wrote no description")
            });
        }
        // SAFETY: the description's pointers are the plugin's (ABI contract, bounded reads).
        let info = unsafe { algorithm(&desc, index, plugin, ptrs) }
            .map_err(|e| format!("algorithm #{index}: {e}"))?;
        if out.iter().any(|a| a.name == info.name) {
            return Err(format!("algorithm name `{}` appears twice", info.name));
        }
        out.push(info);
    }
    if let Some(a) = out.iter().find(|a| a.saves_state()) {
        if t.state_size.is_none() {
            return Err(format!(
                "`{}` claims to save state, but `state_size`, `save_state` and `load_state` are null",
                a.name
            ));
        }
    }
    Ok(out)
}

/// # Safety
/// `d` came from the plugin's `describe`.
unsafe fn algorithm(
    d: &AlgorithmDesc,
    index: u32,
    plugin: &str,
    ptrs: &Pointers,
) -> Result<AlgorithmInfo, String> {
    // SAFETY: the caller's contract; every read is bounded.
    let name = unsafe { field(d.name, abi::MAX_ID_LEN, "name", ptrs) }?;
    if !is_valid_id(&name) {
        return Err(format!("name `{name}` is not an id of [a-z0-9_-]{{1,32}}"));
    }
    let caps = d.capabilities;
    let what = |w: &str| format!("`{name}`: {w}");
    if caps & !abi::CAP_ALL != 0 {
        return Err(what(&format!(
            "unknown capability bits {:#x}",
            caps & !abi::CAP_ALL
        )));
    }
    if caps & (abi::CAP_LINEAR | abi::CAP_LCP) == 0 || caps & abi::CAP_KINDS == 0 {
        return Err(what(
            "capabilities must name a problem (linear/LCP) and a kind (structured/CSR/tall-cell)",
        ));
    }
    if caps & abi::CAP_DISTRIBUTED != 0 && caps & abi::CAP_STRUCTURED == 0 {
        return Err(what("the distributed capability needs structured problems"));
    }
    if d.param_count > abi::MAX_PARAMS {
        return Err(what(&format!(
            "param_count {} exceeds {}",
            d.param_count,
            abi::MAX_PARAMS
        )));
    }
    if d.param_count > 0 && d.params.is_null() {
        return Err(what(&format!(
            "params is null but param_count is {}",
            d.param_count
        )));
    }
    let size = d.param_count as usize * std::mem::size_of::<ParamDesc>();
    if size > 0 {
        (ptrs.readable("params", d.params as usize, size)).map_err(|e| what(&e))?;
    }
    let mut params: Vec<ParamInfo> = Vec::with_capacity(d.param_count as usize);
    for i in 0..d.param_count as usize {
        // SAFETY: `params` holds `param_count` entries (ABI contract), readable.
        let p = unsafe { param(&*d.params.add(i), ptrs) }
            .map_err(|e| what(&format!("parameter #{i}: {e}")))?;
        if params.iter().any(|q| q.name == p.name) {
            return Err(what(&format!("parameter `{}` appears twice", p.name)));
        }
        params.push(p);
    }
    Ok(AlgorithmInfo {
        plugin: plugin.to_owned(),
        index,
        // SAFETY: as above.
        label: unsafe { field(d.label, abi::MAX_TEXT_LEN, "label", ptrs) }.map_err(|e| what(&e))?,
        // SAFETY: as above.
        help: unsafe { field(d.help, abi::MAX_HELP_LEN, "help", ptrs) }.map_err(|e| what(&e))?,
        name,
        capabilities: caps,
        params,
    })
}

/// # Safety
/// `p` came from the plugin's description.
pub(super) unsafe fn param(p: &ParamDesc, ptrs: &Pointers) -> Result<ParamInfo, String> {
    // SAFETY: bounded reads of the plugin's strings.
    let name = unsafe { field(p.name, abi::MAX_ID_LEN, "name", ptrs) }?;
    let named = |e: String| format!("`{name}`: {e}");
    if !is_valid_param_name(&name) {
        return Err(named("not a name of [a-z0-9_]{1,32}".into()));
    }
    if RESERVED_PARAM_NAMES.contains(&name.as_str()) {
        return Err(named("reserved by the pressure node".into()));
    }
    let kind = match p.kind {
        abi::PARAM_FLOAT => ParamKind::Float,
        abi::PARAM_INT => ParamKind::Int,
        abi::PARAM_BOOL => ParamKind::Bool,
        abi::PARAM_CHOICE => ParamKind::Choice,
        k => return Err(named(format!("unknown kind {k}"))),
    };
    if p.choice_count > abi::MAX_CHOICES {
        return Err(named(format!(
            "choice_count {} exceeds {}",
            p.choice_count,
            abi::MAX_CHOICES
        )));
    }
    if p.choice_count > 0 && p.choices.is_null() {
        return Err(named(format!(
            "choices is null but choice_count is {}",
            p.choice_count
        )));
    }
    let size = p.choice_count as usize * std::mem::size_of::<*const c_char>();
    if size > 0 {
        (ptrs.readable("choices", p.choices as usize, size)).map_err(named)?;
    }
    let mut choices = Vec::with_capacity(p.choice_count as usize);
    for c in 0..p.choice_count as usize {
        // SAFETY: `choices` holds `choice_count` string pointers (ABI contract), readable.
        let label = unsafe { field(*p.choices.add(c), abi::MAX_TEXT_LEN, "choice", ptrs) };
        choices.push(label.map_err(|e| named(format!("#{c} {e}")))?);
    }
    let info = ParamInfo {
        // SAFETY: as above.
        label: unsafe { field(p.label, abi::MAX_TEXT_LEN, "label", ptrs) }.map_err(named)?,
        // SAFETY: as above.
        help: unsafe { field(p.help, abi::MAX_HELP_LEN, "help", ptrs) }.map_err(named)?,
        name: name.clone(),
        kind,
        default: p.default,
        min: p.min,
        max: p.max,
        choices,
    };
    check_schema(&info).map_err(named)?;
    Ok(info)
}

/// Range, default and choice rules of one parameter.
fn check_schema(p: &ParamInfo) -> Result<(), String> {
    if p.min.is_nan() || p.max.is_nan() || p.min > p.max {
        return Err(format!("range [{}, {}] is empty or NaN", p.min, p.max));
    }
    if !p.default.is_finite() || p.default < p.min || p.default > p.max {
        return Err(format!(
            "default {} is not finite within [{}, {}]",
            p.default, p.min, p.max
        ));
    }
    let integral = |v: f64| v.is_finite() && v.fract() == 0.0;
    match p.kind {
        ParamKind::Float => Ok(()),
        ParamKind::Int if integral(p.min) && integral(p.max) && integral(p.default) => Ok(()),
        ParamKind::Int => {
            Err("integer parameter with fractional or infinite bounds or default".into())
        }
        ParamKind::Bool if (p.min, p.max) == (0.0, 1.0) && integral(p.default) => Ok(()),
        ParamKind::Bool => {
            Err("boolean parameter must range over [0, 1] with default 0 or 1".into())
        }
        ParamKind::Choice => {
            let n = p.choices.len();
            let distinct = p.choices.iter().collect::<HashSet<_>>().len() == n;
            if n == 0
                || p.min != 0.0
                || p.max != (n - 1) as f64
                || !integral(p.default)
                || !distinct
            {
                return Err(format!(
                    "choice parameter needs 1..=64 distinct labels, min 0, max {} and a valid default index (got default {})",
                    n.max(1) - 1,
                    p.default
                ));
            }
            Ok(())
        }
    }
}
