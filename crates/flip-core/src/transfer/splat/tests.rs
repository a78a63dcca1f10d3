use super::*;
use rand::{Rng, SeedableRng};

fn random_particles(
    spec: &GridSpec,
    n: usize,
    seed: u64,
    vel: impl Fn(usize) -> Vec3,
) -> Particles {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    // inside the cell-centre box, where no stencil is clamped
    let (lo, e) = (0.5 * spec.dx, spec.extent() - spec.dx);
    let mut ps = Particles::default();
    for i in 0..n {
        let mut p = Vec3::new(
            lo + rng.gen::<f32>() * e.x,
            lo + rng.gen::<f32>() * e.y,
            lo + rng.gen::<f32>() * e.z,
        );
        if spec.is_2d() {
            p.z = 0.5 * spec.dx;
        }
        ps.push(p, vel(i));
    }
    ps
}

/// Serial reference splat (Alg. 2-3 literally, with explicit hat weights).
fn reference(spec: &GridSpec, ps: &Particles) -> (MacGrid, MacMask) {
    let mut g = MacGrid::zeros(spec);
    let mut w = MacGrid::zeros(spec);
    let hat = |x: f32| (1.0 - x.abs()).max(0.0);
    for (p, v) in ps.pos.iter().zip(&ps.vel) {
        let q = *p / spec.dx;
        for c in 0..spec.dimension() {
            let [ni, nj, nk] = g.axes()[c].dims();
            for k in 0..nk {
                for j in 0..nj {
                    for i in 0..ni {
                        let mut f = Vec3::new(i as f32, j as f32, k as f32) + 0.5;
                        f[c] -= 0.5;
                        let mut wt = hat(q.x - f.x) * hat(q.y - f.y);
                        if !spec.is_2d() {
                            wt *= hat(q.z - f.z);
                        }
                        g.axes_mut()[c][(i, j, k)] += wt * v[c];
                        w.axes_mut()[c][(i, j, k)] += wt;
                    }
                }
            }
        }
    }
    let mut m = MacMask::zeros(spec);
    for c in 0..3 {
        for f in 0..g.axes()[c].len() {
            let wt = w.axes()[c].data[f];
            g.axes_mut()[c].data[f] = if wt > 0.0 {
                g.axes()[c].data[f] / wt
            } else {
                0.0
            };
            m.axes_mut()[c].data[f] = u8::from(wt > 0.0);
        }
    }
    (g, m)
}

#[test]
fn uniform_velocity_is_reproduced_on_every_valid_face() {
    for spec in [GridSpec::new(9, 7, 1, 0.1), GridSpec::new(6, 5, 7, 0.1)] {
        let u = Vec3::new(0.7, -1.3, if spec.is_2d() { 0.0 } else { 2.1 });
        let ps = random_particles(&spec, 300, 3, |_| u);
        let (mut vel, mut valid) = (MacGrid::zeros(&spec), MacMask::zeros(&spec));
        p2g(
            &spec,
            &ps,
            &mut vel,
            &mut valid,
            &mut TransferScratch::default(),
        );
        let mut count = 0;
        for c in 0..spec.dimension() {
            for (v, m) in vel.axes()[c].data.iter().zip(&valid.axes()[c].data) {
                if *m == 1 {
                    count += 1;
                    assert!((v - u[c]).abs() < 1e-5, "component {c}: {v} vs {}", u[c]);
                } else {
                    assert_eq!(*v, 0.0);
                }
            }
        }
        assert!(count > 0);
    }
}

#[test]
fn particle_exactly_at_a_face_puts_its_velocity_there() {
    let spec = GridSpec::new(8, 8, 8, 0.25);
    let mut ps = Particles::default();
    // u face (3, 4, 5) sits at (3 dx, 4.5 dx, 5.5 dx)
    ps.push(Vec3::new(3.0, 4.5, 5.5) * spec.dx, Vec3::new(1.5, 2.5, 3.5));
    let (mut vel, mut valid) = (MacGrid::zeros(&spec), MacMask::zeros(&spec));
    p2g(
        &spec,
        &ps,
        &mut vel,
        &mut valid,
        &mut TransferScratch::default(),
    );
    assert_eq!(vel.u[(3, 4, 5)], 1.5);
    assert_eq!(valid.u[(3, 4, 5)], 1);
    assert_eq!(valid.u[(4, 4, 5)], 0);
    assert_eq!(valid.u[(3, 5, 5)], 0);
    assert_eq!(valid.u.data.iter().map(|&m| m as usize).sum::<usize>(), 1);
    // the v stencil is centred between faces: 4 faces share the weight
    assert_eq!(valid.v.data.iter().map(|&m| m as usize).sum::<usize>(), 4);
}

#[test]
fn matches_the_serial_splat_and_is_deterministic() {
    for spec in [GridSpec::new(13, 11, 1, 0.1), GridSpec::new(9, 8, 10, 0.1)] {
        let ps = random_particles(&spec, 400, 7, |i| {
            Vec3::new((i % 7) as f32 - 3.0, (i % 5) as f32 * 0.5, (i % 3) as f32)
        });
        let mut ps = ps;
        if spec.is_2d() {
            ps.vel.iter_mut().for_each(|v| v.z = 0.0);
        }
        let (rv, rm) = reference(&spec, &ps);
        let mut scratch = TransferScratch::default();
        let (mut vel, mut valid) = (MacGrid::zeros(&spec), MacMask::zeros(&spec));
        p2g(&spec, &ps, &mut vel, &mut valid, &mut scratch);
        assert_eq!(valid, rm);
        for c in 0..3 {
            for (a, b) in vel.axes()[c].data.iter().zip(&rv.axes()[c].data) {
                assert!((a - b).abs() < 1e-4 * (1.0 + b.abs()), "{a} vs {b}");
            }
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let (mut vel2, mut valid2) = (MacGrid::zeros(&spec), MacMask::zeros(&spec));
        pool.install(|| p2g(&spec, &ps, &mut vel2, &mut valid2, &mut scratch));
        assert_eq!(vel, vel2);
        assert_eq!(valid, valid2);
    }
}
