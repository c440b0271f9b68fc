//! The extended combo box (`ComboBoxEx32`): a combo box whose items carry an
//! image, a selected image, an overlay, an indent and a value besides their text
//! (COMBOBOXEXITEM), as Explorer's address bar and WordPad's font box use it.
//!
//! As on Windows the control is a frame around children the program can ask for:
//! a `ComboBox` child (CBEM_GETCOMBOCONTROL) that holds the items' texts and values,
//! and for the CBS_DROPDOWN type an `Edit` inside it (CBEM_GETEDITCONTROL) that
//! shows the current item. The items themselves (with their images and indents)
//! live here; the list messages (CB_*) the program sends to the control go on to
//! the combo box, and what the combo box tells its parent (CBN_*) goes on to the
//! control's parent with the control's id and handle. A selection made in the
//! combo box is also reported with CBEN_ENDEDIT (CBENF_DROPDOWN), and the control
//! reports inserted and deleted items with CBEN_INSERTITEM and CBEN_DELETEITEM
//! (CB_RESETCONTENT empties it without the latter, as Wine's does).
//!
//! Not provided: items whose text or image comes back through CBEN_GETDISPINFO
//! (LPSTR_TEXTCALLBACK, I_IMAGECALLBACK), which report themselves by name; the
//! images are kept and given back but not drawn, since USER32's combo box draws
//! its own text and does not drop down.

use super::ccommon::{self as cc, WM_USER};
use crate::hle::{ApiError, Ctx};
use crate::user32::msg::*;
use crate::user32::window::{Create, create_window, set_window_pos};
use crate::user32::{NameOrId, UR, read_str, stack_alloc, stack_free, write_str};

const CBEM_INSERTITEMA: u32 = WM_USER + 1;
const CBEM_SETIMAGELIST: u32 = WM_USER + 2;
const CBEM_GETIMAGELIST: u32 = WM_USER + 3;
const CBEM_GETITEMA: u32 = WM_USER + 4;
const CBEM_SETITEMA: u32 = WM_USER + 5;
const CBEM_GETCOMBOCONTROL: u32 = WM_USER + 6;
const CBEM_GETEDITCONTROL: u32 = WM_USER + 7;
const CBEM_SETEXSTYLE: u32 = WM_USER + 8;
const CBEM_GETEXTENDEDSTYLE: u32 = WM_USER + 9;
const CBEM_HASEDITCHANGED: u32 = WM_USER + 10;
const CBEM_INSERTITEMW: u32 = WM_USER + 11;
const CBEM_SETITEMW: u32 = WM_USER + 12;
const CBEM_GETITEMW: u32 = WM_USER + 13;
const CBEM_SETEXTENDEDSTYLE: u32 = WM_USER + 14;
const CCM_SETUNICODEFORMAT: u32 = 0x2005;
const CCM_GETUNICODEFORMAT: u32 = 0x2006;
const CCM_SETWINDOWTHEME: u32 = 0x200b;

const CB_DELETESTRING: u32 = 0x144;
const CB_GETCOUNT: u32 = 0x146;
const CB_GETCURSEL: u32 = 0x147;
const CB_INSERTSTRING: u32 = 0x14a;
const CB_RESETCONTENT: u32 = 0x14b;
const CB_SETCURSEL: u32 = 0x14e;
const CB_GETITEMDATA: u32 = 0x150;
const CB_SETITEMDATA: u32 = 0x151;
const CB_FIRST: u32 = 0x140;
const CB_LAST: u32 = 0x165;
const CB_ERR: u32 = u32::MAX;
const CBN_SELCHANGE: u32 = 1;
const CBS_SIMPLE: u32 = 0x1;
const CBS_DROPDOWN: u32 = 0x2;
const CBS_DROPDOWNLIST: u32 = 0x3;
const CBS_HASSTRINGS: u32 = 0x200;
const ES_AUTOHSCROLL: u32 = 0x80;
const WS_CHILD: u32 = 0x4000_0000;
const WS_VISIBLE: u32 = 0x1000_0000;
const WS_VSCROLL: u32 = 0x0020_0000;

