//! Reseeding: keeps the particle count per cell between a minimum and a maximum, as production
//! FLIP tools do. Crowded cells lose their surplus; sparse cells inside the liquid get new
//! particles at random points inside the liquid (`φ < 0`) and outside solids, with the grid
//! velocity there. All choices come from a hash of (seed, step, global cell or particle id),
//! so the result depends neither on the thread count nor on how the domain is divided among
//! ranks ([`ReseedScope`]).

use crate::grid::{Grid3, GridSpec};
use crate::mac::MacGrid;
use crate::particles::Particles;
use crate::solids::Solids;
use crate::transfer::Lattice;
use glam::Vec3;

/// Cells are topped up only this deep (in cells) inside the liquid: a cell the surface crosses
/// holds fewer particles by right, and thin sheets and spray, sparse by nature, would gain mass.
const DEPTH: f32 = 1.5;

/// The reseeding rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReseedRule {
    /// Cells inside the liquid with fewer particles get new ones (0: never add).
    pub min_per_cell: usize,
    /// Cells with more particles lose the surplus (0: never remove).
    pub max_per_cell: usize,
    /// Seed of the random choices.
    pub seed: u64,
}

/// What one reseeding did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReseedReport {
    /// Particles added.
    pub added: usize,
    /// Particles removed.
    pub removed: usize,
}

/// The part of the domain a reseed acts on: the whole grid, or one rank's window of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReseedScope {
    /// Global linear index of the grid's first cell (a window's offset in the domain).
    pub first_cell: usize,
    /// Cells (of this grid) whose sparse liquid gets new particles: a rank's owned cells.
    pub fill: std::ops::Range<usize>,
    /// Id bit of the particles another rank owns (ghost copies): counted, never removed here
    /// (their owner removes them by the same draw), and left out of the id a removal draws by.
    pub foreign_bit: u64,
}

impl ReseedScope {
    /// The whole grid `spec`, every particle owned.
    pub fn whole(spec: &GridSpec) -> Self {
        Self {
            first_cell: 0,
            fill: 0..spec.cell_count(),
            foreign_bit: 0,
        }
    }
}

/// A 64-bit mix (splitmix64's finaliser).
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Uniform in [0, 1) from a hash.
fn unit(h: u64) -> f32 {
    (h >> 40) as f32 / (1u64 << 24) as f32
}

/// Applies `rule` to `particles` at step `step`: removes the surplus of crowded cells (the
/// particles with the smallest hashes go), then tops up sparse cells (fewer than the minimum,
/// and so is the mean of their 3×3(×3) neighbourhood) whose centre is inside
/// the liquid (`phi < −1.5 dx`). New particles take `vel` sampled at their position and are
/// appended after the kept ones, in cell order.
pub fn reseed(
    spec: &GridSpec,
    particles: &mut Particles,
    phi: &Grid3<f32>,
    vel: &MacGrid,
    solids: &Solids,
    rule: &ReseedRule,
    step: u64,
) -> ReseedReport {
    let fields = ReseedFields { phi, vel, solids };
    reseed_in(
        spec,
        particles,
        fields,
        rule,
        step,
        &ReseedScope::whole(spec),
    )
}

/// The grid fields a reseed reads.
#[derive(Clone, Copy)]
pub struct ReseedFields<'a> {
    /// Liquid signed distance.
    pub phi: &'a Grid3<f32>,
    /// Grid velocity, sampled for new particles.
    pub vel: &'a MacGrid,
    /// Colliders and walls.
    pub solids: &'a Solids,
}

