//! The document of a rich edit control (text with a character format per character
//! and a paragraph format per paragraph; '\r' ends a paragraph, as in RichEdit 2.0)
//! and its RTF form: a reader for the subset WordPad and other editors write
//! (\rtf1 \ansi \deff \fonttbl \colortbl \par \pard \plain \b \i \ul \strike \fs \cf
//! \f \ql \qc \qr \qj \li \ri \fi \tab \line \'hh \u; other destinations and control
//! words are skipped as the RTF specification requires) and a writer of the same
//! subset.

/// A character format. Sizes are in twips; `color` None is the automatic colour.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CharFmt {
    pub bold: bool,
    pub italic: bool,
    pub underline: bool,
    pub strike: bool,
    pub color: Option<u32>,
    pub face: String,
    pub size: i32,
    pub offset: i32,
    pub charset: u8,
}

impl Default for CharFmt {
    fn default() -> Self {
        CharFmt {
            bold: false,
            italic: false,
            underline: false,
            strike: false,
            color: None,
            face: "Arial".into(),
            size: 200,
            offset: 0,
            charset: 0,
        }
    }
}

pub const PFA_LEFT: u16 = 1;
pub const PFA_RIGHT: u16 = 2;
pub const PFA_CENTER: u16 = 3;
pub const PFA_JUSTIFY: u16 = 4;

/// A paragraph format; indents in twips.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParaFmt {
    pub align: u16,
    pub start: i32,
    pub right: i32,
    pub offset: i32,
    pub tabs: Vec<i32>,
    pub numbering: u16,
}

impl Default for ParaFmt {
    fn default() -> Self {
        ParaFmt {
            align: PFA_LEFT,
            start: 0,
            right: 0,
            offset: 0,
            tabs: Vec::new(),
            numbering: 0,
        }
    }
}

/// Text with formats: `fmt[i]` indexes `fmts` for character i; `paras` has one
/// entry per paragraph (the number of '\r' plus one).
#[derive(Clone, Debug, PartialEq)]
pub struct Doc {
    pub text: Vec<char>,
    pub fmt: Vec<usize>,
    pub fmts: Vec<CharFmt>,
    pub paras: Vec<ParaFmt>,
}

impl Default for Doc {
    fn default() -> Self {
        Doc {
            text: Vec::new(),
            fmt: Vec::new(),
            fmts: vec![CharFmt::default()],
            paras: vec![ParaFmt::default()],
        }
    }
}

impl Doc {
    /// The index of `f` in the format table (added if new).
    pub fn intern(&mut self, f: &CharFmt) -> usize {
        if let Some(i) = self.fmts.iter().position(|x| x == f) {
            return i;
        }
        self.fmts.push(f.clone());
        self.fmts.len() - 1
    }

    /// The paragraph holding character position `pos`.
    pub fn para_of(&self, pos: usize) -> usize {
        self.text[..pos.min(self.text.len())]
            .iter()
            .filter(|&&c| c == '\r')
            .count()
    }

    /// The start of paragraph `p`.
    pub fn para_start(&self, p: usize) -> usize {
        if p == 0 {
            return 0;
        }
        let mut n = 0;
        for (i, &c) in self.text.iter().enumerate() {
            if c == '\r' {
                n += 1;
                if n == p {
                    return i + 1;
                }
            }
        }
        self.text.len()
    }

    /// Replaces characters a..b with `s` in format `f`; paragraphs inserted take the
    /// format of the paragraph they split.
    pub fn replace(&mut self, a: usize, b: usize, s: &[char], f: usize) {
        let (a, b) = (a.min(self.text.len()), b.min(self.text.len()));
        let p = self.para_of(a);
        let removed = self.text[a..b].iter().filter(|&&c| c == '\r').count();
        self.text.splice(a..b, s.iter().copied());
        self.fmt.splice(a..b, std::iter::repeat_n(f, s.len()));
        self.paras
            .drain(p + 1..(p + 1 + removed).min(self.paras.len()));
        let added = s.iter().filter(|&&c| c == '\r').count();
        let pf = self.paras.get(p).cloned().unwrap_or_default();
        for _ in 0..added {
            self.paras.insert(p + 1, pf.clone());
        }
    }

