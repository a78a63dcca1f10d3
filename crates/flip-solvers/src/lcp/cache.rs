//! What a solver keeps between solves: the fine system and what is built from it (the fine
//! level, or the whole hierarchy), rebuilt in place only when the matrix or S changed.

use super::level::{Level, Scratch};
use super::system::FineSystem;
use flip_sdk::Problem;

/// A copy of everything a hierarchy depends on, compared in place with each new problem.
#[derive(Clone, Debug, Default)]
struct MatrixKey {
    dims: [usize; 3],
    lcp: bool,
    kind: Vec<u8>,
    diag: Vec<f32>,
    off: [Vec<f32>; 3],
    complementarity: Vec<u8>,
}

impl MatrixKey {
    /// Whether `p` has this key's matrix and S.
    fn matches(&self, p: &Problem<'_>) -> bool {
        self.dims == p.dims
            && self.lcp == p.lcp
            && self.kind[..] == p.cell_kind[..]
            && self.diag[..] == p.diag[..]
            && (0..3).all(|a| self.off[a][..] == p.off[a][..])
            && self.complementarity[..] == p.complementarity[..]
    }

    /// Copies `p`'s matrix and S (reusing the buffers).
    fn set(&mut self, p: &Problem<'_>) {
        fn copy<T: Copy>(dst: &mut Vec<T>, src: &[T]) {
            dst.clear();
            dst.extend_from_slice(src);
        }
        self.dims = p.dims;
        self.lcp = p.lcp;
        copy(&mut self.kind, p.cell_kind);
        copy(&mut self.diag, p.diag);
        for a in 0..3 {
            copy(&mut self.off[a], p.off[a]);
        }
        copy(&mut self.complementarity, p.complementarity);
    }
}

/// What is built below a fine level.
pub(crate) trait Coarsen {
    /// The fine level.
    fn fine_mut(&mut self) -> &mut Level;
    /// Whether the fine level is red-black ordered (with its grid-layout view) rather than
    /// greedily coloured.
    fn red_black(&self) -> bool;
    /// (Re)builds everything below the fine level.
    fn coarsen(&mut self, scratch: &mut Scratch);
}

impl Coarsen for Level {
    fn fine_mut(&mut self) -> &mut Level {
        self
    }
    fn red_black(&self) -> bool {
        false
    }
    fn coarsen(&mut self, _: &mut Scratch) {}
}

/// A value built from a problem's matrix, rebuilt only when the matrix or S change.
#[derive(Default)]
pub(crate) struct Cached<T> {
    key: MatrixKey,
    valid: bool,
    sys: FineSystem,
    value: T,
    scratch: Scratch,
    /// Number of rebuilds so far.
    generation: usize,
}

impl<T: Coarsen> Cached<T> {
    /// A cache around `value` (built on the first [`Cached::get`]).
    pub fn new(value: T) -> Self {
        Self {
            key: MatrixKey::default(),
            valid: false,
            sys: FineSystem::default(),
            value,
            scratch: Scratch::default(),
            generation: 0,
        }
    }

    /// The cached value, for changing its options; call [`Cached::invalidate`] after.
    pub fn value_mut(&mut self) -> &mut T {
        &mut self.value
    }

    /// Forces a rebuild on the next [`Cached::get`].
    pub fn invalidate(&mut self) {
        self.valid = false;
    }

    /// The fine system and the value for `p`, rebuilt when needed.
    pub fn get(&mut self, p: &Problem<'_>) -> (&FineSystem, &T) {
        if !self.valid || !self.key.matches(p) {
            self.key.set(p);
            let red_black = self.value.red_black();
            self.sys
                .build(p, self.value.fine_mut(), red_black, &mut self.scratch);
            self.value.coarsen(&mut self.scratch);
            self.valid = true;
            self.generation += 1;
        }
        (&self.sys, &self.value)
    }

    /// The fine system and the value of the last [`Cached::get`].
    pub fn parts(&self) -> (&FineSystem, &T) {
        (&self.sys, &self.value)
    }

    /// Number of rebuilds so far (changes whenever the value was rebuilt).
    pub fn generation(&self) -> usize {
        self.generation
    }
}