/// [`reseed`] within `scope`: crowded cells lose the particles a whole-domain run would remove
/// (only this rank's own ones go), and the sparse cells of `scope.fill` are topped up with
/// the particles a whole-domain run would add there. The report counts this rank's share.
pub fn reseed_in(
    spec: &GridSpec,
    particles: &mut Particles,
    fields: ReseedFields<'_>,
    rule: &ReseedRule,
    step: u64,
    scope: &ReseedScope,
) -> ReseedReport {
    let phi = fields.phi;
    assert_eq!(phi.dims(), spec.dims(), "phi on another grid");
    let key = mix(rule.seed ^ mix(step.wrapping_add(0x9e37_79b9_7f4a_7c15)));
    let cell_of: Vec<usize> = particles
        .pos
        .iter()
        .map(|&p| {
            let [i, j, k] = spec.cell_of(p);
            phi.index(i, j, k)
        })
        .collect();
    let mut count = vec![0usize; spec.cell_count()];
    cell_of.iter().for_each(|&c| count[c] += 1);
    let removed = remove_surplus(
        particles,
        &cell_of,
        &mut count,
        rule.max_per_cell,
        key,
        scope,
    );
    let added = top_up(
        spec,
        particles,
        &count,
        fields,
        rule.min_per_cell,
        key,
        scope,
    );
    ReseedReport { added, removed }
}

/// Drops `count − max` particles from every cell holding more than `max` (those with the
/// smallest draws; particles of `scope.foreign_bit` are left to their owner); updates `count`.
fn remove_surplus(
    particles: &mut Particles,
    cell_of: &[usize],
    count: &mut [usize],
    max: usize,
    key: u64,
    scope: &ReseedScope,
) -> usize {
    if max == 0 {
        return 0;
    }
    let draw = |p: usize| mix(key ^ (particles.id_of(p) & !scope.foreign_bit));
    let mut crowded: Vec<(usize, u64, usize)> = cell_of
        .iter()
        .enumerate()
        .filter(|(_, &c)| count[c] > max)
        .map(|(p, &c)| (c, draw(p), p))
        .collect();
    if crowded.is_empty() {
        return 0;
    }
    crowded.sort_unstable();
    let mut keep = vec![true; particles.len()];
    let mut removed = 0;
    for run in crowded.chunk_by(|a, b| a.0 == b.0) {
        let surplus = run.len() - max;
        for &(_, _, p) in &run[..surplus] {
            let own = particles.id_of(p) & scope.foreign_bit == 0;
            keep[p] = !own;
            removed += usize::from(own);
        }
        count[run[0].0] = max;
    }
    particles.retain_mask(&keep);
    removed
}

/// Adds particles to the cells of `scope.fill` inside the liquid holding fewer than `min`;
/// returns how many.
fn top_up(
    spec: &GridSpec,
    particles: &mut Particles,
    count: &[usize],
    fields: ReseedFields<'_>,
    min: usize,
    key: u64,
    scope: &ReseedScope,
) -> usize {
    let ReseedFields { phi, vel, solids } = fields;
    if min == 0 {
        return 0;
    }
    let lattice = Lattice::new(spec);
    let inside = |p: Vec3| lattice.stencil(p).cell_block().sample(&phi.data) < 0.0;
    let dims = spec.dims();
    let inherited = particles
        .has_viscosity()
        .then(|| CellViscosity::of(spec, particles));
    let mut added = 0;
    for (c, &n) in count
        .iter()
        .enumerate()
        .take(scope.fill.end)
        .skip(scope.fill.start)
    {
        if n >= min || phi.data[c] >= -DEPTH * spec.dx || solids.phi.data[c] <= 0.0 {
            continue;
        }
        let ijk = [
            c % dims[0],
            (c / dims[0]) % dims[1],
            c / (dims[0] * dims[1]),
        ];
        // one cell's count is noisy (jittered seeding spreads 1 to 7 over cells of mean 4):
        // only a sparse neighbourhood is thin liquid
        if neighbourhood_mean(spec, count, solids, ijk) >= min as f32 {
            continue;
        }
        let corner = Vec3::new(ijk[0] as f32, ijk[1] as f32, ijk[2] as f32) * spec.dx;
        let mut missing = min - n;
        for attempt in 0..4 * (min - n) as u64 {
            if missing == 0 {
                break;
            }
            let global = (scope.first_cell + c) as u64;
            let h = mix(key ^ mix(global << 8 | attempt));
            let mut p = corner + spec.dx * Vec3::new(unit(h), unit(mix(h)), unit(mix(h ^ 1)));
            if spec.is_2d() {
                p.z = 0.5 * spec.dx;
            }
            if inside(p) && solids.distance(p) > 0.0 {
                let mut v = lattice.sample(vel, p);
                if spec.is_2d() {
                    v.z = 0.0;
                }
                particles.push(p, v);
                if let Some(nu) = &inherited {
                    // a new particle takes its neighbours' viscosity
                    let last = particles.len() - 1;
                    particles.viscosity[last] = nu.around(spec, ijk);
                }
                missing -= 1;
                added += 1;
            }
        }
    }
    added
}

