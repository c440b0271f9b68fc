//! Lazy arithmetic flags: the last flag writer's kind, width, result and operands,
//! evaluated only when something reads a flag. AF and PF are derived exactly as the
//! host CPU sets them.

pub const CF: u32 = 1 << 0;
pub const PF: u32 = 1 << 2;
pub const AF: u32 = 1 << 4;
pub const ZF: u32 = 1 << 6;
pub const SF: u32 = 1 << 7;
pub const TF: u32 = 1 << 8;
pub const IF: u32 = 1 << 9;
pub const DF: u32 = 1 << 10;
pub const OF: u32 = 1 << 11;
pub const AC: u32 = 1 << 18;
pub const ID: u32 = 1 << 21;
/// The six arithmetic status flags.
pub const ARITH: u32 = CF | PF | AF | ZF | SF | OF;
/// Bits a user-mode POPF may change besides the arithmetic flags (IF and IOPL are
/// silently kept at CPL 3 with IOPL 0).
pub const POPF_SYSTEM: u32 = TF | DF | AC | ID | (1 << 14);

/// Which instruction family last wrote the flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum FlagOp {
    /// Flags were computed eagerly and live in `aux`.
    Eager,
    Add,
    /// `aux` holds the carry-in.
    Adc,
    Sub,
    /// `aux` holds the borrow-in.
    Sbb,
    /// AND/OR/XOR/TEST: CF=OF=0, AF left as the host leaves it (0 on the CPUs we test).
    Logic,
    /// Like Add with b=1; CF preserved in `aux`.
    Inc,
    /// Like Sub with b=1; CF preserved in `aux`.
    Dec,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LazyFlags {
    pub op: FlagOp,
    /// Index of the sign bit: 7, 15 or 31.
    pub sb: u8,
    /// Result truncated to the operand width.
    pub res: u32,
    /// First (destination) operand, truncated.
    pub a: u32,
    /// Second (source) operand, truncated.
    pub b: u32,
    pub aux: u32,
}

#[inline(always)]
pub const fn parity(v: u32) -> bool {
    (v as u8).count_ones() & 1 == 0
}

#[inline(always)]
pub const fn sign_bit(size: u32) -> u8 {
    (size - 1) as u8
}

impl Default for LazyFlags {
    fn default() -> Self {
        LazyFlags {
            op: FlagOp::Eager,
            sb: 31,
            res: 0,
            a: 0,
            b: 0,
            aux: 0,
        }
    }
}

impl LazyFlags {
    /// Records an arithmetic result. `size` is 8, 16 or 32; values are truncated here.
    #[inline(always)]
    pub fn set(&mut self, op: FlagOp, size: u32, res: u32, a: u32, b: u32) {
        let m = mask(size);
        self.op = op;
        self.sb = sign_bit(size);
        self.res = res & m;
        self.a = a & m;
        self.b = b & m;
    }

    /// ADC/SBB: records the carry-in too.
    #[inline(always)]
    pub fn set_carry(&mut self, op: FlagOp, size: u32, res: u32, a: u32, b: u32, cin: bool) {
        self.set(op, size, res, a, b);
        self.aux = cin as u32;
    }

    /// INC/DEC keep CF: materialise it before overwriting the state.
    #[inline(always)]
    pub fn set_incdec(&mut self, inc: bool, size: u32, res: u32, a: u32) {
        let cf = self.cf() as u32;
        self.set(if inc { FlagOp::Inc } else { FlagOp::Dec }, size, res, a, 1);
        self.aux = cf;
    }

    /// Stores already-computed flag bits (only the ARITH bits are kept).
    #[inline(always)]
    pub fn set_eager(&mut self, bits: u32) {
        self.op = FlagOp::Eager;
        self.aux = bits & ARITH;
    }

    #[inline(always)]
    pub fn cf(&self) -> bool {
        match self.op {
            FlagOp::Eager => self.aux & CF != 0,
            FlagOp::Add => self.res < self.a,
            FlagOp::Adc => self.res < self.a || (self.aux != 0 && self.res == self.a),
            FlagOp::Sub => self.a < self.b,
            FlagOp::Sbb => self.a < self.b || (self.aux != 0 && self.a == self.b),
            FlagOp::Logic => false,
            FlagOp::Inc | FlagOp::Dec => self.aux != 0,
        }
    }

    #[inline(always)]
    pub fn zf(&self) -> bool {
        match self.op {
            FlagOp::Eager => self.aux & ZF != 0,
            _ => self.res == 0,
        }
    }

