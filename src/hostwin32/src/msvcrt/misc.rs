//! _lfind, rand/srand, locale, setjmp/longjmp (qsort and bsearch run as guest
//! code: `guest_code`).

#![allow(non_snake_case)]

use super::gmem::read_cstr;
use super::state::{self, call_guest, crt, intern};
use crate::hle::{ApiDef, ApiResult, CStrPtr, Ctx, Outcome, Ptr, cdecl};
use winterp_core::cpu::{EAX, EBP, EBX, EDI, ESI, ESP};

/// Calls the guest comparator; `Err` carries an outcome that ended the thread.
fn compare(cx: &mut Ctx, f: u32, a: u32, b: u32) -> ApiResult<Result<i32, Outcome>> {
    Ok(call_guest(cx, f, &[a, b])?.map(|v| v as i32))
}

/// `_lfind`/`_lsearch` style linear search.
fn _lfind(cx: &mut Ctx, key: Ptr, base: Ptr, num: Ptr, width: u32, f: u32) -> ApiResult<Outcome> {
    let n = cx.proc.mem.read_u32(num.0)?;
    for k in 0..n {
        let p = base.0 + k * width;
        match compare(cx, f, key.0, p)? {
            Ok(0) => return Ok(Outcome::Return(p as u64)),
            Ok(_) => {}
            Err(o) => return Ok(o),
        }
    }
    Ok(Outcome::Return(0))
}

// ---- rand ----------------------------------------------------------------------------

/// One step of msvcrt's generator: returns (new seed, value).
pub fn rand_step(seed: u32) -> (u32, i32) {
    let s = seed.wrapping_mul(214_013).wrapping_add(2_531_011);
    (s, ((s >> 16) & 0x7fff) as i32)
}

fn rand(cx: &mut Ctx) -> ApiResult<i32> {
    let seed = state::thread_data(cx)?.rand;
    let (s, v) = rand_step(seed);
    state::update_thread(cx, |t| t.rand = s)?;
    Ok(v)
}

fn srand(cx: &mut Ctx, seed: u32) -> ApiResult<()> {
    state::update_thread(cx, |t| t.rand = seed)
}

// ---- locale ----------------------------------------------------------------------------

fn setlocale(cx: &mut Ctx, category: i32, locale: CStrPtr) -> ApiResult<u32> {
    if !(0..=5).contains(&category) {
        return Ok(0);
    }
    if locale.0 != 0 {
        let l = read_cstr(&cx.proc.mem, locale.0, 256)?;
        // Only the C locale exists here ("" asks for the user's, which is C too).
        if !(l.is_empty() || l == b"C") {
            return Ok(0);
        }
    }
    intern(cx.proc, b"C")
}

/// `struct lconv` for the C locale: ten string pointers then eight CHAR_MAX bytes.
fn localeconv(cx: &mut Ctx) -> ApiResult<u32> {
    let existing = crt(cx.proc).lock().lconv;
    if existing != 0 {
        return Ok(existing);
    }
    let a = state::arena_alloc(cx.proc, 48)?;
    let dot = intern(cx.proc, b".")?;
    let empty = intern(cx.proc, b"")?;
    cx.proc.mem.write_u32(a, dot)?;
    for k in 1..10 {
        cx.proc.mem.write_u32(a + 4 * k, empty)?;
    }
    cx.proc.mem.write_bytes(a + 40, &[127; 8])?;
    crt(cx.proc).lock().lconv = a;
    Ok(a)
}

/// The C run-time start-up of mingw-w64 calls it before main: it sets up the C
/// locale's `struct lconv` (its CHAR_MAX fields) and answers 0.
fn __lconv_init(cx: &mut Ctx) -> ApiResult<i32> {
    localeconv(cx)?;
    Ok(0)
}

fn ___lc_codepage_func(_cx: &mut Ctx) -> u32 {
    0
}

// ---- setjmp/longjmp ----------------------------------------------------------------------

/// Microsoft's x86 `_JUMP_BUFFER`: Ebp, Ebx, Edi, Esi, Esp, Eip, Registration,
/// TryLevel, Cookie, UnwindFunc, UnwindData[6].
fn setjmp_impl(cx: &mut Ctx, buf: u32) -> ApiResult<i32> {
    let r = cx.thread.cpu.regs;
    let ret = cx.proc.mem.read_u32(r[ESP])?;
    let reg = cx
        .proc
        .mem
        .read_u32(cx.thread.teb + crate::teb::EXCEPTION_LIST)?;
    let vals = [r[EBP], r[EBX], r[EDI], r[ESI], r[ESP], ret, reg, u32::MAX];
    for (k, v) in vals.iter().enumerate() {
        cx.proc.mem.write_u32(buf + 4 * k as u32, *v)?;
    }
    // "VC20" marks a buffer from _setjmp3; no unwind function.
    cx.proc.mem.write_u32(buf + 32, 0x5643_3230)?;
    cx.proc.mem.write_u32(buf + 36, 0)?;
    Ok(0)
}

fn _setjmp(cx: &mut Ctx, buf: Ptr) -> ApiResult<i32> {
    setjmp_impl(cx, buf.0)
}

fn _setjmp3(cx: &mut Ctx, buf: Ptr, _count: u32) -> ApiResult<i32> {
    setjmp_impl(cx, buf.0)
}

/// Restores the registers saved by setjmp and continues after that call with EAX
/// = `value` (1 if 0). The SEH chain goes back to what it was at setjmp (frames
/// registered in between are dropped without running their unwind handlers).
fn longjmp(cx: &mut Ctx, buf: Ptr, value: i32) -> ApiResult<Outcome> {
    let m = &cx.proc.mem;
    let f = |k: u32| m.read_u32(buf.0 + 4 * k);
    let (ebp, ebx, edi, esi, esp, eip, reg) = (f(0)?, f(1)?, f(2)?, f(3)?, f(4)?, f(5)?, f(6)?);
    m.write_u32(cx.thread.teb + crate::teb::EXCEPTION_LIST, reg)?;
    let r = &mut cx.thread.cpu.regs;
    r[EBP] = ebp;
    r[EBX] = ebx;
    r[EDI] = edi;
    r[ESI] = esi;
    // setjmp saved ESP pointing at its return address: continue as if it returned.
    r[ESP] = esp.wrapping_add(4);
    r[EAX] = if value == 0 { 1 } else { value as u32 };
    cx.thread.cpu.eip = eip;
    Ok(Outcome::Resume)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        cdecl("_lfind", _lfind),
        cdecl("rand", rand),
        cdecl("srand", srand),
        cdecl("setlocale", setlocale),
        cdecl("localeconv", localeconv),
        cdecl("__lconv_init", __lconv_init),
        cdecl("___lc_codepage_func", ___lc_codepage_func),
        cdecl("_setjmp", _setjmp),
        cdecl("_setjmp3", _setjmp3),
        cdecl("longjmp", longjmp),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    // The documented MS LCG: with the default seed 1 the first values are
    // 41, 18467, 6334, 26500, 19169 (the well-known Visual C++ sequence).
    #[test]
    fn ms_rand_sequence() {
        let mut s = 1;
        let mut got = Vec::new();
        for _ in 0..5 {
            let (n, v) = rand_step(s);
            s = n;
            got.push(v);
        }
        assert_eq!(got, [41, 18467, 6334, 26500, 19169]);
    }
}
