//! 4x4 matrices as GL keeps them (column-major, single precision) and the
//! matrix operations of GL 1.1 (glFrustum, glOrtho, glRotate, glTranslate, glScale
//! as the specification defines them), shared with GLU.

/// Column-major: element (row r, column c) is `m[c * 4 + r]`, as glLoadMatrixf
/// takes it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mat4(pub [f32; 16]);

impl Default for Mat4 {
    fn default() -> Self {
        Mat4::IDENTITY
    }
}

impl Mat4 {
    pub const IDENTITY: Mat4 = Mat4([
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
    ]);

    pub fn at(&self, r: usize, c: usize) -> f32 {
        self.0[c * 4 + r]
    }

    /// `self * b` (b applied first to a vector).
    pub fn mul(&self, b: &Mat4) -> Mat4 {
        let mut o = [0f32; 16];
        for c in 0..4 {
            for r in 0..4 {
                let mut s = 0f64;
                for k in 0..4 {
                    s += f64::from(self.at(r, k)) * f64::from(b.at(k, c));
                }
                o[c * 4 + r] = s as f32;
            }
        }
        Mat4(o)
    }

    pub fn transform(&self, v: [f32; 4]) -> [f32; 4] {
        let m = &self.0;
        let mut o = [0f32; 4];
        for r in 0..4 {
            o[r] = m[r] * v[0] + m[4 + r] * v[1] + m[8 + r] * v[2] + m[12 + r] * v[3];
        }
        o
    }

    /// From rows written as they read on paper.
    pub fn from_rows(r: [[f64; 4]; 4]) -> Mat4 {
        let mut o = [0f32; 16];
        for (i, row) in r.iter().enumerate() {
            for (j, v) in row.iter().enumerate() {
                o[j * 4 + i] = *v as f32;
            }
        }
        Mat4(o)
    }

    pub fn translate(x: f64, y: f64, z: f64) -> Mat4 {
        Mat4::from_rows([
            [1.0, 0.0, 0.0, x],
            [0.0, 1.0, 0.0, y],
            [0.0, 0.0, 1.0, z],
            [0.0, 0.0, 0.0, 1.0],
        ])
    }

