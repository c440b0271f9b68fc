//! The scanf engine (msvcrt input.c rules): whitespace in the format skips any
//! whitespace, `%[*][width][size]conv` with sizes `h hh l ll L w I64 I32 I` and
//! conversions `d i u o x X p c C s S [ ] e E f g G a n %`. Integers accumulate
//! with wrap-around as msvcrt does; floats collect `[sign]digits[.digits][e[sign]digits]`
//! and convert it exactly. Returns the number of assigned fields, or EOF (-1) when
//! the input ends before anything was matched.

use super::printf::Source;
use crate::hle::ApiResult;

/// Where the characters come from (a string, or a stream with push-back).
pub trait Input {
    fn get(&mut self) -> ApiResult<Option<u16>>;
    /// Pushes back the character just read.
    fn unget(&mut self, c: u16);
}

/// Destinations: the pointer arguments of the call.
pub trait Dest: Source {
    fn write(&mut self, addr: u32, bytes: &[u8]) -> ApiResult<()>;
}

/// Input from a string already read out of guest memory.
pub struct StrInput<'a> {
    pub s: &'a [u16],
    pub pos: usize,
}

impl Input for StrInput<'_> {
    fn get(&mut self) -> ApiResult<Option<u16>> {
        let c = self.s.get(self.pos).copied();
        if c.is_some() {
            self.pos += 1;
        }
        Ok(c)
    }
    fn unget(&mut self, _c: u16) {
        self.pos -= 1;
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Size {
    Default,
    Char,
    Short,
    Long,
    I64,
    LongDouble,
    Wide,
}

fn is_space(c: u16) -> bool {
    matches!(c, 0x20 | 0x09..=0x0d)
}

/// Reads with a character count and a width limit.
struct Reader<'a> {
    inp: &'a mut dyn Input,
    count: u64,
    eof: bool,
}

impl Reader<'_> {
    fn get(&mut self) -> ApiResult<Option<u16>> {
        let c = self.inp.get()?;
        match c {
            Some(_) => self.count += 1,
            None => self.eof = true,
        }
        Ok(c)
    }
    fn unget(&mut self, c: u16) {
        self.inp.unget(c);
        self.count -= 1;
    }
    fn skip_space(&mut self) -> ApiResult<()> {
        while let Some(c) = self.get()? {
            if !is_space(c) {
                self.unget(c);
                break;
            }
        }
        Ok(())
    }
    /// Next character if `ok` accepts it and the width allows.
    fn take_if(&mut self, width: &mut usize, ok: impl Fn(u16) -> bool) -> ApiResult<Option<u16>> {
        if *width == 0 {
            return Ok(None);
        }
        match self.get()? {
            Some(c) if ok(c) => {
                *width -= 1;
                Ok(Some(c))
            }
            Some(c) => {
                self.unget(c);
                Ok(None)
            }
            None => Ok(None),
        }
    }
}

