//! x87 and MMX state.
//!
//! Registers hold 80-bit values. The stack pointer, tag word, status word (C0-C3,
//! C1, sticky exception bits) and control word are kept exactly.
//!
//! Representation. `st[k]` is an f64; where the register's 80-bit value is exactly
//! that double, it is the whole value (the fast path's operands and results). Any
//! other value is also held as an exact *image* (`raw_sig`, `raw_se`, bit k of
//! `raw`), with `st[k]` its nearest f64: a result with more than 53 significant bits
//! (precision control 64) or beyond the double's exponent range (the x87's is 15
//! bits at every precision), an MMX write (the raw 64-bit value with exponent 0xFFFF,
//! as the hardware stores it), FILD m64 of more than 53 significant bits, FBLD, FLD
//! m80 and FRSTOR of any encoding a double cannot hold (the 80-bit format's
//! denormals, unnormals, pseudo-denormals, pseudo-infinities, NaN payloads below the
//! double's). Every instruction reads the full value (`Fpu::ext80`, `f80`):
//! arithmetic through the soft-float (`ops/x87/soft.rs`), data movement keeping the
//! image (FST/FSTP ST(i), FLD ST(i), FXCH, FCMOVcc, FCHS, FABS), conversions and
//! compares from it. A register write through `Fpu::put` (an f64 result) clears the
//! bit, `Fpu::put80` sets or clears it by the value; a pop only empties the tag, so
//! a popped register keeps its image as the hardware keeps its contents.

/// Physical register index of ST(i) for stack top `top`.
#[inline(always)]
pub const fn phys(top: u8, i: u8) -> usize {
    ((top + i) & 7) as usize
}

pub mod tag {
    pub const VALID: u16 = 0;
    pub const ZERO: u16 = 1;
    pub const SPECIAL: u16 = 2;
    pub const EMPTY: u16 = 3;
}

#[derive(Clone, Debug)]
pub struct Fpu {
    /// Physical registers R0-R7.
    pub st: [f64; 8],
    /// Exact 80-bit images (see the module doc): significand with the explicit
    /// integer bit, and sign | biased exponent. Meaningful only where `raw` says so.
    pub raw_sig: [u64; 8],
    pub raw_se: [u16; 8],
    /// Bit k set: physical register k's value is the 80-bit `(raw_sig[k],
    /// raw_se[k])`, which its f64 `st[k]` (the nearest double) cannot hold exactly.
    pub raw: u8,
    pub top: u8,
    /// Full tag word, two bits per physical register.
    pub tags: u16,
    pub cw: u16,
    /// Status word with the TOP field (bits 11-13) kept at zero; see [`Fpu::status`].
    pub sw: u16,
    /// Last instruction/operand pointers and opcode, as FSAVE/FSTENV store them.
    pub fip: u32,
    pub fcs: u16,
    pub fop: u16,
    pub fdp: u32,
    pub fds: u16,
}

impl Default for Fpu {
    fn default() -> Self {
        Fpu {
            st: [0.0; 8],
            raw_sig: [0; 8],
            raw_se: [0; 8],
            raw: 0,
            top: 0,
            tags: 0xffff,
            // The control word Windows gives a new thread: 53-bit precision,
            // round to nearest, all exceptions masked.
            cw: 0x027f,
            sw: 0,
            fip: 0,
            fcs: 0,
            fop: 0,
            fdp: 0,
            fds: 0,
        }
    }
}

impl Fpu {
    /// Status word including TOP.
    #[inline]
    pub fn status(&self) -> u16 {
        (self.sw & !0x3800) | ((self.top as u16 & 7) << 11)
    }

    /// Tag of physical register `k` as FSTENV/FSAVE report it: 3 (empty) from the
    /// tag word, otherwise computed from the register's contents (0 valid, 1 zero,
    /// 2 special), as the hardware does.
    pub fn full_tag(&self, k: usize) -> u16 {
        if (self.tags >> (2 * k)) & 3 == tag::EMPTY {
            return tag::EMPTY;
        }
        let (m, se) = self.ext80(k);
        let e = se & 0x7fff;
        if e == 0x7fff || (e != 0 && m >> 63 == 0) || (e == 0 && m != 0) {
            tag::SPECIAL
        } else if e == 0 && m == 0 {
            tag::ZERO
        } else {
            tag::VALID
        }
    }