const CBEIF_TEXT: u32 = 0x1;
const CBEIF_IMAGE: u32 = 0x2;
const CBEIF_SELECTEDIMAGE: u32 = 0x4;
const CBEIF_OVERLAY: u32 = 0x8;
const CBEIF_INDENT: u32 = 0x10;
const CBEIF_LPARAM: u32 = 0x20;
/// LPSTR_TEXTCALLBACK and I_IMAGECALLBACK.
const CALLBACK_TEXT: u32 = u32::MAX;
const CALLBACK_IMAGE: i32 = -1;

const CBEN_INSERTITEM: u32 = (-801i32) as u32;
const CBEN_DELETEITEM: u32 = (-802i32) as u32;
const CBEN_ENDEDITA: u32 = (-805i32) as u32;
const CBEN_ENDEDITW: u32 = (-806i32) as u32;
const CBENF_DROPDOWN: u32 = 4;
/// CBEMAXSTRLEN: the characters of NMCBEENDEDIT's szText.
const CBEMAXSTRLEN: u32 = 260;

/// One item, as COMBOBOXEXITEM describes it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Item {
    text: String,
    image: i32,
    selected_image: i32,
    overlay: i32,
    indent: i32,
    lparam: u32,
}

#[derive(Default)]
struct State {
    items: Vec<Item>,
    /// The item shown in the edit box (CBEM_SETITEM with iItem -1).
    current: Item,
    himl: u32,
    combo: u32,
    edit: u32,
    ex_style: u32,
    unicode_notify: bool,
}

fn st<R>(cx: &Ctx, h: u32, f: impl FnOnce(&mut State) -> R) -> R {
    cc::with_state::<State, R>(cx, h, f)
}

/// COMBOBOXEXITEM: mask, iItem, pszText, cchTextMax, iImage, iSelectedImage,
/// iOverlay, iIndent, lParam (36 bytes).
fn read_item(cx: &Ctx, p: u32, into: &mut Item, u: bool) -> UR<(u32, i32)> {
    let m = &cx.proc.mem;
    let mask = m.read_u32(p)?;
    let index = m.read_u32(p + 4)? as i32;
    if mask & CBEIF_TEXT != 0 {
        let t = m.read_u32(p + 8)?;
        if t == CALLBACK_TEXT {
            return Err(ApiError::UnimplementedCase(
                "ComboBoxEx32 items whose text comes from CBEN_GETDISPINFO (LPSTR_TEXTCALLBACK)"
                    .into(),
            )
            .into());
        }
        into.text = read_str(cx, t, u)?;
    }
    let images = [
        (CBEIF_IMAGE, 16, &mut into.image),
        (CBEIF_SELECTEDIMAGE, 20, &mut into.selected_image),
        (CBEIF_OVERLAY, 24, &mut into.overlay),
    ];
    for (flag, at, field) in images {
        if mask & flag != 0 {
            let v = m.read_u32(p + at)? as i32;
            if v == CALLBACK_IMAGE && flag != CBEIF_OVERLAY {
                return Err(ApiError::UnimplementedCase(
                    "ComboBoxEx32 items whose image comes from CBEN_GETDISPINFO (I_IMAGECALLBACK)"
                        .into(),
                )
                .into());
            }
            *field = v;
        }
    }
    if mask & CBEIF_INDENT != 0 {
        into.indent = m.read_u32(p + 28)? as i32;
    }
    if mask & CBEIF_LPARAM != 0 {
        into.lparam = m.read_u32(p + 32)?;
    }
    Ok((mask, index))
}

/// Fills the fields `mask` asks for; the text is cut to cchTextMax.
fn write_item(cx: &Ctx, p: u32, it: &Item, u: bool) -> UR<()> {
    let m = &cx.proc.mem;
    let mask = m.read_u32(p)?;
    if mask & CBEIF_TEXT != 0 {
        let (buf, cap) = (m.read_u32(p + 8)?, m.read_u32(p + 12)?);
        crate::user32::put_str(cx, buf, cap, &it.text, u)?;
    }
    if mask & CBEIF_IMAGE != 0 {
        m.write_u32(p + 16, it.image as u32)?;
    }
    if mask & CBEIF_SELECTEDIMAGE != 0 {
        m.write_u32(p + 20, it.selected_image as u32)?;
    }
    if mask & CBEIF_OVERLAY != 0 {
        m.write_u32(p + 24, it.overlay as u32)?;
    }
    if mask & CBEIF_INDENT != 0 {
        m.write_u32(p + 28, it.indent as u32)?;
    }
    if mask & CBEIF_LPARAM != 0 {
        m.write_u32(p + 32, it.lparam)?;
    }
    Ok(())
}