/// Sum and number of the particles' viscosities (those that carry one) per cell.
struct CellViscosity {
    sum: Vec<f64>,
    count: Vec<u32>,
}

impl CellViscosity {
    fn of(spec: &GridSpec, particles: &Particles) -> Self {
        let cells = spec.cell_count();
        let (mut sum, mut count) = (vec![0.0; cells], vec![0; cells]);
        let dims = spec.dims();
        for (p, &nu) in particles.pos.iter().zip(&particles.viscosity) {
            if nu.is_nan() {
                continue;
            }
            let [i, j, k] = spec.cell_of(*p);
            let c = i + dims[0] * (j + dims[1] * k);
            sum[c] += f64::from(nu);
            count[c] += 1;
        }
        Self { sum, count }
    }

    /// Mean viscosity of the particles in the 3×3(×3) block around `ijk` (NaN if none has one).
    fn around(&self, spec: &GridSpec, ijk: [usize; 3]) -> f32 {
        let dims = spec.dims();
        let range = |a: usize| ijk[a].saturating_sub(1)..(ijk[a] + 2).min(dims[a]);
        let (mut sum, mut n) = (0.0, 0u32);
        for k in range(2) {
            for j in range(1) {
                for i in range(0) {
                    let c = i + dims[0] * (j + dims[1] * k);
                    sum += self.sum[c];
                    n += self.count[c];
                }
            }
        }
        if n == 0 {
            f32::NAN
        } else {
            (sum / f64::from(n)) as f32
        }
    }
}

