//! CommandLineToArgvW: a command line split into arguments by the rules Windows
//! documents, with the quote counting its shell32 has (checked against Wine's
//! conformance tests and Wine 8):
//!
//! - argv[0], the program name, is taken literally: up to the next `"` if it
//!   starts with one (so `"C:\a\"` is `C:\a\`), else up to the first space or tab
//!   (so a line starting with blanks has an empty argv[0]); whatever follows the
//!   closing quote without a blank starts the next argument;
//! - then arguments are separated by spaces and tabs outside quotes; 2n
//!   backslashes before a `"` give n backslashes and the quote opens or closes
//!   quoting, 2n+1 give n backslashes and a literal `"`; backslashes not before a
//!   quote are literal;
//! - quotes that follow a quote are counted: every third one in a run is a
//!   literal `"`, and a run that leaves the count at two ends the quoting (so
//!   `"a""b"` is `a"b`, and `a"b"" c` is `ab"` then `c`);
//! - an empty command line gives the program's path as the only argument.
//!
//! The result is one LocalAlloc block, which one LocalFree releases: argc + 1
//! pointers (the last NULL), then the NUL-terminated strings.

#![allow(non_snake_case)]

use crate::hle::{ApiDef, ApiResult, Ctx, Ptr, WStrPtr, stdcall};
use crate::kernel32::heap::LocalAlloc;
use crate::kernel32::misc::err::ERROR_INVALID_PARAMETER;
use crate::kernel32::string::read_wide;
use crate::teb::set_last_error;

const QUOTE: u16 = b'"' as u16;
const BACKSLASH: u16 = b'\\' as u16;

fn blank(u: u16) -> bool {
    u == b' ' as u16 || u == b'\t' as u16
}

/// The arguments of a non-empty command line.
pub fn split(cmd: &[u16]) -> Vec<Vec<u16>> {
    let n = cmd.len();
    let mut args = Vec::new();
    let mut i = 0;
    let mut first = Vec::new();
    if cmd.first() == Some(&QUOTE) {
        i = 1;
        while i < n && cmd[i] != QUOTE {
            first.push(cmd[i]);
            i += 1;
        }
        // The closing quote.
        i = (i + 1).min(n);
    } else {
        while i < n && !blank(cmd[i]) {
            first.push(cmd[i]);
            i += 1;
        }
    }
    args.push(first);
    while i < n && blank(cmd[i]) {
        i += 1;
    }
    while i < n {
        let mut arg = Vec::new();
        // Quotes counted since quoting began (0: not quoting), and the
        // backslashes just before the current character.
        let mut quotes = 0u32;
        let mut backslashes = 0usize;
        while i < n {
            let c = cmd[i];
            if blank(c) && quotes == 0 {
                break;
            }
            if c == BACKSLASH {
                arg.push(c);
                backslashes += 1;
                i += 1;
                continue;
            }
            if c != QUOTE {
                arg.push(c);
                backslashes = 0;
                i += 1;
                continue;
            }
            // Half the backslashes stay; an odd one escapes this quote.
            arg.truncate(arg.len() - backslashes / 2);
            if backslashes % 2 == 1 {
                arg.pop();
                arg.push(QUOTE);
            } else {
                quotes += 1;
            }
            backslashes = 0;
            i += 1;
            while i < n && cmd[i] == QUOTE {
                quotes += 1;
                if quotes == 3 {
                    arg.push(QUOTE);
                    quotes = 0;
                }
                i += 1;
            }
            if quotes == 2 {
                quotes = 0;
            }
        }
        args.push(arg);
        while i < n && blank(cmd[i]) {
            i += 1;
        }
    }
    args
}

/// The block CommandLineToArgvW returns for `args` at guest address `base`.
pub fn argv_block(base: u32, args: &[Vec<u16>]) -> Vec<u8> {
    let table = 4 * (args.len() + 1);
    let mut strings: Vec<u8> = Vec::new();
    let mut out = Vec::with_capacity(table);
    for a in args {
        out.extend_from_slice(&(base + (table + strings.len()) as u32).to_le_bytes());
        for &u in a.iter().chain(&[0]) {
            strings.extend_from_slice(&u.to_le_bytes());
        }
    }
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&strings);
    out
}

