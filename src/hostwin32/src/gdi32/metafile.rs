//! Windows metafiles (WMF) and enhanced metafiles (EMF): recording GDI calls made on
//! a metafile DC into records, and playing records back into a DC.
//!
//! A metafile DC is an ordinary DC table entry of kind [`DcKind::Meta`] (so attribute
//! calls such as SetMapMode and queries such as GetMapMode work on it) plus a
//! [`Recorder`]. The exported GDI functions that a metafile records are wrapped
//! ([`wrap`]): on a metafile DC the wrapper appends the record, then either lets the
//! function run on the DC's attributes (state calls) or answers for it (drawing calls,
//! which a metafile DC does not draw). Drawing that reaches a metafile DC by another
//! path finds no drawing target ([`super::dc::resolve`] gives None) and fails.
//!
//! Playback turns each record back into the call it came from, made through the same
//! exported functions with the arguments a program would pass (pointer arguments in a
//! scratch block of guest memory), so playing into another metafile DC records again.
//! Record types this module does not know are skipped with a warning naming them, as
//! Windows skips them.

use super::dc::{self, Dc, DcKind};
use super::objects::{self, Brush, Obj};
use super::surface::Rect;
use crate::hle::{
    ApiDef, ApiError, ApiResult, CStrPtr, Ctx, ExportKind, Outcome, Ptr, WStrPtr, stdcall,
};
use crate::process::Process;
use std::collections::HashMap;
use std::sync::OnceLock;

#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Kind {
    Wmf,
    Emf,
}

/// What a metafile DC has recorded so far.
pub struct Recorder {
    kind: Kind,
    /// The records after the header, without the end-of-file record.
    recs: Vec<u8>,
    nrec: u32,
    /// WMF: the largest record in words.
    max_record: u32,
    /// Object slots (WMF: from 0; EMF: from 1, slot 0 unused) holding GDI handles.
    objects: Vec<Option<u32>>,
    /// EMF: the device pixels drawn, inclusive.
    bounds: Option<Rect>,
    /// EMF: the picture frame given to CreateEnhMetaFile (.01 mm, inclusive).
    frame: Option<Rect>,
    desc: Vec<u16>,
    /// The file CreateMetaFile/CreateEnhMetaFile was given.
    file: Option<String>,
}

/// A finished metafile's bytes, as GetMetaFileBitsEx/GetEnhMetaFileBits return them.
pub enum MetaData {
    Wmf(Vec<u8>),
    Emf(Vec<u8>),
}

