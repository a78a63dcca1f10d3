//! A plain binary file format for pressure problems, so solver authors can replay the exact
//! systems a simulation produced (the pressure node's `dump_problems` parameter writes them).
//!
//! Layout (little endian): magic `FGPROB02`, dims `3×u32`, dimension `u32`, dx `f64`, lcp `u32`,
//! step `u64`, then per cell: cell_kind `u8`, diag `f32`, off_x/off_y/off_z `f32`, rhs `f64`,
//! liquid_phi `f32`, solid_phi `f32`, complementarity `u8`, face_open_x/y/z `f32`, pressure
//! (initial guess) `f64` — each as one contiguous array of `ni·nj·nk` values. Version-1 files
//! (`FGPROB01`, voxelized, no face fractions) are read too: their faces are opened and closed
//! from the cell kinds.

use super::{OwnedProblem, Problem};
use std::io::Write;

/// File magic.
pub const DUMP_MAGIC: &[u8; 8] = b"FGPROB02";
/// Magic of the voxelized version-1 dumps.
const DUMP_MAGIC_V1: &[u8; 8] = b"FGPROB01";

impl Problem<'_> {
    /// Writes this problem in the dump format.
    ///
    /// # Errors
    /// I/O errors.
    pub fn write_dump(&self, mut w: impl Write) -> std::io::Result<()> {
        w.write_all(DUMP_MAGIC)?;
        for d in self.dims {
            w.write_all(&(d as u32).to_le_bytes())?;
        }
        w.write_all(&(self.dimension as u32).to_le_bytes())?;
        w.write_all(&self.dx.to_le_bytes())?;
        w.write_all(&u32::from(self.lcp).to_le_bytes())?;
        w.write_all(&self.step.to_le_bytes())?;
        w.write_all(self.cell_kind)?;
        for a in [self.diag, self.off[0], self.off[1], self.off[2]] {
            a.iter().try_for_each(|v| w.write_all(&v.to_le_bytes()))?;
        }
        self.rhs
            .iter()
            .try_for_each(|v| w.write_all(&v.to_le_bytes()))?;
        for a in [self.liquid_phi, self.solid_phi] {
            a.iter().try_for_each(|v| w.write_all(&v.to_le_bytes()))?;
        }
        w.write_all(self.complementarity)?;
        for a in self.face_open {
            a.iter().try_for_each(|v| w.write_all(&v.to_le_bytes()))?;
        }
        self.pressure
            .iter()
            .try_for_each(|v| w.write_all(&v.to_le_bytes()))
    }
}

/// A byte string that is not a pressure-problem dump.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DumpError {
    /// The magic is neither `FGPROB02` nor `FGPROB01`.
    #[error("not a flipgraph pressure-problem dump")]
    NotADump,
    /// The bytes end before the arrays their header announces.
    #[error("truncated pressure-problem dump")]
    Truncated,
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], DumpError> {
        if self.0.len() < n {
            return Err(DumpError::Truncated);
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }
    fn u32(&mut self) -> Result<u32, DumpError> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }
    fn f32s(&mut self, n: usize) -> Result<Vec<f32>, DumpError> {
        Ok(self
            .take(4 * n)?
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4")))
            .collect())
    }
    fn f64s(&mut self, n: usize) -> Result<Vec<f64>, DumpError> {
        Ok(self
            .take(8 * n)?
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().expect("8")))
            .collect())
    }
}

impl OwnedProblem {
    /// Parses a dump.
    ///
    /// # Errors
    /// [`DumpError`] for a wrong magic or a truncated file.
    pub fn parse_dump(bytes: &[u8]) -> Result<Self, DumpError> {
        let mut r = Reader(bytes);
        let v1 = match r.take(8)? {
            m if m == DUMP_MAGIC => false,
            m if m == DUMP_MAGIC_V1 => true,
            _ => return Err(DumpError::NotADump),
        };
        let dims = [r.u32()? as usize, r.u32()? as usize, r.u32()? as usize];
        let dimension = r.u32()? as usize;
        let dx = r.f64s(1)?[0];
        let lcp = r.u32()? != 0;
        let step = u64::from_le_bytes(r.take(8)?.try_into().expect("8 bytes"));
        let n = dims.iter().product();
        let mut p = Self {
            dims,
            dimension,
            dx,
            lcp,
            step,
            cell_kind: r.take(n)?.into(),
            diag: r.f32s(n)?.into(),
            off: [r.f32s(n)?.into(), r.f32s(n)?.into(), r.f32s(n)?.into()],
            rhs: r.f64s(n)?.into(),
            liquid_phi: r.f32s(n)?.into(),
            solid_phi: r.f32s(n)?.into(),
            complementarity: r.take(n)?.into(),
            face_open: Default::default(),
            pressure: Vec::new(),
        };
        if v1 {
            p.open_faces_from_kinds();
        } else {
            p.face_open = [r.f32s(n)?.into(), r.f32s(n)?.into(), r.f32s(n)?.into()];
        }
        p.pressure = r.f64s(n)?;
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dump_round_trips() {
        let mut d = OwnedProblem {
            dims: [3, 2, 1],
            dimension: 2,
            dx: 0.5,
            lcp: true,
            step: 7,
            cell_kind: vec![0, 1, 2, 0, 0, 1].into(),
            diag: vec![1.0; 6].into(),
            off: [
                vec![-1.0; 6].into(),
                vec![-0.5; 6].into(),
                vec![0.0; 6].into(),
            ],
            rhs: (0..6).map(f64::from).collect(),
            liquid_phi: vec![-0.25; 6].into(),
            solid_phi: vec![0.75; 6].into(),
            complementarity: vec![1, 0, 0, 0, 1, 0].into(),
            face_open: [
                vec![0.5; 6].into(),
                vec![1.0; 6].into(),
                vec![0.0; 6].into(),
            ],
            pressure: vec![0.125; 6],
        };
        let mut bytes = Vec::new();
        d.view().write_dump(&mut bytes).unwrap();
        assert_eq!(OwnedProblem::parse_dump(&bytes).unwrap(), d);
        assert!(OwnedProblem::parse_dump(&bytes[..bytes.len() - 1]).is_err());
    }
}