/// CBEN_INSERTITEM / CBEN_DELETEITEM: an NMCOMBOBOXEX with the whole item (its
/// text in the parent's character set).
fn notify_item(cx: &mut Ctx, h: u32, code: u32, index: i32, it: &Item) -> UR<()> {
    let unicode = st(cx, h, |s| s.unicode_notify);
    let text_bytes = (it.text.encode_utf16().count() as u32 + 1) * 2;
    let (text, esp) = stack_alloc(cx, text_bytes);
    let r = (|| -> UR<()> {
        write_str(cx, text, &it.text, unicode)?;
        let mask = CBEIF_TEXT
            | CBEIF_IMAGE
            | CBEIF_SELECTEDIMAGE
            | CBEIF_OVERLAY
            | CBEIF_INDENT
            | CBEIF_LPARAM;
        let item = [
            mask,
            index as u32,
            text,
            text_bytes / 2,
            it.image as u32,
            it.selected_image as u32,
            it.overlay as u32,
            it.indent as u32,
            it.lparam,
        ];
        cc::notify(cx, h, code, &item)?;
        Ok(())
    })();
    stack_free(cx, esp);
    r
}

/// CBEN_ENDEDIT for a choice made in the list: NMCBEENDEDIT's fChanged,
/// iNewSelection, szText[CBEMAXSTRLEN] and iWhy after the NMHDR.
fn notify_end_edit(cx: &mut Ctx, h: u32, sel: i32) -> UR<()> {
    let (unicode, text) = st(cx, h, |s| {
        (
            s.unicode_notify,
            s.items
                .get(sel.max(0) as usize)
                .filter(|_| sel >= 0)
                .map(|i| i.text.clone())
                .unwrap_or_default(),
        )
    });
    let unit = if unicode { 2 } else { 1 };
    let words = 2 + (CBEMAXSTRLEN * unit).div_ceil(4) + 1;
    let mut extra = vec![0u32; words as usize];
    extra[0] = 1;
    extra[1] = sel as u32;
    let mut bytes: Vec<u8> = if unicode {
        text.encode_utf16()
            .take(CBEMAXSTRLEN as usize - 1)
            .flat_map(u16::to_le_bytes)
            .collect()
    } else {
        let mut a = crate::kernel32::string::encode_ansi(&text);
        a.truncate(CBEMAXSTRLEN as usize - 1);
        a
    };
    bytes.resize((CBEMAXSTRLEN * unit) as usize, 0);
    for (k, c) in bytes.chunks(4).enumerate() {
        let mut w = [0u8; 4];
        w[..c.len()].copy_from_slice(c);
        extra[2 + k] = u32::from_le_bytes(w);
    }
    *extra.last_mut().unwrap_or(&mut 0) = CBENF_DROPDOWN;
    let code = if unicode {
        CBEN_ENDEDITW
    } else {
        CBEN_ENDEDITA
    };
    cc::notify(cx, h, code, &extra)?;
    Ok(())
}

/// Sends `msg` with `s` as a guest string in lParam.
fn send_text(cx: &mut Ctx, to: u32, msg: u32, wp: u32, s: &str) -> UR<u32> {
    let (p, esp) = stack_alloc(cx, (s.encode_utf16().count() as u32 + 1) * 2);
    let r = (|| -> UR<u32> {
        write_str(cx, p, s, true)?;
        send(cx, to, msg, wp, p, true)
    })();
    stack_free(cx, esp);
    r
}

/// Shows the current item's text in the edit box, if there is one.
fn show_current(cx: &mut Ctx, h: u32) -> UR<()> {
    let (edit, text) = st(cx, h, |s| (s.edit, s.current.text.clone()));
    if edit != 0 {
        send_text(cx, edit, WM_SETTEXT, 0, &text)?;
    }
    Ok(())
}

/// Makes the combo box (and for CBS_DROPDOWN its edit box) the control's size.
fn layout(cx: &mut Ctx, h: u32) -> UR<()> {
    let (combo, edit) = st(cx, h, |s| (s.combo, s.edit));
    let (w, ht) = cc::client_size(cx, h);
    if combo != 0 {
        set_window_pos(cx, combo, 0, 0, 0, w, ht, 0x4 | 0x10)?;
    }
    if edit != 0 {
        // Inside the combo box's frame, left of its button.
        let ew = (w - 3 - 20).max(0);
        set_window_pos(cx, edit, 0, 3, 3, ew, (ht - 6).max(0), 0x4 | 0x10)?;
    }
    Ok(())
}

