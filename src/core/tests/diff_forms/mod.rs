//! Differential forms that need a harness of their own (issue 18): every lowered
//! form the generic generators leave out.
//!
//! * Run by the host as they are: BOUND, ARPL with a 32-bit operand size, the x87
//!   environment forms (FLDENV/FNSTENV/FRSTOR/FNSAVE, 32- and 16-bit layouts), BSWAP
//!   r16 (its result is undefined: masked), RDTSC (EDX:EAX is winterp's clock,
//!   masked), and the FS and GS loads (the oracle puts the host's FS and GS back
//!   after every case).
//! * Privileged at CPL 3: the host raises #GP, and winterp must raise it as the
//!   privileged-instruction fault (Windows reports STATUS_PRIVILEGED_INSTRUCTION for
//!   these, an access violation for other #GPs: [`Mask::privileged`]).
//! * Checked against documented behaviour the host cannot show in user mode: the
//!   host runs instructions that leave the documented state (`Case::host_code`):
//!   - SGDT SIDT SLDT STR SMSW store what 32-bit Windows XP's kernel set up (the
//!     GDT at 0x8003F000 limit 0x3FF, the IDT at 0x8003F400 limit 0x7FF, no LDT,
//!     the TSS selector 0x28, CR0 0x8001003B); the host's UMIP emulation reports
//!     its own values;
//!   - CPUID answers as the CPU winterp reports (below), not as the host;
//!   - F3 0F BC/BD run as BSF/BSR: the Pentium II winterp reports has no TZCNT or
//!     LZCNT, and the SDM documents that such a processor runs those bytes as
//!     BSF/BSR (the host runs BSF/BSR with a DS prefix of the same length);
//!   - D9 D8+i runs as Intel documents it, FSTP ST(i) (the AMD host skips the
//!     empty-register check; it runs DD D8+i).

use super::*;

/// Forms named after the code they cover.
pub(super) fn forms(per_form: usize) -> Vec<Form> {
    let mut v: Vec<Form> = Vec::new();
    let mut add = |name: String, make: GenFn| {
        v.push(Form {
            name,
            count: per_form,
            make,
        })
    };
    privileged(&mut add);
    system_queries(&mut add);
    cpuid_rdtsc(&mut add);
    fs_gs_loads(&mut add);
    aliases(&mut add);
    bound_arpl(&mut add);
    x87_env(&mut add);
    v
}

/// `emu` for winterp and `host` for the host, padded with NOPs to one length (so
/// both end at the same EIP; a fault is raised by the first instruction of both).
fn substituted(st: St, mut emu: Vec<u8>, mut host: Vec<u8>) -> Gen {
    let n = emu.len().max(host.len());
    emu.resize(n, 0x90);
    host.resize(n, 0x90);
    let mut g = st.finish(emu);
    g.case.host_code = Some(host);
    g
}

/// An address for an access of `size` bytes that lies wholly inside the window or
/// wholly outside it (a multi-instruction stand-in faults at its first
/// instruction only then).
fn whole_target(cx: &mut Cx, size: u32) -> u32 {
    match cx.below(20) {
        0 => WIN + WIN_SIZE + cx.below(16),
        1 => WIN - size - cx.below(16),
        _ => WIN + 0x100 + cx.below(WIN_SIZE - 0x200 - size),
    }
}

fn disp_plus(mo: MemoryOperand, k: i64) -> MemoryOperand {
    MemoryOperand {
        displacement: mo.displacement + k,
        displ_size: 4,
        ..mo
    }
}

// ---- privileged ---------------------------------------------------------------------

