use super::{LoadedPlugin, PluginError};
use crate::abi::{self, ErrorBuf, ParamValue, SolveStats};
use crate::sdk::Problem;
use std::ffi::{c_char, c_void, CString};
use std::sync::Arc;

const ERROR_CAPACITY: usize = 1024;

/// A live solver instance of a plugin algorithm. Destroyed on drop.
pub struct SolverInstance {
    plugin: Arc<LoadedPlugin>,
    algorithm: String,
    handle: *mut c_void,
    poisoned: bool,
}

// SAFETY: an instance is used by one thread at a time (`&mut self` on `solve`); the ABI requires
// plugin instances to be movable between threads.
unsafe impl Send for SolverInstance {}

fn message(buf: &[u8]) -> String {
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    let text = String::from_utf8_lossy(&buf[..end]).into_owned();
    if text.is_empty() {
        "no message".into()
    } else {
        text
    }
}

impl SolverInstance {
    /// Creates an instance of `algorithm` with `params` (name, value) pairs.
    ///
    /// # Errors
    /// [`PluginError::UnknownAlgorithm`], or [`PluginError::Call`] with the plugin's message.
    pub fn create(
        plugin: Arc<LoadedPlugin>,
        algorithm: &str,
        params: &[(String, f64)],
    ) -> Result<Self, PluginError> {
        let info = plugin
            .algorithm(algorithm)
            .ok_or_else(|| PluginError::UnknownAlgorithm(format!("{}/{algorithm}", plugin.id)))?;
        let names: Vec<CString> = params
            .iter()
            .map(|(n, _)| CString::new(n.as_str()).unwrap_or_default())
            .collect();
        let values: Vec<ParamValue> = names
            .iter()
            .zip(params)
            .map(|(n, (_, v))| ParamValue {
                name: n.as_ptr(),
                value: *v,
            })
            .collect();
        let mut handle = std::ptr::null_mut();
        let mut buf = vec![0u8; ERROR_CAPACITY];
        let mut err = ErrorBuf {
            data: buf.as_mut_ptr().cast::<c_char>(),
            capacity: buf.len(),
        };
        // SAFETY: the table was checked at load; `values` and `names` outlive the call.
        let status = unsafe {
            ((*plugin.table).create)(
                info.index,
                values.as_ptr(),
                values.len() as u32,
                &mut handle,
                &mut err,
            )
        };
        if status != abi::STATUS_OK || handle.is_null() {
            return Err(PluginError::Call {
                plugin: plugin.id.clone(),
                algorithm: algorithm.into(),
                status,
                message: message(&buf),
            });
        }
        Ok(Self {
            plugin,
            algorithm: algorithm.into(),
            handle,
            poisoned: false,
        })
    }

    /// `plugin/algorithm`.
    pub fn qualified_name(&self) -> String {
        format!("{}/{}", self.plugin.id, self.algorithm)
    }

    /// Solves `problem` in place.
    ///
    /// # Errors
    /// [`PluginError::Call`] with the plugin's message. After a panic inside the plugin the
    /// instance refuses further calls.
    pub fn solve(&mut self, problem: &mut Problem<'_>) -> Result<SolveStats, PluginError> {
        let fail = |status, message: String| PluginError::Call {
            plugin: self.plugin.id.clone(),
            algorithm: self.algorithm.clone(),
            status,
            message,
        };
        if self.poisoned {
            return Err(fail(
                abi::STATUS_PANIC,
                "instance unusable after an earlier panic".into(),
            ));
        }
        problem
            .validate()
            .map_err(|e| fail(abi::STATUS_BAD_VALUE, e.to_string()))?;
        let raw = problem.to_abi();
        let mut stats = SolveStats::default();
        let mut buf = vec![0u8; ERROR_CAPACITY];
        let mut err = ErrorBuf {
            data: buf.as_mut_ptr().cast::<c_char>(),
            capacity: buf.len(),
        };
        // SAFETY: `raw` borrows `problem`'s validated arrays for the duration of the call.
        let status =
            unsafe { ((*self.plugin.table).solve)(self.handle, &raw, &mut stats, &mut err) };
        if status == abi::STATUS_PANIC {
            self.poisoned = true;
        }
        if status != abi::STATUS_OK {
            return Err(fail(status, message(&buf)));
        }
        Ok(stats)
    }
}

impl Drop for SolverInstance {
    fn drop(&mut self) {
        if !self.poisoned {
            // SAFETY: `handle` came from this plugin's `create` and is destroyed once.
            unsafe { ((*self.plugin.table).destroy)(self.handle) };
        }
    }
}
