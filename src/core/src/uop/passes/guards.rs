//! Guard hoisting: accesses through the same register stream share one window,
//! proved once per entry by a `Guard` in the preheader instead of per access.
//!
//! A stream is the register part of the address (`base`, `index`, `scale`);
//! absolute addresses form one stream per 4 KiB page. The guard covers the page
//! the stream starts in at entry (the span of its displacements when that stays on
//! the page): the lowering cannot bound induction variables yet, and a stream that
//! starts on a fast page almost always stays fast; one that walks off re-proves
//! the next page on its first miss. A stream any store goes through gets a written
//! window, which excludes pages holding decoded code. Accesses beyond
//! [`MAX_WINDOWS`] streams keep proving themselves (`NO_WIN`).

use super::super::ir::*;

pub const MAX_WINDOWS: u8 = 16;

#[derive(Clone, Copy, PartialEq, Eq)]
struct Key {
    base: Option<VReg>,
    index: Option<VReg>,
    scale: u8,
    page: Option<u32>,
}

struct Stream {
    key: Key,
    lo: u32,
    hi: u32,
    write: bool,
}

fn key(a: &Addr) -> Key {
    Key {
        base: a.base,
        index: a.index,
        scale: a.scale,
        page: (a.base.is_none() && a.index.is_none()).then_some(a.disp >> 12),
    }
}

pub fn run(p: &mut Program) {
    let mut streams: Vec<Stream> = Vec::new();
    // Temporaries are not defined in the preheader, so a stream based on one
    // cannot be guarded there.
    let guardable = |a: &Addr| a.regs().all(|r| r < NGUEST);
    for b in &mut p.blocks {
        for i in &mut b.body {
            let (addr, size, write, win) = match i {
                Inst::Load {
                    addr, size, win, ..
                } => (*addr, *size, false, win),
                Inst::Store {
                    addr, size, win, ..
                } => (*addr, *size, true, win),
                _ => continue,
            };
            if *win != NO_WIN || !guardable(&addr) {
                continue;
            }
            let k = key(&addr);
            let end = addr.disp.wrapping_add(size as u32 / 8);
            let w = match streams.iter().position(|s| s.key == k) {
                Some(w) => {
                    let s = &mut streams[w];
                    // Displacements compare as signed offsets from the stream.
                    if (addr.disp as i32) < (s.lo as i32) {
                        s.lo = addr.disp;
                    }
                    if (end as i32) > (s.hi as i32) {
                        s.hi = end;
                    }
                    s.write |= write;
                    w
                }
                None if streams.len() < MAX_WINDOWS as usize => {
                    streams.push(Stream {
                        key: k,
                        lo: addr.disp,
                        hi: end,
                        write,
                    });
                    streams.len() - 1
                }
                None => continue,
            };
            *win = w as u8;
        }
    }
    for (w, s) in streams.iter().enumerate() {
        let span = s.hi.wrapping_sub(s.lo);
        p.pre.push(Inst::Guard {
            win: w as u8,
            addr: Addr {
                base: s.key.base,
                index: s.key.index,
                scale: s.key.scale,
                disp: s.lo,
            },
            len: span.clamp(1, 0x1000),
            write: s.write,
        });
    }
    p.nwin = streams.len() as u8;
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    #[test]
    fn streams_share_windows_and_stores_make_them_written() {
        let ld = |d, a, size| Inst::Load {
            d,
            size,
            addr: a,
            win: NO_WIN,
            exit: 0,
        };
        let mut p = prog(
            vec![block(
                vec![
                    ld(T0, at(6, 0), 8),
                    ld(T1, at(6, 1), 8),
                    ld(
                        T2,
                        Addr {
                            base: None,
                            index: Some(T0),
                            scale: 0,
                            disp: 0x40_0000,
                        },
                        8,
                    ),
                    ld(
                        T3,
                        Addr {
                            base: None,
                            index: None,
                            scale: 0,
                            disp: 0x60_0010,
                        },
                        32,
                    ),
                    Inst::Store {
                        size: 8,
                        addr: at(7, 0),
                        s: r(T1),
                        win: NO_WIN,
                        exit: 0,
                    },
                    Inst::Store {
                        size: 32,
                        addr: at(6, 0xfffffffc),
                        s: r(T1),
                        win: NO_WIN,
                        exit: 0,
                    },
                ],
                Term::Jump(Target::Block(0)),
            )],
            NGUEST + 4,
        );
        run(&mut p);
        assert_eq!(
            body_text(&p, 0),
            vec![
                "t0 = load8 [esi] w0 !x0",
                "t1 = load8 [esi+0x1] w0 !x0",
                // Indexed by a temporary: proves itself.
                "t2 = load8 [t0+0x400000] !x0",
                "t3 = load32 [0x600010] w1 !x0",
                "store8 [edi] w2, t1 !x0",
                "store32 [esi+0xfffffffc] w0, t1 !x0",
            ]
        );
        let pre: Vec<String> = p.pre.iter().map(|i| i.to_string()).collect();
        assert_eq!(
            pre,
            vec![
                "guardw w0 [esi+0xfffffffc] len 0x6",
                "guardr w1 [0x600010] len 0x4",
                "guardw w2 [edi] len 0x1",
            ]
        );
        assert_eq!(p.nwin, 3);
    }
}