fn le16(v: &mut Vec<u8>, x: u16) {
    v.extend_from_slice(&x.to_le_bytes());
}
fn le32(v: &mut Vec<u8>, x: u32) {
    v.extend_from_slice(&x.to_le_bytes());
}
fn rd16(b: &[u8], at: usize) -> u16 {
    b.get(at..at + 2)
        .map_or(0, |s| u16::from_le_bytes([s[0], s[1]]))
}
fn rd32(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4)
        .map_or(0, |s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

impl Recorder {
    fn new(kind: Kind) -> Recorder {
        Recorder {
            kind,
            recs: Vec::new(),
            nrec: 0,
            max_record: 0,
            objects: if kind == Kind::Emf {
                vec![None]
            } else {
                Vec::new()
            },
            bounds: None,
            frame: None,
            desc: Vec::new(),
            file: None,
        }
    }

    fn wmf(&mut self, func: u16, params: &[u16]) {
        let words = 3 + params.len() as u32;
        le32(&mut self.recs, words);
        le16(&mut self.recs, func);
        for &p in params {
            le16(&mut self.recs, p);
        }
        self.nrec += 1;
        self.max_record = self.max_record.max(words);
    }

    fn emr(&mut self, typ: u32, body: &[u8]) {
        let mut b = body.to_vec();
        while !b.len().is_multiple_of(4) {
            b.push(0);
        }
        le32(&mut self.recs, typ);
        le32(&mut self.recs, 8 + b.len() as u32);
        self.recs.extend_from_slice(&b);
        self.nrec += 1;
    }

    fn emr32(&mut self, typ: u32, vals: &[i32]) {
        let mut b = Vec::new();
        for &v in vals {
            le32(&mut b, v as u32);
        }
        self.emr(typ, &b);
    }

    fn add_bounds(&mut self, r: Rect) {
        self.bounds = Some(match self.bounds {
            None => r,
            Some(b) => Rect::new(
                b.left.min(r.left),
                b.top.min(r.top),
                b.right.max(r.right),
                b.bottom.max(r.bottom),
            ),
        });
    }

    /// The slot of `h`, or None if it is not in the table.
    fn slot_of(&self, h: u32) -> Option<usize> {
        self.objects.iter().position(|&o| o == Some(h))
    }

    fn new_slot(&mut self, h: u32) -> usize {
        let first = if self.kind == Kind::Emf { 1 } else { 0 };
        match self.objects.iter().skip(first).position(|o| o.is_none()) {
            Some(i) => {
                self.objects[i + first] = Some(h);
                i + first
            }
            None => {
                self.objects.push(Some(h));
                self.objects.len() - 1
            }
        }
    }
}

// ---- WMF and EMF record numbers -------------------------------------------------------

const META_EOF: u16 = 0x0000;
const META_SAVEDC: u16 = 0x001E;
const META_SETBKCOLOR: u16 = 0x0201;
const META_SETBKMODE: u16 = 0x0102;
const META_SETMAPMODE: u16 = 0x0103;
const META_SETROP2: u16 = 0x0104;
const META_SETRELABS: u16 = 0x0105;
const META_SETPOLYFILLMODE: u16 = 0x0106;
const META_SETSTRETCHBLTMODE: u16 = 0x0107;
const META_SETTEXTCHAREXTRA: u16 = 0x0108;
const META_RESTOREDC: u16 = 0x0127;
const META_SELECTOBJECT: u16 = 0x012D;
const META_SETTEXTALIGN: u16 = 0x012E;
const META_DELETEOBJECT: u16 = 0x01F0;
const META_SETTEXTCOLOR: u16 = 0x0209;
const META_SETWINDOWORG: u16 = 0x020B;
const META_SETWINDOWEXT: u16 = 0x020C;
const META_SETVIEWPORTORG: u16 = 0x020D;
const META_SETVIEWPORTEXT: u16 = 0x020E;
const META_OFFSETWINDOWORG: u16 = 0x020F;
const META_OFFSETVIEWPORTORG: u16 = 0x0211;
const META_LINETO: u16 = 0x0213;
const META_MOVETO: u16 = 0x0214;
const META_OFFSETCLIPRGN: u16 = 0x0220;
const META_CREATEPENINDIRECT: u16 = 0x02FA;
const META_CREATEFONTINDIRECT: u16 = 0x02FB;
const META_CREATEBRUSHINDIRECT: u16 = 0x02FC;
const META_POLYGON: u16 = 0x0324;
const META_POLYLINE: u16 = 0x0325;
const META_SCALEWINDOWEXT: u16 = 0x0410;
const META_SCALEVIEWPORTEXT: u16 = 0x0412;
const META_EXCLUDECLIPRECT: u16 = 0x0415;
const META_INTERSECTCLIPRECT: u16 = 0x0416;
const META_ELLIPSE: u16 = 0x0418;
const META_RECTANGLE: u16 = 0x041B;
const META_SETPIXEL: u16 = 0x041F;
const META_TEXTOUT: u16 = 0x0521;
const META_POLYPOLYGON: u16 = 0x0538;
const META_ROUNDRECT: u16 = 0x061C;
const META_PATBLT: u16 = 0x061D;
const META_ARC: u16 = 0x0817;
const META_PIE: u16 = 0x081A;
const META_CHORD: u16 = 0x0830;
const META_EXTTEXTOUT: u16 = 0x0A32;

const EMR_HEADER: u32 = 1;
const EMR_POLYGON: u32 = 3;
const EMR_POLYLINE: u32 = 4;
const EMR_POLYPOLYGON: u32 = 8;
const EMR_SETWINDOWEXTEX: u32 = 9;
const EMR_SETWINDOWORGEX: u32 = 10;
const EMR_SETVIEWPORTEXTEX: u32 = 11;
const EMR_SETVIEWPORTORGEX: u32 = 12;
const EMR_EOF: u32 = 14;
const EMR_SETPIXELV: u32 = 15;
const EMR_SETMAPMODE: u32 = 17;
const EMR_SETBKMODE: u32 = 18;
const EMR_SETPOLYFILLMODE: u32 = 19;
const EMR_SETROP2: u32 = 20;
const EMR_SETSTRETCHBLTMODE: u32 = 21;
const EMR_SETTEXTALIGN: u32 = 22;
const EMR_SETTEXTCOLOR: u32 = 24;
const EMR_SETBKCOLOR: u32 = 25;
const EMR_MOVETOEX: u32 = 27;
const EMR_EXCLUDECLIPRECT: u32 = 29;
const EMR_INTERSECTCLIPRECT: u32 = 30;
const EMR_SCALEVIEWPORTEXTEX: u32 = 31;
const EMR_SCALEWINDOWEXTEX: u32 = 32;
const EMR_SAVEDC: u32 = 33;
const EMR_RESTOREDC: u32 = 34;
const EMR_SELECTOBJECT: u32 = 37;
const EMR_CREATEPEN: u32 = 38;
const EMR_CREATEBRUSHINDIRECT: u32 = 39;
const EMR_DELETEOBJECT: u32 = 40;
const EMR_ELLIPSE: u32 = 42;
const EMR_RECTANGLE: u32 = 43;
const EMR_ROUNDRECT: u32 = 44;
const EMR_ARC: u32 = 45;
const EMR_CHORD: u32 = 46;
const EMR_PIE: u32 = 47;
const EMR_LINETO: u32 = 54;
const EMR_BITBLT: u32 = 76;
const EMR_EXTCREATEFONTINDIRECTW: u32 = 82;
const EMR_EXTTEXTOUTW: u32 = 84;
const EMR_POLYGON16: u32 = 86;
const EMR_POLYLINE16: u32 = 87;
const EMR_POLYPOLYGON16: u32 = 91;

const ENHMETA_SIGNATURE: u32 = 0x464D_4520;
const ENHMETA_STOCK_OBJECT: u32 = 0x8000_0000;
const DT_METAFILE: u32 = 5;
const ETO_OPAQUE: u32 = 2;
const ETO_CLIPPED: u32 = 4;

// ---- recording ----------------------------------------------------------------------------

/// The exported functions a metafile records, and whether the function still runs on
/// the DC afterwards (attribute and state calls) or the record is all (drawing).
const RECORDED: &[(&str, bool)] = &[
    ("SetBkColor", true),
    ("SetTextColor", true),
    ("SetBkMode", true),
    ("SetMapMode", true),
    ("SetROP2", true),
    ("SetPolyFillMode", true),
    ("SetStretchBltMode", true),
    ("SetTextAlign", true),
    ("SetTextCharacterExtra", true),
    ("SetWindowOrgEx", true),
    ("SetWindowExtEx", true),
    ("SetViewportOrgEx", true),
    ("SetViewportExtEx", true),
    ("OffsetWindowOrgEx", true),
    ("OffsetViewportOrgEx", true),
    ("ScaleWindowExtEx", true),
    ("ScaleViewportExtEx", true),
    ("SaveDC", true),
    ("RestoreDC", true),
    ("IntersectClipRect", true),
    ("ExcludeClipRect", true),
    ("MoveToEx", true),
    ("SelectObject", true),
    ("DeleteObject", true),
    ("GetDeviceCaps", true),
    ("LineTo", false),
    ("Rectangle", false),
    ("Ellipse", false),
    ("RoundRect", false),
    ("Arc", false),
    ("Pie", false),
    ("Chord", false),
    ("SetPixel", false),
    ("SetPixelV", false),
    ("PatBlt", false),
    ("Polygon", false),
    ("Polyline", false),
    ("PolyPolygon", false),
    ("TextOutA", false),
    ("TextOutW", false),
    ("ExtTextOutA", false),
    ("ExtTextOutW", false),
    ("BitBlt", false),
    ("StretchBlt", false),
    ("StretchDIBits", false),
    ("SetDIBitsToDevice", false),
];

/// Wraps the recorded exports of `defs` so that calls on a metafile DC are recorded.
pub fn wrap(defs: Vec<ApiDef>) -> Vec<ApiDef> {
    defs.into_iter()
        .map(|d| {
            if !RECORDED.iter().any(|(n, _)| *n == d.name) {
                return d;
            }
            let name = d.name;
            match d.kind {
                ExportKind::Function { conv, nargs, glue } => ApiDef {
                    name,
                    ordinal: d.ordinal,
                    kind: ExportKind::Function {
                        conv,
                        nargs,
                        glue: Box::new(move |cx, st| {
                            if let Some(v) = intercept(name, cx, st)? {
                                return Ok(Outcome::Return(v as u64));
                            }
                            glue(cx, st)
                        }),
                    },
                },
                k => ApiDef {
                    name,
                    ordinal: d.ordinal,
                    kind: k,
                },
            }
        })
        .collect()
}

fn is_meta(proc: &Process, hdc: u32) -> bool {
    proc.gdi32.lock().meta_dcs.contains_key(&hdc)
}

/// Records `name`'s call if its DC is a metafile DC. Some(value): the call is done
/// (a drawing call, answered here); None: the function itself runs next.
fn intercept(name: &str, cx: &mut Ctx, st: &[u32]) -> ApiResult<Option<u32>> {
    let a = |i: usize| st.get(i).copied().unwrap_or(0);
    let i = |n: usize| a(n) as i32;
    if name == "DeleteObject" {
        record_delete(cx.proc, a(0));
        return Ok(None);
    }
    let hdc = a(0);
    if !is_meta(cx.proc, hdc) {
        return Ok(None);
    }
    if name == "GetDeviceCaps" {
        // TECHNOLOGY; the other capabilities are the reference device's.
        return Ok((i(1) == 2).then_some(DT_METAFILE));
    }
    if name == "SelectObject" {
        record_select(cx, hdc, a(1))?;
        return Ok(None);
    }
    let attrs = dc::with_attrs(cx.proc, hdc, |x| x.clone()).unwrap_or_default();
    let dev = |x: i32, y: i32| super::mapping::lp_to_dp(&attrs, x, y);
    let dev_rect = |l: i32, t: i32, r: i32, b: i32, incl: i32| {
        let (x0, y0) = dev(l, t);
        let (x1, y1) = dev(r, b);
        Rect::new(x0.min(x1), y0.min(y1), x0.max(x1) - incl, y0.max(y1) - incl)
    };
    let w = |v: i32| v as u16;
    let lo = |v: u32| v as u16;
    let hi = |v: u32| (v >> 16) as u16;
    // Points read from guest memory.
    let points = |p: u32, n: i32| -> ApiResult<Vec<(i32, i32)>> {
        let mut v = Vec::new();
        for k in 0..n.clamp(0, 1 << 16) as u32 {
            v.push((
                cx.proc.mem.read_u32(p + 8 * k)? as i32,
                cx.proc.mem.read_u32(p + 8 * k + 4)? as i32,
            ));
        }
        Ok(v)
    };
    let mut g = cx.proc.gdi32.lock();
    let kind = g.meta_dcs.get(&hdc).map(|r| r.kind).unwrap_or(Kind::Wmf);
    let emf = kind == Kind::Emf;
    // The text of the text calls, as the record wants it.
    let mut ret = 1u32;
    let mut pending: Option<Box<dyn FnOnce(&mut Recorder)>> = None;
    let simple16 = |func: u16, v: u32| -> Box<dyn FnOnce(&mut Recorder)> {
        Box::new(move |r: &mut Recorder| r.wmf(func, &[v as u16]))
    };
    let color = |func: u16, et: u32, v: u32| -> Box<dyn FnOnce(&mut Recorder)> {
        Box::new(move |r: &mut Recorder| {
            if r.kind == Kind::Emf {
                r.emr32(et, &[v as i32])
            } else {
                r.wmf(func, &[v as u16, (v >> 16) as u16])
            }
        })
    };
    let pair = |func: u16, et: u32, x: i32, y: i32| -> Box<dyn FnOnce(&mut Recorder)> {
        Box::new(move |r: &mut Recorder| {
            if r.kind == Kind::Emf {
                r.emr32(et, &[x, y])
            } else {
                r.wmf(func, &[y as u16, x as u16])
            }
        })
    };
    let rect4 =
        |func: u16, et: u32, l: i32, t: i32, rr: i32, b: i32| -> Box<dyn FnOnce(&mut Recorder)> {
            Box::new(move |r: &mut Recorder| {
                if r.kind == Kind::Emf {
                    r.emr32(et, &[l, t, rr, b])
                } else {
                    r.wmf(func, &[b as u16, rr as u16, t as u16, l as u16])
                }
            })
        };
    let mut bounds: Option<Rect> = None;
    match name {
        "SetBkColor" => pending = Some(color(META_SETBKCOLOR, EMR_SETBKCOLOR, a(1))),
        "SetTextColor" => pending = Some(color(META_SETTEXTCOLOR, EMR_SETTEXTCOLOR, a(1))),
        "SetBkMode"
        | "SetMapMode"
        | "SetROP2"
        | "SetPolyFillMode"
        | "SetStretchBltMode"
        | "SetTextCharacterExtra" => {
            let (func, et) = match name {
                "SetBkMode" => (META_SETBKMODE, EMR_SETBKMODE),
                "SetMapMode" => (META_SETMAPMODE, EMR_SETMAPMODE),
                "SetROP2" => (META_SETROP2, EMR_SETROP2),
                "SetPolyFillMode" => (META_SETPOLYFILLMODE, EMR_SETPOLYFILLMODE),
                "SetStretchBltMode" => (META_SETSTRETCHBLTMODE, EMR_SETSTRETCHBLTMODE),
                // No EMF record: the extra spacing is in the text records' advances.
                _ => (META_SETTEXTCHAREXTRA, 0),
            };
            let v = a(1);
            if emf {
                if et != 0 {
                    pending = Some(Box::new(move |r: &mut Recorder| r.emr32(et, &[v as i32])));
                }
            } else {
                pending = Some(simple16(func, v));
            }
        }
        "SetTextAlign" => {
            let v = a(1);
            pending = Some(Box::new(move |r: &mut Recorder| {
                if r.kind == Kind::Emf {
                    r.emr32(EMR_SETTEXTALIGN, &[v as i32])
                } else {
                    r.wmf(META_SETTEXTALIGN, &[v as u16, (v >> 16) as u16])
                }
            }))
        }
        "SetWindowOrgEx" => pending = Some(pair(META_SETWINDOWORG, EMR_SETWINDOWORGEX, i(1), i(2))),
        "SetWindowExtEx" => pending = Some(pair(META_SETWINDOWEXT, EMR_SETWINDOWEXTEX, i(1), i(2))),
        "SetViewportOrgEx" => {
            pending = Some(pair(META_SETVIEWPORTORG, EMR_SETVIEWPORTORGEX, i(1), i(2)))
        }
        "SetViewportExtEx" => {
            pending = Some(pair(META_SETVIEWPORTEXT, EMR_SETVIEWPORTEXTEX, i(1), i(2)))
        }
        // EMF has no offset records: the resulting origin is recorded.
        "OffsetWindowOrgEx" => {
            let (x, y) = (attrs.win_org.0 + i(1), attrs.win_org.1 + i(2));
            pending = Some(if emf {
                pair(0, EMR_SETWINDOWORGEX, x, y)
            } else {
                pair(META_OFFSETWINDOWORG, 0, i(1), i(2))
            })
        }
        "OffsetViewportOrgEx" => {
            let (x, y) = (attrs.vp_org.0 + i(1), attrs.vp_org.1 + i(2));
            pending = Some(if emf {
                pair(0, EMR_SETVIEWPORTORGEX, x, y)
            } else {
                pair(META_OFFSETVIEWPORTORG, 0, i(1), i(2))
            })
        }
        "ScaleWindowExtEx" | "ScaleViewportExtEx" => {
            let (func, et) = if name == "ScaleWindowExtEx" {
                (META_SCALEWINDOWEXT, EMR_SCALEWINDOWEXTEX)
            } else {
                (META_SCALEVIEWPORTEXT, EMR_SCALEVIEWPORTEXTEX)
            };
            let (xn, xd, yn, yd) = (i(1), i(2), i(3), i(4));
            pending = Some(Box::new(move |r: &mut Recorder| {
                if r.kind == Kind::Emf {
                    r.emr32(et, &[xn, xd, yn, yd])
                } else {
                    r.wmf(func, &[yd as u16, yn as u16, xd as u16, xn as u16])
                }
            }))
        }
        "SaveDC" => {
            pending = Some(Box::new(|r: &mut Recorder| {
                if r.kind == Kind::Emf {
                    r.emr32(EMR_SAVEDC, &[])
                } else {
                    r.wmf(META_SAVEDC, &[])
                }
            }))
        }
        "RestoreDC" => {
            let n = i(1);
            pending = Some(Box::new(move |r: &mut Recorder| {
                if r.kind == Kind::Emf {
                    r.emr32(EMR_RESTOREDC, &[n])
                } else {
                    r.wmf(META_RESTOREDC, &[n as u16])
                }
            }))
        }
        "IntersectClipRect" => {
            pending = Some(rect4(
                META_INTERSECTCLIPRECT,
                EMR_INTERSECTCLIPRECT,
                i(1),
                i(2),
                i(3),
                i(4),
            ))
        }
        "ExcludeClipRect" => {
            pending = Some(rect4(
                META_EXCLUDECLIPRECT,
                EMR_EXCLUDECLIPRECT,
                i(1),
                i(2),
                i(3),
                i(4),
            ))
        }
        "MoveToEx" => pending = Some(pair(META_MOVETO, EMR_MOVETOEX, i(1), i(2))),
        "LineTo" => {
            let (x0, y0) = dev(attrs.pos.0, attrs.pos.1);
            let (x1, y1) = dev(i(1), i(2));
            bounds = Some(Rect::new(x0.min(x1), y0.min(y1), x0.max(x1), y0.max(y1)));
            pending = Some(pair(META_LINETO, EMR_LINETO, i(1), i(2)));
        }
        "Rectangle" | "Ellipse" => {
            let (func, et) = if name == "Rectangle" {
                (META_RECTANGLE, EMR_RECTANGLE)
            } else {
                (META_ELLIPSE, EMR_ELLIPSE)
            };
            bounds = Some(dev_rect(i(1), i(2), i(3), i(4), 1));
            pending = Some(rect4(func, et, i(1), i(2), i(3), i(4)));
        }
        "RoundRect" => {
            bounds = Some(dev_rect(i(1), i(2), i(3), i(4), 1));
            let v: Vec<i32> = (1..=6).map(i).collect();
            pending = Some(Box::new(move |r: &mut Recorder| {
                if r.kind == Kind::Emf {
                    r.emr32(EMR_ROUNDRECT, &v)
                } else {
                    let p: Vec<u16> = v.iter().rev().map(|&x| x as u16).collect();
                    r.wmf(META_ROUNDRECT, &p)
                }
            }));
        }
        "Arc" | "Pie" | "Chord" => {
            let (func, et) = match name {
                "Arc" => (META_ARC, EMR_ARC),
                "Pie" => (META_PIE, EMR_PIE),
                _ => (META_CHORD, EMR_CHORD),
            };
            bounds = Some(dev_rect(i(1), i(2), i(3), i(4), 1));
            let v: Vec<i32> = (1..=8).map(i).collect();
            pending = Some(Box::new(move |r: &mut Recorder| {
                if r.kind == Kind::Emf {
                    r.emr32(et, &v)
                } else {
                    let p: Vec<u16> = v.iter().rev().map(|&x| x as u16).collect();
                    r.wmf(func, &p)
                }
            }));
        }
        "SetPixel" | "SetPixelV" => {
            let (x, y, c) = (i(1), i(2), a(3));
            let (dx, dy) = dev(x, y);
            bounds = Some(Rect::new(dx, dy, dx, dy));
            ret = if name == "SetPixel" { c & 0xff_ffff } else { 1 };
            pending = Some(Box::new(move |r: &mut Recorder| {
                if r.kind == Kind::Emf {
                    r.emr32(EMR_SETPIXELV, &[x, y, c as i32])
                } else {
                    r.wmf(
                        META_SETPIXEL,
                        &[c as u16, (c >> 16) as u16, y as u16, x as u16],
                    )
                }
            }));
        }
        "PatBlt" => {
            let (x, y, cw, ch, rop) = (i(1), i(2), i(3), i(4), a(5));
            bounds = Some(dev_rect(x, y, x + cw, y + ch, 1));
            let bb = bounds.unwrap_or_default();
            pending = Some(Box::new(move |r: &mut Recorder| {
                if r.kind == Kind::Emf {
                    // EMR_BITBLT without a source: bounds, destination, ROP, then an
                    // empty source description.
                    let mut v = vec![bb.left, bb.top, bb.right, bb.bottom, x, y, cw, ch];
                    v.push(rop as i32);
                    v.extend_from_slice(&[0, 0]);
                    let mut b = Vec::new();
                    for k in v {
                        le32(&mut b, k as u32);
                    }
                    for f in [1.0f32, 0.0, 0.0, 1.0, 0.0, 0.0] {
                        le32(&mut b, f.to_bits());
                    }
                    for k in [0u32; 6] {
                        le32(&mut b, k);
                    }
                    r.emr(EMR_BITBLT, &b);
                } else {
                    r.wmf(META_PATBLT, &[lo(rop), hi(rop), w(ch), w(cw), w(y), w(x)])
                }
            }));
        }
        "Polygon" | "Polyline" => {
            drop(g);
            let pts = points(a(1), i(2))?;
            g = cx.proc.gdi32.lock();
            bounds = pts_bounds(&pts, &dev);
            let (func, e16, e32) = if name == "Polygon" {
                (META_POLYGON, EMR_POLYGON16, EMR_POLYGON)
            } else {
                (META_POLYLINE, EMR_POLYLINE16, EMR_POLYLINE)
            };
            let bb = bounds.unwrap_or_default();
            pending = Some(Box::new(move |r: &mut Recorder| {
                if r.kind == Kind::Emf {
                    r.emr(if fits16(&pts) { e16 } else { e32 }, &emf_poly(bb, &[pts]));
                } else {
                    let mut p = vec![pts.len() as u16];
                    for (x, y) in pts {
                        p.extend_from_slice(&[x as u16, y as u16]);
                    }
                    r.wmf(func, &p)
                }
            }));
        }
        "PolyPolygon" => {
            drop(g);
            let mut polys = Vec::new();
            let mut at = a(1);
            for k in 0..i(3).clamp(0, 1 << 12) as u32 {
                let n = cx.proc.mem.read_u32(a(2) + 4 * k)? as i32;
                polys.push(points(at, n)?);
                at = at.wrapping_add(8 * n.max(0) as u32);
            }
            g = cx.proc.gdi32.lock();
            let all: Vec<(i32, i32)> = polys.iter().flatten().copied().collect();
            bounds = pts_bounds(&all, &dev);
            let bb = bounds.unwrap_or_default();
            pending = Some(Box::new(move |r: &mut Recorder| {
                if r.kind == Kind::Emf {
                    let typ = if fits16(&all) {
                        EMR_POLYPOLYGON16
                    } else {
                        EMR_POLYPOLYGON
                    };
                    r.emr(typ, &emf_poly(bb, &polys));
                } else {
                    let mut p = vec![polys.len() as u16];
                    p.extend(polys.iter().map(|q| q.len() as u16));
                    for (x, y) in all {
                        p.extend_from_slice(&[x as u16, y as u16]);
                    }
                    r.wmf(META_POLYPOLYGON, &p)
                }
            }));
        }
        "TextOutA" | "TextOutW" | "ExtTextOutA" | "ExtTextOutW" => {
            drop(g);
            let ext = name.starts_with("Ext");
            let wide = name.ends_with('W');
            let (x, y) = (i(1), i(2));
            let (opts, rect, sp, n, dxp) = if ext {
                (a(3), a(4), a(5), i(6), a(7))
            } else {
                (0, 0, a(3), i(4), 0)
            };
            let n = n.clamp(0, 1 << 16) as u32;
            let mut units = Vec::new();
            for k in 0..n {
                units.push(if wide {
                    cx.proc.mem.read_u16(sp + 2 * k)?
                } else {
                    cx.proc.mem.read_u8(sp + k)? as u16
                });
            }
            let rc = if rect != 0 && opts & (ETO_OPAQUE | ETO_CLIPPED) != 0 {
                Some(super::paint::read_rect(cx.proc, rect)?)
            } else {
                None
            };
            let mut dx = Vec::new();
            if dxp != 0 {
                for k in 0..n {
                    dx.push(cx.proc.mem.read_u32(dxp + 4 * k)? as i32);
                }
            }
            g = cx.proc.gdi32.lock();
            let (dx0, dy0) = dev(x, y);
            bounds = Some(Rect::new(dx0, dy0, dx0, dy0));
            pending = Some(Box::new(move |r: &mut Recorder| {
                record_text(r, x, y, opts, rc, &units, wide, &dx)
            }));
        }
        "BitBlt" | "StretchBlt" | "StretchDIBits" | "SetDIBitsToDevice" => {
            return Err(ApiError::UnimplementedCase(format!(
                "{name} on a metafile DC (bitmap records)"
            )));
        }
        _ => {}
    }
    if let Some(rec) = g.meta_dcs.get_mut(&hdc) {
        if let Some(f) = pending {
            f(rec);
        }
        if let Some(b) = bounds {
            rec.add_bounds(b);
        }
    }
    drop(g);
    let passes = RECORDED.iter().any(|(n, p)| *n == name && *p);
    if passes {
        return Ok(None);
    }
    if name == "LineTo" {
        dc::with_attrs(cx.proc, hdc, |x| x.pos = (i(1), i(2)));
    }
    Ok(Some(ret))
}

fn fits16(pts: &[(i32, i32)]) -> bool {
    pts.iter()
        .all(|&(x, y)| i16::try_from(x).is_ok() && i16::try_from(y).is_ok())
}

fn pts_bounds(pts: &[(i32, i32)], dev: &dyn Fn(i32, i32) -> (i32, i32)) -> Option<Rect> {
    let d: Vec<(i32, i32)> = pts.iter().map(|&(x, y)| dev(x, y)).collect();
    let minx = d.iter().map(|p| p.0).min()?;
    let miny = d.iter().map(|p| p.1).min()?;
    let maxx = d.iter().map(|p| p.0).max()?;
    let maxy = d.iter().map(|p| p.1).max()?;
    Some(Rect::new(minx, miny, maxx, maxy))
}

/// The body of an EMF polygon record: bounds, (polygon count and counts for the
/// poly-polygon forms), point count, points (16-bit if they fit).
fn emf_poly(bb: Rect, polys: &[Vec<(i32, i32)>]) -> Vec<u8> {
    let mut b = Vec::new();
    for v in [bb.left, bb.top, bb.right, bb.bottom] {
        le32(&mut b, v as u32);
    }
    let all: Vec<(i32, i32)> = polys.iter().flatten().copied().collect();
    if polys.len() > 1 || polys.is_empty() {
        le32(&mut b, polys.len() as u32);
        le32(&mut b, all.len() as u32);
        for p in polys {
            le32(&mut b, p.len() as u32);
        }
    } else {
        le32(&mut b, all.len() as u32);
    }
    let small = fits16(&all);
    for (x, y) in all {
        if small {
            le16(&mut b, x as u16);
            le16(&mut b, y as u16);
        } else {
            le32(&mut b, x as u32);
            le32(&mut b, y as u32);
        }
    }
    b
}

fn record_text(
    r: &mut Recorder,
    x: i32,
    y: i32,
    opts: u32,
    rc: Option<Rect>,
    units: &[u16],
    wide: bool,
    dx: &[i32],
) {
    if r.kind == Kind::Emf {
        // EMR_EXTTEXTOUTW: bounds, graphics mode, scales, then the EMRTEXT.
        let mut b = Vec::new();
        for v in [0i32, 0, -1, -1] {
            le32(&mut b, v as u32);
        }
        le32(&mut b, 1); // GM_COMPATIBLE
        le32(&mut b, 0f32.to_bits());
        le32(&mut b, 0f32.to_bits());
        let text_off = 8 + 36 + 40;
        let str_bytes = (units.len() * 2).div_ceil(4) * 4;
        le32(&mut b, x as u32);
        le32(&mut b, y as u32);
        le32(&mut b, units.len() as u32);
        le32(&mut b, text_off as u32);
        le32(&mut b, opts);
        let rr = rc.unwrap_or_default();
        for v in [rr.left, rr.top, rr.right, rr.bottom] {
            le32(&mut b, v as u32);
        }
        le32(
            &mut b,
            if dx.is_empty() {
                0
            } else {
                (text_off + str_bytes) as u32
            },
        );
        for &u in units {
            le16(&mut b, if wide { u } else { latin1(u) });
        }
        while b.len() + 8 < text_off + str_bytes {
            b.push(0);
        }
        for &d in dx {
            le32(&mut b, d as u32);
        }
        r.emr(EMR_EXTTEXTOUTW, &b);
        return;
    }
    // WMF strings are 8-bit; a wide string keeps the low byte of each character.
    let bytes: Vec<u8> = units.iter().map(|&u| u as u8).collect();
    let mut s: Vec<u16> = bytes
        .chunks(2)
        .map(|c| c[0] as u16 | (*c.get(1).unwrap_or(&0) as u16) << 8)
        .collect();
    if opts == 0 && rc.is_none() && dx.is_empty() {
        let mut p = vec![units.len() as u16];
        p.append(&mut s);
        p.extend_from_slice(&[y as u16, x as u16]);
        r.wmf(META_TEXTOUT, &p);
    } else {
        let mut p = vec![y as u16, x as u16, units.len() as u16, opts as u16];
        if let Some(rr) = rc {
            p.extend_from_slice(&[
                rr.left as u16,
                rr.top as u16,
                rr.right as u16,
                rr.bottom as u16,
            ]);
        }
        p.append(&mut s);
        p.extend(dx.iter().map(|&d| d as u16));
        r.wmf(META_EXTTEXTOUT, &p);
    }
}

fn latin1(u: u16) -> u16 {
    u & 0xff
}

/// SelectObject on a metafile DC: the object's creation record the first time the
/// metafile sees it, then the selection.
fn record_select(cx: &mut Ctx, hdc: u32, h: u32) -> ApiResult<()> {
    let mut g = cx.proc.gdi32.lock();
    let Some(obj) = g.objs.get(&h) else {
        return Ok(());
    };
    let kind = g.meta_dcs.get(&hdc).map(|r| r.kind);
    let Some(kind) = kind else {
        return Ok(());
    };
    // Creation record parameters.
    enum Make {
        Pen(objects::Pen),
        Brush(u32, u32, u32),
        Font(objects::LogFont),
        Skip,
    }
    let make = match obj {
        Obj::Pen(p) => Make::Pen(p.clone()),
        Obj::Brush(Brush::Solid(c)) => Make::Brush(objects::BS_SOLID, *c, 0),
        Obj::Brush(Brush::Null) => Make::Brush(objects::BS_NULL, 0, 0),
        Obj::Brush(Brush::Hatch { style, color }) => {
            Make::Brush(objects::BS_HATCHED, *color, *style)
        }
        Obj::Font(f) => Make::Font(f.clone()),
        // A metafile keeps no bitmaps or regions as objects.
        Obj::Bitmap(_) | Obj::Region(_) => Make::Skip,
        Obj::Brush(Brush::Pattern(_)) | Obj::Palette(_) => {
            return Err(ApiError::UnimplementedCase(
                "SelectObject of a pattern brush or palette into a metafile DC".into(),
            ));
        }
    };
    if matches!(make, Make::Skip) {
        return Ok(());
    }
    let stock_index = (kind == Kind::Emf && objects::is_stock(h))
        .then(|| (h - objects::stock(0)) / 4)
        .filter(|&i| i <= 19);
    let Some(rec) = g.meta_dcs.get_mut(&hdc) else {
        return Ok(());
    };
    if let Some(si) = stock_index {
        rec.emr32(EMR_SELECTOBJECT, &[(ENHMETA_STOCK_OBJECT | si) as i32]);
        return Ok(());
    }
    let slot = match rec.slot_of(h) {
        Some(s) => s,
        None => {
            let s = rec.new_slot(h);
            match (&make, kind) {
                (Make::Pen(p), Kind::Wmf) => rec.wmf(
                    META_CREATEPENINDIRECT,
                    &[
                        p.style as u16,
                        p.width as u16,
                        0,
                        p.color as u16,
                        (p.color >> 16) as u16,
                    ],
                ),
                (Make::Pen(p), Kind::Emf) => rec.emr32(
                    EMR_CREATEPEN,
                    &[s as i32, p.style as i32, p.width, 0, p.color as i32],
                ),
                (Make::Brush(st, c, ht), Kind::Wmf) => rec.wmf(
                    META_CREATEBRUSHINDIRECT,
                    &[*st as u16, *c as u16, (*c >> 16) as u16, *ht as u16],
                ),
                (Make::Brush(st, c, ht), Kind::Emf) => rec.emr32(
                    EMR_CREATEBRUSHINDIRECT,
                    &[s as i32, *st as i32, *c as i32, *ht as i32],
                ),
                (Make::Font(f), Kind::Wmf) => rec.wmf(META_CREATEFONTINDIRECT, &logfont16(f)),
                (Make::Font(f), Kind::Emf) => {
                    let mut b = Vec::new();
                    le32(&mut b, s as u32);
                    b.extend_from_slice(&logfont_w(f));
                    // The ENUMLOGFONTEXDV tail (full name, style, script, design
                    // vector) is left empty.
                    b.resize(b.len() + 64 * 2 + 32 * 2 + 32 * 2 + 8, 0);
                    rec.emr(EMR_EXTCREATEFONTINDIRECTW, &b)
                }
                (Make::Skip, _) => {}
            }
            s
        }
    };
    if kind == Kind::Emf {
        rec.emr32(EMR_SELECTOBJECT, &[slot as i32]);
    } else {
        rec.wmf(META_SELECTOBJECT, &[slot as u16]);
    }
    Ok(())
}

fn logfont16(f: &objects::LogFont) -> Vec<u16> {
    let mut b = Vec::new();
    for v in [f.height, f.width, f.escapement, f.orientation, f.weight] {
        le16(&mut b, v as u16);
    }
    b.extend_from_slice(&[
        f.italic,
        f.underline,
        f.strikeout,
        f.charset,
        f.out_precision,
        f.clip_precision,
        f.quality,
        f.pitch_and_family,
    ]);
    let mut face: Vec<u8> = f.face.bytes().take(31).collect();
    face.resize(32, 0);
    b.extend_from_slice(&face);
    b.chunks(2)
        .map(|c| c[0] as u16 | (c[1] as u16) << 8)
        .collect()
}

fn logfont_w(f: &objects::LogFont) -> Vec<u8> {
    let mut b = Vec::new();
    for v in [f.height, f.width, f.escapement, f.orientation, f.weight] {
        le32(&mut b, v as u32);
    }
    b.extend_from_slice(&[
        f.italic,
        f.underline,
        f.strikeout,
        f.charset,
        f.out_precision,
        f.clip_precision,
        f.quality,
        f.pitch_and_family,
    ]);
    let mut n = 0;
    for u in f.face.encode_utf16().take(31) {
        le16(&mut b, u);
        n += 1;
    }
    for _ in n..32 {
        le16(&mut b, 0);
    }
    b
}

/// DeleteObject of an object that metafiles hold: each records the deletion and
/// frees the slot.
fn record_delete(proc: &Process, h: u32) {
    let mut g = proc.gdi32.lock();
    for rec in g.meta_dcs.values_mut() {
        if let Some(s) = rec.slot_of(h) {
            rec.objects[s] = None;
            if rec.kind == Kind::Emf {
                rec.emr32(EMR_DELETEOBJECT, &[s as i32]);
            } else {
                rec.wmf(META_DELETEOBJECT, &[s as u16]);
            }
        }
    }
}

// ---- metafile DCs ----------------------------------------------------------------------------

fn new_meta_dc(proc: &Process, rec: Recorder) -> u32 {
    let mut g = proc.gdi32.lock();
    let h = g.alloc_handle();
    g.dcs.insert(h, Dc::new(DcKind::Meta));
    g.meta_dcs.insert(h, rec);
    h
}

fn opt_str(proc: &Process, p: u32, wide: bool) -> ApiResult<Option<String>> {
    if p == 0 {
        return Ok(None);
    }
    Ok(Some(if wide {
        crate::kernel32::string::read_wstr(proc, p)?
    } else {
        crate::kernel32::string::read_ansi(proc, p)?
    }))
}

fn create_meta(cx: &mut Ctx, file: Option<String>) -> ApiResult<u32> {
    let mut r = Recorder::new(Kind::Wmf);
    if file.is_some() {
        return Err(ApiError::UnimplementedCase(
            "CreateMetaFile into a disk file (only memory metafiles)".into(),
        ));
    }
    r.file = file;
    Ok(new_meta_dc(cx.proc, r))
}

pub fn CreateMetaFileA(cx: &mut Ctx, pszFile: CStrPtr) -> ApiResult<u32> {
    let f = opt_str(cx.proc, pszFile.0, false)?;
    create_meta(cx, f)
}

pub fn CreateMetaFileW(cx: &mut Ctx, pszFile: WStrPtr) -> ApiResult<u32> {
    let f = opt_str(cx.proc, pszFile.0, true)?;
    create_meta(cx, f)
}

/// Ends recording: the DC goes away and its records become a metafile.
fn close_dc(proc: &Process, hdc: u32, kind: Kind) -> Option<Recorder> {
    let mut g = proc.gdi32.lock();
    if g.meta_dcs.get(&hdc).map(|r| r.kind) != Some(kind) {
        return None;
    }
    g.dcs.remove(&hdc);
    g.meta_dcs.remove(&hdc)
}

fn wmf_bytes(r: &Recorder) -> Vec<u8> {
    let total_words = 9 + r.recs.len() as u32 / 2 + 3;
    let mut b = Vec::with_capacity(total_words as usize * 2);
    le16(&mut b, 1); // memory metafile
    le16(&mut b, 9);
    le16(&mut b, 0x300);
    le32(&mut b, total_words);
    le16(&mut b, r.objects.len() as u16);
    le32(&mut b, r.max_record.max(3));
    le16(&mut b, 0);
    b.extend_from_slice(&r.recs);
    le32(&mut b, 3);
    le16(&mut b, META_EOF);
    b
}

fn add_metafile(proc: &Process, m: MetaData) -> u32 {
    let mut g = proc.gdi32.lock();
    let h = g.alloc_handle();
    g.metafiles.insert(h, m);
    h
}

pub fn CloseMetaFile(cx: &mut Ctx, hdc: u32) -> u32 {
    match close_dc(cx.proc, hdc, Kind::Wmf) {
        Some(r) => add_metafile(cx.proc, MetaData::Wmf(wmf_bytes(&r))),
        None => 0,
    }
}

fn wmf_of(proc: &Process, h: u32) -> Option<Vec<u8>> {
    match proc.gdi32.lock().metafiles.get(&h) {
        Some(MetaData::Wmf(b)) => Some(b.clone()),
        _ => None,
    }
}

fn emf_of(proc: &Process, h: u32) -> Option<Vec<u8>> {
    match proc.gdi32.lock().metafiles.get(&h) {
        Some(MetaData::Emf(b)) => Some(b.clone()),
        _ => None,
    }
}

/// Copies `data` to a caller's buffer of `size` bytes: the size needed if the buffer is
/// NULL, else the bytes copied (0 if it is too small).
fn copy_out(proc: &Process, data: &[u8], size: u32, p: u32) -> ApiResult<u32> {
    if p == 0 {
        return Ok(data.len() as u32);
    }
    if (size as usize) < data.len() {
        return Ok(0);
    }
    proc.mem.write_bytes(p, data)?;
    Ok(data.len() as u32)
}

pub fn GetMetaFileBitsEx(cx: &mut Ctx, hMF: u32, cbBuffer: u32, lpData: Ptr) -> ApiResult<u32> {
    match wmf_of(cx.proc, hMF) {
        Some(b) => copy_out(cx.proc, &b, cbBuffer, lpData.0),
        None => Ok(0),
    }
}

/// Checks a WMF header: type 1 or 2, 9-word header.
fn valid_wmf(b: &[u8]) -> bool {
    b.len() >= 18 && matches!(rd16(b, 0), 1 | 2) && rd16(b, 2) == 9
}

pub fn SetMetaFileBitsEx(cx: &mut Ctx, cbBuffer: u32, lpData: Ptr) -> ApiResult<u32> {
    let mut b = vec![0u8; cbBuffer.min(1 << 26) as usize];
    cx.proc.mem.read_bytes(lpData.0, &mut b)?;
    if !valid_wmf(&b) {
        return Ok(0);
    }
    Ok(add_metafile(cx.proc, MetaData::Wmf(b)))
}

pub fn CopyMetaFileA(cx: &mut Ctx, hmf: u32, file: CStrPtr) -> ApiResult<u32> {
    if file.0 != 0 {
        return Err(ApiError::UnimplementedCase(
            "CopyMetaFile to a disk file".into(),
        ));
    }
    Ok(match wmf_of(cx.proc, hmf) {
        Some(b) => add_metafile(cx.proc, MetaData::Wmf(b)),
        None => 0,
    })
}

pub fn DeleteMetaFile(cx: &mut Ctx, hmf: u32) -> bool {
    let mut g = cx.proc.gdi32.lock();
    match g.metafiles.get(&hmf) {
        Some(MetaData::Wmf(_)) => g.metafiles.remove(&hmf).is_some(),
        _ => false,
    }
}

// ---- playback -------------------------------------------------------------------------------

/// The exported functions by name (wrapped, so playing into a metafile DC records).
fn api(name: &str) -> Option<&'static ApiDef> {
    static MAP: OnceLock<HashMap<&'static str, ApiDef>> = OnceLock::new();
    MAP.get_or_init(|| super::exports().into_iter().map(|d| (d.name, d)).collect())
        .get(name)
}

