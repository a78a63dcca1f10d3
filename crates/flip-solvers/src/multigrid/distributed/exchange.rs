//! The data movement of the slab V-cycle between neighbouring ranks: refreshing the layer
//! beside each end of a rank's part of a divided level, and adding the neighbours' partial
//! restrictions into the layers a rank owns (the gathered levels' traffic is in `coarse`).
//!
//! A layer of any divided level travels in the distributed suite's halo exchange of level 0's
//! slab: it is packed (x-fastest, its unpadded cells) into the scratch field's layer at the
//! slab's end it leaves by, and read from the ghost layer beyond the end it arrives at. A
//! coarse layer has fewer cells than a fine one, so it always fits.

use super::super::level::Level;
use super::slab::{layer_rows, SlabRows};
use flip_sdk::{Distributed, HaloValue, SolveError};

/// What [`SlabRows::copy_layer`] does with a layer and its scratch slot.
#[derive(Clone, Copy, PartialEq)]
enum Move {
    /// Into the slot.
    Pack,
    /// From the slot, replacing.
    Unpack,
    /// From the slot, added.
    Add,
}

impl SlabRows {
    /// Refreshes `colour`'s `x` of divided level `l` on the layer beside each end of this
    /// rank's part (what the next half-sweep, residual or interpolation reads there).
    ///
    /// # Errors
    /// A failed halo exchange.
    pub fn exchange(
        &mut self,
        level: &mut Level,
        l: usize,
        colour: usize,
        d: &Distributed,
    ) -> Result<(), SolveError> {
        let mut x = [
            std::mem::take(&mut level.cs[0].x),
            std::mem::take(&mut level.cs[1].x),
        ];
        let mut colours = [false; 2];
        colours[colour] = true;
        let [x0, x1] = &mut x;
        let result = self.exchange_vectors(level, l, [x0, x1], colours, d);
        let [x0, x1] = x;
        level.cs[0].x = x0;
        level.cs[1].x = x1;
        result
    }

    /// Refreshes the `colours` of the colour-split vector `x` (level `l`'s layout) on the
    /// layer beside each end of this rank's part, in one halo exchange.
    ///
    /// # Errors
    /// A failed halo exchange.
    pub fn exchange_vectors<T: HaloValue>(
        &mut self,
        level: &Level,
        l: usize,
        x: [&mut [T]; 2],
        colours: [bool; 2],
        d: &Distributed,
    ) -> Result<(), SolveError> {
        let own = self.levels[l].own.clone();
        let sent = [own.start, own.end - 1];
        let ghosts = [own.start.wrapping_sub(1), own.end];
        self.move_layers(level, x, colours, sent, ghosts, Move::Unpack, d)
    }

    /// Completes the restriction into divided level `l` (every rank restricted its own cells
    /// of level `l - 1` into its `touch` layers): each rank sends the partial layer beside
    /// each end of its part to the neighbour owning it, and adds what it receives.
    ///
    /// # Errors
    /// A failed halo exchange.
    pub fn add_partial_restrictions(
        &mut self,
        level: &mut Level,
        l: usize,
        d: &Distributed,
    ) -> Result<(), SolveError> {
        let own = self.levels[l].own.clone();
        let touch = self.levels[l - 1].touch.clone();
        // A partial layer this rank did not write (none beyond an odd end) travels as zeros.
        let written = |g: usize| touch.contains(&g);
        let partial = [own.start.wrapping_sub(1), own.end].map(|g| written(g).then_some(g));
        let mut b = [
            std::mem::take(&mut level.cs[0].b),
            std::mem::take(&mut level.cs[1].b),
        ];
        let [b0, b1] = &mut b;
        let result = self.move_partials(level, [b0, b1], partial, [own.start, own.end - 1], d);
        let [b0, b1] = b;
        level.cs[0].b = b0;
        level.cs[1].b = b1;
        result
    }

    fn move_partials(
        &mut self,
        level: &Level,
        b: [&mut [f32]; 2],
        partial: [Option<usize>; 2],
        owned_ends: [usize; 2],
        d: &Distributed,
    ) -> Result<(), SolveError> {
        let l = self.layout;
        let slots = [l.first as usize, (l.first + l.owned) as usize - 1];
        for s in slots {
            let range = self.slot_range(s);
            self.field[range].fill(0.0);
        }
        let sent = partial.map(|p| p.unwrap_or(usize::MAX));
        self.move_layers(level, b, [true, true], sent, owned_ends, Move::Add, d)
    }

    /// Packs layers `sent` (toward the rank below, above; `usize::MAX`: none), runs the halo
    /// exchange and applies `mode` with what arrived to layers `arrived` (from below, above).
    #[allow(clippy::too_many_arguments)]
    fn move_layers<T: HaloValue>(
        &mut self,
        level: &Level,
        x: [&mut [T]; 2],
        colours: [bool; 2],
        sent: [usize; 2],
        arrived: [usize; 2],
        mode: Move,
        d: &Distributed,
    ) -> Result<(), SolveError> {
        let l = self.layout;
        let (first, last) = (l.first as usize, (l.first + l.owned) as usize - 1);
        let sides = [l.ghost_lo > 0, l.ghost_hi > 0];
        let out_slots = [first, last];
        let in_slots = [first.wrapping_sub(1), last + 1];
        for side in (0..2).filter(|&s| sides[s] && sent[s] != usize::MAX) {
            for c in (0..2).filter(|&c| colours[c]) {
                self.copy_layer(
                    level,
                    &mut *x[c],
                    c,
                    sent[side],
                    out_slots[side],
                    Move::Pack,
                );
            }
        }
        d.halo_exchange(&mut self.field, 1)?;
        for side in (0..2).filter(|&s| sides[s]) {
            for c in (0..2).filter(|&c| colours[c]) {
                self.copy_layer(level, &mut *x[c], c, arrived[side], in_slots[side], mode);
            }
        }
        Ok(())
    }

    /// The scratch field's cells of level 0's global layer `slot`.
    fn slot_range(&self, slot: usize) -> std::ops::Range<usize> {
        let l = self.layout;
        let start = (slot + l.ghost_lo as usize - l.first as usize) * l.layer_len();
        start..start + l.layer_len()
    }

    /// Copies `colour`'s entries `x` of `level`'s layer `g` to or from the scratch field's
    /// layer `slot` (see `mode`).
    fn copy_layer<T: HaloValue>(
        &mut self,
        level: &Level,
        x: &mut [T],
        colour: usize,
        g: usize,
        slot: usize,
        mode: Move,
    ) {
        let (half, ni) = (level.half, level.dims[0]);
        let slot = self.slot_range(slot).start;
        for pr in layer_rows(level, &(g..g + 1)) {
            let Some((j, _)) = level.row_jk(pr) else {
                continue;
            };
            let base = slot + if level.three_d() { j * ni } else { 0 };
            let e = (colour + level.row_parity(pr)) & 1;
            let x = &mut x[pr * half..][..half];
            for (h, x) in x.iter_mut().enumerate() {
                let ip = 2 * h + e;
                if !(1..=ni).contains(&ip) {
                    continue;
                }
                let f = &mut self.field[base + ip - 1];
                match mode {
                    Move::Pack => *f = x.to_f64(),
                    Move::Unpack => *x = T::from_f64(*f),
                    Move::Add => *x = T::from_f64(x.to_f64() + *f),
                }
            }
        }
    }
}