/// A NULL command line is taken as an empty one (the program's path).
pub fn CommandLineToArgvW(cx: &mut Ctx, lpCmdLine: WStrPtr, pNumArgs: Ptr) -> ApiResult<u32> {
    if pNumArgs.is_null() {
        set_last_error(cx, ERROR_INVALID_PARAMETER)?;
        return Ok(0);
    }
    let cmd = if lpCmdLine.0 == 0 {
        Vec::new()
    } else {
        read_wide(cx.proc, lpCmdLine.0)?
    };
    let args = if cmd.is_empty() {
        let path = crate::kernel32::module::module_path(cx, 0).unwrap_or_default();
        vec![path.encode_utf16().collect()]
    } else {
        split(&cmd)
    };
    let size = argv_block(0, &args).len() as u32;
    // LMEM_FIXED: the handle is the pointer. LocalAlloc sets the error on failure.
    let base = LocalAlloc(cx, 0, size)?;
    if base == 0 {
        return Ok(0);
    }
    cx.proc.mem.write_bytes(base, &argv_block(base, &args))?;
    cx.proc.mem.write_u32(pNumArgs.0, args.len() as u32)?;
    Ok(base)
}

pub fn exports() -> Vec<ApiDef> {
    vec![stdcall("CommandLineToArgvW", CommandLineToArgvW)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(cmd: &str) -> Vec<String> {
        let w: Vec<u16> = cmd.encode_utf16().collect();
        split(&w)
            .iter()
            .map(|a| String::from_utf16(a).unwrap())
            .collect()
    }

    // The examples of Microsoft's "Parsing C command-line arguments" table that
    // CommandLineToArgvW shares, after a program name.
    #[test]
    fn documented_examples() {
        assert_eq!(args(r#""abc" d e"#), ["abc", "d", "e"]);
        assert_eq!(args(r#"p a\\b d"e f"g h"#), ["p", r"a\\b", "de fg", "h"]);
        assert_eq!(args(r#"p a\\\"b c d"#), ["p", r#"a\"b"#, "c", "d"]);
        assert_eq!(args(r#"p a\\\\"b c" d e"#), ["p", r"a\\b c", "d", "e"]);
    }

    #[test]
    fn quote_runs() {
        assert_eq!(args(r#"p a"b"" c d"#), ["p", "ab\"", "c", "d"]);
        assert_eq!(args(r#"p "a"""b""#), ["p", "a\"b"]);
        assert_eq!(args(r#"p """""#), ["p", "\""]);
        assert_eq!(args(r#"p "a""b" c"#), ["p", "a\"b c"]);
        assert_eq!(args(r#"p """""" x"#), ["p", "\"\"", "x"]);
        assert_eq!(args(r#"p """#), ["p", ""]);
        assert_eq!(args(r#"p "open end"#), ["p", "open end"]);
        assert_eq!(args(r#"x\"y z"#), [r#"x\"y"#, "z"]);
    }

    #[test]
    fn the_program_name_is_literal() {
        assert_eq!(args(r#""C:\a\" b"#), [r"C:\a\", "b"]);
        assert_eq!(args(r#""a b"c d"#), ["a b", "c", "d"]);
        assert_eq!(args("  lead x"), ["", "lead", "x"]);
        assert_eq!(args("p\tx"), ["p", "x"]);
        assert_eq!(args("p trail  "), ["p", "trail"]);
        assert_eq!(args(r#""unterminated"#), ["unterminated"]);
    }

    #[test]
    fn block_is_pointers_then_strings() {
        let a: Vec<Vec<u16>> = vec!["ab".encode_utf16().collect(), Vec::new()];
        let b = argv_block(0x1000, &a);
        let ptr = |i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!(ptr(0), 0x1000 + 12);
        assert_eq!(ptr(1), 0x1000 + 12 + 6);
        assert_eq!(ptr(2), 0);
        assert_eq!(&b[12..18], &[b'a', 0, b'b', 0, 0, 0]);
        assert_eq!(b.len(), 12 + 6 + 2);
    }
}
