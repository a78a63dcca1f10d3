//! `flipgraph render`: a shaded picture of OBJ/STL meshes (liquid surfaces, imported solids)
//! as PNG, for previews and the README: perspective camera on the meshes' bounds, z-buffered
//! triangles, Lambert shading with a head light plus a key light.

use anyhow::{Context, Result};
use clap::Args;
use flip_core::solids::load_triangles;
use flip_core::surface::TriMesh;
use glam::{Mat4, Vec3, Vec4Swizzles};
use std::path::PathBuf;

/// Arguments of `render`.
#[derive(Args)]
pub struct RenderArgs {
    /// Meshes to draw (OBJ or STL); the first is blue (liquid), the others grey (solids).
    #[arg(required = true)]
    meshes: Vec<PathBuf>,
    /// Output PNG.
    #[arg(long)]
    out: PathBuf,
    /// Image width and height in pixels.
    #[arg(long, default_value_t = 640)]
    size: u32,
    /// Scale of the solid meshes (all but the first), as the solids node's `scale`.
    #[arg(long, num_args = 3, default_values_t = [1.0, 1.0, 1.0])]
    scale: Vec<f32>,
    /// Translation of the solid meshes, as the solids node's `translate`.
    #[arg(long, num_args = 3, default_values_t = [0.0, 0.0, 0.0])]
    translate: Vec<f32>,
    /// Camera direction from the centre (x, y, z).
    #[arg(long, num_args = 3, default_values_t = [0.9, 0.8, 1.4])]
    eye: Vec<f32>,
}

/// Renders the meshes to `args.out`.
pub fn run(args: &RenderArgs) -> Result<()> {
    let (scale, shift) = (
        Vec3::from_slice(&args.scale),
        Vec3::from_slice(&args.translate),
    );
    let meshes = args
        .meshes
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let (s, t) = if i == 0 {
                (Vec3::ONE, Vec3::ZERO)
            } else {
                (scale, shift)
            };
            load_triangles(p, s, t).context("reading a mesh to render")
        })
        .collect::<Result<Vec<_>>>()?;
    let (lo, hi) = meshes.iter().flat_map(|m| &m.positions).fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(lo, hi), &p| (lo.min(p), hi.max(p)),
    );
    anyhow::ensure!(lo.x <= hi.x, "the meshes have no vertex");
    let centre: Vec3 = 0.5 * (lo + hi);
    let radius = 0.5 * (hi - lo).length();
    let dir = Vec3::new(args.eye[0], args.eye[1], args.eye[2]).normalize_or(Vec3::Z);
    let eye = centre + dir * radius * 2.6;
    let view = Mat4::look_at_rh(eye, centre, Vec3::Y);
    let proj = Mat4::perspective_rh(0.8, 1.0, 0.1 * radius, 10.0 * radius);
    let mut canvas = Canvas::new(args.size, proj * view, dir);
    for (i, m) in meshes.iter().enumerate() {
        let colour = if i == 0 {
            Vec3::new(0.25, 0.55, 0.95)
        } else {
            Vec3::new(0.75, 0.72, 0.68)
        };
        canvas.draw(m, colour);
    }
    canvas
        .image
        .save(&args.out)
        .with_context(|| format!("writing {}", args.out.display()))?;
    println!(
        "wrote {}",
        flip_abi::sanitize(&args.out.display().to_string())
    );
    Ok(())
}

struct Canvas {
    size: u32,
    clip: Mat4,
    light: Vec3,
    depth: Vec<f32>,
    image: image::RgbImage,
}

impl Canvas {
    fn new(size: u32, clip: Mat4, head: Vec3) -> Self {
        Self {
            size,
            clip,
            light: head,
            depth: vec![f32::MAX; (size * size) as usize],
            image: image::RgbImage::from_pixel(size, size, image::Rgb([245, 245, 242])),
        }
    }

    /// Pixel coordinates and depth of a world point.
    fn project(&self, p: Vec3) -> Vec3 {
        let c = self.clip * p.extend(1.0);
        let n = c.xyz() / c.w;
        let s = self.size as f32;
        Vec3::new((n.x + 1.0) * 0.5 * s, (1.0 - n.y) * 0.5 * s, n.z)
    }

    fn draw(&mut self, mesh: &TriMesh, colour: Vec3) {
        let key = Vec3::new(0.4, 1.0, 0.3).normalize();
        for t in &mesh.triangles {
            let [a, b, c] = t.map(|v| mesh.positions[v as usize]);
            let n = (b - a).cross(c - a).normalize_or_zero();
            // two-sided: open surfaces are seen from both sides
            let lambert = 0.25 + 0.45 * n.dot(self.light).abs() + 0.3 * n.dot(key).abs();
            let rgb = (colour * lambert).min(Vec3::ONE) * 255.0;
            self.fill([self.project(a), self.project(b), self.project(c)], rgb);
        }
    }

    /// Fills a projected triangle with a z-buffer.
    fn fill(&mut self, [a, b, c]: [Vec3; 3], rgb: Vec3) {
        let area = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
        if area.abs() < 1e-12 || [a, b, c].iter().any(|p| !p.is_finite() || p.z < -1.0) {
            return;
        }
        let max = self.size as f32 - 1.0;
        let (x0, x1) = (
            a.x.min(b.x).min(c.x).max(0.0),
            a.x.max(b.x).max(c.x).min(max),
        );
        let (y0, y1) = (
            a.y.min(b.y).min(c.y).max(0.0),
            a.y.max(b.y).max(c.y).min(max),
        );
        for y in y0.floor() as u32..=y1.ceil().min(max) as u32 {
            for x in x0.floor() as u32..=x1.ceil().min(max) as u32 {
                let p = (x as f32 + 0.5, y as f32 + 0.5);
                let edge = |u: Vec3, v: Vec3| (v.x - u.x) * (p.1 - u.y) - (v.y - u.y) * (p.0 - u.x);
                let (wa, wb, wc) = (edge(b, c) / area, edge(c, a) / area, edge(a, b) / area);
                if wa < 0.0 || wb < 0.0 || wc < 0.0 {
                    continue;
                }
                let z = wa * a.z + wb * b.z + wc * c.z;
                let at = (y * self.size + x) as usize;
                if z < self.depth[at] {
                    self.depth[at] = z;
                    let px = [rgb.x as u8, rgb.y as u8, rgb.z as u8];
                    self.image.put_pixel(x, y, image::Rgb(px));
                }
            }
        }
    }
}