    /// The plain text with paragraph ends as CRLF.
    pub fn crlf_text(&self, a: usize, b: usize) -> String {
        let mut s = String::new();
        for &c in &self.text[a.min(self.text.len())..b.min(self.text.len())] {
            if c == '\r' {
                s.push_str("\r\n");
            } else {
                s.push(c);
            }
        }
        s
    }
}

/// Text as the control stores it: CRLF and lone LF become '\r'.
pub fn normalize(s: &str) -> Vec<char> {
    let mut out = Vec::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '\r' => {
                if it.peek() == Some(&'\n') {
                    it.next();
                }
                out.push('\r');
            }
            '\n' => out.push('\r'),
            c => out.push(c),
        }
    }
    out
}

// ---- reader ------------------------------------------------------------------------

#[derive(Clone)]
struct GroupState {
    fmt: CharFmt,
    para: ParaFmt,
    /// Skipping the group's text (an unknown or ignored destination).
    skip: bool,
    dest: Dest,
    uc: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Dest {
    Body,
    FontTable,
    ColorTable,
}

/// Reads an RTF document into (text, per-character formats, paragraph formats) that
/// [`Doc`] can take. `default` is the format text starts with; `decode` turns the
/// document's 8-bit characters into text (the ANSI code page).
pub fn read(data: &[u8], default: &CharFmt, decode: &dyn Fn(&[u8]) -> String) -> Option<Doc> {
    let mut i = 0;
    while i < data.len() && data[i].is_ascii_whitespace() {
        i += 1;
    }
    if !data[i..].starts_with(b"{\\rtf") {
        return None;
    }
    let mut doc = Doc {
        text: Vec::new(),
        fmt: Vec::new(),
        fmts: vec![default.clone()],
        paras: vec![ParaFmt::default()],
    };
    let mut fonts: Vec<(i32, String, u8)> = Vec::new();
    let mut colors: Vec<Option<u32>> = Vec::new();
    let mut color_cur: (u32, bool) = (0, false);
    let mut font_cur: (i32, String, u8) = (0, String::new(), 0);
    let mut deff = 0;
    let mut stack: Vec<GroupState> = Vec::new();
    let mut g = GroupState {
        fmt: default.clone(),
        para: ParaFmt::default(),
        skip: false,
        dest: Dest::Body,
        uc: 1,
    };
    let mut skip_chars = 0usize;
    let mut pending: Vec<u8> = Vec::new();
    let mut first_in_group = false;

    fn flush(
        doc: &mut Doc,
        pending: &mut Vec<u8>,
        g: &GroupState,
        decode: &dyn Fn(&[u8]) -> String,
    ) {
        if pending.is_empty() {
            return;
        }
        let s = decode(pending);
        pending.clear();
        let f = doc.intern(&g.fmt);
        for c in s.chars() {
            doc.text.push(c);
            doc.fmt.push(f);
        }
    }

    let font_face = |fonts: &Vec<(i32, String, u8)>, n: i32| -> Option<(String, u8)> {
        fonts.iter().find(|f| f.0 == n).map(|f| (f.1.clone(), f.2))
    };

    while i < data.len() {
        let c = data[i];
        match c {
            b'{' => {
                if g.dest == Dest::Body {
                    flush(&mut doc, &mut pending, &g, decode);
                }
                stack.push(g.clone());
                first_in_group = true;
                i += 1;
                continue;
            }
            b'}' => {
                if g.dest == Dest::Body {
                    flush(&mut doc, &mut pending, &g, decode);
                }
                if g.dest == Dest::FontTable && !font_cur.1.is_empty() {
                    let face = font_cur.1.trim_end_matches(';').trim().to_string();
                    fonts.push((font_cur.0, face, font_cur.2));
                    font_cur = (0, String::new(), 0);
                }
                match stack.pop() {
                    Some(prev) => {
                        // The paragraph format persists past groups in the body.
                        let para = g.para.clone();
                        g = prev;
                        if g.dest == Dest::Body {
                            g.para = para;
                        }
                    }
                    None => break,
                }
                i += 1;
                continue;
            }
            b'\\' => {
                i += 1;
                let Some(&n) = data.get(i) else { break };
                if !n.is_ascii_alphabetic() {
                    i += 1;
                    match n {
                        b'\'' => {
                            let hex = data.get(i..i + 2).and_then(|h| std::str::from_utf8(h).ok());
                            i += 2;
                            if let Some(v) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                                if skip_chars > 0 {
                                    skip_chars -= 1;
                                } else if !g.skip {
                                    match g.dest {
                                        Dest::Body => pending.push(v),
                                        Dest::FontTable => font_cur.1.push(v as char),
                                        Dest::ColorTable => {}
                                    }
                                }
                            }
                        }
                        b'*' => {
                            g.skip = true;
                        }
                        b'\\' | b'{' | b'}' if !g.skip && g.dest == Dest::Body => {
                            pending.push(n);
                        }
                        b'~' if !g.skip && g.dest == Dest::Body => {
                            pending.push(0xa0);
                        }
                        b'\r' | b'\n' if !g.skip && g.dest == Dest::Body => {
                            flush(&mut doc, &mut pending, &g, decode);
                            end_para(&mut doc, &g);
                        }
                        _ => {}
                    }
                    first_in_group = false;
                    continue;
                }
                let start = i;
                while i < data.len() && data[i].is_ascii_alphabetic() {
                    i += 1;
                }
                let word = std::str::from_utf8(&data[start..i]).unwrap_or("");
                let nstart = i;
                if i < data.len() && (data[i] == b'-' || data[i].is_ascii_digit()) {
                    i += 1;
                    while i < data.len() && data[i].is_ascii_digit() {
                        i += 1;
                    }
                }
                let param: Option<i32> = std::str::from_utf8(&data[nstart..i])
                    .ok()
                    .and_then(|s| s.parse().ok());
                if i < data.len() && data[i] == b' ' {
                    i += 1;
                }
                let was_first = first_in_group;
                first_in_group = false;
                if g.dest == Dest::Body && !g.skip {
                    flush(&mut doc, &mut pending, &g, decode);
                }
                let on = param != Some(0);
                match word {
                    "fonttbl" => g.dest = Dest::FontTable,
                    "colortbl" => {
                        g.dest = Dest::ColorTable;
                        color_cur = (0, false);
                    }
                    "deff" => deff = param.unwrap_or(0),
                    "f" if g.dest == Dest::FontTable => font_cur.0 = param.unwrap_or(0),
                    "fcharset" if g.dest == Dest::FontTable => {
                        font_cur.2 = param.unwrap_or(0) as u8
                    }
                    "red" if g.dest == Dest::ColorTable => {
                        color_cur.0 =
                            (color_cur.0 & 0xff_ff00) | (param.unwrap_or(0) as u32 & 0xff);
                        color_cur.1 = true;
                    }
                    "green" if g.dest == Dest::ColorTable => {
                        color_cur.0 =
                            (color_cur.0 & 0xff_00ff) | (param.unwrap_or(0) as u32 & 0xff) << 8;
                        color_cur.1 = true;
                    }
                    "blue" if g.dest == Dest::ColorTable => {
                        color_cur.0 =
                            (color_cur.0 & 0x00_ffff) | (param.unwrap_or(0) as u32 & 0xff) << 16;
                        color_cur.1 = true;
                    }
                    // Destinations whose text is not part of the document.
                    "stylesheet" | "info" | "pict" | "object" | "header" | "footer" | "headerl"
                    | "headerr" | "footerl" | "footerr" | "footnote" | "generator"
                    | "listtable" | "listoverridetable" | "themedata" | "colorschememapping"
                    | "latentstyles" | "datastore" | "xmlnstbl" | "rsidtbl" | "mmathPr"
                    | "author" | "operator" | "title" | "comment" => g.skip = true,
                    _ if g.skip || g.dest != Dest::Body => {
                        let _ = was_first;
                    }
                    "par" => end_para(&mut doc, &g),
                    "line" => {
                        let f = doc.intern(&g.fmt);
                        doc.text.push('\u{b}');
                        doc.fmt.push(f);
                    }
                    "tab" => {
                        let f = doc.intern(&g.fmt);
                        doc.text.push('\t');
                        doc.fmt.push(f);
                    }
                    "pard" => g.para = ParaFmt::default(),
                    "plain" => {
                        let mut f = default.clone();
                        if let Some((face, cs)) = font_face(&fonts, deff) {
                            f.face = face;
                            f.charset = cs;
                        }
                        g.fmt = f;
                    }
                    "b" => g.fmt.bold = on,
                    "i" => g.fmt.italic = on,
                    "ul" => g.fmt.underline = on,
                    "ulnone" => g.fmt.underline = false,
                    "strike" => g.fmt.strike = on,
                    "fs" => g.fmt.size = param.unwrap_or(24) * 10,
                    "up" => g.fmt.offset = param.unwrap_or(6) * 10,
                    "dn" => g.fmt.offset = -param.unwrap_or(6) * 10,
                    "nosupersub" => g.fmt.offset = 0,
                    "cf" => {
                        g.fmt.color = colors.get(param.unwrap_or(0) as usize).copied().flatten()
                    }
                    "f" => {
                        if let Some((face, cs)) = font_face(&fonts, param.unwrap_or(0)) {
                            g.fmt.face = face;
                            g.fmt.charset = cs;
                        }
                    }
                    "ql" => g.para.align = PFA_LEFT,
                    "qr" => g.para.align = PFA_RIGHT,
                    "qc" => g.para.align = PFA_CENTER,
                    "qj" => g.para.align = PFA_JUSTIFY,
                    "li" => g.para.start = param.unwrap_or(0),
                    "ri" => g.para.right = param.unwrap_or(0),
                    "fi" => g.para.offset = param.unwrap_or(0),
                    "tx" => g.para.tabs.push(param.unwrap_or(0)),
                    "uc" => g.uc = param.unwrap_or(1).max(0) as usize,
                    "u" => {
                        let v = param.unwrap_or(0);
                        let v = if v < 0 { v + 65536 } else { v } as u32;
                        if let Some(ch) = char::from_u32(v) {
                            let f = doc.intern(&g.fmt);
                            doc.text.push(ch);
                            doc.fmt.push(f);
                        }
                        skip_chars = g.uc;
                    }
                    "emdash" => pending.extend(decode_fallback('\u{2014}')),
                    "endash" => pending.extend(decode_fallback('\u{2013}')),
                    "bullet" => pending.extend(decode_fallback('\u{2022}')),
                    _ => {}
                }
                if word == "deff"
                    && let Some((face, cs)) = font_face(&fonts, deff)
                {
                    g.fmt.face = face;
                    g.fmt.charset = cs;
                }
                continue;
            }
            b'\r' | b'\n' => {
                i += 1;
                continue;
            }
            _ => {
                i += 1;
                first_in_group = false;
                if skip_chars > 0 {
                    skip_chars -= 1;
                    continue;
                }
                if g.skip {
                    continue;
                }
                match g.dest {
                    Dest::Body => pending.push(c),
                    Dest::FontTable => {
                        if c == b';' {
                            let face = font_cur.1.trim().to_string();
                            fonts.push((font_cur.0, face, font_cur.2));
                            font_cur.1.clear();
                        } else {
                            font_cur.1.push(c as char);
                        }
                    }
                    Dest::ColorTable => {
                        if c == b';' {
                            colors.push(color_cur.1.then_some(color_cur.0));
                            color_cur = (0, false);
                        }
                    }
                }
            }
        }
        // Fonts named before \deff's table is read: apply the default font now.
        if g.dest == Dest::Body
            && stack.len() == 1
            && !fonts.is_empty()
            && doc.text.is_empty()
            && g.fmt.face == default.face
            && let Some((face, cs)) = font_face(&fonts, deff)
        {
            g.fmt.face = face;
            g.fmt.charset = cs;
        }
    }
    flush(&mut doc, &mut pending, &g, decode);
    // The last paragraph's format is the one in force at the end.
    if let Some(last) = doc.paras.last_mut() {
        *last = g.para.clone();
    }
    Some(doc)
}

