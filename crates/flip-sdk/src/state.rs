//! Saved solver state: little-endian writer/reader helpers for
//! [`super::PressureSolver::save_state`] / [`super::PressureSolver::load_state`], and the
//! envelope the SDK wraps around them (magic `FGST`, envelope version, algorithm name), so a
//! state is never loaded into another algorithm.

use super::SolveError;

/// Envelope magic.
const MAGIC: &[u8; 4] = b"FGST";
/// Envelope version.
const VERSION: u32 = 1;

/// Collects a solver's state.
#[derive(Debug, Default)]
pub struct StateWriter {
    bytes: Vec<u8>,
}

impl StateWriter {
    /// Appends a byte.
    pub fn u8(&mut self, v: u8) {
        self.bytes.push(v);
    }
    /// Appends a `u64`.
    pub fn u64(&mut self, v: u64) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    /// Appends raw bytes (prefixed by their length).
    pub fn bytes(&mut self, v: &[u8]) {
        self.u64(v.len() as u64);
        self.bytes.extend_from_slice(v);
    }
    /// The state written so far.
    pub fn as_slice(&self) -> &[u8] {
        &self.bytes
    }
}

/// Reads a solver's state back.
#[derive(Debug)]
pub struct StateReader<'a> {
    bytes: &'a [u8],
}

impl<'a> StateReader<'a> {
    /// A reader over `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Self { bytes }
    }
    /// Whether everything was read.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.bytes.len()
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8], SolveError> {
        if self.bytes.len() < n {
            return Err(SolveError::BadValue("saved state is truncated".into()));
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }
    /// Reads a byte.
    ///
    /// # Errors
    /// A truncated state.
    pub fn u8(&mut self) -> Result<u8, SolveError> {
        Ok(self.take(1)?[0])
    }
    /// Reads a `u64`.
    ///
    /// # Errors
    /// A truncated state.
    pub fn u64(&mut self) -> Result<u64, SolveError> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8")))
    }
    /// Reads length-prefixed bytes.
    ///
    /// # Errors
    /// A truncated state.
    pub fn bytes(&mut self) -> Result<&'a [u8], SolveError> {
        let n = usize::try_from(self.u64()?).unwrap_or(usize::MAX);
        self.take(n)
    }
}

/// Wraps a solver's `payload` for algorithm `algorithm`.
pub(crate) fn seal(algorithm: &str, payload: &[u8]) -> Vec<u8> {
    let mut w = StateWriter::default();
    w.bytes.extend_from_slice(MAGIC);
    w.u64(u64::from(VERSION));
    w.bytes(algorithm.as_bytes());
    w.bytes(payload);
    w.bytes
}

/// The payload of a sealed state, checked to belong to `algorithm`.
pub(crate) fn open<'a>(algorithm: &str, state: &'a [u8]) -> Result<&'a [u8], SolveError> {
    let mut r = StateReader::new(state);
    if r.take(4).ok() != Some(&MAGIC[..]) || r.u64()? != u64::from(VERSION) {
        return Err(SolveError::BadValue("not a flipgraph solver state".into()));
    }
    let owner = r.bytes()?;
    if owner != algorithm.as_bytes() {
        return Err(SolveError::BadValue(format!(
            "state saved by algorithm `{}`, not `{algorithm}`",
            flip_abi::text::sanitize(&String::from_utf8_lossy(owner))
        )));
    }
    let payload = r.bytes()?;
    if !r.is_empty() {
        return Err(SolveError::BadValue(
            "trailing bytes after the state".into(),
        ));
    }
    Ok(payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_states_round_trip_and_refuse_other_owners() {
        let sealed = seal("pi-pcg", &[1, 2, 3]);
        assert_eq!(open("pi-pcg", &sealed).unwrap(), &[1, 2, 3]);
        assert!(open("pe-pcg", &sealed).is_err());
        assert!(open("pi-pcg", &sealed[..sealed.len() - 1]).is_err());
        assert!(open("pi-pcg", b"garbage").is_err());
    }
}
