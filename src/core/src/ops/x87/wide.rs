//! Wide binary floating point for the transcendentals: a sign, a 128-bit
//! significand and an exponent. Every operation truncates to 128 bits, so a chain
//! of a few dozen of them keeps far more than the 64 bits (plus rounding margin) an
//! 80-bit result needs; the result is then rounded once by `soft::round_pack`.

use super::soft::{F80, Res, round_pack};

/// `(-1)^neg * m * 2^e`, `m` normalized (bit 127 set) or zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct W {
    pub neg: bool,
    pub m: u128,
    pub e: i32,
}

/// pi, ln 2 and log2 e to 128 bits (truncated).
pub const PI: W = W {
    neg: false,
    m: 0xc90f_daa2_2168_c234_c4c6_628b_80dc_1cd1,
    e: -126,
};
pub const LN2: W = W {
    neg: false,
    m: 0xb172_17f7_d1cf_79ab_c9e3_b398_03f2_f6af,
    e: -128,
};
pub const LOG2E: W = W {
    neg: false,
    m: 0xb8aa_3b29_5c17_f0bb_be87_fed0_691d_3e88,
    e: -127,
};

impl W {
    /// `(-1)^neg * m * 2^e`, normalized.
    pub fn new(neg: bool, m: u128, e: i32) -> W {
        if m == 0 {
            return W { neg, m: 0, e: 0 };
        }
        let lz = m.leading_zeros();
        W {
            neg,
            m: m << lz,
            e: e - lz as i32,
        }
    }

    pub fn int(v: i64) -> W {
        W::new(v < 0, v.unsigned_abs() as u128, 0)
    }

    /// A finite 80-bit value (zero included).
    pub fn from_f80(x: F80) -> W {
        if x.m == 0 {
            return W {
                neg: x.sign(),
                m: 0,
                e: 0,
            };
        }
        let (m, e) = x.unpack();
        W::new(x.sign(), m as u128, e)
    }

    pub fn neg(self) -> W {
        W {
            neg: !self.neg,
            ..self
        }
    }

    pub fn abs(self) -> W {
        W { neg: false, ..self }
    }

    /// The binary exponent of the leading bit (value in [2^t, 2^(t+1))).
    pub fn top(self) -> i32 {
        self.e + 127
    }

    /// `self * 2^k`.
    pub fn scale(self, k: i32) -> W {
        if self.m == 0 {
            return self;
        }
        W {
            e: self.e + k,
            ..self
        }
    }

    pub fn mul(self, o: W) -> W {
        if self.m == 0 || o.m == 0 {
            return W {
                neg: self.neg != o.neg,
                m: 0,
                e: 0,
            };
        }
        let (a1, a0) = ((self.m >> 64) as u64 as u128, self.m as u64 as u128);
        let (b1, b0) = ((o.m >> 64) as u64 as u128, o.m as u64 as u128);
        let hh = a1 * b1;
        let hl = a1 * b0;
        let lh = a0 * b1;
        let ll = a0 * b0;
        // The 256-bit product's top 128 bits (the bits below are dropped).
        let mid = (hl & 0xffff_ffff_ffff_ffff) + (lh & 0xffff_ffff_ffff_ffff) + (ll >> 64);
        let hi = hh + (hl >> 64) + (lh >> 64) + (mid >> 64);
        let lo = mid << 64;
        let (m, e) = if hi >> 127 == 0 {
            ((hi << 1) | (lo >> 127), self.e + o.e + 127)
        } else {
            (hi, self.e + o.e + 128)
        };
        W {
            neg: self.neg != o.neg,
            m,
            e,
        }
    }

    pub fn add(self, o: W) -> W {
        if self.m == 0 {
            return o;
        }
        if o.m == 0 {
            return self;
        }
        let (a, b) = if (self.e, self.m) >= (o.e, o.m) {
            (self, o)
        } else {
            (o, self)
        };
        let d = (a.e - b.e) as u32;
        // One bit of headroom for a carry.
        let am = a.m >> 1;
        let bm = if d + 1 >= 128 { 0 } else { b.m >> (d + 1) };
        if a.neg == b.neg {
            W::new(a.neg, am + bm, a.e + 1)
        } else {
            W::new(a.neg, am - bm, a.e + 1)
        }
    }

    pub fn sub(self, o: W) -> W {
        self.add(o.neg())
    }

    /// `self / o` (`o` nonzero).
    pub fn div(self, o: W) -> W {
        if self.m == 0 {
            return W {
                neg: self.neg != o.neg,
                m: 0,
                e: 0,
            };
        }
        let b = o.m;
        let (mut q, mut r) = if self.m >= b {
            (1u128, self.m - b)
        } else {
            (0, self.m)
        };
        for _ in 0..127 {
            let carry = r >> 127;
            r <<= 1;
            q <<= 1;
            if carry == 1 || r >= b {
                r = r.wrapping_sub(b);
                q |= 1;
            }
        }
        W::new(self.neg != o.neg, q, self.e - o.e - 127)
    }

    /// Division by a small positive integer.
    pub fn div_int(self, n: u64) -> W {
        self.div(W::new(false, n as u128, 0))
    }

    /// The square root of a positive value (Newton's iteration from a double).
    pub fn sqrt(self) -> W {
        if self.m == 0 {
            return self;
        }
        // self = m' * 2^(2h) with m' in [1, 4).
        let t = self.top();
        let h = t.div_euclid(2);
        let x = self.scale(-2 * h);
        let g = x.to_f64().sqrt();
        let mut y = W::from_f64(g);
        for _ in 0..3 {
            y = y.add(x.div(y)).scale(-1);
        }
        y.scale(h)
    }

