use super::*;
use crate::grid::GridSpec;

fn apply(m: &[f64], k: usize, x: &[f64]) -> Vec<f64> {
    (0..k)
        .map(|i| (0..k).map(|j| m[i * k + j] * x[j]).sum())
        .collect()
}

#[test]
fn a_pinned_change_has_no_part_along_the_contacts_and_keeps_the_rest() {
    // a 3D body's block C (symmetric positive definite, spin coupled by a turned inertia) and
    // a box's four bottom corners on a floor: three independent rows (vy, ωx, ωz)
    let k = 6;
    let mut c = vec![0.0; k * k];
    for i in 0..3 {
        c[i * k + i] = 0.5;
    }
    let spin = [[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 3.0]];
    for i in 0..3 {
        for j in 0..3 {
            c[(3 + i) * k + 3 + j] = spin[i][j];
        }
    }
    let n = DVec3::Y;
    let rows: Vec<Twist> = [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)]
        .iter()
        .map(|&(x, z)| {
            let r = DVec3::new(0.1 * x, -0.05, 0.08 * z);
            let rn = r.cross(n);
            [n.x, n.y, n.z, rn.x, rn.y, rn.z]
        })
        .collect();
    let dofs = [0, 1, 2, 3, 4, 5];
    let p = pinning(&rows, &dofs, &c);
    // ΔV = C Pᵀ f for any force f: no normal velocity at any corner
    let f = [0.3, -2.0, 0.7, 0.4, -0.1, 0.9];
    let pt: Vec<f64> = (0..k * k).map(|a| p[(a % k) * k + a / k]).collect();
    let dv = apply(&c, k, &apply(&pt, k, &f));
    for g in &rows {
        let normal: f64 = (0..6).map(|d| g[d] * dv[d]).sum();
        assert!(
            normal.abs() < 1e-12,
            "corner moves into the floor at {normal}"
        );
    }
    // sliding along the floor and turning about y stay free: a push along x moves it as before
    let along_x = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    let free = apply(&c, k, &apply(&pt, k, &along_x));
    assert!(
        (free[0] - 0.5).abs() < 1e-12 && free[1].abs() < 1e-12,
        "{free:?}"
    );
}

#[test]
fn a_box_on_the_floor_touches_it_at_its_bottom_corners_only() {
    let spec = GridSpec::new(32, 32, 1, 1.0 / 32.0);
    let scene = Solids::walls(spec);
    let dx = 1.0 / 32.0;
    let mut body = RigidBody {
        shape: BodyShape::Box {
            size: [0.2, 0.1, 1.0],
        },
        density: 1200.0,
        state: BodyState::default(),
    };
    body.state.orientation = [1.0, 0.0, 0.0, 0.0];
    body.state.position = [0.5, dx + 0.05 + 0.001 * dx, 0.5 * dx];
    let rows = contact_rows(&scene, &body);
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(rows.iter().all(|g| (g[1] - 1.0).abs() < 1e-6));
    // pushed down it is pinned, lifted it is not
    let end = body.state;
    let down = [0.0, -0.1, 0.0, 0.0, 0.0, 0.0];
    let up = [0.0, 0.1, 0.0, 0.0, 0.0, 0.0];
    assert_eq!(pushed_in(&rows, &end, &down).len(), 2);
    assert!(pushed_in(&rows, &end, &up).is_empty());
    // half a cell up it touches nothing
    body.state.position[1] += 0.5 * dx;
    assert!(contact_rows(&scene, &body).is_empty());
}
