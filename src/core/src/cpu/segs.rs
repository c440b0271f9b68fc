//! The segment descriptors a 32-bit Windows user process can name, and the checks
//! a CPL-3 segment load or far transfer makes against them (Intel SDM vol. 2, MOV,
//! POP, LDS/LES/LFS/LGS/LSS, JMP, CALL, RET, IRET; vol. 3 5.10).
//!
//! Windows gives user mode three GDT descriptors, all DPL 3: the flat code segment
//! (0x1B, execute/read, base 0, 4 GiB), the flat data segment (0x23, read/write,
//! base 0, 4 GiB; in SS, DS and ES) and the TEB segment (0x3B, base the thread's
//! TEB; in FS). GS holds the null selector. The others are DPL 0 or system
//! descriptors (a user load faults), and the process's LDT is empty. A selector a
//! load may not take raises #GP, which Windows reports as an access violation at
//! address 0xFFFFFFFF (as it does for every general-protection fault that is not a
//! privileged instruction).
//!
//! A null selector in DS, ES, FS or GS is accepted (as the CPU does); a later
//! memory access through it raises #GP ([`null_mask`], `decode::decode_block`). On
//! Windows GS holds the null selector, so every GS access faults.

/// The data segment registers of `sel` (ES, CS, SS, DS, FS, GS) that hold a null
/// selector, as bits by slot (CS and SS never can).
pub fn null_mask(sel: &[u16; 6]) -> u8 {
    [
        super::seg::ES,
        super::seg::DS,
        super::seg::FS,
        super::seg::GS,
    ]
    .iter()
    .filter(|&&s| sel[s as usize] & !3 == 0)
    .fold(0, |m, &s| m | 1 << s)
}

/// The process's user descriptors by selector (RPL 3), and the TEB's base.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gdt {
    pub code: u16,
    pub data: u16,
    pub teb: u16,
    /// Base of the TEB segment: the thread's TEB ([`super::Cpu::set_seg_base`] of
    /// FS records it).
    pub teb_base: u32,
}

impl Default for Gdt {
    /// Windows' selectors.
    fn default() -> Gdt {
        Gdt {
            code: 0x1b,
            data: 0x23,
            teb: 0x3b,
            teb_base: 0,
        }
    }
}

/// What a selector names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Desc {
    /// 0..3: no segment.
    Null,
    /// The flat code segment (execute/read).
    Code,
    /// A writable data segment with this base.
    Data(u32),
}

/// How a selector is being loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Load {
    /// Into DS, ES, FS or GS.
    Data,
    /// Into SS.
    Stack,
    /// Into CS by a far JMP or CALL (same privilege: the new CS gets RPL 3).
    Transfer,
    /// Into CS by RETF or IRET (the popped RPL must be 3: a return to a more
    /// privileged level faults).
    Return,
}

impl Gdt {
    /// The descriptor `sel` names, None when user mode cannot use it (a DPL 0 or
    /// system descriptor, one outside the table, or any LDT selector).
    pub fn lookup(&self, sel: u16) -> Option<Desc> {
        let idx = sel & !3;
        if sel & 4 != 0 {
            return None;
        }
        if idx == 0 {
            Some(Desc::Null)
        } else if idx == self.code & !3 {
            Some(Desc::Code)
        } else if idx == self.data & !3 {
            Some(Desc::Data(0))
        } else if idx == self.teb & !3 {
            Some(Desc::Data(self.teb_base))
        } else {
            None
        }
    }

    /// The (selector, base) that loading `sel` as `how` leaves in the segment
    /// register, or None for #GP.
    pub fn check(&self, sel: u16, how: Load) -> Option<(u16, u32)> {
        let d = self.lookup(sel)?;
        match (how, d) {
            // A null selector may sit in a data segment register; a readable code
            // segment may be read through one.
            (Load::Data, Desc::Null | Desc::Code) => Some((sel, 0)),
            (Load::Data, Desc::Data(b)) => Some((sel, b)),
            // SS: a writable data segment with RPL = CPL.
            (Load::Stack, Desc::Data(b)) if sel & 3 == 3 => Some((sel, b)),
            (Load::Transfer, Desc::Code) => Some((sel | 3, 0)),
            (Load::Return, Desc::Code) if sel & 3 == 3 => Some((sel, 0)),
            _ => None,
        }
    }
}