/// Scans `inp` per `fmt` (units; `wide` selects the wide family's `%s`/`%c`).
pub fn scan(fmt: &[u16], wide: bool, inp: &mut dyn Input, dst: &mut dyn Dest) -> ApiResult<i32> {
    let mut r = Reader {
        inp,
        count: 0,
        eof: false,
    };
    let mut assigned = 0i32;
    let mut matched = 0i32;
    // End of input before a directive could read anything (as opposed to a
    // character that did not match): EOF is returned if nothing matched before.
    let mut input_failure = false;
    let at = |i: usize| fmt.get(i).copied().unwrap_or(0);
    let mut i = 0;
    while i < fmt.len() {
        let f = fmt[i];
        if is_space(f) {
            while i < fmt.len() && is_space(fmt[i]) {
                i += 1;
            }
            r.skip_space()?;
            continue;
        }
        if f != u16::from(b'%') || at(i + 1) == u16::from(b'%') {
            if f == u16::from(b'%') {
                i += 1;
                r.skip_space()?;
            }
            i += 1;
            match r.get()? {
                Some(c) if c == f => continue,
                Some(c) => {
                    r.unget(c);
                    break;
                }
                None => {
                    input_failure = true;
                    break;
                }
            }
        }
        i += 1;
        let suppress = at(i) == u16::from(b'*');
        if suppress {
            i += 1;
        }
        let mut width = 0usize;
        while (0x30..=0x39).contains(&at(i)) {
            width = width
                .saturating_mul(10)
                .saturating_add((at(i) - 0x30) as usize);
            i += 1;
        }
        let mut size = Size::Default;
        loop {
            match at(i) {
                0x68 => {
                    size = if size == Size::Short {
                        Size::Char
                    } else {
                        Size::Short
                    }
                }
                0x6c => {
                    size = if size == Size::Long {
                        Size::I64
                    } else {
                        Size::Long
                    }
                }
                0x4c => size = Size::LongDouble,
                0x77 => size = Size::Wide,
                0x49 => {
                    if at(i + 1) == 0x36 && at(i + 2) == 0x34 {
                        size = Size::I64;
                        i += 2;
                    } else if at(i + 1) == 0x33 && at(i + 2) == 0x32 {
                        i += 2;
                    }
                }
                _ => break,
            }
            i += 1;
        }
        let Some(conv) = fmt.get(i).copied() else {
            break;
        };
        i += 1;
        let conv8 = u8::try_from(conv).unwrap_or(0);
        if !matches!(conv8, b'n' | b'c' | b'C' | b'[') {
            r.skip_space()?;
        }
        let start = r.count;
        let lim = if width == 0 { usize::MAX } else { width };
        match conv8 {
            b'n' => {
                if !suppress {
                    let p = dst.u32()?;
                    store_int(dst, p, r.count, size)?;
                }
                continue;
            }
            b'c' | b'C' => {
                let n = if width == 0 { 1 } else { width };
                let mut got = Vec::new();
                while got.len() < n {
                    match r.get()? {
                        Some(c) => got.push(c),
                        None => break,
                    }
                }
                if got.is_empty() {
                    input_failure = true;
                    break;
                }
                matched += 1;
                if !suppress {
                    let p = dst.u32()?;
                    write_text(dst, p, &got, wide_arg(conv8 == b'C', wide, size), false)?;
                    assigned += 1;
                }
            }
            b's' | b'S' | b'[' => {
                let set = if conv8 == b'[' {
                    let (set, next) = parse_set(fmt, i);
                    i = next;
                    Some(set)
                } else {
                    r.skip_space()?;
                    None
                };
                let mut w = lim;
                let mut got = Vec::new();
                while let Some(c) = r.take_if(&mut w, |c| match &set {
                    Some(s) => s.contains(c),
                    None => !is_space(c),
                })? {
                    got.push(c);
                }
                if got.is_empty() {
                    input_failure = r.eof && r.count == start;
                    break;
                }
                matched += 1;
                if !suppress {
                    let p = dst.u32()?;
                    write_text(dst, p, &got, wide_arg(conv8 == b'S', wide, size), true)?;
                    assigned += 1;
                }
            }
            b'd' | b'i' | b'u' | b'o' | b'x' | b'X' | b'p' => {
                r.skip_space()?;
                let mut w = lim;
                let mut negative = false;
                if let Some(c) = r.take_if(&mut w, |c| c == 0x2b || c == 0x2d)? {
                    negative = c == 0x2d;
                }
                let mut base = match conv8 {
                    b'd' | b'u' => 10,
                    b'o' => 8,
                    b'i' => 0,
                    _ => 16,
                };
                let mut digits = 0usize;
                let mut value: u64 = 0;
                if base == 0 || base == 16 {
                    if let Some(z) = r.take_if(&mut w, |c| c == 0x30)? {
                        let _ = z;
                        digits = 1;
                        if r.take_if(&mut w, |c| c == 0x78 || c == 0x58)?.is_some() {
                            base = 16;
                        } else if base == 0 {
                            base = 8;
                        }
                    } else if base == 0 {
                        base = 10;
                    }
                }
                while let Some(c) = r.take_if(&mut w, |c| digit_value(c, base).is_some())? {
                    value = value
                        .wrapping_mul(base as u64)
                        .wrapping_add(digit_value(c, base).unwrap_or(0) as u64);
                    digits += 1;
                }
                if digits == 0 {
                    input_failure = r.eof && r.count == start;
                    break;
                }
                if negative {
                    value = value.wrapping_neg();
                }
                matched += 1;
                if !suppress {
                    let p = dst.u32()?;
                    store_int(dst, p, value, size)?;
                    assigned += 1;
                }
            }
            b'e' | b'E' | b'f' | b'F' | b'g' | b'G' | b'a' | b'A' => {
                r.skip_space()?;
                let mut w = lim;
                let mut text = String::new();
                if let Some(c) = r.take_if(&mut w, |c| c == 0x2b || c == 0x2d)? {
                    text.push(c as u8 as char);
                }
                let mut mant_digits = 0;
                while let Some(c) = r.take_if(&mut w, is_digit)? {
                    text.push(c as u8 as char);
                    mant_digits += 1;
                }
                if r.take_if(&mut w, |c| c == 0x2e)?.is_some() {
                    text.push('.');
                    while let Some(c) = r.take_if(&mut w, is_digit)? {
                        text.push(c as u8 as char);
                        mant_digits += 1;
                    }
                }
                if mant_digits > 0 && r.take_if(&mut w, |c| c == 0x65 || c == 0x45)?.is_some() {
                    let mut exp = String::from("e");
                    if let Some(c) = r.take_if(&mut w, |c| c == 0x2b || c == 0x2d)? {
                        exp.push(c as u8 as char);
                    }
                    let mut exp_digits = 0;
                    while let Some(c) = r.take_if(&mut w, is_digit)? {
                        exp.push(c as u8 as char);
                        exp_digits += 1;
                    }
                    // "1e" or "1e+" converts as "1": the exponent part is dropped.
                    if exp_digits > 0 {
                        text.push_str(&exp);
                    }
                }
                if mant_digits == 0 {
                    input_failure = r.eof && r.count == start;
                    break;
                }
                let v: f64 = text.parse().unwrap_or(0.0);
                matched += 1;
                if !suppress {
                    let p = dst.u32()?;
                    if matches!(size, Size::Long | Size::LongDouble | Size::I64) {
                        dst.write(p, &v.to_le_bytes())?;
                    } else {
                        dst.write(p, &(v as f32).to_le_bytes())?;
                    }
                    assigned += 1;
                }
            }
            _ => break,
        }
    }
    if input_failure && matched == 0 {
        return Ok(-1);
    }
    Ok(assigned)
}

