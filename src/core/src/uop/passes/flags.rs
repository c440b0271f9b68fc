//! Flag forwarding and flag liveness.
//!
//! - [`forward`]: a block ending in `Jcc` whose flag record was written by a
//!   `Flags` in the same block, with the operands the condition needs unchanged
//!   since, becomes a `Bcc` that compares those values directly. Operands the
//!   condition does not read become 0 (don't-care). INC/DEC records are forwarded
//!   only for conditions that do not read CF (their CF comes from an earlier record).
//! - [`liveness`]: removes every `Flags` whose record is overwritten before anything
//!   reads it. Readers are `Jcc` (by condition), every exit (the interpreter resumes
//!   with the whole record) and INC/DEC (which keep CF). CF and the other five
//!   flags are tracked apart: an INC/DEC record is needed only when something reads
//!   its non-CF flags, since its CF is the previous record's.

use super::super::ir::*;
use crate::cpu::FlagOp;

/// Which record operands condition `cc` reads for a record of kind `op`:
/// `(res, a, b)`, or `None` when the record alone cannot answer it.
fn needs(op: FlagOp, cc: u8) -> Option<(bool, bool, bool)> {
    let c = (cc & 15) >> 1;
    Some(match (op, c) {
        // ZF, SF, PF come from the result alone.
        (_, 2 | 4 | 5) => (true, false, false),
        (FlagOp::Logic, 0 | 1) => (false, false, false),
        (FlagOp::Logic, 3 | 6 | 7) => (true, false, false),
        (FlagOp::Inc | FlagOp::Dec, 1 | 3) => return None,
        (FlagOp::Sub, 1) => (false, true, true),
        (FlagOp::Add, 1) => (true, true, false),
        (FlagOp::Add | FlagOp::Sub | FlagOp::Inc | FlagOp::Dec, _) => (true, true, true),
        _ => return None,
    })
}

