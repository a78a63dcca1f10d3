//! The rows whose kernels may skip the couplings: every unknown of the row is coupled to each
//! unknown neighbour by one value `w`. One odd face (a variational wall, a rigid body, a
//! coarse cell beside the free surface) used to switch the whole level to the kernels that
//! read six couplings per cell; now only the rows it touches do.

use super::Level;
use rayon::prelude::*;

/// What a row's stored couplings (to its +x, +y, +z neighbours) show along one axis: `None`
/// no coupled pair, `Some(Some(w))` every pair coupled by `w`, `Some(None)` mixed.
type Finding = Option<Option<f32>>;

/// Merges two findings.
fn merge(a: Finding, b: Finding) -> Finding {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(Some(v)), Some(Some(w))) if v == w => Some(Some(v)),
        _ => Some(None),
    }
}

/// Distinct couplings counted, at most [`TALLY`] of them (the rest are not candidates).
const TALLY: usize = 4;

/// Adds `n` rows of coupling `w` to `tally`.
fn count(mut tally: Vec<(f32, usize)>, w: f32, n: usize) -> Vec<(f32, usize)> {
    if let Some((_, m)) = tally.iter_mut().find(|(v, _)| *v == w) {
        *m += n;
    } else if tally.len() < TALLY {
        tally.push((w, n));
    }
    tally
}

impl Level {
    /// Whether row `pr`'s kernels use the uniform coupling.
    #[inline(always)]
    pub fn row_uniform(&self, pr: usize) -> bool {
        self.uniform.is_some() && self.uniform_rows[pr]
    }

    /// Sets a coupling found uniform over the whole level (`None`: find the uniform rows).
    pub fn set_uniform(&mut self, whole: Option<f32>) {
        match whole {
            Some(w) => {
                self.uniform = Some(w);
                self.uniform_rows.clear();
                self.uniform_rows.resize(self.rows(), true);
            }
            None => self.find_uniform_rows(),
        }
    }

    /// Finds the most common coupling `w` of rows coupled uniformly along every axis, and flags
    /// the rows all of whose couplings (the ones they store and the −y, −z ones their
    /// neighbour rows store) are `w`.
    pub fn find_uniform_rows(&mut self) {
        let findings: Vec<[Finding; 3]> = (0..self.rows())
            .into_par_iter()
            .with_min_len(self.min_rows())
            .map(|pr| self.row_findings(pr))
            .collect();
        let tally = (findings.par_iter())
            .fold(Vec::new, |tally, f| {
                match f.iter().fold(None, |a, &b| merge(a, b)) {
                    Some(Some(w)) => count(tally, w, 1),
                    _ => tally,
                }
            })
            .reduce(Vec::new, |a, b| {
                b.into_iter().fold(a, |a, (w, n)| count(a, w, n))
            });
        let Some(w) = tally.iter().max_by_key(|(_, n)| *n).map(|(w, _)| *w) else {
            let coupled = findings.iter().flatten().any(Option::is_some);
            // no pair at all: no kernel reads a coupling that is not 0; else every row is mixed
            return match coupled {
                false => self.set_uniform(Some(0.0)),
                true => {
                    self.uniform = None;
                    self.uniform_rows.fill(false);
                }
            };
        };
        let ok = |f: Finding| f.is_none() || f == Some(Some(w));
        let pj = self.pdims[1];
        let flags: Vec<bool> = (0..self.rows())
            .into_par_iter()
            .with_min_len(self.min_rows())
            .map(|pr| {
                let own = findings[pr].iter().all(|&f| ok(f));
                let below_y = pr == 0 || ok(findings[pr - 1][1]);
                let below_z = pr < pj || ok(findings[pr - pj][2]);
                own && below_y && below_z
            })
            .collect();
        self.uniform = Some(w);
        self.uniform_rows = flags;
    }

    /// The couplings row `pr` stores, per axis.
    fn row_findings(&self, pr: usize) -> [Finding; 3] {
        let pi = self.pdims[0];
        let axes = if self.three_d() { 3 } else { 2 };
        let mut seen: [Finding; 3] = [None; 3];
        for ip in 1..pi - 1 {
            let c = pr * pi + ip;
            if self.unk[c] == 0 {
                continue;
            }
            for (a, seen) in seen.iter_mut().enumerate().take(axes) {
                let nb = c + self.stride[a];
                if nb < self.len() && self.unk[nb] != 0 {
                    *seen = merge(*seen, Some(Some(self.off[c][a])));
                }
            }
        }
        seen
    }
}
