//! The particles drawn into an image of the viewport's pixels, shown as one textured
//! rectangle. With Mesa's software GL every triangle costs setup and binning on the UI thread
//! and rasterisation on llvmpipe's threads, each UI frame, even when nothing changed: a few
//! hundred thousand quads took most of a core. Filling the pixels on the CPU when the frame
//! changes costs one pass over the particles, and the GL draws a single rectangle whose texture
//! is uploaded only then. The image is what the viewport can resolve: however many particles
//! fall in one pixel, the last drawn (the one on top) colours it.

use egui::{pos2, Color32, ColorImage, Pos2, Rect};

/// One particle (or solid cell) to draw: its centre on screen (points), colour and side
/// (points).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dot {
    pub centre: Pos2,
    pub color: Color32,
    pub size: f32,
}

/// The particles' pixels: `image` covers `rect` (points, on whole pixels), the part of the
/// viewport they light (the GL then blends no more pixels than that).
#[derive(Clone, Debug)]
pub struct PointsImage {
    pub rect: Rect,
    pub image: ColorImage,
}

impl PointsImage {
    /// `dots` drawn in order (later ones over earlier ones) into transparent pixels over
    /// `rect` at `pixels_per_point`, cropped to the pixels they light: each dot fills the
    /// pixels whose centres lie in its square, at least the one under its centre.
    pub fn draw(dots: impl IntoIterator<Item = Dot>, rect: Rect, pixels_per_point: f32) -> Self {
        let ppp = pixels_per_point.max(1e-3);
        let (x0, y0) = ((rect.min.x * ppp).floor(), (rect.min.y * ppp).floor());
        let (x1, y1) = ((rect.max.x * ppp).ceil(), (rect.max.y * ppp).ceil());
        // (at least a pixel: a texture is never empty)
        let (w, h) = ((x1 - x0).max(1.0) as usize, (y1 - y0).max(1.0) as usize);
        let mut image = ColorImage::new([w, h], Color32::TRANSPARENT);
        let mut lit = Lit::default();
        for dot in dots {
            let (cx, cy) = (dot.centre.x * ppp - x0, dot.centre.y * ppp - y0);
            let half = 0.5 * dot.size * ppp;
            let (Some(xs), Some(ys)) = (covered(cx, half, w), covered(cy, half, h)) else {
                continue;
            };
            lit.add(&xs, &ys);
            for y in ys {
                image.pixels[y * w..(y + 1) * w][xs.clone()].fill(dot.color);
            }
        }
        let [cx0, cy0, cx1, cy1] = lit.bounds().unwrap_or([0, 0, 1, 1]);
        let mut cropped = ColorImage::new([cx1 - cx0, cy1 - cy0], Color32::TRANSPARENT);
        for (y, row) in (cy0..cy1).zip(cropped.pixels.chunks_exact_mut(cx1 - cx0)) {
            row.copy_from_slice(&image.pixels[y * w + cx0..y * w + cx1]);
        }
        let corner = |x: usize, y: usize| pos2((x0 + x as f32) / ppp, (y0 + y as f32) / ppp);
        let rect = Rect::from_min_max(corner(cx0, cy0), corner(cx1, cy1));
        Self {
            rect,
            image: cropped,
        }
    }
}

/// The box of the pixels lit so far.
#[derive(Default)]
struct Lit(Option<[usize; 4]>);

impl Lit {
    fn add(&mut self, xs: &std::ops::Range<usize>, ys: &std::ops::Range<usize>) {
        let b = self.0.get_or_insert([xs.start, ys.start, xs.end, ys.end]);
        *b = [
            b[0].min(xs.start),
            b[1].min(ys.start),
            b[2].max(xs.end),
            b[3].max(ys.end),
        ];
    }

    /// `[x0, y0, x1, y1)` of the lit pixels, if any.
    fn bounds(&self) -> Option<[usize; 4]> {
        self.0
    }
}