/// Every lowered form of the instructions that are privileged at CPL 3, with the
/// bytes the decoder sweep found (memory forms address `[eax]`), random state and
/// sometimes a REP prefix on the string I/O forms.
fn privileged(add: &mut impl FnMut(String, GenFn)) {
    use iced_x86::Mnemonic as M;
    let privileged = [
        M::In,
        M::Out,
        M::Insb,
        M::Insw,
        M::Insd,
        M::Outsb,
        M::Outsw,
        M::Outsd,
        M::Sti,
        M::Cli,
        M::Hlt,
        M::Lgdt,
        M::Lidt,
        M::Lldt,
        M::Ltr,
        M::Lmsw,
        M::Clts,
        M::Invd,
        M::Wbinvd,
        M::Invlpg,
        M::Rdmsr,
        M::Wrmsr,
    ];
    for (code, bytes, ins) in decoder_forms() {
        let ctl = (0..ins.op_count()).any(|k| {
            ins.op_kind(k) == iced_x86::OpKind::Register && {
                let r = ins.op_register(k);
                r.is_cr() || r.is_dr() || r.is_tr()
            }
        });
        if !(privileged.contains(&ins.mnemonic()) || ctl && ins.mnemonic() == M::Mov)
            || !winterp_core::decode::lowers(&ins)
        {
            continue;
        }
        let mem = (0..ins.op_count()).any(|k| ins.op_kind(k) == iced_x86::OpKind::Memory);
        let string = matches!(
            ins.mnemonic(),
            M::Insb | M::Insw | M::Insd | M::Outsb | M::Outsw | M::Outsd
        );
        add(
            format!(
                "{code:?}{} (privileged: PRIVILEGED_INSTRUCTION)",
                if mem { "/m" } else { "" }
            ),
            Arc::new(move |cx| {
                let mut st = St::new(cx);
                st.mask.privileged = true;
                if mem {
                    st.regs[EAX] = mem_target(cx, 6);
                }
                if string {
                    st.regs[ESI] = mem_target(cx, 4);
                    st.regs[EDI] = mem_target(cx, 4);
                }
                let mut b = bytes.clone();
                if string && cx.chance(0.5) {
                    b.insert(0, 0xf3);
                }
                st.finish(b)
            }),
        );
    }
}

// ---- descriptor-table and machine-status queries -------------------------------------

/// 32-bit Windows XP's descriptor tables and CR0 (see the module comment).
const XP_GDTR: (u16, u32) = (0x03ff, 0x8003_f000);
const XP_IDTR: (u16, u32) = (0x07ff, 0x8003_f400);
const XP_LDTR: u16 = 0;
const XP_TR: u16 = 0x28;
const XP_CR0: u32 = 0x8001_003b;

fn system_queries(add: &mut impl FnMut(String, GenFn)) {
    // SLDT, STR, SMSW: a register (16 or 32 bits) or a word of memory. A 32-bit
    // register gets the selector zero-extended (SDM SLDT/STR, P6 and later); SMSW's
    // upper half is undefined (SDM SMSW).
    for (code, value, wide_undef) in [
        (Code::Sldt_rm16, XP_LDTR, false),
        (Code::Sldt_r32m16, XP_LDTR, false),
        (Code::Str_rm16, XP_TR, false),
        (Code::Str_r32m16, XP_TR, false),
        (Code::Smsw_rm16, XP_CR0 as u16, true),
        (Code::Smsw_r32m16, XP_CR0 as u16, true),
    ] {
        for mem in [false, true] {
            add(
                format!(
                    "{code:?}/{} (Windows XP's value)",
                    if mem { "m" } else { "r" }
                ),
                Arc::new(move |cx| {
                    let mut st = St::new(cx);
                    let mut used = 0u8;
                    let wide = matches!(
                        code,
                        Code::Sldt_r32m16 | Code::Str_r32m16 | Code::Smsw_r32m16
                    );
                    let (emu, host) = if mem {
                        let target = mem_target(cx, 2);
                        let mo = mem_operand(cx, &mut st, &mut used, target);
                        let e = Instruction::with1(code, mo).unwrap();
                        let h = Instruction::with2(Code::Mov_rm16_imm16, mo, value as u32).unwrap();
                        (cx.encode(&e, CODE), cx.encode(&h, CODE))
                    } else {
                        let r = free_reg(cx, used);
                        let (reg, h) = if wide {
                            (
                                R32[r],
                                Instruction::with2(Code::Mov_r32_imm32, R32[r], value as u32)
                                    .unwrap(),
                            )
                        } else {
                            (
                                R16[r],
                                Instruction::with2(Code::Mov_r16_imm16, R16[r], value as u32)
                                    .unwrap(),
                            )
                        };
                        if wide && wide_undef {
                            st.mask.regs[r] = 0xffff_0000;
                        }
                        let e = Instruction::with1(code, reg).unwrap();
                        (cx.encode(&e, CODE), cx.encode(&h, CODE))
                    };
                    substituted(st, emu, host)
                }),
            );
        }
    }
    // SGDT, SIDT: the limit, then the base; with a 16-bit operand size the base's
    // top byte is stored as 0 (SDM SGDT: P6 and later).
    for (code, (limit, base), o16) in [
        (Code::Sgdt_m1632, XP_GDTR, false),
        (Code::Sgdt_m1632_16, XP_GDTR, true),
        (Code::Sidt_m1632, XP_IDTR, false),
        (Code::Sidt_m1632_16, XP_IDTR, true),
    ] {
        add(
            format!("{code:?} (Windows XP's value)"),
            Arc::new(move |cx| {
                let mut st = St::new(cx);
                let mut used = 0u8;
                let target = whole_target(cx, 6);
                let mo = mem_operand(cx, &mut st, &mut used, target);
                let emu = cx.encode(&Instruction::with1(code, mo).unwrap(), CODE);
                let b = if o16 { base & 0x00ff_ffff } else { base };
                let mut host = cx.encode(
                    &Instruction::with2(Code::Mov_rm16_imm16, mo, limit as u32).unwrap(),
                    CODE,
                );
                host.extend(cx.encode(
                    &Instruction::with2(Code::Mov_rm32_imm32, disp_plus(mo, 2), b).unwrap(),
                    CODE,
                ));
                substituted(st, emu, host)
            }),
        );
    }
}

