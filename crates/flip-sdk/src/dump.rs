//! A plain binary file format for pressure problems, so solver authors can replay the exact
//! systems a simulation produced (the pressure node's `dump_problems` parameter writes them).
//!
//! Layout (little endian): magic `FGPROB03`, dims `3×u32`, dimension `u32`, dx `f64`, lcp `u32`,
//! step `u64`, problem kind `u32` (`abi::PROBLEM_STRUCTURED` or `abi::PROBLEM_COUPLED`), then
//! per cell: cell_kind `u8`, diag `f32`, off_x/off_y/off_z `f32`, rhs `f64`, liquid_phi `f32`,
//! solid_phi `f32`, complementarity `u8`, face_open_x/y/z `f32`, pressure (initial guess) `f64`
//! — each as one contiguous array of `ni·nj·nk` values. A coupled problem then holds its
//! bodies' terms (meaning: `abi::CoupledProblem`): body_count `u32`, dofs `u32`, column_start
//! `(body_count·dofs + 1)×u64`, column_cells `u32` and column_values `f64` (as many as the last
//! column_start), weight `(body_count·dofs²)×f64`. Version-2 files (`FGPROB02`, no kind:
//! structured) and version-1 files (`FGPROB01`, voxelized, no face fractions: their faces are
//! opened and closed from the cell kinds) are read too.

use super::{OwnedBodyTerms, OwnedProblem, Problem};
use crate::coupled::body_dofs;
use crate::CoupledProblem;
use flip_abi::{PROBLEM_COUPLED, PROBLEM_STRUCTURED};
use std::io::Write;

/// File magic.
pub const DUMP_MAGIC: &[u8; 8] = b"FGPROB03";
/// Magic of the version-2 dumps (structured problems only, no kind).
const DUMP_MAGIC_V2: &[u8; 8] = b"FGPROB02";
/// Magic of the voxelized version-1 dumps.
const DUMP_MAGIC_V1: &[u8; 8] = b"FGPROB01";

/// A problem read from a dump: structured, or coupled with rigid bodies.
#[derive(Clone, Debug, PartialEq)]
pub enum DumpedProblem {
    /// `abi::PROBLEM_STRUCTURED`.
    Structured(OwnedProblem),
    /// `abi::PROBLEM_COUPLED`: the structured problem and the bodies' terms.
    Coupled(OwnedProblem, OwnedBodyTerms),
}

impl DumpedProblem {
    /// The ABI kind tag.
    pub fn kind(&self) -> u32 {
        match self {
            Self::Structured(_) => PROBLEM_STRUCTURED,
            Self::Coupled(..) => PROBLEM_COUPLED,
        }
    }

    /// The structured problem (a coupled one's grid).
    pub fn grid(&self) -> &OwnedProblem {
        match self {
            Self::Structured(p) | Self::Coupled(p, _) => p,
        }
    }

    /// The structured problem, mutable (a coupled one's grid).
    pub fn grid_mut(&mut self) -> &mut OwnedProblem {
        match self {
            Self::Structured(p) | Self::Coupled(p, _) => p,
        }
    }

