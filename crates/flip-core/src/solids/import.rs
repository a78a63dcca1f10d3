//! Triangle meshes from OBJ (`tobj`) and STL (`stl_io`, ASCII and binary) files, welded,
//! scaled and translated, and checked for what the signed distance needs.
//!
//! Rule for defects: an empty mesh, an edge shared by more than two triangles and neighbours
//! with opposite orientations are errors (no inside can be trusted); open edges (holes) and
//! pinched vertices are accepted with a warning, because the generalised winding number still
//! gives a well-defined inside. A mesh whose triangles face inwards is flipped, with a warning.

use crate::surface::{check_closed_manifold, enclosed_volume, TriMesh};
use flip_abi::text::sanitize;
use glam::Vec3;
use std::collections::HashMap;
use std::path::Path;

/// Why a mesh file could not become a solid. Every message starts with the file.
#[derive(Debug, thiserror::Error)]
pub enum MeshImportError {
    /// The file could not be read.
    #[error("{file}: cannot read the file")]
    Io {
        /// The file (sanitised).
        file: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Neither `.obj` nor `.stl`.
    #[error("{file}: unknown mesh format (expected a .obj or .stl file)")]
    Format {
        /// The file (sanitised).
        file: String,
    },
    /// tobj refused the OBJ.
    #[error("{file}: not a valid OBJ file")]
    Obj {
        /// The file (sanitised).
        file: String,
        /// The cause.
        #[source]
        source: tobj::LoadError,
    },
    /// stl_io refused the STL.
    #[error("{file}: not a valid STL file")]
    Stl {
        /// The file (sanitised).
        file: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A binary STL whose triangle count does not match its size.
    #[error(
        "{file}: binary STL header announces {count} triangles ({expected} bytes) but the file \
         has {actual} bytes"
    )]
    StlCount {
        /// The file (sanitised).
        file: String,
        /// Triangles announced in the header.
        count: u32,
        /// `84 + 50 · count`.
        expected: u64,
        /// The file's size.
        actual: u64,
    },
    /// No triangle (or only degenerate ones).
    #[error("{file}: the mesh is empty (no triangle with three distinct vertices)")]
    Empty {
        /// The file (sanitised).
        file: String,
    },
    /// A vertex that is not a finite number (after scaling).
    #[error("{file}: vertex {index} is not finite")]
    NotFinite {
        /// The file (sanitised).
        file: String,
        /// Vertex index.
        index: usize,
    },
    /// An edge of more than two triangles, or two neighbours of opposite orientation.
    #[error("{file}: non-manifold mesh: {problem}")]
    NonManifold {
        /// The file (sanitised).
        file: String,
        /// What is wrong, with the vertex positions.
        problem: String,
    },
}

/// A loaded mesh and the defects it was accepted with.
#[derive(Clone, Debug, Default)]
pub struct ImportedMesh {
    /// Welded, transformed, outward-oriented triangles (no normals).
    pub mesh: TriMesh,
    /// Accepted defects (holes, pinched vertices, flipped orientation), one sentence each.
    pub warnings: Vec<String>,
}

/// Loads `path` (OBJ or STL by extension), scales each vertex by `scale` (per axis) and adds
/// `translate`, welds equal positions, and checks it (module doc).
///
/// # Errors
/// [`MeshImportError`], naming the file and the problem.
pub fn load_mesh(
    path: &Path,
    scale: Vec3,
    translate: Vec3,
) -> Result<ImportedMesh, MeshImportError> {
    let file = sanitize(&path.display().to_string()).into_owned();
    let mesh = load_triangles(path, scale, translate)?;
    if mesh.triangles.is_empty() {
        return Err(MeshImportError::Empty { file });
    }
    check(mesh, &file)
}

/// The welded, transformed triangles of `path` without the topology checks (for viewing any
/// mesh, e.g. liquid surfaces).
///
/// # Errors
/// Unreadable file, unknown format, parse errors, a wrong binary STL size, non-finite vertices.
pub fn load_triangles(
    path: &Path,
    scale: Vec3,
    translate: Vec3,
) -> Result<TriMesh, MeshImportError> {
    let file = sanitize(&path.display().to_string()).into_owned();
    let bytes = std::fs::read(path).map_err(|source| MeshImportError::Io {
        file: file.clone(),
        source,
    })?;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let soup = match ext.as_deref() {
        Some("obj") => read_obj(&bytes, &file)?,
        Some("stl") => read_stl(&bytes, &file)?,
        _ => return Err(MeshImportError::Format { file }),
    };
    let positions: Vec<Vec3> = soup.0.iter().map(|&v| v * scale + translate).collect();
    if let Some(index) = positions.iter().position(|v| !v.is_finite()) {
        return Err(MeshImportError::NotFinite { file, index });
    }
    Ok(weld(&positions, &soup.1))
}

/// Positions and triangles as read, before welding.
type Soup = (Vec<Vec3>, Vec<[u32; 3]>);