pub fn forward(p: &mut Program) {
    for b in &mut p.blocks {
        let Term::Jcc { cc, t, f } = b.term else {
            continue;
        };
        // The record the branch reads must be a plain one (not a helper's).
        let Some(k) = b.body.iter().rposition(|i| i.writes_flags()) else {
            continue;
        };
        let Inst::Flags {
            op,
            size,
            res,
            a,
            b: bb,
        } = b.body[k]
        else {
            continue;
        };
        let Some((nr, na, nb)) = needs(op, cc) else {
            continue;
        };
        let later_defs: Vec<VReg> = b.body[k + 1..].iter().filter_map(|i| i.def()).collect();
        let intact = |v: Val, need: bool| !need || v.reg().is_none_or(|r| !later_defs.contains(&r));
        if !(intact(res, nr) && intact(a, na) && intact(bb, nb)) {
            continue;
        }
        let pick = |v: Val, need: bool| if need { v } else { Val::K(0) };
        b.term = Term::Bcc {
            cc,
            op,
            size,
            res: pick(res, nr),
            a: pick(a, na),
            b: pick(bb, nb),
            t,
            f,
        };
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
struct Live {
    cf: bool,
    other: bool,
}

const ALL: Live = Live {
    cf: true,
    other: true,
};

fn reads_of(cc: u8) -> Live {
    match (cc & 15) >> 1 {
        1 => Live {
            cf: true,
            other: false,
        },
        3 => ALL,
        _ => Live {
            cf: false,
            other: true,
        },
    }
}

fn or(a: Live, b: Live) -> Live {
    Live {
        cf: a.cf || b.cf,
        other: a.other || b.other,
    }
}

/// Liveness at the end of block `b`, before its terminator.
fn live_out(p: &Program, b: usize, live_in: &[Live]) -> Live {
    let tgt = |t: Target| match t {
        Target::Block(k) => live_in[k as usize],
        Target::Exit(_) => ALL,
    };
    match p.blocks[b].term {
        Term::Jump(t) => tgt(t),
        Term::Jcc { cc, t, f } => or(reads_of(cc), or(tgt(t), tgt(f))),
        Term::Bcc { t, f, .. } => or(tgt(t), tgt(f)),
        // Its miss exit reads the whole record.
        Term::Switch { .. } => ALL,
    }
}

/// Walks block `b` backwards from `out`; marks the `Flags` it needs in `keep`.
fn walk(body: &[Inst], out: Live, keep: &mut [bool]) -> Live {
    let mut l = out;
    for (j, i) in body.iter().enumerate().rev() {
        match *i {
            Inst::Flags { op, .. } => {
                let incdec = matches!(op, FlagOp::Inc | FlagOp::Dec);
                keep[j] = if incdec { l.other } else { l.cf || l.other };
                l = Live {
                    cf: incdec && l.cf,
                    other: false,
                };
            }
            Inst::Fx { op, set, b, .. } => {
                if set {
                    keep[j] = l.cf || l.other;
                    if keep[j] {
                        l = fx_before(op, b, l);
                    }
                }
                l.cf |= op.reads_cf();
            }
            Inst::Cond { cc, .. } => l = or(l, reads_of(cc)),
            _ if i.exit().is_some() => l = ALL,
            _ => {}
        }
    }
    l
}

/// What must be live before a helper's record write for `l` to be right after
/// it (its own reads of CF for the result aside).
fn fx_before(op: Fx, count: Val, l: Live) -> Live {
    let written = match op {
        Fx::Shl | Fx::Shr | Fx::Sar | Fx::Adc | Fx::Sbb => Live::default(),
        // CF and OF are written, SF ZF AF PF kept.
        Fx::Rol | Fx::Ror | Fx::Rcl | Fx::Rcr | Fx::Imul | Fx::MulHi | Fx::ImulHi | Fx::Bt => {
            Live {
                cf: false,
                other: l.other,
            }
        }
    };
    let shift = matches!(
        op,
        Fx::Shl | Fx::Shr | Fx::Sar | Fx::Rol | Fx::Ror | Fx::Rcl | Fx::Rcr
    );
    // A count that may mask to 0 passes the whole record through.
    if shift && !matches!(count, Val::K(c) if c & 31 != 0) {
        or(written, l)
    } else {
        written
    }
}

pub fn liveness(p: &mut Program) {
    let n = p.blocks.len();
    let mut live_in = vec![Live::default(); n];
    loop {
        let mut changed = false;
        for b in (0..n).rev() {
            let out = live_out(p, b, &live_in);
            let mut keep = vec![false; p.blocks[b].body.len()];
            let l = walk(&p.blocks[b].body, out, &mut keep);
            if l != live_in[b] {
                live_in[b] = l;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for b in 0..n {
        let out = live_out(p, b, &live_in);
        let mut keep = vec![false; p.blocks[b].body.len()];
        walk(&p.blocks[b].body, out, &mut keep);
        let mut j = 0;
        for (i, &k) in p.blocks[b].body.iter_mut().zip(&keep) {
            // A helper whose record nothing reads still computes its result.
            if let Inst::Fx { set, .. } = i
                && !k
            {
                *set = false;
            }
        }
        p.blocks[b].body.retain(|i| {
            let k = !matches!(i, Inst::Flags { .. }) || keep[j];
            j += 1;
            k
        });
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    fn flags(op: FlagOp, res: Val, a: Val, b: Val) -> Inst {
        Inst::Flags {
            op,
            size: 32,
            res,
            a,
            b,
        }
    }

    #[test]
    fn cmp_jcc_forwards_and_dec_forwards_only_without_cf() {
        let cmp = flags(FlagOp::Sub, r(T0), r(6), r(7));
        let mut p = prog(
            vec![
                block(
                    vec![
                        Inst::Alu {
                            op: Alu::Sub,
                            d: T0,
                            a: r(6),
                            b: r(7),
                        },
                        cmp,
                    ],
                    Term::Jcc {
                        cc: 2,
                        t: Target::Block(1),
                        f: Target::Exit(1),
                    },
                ),
                block(
                    vec![
                        Inst::Alu {
                            op: Alu::Sub,
                            d: T1,
                            a: r(1),
                            b: k(1),
                        },
                        flags(FlagOp::Dec, r(T1), r(1), k(1)),
                        Inst::Mov { d: 1, s: r(T1) },
                    ],
                    Term::Jcc {
                        cc: 5,
                        t: Target::Block(0),
                        f: Target::Exit(1),
                    },
                ),
            ],
            NGUEST + 2,
        );
        // A JB after DEC reads the CF DEC kept: not forwardable.
        let mut q = p.clone();
        q.blocks[1].term = Term::Jcc {
            cc: 2,
            t: Target::Block(0),
            f: Target::Exit(1),
        };
        forward(&mut p);
        assert_eq!(
            p.blocks[0].term.to_string(),
            "bb sub32 0x0, esi, edi ? b1 : x1"
        );
        // ecx was overwritten after the DEC, but JNE reads only the result.
        assert_eq!(
            p.blocks[1].term.to_string(),
            "bne dec32 t1, 0x0, 0x0 ? b0 : x1"
        );
        forward(&mut q);
        assert!(matches!(q.blocks[1].term, Term::Jcc { .. }));
    }

    #[test]
    fn jl_after_overwritten_operand_is_not_forwarded() {
        let mut p = prog(
            vec![block(
                vec![
                    Inst::Alu {
                        op: Alu::Sub,
                        d: T0,
                        a: r(1),
                        b: k(1),
                    },
                    flags(FlagOp::Sub, r(T0), r(1), k(1)),
                    Inst::Mov { d: 1, s: r(T0) },
                ],
                Term::Jcc {
                    cc: 12,
                    t: Target::Block(0),
                    f: Target::Exit(1),
                },
            )],
            NGUEST + 1,
        );
        forward(&mut p);
        assert!(matches!(p.blocks[0].term, Term::Jcc { .. }));
    }

    /// A multiway jump's miss exit reads the whole record, even when every case
    /// overwrites it before reading it; a record followed by another one in the
    /// same block is still dead.
    #[test]
    fn liveness_keeps_the_record_a_switch_miss_reads() {
        let mut cases = [(0, Target::Exit(1)); MAX_CASES];
        cases[0] = (0x1000, Target::Block(1));
        let mut p = prog(
            vec![
                block(
                    vec![
                        flags(FlagOp::Logic, r(T0), r(0), r(0)),
                        flags(FlagOp::Add, r(T1), r(0), r(2)),
                    ],
                    Term::Switch {
                        v: r(3),
                        cases,
                        n: 1,
                        miss: 0,
                    },
                ),
                block(
                    vec![flags(FlagOp::Sub, r(T2), r(1), r(2))],
                    Term::Jump(Target::Block(0)),
                ),
            ],
            NGUEST + 3,
        );
        liveness(&mut p);
        assert_eq!(body_text(&p, 0), vec!["flags add32 t1, eax, edx"], "{}", p);
        // Block 1's record reaches block 0, whose first record overwrites it
        // before any exit: dead.
        assert!(body_text(&p, 1).is_empty(), "{p}");
    }

    #[test]
    fn liveness_keeps_only_records_something_reads() {
        let inc = |t: VReg, r: VReg| flags(FlagOp::Inc, Val::R(t), Val::R(r), k(1));
        let mut p = prog(
            vec![
                block(
                    vec![
                        // Overwritten by the ADD below before any reader: dead.
                        flags(FlagOp::Logic, r(T0), r(0), r(0)),
                        flags(FlagOp::Add, r(T1), r(0), r(2)),
                        // The ADD's CF is read by the INCs' kept CF, which the exit
                        // behind the load reads: live.
                        inc(T2, 6),
                        inc(T3, 7),
                        Inst::Load {
                            d: T0,
                            size: 8,
                            addr: at(6, 0),
                            win: NO_WIN,
                            exit: 0,
                        },
                    ],
                    Term::Jump(Target::Block(1)),
                ),
                block(
                    vec![flags(FlagOp::Sub, r(T0), r(1), k(0)), inc(T2, 6)],
                    Term::Bcc {
                        cc: 4,
                        op: FlagOp::Sub,
                        size: 32,
                        res: r(T0),
                        a: k(0),
                        b: k(0),
                        t: Target::Block(0),
                        f: Target::Exit(1),
                    },
                ),
            ],
            NGUEST + 4,
        );
        liveness(&mut p);
        assert_eq!(
            body_text(&p, 0),
            vec![
                "flags add32 t1, eax, edx",
                "flags inc32 t3, edi, 0x1",
                "t0 = load8 [esi] !x0",
            ]
        );
        // Both successors (head and exit) read the whole record after the INC,
        // and the INC passes the SUB's CF through.
        assert_eq!(
            body_text(&p, 1),
            vec!["flags sub32 t0, ecx, 0x0", "flags inc32 t2, esi, 0x1"]
        );
    }

    #[test]
    fn a_record_overwritten_on_every_path_dies() {
        let mut p = prog(
            vec![
                block(
                    vec![flags(FlagOp::Sub, r(T0), r(1), k(0))],
                    Term::Jcc {
                        cc: 4,
                        t: Target::Block(1),
                        f: Target::Block(2),
                    },
                ),
                block(
                    vec![
                        flags(FlagOp::Add, r(T1), r(1), k(0)),
                        flags(FlagOp::Logic, r(T1), r(1), k(0)),
                    ],
                    Term::Jump(Target::Block(2)),
                ),
                block(
                    vec![flags(FlagOp::Logic, r(T2), r(2), r(2))],
                    Term::Jump(Target::Exit(1)),
                ),
            ],
            NGUEST + 3,
        );
        liveness(&mut p);
        // The SUB is read by the JE; the ADD is dead; both LOGICs reach the exit
        // or are overwritten.
        assert_eq!(body_text(&p, 0), vec!["flags sub32 t0, ecx, 0x0"]);
        assert_eq!(body_text(&p, 1), Vec::<String>::new());
        assert_eq!(body_text(&p, 2), vec!["flags logic32 t2, edx, edx"]);
    }

    #[test]
    fn a_count_that_may_be_zero_keeps_the_record_before_the_helper() {
        let rotate = |b: Val| {
            prog(
                vec![block(
                    vec![
                        flags(FlagOp::Add, r(T0), r(0), r(2)),
                        Inst::Fx {
                            op: Fx::Ror,
                            size: 16,
                            set: true,
                            d: T1,
                            a: r(3),
                            b,
                        },
                        Inst::Fx {
                            op: Fx::Imul,
                            size: 32,
                            set: true,
                            d: T2,
                            a: r(3),
                            b: r(6),
                        },
                    ],
                    Term::Jcc {
                        cc: 2,
                        t: Target::Block(0),
                        f: Target::Block(0),
                    },
                )],
                NGUEST + 3,
            )
        };
        // JB reads CF, which the IMUL writes: the ROR's record is dead, and with a
        // CL count (maybe 0) the ADD's would be passed through, but the IMUL
        // overwrites CF, so only the IMUL keeps its record.
        let mut p = rotate(r(1));
        liveness(&mut p);
        assert_eq!(
            body_text(&p, 0),
            vec!["t1 = ror16 ebx, ecx", "t2 = imul32 +flags ebx, esi"]
        );
        // Without the IMUL, a JS reads SF: the ROR keeps SF of the record before
        // it whatever its count, and with a CL count it may keep CF too.
        for (b, add_kept) in [(r(1), true), (k(16), true), (k(32), true)] {
            let mut p = rotate(b);
            p.blocks[0].body.pop();
            p.blocks[0].term = Term::Jcc {
                cc: 8,
                t: Target::Block(0),
                f: Target::Block(0),
            };
            liveness(&mut p);
            assert_eq!(body_text(&p, 0).len(), if add_kept { 2 } else { 1 }, "{b}");
        }
        // JB after the ROR: CF comes from the ROR unless its count may mask to 0.
        for (b, add_kept) in [(r(1), true), (k(16), false), (k(32), true)] {
            let mut p = rotate(b);
            p.blocks[0].body.pop();
            liveness(&mut p);
            assert_eq!(body_text(&p, 0).len(), if add_kept { 2 } else { 1 }, "{b}");
        }
    }
}
