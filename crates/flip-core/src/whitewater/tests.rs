use super::*;

/// A 2D box of `n` cells of `size / n` m with the level set `phi` everywhere and the liquid at
/// rest.
fn still(n: usize, size: f32, phi: f32) -> (GridSpec, MacGrid, Grid3<f32>) {
    let spec = GridSpec::new(n, n, 1, size / n as f32);
    (spec, MacGrid::zeros(&spec), Grid3::new(n, n, 1, phi))
}

fn one(pos: Vec3, vel: Vec3) -> Diffuse {
    let mut d = Diffuse::default();
    d.push(pos, vel, 1.0);
    d
}

fn frame(spec: &GridSpec, vel: &MacGrid, phi: &Grid3<f32>, p: &WhitewaterParams, d: &mut Diffuse) {
    let liquid = Particles::default();
    let frame = LiquidFrame {
        spec,
        particles: &liquid,
        velocity: vel,
        level_set: phi,
        solids: None,
    };
    advance_frame(&frame, p, d, 0, 1.0 / 24.0);
}

#[test]
fn spray_accelerates_by_gravity_and_drag_over_a_frame() {
    let (spec, vel, phi) = still(40, 1.0, 1.0); // all air
    for drag in [0.0, 3.0] {
        let params = WhitewaterParams {
            spray_drag: drag,
            ..Default::default()
        };
        let v0 = Vec3::new(1.0, 2.0, 0.0);
        let mut d = one(Vec3::new(0.3, 0.3, 0.0125), v0);
        frame(&spec, &vel, &phi, &params, &mut d);
        assert_eq!(d.kind[0], DiffuseType::Spray);
        let dt = 1.0 / 24.0;
        let accel = (d.vel[0] - v0) / dt;
        // mean of g − drag·v over the frame; the velocity changes little in one frame
        let expected = params.gravity - drag * (v0 + 0.5 * dt * params.gravity);
        assert!(
            (accel - expected).length() < 0.05 * expected.length() + 0.02,
            "{accel} vs {expected}"
        );
    }
}

#[test]
fn bubbles_rise_towards_their_terminal_speed_and_foam_rides_the_liquid_until_it_expires() {
    let (spec, mut vel, phi) = still(40, 4.0, -1.0); // all liquid
    let params = WhitewaterParams::default();
    let mut d = one(Vec3::new(2.0, 0.2, 0.05), Vec3::ZERO);
    for _ in 0..12 {
        frame(&spec, &vel, &phi, &params, &mut d);
    }
    assert_eq!(d.kind[0], DiffuseType::Bubble);
    let terminal = params.bubble_buoyancy * 9.81 / params.bubble_drag;
    assert!(
        (d.vel[0].y - terminal).abs() < 0.02 * terminal,
        "{}",
        d.vel[0].y
    );
    assert!(d.pos[0].y > 1.0);

    let surface = Grid3::new(40, 40, 1, 0.0f32);
    vel.u.fill(0.5);
    let mut foam = one(Vec3::new(0.1, 2.0, 0.05), Vec3::ZERO);
    frame(&spec, &vel, &surface, &params, &mut foam);
    assert_eq!(foam.kind[0], DiffuseType::Foam);
    assert!((foam.pos[0].x - (0.1 + 0.5 / 24.0)).abs() < 1e-5);
    for _ in 0..(params.lifetime * 24.0) as usize {
        frame(&spec, &vel, &surface, &params, &mut foam);
    }
    assert!(foam.is_empty(), "foam outlived its lifetime");
}

/// A 2D jet: a strip of liquid particles moving fast towards a wall of still liquid.
fn jet(n: usize) -> (GridSpec, Particles, MacGrid, Grid3<f32>) {
    let spec = GridSpec::new(n, n, 1, 1.0 / n as f32);
    let dx = spec.dx;
    let mut phi = Grid3::new(n, n, 1, 3.0 * dx);
    let mut vel = MacGrid::zeros(&spec);
    let mut liquid = Particles::default();
    for j in 0..n / 2 {
        for i in 0..n {
            phi[(i, j, 0)] = (j as f32 + 0.5) * dx - 0.5;
            let moving = i < n / 2;
            if moving {
                vel.u[(i, j, 0)] = 6.0;
            }
            for s in 0..4 {
                let at = Vec3::new(
                    i as f32 + 0.25 + 0.5 * (s % 2) as f32,
                    j as f32 + 0.25 + 0.5 * (s / 2) as f32,
                    0.5,
                );
                liquid.push(at * dx, Vec3::new(if moving { 6.0 } else { 0.0 }, 0.0, 0.0));
            }
        }
    }
    (spec, liquid, vel, phi)
}

#[test]
fn fast_liquid_hitting_still_liquid_emits_and_the_result_is_the_same_on_any_thread_count() {
    let (spec, liquid, vel, phi) = jet(32);
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut d = Diffuse::default();
            let frame = LiquidFrame {
                spec: &spec,
                particles: &liquid,
                velocity: &vel,
                level_set: &phi,
                solids: None,
            };
            let params = WhitewaterParams::default();
            let r = advance_frame(&frame, &params, &mut d, 3, 1.0 / 24.0);
            (r, d)
        })
    };
    let (report, one_thread) = run(1);
    assert!(report.emitted > 0, "{report:?}");
    assert_eq!(run(3).1, one_thread);
    // still liquid emits nothing
    let mut still = liquid.clone();
    still.vel.iter_mut().for_each(|v| *v = Vec3::ZERO);
    let mut d = Diffuse::default();
    let frame = LiquidFrame {
        spec: &spec,
        particles: &still,
        velocity: &MacGrid::zeros(&spec),
        level_set: &phi,
        solids: None,
    };
    advance_frame(&frame, &WhitewaterParams::default(), &mut d, 3, 1.0 / 24.0);
    assert!(d.is_empty());
}

#[test]
fn the_cap_bounds_the_number_alive() {
    let (spec, liquid, vel, phi) = jet(32);
    let params = WhitewaterParams {
        max_particles: 2,
        ..Default::default()
    };
    let frame = LiquidFrame {
        spec: &spec,
        particles: &liquid,
        velocity: &vel,
        level_set: &phi,
        solids: None,
    };
    let mut d = Diffuse::default();
    let r = advance_frame(&frame, &params, &mut d, 0, 1.0 / 24.0);
    assert!(d.len() == 2 && r.emitted == 2 && r.capped > 0, "{r:?}");
}
