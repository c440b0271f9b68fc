//! Character classification for the C locale: the `_ctype` table the headers'
//! macros index through `_pctype`, the `is*`/`to*` functions and their wide forms.

#![allow(non_snake_case)]

use crate::hle::{ApiDef, ApiResult, Ctx, cdecl, data};
use crate::process::Process;
use std::sync::Arc;

pub const UPPER: u16 = 0x1;
pub const LOWER: u16 = 0x2;
pub const DIGIT: u16 = 0x4;
pub const SPACE: u16 = 0x8;
pub const PUNCT: u16 = 0x10;
pub const CONTROL: u16 = 0x20;
pub const BLANK: u16 = 0x40;
pub const HEX: u16 = 0x80;
pub const ALPHA: u16 = 0x100 | UPPER | LOWER;

/// Class bits of byte `c` in the C locale (0x80-0xFF have none).
pub fn class(c: u8) -> u16 {
    let mut m = 0;
    if c.is_ascii_uppercase() {
        m |= UPPER | 0x100;
    }
    if c.is_ascii_lowercase() {
        m |= LOWER | 0x100;
    }
    if c.is_ascii_digit() {
        m |= DIGIT;
    }
    if c.is_ascii_hexdigit() {
        m |= HEX;
    }
    if matches!(c, 0x09..=0x0d | 0x20) {
        m |= SPACE;
    }
    // Microsoft's table marks only the space as _BLANK (tab is _SPACE|_CONTROL),
    // which is what makes isprint(' ') true and isprint('\t') false.
    if c == b' ' {
        m |= BLANK;
    }
    if c.is_ascii_punctuation() {
        m |= PUNCT;
    }
    if c < 0x20 || c == 0x7f {
        m |= CONTROL;
    }
    m
}

/// Class bits of a wide character (Latin-1 beyond ASCII, as `iswctype` reports).
pub fn wclass(c: u16) -> u16 {
    if c < 0x80 {
        return class(c as u8);
    }
    if c > 0xff {
        return 0;
    }
    let ch = char::from_u32(c as u32).unwrap_or('\0');
    let mut m = 0;
    if ch.is_uppercase() {
        m |= UPPER | 0x100;
    } else if ch.is_lowercase() {
        m |= LOWER | 0x100;
    }
    if c == 0xa0 {
        m |= SPACE | BLANK;
    } else if (0xa1..=0xbf).contains(&c) || c == 0xd7 || c == 0xf7 {
        m |= PUNCT;
    } else if c < 0xa0 {
        m |= CONTROL;
    }
    m
}

pub fn towlower_c(c: u16) -> u16 {
    if (0x41..=0x5a).contains(&c) || ((0xc0..=0xde).contains(&c) && c != 0xd7) {
        c + 0x20
    } else {
        c
    }
}

pub fn towupper_c(c: u16) -> u16 {
    if (0x61..=0x7a).contains(&c) || ((0xe0..=0xfe).contains(&c) && c != 0xf7) {
        c - 0x20
    } else {
        c
    }
}

/// `_ctype`: 257 entries, the first for EOF (-1).
fn init_ctype(proc: &Arc<Process>, a: u32) -> ApiResult<()> {
    let mut b = vec![0u8; 2 * 257];
    for c in 0..=255u8 {
        let k = 2 * (c as usize + 1);
        b[k..k + 2].copy_from_slice(&class(c).to_le_bytes());
    }
    proc.mem.write_bytes(a, &b)?;
    Ok(())
}

/// `_pctype` points at `_ctype + 1` (so index -1 is EOF).
fn init_pctype(proc: &Arc<Process>, a: u32) -> ApiResult<()> {
    let t = proc.resolve_hle("msvcrt.dll", "_ctype")?;
    // The table may have been allocated just now, after the loader collected the
    // initialisers to run; fill it here too.
    init_ctype(proc, t)?;
    proc.mem.write_u32(a, t + 2)?;
    Ok(())
}

/// `_pwctype`: 256 wide class entries.
fn init_pwctype(proc: &Arc<Process>, a: u32) -> ApiResult<()> {
    let t = proc.resolve_hle("msvcrt.dll", "_wctype")?;
    init_wctype(proc, t)?;
    proc.mem.write_u32(a, t)?;
    Ok(())
}

fn init_wctype(proc: &Arc<Process>, a: u32) -> ApiResult<()> {
    let b: Vec<u8> = (0..256u16).flat_map(|c| wclass(c).to_le_bytes()).collect();
    proc.mem.write_bytes(a, &b)?;
    Ok(())
}

fn is(c: i32, mask: u16) -> i32 {
    if (0..=255).contains(&c) {
        (class(c as u8) & mask) as i32
    } else {
        0
    }
}

macro_rules! classifier {
    ($name:ident, $wname:ident, $mask:expr) => {
        fn $name(_cx: &mut Ctx, c: i32) -> i32 {
            is(c, $mask)
        }
        fn $wname(_cx: &mut Ctx, c: u16) -> i32 {
            (wclass(c) & $mask) as i32
        }
    };
}

classifier!(isalpha, iswalpha, ALPHA);
classifier!(isupper, iswupper, UPPER);
classifier!(islower, iswlower, LOWER);
classifier!(isdigit, iswdigit, DIGIT);
classifier!(isxdigit, iswxdigit, HEX);
classifier!(isspace, iswspace, SPACE);
classifier!(ispunct, iswpunct, PUNCT);
classifier!(iscntrl, iswcntrl, CONTROL);
classifier!(isalnum, iswalnum, ALPHA | DIGIT);
classifier!(isprint, iswprint, ALPHA | DIGIT | PUNCT | BLANK);
classifier!(isgraph, iswgraph, ALPHA | DIGIT | PUNCT);