// ---- CPUID, RDTSC --------------------------------------------------------------------

/// The CPU winterp reports (`ops::system`): a "GenuineIntel" Pentium II (family 6,
/// model 3, stepping 3: signature 0x633) with only the features it implements —
/// FPU (bit 0), TSC (4), CX8 (8), CMOV (15), MMX (23) — and leaf 1 as its highest
/// basic leaf. Intel documents that a leaf above the highest (extended leaves
/// included, when there are none) returns the highest basic leaf's data.
fn documented_cpuid(leaf: u32) -> [u32; 4] {
    let v = b"GenuineIntel";
    let w = |k: usize| u32::from_le_bytes(v[4 * k..4 * k + 4].try_into().unwrap());
    match leaf {
        0 => [1, w(0), w(2), w(1)],
        _ => [0x633, 0, 0, 1 | 1 << 4 | 1 << 8 | 1 << 15 | 1 << 23],
    }
}

fn cpuid_rdtsc(add: &mut impl FnMut(String, GenFn)) {
    add(
        "Cpuid (the CPU winterp reports)".into(),
        Arc::new(|cx| {
            let mut st = St::new(cx);
            let leaf = match cx.below(6) {
                0 => 0,
                1 | 2 => 1,
                3 => cx.pick(&[2, 3, 4, 0x8000_0000, 0x8000_0001, 0x8000_0004]),
                _ => cx.r32(),
            };
            st.regs[EAX] = leaf;
            let emu = vec![0x0f, 0xa2];
            let mut host = Vec::new();
            for (r, val) in [EAX, EBX, ECX, EDX].into_iter().zip(documented_cpuid(leaf)) {
                host.extend(cx.encode(
                    &Instruction::with2(Code::Mov_r32_imm32, R32[r], val).unwrap(),
                    CODE,
                ));
            }
            substituted(st, emu, host)
        }),
    );
    add(
        "Rdtsc (EDX:EAX masked: winterp's clock counts instructions)".into(),
        Arc::new(|cx| {
            let mut st = St::new(cx);
            st.mask.regs[EAX] = u32::MAX;
            st.mask.regs[EDX] = u32::MAX;
            st.finish(vec![0x0f, 0x31])
        }),
    );
}

// ---- FS and GS loads -----------------------------------------------------------------

/// MOV FS/GS, r/m; POP FS/GS; LFS/LGS; each followed by `mov r32, sreg`.
fn fs_gs_loads(add: &mut impl FnMut(String, GenFn)) {
    for sreg in [Register::FS, Register::GS] {
        let (pops, lxs) = if sreg == Register::FS {
            (
                [(Code::Popd_FS, 4), (Code::Popw_FS, 2)],
                [(Code::Lfs_r32_m1632, 4), (Code::Lfs_r16_m1616, 2)],
            )
        } else {
            (
                [(Code::Popd_GS, 4), (Code::Popw_GS, 2)],
                [(Code::Lgs_r32_m1632, 4), (Code::Lgs_r16_m1616, 2)],
            )
        };
        sreg_loads(add, sreg, pops, lxs);
    }
}

// ---- encodings that run as another form ---------------------------------------------

/// The generic generator's spec for `code` (register or memory variant).
fn spec_of(code: Code, mem: bool) -> Spec {
    code_specs()
        .into_iter()
        .find(|s| s.code == code && s.mem == mem && !s.lock)
        .unwrap_or_else(|| panic!("no spec for {code:?}"))
}