/// A character the reader's ANSI decoder cannot produce from a byte: kept as a
/// '?' byte (the documents WordPad writes use \u for them).
fn decode_fallback(_c: char) -> Vec<u8> {
    vec![b'?']
}

fn end_para(doc: &mut Doc, g: &GroupState) {
    let f = doc.intern(&g.fmt);
    let last = doc.paras.len() - 1;
    doc.paras[last] = g.para.clone();
    doc.text.push('\r');
    doc.fmt.push(f);
    doc.paras.push(g.para.clone());
}

// ---- writer ------------------------------------------------------------------------

/// Characters a..b of `doc` as RTF; `encode` gives a character's ANSI byte, if it
/// has one.
pub fn write(doc: &Doc, a: usize, b: usize, encode: &dyn Fn(char) -> Option<u8>) -> Vec<u8> {
    let (a, b) = (a.min(doc.text.len()), b.min(doc.text.len()));
    let mut faces: Vec<(String, u8)> = Vec::new();
    let mut colors: Vec<u32> = Vec::new();
    for &f in &doc.fmt[a..b] {
        let cf = &doc.fmts[f];
        if !faces.iter().any(|x| x.0 == cf.face) {
            faces.push((cf.face.clone(), cf.charset));
        }
        if let Some(c) = cf.color
            && !colors.contains(&c)
        {
            colors.push(c);
        }
    }
    if faces.is_empty() {
        let d = doc.fmts.first().cloned().unwrap_or_default();
        faces.push((d.face, d.charset));
    }
    let mut out = String::from("{\\rtf1\\ansi\\deff0{\\fonttbl");
    for (k, (face, cs)) in faces.iter().enumerate() {
        out.push_str(&format!("{{\\f{k}\\fcharset{cs} {face};}}"));
    }
    out.push('}');
    if !colors.is_empty() {
        out.push_str("\r\n{\\colortbl ;");
        for c in &colors {
            out.push_str(&format!(
                "\\red{}\\green{}\\blue{};",
                c & 0xff,
                (c >> 8) & 0xff,
                (c >> 16) & 0xff
            ));
        }
        out.push('}');
    }
    out.push_str("\r\n");
    let mut cur: Option<&CharFmt> = None;
    let mut para_open = false;
    for i in a..b {
        if !para_open {
            let p = &doc.paras[doc.para_of(i).min(doc.paras.len() - 1)];
            out.push_str("\\pard");
            out.push_str(match p.align {
                PFA_RIGHT => "\\qr",
                PFA_CENTER => "\\qc",
                PFA_JUSTIFY => "\\qj",
                _ => "",
            });
            if p.start != 0 {
                out.push_str(&format!("\\li{}", p.start));
            }
            if p.right != 0 {
                out.push_str(&format!("\\ri{}", p.right));
            }
            if p.offset != 0 {
                out.push_str(&format!("\\fi{}", p.offset));
            }
            out.push(' ');
            para_open = true;
        }
        let f = &doc.fmts[doc.fmt[i]];
        if cur != Some(f) {
            let fi = faces.iter().position(|x| x.0 == f.face).unwrap_or(0);
            let ci = f
                .color
                .and_then(|c| colors.iter().position(|&x| x == c))
                .map_or(0, |k| k + 1);
            out.push_str(&format!(
                "\\plain\\f{fi}\\fs{}{}{}{}{}\\cf{ci} ",
                f.size / 10,
                if f.bold { "\\b" } else { "" },
                if f.italic { "\\i" } else { "" },
                if f.underline { "\\ul" } else { "" },
                if f.strike { "\\strike" } else { "" },
            ));
            cur = Some(f);
        }
        match doc.text[i] {
            '\r' => {
                out.push_str("\\par\r\n");
                para_open = false;
            }
            '\t' => out.push_str("\\tab "),
            '\u{b}' => out.push_str("\\line "),
            '\\' => out.push_str("\\\\"),
            '{' => out.push_str("\\{"),
            '}' => out.push_str("\\}"),
            c if (c as u32) < 0x80 => out.push(c),
            c => match encode(c) {
                Some(v) => out.push_str(&format!("\\'{v:02x}")),
                None => {
                    let v = c as u32;
                    if v <= 0xffff {
                        out.push_str(&format!("\\u{}?", v as u16 as i16));
                    } else {
                        let mut buf = [0u16; 2];
                        for u in c.encode_utf16(&mut buf) {
                            out.push_str(&format!("\\u{}?", *u as i16));
                        }
                    }
                }
            },
        }
    }
    out.push_str("}\r\n");
    out.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn latin1(b: &[u8]) -> String {
        b.iter().map(|&c| c as char).collect()
    }

    #[test]
    fn reads_wordpad_style_rtf() {
        let src = br"{\rtf1\ansi\deff0{\fonttbl{\f0\fswiss Arial;}{\f1 Times New Roman;}}
{\colortbl ;\red255\green0\blue0;}
{\*\generator Wine Riched20 2.0;}\pard\qc\f0\fs24 Hello \b bold\b0  \cf1 red\cf0\par
\pard\li720 {\i it}\'e9\u8364?x\par
}";
        let d = read(src, &CharFmt::default(), &latin1).expect("an RTF document");
        let text: String = d.text.iter().collect();
        // The space after \li720 ends the control word.
        assert_eq!(text, "Hello bold red\rit\u{e9}\u{20ac}x\r");
        assert_eq!(d.paras.len(), 3);
        assert_eq!(d.paras[0].align, PFA_CENTER);
        assert_eq!(d.paras[1].start, 720);
        let f = |i: usize| &d.fmts[d.fmt[i]];
        assert!(!f(0).bold && f(0).size == 240 && f(0).face == "Arial");
        assert!(f(6).bold);
        assert_eq!(f(11).color, Some(0xff));
        assert!(f(15).italic && f(16).italic);
        assert!(!f(17).italic);
    }

    #[test]
    fn written_rtf_reads_back() {
        let mut d = Doc::default();
        let bold = CharFmt {
            bold: true,
            color: Some(0x00ff00),
            ..Default::default()
        };
        let b = d.intern(&bold);
        d.replace(0, 0, &normalize("plain\r\nnext {x}"), 0);
        d.replace(0, 5, &normalize("BOLD"), b);
        d.paras[1].align = PFA_RIGHT;
        let rtf = write(&d, 0, d.text.len(), &|c| {
            (c as u32).lt(&256).then_some(c as u8)
        });
        let back = read(&rtf, &CharFmt::default(), &latin1).expect("reads back");
        assert_eq!(back.text, d.text);
        assert_eq!(back.fmts[back.fmt[0]], bold);
        assert_eq!(back.paras[1].align, PFA_RIGHT);
    }

    #[test]
    fn replace_keeps_paragraph_formats_in_step() {
        let mut d = Doc::default();
        d.replace(0, 0, &normalize("a\rb\rc"), 0);
        assert_eq!(d.paras.len(), 3);
        d.replace(2, 4, &[], 0);
        assert_eq!(d.text.iter().collect::<String>(), "a\rc");
        assert_eq!(d.paras.len(), 2);
        assert_eq!(d.crlf_text(0, 3), "a\r\nc");
    }
}