fn is_digit(c: u16) -> bool {
    (0x30..=0x39).contains(&c)
}

fn digit_value(c: u16, base: u32) -> Option<u32> {
    char::from_u32(c as u32)?.to_digit(base)
}

fn wide_arg(upper: bool, wide_family: bool, size: Size) -> bool {
    match size {
        Size::Short | Size::Char => false,
        Size::Long | Size::Wide => true,
        _ => upper != wide_family,
    }
}

fn store_int(dst: &mut dyn Dest, p: u32, v: u64, size: Size) -> ApiResult<()> {
    let n = match size {
        Size::Char => 1,
        Size::Short => 2,
        Size::I64 => 8,
        _ => 4,
    };
    dst.write(p, &v.to_le_bytes()[..n])
}

fn write_text(dst: &mut dyn Dest, p: u32, s: &[u16], wide: bool, nul: bool) -> ApiResult<()> {
    let mut b: Vec<u8> = if wide {
        s.iter().flat_map(|u| u.to_le_bytes()).collect()
    } else {
        // C-locale wctomb: units above 0xFF have no narrow form.
        s.iter()
            .map(|&u| if u > 0xff { b'?' } else { u as u8 })
            .collect()
    };
    if nul {
        b.extend_from_slice(if wide { &[0, 0] } else { &[0] });
    }
    dst.write(p, &b)
}

