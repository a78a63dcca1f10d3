//! Connected fluid regions of the fine system, found on its compact rows (the same regions as
//! [`crate::neumann::Regions`], which walks the whole grid). A region with no Dirichlet row
//! (diagonal larger than its couplings) is pure Neumann: its matrix is singular.

use super::matrix::Rows;

/// Region of each unknown, and per region whether it is singular and its size.
#[derive(Clone, Debug, Default)]
pub(crate) struct CompactRegions {
    /// Region per unknown.
    pub label: Vec<u32>,
    /// Per region: no Dirichlet row.
    pub singular: Vec<bool>,
    /// Per region: number of unknowns.
    pub size: Vec<usize>,
    /// Union-find forest (scratch).
    parent: Vec<u32>,
}

impl CompactRegions {
    /// Connected components of the couplings of `a` (`n` unknowns, symmetric pattern) by
    /// union-find; `dirichlet[u]` tells whether row `u` has a Dirichlet term. Regions are
    /// numbered in the order of their first unknown.
    pub fn find(&mut self, a: &impl Rows, n: usize, dirichlet: &[bool]) {
        let parent = &mut self.parent;
        parent.clear();
        parent.extend(0..n as u32);
        fn root(parent: &mut [u32], mut x: u32) -> u32 {
            while parent[x as usize] != x {
                let p = parent[parent[x as usize] as usize];
                parent[x as usize] = p;
                x = p;
            }
            x
        }
        for i in 0..n as u32 {
            a.for_row(i as usize, |j, _| {
                if j > i {
                    let (ri, rj) = (root(parent, i), root(parent, j));
                    let (lo, hi) = (ri.min(rj), ri.max(rj));
                    parent[hi as usize] = lo;
                }
            });
        }
        self.label.clear();
        self.singular.clear();
        self.size.clear();
        for (i, &dir) in dirichlet.iter().enumerate().take(n) {
            let r = root(parent, i as u32) as usize;
            let id = if r == i {
                self.singular.push(true);
                self.size.push(0);
                self.singular.len() as u32 - 1
            } else {
                self.label[r]
            };
            self.label.push(id);
            self.size[id as usize] += 1;
            self.singular[id as usize] &= !dir;
        }
    }
}