fn create_children(cx: &mut Ctx, h: u32) -> UR<()> {
    let Some(w) = cc::win(cx, h) else {
        return Ok(());
    };
    let kind = w.style & 3;
    let child = |class: &str, style: u32, parent: u32| Create {
        exstyle: 0,
        class: NameOrId::Name(class.into()),
        class_ptr: 0,
        name_ptr: 0,
        style,
        x: 0,
        y: 0,
        w: w.w,
        h: w.h,
        parent,
        menu: 0,
        instance: 0,
        param: 0,
        unicode: true,
    };
    // The list keeps the items' texts: CBS_DROPDOWNLIST is the frame with the
    // selected text; a CBS_DROPDOWN control puts an edit box over it.
    let combo_kind = if kind == CBS_SIMPLE {
        CBS_SIMPLE
    } else {
        CBS_DROPDOWNLIST
    };
    let combo = create_window(
        cx,
        child(
            "ComboBox",
            WS_CHILD | WS_VISIBLE | WS_VSCROLL | CBS_HASSTRINGS | combo_kind,
            h,
        ),
    )?;
    let edit = if kind == CBS_DROPDOWN && combo != 0 {
        create_window(
            cx,
            child("Edit", WS_CHILD | WS_VISIBLE | ES_AUTOHSCROLL, combo),
        )?
    } else {
        0
    };
    let font = cc::gui_font(cx)?;
    for c in [combo, edit] {
        if c != 0 && font != 0 {
            send(cx, c, WM_SETFONT, font, 0, true)?;
        }
    }
    st(cx, h, |s| {
        s.combo = combo;
        s.edit = edit;
    });
    layout(cx, h)
}

/// The parent's character set for notifications (WM_NOTIFYFORMAT's answer).
fn parent_unicode(cx: &mut Ctx, h: u32) -> UR<bool> {
    const WM_NOTIFYFORMAT: u32 = 0x55;
    const NF_QUERY: u32 = 3;
    const NFR_UNICODE: u32 = 2;
    let parent = cc::win(cx, h).map_or(0, |w| w.parent);
    if parent == 0 {
        return Ok(true);
    }
    Ok(send(cx, parent, WM_NOTIFYFORMAT, h, NF_QUERY, true)? == NFR_UNICODE)
}

fn insert(cx: &mut Ctx, h: u32, lp: u32, u: bool) -> UR<u32> {
    if lp == 0 {
        return Ok(CB_ERR);
    }
    let mut it = Item::default();
    let (_, index) = read_item(cx, lp, &mut it, u)?;
    let (combo, at) = st(cx, h, |s| {
        let at = if index < 0 || index as usize > s.items.len() {
            s.items.len()
        } else {
            index as usize
        };
        s.items.insert(at, it.clone());
        (s.combo, at)
    });
    if combo != 0 {
        send_text(cx, combo, CB_INSERTSTRING, at as u32, &it.text)?;
        send(cx, combo, CB_SETITEMDATA, at as u32, it.lparam, true)?;
    }
    notify_item(cx, h, CBEN_INSERTITEM, at as i32, &it)?;
    Ok(at as u32)
}

fn set_item(cx: &mut Ctx, h: u32, lp: u32, u: bool) -> UR<u32> {
    if lp == 0 {
        return Ok(0);
    }
    let index = cx.proc.mem.read_u32(lp + 4)? as i32;
    let mut it = if index < 0 {
        st(cx, h, |s| s.current.clone())
    } else {
        match st(cx, h, |s| s.items.get(index as usize).cloned()) {
            Some(i) => i,
            None => return Ok(0),
        }
    };
    read_item(cx, lp, &mut it, u)?;
    let combo = st(cx, h, |s| s.combo);
    if index < 0 {
        st(cx, h, |s| s.current = it);
        show_current(cx, h)?;
    } else {
        st(cx, h, |s| s.items[index as usize] = it.clone());
        if combo != 0 {
            // The combo box has no "set string": the item is put back in place,
            // keeping the selection.
            let sel = send(cx, combo, CB_GETCURSEL, 0, 0, true)?;
            send(cx, combo, CB_DELETESTRING, index as u32, 0, true)?;
            send_text(cx, combo, CB_INSERTSTRING, index as u32, &it.text)?;
            send(cx, combo, CB_SETITEMDATA, index as u32, it.lparam, true)?;
            send(cx, combo, CB_SETCURSEL, sel, 0, true)?;
        }
    }
    cc::redraw(cx, h);
    Ok(1)
}