fn aliases(add: &mut impl FnMut(String, GenFn)) {
    // TZCNT/LZCNT encodings as BSF/BSR.
    for (name, base) in [
        ("Tzcnt_r32_rm32", Code::Bsf_r32_rm32),
        ("Lzcnt_r32_rm32", Code::Bsr_r32_rm32),
    ] {
        for mem in [false, true] {
            let sp = spec_of(base, mem);
            add(
                format!(
                    "{name}/{} (as BSF/BSR on a Pentium II)",
                    if mem { "m" } else { "r" }
                ),
                Arc::new(move |cx| {
                    let mut g = gen_int(cx, &sp);
                    let plain = std::mem::take(&mut g.case.code);
                    assert_eq!(plain[0], 0x0f, "{plain:02x?}");
                    g.case.code = [&[0xf3][..], &plain].concat();
                    g.case.host_code = Some([&[0x3e][..], &plain].concat());
                    g
                }),
            );
        }
    }
    // D9 D8+i: FSTP ST(i) as Intel runs it.
    let sp = spec_of(Code::Fstp_sti, false);
    add(
        "Fstpnce_sti (as Intel's FSTP ST(i))".into(),
        Arc::new(move |cx| {
            let mut g = gen_x87(cx, &sp);
            let c = &g.case.code;
            assert!(
                c.len() == 2 && c[0] == 0xdd && c[1] & 0xf8 == 0xd8,
                "{c:02x?}"
            );
            g.case.host_code = Some(c.clone());
            g.case.code[0] = 0xd9;
            g
        }),
    );
    // BSWAP r16: undefined result (SDM BSWAP), the rest of the state compared.
    add(
        "Bswap_r16 (result undefined: masked)".into(),
        Arc::new(|cx| {
            let mut st = St::new(cx);
            let r = cx.below(8) as usize;
            st.mask.regs[r] = 0xffff;
            st.finish(vec![0x66, 0x0f, 0xc8 + r as u8])
        }),
    );
}

// ---- BOUND, ARPL r32 -----------------------------------------------------------------

fn bound_arpl(add: &mut impl FnMut(String, GenFn)) {
    for (code, w) in [(Code::Bound_r32_m3232, 4u32), (Code::Bound_r16_m1616, 2)] {
        add(
            format!("{code:?}"),
            Arc::new(move |cx| {
                let mut st = St::new(cx);
                let mut used = 0u8;
                let r = free_reg(cx, used);
                used |= 1 << r;
                let target = mem_target(cx, 2 * w);
                let mo = mem_operand(cx, &mut st, &mut used, target);
                let sx = |v: u32| {
                    if w == 2 {
                        v as u16 as i16 as i32
                    } else {
                        v as i32
                    }
                };
                // Bounds around the index: inside, at either edge, one outside,
                // or random (often an empty range).
                let idx = sx(st.regs[r]);
                let (lo, hi) = match cx.below(6) {
                    0 => (idx, idx),
                    1 => (idx.wrapping_sub(cx.below(100) as i32), idx),
                    2 => (idx, idx.wrapping_add(cx.below(100) as i32)),
                    3 => (idx.wrapping_add(1), idx.wrapping_add(50)),
                    4 => (idx.wrapping_sub(50), idx.wrapping_sub(1)),
                    _ => (cx.r32() as i32, cx.r32() as i32),
                };
                let mut p = (lo as u32).to_le_bytes()[..w as usize].to_vec();
                p.extend_from_slice(&(hi as u32).to_le_bytes()[..w as usize]);
                st.patch(target, &p);
                let reg = if w == 2 { R16[r] } else { R32[r] };
                let bytes = cx.encode(&Instruction::with2(code, reg, mo).unwrap(), CODE);
                st.finish(bytes)
            }),
        );
    }
    // ARPL without the operand-size prefix (iced: r32/m16, r32).
    for mem in [false, true] {
        let sp = spec_of(Code::Arpl_rm16_r16, mem);
        add(
            format!("Arpl_r32m16_r32/{}", if mem { "m" } else { "r" }),
            Arc::new(move |cx| {
                let mut g = gen_int(cx, &sp);
                let k = g
                    .case
                    .code
                    .iter()
                    .position(|&b| b == 0x66)
                    .expect("operand-size prefix");
                g.case.code.remove(k);
                g
            }),
        );
    }
}

// ---- x87 environment forms ----------------------------------------------------------