    pub fn scale(x: f64, y: f64, z: f64) -> Mat4 {
        Mat4::from_rows([
            [x, 0.0, 0.0, 0.0],
            [0.0, y, 0.0, 0.0],
            [0.0, 0.0, z, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ])
    }

    /// glRotate: `angle` degrees about (x, y, z), normalised; None for a zero axis.
    pub fn rotate(angle: f64, x: f64, y: f64, z: f64) -> Option<Mat4> {
        let len = (x * x + y * y + z * z).sqrt();
        if len == 0.0 {
            return None;
        }
        let (x, y, z) = (x / len, y / len, z / len);
        let (s, c) = angle.to_radians().sin_cos();
        let t = 1.0 - c;
        Some(Mat4::from_rows([
            [x * x * t + c, x * y * t - z * s, x * z * t + y * s, 0.0],
            [y * x * t + z * s, y * y * t + c, y * z * t - x * s, 0.0],
            [x * z * t - y * s, y * z * t + x * s, z * z * t + c, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ]))
    }

    /// glFrustum; None for the invalid arguments GL refuses with GL_INVALID_VALUE.
    pub fn frustum(l: f64, r: f64, b: f64, t: f64, n: f64, f: f64) -> Option<Mat4> {
        if n <= 0.0 || f <= 0.0 || l == r || b == t || n == f {
            return None;
        }
        Some(Mat4::from_rows([
            [2.0 * n / (r - l), 0.0, (r + l) / (r - l), 0.0],
            [0.0, 2.0 * n / (t - b), (t + b) / (t - b), 0.0],
            [0.0, 0.0, -(f + n) / (f - n), -2.0 * f * n / (f - n)],
            [0.0, 0.0, -1.0, 0.0],
        ]))
    }

    /// glOrtho; None when a pair of planes coincides (GL_INVALID_VALUE).
    pub fn ortho(l: f64, r: f64, b: f64, t: f64, n: f64, f: f64) -> Option<Mat4> {
        if l == r || b == t || n == f {
            return None;
        }
        Some(Mat4::from_rows([
            [2.0 / (r - l), 0.0, 0.0, -(r + l) / (r - l)],
            [0.0, 2.0 / (t - b), 0.0, -(t + b) / (t - b)],
            [0.0, 0.0, -2.0 / (f - n), -(f + n) / (f - n)],
            [0.0, 0.0, 0.0, 1.0],
        ]))
    }

    /// The inverse (general 4x4, by cofactors), or None if singular.
    pub fn inverse(&self) -> Option<Mat4> {
        let m: Vec<f64> = self.0.iter().map(|&v| f64::from(v)).collect();
        let mut inv = [0f64; 16];
        inv[0] = m[5] * m[10] * m[15] - m[5] * m[11] * m[14] - m[9] * m[6] * m[15]
            + m[9] * m[7] * m[14]
            + m[13] * m[6] * m[11]
            - m[13] * m[7] * m[10];
        inv[4] = -m[4] * m[10] * m[15] + m[4] * m[11] * m[14] + m[8] * m[6] * m[15]
            - m[8] * m[7] * m[14]
            - m[12] * m[6] * m[11]
            + m[12] * m[7] * m[10];
        inv[8] = m[4] * m[9] * m[15] - m[4] * m[11] * m[13] - m[8] * m[5] * m[15]
            + m[8] * m[7] * m[13]
            + m[12] * m[5] * m[11]
            - m[12] * m[7] * m[9];
        inv[12] = -m[4] * m[9] * m[14] + m[4] * m[10] * m[13] + m[8] * m[5] * m[14]
            - m[8] * m[6] * m[13]
            - m[12] * m[5] * m[10]
            + m[12] * m[6] * m[9];
        inv[1] = -m[1] * m[10] * m[15] + m[1] * m[11] * m[14] + m[9] * m[2] * m[15]
            - m[9] * m[3] * m[14]
            - m[13] * m[2] * m[11]
            + m[13] * m[3] * m[10];
        inv[5] = m[0] * m[10] * m[15] - m[0] * m[11] * m[14] - m[8] * m[2] * m[15]
            + m[8] * m[3] * m[14]
            + m[12] * m[2] * m[11]
            - m[12] * m[3] * m[10];
        inv[9] = -m[0] * m[9] * m[15] + m[0] * m[11] * m[13] + m[8] * m[1] * m[15]
            - m[8] * m[3] * m[13]
            - m[12] * m[1] * m[11]
            + m[12] * m[3] * m[9];
        inv[13] = m[0] * m[9] * m[14] - m[0] * m[10] * m[13] - m[8] * m[1] * m[14]
            + m[8] * m[2] * m[13]
            + m[12] * m[1] * m[10]
            - m[12] * m[2] * m[9];
        inv[2] = m[1] * m[6] * m[15] - m[1] * m[7] * m[14] - m[5] * m[2] * m[15]
            + m[5] * m[3] * m[14]
            + m[13] * m[2] * m[7]
            - m[13] * m[3] * m[6];
        inv[6] = -m[0] * m[6] * m[15] + m[0] * m[7] * m[14] + m[4] * m[2] * m[15]
            - m[4] * m[3] * m[14]
            - m[12] * m[2] * m[7]
            + m[12] * m[3] * m[6];
        inv[10] = m[0] * m[5] * m[15] - m[0] * m[7] * m[13] - m[4] * m[1] * m[15]
            + m[4] * m[3] * m[13]
            + m[12] * m[1] * m[7]
            - m[12] * m[3] * m[5];
        inv[14] = -m[0] * m[5] * m[14] + m[0] * m[6] * m[13] + m[4] * m[1] * m[14]
            - m[4] * m[2] * m[13]
            - m[12] * m[1] * m[6]
            + m[12] * m[2] * m[5];
        inv[3] = -m[1] * m[6] * m[11] + m[1] * m[7] * m[10] + m[5] * m[2] * m[11]
            - m[5] * m[3] * m[10]
            - m[9] * m[2] * m[7]
            + m[9] * m[3] * m[6];
        inv[7] = m[0] * m[6] * m[11] - m[0] * m[7] * m[10] - m[4] * m[2] * m[11]
            + m[4] * m[3] * m[10]
            + m[8] * m[2] * m[7]
            - m[8] * m[3] * m[6];
        inv[11] = -m[0] * m[5] * m[11] + m[0] * m[7] * m[9] + m[4] * m[1] * m[11]
            - m[4] * m[3] * m[9]
            - m[8] * m[1] * m[7]
            + m[8] * m[3] * m[5];
        inv[15] = m[0] * m[5] * m[10] - m[0] * m[6] * m[9] - m[4] * m[1] * m[10]
            + m[4] * m[2] * m[9]
            + m[8] * m[1] * m[6]
            - m[8] * m[2] * m[5];
        let det = m[0] * inv[0] + m[1] * inv[4] + m[2] * inv[8] + m[3] * inv[12];
        if det == 0.0 {
            return None;
        }
        let mut o = [0f32; 16];
        for k in 0..16 {
            o[k] = (inv[k] / det) as f32;
        }
        Some(Mat4(o))
    }
}

/// A matrix stack: the top is the current matrix.
#[derive(Clone, Debug)]
pub struct Stack {
    pub items: Vec<Mat4>,
    pub max: usize,
}

impl Stack {
    pub fn new(max: usize) -> Stack {
        Stack {
            items: vec![Mat4::IDENTITY],
            max,
        }
    }

    pub fn top(&self) -> &Mat4 {
        self.items.last().unwrap_or(&Mat4::IDENTITY)
    }

    pub fn top_mut(&mut self) -> &mut Mat4 {
        if self.items.is_empty() {
            self.items.push(Mat4::IDENTITY);
        }
        let n = self.items.len() - 1;
        &mut self.items[n]
    }

    /// False on overflow (GL_STACK_OVERFLOW, nothing changes).
    pub fn push(&mut self) -> bool {
        if self.items.len() >= self.max {
            return false;
        }
        let t = *self.top();
        self.items.push(t);
        true
    }

    /// False on underflow (GL_STACK_UNDERFLOW, nothing changes).
    pub fn pop(&mut self) -> bool {
        if self.items.len() <= 1 {
            return false;
        }
        self.items.pop();
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: [f32; 4], b: [f32; 4]) -> bool {
        a.iter().zip(b.iter()).all(|(x, y)| (x - y).abs() < 1e-5)
    }

    #[test]
    fn translate_then_scale_applies_scale_first() {
        // glTranslate(1,2,3); glScale(2,2,2): a point is scaled, then moved.
        let m = Mat4::translate(1.0, 2.0, 3.0).mul(&Mat4::scale(2.0, 2.0, 2.0));
        assert!(close(
            m.transform([1.0, 1.0, 1.0, 1.0]),
            [3.0, 4.0, 5.0, 1.0]
        ));
    }

    #[test]
    fn rotate_90_about_z_turns_x_into_y() {
        let m = Mat4::rotate(90.0, 0.0, 0.0, 2.0).unwrap();
        assert!(close(
            m.transform([1.0, 0.0, 0.0, 1.0]),
            [0.0, 1.0, 0.0, 1.0]
        ));
        assert!(Mat4::rotate(10.0, 0.0, 0.0, 0.0).is_none());
    }

    #[test]
    fn frustum_maps_near_and_far_planes() {
        let m = Mat4::frustum(-1.0, 1.0, -1.0, 1.0, 1.0, 10.0).unwrap();
        let n = m.transform([1.0, 1.0, -1.0, 1.0]);
        assert!(close(
            [n[0] / n[3], n[1] / n[3], n[2] / n[3], 1.0],
            [1.0, 1.0, -1.0, 1.0]
        ));
        let f = m.transform([0.0, 0.0, -10.0, 1.0]);
        assert!((f[2] / f[3] - 1.0).abs() < 1e-5);
        assert!(Mat4::frustum(-1.0, 1.0, -1.0, 1.0, 0.0, 10.0).is_none());
    }

    #[test]
    fn ortho_maps_the_box_to_the_cube() {
        let m = Mat4::ortho(0.0, 640.0, 480.0, 0.0, -1.0, 1.0).unwrap();
        assert!(close(
            m.transform([0.0, 0.0, 0.0, 1.0]),
            [-1.0, 1.0, 0.0, 1.0]
        ));
        assert!(close(
            m.transform([640.0, 480.0, 1.0, 1.0]),
            [1.0, -1.0, -1.0, 1.0]
        ));
    }

    #[test]
    fn inverse_undoes() {
        let m = Mat4::frustum(-1.0, 1.0, -0.75, 0.75, 1.0, 100.0)
            .unwrap()
            .mul(&Mat4::rotate(30.0, 1.0, 1.0, 0.0).unwrap())
            .mul(&Mat4::translate(3.0, -2.0, -7.0));
        let i = m.inverse().unwrap();
        let v = [0.5, -0.25, 2.0, 1.0];
        assert!(close(i.transform(m.transform(v)), v));
        assert!(Mat4([0.0; 16]).inverse().is_none());
    }

    #[test]
    fn stacks_refuse_overflow_and_underflow() {
        let mut s = Stack::new(2);
        assert!(!s.pop());
        assert!(s.push());
        *s.top_mut() = Mat4::scale(2.0, 2.0, 2.0);
        assert!(!s.push());
        assert!(s.pop());
        assert_eq!(*s.top(), Mat4::IDENTITY);
    }
}