    /// Nearest-ish double (for seeds).
    pub fn to_f64(self) -> f64 {
        let v = (self.m >> 64) as u64 as f64 * 2f64.powi(self.e + 64);
        if self.neg { -v } else { v }
    }

    pub fn from_f64(v: f64) -> W {
        W::from_f80(F80::from_f64(v))
    }

    /// Rounded to 64 bits under control word `cw` (the precision control does not
    /// apply to the transcendentals).
    pub fn round(self, cw: u16) -> Res {
        if self.m == 0 {
            return Res::exact(F80::zero(self.neg));
        }
        // The value is an approximation: a sticky bit keeps it off every exact
        // 64-bit value and every midpoint.
        round_pack(self.neg, self.m | 1, self.e, 64, cw)
    }
}

/// atanh(u) = u + u^3/3 + u^5/5 + ... for |u| <= 0.18.
fn atanh(u: W) -> W {
    let u2 = u.mul(u);
    let mut p = u;
    let mut sum = u;
    for k in 1..60u64 {
        p = p.mul(u2);
        let term = p.div_int(2 * k + 1);
        sum = sum.add(term);
        if term.m == 0 || term.top() < sum.top() - 130 {
            break;
        }
    }
    sum
}

/// ln of a positive finite value.
pub fn ln(x: W) -> W {
    // x = m * 2^k with m in [sqrt(1/2), sqrt(2)).
    let mut k = x.top();
    let mut m = x.scale(-k);
    // sqrt(2) ~ 1.4142135623730951: compare the leading 64 bits.
    if (m.m >> 64) as u64 > 0xb504_f333_f9de_6484 {
        m = m.scale(-1);
        k += 1;
    }
    let one = W::int(1);
    let s = m.sub(one).div(m.add(one));
    atanh(s).scale(1).add(LN2.mul(W::int(k as i64)))
}

/// ln(1 + x) for |x| < 1 - sqrt(2)/2 (no cancellation: 2 atanh(x / (2 + x))).
pub fn ln1p(x: W) -> W {
    atanh(x.div(W::int(2).add(x))).scale(1)
}

/// e^t - 1 for |t| <= 1 by its series (no cancellation near 0).
pub fn expm1(t: W) -> W {
    let mut sum = t;
    let mut term = t;
    for n in 2..80u64 {
        term = term.mul(t).div_int(n);
        sum = sum.add(term);
        if term.m == 0 || term.top() < sum.top() - 130 {
            break;
        }
    }
    sum
}

/// sin and cos of |r| <= pi/4 by their series.
pub fn sin_cos(r: W) -> (W, W) {
    let r2 = r.mul(r);
    let mut s = r;
    let mut ts = r;
    let mut c = W::int(1);
    let mut tc = W::int(1);
    for n in 1..60u64 {
        ts = ts.mul(r2).div_int(2 * n * (2 * n + 1)).neg();
        tc = tc.mul(r2).div_int((2 * n - 1) * (2 * n)).neg();
        s = s.add(ts);
        c = c.add(tc);
        if (ts.m == 0 || ts.top() < s.top() - 130) && (tc.m == 0 || tc.top() < -130) {
            break;
        }
    }
    (s, c)
}

/// atan of t in [0, 1]: three halvings (t / (1 + sqrt(1 + t^2))) then the series.
pub fn atan(t: W) -> W {
    // |t| < 2^-60: atan t = t (1 - t^2/3 + ...) with a correction below 2^-120 of
    // t, which the series' truncated sums may drop (and `round`'s sticky bit would
    // then put the value above t): a value one unit below |t| rounds as it does.
    if t.m != 0 && t.top() < -60 {
        return W::new(t.neg, t.m - 1, t.e);
    }
    let one = W::int(1);
    let mut t = t;
    for _ in 0..3 {
        t = t.div(one.add(one.add(t.mul(t)).sqrt()));
    }
    let t2 = t.mul(t);
    let mut p = t;
    let mut sum = t;
    for k in 1..80u64 {
        p = p.mul(t2).neg();
        let term = p.div_int(2 * k + 1);
        sum = sum.add(term);
        if term.m == 0 || term.top() < sum.top() - 130 {
            break;
        }
    }
    sum.scale(3)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: W, b: f64) {
        let v = a.to_f64();
        assert!((v - b).abs() <= b.abs() * 1e-15, "{v} vs {b}");
    }

    #[test]
    fn basic_operations() {
        let three = W::int(3);
        close(W::int(1).div(three), 1.0 / 3.0);
        close(three.mul(three), 9.0);
        close(three.sub(W::int(5)), -2.0);
        close(W::int(2).sqrt(), 2f64.sqrt());
        close(ln(W::int(10)), 10f64.ln());
        close(ln1p(W::from_f64(0.25)), 0.25f64.ln_1p());
        close(expm1(W::from_f64(-0.5)), (-0.5f64).exp_m1());
        let (s, c) = sin_cos(W::from_f64(0.7));
        close(s, 0.7f64.sin());
        close(c, 0.7f64.cos());
        close(atan(W::from_f64(0.9)), 0.9f64.atan());
        close(PI, std::f64::consts::PI);
        // ln 2 from the series agrees with the constant to 120 bits.
        let d = ln(W::int(2)).sub(LN2);
        assert!(d.m == 0 || d.top() < -120, "{d:?}");
        // pi/4 = atan(1) to 120 bits.
        let d = atan(W::int(1)).scale(2).sub(PI);
        assert!(d.m == 0 || d.top() < -118, "{d:?}");
    }
}