/// FNSTENV, FLDENV (28- and 14-byte layouts), FNSAVE/FRSTOR with the 94-byte
/// layout. The environment's instruction and operand pointers (FIP, FCS, FOP,
/// FDP, FDS) are not compared, in memory or in the final image; the control,
/// status and tag words are.
fn x87_env(add: &mut impl FnMut(String, GenFn)) {
    let c = code_by_name;
    // (store code, load code, environment size, 16-bit layout)
    for (stenv, ldenv, size) in [
        ("Fnstenv_m28byte", "Fldenv_m28byte", 28u32),
        ("Fnstenv_m14byte", "Fldenv_m14byte", 14),
    ] {
        let ptrs = if size == 28 { 12u16 } else { 6 };
        add(
            stenv.into(),
            Arc::new(move |cx| {
                let cw = cw_random(cx);
                let mut st = x87_exact_state(cx, 0, cw);
                st.mask.fsw = 0;
                let mut used = 0u8;
                let target = WIN + 0x100 + cx.below(WIN_SIZE - 0x300);
                let mo = mem_operand(cx, &mut st, &mut used, target);
                st.mask.mem = Some(((target - WIN) as u16 + ptrs, size as u16 - ptrs));
                seq(cx, st, &[mk(c(stenv), &[Opnd::M(mo)])])
            }),
        );
        add(
            ldenv.into(),
            Arc::new(move |cx| {
                let cw = cw_random(cx);
                let mut st = x87_exact_state(cx, 0, cw);
                st.mask.fsw = 0;
                let mut used = 0u8;
                let target = mem_target(cx, size);
                let mo = mem_operand(cx, &mut st, &mut used, target);
                let env = random_env(cx, size);
                st.patch(target, &env);
                st.mask.span_read = Some((target, size));
                seq(cx, st, &[mk(c(ldenv), &[Opnd::M(mo)])])
            }),
        );
    }
    // FNSAVE then FRSTOR in the 16-bit layout, and FRSTOR of a random image.
    add(
        "Fnsave_m94byte, Frstor_m94byte".into(),
        Arc::new(move |cx| {
            let cw = cw_random(cx);
            let mut st = x87_exact_state(cx, 0, cw);
            st.mask.fsw = 0;
            let mut used = 0u8;
            let target = WIN + 0x100 + cx.below(WIN_SIZE - 0x300);
            let mo = mem_operand(cx, &mut st, &mut used, target);
            st.mask.mem = Some(((target - WIN) as u16 + 6, 8));
            let ins = [
                mk(c("Fnsave_m94byte"), &[Opnd::M(mo)]),
                mk(c("Frstor_m94byte"), &[Opnd::M(mo)]),
            ];
            seq(cx, st, &ins)
        }),
    );
    add(
        "Frstor_m94byte".into(),
        Arc::new(move |cx| {
            let mut st = x87_exact_state(cx, 0, 0x037f);
            st.mask.fsw = 0;
            let mut used = 0u8;
            let target = mem_target(cx, 94);
            let mo = mem_operand(cx, &mut st, &mut used, target);
            let mut img = random_env(cx, 14);
            for _ in 0..8 {
                img.extend(ext_bytes(ext_val(cx)));
            }
            st.patch(target, &img);
            st.mask.span_read = Some((target, 94));
            seq(cx, st, &[mk(c("Frstor_m94byte"), &[Opnd::M(mo)])])
        }),
    );
}

/// An x87 environment image of `size` (28 or 14) bytes: a control word from
/// [`cw_random`], a status word with any TOP, condition codes and exception bits
/// (ES and B set when an unmasked one is), a tag word marking registers empty or
/// not at random, random pointers.
fn random_env(cx: &mut Cx, size: u32) -> Vec<u8> {
    let cw = cw_random(cx);
    let exc = if cx.chance(0.5) {
        cx.below(0x80) as u16
    } else {
        0
    };
    let mut sw = (cx.rng.random::<u16>() & (C0 | C1 | C2 | C3 | 0x3800)) | exc & 0x7f;
    if exc & 0x3f & !cw != 0 {
        sw |= 0x8080;
    }
    let mut tw = 0u16;
    for p in 0..8 {
        let t = if cx.chance(0.3) {
            3
        } else {
            cx.below(3) as u16
        };
        tw |= t << (2 * p);
    }
    let words = [cw, sw, tw];
    let mut b = Vec::new();
    if size == 28 {
        for w in words {
            b.extend_from_slice(&(0xffff_0000 | w as u32).to_le_bytes());
        }
        for _ in 0..4 {
            b.extend_from_slice(&cx.rng.random::<u32>().to_le_bytes());
        }
    } else {
        for w in words {
            b.extend_from_slice(&w.to_le_bytes());
        }
        for _ in 0..4 {
            b.extend_from_slice(&cx.rng.random::<u16>().to_le_bytes());
        }
    }
    b
}