/// A `%[...]` set: ranges `a-z`, a leading `^` negates, a `]` right after `[` or
/// `[^` is a member.
struct Set {
    negate: bool,
    ranges: Vec<(u16, u16)>,
}

impl Set {
    fn contains(&self, c: u16) -> bool {
        self.ranges.iter().any(|&(a, b)| a <= c && c <= b) != self.negate
    }
}

fn parse_set(fmt: &[u16], mut i: usize) -> (Set, usize) {
    let mut set = Set {
        negate: false,
        ranges: Vec::new(),
    };
    if fmt.get(i) == Some(&0x5e) {
        set.negate = true;
        i += 1;
    }
    let start = i;
    while i < fmt.len() {
        let c = fmt[i];
        if c == 0x5d && i > start {
            i += 1;
            break;
        }
        if fmt.get(i + 1) == Some(&0x2d) && i + 2 < fmt.len() && fmt[i + 2] != 0x5d {
            let (a, b) = (c, fmt[i + 2]);
            set.ranges.push((a.min(b), a.max(b)));
            i += 3;
        } else {
            set.ranges.push((c, c));
            i += 1;
        }
    }
    (set, i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hle::ApiError;
    use std::collections::BTreeMap;

    /// Pointer arguments 0x100, 0x200, ...; writes recorded by address.
    struct Out {
        next: u32,
        mem: BTreeMap<u32, Vec<u8>>,
    }

    impl Source for Out {
        fn u32(&mut self) -> ApiResult<u32> {
            self.next += 0x100;
            Ok(self.next)
        }
        fn u64(&mut self) -> ApiResult<u64> {
            Err(ApiError::Other("unused".into()))
        }
        fn cstr(&mut self, _: u32, _: usize) -> ApiResult<Vec<u8>> {
            Err(ApiError::Other("unused".into()))
        }
        fn wstr(&mut self, _: u32, _: usize) -> ApiResult<Vec<u16>> {
            Err(ApiError::Other("unused".into()))
        }
        fn bytes(&mut self, _: u32, _: usize) -> ApiResult<Vec<u8>> {
            Err(ApiError::Other("unused".into()))
        }
        fn store(&mut self, _: u32, _: u64, _: u32) -> ApiResult<()> {
            Err(ApiError::Other("unused".into()))
        }
    }

    impl Dest for Out {
        fn write(&mut self, addr: u32, bytes: &[u8]) -> ApiResult<()> {
            self.mem.insert(addr, bytes.to_vec());
            Ok(())
        }
    }

    fn run(input: &str, fmt: &str) -> (i32, Vec<Vec<u8>>, usize) {
        let s: Vec<u16> = input.bytes().map(u16::from).collect();
        let f: Vec<u16> = fmt.bytes().map(u16::from).collect();
        let mut inp = StrInput { s: &s, pos: 0 };
        let mut out = Out {
            next: 0,
            mem: BTreeMap::new(),
        };
        let n = scan(&f, false, &mut inp, &mut out).unwrap();
        (n, out.mem.into_values().collect(), inp.pos)
    }

    fn i32s(v: &[Vec<u8>]) -> Vec<i32> {
        v.iter()
            .map(|b| i32::from_le_bytes(b[..4].try_into().unwrap()))
            .collect()
    }

    // Expected results follow the C standard's fscanf description (7.21.6.2).
    #[test]
    fn integers() {
        let (n, v, _) = run("  42 -17 +8", "%d%d%d");
        assert_eq!((n, i32s(&v)), (3, vec![42, -17, 8]));
        let (n, v, _) = run("0x1f 017 12 ff 0XA", "%i %i %i %x %x");
        assert_eq!((n, i32s(&v)), (5, vec![31, 15, 12, 255, 10]));
        let (n, v, _) = run("12345", "%2d%3d");
        assert_eq!((n, i32s(&v)), (2, vec![12, 345]));
        let (n, v, _) = run("777 -1", "%o %u");
        assert_eq!((n, i32s(&v)), (2, vec![0o777, -1]));
        let (n, v, _) = run("123456789012", "%I64d");
        assert_eq!(n, 1);
        assert_eq!(
            u64::from_le_bytes(v[0][..].try_into().unwrap()),
            123456789012
        );
        let (n, v, _) = run("70000", "%hd");
        assert_eq!((n, v[0].len()), (1, 2));
        assert_eq!(i16::from_le_bytes([v[0][0], v[0][1]]), 70000u32 as i16);
    }

    #[test]
    fn failures_and_eof() {
        assert_eq!(run("", "%d").0, -1);
        assert_eq!(run("   ", "%d").0, -1);
        assert_eq!(run("abc", "%d").0, 0);
        let (n, v, pos) = run("12 abc", "%d %d");
        assert_eq!((n, i32s(&v), pos), (1, vec![12], 3));
        assert_eq!(run("-", "%d").0, 0);
        assert_eq!(run("x", "x%d").0, -1);
        assert_eq!(run("y5", "x%d").0, 0);
    }

    #[test]
    fn strings_chars_sets() {
        let (n, v, _) = run("  hello world", "%s %3c");
        assert_eq!(n, 2);
        assert_eq!(v[0], b"hello\0");
        assert_eq!(v[1], b"wor");
        let (n, v, _) = run("abc123def", "%[a-z]%[^a-z]%2s");
        assert_eq!(n, 3);
        assert_eq!(
            v,
            vec![b"abc\0".to_vec(), b"123\0".to_vec(), b"de\0".to_vec()]
        );
        let (n, v, _) = run("]]x", "%[]]");
        assert_eq!((n, v[0].clone()), (1, b"]]\0".to_vec()));
        let (n, v, _) = run("a-b", "%[a-]");
        assert_eq!((n, v[0].clone()), (1, b"a-\0".to_vec()));
        let (n, v, _) = run("key=value", "%*[^=]=%s");
        assert_eq!((n, v[0].clone()), (1, b"value\0".to_vec()));
        let (n, _, _) = run("a", "%c%c");
        assert_eq!(n, 1);
    }

    #[test]
    fn floats() {
        let (n, v, _) = run("3.5 -1e3 .25 2.", "%f %lf %le %lg");
        assert_eq!(n, 4);
        assert_eq!(f32::from_le_bytes(v[0][..].try_into().unwrap()), 3.5);
        assert_eq!(f64::from_le_bytes(v[1][..].try_into().unwrap()), -1000.0);
        assert_eq!(f64::from_le_bytes(v[2][..].try_into().unwrap()), 0.25);
        assert_eq!(f64::from_le_bytes(v[3][..].try_into().unwrap()), 2.0);
        let (n, v, pos) = run("1.5e+x", "%lf");
        assert_eq!(n, 1);
        assert_eq!(f64::from_le_bytes(v[0][..].try_into().unwrap()), 1.5);
        assert_eq!(pos, 5);
        let (n, v, _) = run("0.1", "%lf");
        assert_eq!(
            (n, f64::from_le_bytes(v[0][..].try_into().unwrap())),
            (1, 0.1)
        );
        let (n, v, _) = run("12345", "%3lf%lf");
        assert_eq!(n, 2);
        assert_eq!(f64::from_le_bytes(v[0][..].try_into().unwrap()), 123.0);
        assert_eq!(run(".", "%f").0, 0);
    }

    #[test]
    fn counts_and_literals() {
        let (n, v, _) = run("ab 12%x", "ab %d%n%%x");
        assert_eq!(n, 1);
        assert_eq!(i32s(&v), vec![12, 5]);
        let (n, _, _) = run("5,6", "%d,%*d");
        assert_eq!(n, 1);
    }
}