/// Mean particle count of the open cells of the 3×3(×3) block around `ijk`.
fn neighbourhood_mean(spec: &GridSpec, count: &[usize], solids: &Solids, ijk: [usize; 3]) -> f32 {
    let dims = spec.dims();
    let range = |a: usize| ijk[a].saturating_sub(1)..(ijk[a] + 2).min(dims[a]);
    let (mut sum, mut cells) = (0usize, 0usize);
    for k in range(2) {
        for j in range(1) {
            for i in range(0) {
                let c = i + dims[0] * (j + dims[1] * k);
                if solids.phi.data[c] > 0.0 {
                    sum += count[c];
                    cells += 1;
                }
            }
        }
    }
    sum as f32 / cells.max(1) as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solids::Solids;

    fn setup() -> (GridSpec, Solids, Grid3<f32>) {
        let spec = GridSpec::new(16, 16, 1, 1.0 / 16.0);
        let solids = Solids::walls(spec);
        // liquid below y = 0.5
        let mut phi = Grid3::new(16, 16, 1, 0.0);
        crate::grid::par_for_each_mut(phi.dims(), &mut phi.data, |_, j, _, p| {
            *p = (j as f32 + 0.5) / 16.0 - 0.5;
        });
        (spec, solids, phi)
    }

    fn counts(spec: &GridSpec, ps: &Particles) -> Vec<usize> {
        let mut n = vec![0; spec.cell_count()];
        for p in &ps.pos {
            let [i, j, _] = spec.cell_of(*p);
            n[i + 16 * j] += 1;
        }
        n
    }

    #[test]
    fn crowded_cells_lose_their_surplus_and_sparse_liquid_cells_fill_up() {
        let (spec, solids, phi) = setup();
        let mut ps = Particles::default();
        // 20 particles in cell (5, 3), 1 in cell (8, 4), 3 in the air cell (8, 12)
        for n in 0..20 {
            ps.push(Vec3::new(5.1 + 0.04 * n as f32, 3.5, 0.5) / 16.0, Vec3::X);
        }
        ps.push(Vec3::new(8.5, 4.5, 0.5) / 16.0, Vec3::X);
        for n in 0..3 {
            ps.push(Vec3::new(8.2 + 0.2 * n as f32, 12.5, 0.5) / 16.0, Vec3::X);
        }
        let vel = MacGrid::zeros(&spec);
        let rule = ReseedRule {
            min_per_cell: 4,
            max_per_cell: 8,
            seed: 7,
        };
        let mut a = ps.clone();
        let r = reseed(&spec, &mut a, &phi, &vel, &solids, &rule, 3);
        let n = counts(&spec, &a);
        assert_eq!(r.removed, 12);
        assert_eq!(n[5 + 16 * 3], 8);
        assert_eq!(n[8 + 16 * 4], 4, "sparse liquid cell topped up");
        assert_eq!(n[8 + 16 * 12], 3, "air cells are left alone");
        assert!(r.added >= 3 + 4 * 30, "{r:?}");
        assert!(
            a.pos.iter().all(|p| p.y < 6.0 / 16.0 || p.y > 0.5),
            "surface cells untouched"
        );
        let new = &a.pos[12..];
        assert!(new.iter().all(|p| solids.distance(*p) > 0.0 && p.y < 0.5));
        // survivors keep their ids; added particles get fresh ones
        assert_eq!(a.id.len(), a.len());
        assert!(a.id[..12].iter().all(|&id| id < 24));
        assert!(a.id[12..].iter().all(|&id| id >= 24));
        let mut ids = a.id.clone();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), a.len(), "ids are unique");
        // deterministic, and another step draws other choices
        let mut b = ps.clone();
        assert_eq!(reseed(&spec, &mut b, &phi, &vel, &solids, &rule, 3), r);
        assert_eq!(a, b);
        let mut c = ps;
        reseed(&spec, &mut c, &phi, &vel, &solids, &rule, 4);
        assert_ne!(a.pos, c.pos);
    }

    #[test]
    fn a_new_particle_takes_its_neighbours_viscosity() {
        let (spec, solids, phi) = setup();
        let mut ps = Particles::default();
        ps.push(Vec3::new(8.5, 4.5, 0.5) / 16.0, Vec3::X);
        ps.push(Vec3::new(3.5, 2.5, 0.5) / 16.0, Vec3::X);
        ps.set_viscosity_from(0, 0.3);
        ps.viscosity[1] = f32::NAN;
        let rule = ReseedRule {
            min_per_cell: 4,
            max_per_cell: 8,
            seed: 7,
        };
        reseed(
            &spec,
            &mut ps,
            &phi,
            &MacGrid::zeros(&spec),
            &solids,
            &rule,
            1,
        );
        assert!(ps.has_viscosity());
        let (mut inherited, mut none) = (0, 0);
        for (p, nu) in ps.pos.iter().zip(&ps.viscosity).skip(2) {
            let [i, j, _] = spec.cell_of(*p);
            if (7..=9).contains(&i) && (3..=5).contains(&j) {
                assert_eq!(*nu, 0.3, "a new particle beside the one with a viscosity");
                inherited += 1;
            } else if (i as i32 - 8).abs() > 2 {
                assert!(nu.is_nan(), "far from any viscosity: none ({nu} at {p})");
                none += 1;
            }
        }
        assert!(inherited >= 3 && none > 0, "{inherited} {none}");
    }
}