    #[inline(always)]
    pub fn sf(&self) -> bool {
        match self.op {
            FlagOp::Eager => self.aux & SF != 0,
            _ => (self.res >> self.sb) & 1 != 0,
        }
    }

    #[inline(always)]
    pub fn of(&self) -> bool {
        let (a, b, r) = (self.a, self.b, self.res);
        match self.op {
            FlagOp::Eager => self.aux & OF != 0,
            FlagOp::Add | FlagOp::Adc | FlagOp::Inc => ((a ^ r) & (b ^ r)) >> self.sb & 1 != 0,
            FlagOp::Sub | FlagOp::Sbb | FlagOp::Dec => ((a ^ b) & (a ^ r)) >> self.sb & 1 != 0,
            FlagOp::Logic => false,
        }
    }

    #[inline(always)]
    pub fn pf(&self) -> bool {
        match self.op {
            FlagOp::Eager => self.aux & PF != 0,
            _ => parity(self.res),
        }
    }

    #[inline(always)]
    pub fn af(&self) -> bool {
        match self.op {
            FlagOp::Eager => self.aux & AF != 0,
            FlagOp::Logic => false,
            _ => (self.a ^ self.b ^ self.res) & AF != 0,
        }
    }

    /// All six arithmetic flags as EFLAGS bits.
    #[inline]
    pub fn bits(&self) -> u32 {
        if self.op == FlagOp::Eager {
            return self.aux & ARITH;
        }
        (self.cf() as u32)
            | (self.pf() as u32) << 2
            | (self.af() as u32) << 4
            | (self.zf() as u32) << 6
            | (self.sf() as u32) << 7
            | (self.of() as u32) << 11
    }

    /// Evaluates an x86 condition code (the low nibble of Jcc/SETcc/CMOVcc).
    #[inline(always)]
    pub fn cond(&self, cc: u8) -> bool {
        let r = match cc >> 1 {
            0 => self.of(),
            1 => self.cf(),
            2 => self.zf(),
            3 => self.cf() || self.zf(),
            4 => self.sf(),
            5 => self.pf(),
            6 => self.sf() != self.of(),
            _ => self.zf() || (self.sf() != self.of()),
        };
        r ^ (cc & 1 != 0)
    }
}

/// [`LazyFlags::cond`] right after a logic instruction (AND, OR, XOR, TEST: CF and
/// OF clear) of `size` bits whose result was `res`, without going through the
/// lazy state.
#[inline(always)]
pub fn logic_cond(cc: u8, res: u32, size: u32) -> bool {
    let res = res & mask(size);
    let (zf, sf) = (res == 0, (res >> sign_bit(size)) & 1 != 0);
    let r = match cc >> 1 {
        0 | 1 => false,
        2 | 3 => zf,
        4 | 6 => sf,
        5 => parity(res),
        _ => zf || sf,
    };
    r ^ (cc & 1 != 0)
}

#[inline(always)]
pub const fn mask(size: u32) -> u32 {
    if size >= 32 {
        u32::MAX
    } else {
        (1u32 << size) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logic_cond_is_cond_after_a_logic_op() {
        for size in [8, 16, 32] {
            for res in (0..0x1_0000u32)
                .step_by(7)
                .chain([0, 0x80, 0x8000, 0x8000_0000])
            {
                let mut f = LazyFlags::default();
                f.set(FlagOp::Logic, size, res, res, u32::MAX);
                for cc in 0..16 {
                    assert_eq!(
                        logic_cond(cc, res, size),
                        f.cond(cc),
                        "{size} {res:#x} {cc}"
                    );
                }
            }
        }
    }

    #[test]
    fn add_overflow_matches_host_example() {
        // mov eax,0x7fffffff; add eax,1; pushfd gave EFLAGS=0xa96 on the host:
        // OF, SF, AF, PF set; ZF, CF clear.
        let mut f = LazyFlags::default();
        f.set(FlagOp::Add, 32, 0x8000_0000, 0x7fff_ffff, 1);
        assert_eq!(f.bits(), 0xa96 & ARITH);
    }

    #[test]
    fn sbb_borrow_with_equal_operands() {
        let mut f = LazyFlags::default();
        f.set_carry(FlagOp::Sbb, 8, 0xff, 5, 5, true);
        assert!(f.cf());
        assert!(f.sf());
        assert!(!f.of());
    }
}