fn get_item(cx: &mut Ctx, h: u32, lp: u32, u: bool) -> UR<u32> {
    if lp == 0 {
        return Ok(0);
    }
    let index = cx.proc.mem.read_u32(lp + 4)? as i32;
    let it = if index < 0 {
        Some(st(cx, h, |s| s.current.clone()))
    } else {
        st(cx, h, |s| s.items.get(index as usize).cloned())
    };
    match it {
        Some(it) => {
            write_item(cx, lp, &it, u)?;
            Ok(1)
        }
        None => Ok(0),
    }
}

fn delete(cx: &mut Ctx, h: u32, index: u32) -> UR<u32> {
    let (combo, it) = st(cx, h, |s| {
        let i = index as usize;
        (s.combo, (i < s.items.len()).then(|| s.items.remove(i)))
    });
    let Some(it) = it else {
        return Ok(CB_ERR);
    };
    if combo != 0 {
        send(cx, combo, CB_DELETESTRING, index, 0, true)?;
    }
    notify_item(cx, h, CBEN_DELETEITEM, index as i32, &it)?;
    Ok(st(cx, h, |s| s.items.len() as u32))
}

/// What the combo box tells its parent (the control) goes on to the control's
/// parent as the control's own; a selection also ends the "edit" as a drop-down
/// choice and shows the chosen item.
fn from_child(cx: &mut Ctx, h: u32, wp: u32, lp: u32) -> UR<u32> {
    let (combo, edit) = st(cx, h, |s| (s.combo, s.edit));
    let code = wp >> 16;
    if lp == combo && combo != 0 {
        if code == CBN_SELCHANGE {
            let sel = send(cx, combo, CB_GETCURSEL, 0, 0, true)? as i32;
            if let Some(it) = st(cx, h, |s| s.items.get(sel.max(0) as usize).cloned()) {
                st(cx, h, |s| s.current = it);
                show_current(cx, h)?;
            }
            notify_end_edit(cx, h, sel)?;
        }
    } else if lp != edit || edit == 0 {
        return Ok(0);
    }
    let Some(w) = cc::win(cx, h) else {
        return Ok(0);
    };
    cc::command(cx, w.parent, w.id, code, h)
}