/// What LAR, LSL, VERR and VERW see of a descriptor user mode may inspect: the
/// access rights as LAR returns them (the descriptor's second dword masked by
/// 0x00FFFF00: type, DPL, P, limit bits 19-16, AVL, D/B, G), the byte-granular
/// limit, readable, writable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rights {
    pub access: u32,
    pub limit: u32,
    pub readable: bool,
    pub writable: bool,
}

impl Gdt {
    /// The descriptor `sel` names as LAR/LSL/VERR/VERW check it at CPL 3 (DPL 3,
    /// present); None where they clear ZF: the null selector, DPL 0 and system
    /// descriptors of the process (TSS, LDT, gates are all DPL 0), LDT selectors.
    /// Windows' user descriptors: flat code 0x00CFFB00 (execute/read, accessed,
    /// 4 GiB), flat data 0x00CFF300 (read/write, accessed, 4 GiB), TEB 0x0040F300
    /// (read/write, byte-granular limit 0xFFF).
    pub fn rights(&self, sel: u16) -> Option<Rights> {
        let teb = sel & !3 == self.teb & !3 && self.teb & !3 != 0;
        match self.lookup(sel)? {
            Desc::Null => None,
            Desc::Code => Some(Rights {
                access: 0x00cf_fb00,
                limit: u32::MAX,
                readable: true,
                writable: false,
            }),
            Desc::Data(_) if teb => Some(Rights {
                access: 0x0040_f300,
                limit: 0xfff,
                readable: true,
                writable: true,
            }),
            Desc::Data(_) => Some(Rights {
                access: 0x00cf_f300,
                limit: u32::MAX,
                readable: true,
                writable: true,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_selectors() {
        let g = Gdt {
            teb_base: 0x7ffd_e000,
            ..Gdt::default()
        };
        assert_eq!(g.check(0x23, Load::Data), Some((0x23, 0)));
        assert_eq!(g.check(0x20, Load::Data), Some((0x20, 0)));
        assert_eq!(g.check(0x3b, Load::Data), Some((0x3b, 0x7ffd_e000)));
        assert_eq!(g.check(0x1b, Load::Data), Some((0x1b, 0)));
        assert_eq!(g.check(0, Load::Data), Some((0, 0)));
        assert_eq!(g.check(3, Load::Data), Some((3, 0)));
        // Kernel descriptors (0x08 code, 0x10 data, 0x28 TSS, 0x30 KPCR), LDT
        // selectors, past the table.
        for s in [0x08, 0x10, 0x28, 0x30, 0x07, 0x0f, 0x1f, 0x27, 0x43, 0xffff] {
            assert_eq!(g.check(s, Load::Data), None, "{s:#x}");
            assert_eq!(g.check(s, Load::Transfer), None, "{s:#x}");
        }
        assert_eq!(g.check(0x23, Load::Stack), Some((0x23, 0)));
        assert_eq!(g.check(0x20, Load::Stack), None);
        assert_eq!(g.check(0, Load::Stack), None);
        assert_eq!(g.check(0x1b, Load::Stack), None);
        assert_eq!(g.check(0x1b, Load::Transfer), Some((0x1b, 0)));
        assert_eq!(g.check(0x18, Load::Transfer), Some((0x1b, 0)));
        assert_eq!(g.check(0x23, Load::Transfer), None);
        assert_eq!(g.check(0, Load::Transfer), None);
        assert_eq!(g.check(0x1b, Load::Return), Some((0x1b, 0)));
        assert_eq!(g.check(0x18, Load::Return), None);
        assert_eq!(g.check(0x3b, Load::Return), None);
        // LAR/LSL: Windows' descriptors; nothing for null, kernel or LDT selectors.
        assert_eq!(
            g.rights(0x1b).map(|r| (r.access, r.limit)),
            Some((0x00cf_fb00, u32::MAX))
        );
        assert_eq!(
            g.rights(0x20).map(|r| (r.access, r.writable)),
            Some((0x00cf_f300, true))
        );
        assert_eq!(
            g.rights(0x3b).map(|r| (r.access, r.limit)),
            Some((0x0040_f300, 0xfff))
        );
        assert!(!g.rights(0x1b).unwrap().writable);
        for s in [0, 3, 0x08, 0x10, 0x28, 0x0f] {
            assert_eq!(g.rights(s), None, "{s:#x}");
        }
    }
}