/// The pixels `0..len` whose centres (`i + 0.5`) lie in `[c - half, c + half)`, or the one
/// holding `c` when the span is narrower than a pixel; `None` when that is off the image.
fn covered(c: f32, half: f32, len: usize) -> Option<std::ops::Range<usize>> {
    if !c.is_finite() {
        return None;
    }
    let (mut lo, mut hi) = ((c - half - 0.5).ceil(), (c + half - 0.5).ceil());
    if hi <= lo {
        lo = c.floor();
        hi = lo + 1.0;
    }
    let (lo, hi) = (lo.max(0.0), hi.min(len as f32));
    (lo < hi).then_some(lo as usize..hi as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dot(x: f32, y: f32, gray: u8, size: f32) -> Dot {
        Dot {
            centre: pos2(x, y),
            color: Color32::from_gray(gray),
            size,
        }
    }

    /// The pixels of `img` that are not transparent, as (x, y, grey) with x and y counted in
    /// pixels from the screen's corner.
    fn lit(img: &PointsImage, ppp: f32) -> Vec<(usize, usize, u8)> {
        let w = img.image.size[0];
        let (x0, y0) = (
            (img.rect.min.x * ppp) as usize,
            (img.rect.min.y * ppp) as usize,
        );
        (img.image.pixels.iter().enumerate())
            .filter(|(_, c)| **c != Color32::TRANSPARENT)
            .map(|(i, c)| (x0 + i % w, y0 + i / w, c.r()))
            .collect()
    }

    #[test]
    fn a_dot_fills_its_square_of_pixels() {
        let rect = Rect::from_min_max(pos2(0.0, 0.0), pos2(10.0, 8.0));
        let img = PointsImage::draw([dot(4.0, 3.0, 200, 2.0)], rect, 1.0);
        assert_eq!(
            lit(&img, 1.0),
            [(3, 2, 200), (4, 2, 200), (3, 3, 200), (4, 3, 200)]
        );
        // cropped to them
        assert_eq!(img.image.size, [2, 2]);
        assert_eq!(img.rect, Rect::from_min_max(pos2(3.0, 2.0), pos2(5.0, 4.0)));
        // twice the pixels per point: the same square in points, four times the pixels
        let img = PointsImage::draw([dot(4.0, 3.0, 200, 2.0)], rect, 2.0);
        assert_eq!(img.image.size, [4, 4]);
        assert_eq!(img.rect, Rect::from_min_max(pos2(3.0, 2.0), pos2(5.0, 4.0)));
        assert_eq!(lit(&img, 2.0).len(), 16);
        // a dot smaller than a pixel still shows, in the pixel under its centre
        let img = PointsImage::draw([dot(4.2, 3.7, 9, 0.3)], rect, 1.0);
        assert_eq!(lit(&img, 1.0), [(4, 3, 9)]);
        // nothing lit: one transparent pixel
        let img = PointsImage::draw([], rect, 1.0);
        assert_eq!((img.image.size, lit(&img, 1.0)), ([1, 1], vec![]));
    }

    #[test]
    fn the_last_dot_drawn_is_on_top_and_dots_off_the_rect_are_dropped() {
        // a rect off the pixel grid is widened to whole pixels
        let rect = Rect::from_min_max(pos2(10.3, 20.6), pos2(14.5, 23.0));
        let img = PointsImage::draw(
            [
                dot(11.0, 21.0, 1, 1.0),
                dot(11.0, 21.0, 2, 1.0),
                dot(100.0, 21.0, 3, 1.0),
            ],
            rect,
            1.0,
        );
        // the second dot covers the first; the third is outside and dropped
        assert_eq!(lit(&img, 1.0), [(10, 20, 2)]);
        assert_eq!(
            img.rect,
            Rect::from_min_max(pos2(10.0, 20.0), pos2(11.0, 21.0))
        );
    }
}
