use super::*;
use crate::grid::GridSpec;
use crate::solids::Solids;
use glam::Vec3;

/// 2×2×2 particles per cell, at the quarter points, wherever `inside` holds for the particle.
pub(super) fn lattice(spec: &GridSpec, inside: impl Fn(Vec3) -> bool) -> Vec<Vec3> {
    let mut pos = Vec::new();
    let h = spec.dx;
    for k in 0..2 * spec.nk {
        for j in 0..2 * spec.nj {
            for i in 0..2 * spec.ni {
                let p = (Vec3::new(i as f32, j as f32, k as f32) + 0.5) * (0.5 * h);
                if inside(p) {
                    pos.push(p);
                }
            }
        }
    }
    pos
}

pub(super) fn tank() -> (GridSpec, Vec<Vec3>, f64) {
    let spec = GridSpec::new(32, 32, 32, 1.0 / 32.0);
    let (lo, hi) = (spec.dx, Vec3::new(31.0, 13.0, 31.0) * spec.dx);
    let pos = lattice(&spec, |p| {
        p.cmpgt(Vec3::splat(lo)).all() && p.cmplt(hi).all()
    });
    let volume = f64::from(30 * 12 * 30) * f64::from(spec.dx).powi(3);
    (spec, pos, volume)
}

fn mesh(spec: &GridSpec, pos: &[Vec3], solids: Option<&Solids>, resolution: usize) -> TriMesh {
    let settings = SurfaceSettings {
        resolution,
        ..SurfaceSettings::default()
    };
    let mut scratch = SurfaceScratch::default();
    liquid_surface(spec, pos, solids, &settings, &mut scratch).unwrap()
}

/// A mesher under test: particles (and solids) at a resolution factor → mesh.
pub(super) type Mesher = dyn Fn(&GridSpec, &[Vec3], Option<&Solids>, usize) -> TriMesh;

/// The still tank meshes closed and manifold, holding the liquid's volume within 1 %, with a
/// flat top at the fill height (within `flat[resolution − 1]` cells) whose normals point up.
pub(super) fn assert_still_tank(label: &str, mesher: &Mesher, flat: [f32; 2]) {
    let (spec, pos, volume) = tank();
    let solids = Solids::walls(spec);
    for resolution in [1, 2] {
        let m = mesher(&spec, &pos, Some(&solids), resolution);
        check_closed_manifold(&m).unwrap();
        let v = enclosed_volume(&m);
        let err = (v - volume).abs() / volume;
        println!("{label}, resolution {resolution}: volume {v:.6} vs {volume:.6} ({err:.4})");
        assert!(err < 0.01, "resolution {resolution}: volume error {err}");
        let top = 13.0 * spec.dx;
        let mut worst = 0.0f32;
        for (p, n) in m.positions.iter().zip(&m.normals) {
            if (p.x - 0.5).abs() < 0.3 && (p.z - 0.5).abs() < 0.3 && p.y > 0.25 {
                worst = worst.max((p.y - top).abs());
                assert!(n.y > 0.99, "normal {n} at {p}");
            }
        }
        println!(
            "  surface height off by at most {:.3} cells",
            worst / spec.dx
        );
        let tolerance = flat[resolution - 1] * spec.dx;
        assert!(worst < tolerance, "surface {worst} m off the fill height");
    }
}

/// Balls of liquid `(cells per axis, radius, resolution, relative tolerance)` mesh to spheres:
/// the volume-equivalent and mean radii within the tolerance, every vertex within 5 %.
pub(super) fn assert_spheres(label: &str, mesher: &Mesher, cases: &[(usize, f32, usize, f32)]) {
    let c = Vec3::splat(0.5);
    for &(cells, r, resolution, within) in cases {
        let spec = GridSpec::new(cells, cells, cells, 1.0 / cells as f32);
        let pos = lattice(&spec, |p| p.distance(c) < r);
        let m = mesher(&spec, &pos, None, resolution);
        check_closed_manifold(&m).unwrap();
        let v = enclosed_volume(&m);
        let equivalent = (3.0 * v / (4.0 * std::f64::consts::PI)).cbrt() as f32;
        let radii: Vec<f32> = m.positions.iter().map(|p| p.distance(c)).collect();
        let mean = radii.iter().sum::<f32>() / radii.len() as f32;
        let worst = radii.iter().map(|d| (d - r).abs()).fold(0.0, f32::max);
        println!("{label} R {r}, resolution {resolution}: radius {equivalent} (volume), {mean} (mean), worst {worst}");
        assert!(
            (equivalent - r).abs() < within * r,
            "volume radius {equivalent}"
        );
        assert!((mean - r).abs() < within * r, "mean radius {mean}");
        assert!(worst < 0.05 * r, "a vertex {worst} off the sphere");
    }
}

