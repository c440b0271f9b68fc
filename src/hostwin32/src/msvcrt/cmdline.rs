//! Splitting the command line into argv the way msvcrt.dll's start-up code does
//! (stdargv.c `parse_cmdline`, the pre-2008 rules):
//!
//! - The program name ends at the next space/tab; if it starts with `"` it runs to
//!   the next `"` instead. No backslash or quote processing happens in it.
//! - Arguments are separated by spaces/tabs outside quotes.
//! - 2n backslashes before `"` give n backslashes and the quote opens/closes a
//!   quoted part; 2n+1 backslashes before `"` give n backslashes and a literal `"`;
//!   backslashes not before a quote are literal.
//! - Inside a quoted part, `""` gives a literal `"` and *ends* the quoted part (the
//!   later runtimes stay inside; msvcrt.dll does not).
//!
//! Works on code units so the narrow and wide variants share it.

pub fn parse(cmd: &[u16]) -> Vec<Vec<u16>> {
    const SPACE: u16 = b' ' as u16;
    const TAB: u16 = b'\t' as u16;
    const QUOTE: u16 = b'"' as u16;
    const SLASH: u16 = b'\\' as u16;
    let at = |p: usize| cmd.get(p).copied().unwrap_or(0);
    let mut args = Vec::new();
    let mut p = 0usize;
    let mut name = Vec::new();
    if at(0) == QUOTE {
        p = 1;
        while at(p) != QUOTE && at(p) != 0 {
            name.push(at(p));
            p += 1;
        }
        if at(p) == QUOTE {
            p += 1;
        }
    } else {
        while at(p) != SPACE && at(p) != TAB && at(p) != 0 {
            name.push(at(p));
            p += 1;
        }
        if at(p) != 0 {
            p += 1;
        }
    }
    args.push(name);
    let mut inquote = false;
    loop {
        while at(p) == SPACE || at(p) == TAB {
            p += 1;
        }
        if at(p) == 0 {
            break;
        }
        let mut arg = Vec::new();
        loop {
            let mut copychar = true;
            let mut numslash = 0usize;
            while at(p) == SLASH {
                p += 1;
                numslash += 1;
            }
            if at(p) == QUOTE {
                if numslash.is_multiple_of(2) {
                    if inquote && at(p + 1) == QUOTE {
                        p += 1;
                    } else {
                        copychar = false;
                    }
                    inquote = !inquote;
                }
                numslash /= 2;
            }
            arg.resize(arg.len() + numslash, SLASH);
            let c = at(p);
            if c == 0 || (!inquote && (c == SPACE || c == TAB)) {
                break;
            }
            if copychar {
                arg.push(c);
            }
            p += 1;
        }
        args.push(arg);
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(cmd: &str) -> Vec<String> {
        let u: Vec<u16> = cmd.encode_utf16().collect();
        parse(&u)
            .into_iter()
            .map(|a| String::from_utf16(&a).unwrap())
            .collect()
    }

    // The examples table of Microsoft's "Parsing C Command-Line Arguments" page.
    #[test]
    fn documented_examples() {
        assert_eq!(args(r#"p "a b c" d e"#), ["p", "a b c", "d", "e"]);
        assert_eq!(args(r#"p "ab\"c" "\\" d"#), ["p", r#"ab"c"#, r"\", "d"]);
        assert_eq!(args(r#"p a\\\b d"e f"g h"#), ["p", r"a\\\b", "de fg", "h"]);
        assert_eq!(args(r#"p a\\\"b c d"#), ["p", r#"a\"b"#, "c", "d"]);
        assert_eq!(args(r#"p a\\\\"b c" d e"#), ["p", r"a\\b c", "d", "e"]);
    }

    #[test]
    fn program_name() {
        assert_eq!(
            args(r#""C:\Program Files\x.exe" a"#),
            [r"C:\Program Files\x.exe", "a"]
        );
        assert_eq!(args(r#"C:\x\y.exe"#), [r"C:\x\y.exe"]);
        // No quote processing in an unquoted program name.
        assert_eq!(args(r#"a"b c"#), [r#"a"b"#, "c"]);
        assert_eq!(args("p\ta\t\tb  "), ["p", "a", "b"]);
        assert_eq!(args(""), [""]);
    }

    #[test]
    fn doubled_quotes_msvcrt_rule() {
        // msvcrt.dll: "" inside quotes is a literal quote and leaves quote mode.
        assert_eq!(args(r#"p "a""b c""#), ["p", r#"a"b"#, "c"]);
        assert_eq!(args(r#"p """#), ["p", ""]);
        assert_eq!(args(r#"p "" x"#), ["p", "", "x"]);
        assert_eq!(args(r#"p a\"#), ["p", r"a\"]);
    }

    #[test]
    /// KERNEL32 builds the command line from separate arguments; this parser
    /// must give them back.
    fn kernel32_quoting_round_trips() {
        for a in [
            "plain",
            "",
            "a b",
            r#"q"uote"#,
            r"back\slash",
            r"tail\",
            r#"x\"y"#,
            r"sp ace\\",
        ] {
            let line = format!("p {}", crate::kernel32::process::quote_arg(a));
            assert_eq!(args(&line), ["p", a], "line {line:?}");
        }
    }
}
