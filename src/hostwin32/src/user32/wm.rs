//! The window manager's data: classes, windows, timers, message queues and input
//! state, and the geometry helpers that need no guest calls.

use crate::gdi32::{Rect, Surface, SurfaceRef};
use crate::objects::KernelObject;
use crate::process::Process;
use crate::scheduler::{Locked, Waitable};
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

pub const WS_OVERLAPPED: u32 = 0;
pub const WS_POPUP: u32 = 0x8000_0000;
pub const WS_CHILD: u32 = 0x4000_0000;
pub const WS_MINIMIZE: u32 = 0x2000_0000;
pub const WS_VISIBLE: u32 = 0x1000_0000;
pub const WS_DISABLED: u32 = 0x0800_0000;
pub const WS_CLIPSIBLINGS: u32 = 0x0400_0000;
pub const WS_CLIPCHILDREN: u32 = 0x0200_0000;
pub const WS_MAXIMIZE: u32 = 0x0100_0000;
pub const WS_CAPTION: u32 = 0x00c0_0000;
pub const WS_BORDER: u32 = 0x0080_0000;
pub const WS_DLGFRAME: u32 = 0x0040_0000;
pub const WS_VSCROLL: u32 = 0x0020_0000;
pub const WS_HSCROLL: u32 = 0x0010_0000;
pub const WS_SYSMENU: u32 = 0x0008_0000;
pub const WS_THICKFRAME: u32 = 0x0004_0000;
pub const WS_GROUP: u32 = 0x0002_0000;
pub const WS_TABSTOP: u32 = 0x0001_0000;
pub const WS_EX_DLGMODALFRAME: u32 = 0x1;
pub const WS_EX_NOPARENTNOTIFY: u32 = 0x4;
pub const WS_EX_TOPMOST: u32 = 0x8;
pub const WS_EX_WINDOWEDGE: u32 = 0x100;
pub const WS_EX_CLIENTEDGE: u32 = 0x200;
pub const WS_EX_STATICEDGE: u32 = 0x2_0000;
pub const CS_DBLCLKS: u32 = 0x8;

/// System metrics winterp reports (classic Windows look).
pub const CY_CAPTION: i32 = 19;
pub const CY_MENU: i32 = 19;
pub const CX_FRAME: i32 = 4;
pub const CX_DLGFRAME: i32 = 3;
pub const CX_BORDER: i32 = 1;
pub const CX_EDGE: i32 = 2;

/// Built-in window procedures (their addresses are USER32 thunks).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    DefWindow,
    DefDlg,
    Button,
    Static,
    Edit,
    ListBox,
    ComboBox,
    ScrollBar,
    Subclass,
    MdiClient,
}