#[test]
fn still_tank_mesh_is_closed_and_holds_the_liquid_volume() {
    // the free surface is flat at the fill height, the normals point out of the liquid
    assert_still_tank("particle level set", &mesh, [0.05, 0.05]);
}

/// The Zhu–Bridson kernel spans ±2 cells, so on a curved surface the level set sits inside
/// the particles by about `(1 cell)²/R`: a sphere needs a radius of ≥ 12 level-set cells for 1 %
/// (8 simulation cells at resolution 2, 12 at resolution 1).
#[test]
fn ball_of_liquid_meshes_to_a_sphere() {
    let cases = [(32, 0.25, 2, 0.01), (40, 0.3, 1, 0.01)];
    assert_spheres("particle level set", &mesh, &cases);
}

/// `f` run on a pool of one thread (the determinism tests compare against the default pool).
pub(super) fn on_one_thread<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build();
    pool.expect("a one-thread pool").install(f)
}

#[test]
fn meshes_are_identical_for_any_thread_count() {
    let (spec, pos, _) = tank();
    let solids = Solids::walls(spec);
    let many = mesh(&spec, &pos, Some(&solids), 2);
    let one = on_one_thread(|| mesh(&spec, &pos, Some(&solids), 2));
    assert!(!many.is_empty());
    assert_eq!(many, one);
}

#[test]
fn smoothing_keeps_a_closed_mesh_closed_and_its_volume() {
    let spec = GridSpec::new(24, 24, 24, 1.0 / 24.0);
    let c = Vec3::splat(0.5);
    let pos = lattice(&spec, |p| (p - c).abs().max_element() < 0.2);
    let rough = {
        let settings = SurfaceSettings {
            smoothing: 0,
            ..SurfaceSettings::default()
        };
        liquid_surface(&spec, &pos, None, &settings, &mut SurfaceScratch::default()).unwrap()
    };
    let mut smooth = rough.clone();
    taubin_smooth(&mut smooth, 10);
    check_closed_manifold(&smooth).unwrap();
    let (a, b) = (enclosed_volume(&rough), enclosed_volume(&smooth));
    assert!(smooth.positions != rough.positions);
    assert!((a - b).abs() < 0.01 * a, "volume {a} → {b}");
}

#[test]
fn topology_check_finds_holes_flips_and_pinches() {
    // a tetrahedron, outward-oriented
    let tet = |o: Vec3, base: u32| {
        let p = vec![o, o + Vec3::X, o + Vec3::Y, o + Vec3::Z];
        let t = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]].map(|t: [u32; 3]| t.map(|v| v + base));
        (p, t.to_vec())
    };
    let (positions, triangles) = tet(Vec3::ZERO, 0);
    let good = TriMesh {
        normals: vec![Vec3::ZERO; 4],
        positions,
        triangles,
    };
    check_closed_manifold(&good).unwrap();
    assert!((enclosed_volume(&good) - 1.0 / 6.0).abs() < 1e-9);
    let mut hole = good.clone();
    hole.triangles.pop();
    assert!(matches!(
        check_closed_manifold(&hole),
        Err(TopologyError::OpenEdge(..))
    ));
    let mut flipped = good.clone();
    flipped.triangles[0].swap(1, 2);
    assert!(check_closed_manifold(&flipped).is_err());
    // two tetrahedra sharing one vertex: closed, edge-manifold, pinched at the vertex
    let (p2, mut t2) = tet(-Vec3::ONE, 4);
    for t in &mut t2 {
        for v in t.iter_mut() {
            if *v == 7 {
                *v = 0; // the second's apex (-1,-1,0)+... is replaced by the shared origin
            }
        }
    }
    let mut pinched = good.clone();
    pinched.positions.extend(p2);
    pinched.triangles.extend(t2);
    assert_eq!(
        check_closed_manifold(&pinched),
        Err(TopologyError::NonManifoldVertex(0))
    );
    assert_eq!(
        check_closed_manifold(&TriMesh::default()),
        Err(TopologyError::Empty)
    );
}
