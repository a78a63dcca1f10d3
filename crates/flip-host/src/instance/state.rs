//! Reset and saved state of an instance.

use super::local::{message, Buf};
use super::{Backend, SolverInstance};
use crate::isolation::wire::{Answer, Request};
use crate::PluginError;
use flip_abi as abi;

impl SolverInstance {
    /// A status-only call (`reset`, `load_state`): maps a failure to an error.
    fn status(&mut self, status: i32, buf: &Buf) -> Result<(), PluginError> {
        if status == abi::STATUS_PANIC {
            self.poisoned = true;
        }
        if status != abi::STATUS_OK {
            return Err(self.fail(status, message(&buf.0)));
        }
        Ok(())
    }

    /// Makes the instance forget everything learned from earlier solves.
    ///
    /// # Errors
    /// [`PluginError::Call`] with the plugin's message.
    pub fn reset(&mut self) -> Result<(), PluginError> {
        self.usable()?;
        if let Backend::Child(_) = self.backend {
            return self.remote_call(&Request::Reset, "reset").map(drop);
        }
        let mut buf = Buf::new();
        let reset = self.plugin.table().reset.expect("checked at load");
        let _in_flight = self.in_flight("reset");
        // SAFETY: `handle` is live; `buf` outlives the call.
        let status = unsafe { reset(self.handle(), &mut buf.raw()) };
        self.status(status, &buf)
    }

    /// The instance's saved state, or `None` when the plugin has no state support (a resumed
    /// run then re-creates the instance).
    ///
    /// # Errors
    /// [`PluginError::Call`] with the plugin's message, or a size the plugin misreported.
    pub fn save_state(&mut self) -> Result<Option<Vec<u8>>, PluginError> {
        self.usable()?;
        if let Backend::Child(_) = self.backend {
            return match self.remote_call(&Request::SaveState, "save_state")? {
                Answer::State(state) => Ok(state),
                _ => Err(self.protocol("save_state")),
            };
        }
        let t = self.plugin.table();
        let (Some(size_fn), Some(save_fn)) = (t.state_size, t.save_state) else {
            return Ok(None);
        };
        let (mut size, mut buf) = (0u64, Buf::new());
        let _in_flight = self.in_flight("save_state");
        // SAFETY: `handle` is live; out-pointers are valid.
        let status = unsafe { size_fn(self.handle(), &mut size, &mut buf.raw()) };
        self.status(status, &buf)?;
        let size = usize::try_from(size).ok().filter(|&s| s <= 1 << 32);
        let Some(size) = size else {
            return Err(self.fail(abi::STATUS_BAD_VALUE, "state size over 4 GiB".into()));
        };
        let (mut data, mut written) = (vec![0u8; size], 0u64);
        // SAFETY: `data` is writable for `size` bytes.
        let status = unsafe {
            save_fn(
                self.handle(),
                data.as_mut_ptr(),
                size as u64,
                &mut written,
                &mut buf.raw(),
            )
        };
        self.status(status, &buf)?;
        if written > size as u64 {
            return Err(self.fail(
                abi::STATUS_BAD_VALUE,
                format!("claims {written} bytes written into {size}"),
            ));
        }
        data.truncate(written as usize);
        Ok(Some(data))
    }

    /// Replaces the instance's learned state by `state` from [`SolverInstance::save_state`].
    ///
    /// # Errors
    /// [`PluginError::Call`]: no state support, or a state the plugin refuses.
    pub fn load_state(&mut self, state: &[u8]) -> Result<(), PluginError> {
        self.usable()?;
        if let Backend::Child(_) = self.backend {
            let req = Request::LoadState(state.to_vec());
            return self.remote_call(&req, "load_state").map(drop);
        }
        let Some(load) = self.plugin.table().load_state else {
            return Err(self.fail(
                abi::STATUS_UNSUPPORTED,
                "the plugin cannot load saved state".into(),
            ));
        };
        let mut buf = Buf::new();
        let _in_flight = self.in_flight("load_state");
        // SAFETY: `state` is readable for its length during the call.
        let status = unsafe {
            load(
                self.handle(),
                state.as_ptr(),
                state.len() as u64,
                &mut buf.raw(),
            )
        };
        self.status(status, &buf)
    }
}