    /// Parses a dump of either kind.
    ///
    /// # Errors
    /// [`DumpError`] for a wrong magic or kind, or a truncated file.
    pub fn parse(bytes: &[u8]) -> Result<Self, DumpError> {
        let mut r = Reader(bytes);
        let version = match r.take(8)? {
            m if m == DUMP_MAGIC => 3,
            m if m == DUMP_MAGIC_V2 => 2,
            m if m == DUMP_MAGIC_V1 => 1,
            _ => return Err(DumpError::NotADump),
        };
        let dims = [r.u32()? as usize, r.u32()? as usize, r.u32()? as usize];
        let dimension = r.u32()? as usize;
        let dx = r.f64s(1)?[0];
        let lcp = r.u32()? != 0;
        let step = u64::from_le_bytes(r.take(8)?.try_into().expect("8 bytes"));
        let kind = if version == 3 {
            r.u32()?
        } else {
            PROBLEM_STRUCTURED
        };
        if kind != PROBLEM_STRUCTURED && kind != PROBLEM_COUPLED {
            return Err(DumpError::Kind(kind));
        }
        let n = dims.iter().product();
        let mut p = OwnedProblem {
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
        if version == 1 {
            p.open_faces_from_kinds();
        } else {
            p.face_open = [r.f32s(n)?.into(), r.f32s(n)?.into(), r.f32s(n)?.into()];
        }
        p.pressure = r.f64s(n)?;
        if kind == PROBLEM_STRUCTURED {
            return Ok(Self::Structured(p));
        }
        let bodies = r.body_terms(dimension)?;
        Ok(Self::Coupled(p, bodies))
    }
}

impl Problem<'_> {
    /// Writes this problem in the dump format.
    ///
    /// # Errors
    /// I/O errors.
    pub fn write_dump(&self, w: impl Write) -> std::io::Result<()> {
        self.write_dump_as(PROBLEM_STRUCTURED, w)
    }

