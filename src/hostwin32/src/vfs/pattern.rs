//! FindFirstFile name patterns.
//!
//! Windows NT's FindFirstFile rewrites the pattern before the file system matches
//! it (FsRtlIsNameInExpression): `*.*` becomes `*`; every `?` becomes DOS_QM; a `.`
//! followed by `?` or `*` becomes DOS_DOT; a `*` followed by `.` becomes DOS_STAR;
//! and if the argument ended in a dot (stripped by path normalisation) a final `*`
//! becomes DOS_STAR. The documented meanings are:
//!
//! - `*` matches zero or more characters;
//! - DOS_STAR matches zero or more characters up to, not including, the name's
//!   final `.` (so `*.` matches exactly the names without an extension);
//! - DOS_QM matches one character, or nothing at a `.` or at the end of the name
//!   (so `FILE?.TXT` matches `FILE.TXT` and `FILE1.TXT`, and `?` never matches `.`);
//! - DOS_DOT matches a `.`, or nothing at the end of the name (so `*.*` and `*.?`
//!   match names without an extension).
//!
//! Matching is case-insensitive. 8.3 short names are not generated, so a pattern
//! never matches through a short alias.

use super::path::upcase;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    Lit(char),
    Star,
    DosStar,
    DosQm,
    DosDot,
}

/// A compiled FindFirstFile pattern.
#[derive(Clone, Debug)]
pub struct Pattern {
    toks: Vec<Tok>,
}

impl Pattern {
    /// Compiles `pattern` (the last path component after normalisation, i.e. with
    /// trailing dots and spaces already stripped); `ends_in_dot` says whether the
    /// guest's argument ended in a dot.
    pub fn new(pattern: &str, ends_in_dot: bool) -> Pattern {
        if pattern == "*.*" {
            return Pattern {
                toks: vec![Tok::Star],
            };
        }
        let chars: Vec<char> = pattern.chars().collect();
        let mut toks: Vec<Tok> = chars
            .iter()
            .map(|&c| match c {
                '*' => Tok::Star,
                '?' => Tok::DosQm,
                c => Tok::Lit(upcase(c)),
            })
            .collect();
        for i in 1..chars.len() {
            if chars[i] == '.' && chars[i - 1] == '*' {
                toks[i - 1] = Tok::DosStar;
            }
            if (chars[i] == '?' || chars[i] == '*') && chars[i - 1] == '.' {
                toks[i - 1] = Tok::DosDot;
            }
        }
        if ends_in_dot && chars.last() == Some(&'*') {
            let last = toks.len() - 1;
            toks[last] = Tok::DosStar;
        }
        Pattern { toks }
    }

    /// Whether `name` matches. Runs the pattern as an NFA over the name, so it is
    /// O(name × pattern) with no backtracking blow-up.
    pub fn matches(&self, name: &str) -> bool {
        let name: Vec<char> = name.chars().collect();
        let last_dot = name.iter().rposition(|&c| c == '.');
        let m = self.toks.len();
        let mut cur = vec![false; m + 1];
        cur[0] = true;
        self.close(&mut cur, &name, 0);
        for j in 0..name.len() {
            let c = name[j];
            let mut next = vec![false; m + 1];
            for i in 0..m {
                if !cur[i] {
                    continue;
                }
                match self.toks[i] {
                    Tok::Lit(l) => {
                        if upcase(c) == l {
                            next[i + 1] = true;
                        }
                    }
                    Tok::Star => next[i] = true,
                    Tok::DosStar => {
                        if Some(j) != last_dot {
                            next[i] = true;
                        }
                    }
                    Tok::DosQm => {
                        if c != '.' {
                            next[i + 1] = true;
                        }
                    }
                    Tok::DosDot => {
                        if c == '.' {
                            next[i + 1] = true;
                        }
                    }
                }
            }
            self.close(&mut next, &name, j + 1);
            if !next.iter().any(|&b| b) {
                return false;
            }
            cur = next;
        }
        cur[m]
    }

    /// Adds the states reachable without consuming a character at name position `j`.
    fn close(&self, set: &mut [bool], name: &[char], j: usize) {
        let at_end = j == name.len();
        for i in 0..self.toks.len() {
            if !set[i] {
                continue;
            }
            let skip = match self.toks[i] {
                Tok::Star | Tok::DosStar => true,
                Tok::DosQm => at_end || name[j] == '.',
                Tok::DosDot => at_end,
                Tok::Lit(_) => false,
            };
            if skip {
                set[i + 1] = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, name: &str) -> bool {
        let ends_in_dot = p.ends_with('.');
        let stripped = p.trim_end_matches(['.', ' ']);
        Pattern::new(stripped, ends_in_dot).matches(name)
    }

    // Expected results follow the rewrite rules and wildcard meanings documented
    // for FindFirstFile/FsRtlIsNameInExpression (module comment).
    #[test]
    fn star_dot_star_matches_everything_including_names_without_a_dot() {
        for n in ["README", "a.txt", "a.b.c", ".", "..", "x."] {
            assert!(m("*.*", n), "{n}");
            assert!(m("*", n), "{n}");
        }
    }

    #[test]
    fn star_dot_matches_names_without_extension() {
        assert!(m("*.", "README"));
        assert!(m("*.", "MAKEFILE"));
        assert!(!m("*.", "a.txt"));
        assert!(!m("*.", "a.b.c"));
    }

    #[test]
    fn extension_patterns() {
        assert!(m("*.TXT", "a.txt"));
        assert!(m("*.txt", "A.B.TXT"));
        assert!(!m("*.txt", "a.txt.bak"));
        assert!(!m("*.txt", "a.txtx"));
        assert!(!m("*.txt", "txt"));
        assert!(m("*.?", "noext"));
        assert!(m("*.?", "a.b"));
        assert!(!m("*.?", "a.bc"));
        assert!(m("SAVE*.DAT", "save01.dat"));
        assert!(!m("SAVE*.DAT", "load01.dat"));
        assert!(m("a*", "a.b.c"));
    }

    #[test]
    fn question_mark_rules() {
        assert!(m("FILE?.TXT", "FILE1.TXT"));
        assert!(m("FILE?.TXT", "FILE.TXT"));
        assert!(!m("FILE?.TXT", "FILE12.TXT"));
        assert!(m("FILE????.TXT", "FILE1.TXT"));
        assert!(m("???", "ab"));
        assert!(m("???", "abc"));
        assert!(!m("???", "abcd"));
        assert!(!m("a?b", "a.b"));
        assert!(m("?.txt", "a.txt"));
    }

    #[test]
    fn literal_names_match_case_insensitively() {
        assert!(m("Level1.DAT", "LEVEL1.dat"));
        assert!(!m("Level1.DAT", "Level2.DAT"));
        assert!(m("ÄBC", "äbc"));
    }
}