fn run(cx: &mut Ctx, name: &str, args: &[u32]) -> ApiResult<()> {
    call(cx, name, args).map(|_| ())
}

fn call(cx: &mut Ctx, name: &str, args: &[u32]) -> ApiResult<u32> {
    let d = api(name).ok_or_else(|| ApiError::Other(format!("metafile playback: no {name}")))?;
    match d.call(cx, args)? {
        Outcome::Return(v) => Ok(v as u32),
        o => Err(ApiError::Other(format!(
            "metafile playback: {name} ended with {o:?}"
        ))),
    }
}

/// Guest memory for the pointer arguments of played records.
struct Scratch {
    base: u32,
    size: u32,
}

impl Scratch {
    fn new(proc: &Process, size: u32) -> ApiResult<Scratch> {
        let size = (size + 0xfff) & !0xfff;
        let base = proc
            .vm
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .alloc(None, size, winterp_core::mem::Prot::RW, "metafile playback")
            .map_err(|e| ApiError::Other(format!("metafile playback: {e}")))?;
        Ok(Scratch { base, size })
    }

    fn put(&self, proc: &Process, at: u32, b: &[u8]) -> ApiResult<u32> {
        if at as usize + b.len() > self.size as usize {
            return Err(ApiError::Other(
                "metafile record larger than its scratch".into(),
            ));
        }
        proc.mem.write_bytes(self.base + at, b)?;
        Ok(self.base + at)
    }