pub fn wndproc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    match m {
        WM_CREATE => {
            let unicode = parent_unicode(cx, h)?;
            st(cx, h, |s| s.unicode_notify = unicode);
            create_children(cx, h)?;
            Ok(0)
        }
        WM_NCDESTROY => {
            cc::drop_state::<State>(cx, h);
            crate::user32::window::def_window_proc(cx, h, m, wp, lp, u)
        }
        WM_SIZE => {
            layout(cx, h)?;
            Ok(0)
        }
        WM_SETFONT => {
            let (combo, edit) = st(cx, h, |s| (s.combo, s.edit));
            cc::set_font(cx, h, wp);
            for c in [combo, edit] {
                if c != 0 {
                    send(cx, c, WM_SETFONT, wp, lp, true)?;
                }
            }
            Ok(0)
        }
        WM_COMMAND => from_child(cx, h, wp, lp),
        WM_SETTEXT => {
            let edit = st(cx, h, |s| s.edit);
            let t = read_str(cx, lp, u)?;
            st(cx, h, |s| s.current.text = t.clone());
            if edit != 0 {
                send_text(cx, edit, WM_SETTEXT, 0, &t)?;
            }
            Ok(1)
        }
        WM_GETTEXT | WM_GETTEXTLENGTH => {
            let (edit, combo) = st(cx, h, |s| (s.edit, s.combo));
            let to = if edit != 0 { edit } else { combo };
            if to == 0 {
                return Ok(0);
            }
            send(cx, to, m, wp, lp, u)
        }
        CBEM_INSERTITEMA | CBEM_INSERTITEMW => insert(cx, h, lp, m == CBEM_INSERTITEMW || u),
        CBEM_SETITEMA | CBEM_SETITEMW => set_item(cx, h, lp, m == CBEM_SETITEMW || u),
        CBEM_GETITEMA | CBEM_GETITEMW => get_item(cx, h, lp, m == CBEM_GETITEMW || u),
        CB_DELETESTRING => delete(cx, h, wp),
        CB_RESETCONTENT => {
            // Wine 8's control empties itself without a CBEN_DELETEITEM per item.
            let combo = st(cx, h, |s| {
                s.items.clear();
                s.combo
            });
            if combo != 0 {
                send(cx, combo, CB_RESETCONTENT, 0, 0, true)?;
            }
            Ok(0)
        }
        CB_GETCOUNT => Ok(st(cx, h, |s| s.items.len() as u32)),
        CB_GETITEMDATA => Ok(st(cx, h, |s| {
            s.items.get(wp as usize).map_or(CB_ERR, |i| i.lparam)
        })),
        CB_SETITEMDATA => {
            let (combo, ok) = st(cx, h, |s| {
                let ok = s.items.get_mut(wp as usize).map(|i| i.lparam = lp);
                (s.combo, ok.is_some())
            });
            if !ok {
                return Ok(CB_ERR);
            }
            if combo != 0 {
                send(cx, combo, CB_SETITEMDATA, wp, lp, true)?;
            }
            Ok(1)
        }
        CB_SETCURSEL => {
            let combo = st(cx, h, |s| s.combo);
            let r = if combo != 0 {
                send(cx, combo, CB_SETCURSEL, wp, 0, true)?
            } else {
                CB_ERR
            };
            if let Some(it) = st(cx, h, |s| s.items.get(wp as usize).cloned()) {
                st(cx, h, |s| s.current = it);
                show_current(cx, h)?;
            }
            Ok(r)
        }
        CBEM_SETIMAGELIST => Ok(st(cx, h, |s| std::mem::replace(&mut s.himl, lp))),
        CBEM_GETIMAGELIST => Ok(st(cx, h, |s| s.himl)),
        CBEM_GETCOMBOCONTROL => Ok(st(cx, h, |s| s.combo)),
        CBEM_GETEDITCONTROL => Ok(st(cx, h, |s| s.edit)),
        CBEM_SETEXSTYLE | CBEM_SETEXTENDEDSTYLE => Ok(st(cx, h, |s| {
            let mask = if m == CBEM_SETEXTENDEDSTYLE && wp != 0 {
                wp
            } else {
                u32::MAX
            };
            let old = s.ex_style;
            s.ex_style = (old & !mask) | (lp & mask);
            old
        })),
        CBEM_GETEXTENDEDSTYLE => Ok(st(cx, h, |s| s.ex_style)),
        CBEM_HASEDITCHANGED => Ok(0),
        CCM_SETUNICODEFORMAT => Ok(st(cx, h, |s| {
            std::mem::replace(&mut s.unicode_notify, wp != 0) as u32
        })),
        CCM_GETUNICODEFORMAT => Ok(st(cx, h, |s| s.unicode_notify as u32)),
        CCM_SETWINDOWTHEME => Ok(0),
        CB_FIRST..=CB_LAST => {
            let combo = st(cx, h, |s| s.combo);
            if combo == 0 {
                return Ok(CB_ERR);
            }
            send(cx, combo, m, wp, lp, u)
        }
        _ => crate::user32::window::def_window_proc(cx, h, m, wp, lp, u),
    }
}

pub fn exports() -> Vec<crate::hle::ApiDef> {
    vec![crate::user32::hostclass::export(
        "__winterp_ComboBoxExWndProc",
        wndproc,
    )]
}

pub fn class() -> crate::user32::hostclass::HostClass {
    crate::user32::hostclass::HostClass {
        name: "ComboBoxEx32",
        export: "__winterp_ComboBoxExWndProc",
        wndproc,
        // CS_VREDRAW | CS_HREDRAW | CS_DBLCLKS.
        style: 0x1 | 0x2 | 0x8,
        wnd_extra: 0,
        background: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notification_codes_are_the_sdk_values() {
        assert_eq!(CBEN_INSERTITEM, 0xFFFF_FCDF);
        assert_eq!(CBEN_DELETEITEM, 0xFFFF_FCDE);
        assert_eq!(CBEN_ENDEDITW, 0xFFFF_FCDA);
        assert_eq!(CBEM_INSERTITEMW, 0x40B);
        assert_eq!(CBEM_GETEDITCONTROL, 0x407);
    }
}