    /// The full 16-bit tag word (two bits per physical register) as FSTENV stores it.
    pub fn tag_word(&self) -> u16 {
        (0..8).fold(0, |t, k| t | (self.full_tag(k) << (2 * k)))
    }

    /// Whether physical register `k` holds an exact image.
    #[inline(always)]
    pub fn is_raw(&self, k: usize) -> bool {
        self.raw & (1 << (k & 7)) != 0
    }

    /// Physical register `k` in 80-bit form (significand, sign|exponent).
    #[inline]
    pub fn ext80(&self, k: usize) -> (u64, u16) {
        if self.is_raw(k) {
            (self.raw_sig[k], self.raw_se[k])
        } else {
            f64_to_ext80(self.st[k])
        }
    }

    /// Loads physical register `k` from its 80-bit form (FLD m80, FRSTOR): every
    /// encoding is kept exactly, as an image where the f64 cannot hold it. The tag
    /// is the caller's.
    pub fn set_ext80(&mut self, k: usize, m: u64, se: u16) {
        let e = (se & 0x7fff) as u64;
        // A normal value inside the double's exponent range with at most 53
        // significant bits, or a zero: exactly an f64.
        if (m >> 63 == 1 && m & 0x7ff == 0 && e.wrapping_sub(16383 - 1022) <= 2045)
            || (m == 0 && e == 0)
        {
            let bits = if m == 0 {
                0
            } else {
                ((e - 16383 + 1023) << 52) | ((m << 1) >> 12)
            };
            self.st[k] = f64::from_bits(((se as u64 >> 15) << 63) | bits);
            self.raw &= !(1 << k);
            return;
        }
        let v = ext80_to_f64(m, se);
        self.st[k] = v;
        if f64_to_ext80(v) == (m, se) {
            self.raw &= !(1 << k);
        } else {
            self.set_image(k, m, se);
        }
    }

    /// Records the exact image of physical register `k`, whose `st[k]` the caller
    /// has set to the nearest f64 of it.
    #[inline]
    pub fn set_image(&mut self, k: usize, m: u64, se: u16) {
        self.raw_sig[k] = m;
        self.raw_se[k] = se;
        self.raw |= 1 << k;
    }

    /// Copies register `s`'s image (if any) to register `d`, whose f64 and tag the
    /// caller has written (FLD ST(i), FST ST(i), FCMOVcc); `raw_s` is whether `s`
    /// held an image before that write.
    #[inline(always)]
    pub fn copy_image(&mut self, d: usize, s: usize, raw_s: bool) {
        if raw_s {
            let (m, se) = (self.raw_sig[s], self.raw_se[s]);
            self.set_image(d, m, se);
        }
    }

    /// Exchanges physical registers `a` and `b` with their images (FXCH).
    #[inline(always)]
    pub fn swap_regs(&mut self, a: usize, b: usize) {
        self.st.swap(a, b);
        let (ra, rb) = ((self.raw >> a) & 1, (self.raw >> b) & 1);
        if ra | rb != 0 {
            self.raw_sig.swap(a, b);
            self.raw_se.swap(a, b);
            self.raw = (self.raw & !(1 << a) & !(1 << b)) | (ra << b) | (rb << a);
        }
    }

