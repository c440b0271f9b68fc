//! Fixed-function lighting (GL 1.1 section 2.13), per vertex on the CPU: lights,
//! materials, the light model and glColorMaterial, with the colour a lit vertex
//! gets.
//!
//! Light positions and spot directions are kept in eye coordinates, transformed
//! by the modelview matrix current when glLight set them, as GL specifies. One-
//! sided lighting uses the front material for every polygon; two-sided lighting
//! (GL_LIGHT_MODEL_TWO_SIDE) is not implemented and reports by name when a
//! primitive is drawn with it.

use super::consts::*;
use super::matrix::Mat4;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Light {
    pub ambient: [f32; 4],
    pub diffuse: [f32; 4],
    pub specular: [f32; 4],
    /// In eye coordinates.
    pub position: [f32; 4],
    /// In eye coordinates.
    pub spot_direction: [f32; 3],
    pub spot_exponent: f32,
    pub spot_cutoff: f32,
    /// Constant, linear, quadratic.
    pub attenuation: [f32; 3],
}

impl Light {
    /// GL's initial values: light 0 is white, the others black.
    pub fn new(k: usize) -> Light {
        let on = if k == 0 { 1.0 } else { 0.0 };
        Light {
            ambient: [0.0, 0.0, 0.0, 1.0],
            diffuse: [on, on, on, 1.0],
            specular: [on, on, on, 1.0],
            position: [0.0, 0.0, 1.0, 0.0],
            spot_direction: [0.0, 0.0, -1.0],
            spot_exponent: 0.0,
            spot_cutoff: 180.0,
            attenuation: [1.0, 0.0, 0.0],
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Material {
    pub ambient: [f32; 4],
    pub diffuse: [f32; 4],
    pub specular: [f32; 4],
    pub emission: [f32; 4],
    pub shininess: f32,
}

impl Default for Material {
    fn default() -> Self {
        Material {
            ambient: [0.2, 0.2, 0.2, 1.0],
            diffuse: [0.8, 0.8, 0.8, 1.0],
            specular: [0.0, 0.0, 0.0, 1.0],
            emission: [0.0, 0.0, 0.0, 1.0],
            shininess: 0.0,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Lighting {
    pub lights: [Light; 8],
    /// Front and back.
    pub material: [Material; 2],
    pub model_ambient: [f32; 4],
    pub local_viewer: bool,
    pub two_side: bool,
    /// glColorMaterial's face and parameter.
    pub color_material: (u32, u32),
}

impl Default for Lighting {
    fn default() -> Self {
        Lighting {
            lights: std::array::from_fn(Light::new),
            material: [Material::default(); 2],
            model_ambient: [0.2, 0.2, 0.2, 1.0],
            local_viewer: false,
            two_side: false,
            color_material: (GL_FRONT_AND_BACK, GL_AMBIENT_AND_DIFFUSE),
        }
    }
}

/// The materials (indices into [`Lighting::material`]) a face names, or None for
/// an invalid face.
pub fn faces(face: u32) -> Option<&'static [usize]> {
    match face {
        GL_FRONT => Some(&[0]),
        GL_BACK => Some(&[1]),
        GL_FRONT_AND_BACK => Some(&[0, 1]),
        _ => None,
    }
}

/// How many values a glLight / glMaterial / glLightModel parameter has.
pub fn param_count(pname: u32) -> usize {
    match pname {
        GL_AMBIENT
        | GL_DIFFUSE
        | GL_SPECULAR
        | GL_POSITION
        | GL_EMISSION
        | GL_AMBIENT_AND_DIFFUSE
        | GL_LIGHT_MODEL_AMBIENT => 4,
        GL_SPOT_DIRECTION | GL_COLOR_INDEXES => 3,
        _ => 1,
    }
}

/// Whether a parameter is a colour (its integer forms are normalised).
pub fn is_color(pname: u32) -> bool {
    matches!(
        pname,
        GL_AMBIENT
            | GL_DIFFUSE
            | GL_SPECULAR
            | GL_EMISSION
            | GL_AMBIENT_AND_DIFFUSE
            | GL_LIGHT_MODEL_AMBIENT
    )
}

/// Sets material parameter `pname` of materials `which`; false for an invalid
/// parameter or value (GL_INVALID_ENUM / GL_INVALID_VALUE, told apart by the caller
/// with [`material_pname_ok`]).
pub fn set_material(l: &mut Lighting, which: &[usize], pname: u32, v: [f32; 4]) -> bool {
    if pname == GL_SHININESS && !(0.0..=128.0).contains(&v[0]) {
        return false;
    }
    for &k in which {
        let m = &mut l.material[k];
        match pname {
            GL_AMBIENT => m.ambient = v,
            GL_DIFFUSE => m.diffuse = v,
            GL_SPECULAR => m.specular = v,
            GL_EMISSION => m.emission = v,
            GL_AMBIENT_AND_DIFFUSE => {
                m.ambient = v;
                m.diffuse = v;
            }
            GL_SHININESS => m.shininess = v[0],
            // Colour indexes matter only in colour-index mode, which no pixel
            // format here has.
            GL_COLOR_INDEXES => {}
            _ => return false,
        }
    }
    true
}

pub fn material_pname_ok(pname: u32) -> bool {
    matches!(
        pname,
        GL_AMBIENT
            | GL_DIFFUSE
            | GL_SPECULAR
            | GL_EMISSION
            | GL_AMBIENT_AND_DIFFUSE
            | GL_SHININESS
            | GL_COLOR_INDEXES
    )
}

/// glColorMaterial tracking: the current colour into the tracked material.
pub fn track_color(l: &mut Lighting, color: [f32; 4]) {
    let (face, mode) = l.color_material;
    if let Some(which) = faces(face) {
        set_material(l, which, mode, color);
    }
}

/// What glLight does with `pname` and values `v` on light `k`, given the
/// modelview matrix: Err(GL error) for a bad parameter or value.
pub fn set_light(l: &mut Light, modelview: &Mat4, pname: u32, v: [f32; 4]) -> Result<(), u32> {
    match pname {
        GL_AMBIENT => l.ambient = v,
        GL_DIFFUSE => l.diffuse = v,
        GL_SPECULAR => l.specular = v,
        GL_POSITION => l.position = modelview.transform(v),
        GL_SPOT_DIRECTION => {
            let d = modelview.transform([v[0], v[1], v[2], 0.0]);
            l.spot_direction = [d[0], d[1], d[2]];
        }
        GL_SPOT_EXPONENT => {
            if !(0.0..=128.0).contains(&v[0]) {
                return Err(GL_INVALID_VALUE);
            }
            l.spot_exponent = v[0];
        }
        GL_SPOT_CUTOFF => {
            if !((0.0..=90.0).contains(&v[0]) || v[0] == 180.0) {
                return Err(GL_INVALID_VALUE);
            }
            l.spot_cutoff = v[0];
        }
        GL_CONSTANT_ATTENUATION | GL_LINEAR_ATTENUATION | GL_QUADRATIC_ATTENUATION => {
            if v[0] < 0.0 {
                return Err(GL_INVALID_VALUE);
            }
            l.attenuation[(pname - GL_CONSTANT_ATTENUATION) as usize] = v[0];
        }
        _ => return Err(GL_INVALID_ENUM),
    }
    Ok(())
}

/// glGetLight's values.
pub fn light_values(l: &Light, pname: u32) -> Option<Vec<f64>> {
    let f = |v: &[f32]| v.iter().map(|&x| f64::from(x)).collect();
    Some(match pname {
        GL_AMBIENT => f(&l.ambient),
        GL_DIFFUSE => f(&l.diffuse),
        GL_SPECULAR => f(&l.specular),
        GL_POSITION => f(&l.position),
        GL_SPOT_DIRECTION => f(&l.spot_direction),
        GL_SPOT_EXPONENT => vec![f64::from(l.spot_exponent)],
        GL_SPOT_CUTOFF => vec![f64::from(l.spot_cutoff)],
        GL_CONSTANT_ATTENUATION | GL_LINEAR_ATTENUATION | GL_QUADRATIC_ATTENUATION => {
            vec![f64::from(
                l.attenuation[(pname - GL_CONSTANT_ATTENUATION) as usize],
            )]
        }
        _ => return None,
    })
}

/// glGetMaterial's values.
pub fn material_values(m: &Material, pname: u32) -> Option<Vec<f64>> {
    let f = |v: &[f32]| v.iter().map(|&x| f64::from(x)).collect();
    Some(match pname {
        GL_AMBIENT => f(&m.ambient),
        GL_DIFFUSE => f(&m.diffuse),
        GL_SPECULAR => f(&m.specular),
        GL_EMISSION => f(&m.emission),
        GL_SHININESS => vec![f64::from(m.shininess)],
        GL_COLOR_INDEXES => vec![0.0, 1.0, 1.0],
        _ => return None,
    })
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn normalize(a: [f32; 3]) -> [f32; 3] {
    let n = dot(a, a).sqrt();
    if n > 0.0 { a.map(|x| x / n) } else { a }
}

/// The normal in eye coordinates: `n` times the inverse of the modelview matrix
/// (its upper 3 x 3), normalised with GL_NORMALIZE.
pub fn eye_normal(inverse: &Mat4, n: [f32; 3], renormalize: bool) -> [f32; 3] {
    let e = [0, 1, 2].map(|j| (0..3).map(|i| n[i] * inverse.at(i, j)).sum::<f32>());
    if renormalize { normalize(e) } else { e }
}

/// The colour of a vertex at eye position `v` with eye normal `n` (GL 1.1
/// equation 2.4 for the front material, with the lights `on`).
pub fn shade(l: &Lighting, on: &[bool; 8], v: [f32; 4], n: [f32; 3]) -> [f32; 4] {
    let m = &l.material[0];
    let w = if v[3] == 0.0 { 1.0 } else { v[3] };
    let p = [v[0] / w, v[1] / w, v[2] / w];
    let mut c = [0f32; 3];
    for k in 0..3 {
        c[k] = m.emission[k] + m.ambient[k] * l.model_ambient[k];
    }
    for (light, _) in l.lights.iter().zip(on).filter(|(_, on)| **on) {
        let (vp, att) = if light.position[3] == 0.0 {
            (
                normalize([light.position[0], light.position[1], light.position[2]]),
                1.0,
            )
        } else {
            let lp = light.position.map(|x| x / light.position[3]);
            let d = [lp[0] - p[0], lp[1] - p[1], lp[2] - p[2]];
            let dist = dot(d, d).sqrt();
            let [k0, k1, k2] = light.attenuation;
            let att = 1.0 / (k0 + k1 * dist + k2 * dist * dist);
            (normalize(d), att)
        };
        let spot = if light.spot_cutoff == 180.0 {
            1.0
        } else {
            let s = normalize(light.spot_direction);
            let cos = dot([-vp[0], -vp[1], -vp[2]], s);
            if cos >= light.spot_cutoff.to_radians().cos() {
                cos.max(0.0).powf(light.spot_exponent)
            } else {
                0.0
            }
        };
        let f = att * spot;
        if f == 0.0 {
            continue;
        }
        let ndl = dot(n, vp);
        let diffuse = ndl.max(0.0);
        let specular = if ndl > 0.0 {
            let eye = if l.local_viewer {
                normalize([-p[0], -p[1], -p[2]])
            } else {
                [0.0, 0.0, 1.0]
            };
            let h = normalize([vp[0] + eye[0], vp[1] + eye[1], vp[2] + eye[2]]);
            let nh = dot(n, h).max(0.0);
            if m.shininess == 0.0 {
                1.0
            } else {
                nh.powf(m.shininess)
            }
        } else {
            0.0
        };
        for k in 0..3 {
            c[k] += f
                * (m.ambient[k] * light.ambient[k]
                    + diffuse * m.diffuse[k] * light.diffuse[k]
                    + specular * m.specular[k] * light.specular[k]);
        }
    }
    [c[0], c[1], c[2], m.diffuse[3]].map(|x| x.clamp(0.0, 1.0))
}