    /// Writes the header and the structured arrays, tagged `kind`.
    fn write_dump_as(&self, kind: u32, mut w: impl Write) -> std::io::Result<()> {
        w.write_all(DUMP_MAGIC)?;
        for d in self.dims {
            w.write_all(&(d as u32).to_le_bytes())?;
        }
        w.write_all(&(self.dimension as u32).to_le_bytes())?;
        w.write_all(&self.dx.to_le_bytes())?;
        w.write_all(&u32::from(self.lcp).to_le_bytes())?;
        w.write_all(&self.step.to_le_bytes())?;
        w.write_all(&kind.to_le_bytes())?;
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

impl CoupledProblem<'_> {
    /// Writes this problem in the dump format: the grid, then the bodies' terms.
    ///
    /// # Errors
    /// I/O errors.
    pub fn write_dump(&self, mut w: impl Write) -> std::io::Result<()> {
        self.grid.write_dump_as(PROBLEM_COUPLED, &mut w)?;
        let b = &self.bodies;
        w.write_all(&(b.body_count() as u32).to_le_bytes())?;
        w.write_all(&(b.dofs as u32).to_le_bytes())?;
        b.column_start
            .iter()
            .try_for_each(|v| w.write_all(&v.to_le_bytes()))?;
        b.column_cells
            .iter()
            .try_for_each(|v| w.write_all(&v.to_le_bytes()))?;
        for a in [b.column_values, b.weight] {
            a.iter().try_for_each(|v| w.write_all(&v.to_le_bytes()))?;
        }
        Ok(())
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
    /// The header names a problem kind that dumps do not hold.
    #[error("a pressure-problem dump of unknown kind {0}")]
    Kind(u32),
    /// A coupled problem (rigid bodies) read as a structured one: read it with
    /// [`DumpedProblem::parse`].
    #[error("a coupled pressure-problem dump (rigid bodies), not a structured one")]
    Coupled,
    /// The bodies' counts do not fit the problem.
    #[error("the bodies' terms of the dump do not fit its problem")]
    Bodies,
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
    /// `n` little-endian words of `N` bytes, decoded by `from`.
    fn words<const N: usize, T>(
        &mut self,
        n: usize,
        from: fn([u8; N]) -> T,
    ) -> Result<Vec<T>, DumpError> {
        let bytes = self.take(n.checked_mul(N).ok_or(DumpError::Truncated)?)?;
        Ok(bytes
            .chunks_exact(N)
            .map(|c| from(c.try_into().expect("N bytes")))
            .collect())
    }
    fn f32s(&mut self, n: usize) -> Result<Vec<f32>, DumpError> {
        self.words(n, f32::from_le_bytes)
    }
    fn f64s(&mut self, n: usize) -> Result<Vec<f64>, DumpError> {
        self.words(n, f64::from_le_bytes)
    }
    fn u64s(&mut self, n: usize) -> Result<Vec<u64>, DumpError> {
        self.words(n, u64::from_le_bytes)
    }
    fn u32s(&mut self, n: usize) -> Result<Vec<u32>, DumpError> {
        self.words(n, u32::from_le_bytes)
    }
    /// The bodies' terms of a coupled problem in `dimension` (sizes checked against the bytes
    /// left; the contract itself by `CoupledProblem::validate`).
    fn body_terms(&mut self, dimension: usize) -> Result<OwnedBodyTerms, DumpError> {
        let (count, dofs) = (self.u32()? as usize, self.u32()? as usize);
        if dofs != body_dofs(dimension) {
            return Err(DumpError::Bodies);
        }
        let columns = count.checked_mul(dofs).ok_or(DumpError::Bodies)?;
        // at least one column start (8 bytes) per column: no huge allocation from a bad count
        if columns >= self.0.len() / 8 {
            return Err(DumpError::Truncated);
        }
        let column_start = self.u64s(columns + 1)?;
        let entries = usize::try_from(column_start[columns]).map_err(|_| DumpError::Bodies)?;
        if entries > self.0.len() / 12 {
            return Err(DumpError::Truncated);
        }
        Ok(OwnedBodyTerms {
            dofs,
            column_start,
            column_cells: self.u32s(entries)?,
            column_values: self.f64s(entries)?,
            weight: self.f64s(columns * dofs)?,
        })
    }
}

impl OwnedProblem {
    /// Parses a dump of a structured problem.
    ///
    /// # Errors
    /// [`DumpError`] for a wrong magic, a truncated file or a coupled problem
    /// ([`DumpedProblem::parse`] reads those).
    pub fn parse_dump(bytes: &[u8]) -> Result<Self, DumpError> {
        match DumpedProblem::parse(bytes)? {
            DumpedProblem::Structured(p) => Ok(p),
            DumpedProblem::Coupled(..) => Err(DumpError::Coupled),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem() -> OwnedProblem {
        OwnedProblem {
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
        }
    }

    #[test]
    fn dump_round_trips() {
        let mut d = problem();
        let mut bytes = Vec::new();
        d.view().write_dump(&mut bytes).unwrap();
        assert_eq!(OwnedProblem::parse_dump(&bytes).unwrap(), d);
        assert!(OwnedProblem::parse_dump(&bytes[..bytes.len() - 1]).is_err());
    }

    /// Two bodies (one out of the liquid: empty columns) of a 2D coupled problem: the kind,
    /// the grid and every term come back; a structured reader refuses it by name.
    #[test]
    fn a_coupled_dump_round_trips_with_its_bodies() {
        let mut grid = problem();
        grid.lcp = false;
        let mut bodies = OwnedBodyTerms::new(3);
        for q in 0..6 {
            let entries = [(0, 0.25 * q as f64), (3, -1.5), (4, 1e-3 * q as f64)];
            bodies.push_column(entries.into_iter().take(if q < 3 { 3 } else { 0 }));
        }
        bodies.weight = (0..18).map(|v| 1.0 + f64::from(v) / 7.0).collect();
        let mut bytes = Vec::new();
        CoupledProblem {
            grid: grid.view(),
            bodies: bodies.view(),
        }
        .write_dump(&mut bytes)
        .unwrap();
        let read = DumpedProblem::parse(&bytes).unwrap();
        assert_eq!(read.kind(), PROBLEM_COUPLED);
        assert_eq!(read, DumpedProblem::Coupled(grid, bodies));
        assert_eq!(OwnedProblem::parse_dump(&bytes), Err(DumpError::Coupled));
        for cut in [1, 8, 8 * 18 + 1] {
            let short = &bytes[..bytes.len() - cut];
            assert_eq!(DumpedProblem::parse(short), Err(DumpError::Truncated));
        }
    }
}