    /// The 28-byte 32-bit protected-mode FSTENV image.
    pub fn env_image(&self) -> [u8; 28] {
        let mut b = [0u8; 28];
        b[0..4].copy_from_slice(&(0xffff_0000 | self.cw as u32).to_le_bytes());
        b[4..8].copy_from_slice(&(0xffff_0000 | self.status() as u32).to_le_bytes());
        b[8..12].copy_from_slice(&(0xffff_0000 | self.tag_word() as u32).to_le_bytes());
        b[12..16].copy_from_slice(&self.fip.to_le_bytes());
        let cs_op = self.fcs as u32 | ((self.fop as u32 & 0x7ff) << 16);
        b[16..20].copy_from_slice(&cs_op.to_le_bytes());
        b[20..24].copy_from_slice(&self.fdp.to_le_bytes());
        b[24..28].copy_from_slice(&(0xffff_0000 | self.fds as u32).to_le_bytes());
        b
    }

    /// Loads the environment from a 28-byte FLDENV image. Tags: a register is empty
    /// iff its image tag is 3; the other classes are recomputed from contents.
    pub fn load_env_image(&mut self, b: &[u8]) {
        let w16 = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
        let w32 = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        self.cw = w16(0) | 0x0040;
        let sw = w16(4);
        self.top = ((sw >> 11) & 7) as u8;
        self.sw = sw & !0x3800;
        let t = w16(8);
        let mut tags = 0u16;
        for k in 0..8 {
            if (t >> (2 * k)) & 3 == tag::EMPTY {
                tags |= tag::EMPTY << (2 * k);
            }
        }
        self.tags = tags;
        self.fip = w32(12);
        self.fcs = w16(16);
        self.fop = w16(18) & 0x7ff;
        self.fdp = w32(20);
        self.fds = w16(24);
    }

    /// The 108-byte 32-bit protected-mode FSAVE image: the 28-byte environment, then
    /// ST(0)..ST(7) as 80-bit values. (FSAVE also reinitialises; this does not.)
    pub fn fsave_image(&self) -> [u8; 108] {
        let mut b = [0u8; 108];
        b[..28].copy_from_slice(&self.env_image());
        for i in 0..8u8 {
            let (m, se) = self.ext80(phys(self.top, i));
            let o = 28 + 10 * i as usize;
            b[o..o + 8].copy_from_slice(&m.to_le_bytes());
            b[o + 8..o + 10].copy_from_slice(&se.to_le_bytes());
        }
        b
    }

    /// Loads the whole x87 state from a 108-byte FSAVE image (FRSTOR).
    pub fn frstor_image(&mut self, img: &[u8; 108]) {
        self.load_env_image(&img[..28]);
        for i in 0..8u8 {
            let o = 28 + 10 * i as usize;
            let m = u64::from_le_bytes(img[o..o + 8].try_into().expect("8 bytes"));
            let se = u16::from_le_bytes([img[o + 8], img[o + 9]]);
            self.set_ext80(phys(self.top, i), m, se);
        }
    }

    // ---- MMX view -----------------------------------------------------------------

    /// MMX register `i` (physical register i).
    #[inline(always)]
    pub fn mmx(&self, i: u8) -> u64 {
        let k = (i & 7) as usize;
        if self.raw & (1 << k) != 0 {
            self.raw_sig[k]
        } else {
            f64_to_ext80(self.st[k]).0
        }
    }

    /// Writes MMX register `i`: exponent field becomes 0xFFFF (raw), and, as every
    /// MMX instruction does, TOP becomes 0 and all tags valid.
    #[inline(always)]
    pub fn set_mmx(&mut self, i: u8, v: u64) {
        let k = (i & 7) as usize;
        self.set_image(k, v, 0xffff);
        // What x87 arithmetic sees in the register: exponent 0x7FFF, sign set (a
        // NaN, or -inf for 0x8000_0000_0000_0000).
        let frac = (v << 1) >> 12;
        let frac = if frac == 0 && v << 1 != 0 { 1 } else { frac };
        self.st[k] = f64::from_bits(0xfff0_0000_0000_0000 | frac);
        self.mmx_enter();
    }

    /// State change every MMX instruction other than EMMS makes.
    #[inline(always)]
    pub fn mmx_enter(&mut self) {
        self.top = 0;
        self.tags = 0;
    }

    /// EMMS: all registers empty.
    #[inline(always)]
    pub fn emms(&mut self) {
        self.tags = 0xffff;
    }
}