fn read_obj(bytes: &[u8], file: &str) -> Result<Soup, MeshImportError> {
    let options = tobj::LoadOptions {
        triangulate: true,
        ignore_points: true,
        ignore_lines: true,
        ..Default::default()
    };
    // materials are not needed: never open the files an OBJ names
    let (models, _) = tobj::load_obj_buf(&mut std::io::Cursor::new(bytes), &options, |_| {
        Ok(Default::default())
    })
    .map_err(|source| MeshImportError::Obj {
        file: file.into(),
        source,
    })?;
    let (mut positions, mut triangles) = (Vec::new(), Vec::new());
    for m in &models {
        let base = positions.len() as u32;
        positions.extend(
            m.mesh
                .positions
                .chunks_exact(3)
                .map(|p| Vec3::new(p[0], p[1], p[2])),
        );
        triangles.extend(
            m.mesh
                .indices
                .chunks_exact(3)
                .map(|t| [base + t[0], base + t[1], base + t[2]]),
        );
    }
    Ok((positions, triangles))
}

fn read_stl(bytes: &[u8], file: &str) -> Result<Soup, MeshImportError> {
    if !looks_ascii_stl(bytes) {
        check_binary_size(bytes, file)?;
    }
    let stl = stl_io::read_stl(&mut std::io::Cursor::new(bytes)).map_err(|source| {
        MeshImportError::Stl {
            file: file.into(),
            source,
        }
    })?;
    let positions = stl.vertices.iter().map(|v| Vec3::from(v.0)).collect();
    let triangles = stl
        .faces
        .iter()
        .map(|f| f.vertices.map(|i| i as u32))
        .collect();
    Ok((positions, triangles))
}

/// ASCII STL starts with `solid` and names a facet soon after (binary headers may also start
/// with `solid`).
fn looks_ascii_stl(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(1024)];
    let text = String::from_utf8_lossy(head);
    text.trim_start().starts_with("solid") && (text.contains("facet") || text.contains("endsolid"))
}

/// A binary STL is an 80-byte header, a triangle count and 50 bytes per triangle.
fn check_binary_size(bytes: &[u8], file: &str) -> Result<(), MeshImportError> {
    let actual = bytes.len() as u64;
    let count = bytes
        .get(80..84)
        .map_or(0, |c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
    let expected = 84 + 50 * u64::from(count);
    if actual == expected {
        Ok(())
    } else {
        Err(MeshImportError::StlCount {
            file: file.into(),
            count,
            expected,
            actual,
        })
    }
}

/// Merges equal positions and drops triangles that repeat a vertex.
fn weld(positions: &[Vec3], triangles: &[[u32; 3]]) -> TriMesh {
    let mut index: HashMap<[u32; 3], u32> = HashMap::new();
    let mut mesh = TriMesh::default();
    let remap: Vec<u32> = positions
        .iter()
        .map(|p| {
            let key = p.to_array().map(|x| (x + 0.0).to_bits());
            *index.entry(key).or_insert_with(|| {
                mesh.positions.push(*p);
                mesh.positions.len() as u32 - 1
            })
        })
        .collect();
    let n = remap.len() as u32;
    mesh.triangles = triangles
        .iter()
        .filter(|t| t.iter().all(|&v| v < n))
        .map(|t| t.map(|v| remap[v as usize]))
        .filter(|&[a, b, c]| a != b && b != c && c != a)
        .collect();
    mesh
}

/// Applies the defect rule of the module doc.
fn check(mut mesh: TriMesh, file: &str) -> Result<ImportedMesh, MeshImportError> {
    let mut warnings = Vec::new();
    if let Err(defect) = check_closed_manifold(&mesh) {
        let holes = edge_defects(&mesh).map_err(|problem| MeshImportError::NonManifold {
            file: file.into(),
            problem,
        })?;
        warnings.push(if holes > 0 {
            format!(
                "{file}: the mesh is not closed ({holes} open edges); its inside is taken from \
                 the generalised winding number"
            )
        } else {
            format!("{file}: {defect}; its inside is taken from the generalised winding number")
        });
    }
    if enclosed_volume(&mesh) < 0.0 {
        for t in &mut mesh.triangles {
            t.swap(1, 2);
        }
        warnings.push(format!(
            "{file}: the triangles faced inwards and were flipped"
        ));
    }
    Ok(ImportedMesh { mesh, warnings })
}

/// Counts open edges (used by one triangle); an error for an edge of more than two triangles
/// or two triangles running along an edge in the same direction.
fn edge_defects(mesh: &TriMesh) -> Result<usize, String> {
    let mut uses: HashMap<(u32, u32), (u32, u32)> = HashMap::new();
    for &[a, b, c] in &mesh.triangles {
        for (u, v) in [(a, b), (b, c), (c, a)] {
            let e = uses.entry((u.min(v), u.max(v))).or_default();
            if u < v {
                e.0 += 1;
            } else {
                e.1 += 1;
            }
        }
    }
    let at = |v: u32| mesh.positions[v as usize];
    let mut open = 0;
    for (&(u, v), &(forward, back)) in &uses {
        if forward + back > 2 {
            return Err(format!(
                "the edge {} – {} is shared by {} triangles",
                at(u),
                at(v),
                forward + back
            ));
        }
        if forward == 2 || back == 2 {
            return Err(format!(
                "the two triangles on edge {} – {} have opposite orientations",
                at(u),
                at(v)
            ));
        }
        open += usize::from(forward + back == 1);
    }
    Ok(open)
}

#[cfg(test)]
#[path = "import_tests.rs"]
mod tests;