fn _isctype(_cx: &mut Ctx, c: i32, mask: u32) -> i32 {
    is(c, mask as u16)
}

fn iswctype(_cx: &mut Ctx, c: u16, mask: u16) -> i32 {
    (wclass(c) & mask) as i32
}

fn isascii(_cx: &mut Ctx, c: i32) -> i32 {
    ((c as u32) < 0x80) as i32
}

fn toascii(_cx: &mut Ctx, c: i32) -> i32 {
    c & 0x7f
}

fn iscsym(_cx: &mut Ctx, c: i32) -> i32 {
    (is(c, ALPHA | DIGIT) != 0 || c == b'_' as i32) as i32
}

fn iscsymf(_cx: &mut Ctx, c: i32) -> i32 {
    (is(c, ALPHA) != 0 || c == b'_' as i32) as i32
}

fn toupper(_cx: &mut Ctx, c: i32) -> i32 {
    if (b'a' as i32..=b'z' as i32).contains(&c) {
        c - 0x20
    } else {
        c
    }
}

fn tolower(_cx: &mut Ctx, c: i32) -> i32 {
    if (b'A' as i32..=b'Z' as i32).contains(&c) {
        c + 0x20
    } else {
        c
    }
}

/// `_toupper`/`_tolower` convert unconditionally (callers guarantee a letter).
fn _toupper(_cx: &mut Ctx, c: i32) -> i32 {
    c - 0x20
}

fn _tolower(_cx: &mut Ctx, c: i32) -> i32 {
    c + 0x20
}

fn towupper(_cx: &mut Ctx, c: u16) -> u32 {
    towupper_c(c) as u32
}

fn towlower(_cx: &mut Ctx, c: u16) -> u32 {
    towlower_c(c) as u32
}

fn __p__pctype(cx: &mut Ctx) -> ApiResult<u32> {
    crate::msvcrt::state::data_var(cx.proc, "_pctype", init_pctype)
}

fn __pctype_func(cx: &mut Ctx) -> ApiResult<u32> {
    let a = __p__pctype(cx)?;
    Ok(cx.proc.mem.read_u32(a)?)
}

fn __p__pwctype(cx: &mut Ctx) -> ApiResult<u32> {
    crate::msvcrt::state::data_var(cx.proc, "_pwctype", init_pwctype)
}

fn __pwctype_func(cx: &mut Ctx) -> ApiResult<u32> {
    let a = __p__pwctype(cx)?;
    Ok(cx.proc.mem.read_u32(a)?)
}

fn isleadbyte(_cx: &mut Ctx, _c: i32) -> i32 {
    0
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        data("_ctype", 2 * 257, init_ctype),
        data("_wctype", 2 * 256, init_wctype),
        data("_pctype", 4, init_pctype),
        data("_pwctype", 4, init_pwctype),
        cdecl("__p__pctype", __p__pctype),
        cdecl("__pctype_func", __pctype_func),
        cdecl("__p__pwctype", __p__pwctype),
        cdecl("__pwctype_func", __pwctype_func),
        cdecl("isalpha", isalpha),
        cdecl("isupper", isupper),
        cdecl("islower", islower),
        cdecl("isdigit", isdigit),
        cdecl("isxdigit", isxdigit),
        cdecl("isspace", isspace),
        cdecl("ispunct", ispunct),
        cdecl("iscntrl", iscntrl),
        cdecl("isalnum", isalnum),
        cdecl("isprint", isprint),
        cdecl("isgraph", isgraph),
        cdecl("_isctype", _isctype),
        cdecl("iswalpha", iswalpha),
        cdecl("iswupper", iswupper),
        cdecl("iswlower", iswlower),
        cdecl("iswdigit", iswdigit),
        cdecl("iswxdigit", iswxdigit),
        cdecl("iswspace", iswspace),
        cdecl("iswpunct", iswpunct),
        cdecl("iswcntrl", iswcntrl),
        cdecl("iswalnum", iswalnum),
        cdecl("iswprint", iswprint),
        cdecl("iswgraph", iswgraph),
        cdecl("iswctype", iswctype),
        cdecl("__isascii", isascii),
        cdecl("__toascii", toascii),
        cdecl("__iscsym", iscsym),
        cdecl("__iscsymf", iscsymf),
        cdecl("toupper", toupper),
        cdecl("tolower", tolower),
        cdecl("_toupper", _toupper),
        cdecl("_tolower", _tolower),
        cdecl("towupper", towupper),
        cdecl("towlower", towlower),
        cdecl("isleadbyte", isleadbyte),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    // Bit values from Microsoft's ctype.h; classes from the C standard's C locale.
    #[test]
    fn c_locale_classes() {
        assert_eq!(class(b'A'), 0x181);
        assert_eq!(class(b'z'), 0x102);
        assert_eq!(class(b'5'), 0x84);
        assert_eq!(class(b' '), 0x48);
        assert_eq!(class(b'\t'), 0x28);
        assert_eq!(class(b'\n'), 0x28);
        assert_eq!(class(b'!'), 0x10);
        assert_eq!(class(0x7f), 0x20);
        assert_eq!(class(0xe9), 0);
        assert_eq!(towupper_c(0xe9), 0xc9);
        assert_eq!(towlower_c(0xd7), 0xd7);
    }
}