/// Converts an f64 to the 80-bit extended format: (significand with explicit integer
/// bit, sign and biased 15-bit exponent).
pub fn f64_to_ext80(v: f64) -> (u64, u16) {
    let bits = v.to_bits();
    let sign = ((bits >> 63) as u16) << 15;
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    if exp == 0 {
        if frac == 0 {
            return (0, sign);
        }
        // Double denormal: normalise into the wider exponent range.
        let lz = frac.leading_zeros() as i32 - 11; // shift to bring the top bit to bit 52
        let m = frac << (lz + 11);
        let e = 1 - 1023 - lz + 16383;
        return (m, sign | e as u16);
    }
    if exp == 0x7ff {
        let m = (1u64 << 63) | (frac << 11);
        return (m, sign | 0x7fff);
    }
    let m = (1u64 << 63) | (frac << 11);
    (m, sign | (exp - 1023 + 16383) as u16)
}

/// Converts an 80-bit extended value to the nearest f64 (round to nearest even).
pub fn ext80_to_f64(m: u64, se: u16) -> f64 {
    let sign = if se & 0x8000 != 0 { -1.0f64 } else { 1.0 };
    let e = (se & 0x7fff) as i32;
    if e == 0x7fff {
        if m << 1 == 0 {
            return sign * f64::INFINITY;
        }
        // NaN: keep the payload's top bits and the quiet bit.
        let frac = (m << 1) >> 12;
        let bits = ((se as u64 & 0x8000) << 48) | (0x7ffu64 << 52) | frac.max(1);
        return f64::from_bits(bits);
    }
    if m == 0 {
        return sign * 0.0;
    }
    // value = m * 2^(e - 16383 - 63); exact in i128-free form via ldexp-style scaling.
    let unbiased = if e == 0 { 1 - 16383 } else { e - 16383 };
    let r = round_to_f64(m, unbiased - 63);
    sign * r
}

/// `m * 2^exp` rounded to nearest-even f64.
fn round_to_f64(m: u64, exp: i32) -> f64 {
    // Normalise so bit 63 is set.
    let lz = m.leading_zeros() as i32;
    let m = m << lz;
    let exp = exp - lz;
    // Value is 1.f * 2^(exp+63).
    let e = exp + 63;
    let (keep, shift) = if e >= -1022 {
        (53, 11)
    } else {
        // Denormal result: fewer significant bits.
        let bits = 53 - (-1022 - e);
        if bits <= 0 {
            // Rounds to zero or the smallest denormal.
            let half = bits == 0 && m > (1u64 << 63);
            return if half { f64::from_bits(1) } else { 0.0 };
        }
        (bits, 64 - bits)
    };
    let _ = keep;
    let mut q = m >> shift;
    let rem = m & ((1u64 << shift) - 1);
    let half = 1u64 << (shift - 1);
    if rem > half || (rem == half && q & 1 == 1) {
        q += 1;
    }
    // q has `keep` (or keep+1 after carry) bits; scale back.
    let mut out = q as f64;
    let mut scale = e - (64 - shift - 1);
    // Apply 2^scale in steps to avoid overflow/underflow of the intermediate.
    while scale > 1000 {
        out *= 2f64.powi(1000);
        scale -= 1000;
    }
    while scale < -1000 {
        out *= 2f64.powi(-1000);
        scale += 1000;
    }
    out * 2f64.powi(scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ext80_round_trip_for_doubles() {
        for v in [
            1.0,
            -2.5,
            1e300,
            -1e-300,
            5e-324,
            0.1,
            f64::MAX,
            f64::MIN_POSITIVE,
            0.0,
            -0.0,
            f64::INFINITY,
        ] {
            let (m, se) = f64_to_ext80(v);
            let back = ext80_to_f64(m, se);
            assert_eq!(back.to_bits(), v.to_bits(), "{v}");
        }
        assert_eq!(f64_to_ext80(1.0), (1u64 << 63, 0x3fff));
    }
}