    fn free(self, proc: &Process) {
        let _ = proc
            .vm
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .release(self.base);
    }
}

fn pts_bytes(pts: &[(i32, i32)]) -> Vec<u8> {
    let mut b = Vec::new();
    for &(x, y) in pts {
        le32(&mut b, x as u32);
        le32(&mut b, y as u32);
    }
    b
}

/// Plays one WMF record (function and parameter words) into `hdc` with object table
/// `table`.
fn play_wmf_record(
    cx: &mut Ctx,
    hdc: u32,
    table: &mut [u32],
    func: u16,
    p: &[u16],
    sc: &Scratch,
) -> ApiResult<()> {
    let s = |i: usize| p.get(i).copied().unwrap_or(0) as i16 as i32 as u32;
    let u = |i: usize| p.get(i).copied().unwrap_or(0) as u32;
    let dw = |i: usize| u(i) | u(i + 1) << 16;
    match func {
        META_SETBKCOLOR => run(cx, "SetBkColor", &[hdc, dw(0)])?,
        META_SETTEXTCOLOR => run(cx, "SetTextColor", &[hdc, dw(0)])?,
        META_SETBKMODE => run(cx, "SetBkMode", &[hdc, u(0)])?,
        META_SETMAPMODE => run(cx, "SetMapMode", &[hdc, u(0)])?,
        META_SETROP2 => run(cx, "SetROP2", &[hdc, u(0)])?,
        META_SETPOLYFILLMODE => run(cx, "SetPolyFillMode", &[hdc, u(0)])?,
        META_SETSTRETCHBLTMODE => run(cx, "SetStretchBltMode", &[hdc, u(0)])?,
        META_SETTEXTCHAREXTRA => run(cx, "SetTextCharacterExtra", &[hdc, s(0)])?,
        META_SETTEXTALIGN => run(cx, "SetTextAlign", &[hdc, u(0)])?,
        // Relative/absolute coordinates: Windows ignores the setting.
        META_SETRELABS => {}
        META_SETWINDOWORG => run(cx, "SetWindowOrgEx", &[hdc, s(1), s(0), 0])?,
        META_SETWINDOWEXT => run(cx, "SetWindowExtEx", &[hdc, s(1), s(0), 0])?,
        META_SETVIEWPORTORG => run(cx, "SetViewportOrgEx", &[hdc, s(1), s(0), 0])?,
        META_SETVIEWPORTEXT => run(cx, "SetViewportExtEx", &[hdc, s(1), s(0), 0])?,
        META_OFFSETWINDOWORG => run(cx, "OffsetWindowOrgEx", &[hdc, s(1), s(0), 0])?,
        META_OFFSETVIEWPORTORG => run(cx, "OffsetViewportOrgEx", &[hdc, s(1), s(0), 0])?,
        META_SCALEWINDOWEXT => run(cx, "ScaleWindowExtEx", &[hdc, s(3), s(2), s(1), s(0), 0])?,
        META_SCALEVIEWPORTEXT => run(cx, "ScaleViewportExtEx", &[hdc, s(3), s(2), s(1), s(0), 0])?,
        META_SAVEDC => run(cx, "SaveDC", &[hdc])?,
        META_RESTOREDC => run(cx, "RestoreDC", &[hdc, s(0)])?,
        META_INTERSECTCLIPRECT => run(cx, "IntersectClipRect", &[hdc, s(3), s(2), s(1), s(0)])?,
        META_EXCLUDECLIPRECT => run(cx, "ExcludeClipRect", &[hdc, s(3), s(2), s(1), s(0)])?,
        META_OFFSETCLIPRGN => run(cx, "OffsetClipRgn", &[hdc, s(1), s(0)])?,
        META_MOVETO => run(cx, "MoveToEx", &[hdc, s(1), s(0), 0])?,
        META_LINETO => run(cx, "LineTo", &[hdc, s(1), s(0)])?,
        META_RECTANGLE => run(cx, "Rectangle", &[hdc, s(3), s(2), s(1), s(0)])?,
        META_ELLIPSE => run(cx, "Ellipse", &[hdc, s(3), s(2), s(1), s(0)])?,
        META_ROUNDRECT => run(cx, "RoundRect", &[hdc, s(5), s(4), s(3), s(2), s(1), s(0)])?,
        META_ARC | META_PIE | META_CHORD => {
            let name = match func {
                META_ARC => "Arc",
                META_PIE => "Pie",
                _ => "Chord",
            };
            let mut a = vec![hdc];
            a.extend((0..8).rev().map(s));
            call(cx, name, &a)?;
        }
        META_SETPIXEL => run(cx, "SetPixelV", &[hdc, s(3), s(2), dw(0)])?,
        META_PATBLT => run(cx, "PatBlt", &[hdc, s(5), s(4), s(3), s(2), dw(0)])?,
        META_POLYGON | META_POLYLINE => {
            let n = u(0) as usize;
            let pts: Vec<(i32, i32)> = (0..n)
                .map(|k| (s(1 + 2 * k) as i32, s(2 + 2 * k) as i32))
                .collect();
            let at = sc.put(cx.proc, 0, &pts_bytes(&pts))?;
            let name = if func == META_POLYGON {
                "Polygon"
            } else {
                "Polyline"
            };
            call(cx, name, &[hdc, at, n as u32])?;
        }
        META_POLYPOLYGON => {
            let np = u(0) as usize;
            let counts: Vec<u32> = (0..np).map(|k| u(1 + k)).collect();
            let total: usize = counts.iter().map(|&c| c as usize).sum();
            let base = 1 + np;
            let pts: Vec<(i32, i32)> = (0..total)
                .map(|k| (s(base + 2 * k) as i32, s(base + 2 * k + 1) as i32))
                .collect();
            let pb = pts_bytes(&pts);
            let at = sc.put(cx.proc, 0, &pb)?;
            let mut cb = Vec::new();
            for c in &counts {
                le32(&mut cb, *c);
            }
            let ca = sc.put(cx.proc, pb.len() as u32, &cb)?;
            call(cx, "PolyPolygon", &[hdc, at, ca, np as u32])?;
        }
        META_TEXTOUT => {
            let n = u(0) as usize;
            let words = n.div_ceil(2);
            let bytes = words_bytes(&p[1..(1 + words).min(p.len())]);
            let at = sc.put(cx.proc, 0, &bytes[..n.min(bytes.len())])?;
            call(
                cx,
                "TextOutA",
                &[hdc, s(2 + words), s(1 + words), at, n as u32],
            )?;
        }
        META_EXTTEXTOUT => {
            let (y, x, n, opts) = (s(0), s(1), u(2) as usize, u(3));
            let mut at_w = 4;
            let mut rect_p = 0;
            if opts & (ETO_OPAQUE | ETO_CLIPPED) != 0 {
                let mut rb = Vec::new();
                for k in 0..4 {
                    le32(&mut rb, s(4 + k));
                }
                rect_p = sc.put(cx.proc, 0x10, &rb)?;
                at_w += 4;
            }
            let words = n.div_ceil(2);
            let bytes = words_bytes(&p[at_w.min(p.len())..(at_w + words).min(p.len())]);
            let sp = sc.put(cx.proc, 0x20, &bytes[..n.min(bytes.len())])?;
            let mut dxp = 0;
            if p.len() >= at_w + words + n && n > 0 {
                let mut db = Vec::new();
                for k in 0..n {
                    le32(&mut db, s(at_w + words + k));
                }
                dxp = sc.put(cx.proc, 0x20 + n as u32 + 4, &db)?;
            }
            call(
                cx,
                "ExtTextOutA",
                &[hdc, x, y, opts, rect_p, sp, n as u32, dxp],
            )?;
        }
        META_CREATEPENINDIRECT => {
            let h = objects::CreatePen(cx, u(0), s(1) as i32, dw(3));
            put_in_table(cx, table, h);
        }
        META_CREATEBRUSHINDIRECT => {
            let mut b = Vec::new();
            le32(&mut b, u(0));
            le32(&mut b, dw(1));
            le32(&mut b, u(3));
            let at = sc.put(cx.proc, 0, &b)?;
            let h = objects::CreateBrushIndirect(cx, Ptr(at))?;
            put_in_table(cx, table, h);
        }
        META_CREATEFONTINDIRECT => {
            let b = words_bytes(p);
            let mut lf = Vec::new();
            for k in 0..5 {
                le32(&mut lf, rd16(&b, 2 * k) as i16 as i32 as u32);
            }
            lf.extend_from_slice(b.get(10..18).unwrap_or(&[0; 8]));
            let mut face = b.get(18..50).unwrap_or(&[]).to_vec();
            face.resize(32, 0);
            face[31] = 0;
            lf.extend_from_slice(&face);
            let at = sc.put(cx.proc, 0, &lf)?;
            let h = super::text::CreateFontIndirectA(cx, Ptr(at))?;
            put_in_table(cx, table, h);
        }
        META_SELECTOBJECT => {
            if let Some(&h) = table.get(u(0) as usize)
                && h != 0
            {
                call(cx, "SelectObject", &[hdc, h])?;
            }
        }
        META_DELETEOBJECT => {
            if let Some(h) = table.get_mut(u(0) as usize)
                && *h != 0
            {
                let old = std::mem::replace(h, 0);
                call(cx, "DeleteObject", &[old])?;
            }
        }
        _ => log::warn!("PlayMetaFile: skipped record type {func:#06x} (not implemented)"),
    }
    Ok(())
}