impl Builtin {
    pub fn export_name(self) -> &'static str {
        match self {
            Builtin::DefWindow => "DefWindowProcW",
            Builtin::DefDlg => "DefDlgProcW",
            Builtin::Button => "ButtonWndProc",
            Builtin::Static => "StaticWndProc",
            Builtin::Edit => "EditWndProc",
            Builtin::ListBox => "ListBoxWndProc",
            Builtin::ComboBox => "ComboBoxWndProc",
            Builtin::ScrollBar => "ScrollBarWndProc",
            Builtin::Subclass => "SubclassWndProc",
            Builtin::MdiClient => "__winterp_MDIClientWndProc",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Class {
    /// As registered (compared case-insensitively).
    pub name: String,
    pub atom: u16,
    pub style: u32,
    pub wndproc: u32,
    pub unicode: bool,
    pub cls_extra: Vec<u8>,
    pub wnd_extra: u32,
    pub instance: u32,
    pub icon: u32,
    pub icon_sm: u32,
    pub cursor: u32,
    pub background: u32,
    pub menu_name: u32,
    /// System classes exist in every process and cannot be unregistered.
    pub system: bool,
}

/// Per-control state of the built-in controls.
#[derive(Clone, Debug, Default)]
pub struct CtlState {
    /// BUTTON: BST_CHECKED etc.; LISTBOX/COMBOBOX: selected index (-1 none).
    pub check: u32,
    pub pushed: bool,
    pub sel: i32,
    pub top: i32,
    pub items: Vec<(String, u32)>,
    /// EDIT: caret and selection anchor in characters.
    pub caret: usize,
    pub anchor: usize,
    pub limit: usize,
    pub modified: bool,
    pub font: u32,
    pub dropped: bool,
    pub image: u32,
    /// LISTBOX: the items' height (0: the default), and with LBS_OWNERDRAWVARIABLE
    /// each item's, beside `items`; LB_SETHORIZONTALEXTENT's width.
    pub item_h: i32,
    pub heights: Vec<i32>,
    pub extent: u32,
}

#[derive(Clone, Debug, Default)]
pub struct DlgState {
    pub result: Option<u32>,
    pub def_id: u32,
    /// DialogBoxParam's loop owns it (EndDialog ends the loop).
    pub modal: bool,
    pub unicode: bool,
    pub font: u32,
}

pub struct Window {
    pub hwnd: u32,
    pub class: usize,
    /// Parent for child windows (WS_CHILD), else 0.
    pub parent: u32,
    pub owner: u32,
    /// Children, topmost first.
    pub children: Vec<u32>,
    pub style: u32,
    pub exstyle: u32,
    /// Window rectangle relative to the parent's client area (screen for top-level).
    pub rect: Rect,
    /// Client rectangle relative to the window rectangle's top-left corner.
    pub client: Rect,
    pub wndproc: u32,
    pub unicode: bool,
    pub text: String,
    /// Child id (child windows) or menu handle (top-level).
    pub id: u32,
    pub instance: u32,
    pub userdata: u32,
    pub extra: Vec<u8>,
    pub tid: u32,
    /// Pending update area in client coordinates, and whether it needs erasing.
    pub update: Option<Rect>,
    pub erase: bool,
    /// The backing store (top-level windows only).
    pub surface: Option<SurfaceRef>,
    pub props: HashMap<String, u32>,
    pub ctl: CtlState,
    pub dlg: Option<DlgState>,
    pub destroying: bool,
    pub icon: [u32; 2],
    pub cursor_class: u32,
    /// comctl32 SetWindowSubclass chain (procedure, id, reference data), newest
    /// last; the procedure it replaced and its charset; positions of calls running.
    pub subclasses: Vec<(u32, u32, u32)>,
    pub subclass_orig: (u32, bool),
    pub subclass_pos: Vec<usize>,
    /// An overlapped window gets its first WM_SIZE/WM_MOVE when it is first shown,
    /// not at creation (child and pop-up windows get them at creation).
    pub need_size: bool,
    /// Scroll bar state, once a scroll bar function has set any (a window with
    /// WS_HSCROLL / WS_VSCROLL and none set yet has the default bars).
    pub scroll: Option<super::scroll::Bars>,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Msg {
    pub hwnd: u32,
    pub message: u32,
    pub wparam: u32,
    pub lparam: u32,
    pub time: u32,
    pub pt: (i32, i32),
}

/// Reply slot of a message sent to another thread.
pub struct Reply {
    pub st: Mutex<Option<u32>>,
}

impl KernelObject for Reply {
    fn type_name(&self) -> &'static str {
        "SendMessageReply"
    }
    fn as_waitable(&self) -> Option<&dyn Waitable> {
        Some(self)
    }
}

impl Waitable for Reply {
    fn ready(&self, _k: &Locked, _tid: u32) -> bool {
        self.st.lock().unwrap_or_else(|e| e.into_inner()).is_some()
    }
    fn acquire(&self, _k: &Locked, _tid: u32) -> bool {
        false
    }
    fn describe(&self) -> String {
        "reply to a message sent to another thread".into()
    }
}

pub struct Sent {
    pub msg: Msg,
    pub unicode: bool,
    pub reply: Arc<Reply>,
}

#[derive(Default)]
pub struct QueueData {
    pub posted: VecDeque<Msg>,
    pub input: VecDeque<Msg>,
    pub sent: VecDeque<Sent>,
    /// Messages this thread sent to other threads from guest code and still waits
    /// for: the guest-call depth of each send, its reply and the receiving thread
    /// (`msg::send_api`): a deterministic-mode send that blocks is called again and
    /// finds its reply here.
    pub pending: Vec<(u32, Arc<Reply>, u32)>,
    /// Messages from other threads this thread's window procedures are handling
    /// (nested), for InSendMessage.
    pub in_send: u32,
    pub quit: Option<u32>,
    /// Something arrived since the thread last looked (QS "new" bits): what waits
    /// for messages wait for.
    pub wake: bool,
    /// The last message retrieved (GetMessageTime/Pos).
    pub last_time: u32,
    pub last_pos: (i32, i32),
    /// Keyboard state as of the last keyboard message retrieved (GetKeyState).
    pub keys: Vec<u8>,
}

/// A thread's message queue; waitable (MsgWaitForMultipleObjects, GetMessage).
pub struct Queue {
    pub tid: u32,
    pub q: Mutex<QueueData>,
}

impl Queue {
    pub fn lock(&self) -> MutexGuard<'_, QueueData> {
        self.q.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl KernelObject for Queue {
    fn type_name(&self) -> &'static str {
        "MessageQueue"
    }
    fn as_waitable(&self) -> Option<&dyn Waitable> {
        Some(self)
    }
}

impl Waitable for Queue {
    fn ready(&self, _k: &Locked, _tid: u32) -> bool {
        let q = self.lock();
        q.wake || !q.sent.is_empty()
    }
    fn acquire(&self, _k: &Locked, _tid: u32) -> bool {
        false
    }
    fn describe(&self) -> String {
        format!("message queue of thread {:#x}", self.tid)
    }
}

#[derive(Clone, Debug)]
pub struct Timer {
    pub hwnd: u32,
    pub id: u32,
    pub tid: u32,
    pub interval: u32,
    pub due: u64,
    pub proc_: u32,
}

#[derive(Clone, Debug, Default)]
pub struct MenuItem {
    pub id: u32,
    pub flags: u32,
    pub text: String,
    pub submenu: u32,
    /// The application's dwItemData (MENUITEMINFO's MIIM_DATA).
    pub data: u32,
}

#[derive(Clone, Debug, Default)]
pub struct Menu {
    pub items: Vec<MenuItem>,
    pub popup: bool,
}

#[derive(Clone, Debug)]
pub struct Accel {
    pub virt: u8,
    pub key: u16,
    pub cmd: u16,
}

/// What a USER handle other than a window refers to.
#[derive(Clone, Debug)]
pub enum UserObj {
    /// An icon or cursor; `shared` is set for one LoadIcon/LoadCursor/LR_SHARED
    /// made, which later loads of the same resource return and DestroyIcon keeps.
    Icon {
        image: std::sync::Arc<super::icon::IconImage>,
        shared: Option<super::icon::SharedKey>,
    },
    Accel(Vec<Accel>),
}

pub struct Wm {
    pub classes: Vec<Option<Class>>,
    pub windows: HashMap<u32, Window>,
    /// Top-level windows, topmost first.
    pub top: Vec<u32>,
    next_hwnd: u32,
    pub queues: HashMap<u32, Arc<Queue>>,
    pub timers: Vec<Timer>,
    /// Windows with a pending update area.
    pub dirty: BTreeSet<u32>,
    pub focus: u32,
    pub active: u32,
    pub capture: u32,
    /// Async key state: 0x80 down, 0x01 toggled.
    pub keys: [u8; 256],
    /// Async key pressed since the last GetAsyncKeyState (bit 0).
    pub pressed: [bool; 256],
    pub cursor: (i32, i32),
    pub cursor_count: i32,
    pub cursor_handle: u32,
    pub clip: Option<Rect>,
    pub atoms: HashMap<String, u16>,
    next_atom: u16,
    pub menus: HashMap<u32, Menu>,
    pub objs: HashMap<u32, UserObj>,
    next_obj: u32,
    /// The last button press: (time, hwnd, message, screen point), for double clicks.
    pub last_click: Option<(u64, u32, u32, (i32, i32))>,
    pub caret: Option<(u32, Rect)>,
    pub sys_brushes: HashMap<u32, u32>,
    /// Key of a pressed key for auto-repeat counting.
    pub main: u32,
    /// Windows whose menu bar is painted again before the next frame.
    pub menubar_dirty: BTreeSet<u32>,
    /// The menu being tracked (a click on a menu bar, TrackPopupMenu).
    pub menu_track: Option<super::menubar::Track>,
    /// For a top-level unowned window, the window of its owner tree activated last
    /// (GetLastActivePopup).
    pub last_active_popup: HashMap<u32, u32>,
    /// Owned windows that DefWindowProc hid for ShowOwnedPopups(FALSE), which
    /// ShowOwnedPopups(TRUE) shows again.
    pub hidden_with_owner: BTreeSet<u32>,
}

impl Default for Wm {
    fn default() -> Self {
        let mut w = Wm {
            classes: Vec::new(),
            windows: HashMap::new(),
            top: Vec::new(),
            next_hwnd: 0x0001_0020,
            queues: HashMap::new(),
            timers: Vec::new(),
            dirty: BTreeSet::new(),
            focus: 0,
            active: 0,
            capture: 0,
            keys: [0; 256],
            pressed: [false; 256],
            cursor: (0, 0),
            cursor_count: 0,
            cursor_handle: 0,
            clip: None,
            atoms: HashMap::new(),
            next_atom: 0xc000,
            menus: HashMap::new(),
            objs: HashMap::new(),
            next_obj: 0x0003_0000,
            last_click: None,
            caret: None,
            sys_brushes: HashMap::new(),
            main: 0,
            menubar_dirty: BTreeSet::new(),
            menu_track: None,
            last_active_popup: HashMap::new(),
            hidden_with_owner: BTreeSet::new(),
        };
        w.register_system_classes();
        w
    }
}

/// The desktop window's handle.
pub const HWND_DESKTOP: u32 = 0x0001_0010;

impl Wm {
    fn register_system_classes(&mut self) {
        let sys = [
            ("Button", Builtin::Button, 0x0080u16, 0x0003 | CS_DBLCLKS),
            ("Edit", Builtin::Edit, 0x0081, 0x0003 | CS_DBLCLKS),
            ("Static", Builtin::Static, 0x0082, 0x0003),
            ("ListBox", Builtin::ListBox, 0x0083, 0x0003 | CS_DBLCLKS),
            ("ScrollBar", Builtin::ScrollBar, 0x0084, 0x0003 | CS_DBLCLKS),
            ("ComboBox", Builtin::ComboBox, 0x0085, 0x0003 | CS_DBLCLKS),
            ("#32770", Builtin::DefDlg, 0x8002, 0x0008),
            // A string atom on Windows; one below the string range here, so the
            // atoms programs register keep their values.
            ("MDIClient", Builtin::MdiClient, 0xbfff, 0),
        ];
        for (name, b, atom, style) in sys {
            self.classes.push(Some(Class {
                name: name.into(),
                atom,
                style,
                // Resolved to the thunk address when first used (needs the process).
                wndproc: 0x8000_0000 | b as u32,
                unicode: true,
                cls_extra: Vec::new(),
                wnd_extra: if b == Builtin::DefDlg { 30 } else { 0 },
                instance: 0,
                icon: 0,
                icon_sm: 0,
                cursor: 0,
                background: match b {
                    Builtin::DefDlg => 16,
                    // COLOR_APPWORKSPACE + 1.
                    Builtin::MdiClient => 13,
                    _ => 0,
                },
                menu_name: 0,
                system: true,
            }));
        }
    }

    pub fn alloc_hwnd(&mut self) -> u32 {
        self.next_hwnd += 4;
        self.next_hwnd
    }

    pub fn alloc_obj(&mut self, o: UserObj) -> u32 {
        self.next_obj += 4;
        self.objs.insert(self.next_obj, o);
        self.next_obj
    }

    pub fn alloc_atom(&mut self, name: &str) -> u16 {
        let key = name.to_uppercase();
        if let Some(&a) = self.atoms.get(&key) {
            return a;
        }
        let a = self.next_atom;
        self.next_atom = self.next_atom.wrapping_add(1).max(0xc000);
        self.atoms.insert(key, a);
        a
    }

    pub fn find_class(&self, name: &super::NameOrId, instance: u32) -> Option<usize> {
        // Application classes of the instance first, then any (global/system).
        let m = |c: &Class| match name {
            super::NameOrId::Id(a) => c.atom == *a,
            super::NameOrId::Name(n) => c.name.eq_ignore_ascii_case(n),
        };
        let f = |local: bool| {
            self.classes.iter().position(|c| {
                c.as_ref()
                    .is_some_and(|c| m(c) && (!local || (!c.system && c.instance == instance)))
            })
        };
        f(true).or_else(|| f(false))
    }

    pub fn win(&self, h: u32) -> Option<&Window> {
        self.windows.get(&h)
    }

    pub fn win_mut(&mut self, h: u32) -> Option<&mut Window> {
        self.windows.get_mut(&h)
    }

    pub fn class_of(&self, h: u32) -> Option<&Class> {
        self.win(h)
            .and_then(|w| self.classes.get(w.class))
            .and_then(|c| c.as_ref())
    }

    pub fn queue(&mut self, tid: u32) -> Arc<Queue> {
        self.queues
            .entry(tid)
            .or_insert_with(|| {
                Arc::new(Queue {
                    tid,
                    q: Mutex::new(QueueData {
                        keys: vec![0; 256],
                        ..Default::default()
                    }),
                })
            })
            .clone()
    }

    /// The top-level ancestor (itself for top-level windows).
    pub fn top_of(&self, mut h: u32) -> u32 {
        for _ in 0..64 {
            match self.win(h) {
                Some(w) if w.parent != 0 => h = w.parent,
                _ => break,
            }
        }
        h
    }

    /// Screen position of the window rectangle's top-left corner.
    pub fn window_origin(&self, h: u32) -> (i32, i32) {
        let Some(w) = self.win(h) else { return (0, 0) };
        let (px, py) = if w.parent != 0 {
            self.client_origin(w.parent)
        } else {
            (0, 0)
        };
        (px + w.rect.left, py + w.rect.top)
    }

    /// Screen position of the client area's top-left corner.
    pub fn client_origin(&self, h: u32) -> (i32, i32) {
        if h == HWND_DESKTOP || h == 0 {
            return (0, 0);
        }
        let Some(w) = self.win(h) else { return (0, 0) };
        let (x, y) = self.window_origin(h);
        (x + w.client.left, y + w.client.top)
    }

    pub fn client_size(&self, h: u32) -> (i32, i32) {
        self.win(h)
            .map_or((0, 0), |w| (w.client.width(), w.client.height()))
    }

    /// Visible and all ancestors visible.
    pub fn is_visible(&self, mut h: u32) -> bool {
        for _ in 0..64 {
            let Some(w) = self.win(h) else { return false };
            if w.style & WS_VISIBLE == 0 {
                return false;
            }
            if w.parent == 0 {
                return true;
            }
            h = w.parent;
        }
        false
    }

    /// Where a DC for `h`'s client area (or whole window) draws: the top-level's
    /// backing store, the origin in surface pixels and the clip.
    pub fn dc_target(&self, h: u32, whole: bool) -> Option<crate::gdi32::WindowTarget> {
        let top = self.top_of(h);
        let surface = self.win(top)?.surface.clone()?;
        let (tx, ty) = self.window_origin(top);
        let w = self.win(h)?;
        let (ox, oy) = if whole {
            self.window_origin(h)
        } else {
            self.client_origin(h)
        };
        let (ox, oy) = (ox - tx, oy - ty);
        let mut clip = if whole {
            Rect::new(0, 0, w.rect.width(), w.rect.height()).offset(ox, oy)
        } else {
            Rect::new(0, 0, w.client.width(), w.client.height()).offset(ox, oy)
        };
        // Clipped by every ancestor's client area.
        let mut p = w.parent;
        for _ in 0..64 {
            if p == 0 {
                break;
            }
            let Some(pw) = self.win(p) else { break };
            let (cx, cy) = self.client_origin(p);
            let pr =
                Rect::new(0, 0, pw.client.width(), pw.client.height()).offset(cx - tx, cy - ty);
            clip = clip.intersect(&pr);
            p = pw.parent;
        }
        if clip.is_empty() {
            clip = Rect::default();
        }
        Some(crate::gdi32::WindowTarget {
            surface,
            origin: (ox, oy),
            clip,
            hwnd: h,
        })
    }

    /// Non-client insets (left, top, right, bottom) a style gives.
    pub fn nc_insets(style: u32, exstyle: u32, menu: bool) -> Rect {
        let mut b = 0;
        if style & WS_THICKFRAME != 0 {
            b = CX_FRAME;
        } else if style & WS_DLGFRAME != 0 || exstyle & WS_EX_DLGMODALFRAME != 0 {
            b = CX_DLGFRAME;
        } else if style & WS_BORDER != 0 {
            b = CX_BORDER;
        }
        if exstyle & WS_EX_CLIENTEDGE != 0 {
            b += CX_EDGE;
        } else if exstyle & WS_EX_STATICEDGE != 0 {
            b += 1;
        }
        let mut top = b;
        if style & WS_CAPTION == WS_CAPTION {
            top += CY_CAPTION;
        }
        if menu && style & WS_CHILD == 0 {
            top += CY_MENU;
        }
        Rect::new(b, top, b, b)
    }

    /// Height of the menu bar window `h` would have at `width` pixels wide (0 without
    /// one): more than SM_CYMENU when its items wrap.
    pub fn menu_bar_height(&self, h: u32, width: i32) -> i32 {
        match self.win(h) {
            Some(w) if super::menubar::has_bar(w) => {
                super::menubar::bar_for(self, w.id, w.style, w.exstyle, width)
                    .rect
                    .height()
            }
            _ => 0,
        }
    }

    /// Non-client insets of window `h` at `width` pixels wide: the style's, and the
    /// menu bar as laid out.
    pub fn window_insets(&self, h: u32, width: i32) -> Rect {
        let Some(w) = self.win(h) else {
            return Rect::default();
        };
        let mut i = Wm::nc_insets(w.style, w.exstyle, false);
        i.top += self.menu_bar_height(h, width);
        // Visible scroll bars lie inside the client edge, right of and below the
        // client area.
        if w.style & WS_VSCROLL != 0 {
            i.right += super::scroll::BAR_SIZE;
        }
        if w.style & WS_HSCROLL != 0 {
            i.bottom += super::scroll::BAR_SIZE;
        }
        i
    }

    /// DefWindowProc's WM_NCHITTEST: what part of window `h` screen point `p` is on
    /// (HTNOWHERE 0, HTCLIENT 1, HTCAPTION 2, HTMENU 5, HTHSCROLL 6, HTVSCROLL 7 or
    /// HTBORDER 18).
    pub fn nc_hit_test(&self, h: u32, p: (i32, i32)) -> u32 {
        let Some(w) = self.win(h) else { return 0 };
        let (ox, oy) = self.window_origin(h);
        let (x, y) = (p.0 - ox, p.1 - oy);
        if !Rect::new(0, 0, w.rect.width(), w.rect.height()).contains(x, y) {
            return 0;
        }
        if w.client.contains(x, y) {
            return 1;
        }
        if let Some(bar) = super::menubar::bar_of(self, h)
            && bar.rect.contains(x, y)
        {
            return 5;
        }
        if let Some(ht) = super::scroll::hit_test(w, x, y) {
            return ht;
        }
        let frame = Wm::nc_insets(w.style, 0, false);
        if w.style & WS_CAPTION == WS_CAPTION && y >= frame.left && y < frame.top {
            return 2;
        }
        18
    }

    /// Recomputes the client rectangle from the window rectangle and style.
    pub fn recalc_client(&mut self, h: u32) {
        let Some(w) = self.win(h) else { return };
        let i = self.window_insets(h, w.rect.width());
        if super::menubar::has_bar(w) {
            // Its items may have moved with the size.
            self.menubar_dirty.insert(h);
        }
        let Some(w) = self.win(h) else { return };
        let (ww, wh) = (w.rect.width(), w.rect.height());
        let c = Rect::new(
            i.left.min(ww),
            i.top.min(wh),
            (ww - i.right).max(i.left.min(ww)),
            (wh - i.bottom).max(i.top.min(wh)),
        );
        if let Some(w) = self.win_mut(h) {
            w.client = c;
            if let Some(s) = &w.surface {
                let mut s = s.lock().unwrap_or_else(|e| e.into_inner());
                if s.width != ww.max(0) as u32 || s.height != wh.max(0) as u32 {
                    s.resize(ww.max(0) as u32, wh.max(0) as u32);
                }
            }
        }
    }

    /// Adds `r` (client coordinates; `None`: everything) to the update area of `h`
    /// and, since parents paint over their children, of the children it covers.
    pub fn invalidate(&mut self, h: u32, r: Option<Rect>, erase: bool) {
        let Some(w) = self.win(h) else { return };
        let full = Rect::new(0, 0, w.client.width(), w.client.height());
        let r = r.unwrap_or(full).intersect(&full);
        let tid = w.tid;
        let children = w.children.clone();
        if !r.is_empty() {
            let w = self.win_mut(h).expect("looked up above");
            w.update = Some(match w.update {
                Some(u) => union(u, r),
                None => r,
            });
            w.erase |= erase;
            self.dirty.insert(h);
            let q = self.queue(tid);
            q.lock().wake = true;
        }
        for c in children {
            let Some(cw) = self.win(c) else { continue };
            if cw.style & WS_VISIBLE == 0 {
                continue;
            }
            let off = (cw.rect.left + cw.client.left, cw.rect.top + cw.client.top);
            let cr = r.offset(-off.0, -off.1);
            if !cr.is_empty() {
                self.invalidate(c, Some(cr), erase);
            }
        }
    }

    pub fn validate(&mut self, h: u32, r: Option<Rect>) {
        let Some(w) = self.win_mut(h) else { return };
        match (r, w.update) {
            (None, _) | (_, None) => w.update = None,
            (Some(r), Some(u)) => {
                // Only a rectangle that covers the whole area empties it.
                if r.left <= u.left && r.top <= u.top && r.right >= u.right && r.bottom >= u.bottom
                {
                    w.update = None;
                }
            }
        }
        if w.update.is_none() {
            w.erase = false;
            self.dirty.remove(&h);
        }
    }

    /// A window of thread `tid` that needs WM_PAINT (parents before children) and
    /// matches the filter.
    pub fn paint_candidate(&self, tid: u32, filter: u32) -> Option<u32> {
        if self.dirty.is_empty() {
            return None;
        }
        self.dirty.iter().copied().find(|&h| {
            let Some(w) = self.win(h) else { return false };
            if w.tid != tid || !self.is_visible(h) {
                return false;
            }
            if filter != 0 && filter != h && !self.is_child_of(h, filter) {
                return false;
            }
            // A dirty ancestor paints first.
            let mut p = w.parent;
            while p != 0 {
                if self.dirty.contains(&p) && self.is_visible(p) {
                    return false;
                }
                p = self.win(p).map_or(0, |w| w.parent);
            }
            true
        })
    }

    pub fn is_child_of(&self, mut h: u32, anc: u32) -> bool {
        for _ in 0..64 {
            match self.win(h) {
                Some(w) if w.parent != 0 => {
                    if w.parent == anc {
                        return true;
                    }
                    h = w.parent;
                }
                _ => return false,
            }
        }
        false
    }

    /// The deepest visible, enabled-or-not window at screen point `p`.
    pub fn window_at(&self, p: (i32, i32)) -> Option<u32> {
        let top = self.top.iter().copied().find(|&h| {
            self.win(h).is_some_and(|w| {
                w.style & WS_VISIBLE != 0 && {
                    let (x, y) = self.window_origin(h);
                    Rect::new(0, 0, w.rect.width(), w.rect.height()).contains(p.0 - x, p.1 - y)
                }
            })
        })?;
        Some(self.child_at(top, p))
    }

    fn child_at(&self, h: u32, p: (i32, i32)) -> u32 {
        let Some(w) = self.win(h) else { return h };
        let (cx, cy) = self.client_origin(h);
        if !Rect::new(0, 0, w.client.width(), w.client.height()).contains(p.0 - cx, p.1 - cy) {
            return h;
        }
        for &c in &w.children {
            let Some(cw) = self.win(c) else { continue };
            if cw.style & WS_VISIBLE == 0 {
                continue;
            }
            if cw.rect.contains(p.0 - cx, p.1 - cy) {
                // Group boxes are transparent to the mouse (HTTRANSPARENT).
                if self.class_of(c).is_some_and(|k| k.name == "Button") && cw.style & 0xf == 7 {
                    continue;
                }
                return self.child_at(c, p);
            }
        }
        h
    }

    /// The main window: the first visible, unowned top-level window created. A
    /// window of no size is nobody's main window, whatever its style says: Delphi's
    /// TApplication keeps a visible 0x0 window that owns the real forms.
    pub fn main_window(&self) -> Option<u32> {
        let shown = |h: u32| {
            self.win(h)
                .is_some_and(|w| w.style & WS_VISIBLE != 0 && !w.rect.is_empty())
        };
        if self.main != 0 && shown(self.main) {
            return Some(self.main);
        }
        let mut v: Vec<u32> = self.top.iter().copied().filter(|&h| shown(h)).collect();
        v.sort_unstable();
        v.iter()
            .copied()
            .find(|&h| self.win(h).is_some_and(|w| w.owner == 0))
            .or(v.first().copied())
    }
}

pub fn union(a: Rect, b: Rect) -> Rect {
    if a.is_empty() {
        return b;
    }
    if b.is_empty() {
        return a;
    }
    Rect::new(
        a.left.min(b.left),
        a.top.min(b.top),
        a.right.max(b.right),
        a.bottom.max(b.bottom),
    )
}

/// A new backing store for a top-level window of `w` x `h` pixels.
pub fn new_surface(w: i32, h: i32) -> SurfaceRef {
    Arc::new(Mutex::new(Surface::new(w.max(0) as u32, h.max(0) as u32)))
}

/// The process clock in milliseconds (virtual in deterministic mode), on
/// GetTickCount's scale: message times and TIMERPROC's dwTime are GetTickCount values.
pub fn now_ms(cx: &crate::hle::Ctx) -> u64 {
    crate::kernel32::time::BOOT_MILLIS
        + if cx.proc.config.deterministic {
            crate::scheduler::virtual_time_ms(cx)
        } else {
            cx.proc.host.millis()
        }
}

/// The process clock from host code that has no thread (input injection).
pub fn now_ms_host(proc: &Process) -> u64 {
    crate::kernel32::time::BOOT_MILLIS
        + if proc.config.deterministic {
            crate::scheduler::virtual_clock(proc) / crate::scheduler::INSNS_PER_MS
        } else {
            proc.host.millis()
        }
}

/// Signals that `q` has something new and wakes threads waiting for it.
pub fn wake_queue(proc: &Process, q: &Queue) {
    q.lock().wake = true;
    let k = proc.sched.lock();
    proc.sched.wake(&k);
}

/// Wakes waiters (after changing queues under the window-manager lock).
pub fn wake_all(proc: &Process) {
    let k = proc.sched.lock();
    proc.sched.wake(&k);
}