fn words_bytes(w: &[u16]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A created object goes into the first free slot of the table.
fn put_in_table(cx: &mut Ctx, table: &mut [u32], h: u32) {
    match table.iter_mut().find(|s| **s == 0) {
        Some(s) => *s = h,
        None => {
            log::warn!("PlayMetaFile: object table full, object dropped");
            let _ = objects::delete_object(cx.proc, h);
        }
    }
}

/// The records of a WMF: (function, parameter words).
fn wmf_records(b: &[u8]) -> Vec<(u16, Vec<u16>)> {
    let mut v = Vec::new();
    let mut at = rd16(b, 2) as usize * 2;
    while at + 6 <= b.len() {
        let words = rd32(b, at) as usize;
        let func = rd16(b, at + 4);
        if func == META_EOF || words < 3 || at + words * 2 > b.len() {
            break;
        }
        let params = (0..words - 3).map(|k| rd16(b, at + 6 + 2 * k)).collect();
        v.push((func, params));
        at += words * 2;
    }
    v
}

/// The DC's selected pen, brush and font, which playback puts back afterwards.
fn selection(proc: &Process, hdc: u32) -> Option<(u32, u32, u32)> {
    dc::with_attrs(proc, hdc, |a| (a.pen, a.brush, a.font))
}

fn restore_selection(cx: &mut Ctx, hdc: u32, sel: (u32, u32, u32), table: &[u32]) -> ApiResult<()> {
    for h in [sel.0, sel.1, sel.2] {
        call(cx, "SelectObject", &[hdc, h])?;
    }
    for &h in table {
        if h != 0 {
            call(cx, "DeleteObject", &[h])?;
        }
    }
    Ok(())
}

fn max_record_bytes(recs: &[(u16, Vec<u16>)]) -> u32 {
    recs.iter()
        .map(|r| r.1.len() as u32 * 4 + 64)
        .max()
        .unwrap_or(64)
}

pub fn PlayMetaFile(cx: &mut Ctx, hdc: u32, hmf: u32) -> ApiResult<bool> {
    let Some(b) = wmf_of(cx.proc, hmf) else {
        return Ok(false);
    };
    let Some(sel) = selection(cx.proc, hdc) else {
        return Ok(false);
    };
    let recs = wmf_records(&b);
    let mut table = vec![0u32; rd16(&b, 10) as usize];
    let sc = Scratch::new(cx.proc, max_record_bytes(&recs) + 0x100)?;
    let mut r = Ok(());
    for (func, p) in &recs {
        r = play_wmf_record(cx, hdc, &mut table, *func, p, &sc);
        if r.is_err() {
            break;
        }
    }
    sc.free(cx.proc);
    r?;
    restore_selection(cx, hdc, sel, &table)?;
    Ok(true)
}

/// PlayMetaFileRecord: one record from guest memory, with the guest's handle table.
pub fn PlayMetaFileRecord(
    cx: &mut Ctx,
    hdc: u32,
    lpHandleTable: Ptr,
    lpMR: Ptr,
    noObjs: u32,
) -> ApiResult<bool> {
    let words = cx.proc.mem.read_u32(lpMR.0)? as usize;
    if words < 3 {
        return Ok(false);
    }
    let func = cx.proc.mem.read_u16(lpMR.0 + 4)?;
    let mut p = Vec::with_capacity(words - 3);
    for k in 0..(words - 3).min(1 << 20) as u32 {
        p.push(cx.proc.mem.read_u16(lpMR.0 + 6 + 2 * k)?);
    }
    let n = noObjs.min(1 << 16);
    let mut table = Vec::with_capacity(n as usize);
    for k in 0..n {
        table.push(cx.proc.mem.read_u32(lpHandleTable.0 + 4 * k)?);
    }
    let sc = Scratch::new(cx.proc, p.len() as u32 * 4 + 0x100)?;
    let r = play_wmf_record(cx, hdc, &mut table, func, &p, &sc);
    sc.free(cx.proc);
    r?;
    for (k, h) in table.iter().enumerate() {
        cx.proc.mem.write_u32(lpHandleTable.0 + 4 * k as u32, *h)?;
    }
    Ok(true)
}

/// EnumMetaFile: the callback gets each record (as METARECORD in guest memory) and
/// the handle table; it usually plays the record with PlayMetaFileRecord.
pub fn EnumMetaFile(
    cx: &mut Ctx,
    hdc: u32,
    hmf: u32,
    proc_: u32,
    lParam: u32,
) -> ApiResult<Outcome> {
    let Some(b) = wmf_of(cx.proc, hmf) else {
        return Ok(Outcome::Return(0));
    };
    let nobj = rd16(&b, 10) as u32;
    let recs = wmf_records(&b);
    let sel = selection(cx.proc, hdc);
    let sc = Scratch::new(cx.proc, nobj * 4 + max_record_bytes(&recs) + 0x100)?;
    let table = sc.base;
    let rec_at = (nobj * 4 + 15) & !15;
    let mut result = Ok(Outcome::Return(1));
    for (func, p) in &recs {
        let mut rb = Vec::new();
        le32(&mut rb, 3 + p.len() as u32);
        le16(&mut rb, *func);
        for &w in p {
            le16(&mut rb, w);
        }
        let at = match sc.put(cx.proc, rec_at, &rb) {
            Ok(a) => a,
            Err(e) => {
                result = Err(e);
                break;
            }
        };
        match super::text::call_guest(cx, proc_, &[hdc, table, at, nobj, lParam]) {
            Ok(Ok(0)) => {
                result = Ok(Outcome::Return(0));
                break;
            }
            Ok(Ok(_)) => {}
            Ok(Err(o)) => return Ok(o),
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    let mut objs = Vec::new();
    for k in 0..nobj {
        objs.push(cx.proc.mem.read_u32(table + 4 * k).unwrap_or(0));
    }
    sc.free(cx.proc);
    if let Some(sel) = sel {
        restore_selection(cx, hdc, sel, &objs)?;
    }
    result
}

// ---- enhanced metafiles -------------------------------------------------------------------

fn create_enh(
    cx: &mut Ctx,
    hdcRef: u32,
    file: Option<String>,
    lprc: Ptr,
    desc: Vec<u16>,
) -> ApiResult<u32> {
    if file.is_some() {
        return Err(ApiError::UnimplementedCase(
            "CreateEnhMetaFile into a disk file (only memory metafiles)".into(),
        ));
    }
    if hdcRef != 0 && !cx.proc.gdi32.lock().dcs.contains_key(&hdcRef) {
        return Ok(0);
    }
    let mut r = Recorder::new(Kind::Emf);
    if !lprc.is_null() {
        r.frame = Some(super::paint::read_rect(cx.proc, lprc.0)?);
    }
    r.desc = desc;
    Ok(new_meta_dc(cx.proc, r))
}

/// The description string pair ("app\0picture\0\0"), as UTF-16 units.
fn read_desc(proc: &Process, p: u32, wide: bool) -> ApiResult<Vec<u16>> {
    let mut v = Vec::new();
    if p == 0 {
        return Ok(v);
    }
    for k in 0..4096u32 {
        let c = if wide {
            proc.mem.read_u16(p + 2 * k)?
        } else {
            proc.mem.read_u8(p + k)? as u16
        };
        v.push(c);
        if c == 0 && v.len() >= 2 && v[v.len() - 2] == 0 {
            break;
        }
    }
    Ok(v)
}

pub fn CreateEnhMetaFileA(
    cx: &mut Ctx,
    hdcRef: u32,
    lpFilename: CStrPtr,
    lprc: Ptr,
    lpDesc: Ptr,
) -> ApiResult<u32> {
    let f = opt_str(cx.proc, lpFilename.0, false)?;
    let d = read_desc(cx.proc, lpDesc.0, false)?;
    create_enh(cx, hdcRef, f, lprc, d)
}

pub fn CreateEnhMetaFileW(
    cx: &mut Ctx,
    hdcRef: u32,
    lpFilename: WStrPtr,
    lprc: Ptr,
    lpDesc: Ptr,
) -> ApiResult<u32> {
    let f = opt_str(cx.proc, lpFilename.0, true)?;
    let d = read_desc(cx.proc, lpDesc.0, true)?;
    create_enh(cx, hdcRef, f, lprc, d)
}

/// The reference device's size in pixels and millimetres (the display's).
fn ref_device(proc: &Process) -> ((i32, i32), (i32, i32)) {
    let c = |i| dc::device_caps(proc, i);
    ((c(8), c(10)), (c(4), c(6)))
}

fn emf_bytes(proc: &Process, r: &Recorder) -> Vec<u8> {
    let ((px_x, px_y), (mm_x, mm_y)) = ref_device(proc);
    let bounds = r.bounds.unwrap_or(Rect::new(0, 0, -1, -1));
    // No frame given: the bounds in .01 mm.
    let frame = r.frame.unwrap_or_else(|| {
        let fx = |v: i32| super::mapping::round(v as f64 * mm_x as f64 * 100.0 / px_x as f64);
        let fy = |v: i32| super::mapping::round(v as f64 * mm_y as f64 * 100.0 / px_y as f64);
        Rect::new(
            fx(bounds.left),
            fy(bounds.top),
            fx(bounds.right),
            fy(bounds.bottom),
        )
    });
    let header_size = 108u32;
    let desc_bytes = (r.desc.len() as u32 * 2).div_ceil(4) * 4;
    let eof_size = 20u32;
    let total = header_size + desc_bytes + r.recs.len() as u32 + eof_size;
    let mut b = Vec::with_capacity(total as usize);
    le32(&mut b, EMR_HEADER);
    le32(&mut b, header_size + desc_bytes);
    for v in [bounds.left, bounds.top, bounds.right, bounds.bottom] {
        le32(&mut b, v as u32);
    }
    for v in [frame.left, frame.top, frame.right, frame.bottom] {
        le32(&mut b, v as u32);
    }
    le32(&mut b, ENHMETA_SIGNATURE);
    le32(&mut b, 0x10000);
    le32(&mut b, total);
    le32(&mut b, r.nrec + 2);
    le16(&mut b, r.objects.len() as u16);
    le16(&mut b, 0);
    le32(&mut b, r.desc.len() as u32);
    le32(&mut b, if r.desc.is_empty() { 0 } else { header_size });
    le32(&mut b, 0); // nPalEntries
    for v in [px_x, px_y, mm_x, mm_y] {
        le32(&mut b, v as u32);
    }
    le32(&mut b, 0); // cbPixelFormat
    le32(&mut b, 0); // offPixelFormat
    le32(&mut b, 0); // bOpenGL
    le32(&mut b, (mm_x * 1000) as u32);
    le32(&mut b, (mm_y * 1000) as u32);
    for &u in &r.desc {
        le16(&mut b, u);
    }
    b.resize((header_size + desc_bytes) as usize, 0);
    b.extend_from_slice(&r.recs);
    le32(&mut b, EMR_EOF);
    le32(&mut b, eof_size);
    le32(&mut b, 0);
    le32(&mut b, 16);
    le32(&mut b, eof_size);
    b
}

pub fn CloseEnhMetaFile(cx: &mut Ctx, hdc: u32) -> u32 {
    match close_dc(cx.proc, hdc, Kind::Emf) {
        Some(r) => {
            let b = emf_bytes(cx.proc, &r);
            add_metafile(cx.proc, MetaData::Emf(b))
        }
        None => 0,
    }
}

fn valid_emf(b: &[u8]) -> bool {
    b.len() >= 88
        && rd32(b, 0) == EMR_HEADER
        && rd32(b, 40) == ENHMETA_SIGNATURE
        && rd32(b, 48) as usize <= b.len()
}

pub fn SetEnhMetaFileBits(cx: &mut Ctx, nSize: u32, pb: Ptr) -> ApiResult<u32> {
    let mut b = vec![0u8; nSize.min(1 << 26) as usize];
    cx.proc.mem.read_bytes(pb.0, &mut b)?;
    if !valid_emf(&b) {
        return Ok(0);
    }
    Ok(add_metafile(cx.proc, MetaData::Emf(b)))
}

pub fn GetEnhMetaFileBits(cx: &mut Ctx, hEMF: u32, nSize: u32, lpData: Ptr) -> ApiResult<u32> {
    match emf_of(cx.proc, hEMF) {
        Some(b) => copy_out(cx.proc, &b, nSize, lpData.0),
        None => Ok(0),
    }
}

/// GetEnhMetaFileHeader: the header's size with a NULL buffer, else as much of the
/// header as fits.
pub fn GetEnhMetaFileHeader(
    cx: &mut Ctx,
    hemf: u32,
    nSize: u32,
    lpEnhMetaHeader: Ptr,
) -> ApiResult<u32> {
    let Some(b) = emf_of(cx.proc, hemf) else {
        return Ok(0);
    };
    let hs = (rd32(&b, 4) as usize).min(b.len());
    // Only the header proper, not the description behind it.
    let hs = hs.min(if rd32(&b, 64) != 0 {
        rd32(&b, 64) as usize
    } else {
        hs
    });
    if lpEnhMetaHeader.is_null() {
        return Ok(hs as u32);
    }
    let n = hs.min(nSize as usize);
    cx.proc.mem.write_bytes(lpEnhMetaHeader.0, &b[..n])?;
    Ok(n as u32)
}

/// The palette an EMF carries in its end-of-file record.
pub fn GetEnhMetaFilePaletteEntries(
    cx: &mut Ctx,
    hemf: u32,
    nNumEntries: u32,
    lpPaletteEntries: Ptr,
) -> ApiResult<u32> {
    let Some(b) = emf_of(cx.proc, hemf) else {
        return Ok(0xffff_ffff); // GDI_ERROR
    };
    let n = rd32(&b, 68);
    if n == 0 {
        return Ok(0);
    }
    if lpPaletteEntries.is_null() {
        return Ok(n);
    }
    let eof = emf_records(&b).into_iter().find(|r| r.0 == EMR_EOF);
    let Some((_, at, _)) = eof else {
        return Ok(0);
    };
    let off = rd32(&b, at + 12) as usize;
    let cnt = n.min(nNumEntries) as usize;
    let Some(pal) = b.get(at + off..at + off + 4 * cnt) else {
        return Ok(0);
    };
    cx.proc.mem.write_bytes(lpPaletteEntries.0, pal)?;
    Ok(cnt as u32)
}

pub fn DeleteEnhMetaFile(cx: &mut Ctx, hmf: u32) -> bool {
    let mut g = cx.proc.gdi32.lock();
    match g.metafiles.get(&hmf) {
        Some(MetaData::Emf(_)) => g.metafiles.remove(&hmf).is_some(),
        _ => false,
    }
}

pub fn CopyEnhMetaFileA(cx: &mut Ctx, hemf: u32, file: CStrPtr) -> ApiResult<u32> {
    if file.0 != 0 {
        return Err(ApiError::UnimplementedCase(
            "CopyEnhMetaFile to a disk file".into(),
        ));
    }
    Ok(match emf_of(cx.proc, hemf) {
        Some(b) => add_metafile(cx.proc, MetaData::Emf(b)),
        None => 0,
    })
}

/// The records of an EMF: (type, offset, size).
fn emf_records(b: &[u8]) -> Vec<(u32, usize, usize)> {
    let mut v = Vec::new();
    let mut at = 0;
    while at + 8 <= b.len() {
        let typ = rd32(b, at);
        let size = rd32(b, at + 4) as usize;
        if size < 8 || at + size > b.len() {
            break;
        }
        v.push((typ, at, size));
        if typ == EMR_EOF {
            break;
        }
        at += size;
    }
    v
}

fn play_emf_record(
    cx: &mut Ctx,
    hdc: u32,
    table: &mut [u32],
    rec: &[u8],
    sc: &Scratch,
) -> ApiResult<()> {
    let typ = rd32(rec, 0);
    let d = |i: usize| rd32(rec, 8 + 4 * i);
    match typ {
        EMR_HEADER | EMR_EOF => {}
        EMR_SETBKCOLOR => run(cx, "SetBkColor", &[hdc, d(0)])?,
        EMR_SETTEXTCOLOR => run(cx, "SetTextColor", &[hdc, d(0)])?,
        EMR_SETBKMODE => run(cx, "SetBkMode", &[hdc, d(0)])?,
        EMR_SETMAPMODE => run(cx, "SetMapMode", &[hdc, d(0)])?,
        EMR_SETROP2 => run(cx, "SetROP2", &[hdc, d(0)])?,
        EMR_SETPOLYFILLMODE => run(cx, "SetPolyFillMode", &[hdc, d(0)])?,
        EMR_SETSTRETCHBLTMODE => run(cx, "SetStretchBltMode", &[hdc, d(0)])?,
        EMR_SETTEXTALIGN => run(cx, "SetTextAlign", &[hdc, d(0)])?,
        EMR_SETWINDOWORGEX => run(cx, "SetWindowOrgEx", &[hdc, d(0), d(1), 0])?,
        EMR_SETWINDOWEXTEX => run(cx, "SetWindowExtEx", &[hdc, d(0), d(1), 0])?,
        EMR_SETVIEWPORTORGEX => run(cx, "SetViewportOrgEx", &[hdc, d(0), d(1), 0])?,
        EMR_SETVIEWPORTEXTEX => run(cx, "SetViewportExtEx", &[hdc, d(0), d(1), 0])?,
        EMR_SCALEWINDOWEXTEX => run(cx, "ScaleWindowExtEx", &[hdc, d(0), d(1), d(2), d(3), 0])?,
        EMR_SCALEVIEWPORTEXTEX => run(cx, "ScaleViewportExtEx", &[hdc, d(0), d(1), d(2), d(3), 0])?,
        EMR_SAVEDC => run(cx, "SaveDC", &[hdc])?,
        EMR_RESTOREDC => run(cx, "RestoreDC", &[hdc, d(0)])?,
        EMR_INTERSECTCLIPRECT => run(cx, "IntersectClipRect", &[hdc, d(0), d(1), d(2), d(3)])?,
        EMR_EXCLUDECLIPRECT => run(cx, "ExcludeClipRect", &[hdc, d(0), d(1), d(2), d(3)])?,
        EMR_MOVETOEX => run(cx, "MoveToEx", &[hdc, d(0), d(1), 0])?,
        EMR_LINETO => run(cx, "LineTo", &[hdc, d(0), d(1)])?,
        EMR_RECTANGLE => run(cx, "Rectangle", &[hdc, d(0), d(1), d(2), d(3)])?,
        EMR_ELLIPSE => run(cx, "Ellipse", &[hdc, d(0), d(1), d(2), d(3)])?,
        EMR_ROUNDRECT => run(cx, "RoundRect", &[hdc, d(0), d(1), d(2), d(3), d(4), d(5)])?,
        EMR_ARC | EMR_PIE | EMR_CHORD => {
            let name = match typ {
                EMR_ARC => "Arc",
                EMR_PIE => "Pie",
                _ => "Chord",
            };
            let mut a = vec![hdc];
            a.extend((0..8).map(d));
            call(cx, name, &a)?;
        }
        EMR_SETPIXELV => run(cx, "SetPixelV", &[hdc, d(0), d(1), d(2)])?,
        EMR_BITBLT if d(13) == 0 && d(14) == 0 => {
            // No source bitmap: a PatBlt.
            run(cx, "PatBlt", &[hdc, d(4), d(5), d(6), d(7), d(8)])?
        }
        EMR_POLYGON | EMR_POLYLINE | EMR_POLYGON16 | EMR_POLYLINE16 => {
            let small = matches!(typ, EMR_POLYGON16 | EMR_POLYLINE16);
            let n = d(4) as usize;
            let pts = read_emf_points(rec, 8 + 20, n, small);
            let at = sc.put(cx.proc, 0, &pts_bytes(&pts))?;
            let name = if matches!(typ, EMR_POLYGON | EMR_POLYGON16) {
                "Polygon"
            } else {
                "Polyline"
            };
            call(cx, name, &[hdc, at, pts.len() as u32])?;
        }
        EMR_POLYPOLYGON | EMR_POLYPOLYGON16 => {
            let np = d(4) as usize;
            let total = d(5) as usize;
            let counts: Vec<u32> = (0..np.min(1 << 12)).map(|k| d(6 + k)).collect();
            let pts = read_emf_points(
                rec,
                8 + 24 + 4 * counts.len(),
                total,
                typ == EMR_POLYPOLYGON16,
            );
            let pb = pts_bytes(&pts);
            let at = sc.put(cx.proc, 0, &pb)?;
            let mut cb = Vec::new();
            for c in &counts {
                le32(&mut cb, *c);
            }
            let ca = sc.put(cx.proc, pb.len() as u32, &cb)?;
            call(cx, "PolyPolygon", &[hdc, at, ca, counts.len() as u32])?;
        }
        EMR_EXTTEXTOUTW => {
            // EMRTEXT at 36: reference point, count, string offset, options, rect,
            // advances offset (offsets from the record's start).
            let t = 36;
            let (x, y) = (rd32(rec, t), rd32(rec, t + 4));
            let n = rd32(rec, t + 8) as usize;
            let soff = rd32(rec, t + 12) as usize;
            let opts = rd32(rec, t + 16);
            let dxoff = rd32(rec, t + 36) as usize;
            let s = rec.get(soff..soff + 2 * n).unwrap_or(&[]);
            let sp = sc.put(cx.proc, 0x20, s)?;
            let rp = sc.put(cx.proc, 0, rec.get(t + 20..t + 36).unwrap_or(&[0; 16]))?;
            let dxp = match rec.get(dxoff..dxoff + 4 * n) {
                Some(b) if dxoff != 0 && n > 0 => sc.put(cx.proc, 0x20 + 2 * n as u32 + 4, b)?,
                _ => 0,
            };
            call(
                cx,
                "ExtTextOutW",
                &[hdc, x, y, opts, rp, sp, (s.len() / 2) as u32, dxp],
            )?;
        }
        EMR_CREATEPEN => {
            let h = objects::CreatePen(cx, d(1), d(2) as i32, d(4));
            set_slot(cx, table, d(0) as usize, h);
        }
        EMR_CREATEBRUSHINDIRECT => {
            let at = sc.put(cx.proc, 0, rec.get(12..24).unwrap_or(&[0; 12]))?;
            let h = objects::CreateBrushIndirect(cx, Ptr(at))?;
            set_slot(cx, table, d(0) as usize, h);
        }
        EMR_EXTCREATEFONTINDIRECTW => {
            let at = sc.put(cx.proc, 0, rec.get(12..12 + 92).unwrap_or(&[0; 92]))?;
            let h = super::text::CreateFontIndirectW(cx, Ptr(at))?;
            set_slot(cx, table, d(0) as usize, h);
        }
        EMR_SELECTOBJECT => {
            let i = d(0);
            let h = if i & ENHMETA_STOCK_OBJECT != 0 {
                objects::stock(i & 0x7fff_ffff)
            } else {
                table.get(i as usize).copied().unwrap_or(0)
            };
            if h != 0 {
                call(cx, "SelectObject", &[hdc, h])?;
            }
        }
        EMR_DELETEOBJECT => {
            if let Some(h) = table.get_mut(d(0) as usize)
                && *h != 0
            {
                let old = std::mem::replace(h, 0);
                call(cx, "DeleteObject", &[old])?;
            }
        }
        _ => log::warn!("PlayEnhMetaFile: skipped record type {typ} (not implemented)"),
    }
    Ok(())
}

fn read_emf_points(rec: &[u8], at: usize, n: usize, small: bool) -> Vec<(i32, i32)> {
    (0..n.min(1 << 20))
        .map(|k| {
            if small {
                (
                    rd16(rec, at + 4 * k) as i16 as i32,
                    rd16(rec, at + 4 * k + 2) as i16 as i32,
                )
            } else {
                (
                    rd32(rec, at + 8 * k) as i32,
                    rd32(rec, at + 8 * k + 4) as i32,
                )
            }
        })
        .collect()
}

fn set_slot(cx: &mut Ctx, table: &mut [u32], i: usize, h: u32) {
    match table.get_mut(i) {
        Some(s) if i > 0 => *s = h,
        _ => {
            log::warn!("PlayEnhMetaFile: object index {i} outside the handle table");
            let _ = objects::delete_object(cx.proc, h);
        }
    }
}

/// PlayEnhMetaFile: maps the picture frame onto `lpRect` (logical units of `hdc`)
/// through the world transform, plays the records, and puts the DC's state back.
pub fn PlayEnhMetaFile(cx: &mut Ctx, hdc: u32, hmf: u32, lprect: Ptr) -> ApiResult<bool> {
    let Some(b) = emf_of(cx.proc, hmf) else {
        return Ok(false);
    };
    if lprect.is_null() {
        return Ok(false);
    }
    let rect = super::paint::read_rect(cx.proc, lprect.0)?;
    let Some(saved) = dc::with_attrs(cx.proc, hdc, |a| a.clone()) else {
        return Ok(false);
    };
    let rs = |i: usize| rd32(&b, i) as i32;
    // The frame (.01 mm) in reference-device pixels.
    let (dev_x, dev_y, mm_x, mm_y) = (rs(72), rs(76), rs(80), rs(84));
    let to_px = |v: i32, px: i32, mm: i32| {
        if mm == 0 {
            v as f64
        } else {
            v as f64 * px as f64 / (mm as f64 * 100.0)
        }
    };
    let fl = to_px(rs(24), dev_x, mm_x);
    let ft = to_px(rs(28), dev_y, mm_y);
    let fr = to_px(rs(32), dev_x, mm_x);
    let fb = to_px(rs(36), dev_y, mm_y);
    let sx = if fr != fl {
        (rect.right - rect.left) as f64 / (fr - fl)
    } else {
        1.0
    };
    let sy = if fb != ft {
        (rect.bottom - rect.top) as f64 / (fb - ft)
    } else {
        1.0
    };
    let play = super::mapping::Xform {
        m11: sx,
        m12: 0.0,
        m21: 0.0,
        m22: sy,
        dx: rect.left as f64 - fl * sx,
        dy: rect.top as f64 - ft * sy,
    };
    dc::with_attrs(cx.proc, hdc, |a| {
        a.world = play.then(&a.world);
        a.graphics_mode = super::mapping::GM_ADVANCED;
    });
    let recs = emf_records(&b);
    let mut table = vec![0u32; (rd16(&b, 52) as usize).max(1)];
    let big = recs.iter().map(|r| r.2 as u32).max().unwrap_or(0) * 2 + 0x200;
    let sc = Scratch::new(cx.proc, big)?;
    let mut r = Ok(());
    for &(_, at, size) in &recs {
        r = play_emf_record(cx, hdc, &mut table, &b[at..at + size], &sc);
        if r.is_err() {
            break;
        }
    }
    sc.free(cx.proc);
    // The DC gets back its attributes (objects, colours, mapping, position); the
    // objects the metafile made are deleted once nothing selects them.
    dc::with_attrs(cx.proc, hdc, |a| {
        let bm = a.bitmap;
        *a = saved;
        a.bitmap = bm;
    });
    r?;
    for &h in &table {
        if h != 0 {
            call(cx, "DeleteObject", &[h])?;
        }
    }
    Ok(true)
}

// ---- metafiles from files and conversions ---------------------------------------------------

/// The whole of a sandbox file, or None if it cannot be opened or read.
fn read_file(cx: &Ctx, name: &str) -> ApiResult<Option<Vec<u8>>> {
    use std::os::unix::fs::FileExt;
    let vfs = crate::kernel32::file::vfs(cx.proc)?;
    let opts = crate::vfs::OpenOptions {
        read: true,
        write: false,
        delete: false,
        share: crate::vfs::FILE_SHARE_READ,
        disposition: crate::vfs::CreationDisposition::OpenExisting,
        attributes: 0,
        backup_semantics: false,
    };
    let f = match vfs.open(name, &opts) {
        Ok(crate::vfs::Opened::File(f)) => f,
        Ok(_) => return Ok(None),
        Err(e) => {
            log::info!("metafile {name}: {e}");
            return Ok(None);
        }
    };
    let file = f.host.get();
    let Ok(len) = file.metadata().map(|m| m.len()) else {
        return Ok(None);
    };
    if len > 1 << 26 {
        log::warn!("metafile {name}: {len} bytes is too long");
        return Ok(None);
    }
    let mut v = vec![0u8; len as usize];
    Ok(file.read_exact_at(&mut v, 0).ok().map(|()| v))
}

/// GetMetaFile: a metafile from a disk file (a plain WMF; the Aldus "placeable"
/// header is not part of the format GetMetaFile reads).
fn get_meta_file(cx: &mut Ctx, name: Option<String>) -> ApiResult<u32> {
    let Some(name) = name else {
        return Ok(0);
    };
    Ok(match read_file(cx, &name)? {
        Some(b) if valid_wmf(&b) => add_metafile(cx.proc, MetaData::Wmf(b)),
        _ => 0,
    })
}

pub fn GetMetaFileA(cx: &mut Ctx, lpName: CStrPtr) -> ApiResult<u32> {
    let n = opt_str(cx.proc, lpName.0, false)?;
    get_meta_file(cx, n)
}

pub fn GetMetaFileW(cx: &mut Ctx, lpName: WStrPtr) -> ApiResult<u32> {
    let n = opt_str(cx.proc, lpName.0, true)?;
    get_meta_file(cx, n)
}

fn get_enh_meta_file(cx: &mut Ctx, name: Option<String>) -> ApiResult<u32> {
    let Some(name) = name else {
        return Ok(0);
    };
    Ok(match read_file(cx, &name)? {
        Some(b) if valid_emf(&b) => add_metafile(cx.proc, MetaData::Emf(b)),
        _ => 0,
    })
}

pub fn GetEnhMetaFileA(cx: &mut Ctx, lpName: CStrPtr) -> ApiResult<u32> {
    let n = opt_str(cx.proc, lpName.0, false)?;
    get_enh_meta_file(cx, n)
}

pub fn GetEnhMetaFileW(cx: &mut Ctx, lpName: WStrPtr) -> ApiResult<u32> {
    let n = opt_str(cx.proc, lpName.0, true)?;
    get_enh_meta_file(cx, n)
}

/// SetWinMetaFileBits: an enhanced metafile made by playing a WMF into an EMF DC
/// (so its records are the EMF forms of the WMF's). With a METAFILEPICT in
/// MM_ISOTROPIC/MM_ANISOTROPIC and a size, that size (.01 mm) is the picture frame.
pub fn SetWinMetaFileBits(
    cx: &mut Ctx,
    nSize: u32,
    lpMeta16Data: Ptr,
    hdcRef: u32,
    lpMFP: Ptr,
) -> ApiResult<u32> {
    let mut b = vec![0u8; nSize.min(1 << 26) as usize];
    cx.proc.mem.read_bytes(lpMeta16Data.0, &mut b)?;
    if !valid_wmf(&b) {
        return Ok(0);
    }
    let mut frame = None;
    if !lpMFP.is_null() {
        let mm = cx.proc.mem.read_u32(lpMFP.0)?;
        let x = cx.proc.mem.read_u32(lpMFP.0 + 4)? as i32;
        let y = cx.proc.mem.read_u32(lpMFP.0 + 8)? as i32;
        if (mm == super::mapping::MM_ISOTROPIC || mm == super::mapping::MM_ANISOTROPIC)
            && x > 0
            && y > 0
        {
            frame = Some(Rect::new(0, 0, x, y));
        }
    }
    if hdcRef != 0 && !cx.proc.gdi32.lock().dcs.contains_key(&hdcRef) {
        return Ok(0);
    }
    let mut r = Recorder::new(Kind::Emf);
    r.frame = frame;
    let edc = new_meta_dc(cx.proc, r);
    let recs = wmf_records(&b);
    let mut table = vec![0u32; rd16(&b, 10) as usize];
    let sc = Scratch::new(cx.proc, max_record_bytes(&recs) + 0x100)?;
    let mut res = Ok(());
    for (func, p) in &recs {
        res = play_wmf_record(cx, edc, &mut table, *func, p, &sc);
        if res.is_err() {
            break;
        }
    }
    sc.free(cx.proc);
    for h in table.into_iter().filter(|&h| h != 0) {
        let _ = objects::delete_object(cx.proc, h);
    }
    let rec = close_dc(cx.proc, edc, Kind::Emf);
    res?;
    Ok(match rec {
        Some(r) => {
            let bytes = emf_bytes(cx.proc, &r);
            add_metafile(cx.proc, MetaData::Emf(bytes))
        }
        None => 0,
    })
}

/// GetWinMetaFileBits: the EMF's records played into a WMF DC, in the EMF's logical
/// units (reference-device pixels); the WMF starts by setting `iMapMode`.
pub fn GetWinMetaFileBits(
    cx: &mut Ctx,
    hemf: u32,
    cbData16: u32,
    pData16: Ptr,
    iMapMode: u32,
    _hdcRef: u32,
) -> ApiResult<u32> {
    let Some(b) = emf_of(cx.proc, hemf) else {
        return Ok(0);
    };
    let wdc = new_meta_dc(cx.proc, Recorder::new(Kind::Wmf));
    let mut res = call(cx, "SetMapMode", &[wdc, iMapMode]).map(|_| ());
    let recs = emf_records(&b);
    let mut table = vec![0u32; (rd16(&b, 52) as usize).max(1)];
    let big = recs.iter().map(|r| r.2 as u32).max().unwrap_or(0) * 2 + 0x200;
    if res.is_ok() {
        let sc = Scratch::new(cx.proc, big)?;
        for &(_, at, size) in &recs {
            res = play_emf_record(cx, wdc, &mut table, &b[at..at + size], &sc);
            if res.is_err() {
                break;
            }
        }
        sc.free(cx.proc);
    }
    for h in table.into_iter().filter(|&h| h != 0) {
        let _ = objects::delete_object(cx.proc, h);
    }
    let rec = close_dc(cx.proc, wdc, Kind::Wmf);
    res?;
    match rec {
        Some(r) => copy_out(cx.proc, &wmf_bytes(&r), cbData16, pData16.0),
        None => Ok(0),
    }
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("GetMetaFileA", GetMetaFileA),
        stdcall("GetMetaFileW", GetMetaFileW),
        stdcall("GetEnhMetaFileA", GetEnhMetaFileA),
        stdcall("GetEnhMetaFileW", GetEnhMetaFileW),
        stdcall("SetWinMetaFileBits", SetWinMetaFileBits),
        stdcall("GetWinMetaFileBits", GetWinMetaFileBits),
        stdcall("CreateMetaFileA", CreateMetaFileA),
        stdcall("CreateMetaFileW", CreateMetaFileW),
        stdcall("CloseMetaFile", CloseMetaFile),
        stdcall("GetMetaFileBitsEx", GetMetaFileBitsEx),
        stdcall("SetMetaFileBitsEx", SetMetaFileBitsEx),
        stdcall("CopyMetaFileA", CopyMetaFileA),
        stdcall("DeleteMetaFile", DeleteMetaFile),
        stdcall("PlayMetaFile", PlayMetaFile),
        stdcall("PlayMetaFileRecord", PlayMetaFileRecord),
        stdcall("EnumMetaFile", EnumMetaFile),
        stdcall("CreateEnhMetaFileA", CreateEnhMetaFileA),
        stdcall("CreateEnhMetaFileW", CreateEnhMetaFileW),
        stdcall("CloseEnhMetaFile", CloseEnhMetaFile),
        stdcall("SetEnhMetaFileBits", SetEnhMetaFileBits),
        stdcall("GetEnhMetaFileBits", GetEnhMetaFileBits),
        stdcall("GetEnhMetaFileHeader", GetEnhMetaFileHeader),
        stdcall("GetEnhMetaFilePaletteEntries", GetEnhMetaFilePaletteEntries),
        stdcall("DeleteEnhMetaFile", DeleteEnhMetaFile),
        stdcall("CopyEnhMetaFileA", CopyEnhMetaFileA),
        stdcall("PlayEnhMetaFile", PlayEnhMetaFile),
    ]
}
