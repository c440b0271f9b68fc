//! The pictures of the system icons (IDI_*) and cursors (IDC_*): 32x32 images drawn
//! here in code, in the Windows 16-colour palette, recognisable rather than faithful
//! (no image is copied from Windows). Icons are colour pictures with a transparent
//! background; cursors are monochrome, as Windows 9x's are: white shapes with a black
//! outline, or inverting lines for the text and cross cursors.

use super::icon::IconImage;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

const N: i32 = 32;

const BLACK: u32 = 0x000000;
const WHITE: u32 = 0xffffff;
const RED: u32 = 0xff0000;
const MAROON: u32 = 0x800000;
const GREEN: u32 = 0x00ff00;
const BLUE: u32 = 0x0000ff;
const NAVY: u32 = 0x000080;
const YELLOW: u32 = 0xffff00;
const GREY: u32 = 0x808080;

pub const IDI_APPLICATION: u16 = 32512;
pub const IDI_HAND: u16 = 32513;
pub const IDI_QUESTION: u16 = 32514;
pub const IDI_EXCLAMATION: u16 = 32515;
pub const IDI_ASTERISK: u16 = 32516;
pub const IDI_WINLOGO: u16 = 32517;

pub const IDC_ARROW: u16 = 32512;
pub const IDC_IBEAM: u16 = 32513;
pub const IDC_WAIT: u16 = 32514;
pub const IDC_CROSS: u16 = 32515;
pub const IDC_UPARROW: u16 = 32516;
pub const IDC_SIZE: u16 = 32640;
pub const IDC_ICON: u16 = 32641;
pub const IDC_SIZENWSE: u16 = 32642;
pub const IDC_SIZENESW: u16 = 32643;
pub const IDC_SIZEWE: u16 = 32644;
pub const IDC_SIZENS: u16 = 32645;
pub const IDC_SIZEALL: u16 = 32646;
pub const IDC_NO: u16 = 32648;
pub const IDC_HAND: u16 = 32649;
pub const IDC_APPSTARTING: u16 = 32650;
pub const IDC_HELP: u16 = 32651;

/// What one pixel of an icon or cursor does to the screen.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Px {
    /// The screen shows through (AND 1, XOR 0).
    Clear,
    /// This colour (AND 0, XOR colour).
    Paint(u32),
    /// The screen is inverted (AND 1, XOR white).
    Invert,
}

struct Canvas {
    px: Vec<Px>,
}

impl Canvas {
    fn new() -> Canvas {
        Canvas {
            px: vec![Px::Clear; (N * N) as usize],
        }
    }

    fn get(&self, x: i32, y: i32) -> Px {
        if (0..N).contains(&x) && (0..N).contains(&y) {
            self.px[(y * N + x) as usize]
        } else {
            Px::Clear
        }
    }

    fn set(&mut self, x: i32, y: i32, p: Px) {
        if (0..N).contains(&x) && (0..N).contains(&y) {
            self.px[(y * N + x) as usize] = p;
        }
    }

    /// Sets every pixel for which `inside(x, y)` holds.
    fn fill(&mut self, p: Px, inside: impl Fn(i32, i32) -> bool) {
        for y in 0..N {
            for x in 0..N {
                if inside(x, y) {
                    self.set(x, y, p);
                }
            }
        }
    }

    fn rect(&mut self, l: i32, t: i32, r: i32, b: i32, c: u32) {
        self.fill(Px::Paint(c), |x, y| x >= l && x < r && y >= t && y < b);
    }

    /// A disc around the centre of the picture (between pixels 15 and 16) whose
    /// pixel centres lie within `r` pixels.
    fn disc(&mut self, r: i32, c: u32) {
        self.fill(Px::Paint(c), |x, y| {
            let (dx, dy) = (2 * x + 1 - N, 2 * y + 1 - N);
            dx * dx + dy * dy <= 4 * r * r
        });
    }

    /// Paints a little picture given as text rows at (x0, y0): `#` in `c`, `.` in
    /// white, `^` inverting; any other character leaves the pixel alone.
    fn art(&mut self, x0: i32, y0: i32, rows: &[&str], c: u32) {
        for (j, row) in rows.iter().enumerate() {
            for (i, ch) in row.chars().enumerate() {
                let p = match ch {
                    '#' => Px::Paint(c),
                    '.' => Px::Paint(WHITE),
                    '^' => Px::Invert,
                    _ => continue,
                };
                self.set(x0 + i as i32, y0 + j as i32, p);
            }
        }
    }

    /// Gives every painted shape a one-pixel black outline: each clear pixel next to
    /// (or diagonally next to) a white one turns black. Cursors are white shapes
    /// outlined this way, so they show on light and dark backgrounds.
    fn outline(&mut self) {
        let white = |c: &Canvas, x: i32, y: i32| c.get(x, y) == Px::Paint(WHITE);
        let mut edge = Vec::new();
        for y in 0..N {
            for x in 0..N {
                if self.get(x, y) == Px::Clear
                    && (-1..=1).any(|dy| (-1..=1).any(|dx| white(self, x + dx, y + dy)))
                {
                    edge.push((x, y));
                }
            }
        }
        for (x, y) in edge {
            self.set(x, y, Px::Paint(BLACK));
        }
    }

    /// The picture mirrored left to right.
    fn mirrored(&self) -> Canvas {
        let mut c = Canvas::new();
        for y in 0..N {
            for x in 0..N {
                c.set(N - 1 - x, y, self.get(x, y));
            }
        }
        c
    }

    /// The picture mirrored along its main diagonal (x and y swapped).
    fn transposed(&self) -> Canvas {
        let mut c = Canvas::new();
        for y in 0..N {
            for x in 0..N {
                c.set(y, x, self.get(x, y));
            }
        }
        c
    }

    fn image(&self, is_icon: bool, hotspot: (i32, i32)) -> IconImage {
        let color = self
            .px
            .iter()
            .map(|p| match p {
                Px::Clear => BLACK,
                Px::Paint(c) => *c,
                Px::Invert => WHITE,
            })
            .collect();
        let mask = self.px.iter().map(|p| !matches!(p, Px::Paint(_))).collect();
        IconImage {
            width: N,
            height: N,
            hotspot,
            is_icon,
            // Cursors use only black, white and inversion: monochrome, like the
            // Windows 9x ones (GetIconInfo gives them no colour bitmap).
            mono: !is_icon,
            color,
            mask,
        }
    }
}

// ---- icons ------------------------------------------------------------------------

/// A window: black frame, navy title bar, white client area.
fn application() -> Canvas {
    let mut c = Canvas::new();
    c.rect(1, 3, 31, 29, BLACK);
    c.rect(2, 4, 30, 8, NAVY);
    c.rect(2, 8, 30, 28, WHITE);
    c
}

/// A red disc with a dark rim and a white cross.
fn hand() -> Canvas {
    let mut c = Canvas::new();
    c.disc(15, MAROON);
    c.disc(14, RED);
    c.fill(Px::Paint(WHITE), |x, y| {
        (9..=22).contains(&x)
            && (9..=22).contains(&y)
            && ((x - y).abs() <= 1 || (x + y - 31).abs() <= 1)
    });
    c
}

/// A white disc with a black rim and a blue question mark.
fn question() -> Canvas {
    let mut c = Canvas::new();
    c.disc(15, BLACK);
    c.disc(14, WHITE);
    c.art(
        11,
        7,
        &[
            "  ######  ",
            " ######## ",
            "###    ###",
            "###    ###",
            "       ###",
            "      ### ",
            "     ###  ",
            "    ###   ",
            "    ###   ",
            "    ###   ",
            "          ",
            "    ###   ",
            "    ###   ",
            "    ###   ",
        ],
        BLUE,
    );
    c
}

/// A yellow warning triangle with a black rim and a black exclamation mark.
fn exclamation() -> Canvas {
    let mut c = Canvas::new();
    // Rows 2..=29; the half width grows from 0 at the apex to 15 at the base.
    let half = |y: i32| (y - 2) * 15 / 27;
    c.fill(Px::Paint(BLACK), |x, y| {
        (2..=29).contains(&y) && (2 * x + 1 - N).abs() <= 2 * half(y) + 1
    });
    c.fill(Px::Paint(YELLOW), |x, y| {
        (4..=28).contains(&y) && (2 * x + 1 - N).abs() <= 2 * half(y) - 3
    });
    c.rect(15, 11, 17, 22, BLACK);
    c.rect(15, 24, 17, 26, BLACK);
    c
}

/// A white disc with a black rim and a blue letter i.
fn asterisk() -> Canvas {
    let mut c = Canvas::new();
    c.disc(15, BLACK);
    c.disc(14, WHITE);
    c.rect(14, 7, 18, 11, BLUE);
    c.rect(12, 13, 18, 15, BLUE);
    c.rect(14, 15, 18, 23, BLUE);
    c.rect(12, 23, 20, 25, BLUE);
    c
}

/// Four coloured panes.
fn winlogo() -> Canvas {
    let mut c = Canvas::new();
    c.rect(4, 4, 15, 15, RED);
    c.rect(17, 4, 28, 15, GREEN);
    c.rect(4, 17, 15, 28, BLUE);
    c.rect(17, 17, 28, 28, YELLOW);
    c.rect(15, 4, 17, 28, GREY);
    c.rect(4, 15, 28, 17, GREY);
    c
}

// ---- cursors ------------------------------------------------------------------------

/// The arrow's white body, its tip at (1, 1); the outline puts the hot spot pixel
/// at (0, 0).
const ARROW: &[&str] = &[
    ".",
    "..",
    "...",
    "....",
    ".....",
    "......",
    ".......",
    "........",
    ".........",
    "..........",
    "......",
    "...  ..",
    "..   ..",
    ".     ..",
    "      ..",
    "       ..",
    "       ..",
];

fn arrow() -> Canvas {
    let mut c = Canvas::new();
    c.art(1, 1, ARROW, WHITE);
    c.outline();
    c
}

/// An arrow with something drawn beside it (the busy and help cursors).
fn arrow_with(extra: &[&str], x: i32, y: i32) -> Canvas {
    let mut c = Canvas::new();
    c.art(1, 1, ARROW, WHITE);
    c.art(x, y, extra, WHITE);
    c.outline();
    c
}

const HOURGLASS: &[&str] = &[
    "...........",
    " ......... ",
    "  .......  ",
    "   .....   ",
    "    ...    ",
    "     .     ",
    "    ...    ",
    "   .....   ",
    "  .......  ",
    " ......... ",
    "...........",
];

fn wait() -> Canvas {
    let mut c = Canvas::new();
    c.art(
        9,
        5,
        &[
            "...............",
            "...............",
            " ............. ",
            "  ...........  ",
            "   .........   ",
            "    .......    ",
            "     .....     ",
            "      ...      ",
            "      ...      ",
            "     .....     ",
            "    .......    ",
            "   .........   ",
            "  ...........  ",
            " ............. ",
            "...............",
            "...............",
        ],
        WHITE,
    );
    c.outline();
    // The sand: black grains in both bulbs.
    c.rect(13, 8, 20, 10, BLACK);
    c.rect(15, 16, 18, 19, BLACK);
    c
}

fn ibeam() -> Canvas {
    let mut c = Canvas::new();
    c.fill(Px::Invert, |x, y| {
        ((y == 8 || y == 24) && (12..=20).contains(&x) && x != 16)
            || (x == 16 && (9..=23).contains(&y))
    });
    c
}

fn cross() -> Canvas {
    let mut c = Canvas::new();
    c.fill(Px::Invert, |x, y| {
        (x == 16 && (4..=28).contains(&y)) || (y == 16 && (4..=28).contains(&x))
    });
    c
}

fn uparrow() -> Canvas {
    let mut c = Canvas::new();
    c.fill(Px::Paint(WHITE), |x, y| {
        let d = (x - 16).abs();
        ((2..=10).contains(&y) && d <= y - 2) || ((11..=28).contains(&y) && d <= 1)
    });
    c.outline();
    c
}

/// A double arrow from left to right across the middle row.
fn size_we() -> Canvas {
    let mut c = Canvas::new();
    c.fill(Px::Paint(WHITE), |x, y| {
        let d = (y - 16).abs();
        let head = (3..=8).contains(&x) && d <= x - 3 || (24..=29).contains(&x) && d <= 29 - x;
        head || ((9..=23).contains(&x) && d <= 1)
    });
    c.outline();
    c
}

/// A double arrow from the top left to the bottom right.
fn size_nwse() -> Canvas {
    let mut c = Canvas::new();
    c.fill(Px::Paint(WHITE), |x, y| {
        let head = x >= 5 && y >= 5 && (x - 5) + (y - 5) <= 8
            || x <= 26 && y <= 26 && (26 - x) + (26 - y) <= 8;
        head || ((x - y).abs() <= 1 && (6..=25).contains(&x))
    });
    c.outline();
    c
}

fn size_all() -> Canvas {
    let mut c = Canvas::new();
    c.fill(Px::Paint(WHITE), |x, y| {
        let (dx, dy) = ((x - 16).abs(), (y - 16).abs());
        let heads = (2..=7).contains(&x) && dy <= x - 2
            || (25..=30).contains(&x) && dy <= 30 - x
            || (2..=7).contains(&y) && dx <= y - 2
            || (25..=30).contains(&y) && dx <= 30 - y;
        heads || dy <= 1 && (8..=24).contains(&x) || dx <= 1 && (8..=24).contains(&y)
    });
    c.outline();
    c
}

/// A small framed box (the obsolete IDC_ICON, for dragging an icon).
fn icon_cursor() -> Canvas {
    let mut c = Canvas::new();
    c.fill(Px::Paint(WHITE), |x, y| {
        (9..=22).contains(&x) && (9..=22).contains(&y)
    });
    c.outline();
    c.fill(Px::Paint(BLACK), |x, y| {
        (12..=19).contains(&x)
            && (12..=19).contains(&y)
            && (x == 12 || x == 19 || y == 12 || y == 19)
    });
    c
}

/// A ring with a slash across it.
fn no() -> Canvas {
    let mut c = Canvas::new();
    c.fill(Px::Paint(WHITE), |x, y| {
        let (dx, dy) = (2 * x + 1 - N, 2 * y + 1 - N);
        let r2 = dx * dx + dy * dy;
        let ring = (4 * 9 * 9..=4 * 12 * 12).contains(&r2);
        let slash = (x - y).abs() <= 1 && r2 < 4 * 9 * 9;
        ring || slash
    });
    c.outline();
    c
}

/// A hand pointing up with its index finger; the hot spot is the finger tip.
fn pointing_hand() -> Canvas {
    let mut c = Canvas::new();
    c.art(
        7,
        1,
        &[
            "   ..",
            "   ..",
            "   ..",
            "   ..",
            "   ..",
            "   .. ..",
            "   .. .. ..",
            "   .. .. .. ..",
            ".. .. .. .. ..",
            "..............",
            "..............",
            " .............",
            " .............",
            "  ............",
            "  ............",
            "   ..........",
            "   ..........",
            "    ........",
        ],
        WHITE,
    );
    c.outline();
    c
}

const QUESTION_MARK: &[&str] = &[
    " .... ", "..  ..", "    ..", "   .. ", "  ..  ", "  ..  ", "      ", "  ..  ",
];

/// Every system icon and cursor, by (id, is a cursor).
fn all() -> HashMap<(u16, bool), Arc<IconImage>> {
    let icons: [(u16, fn() -> Canvas); 6] = [
        (IDI_APPLICATION, application),
        (IDI_HAND, hand),
        (IDI_QUESTION, question),
        (IDI_EXCLAMATION, exclamation),
        (IDI_ASTERISK, asterisk),
        (IDI_WINLOGO, winlogo),
    ];
    let mut m = HashMap::new();
    for (id, f) in icons {
        m.insert((id, false), Arc::new(f().image(true, (16, 16))));
    }
    let cursors: Vec<(u16, Canvas, (i32, i32))> = vec![
        (IDC_ARROW, arrow(), (0, 0)),
        (IDC_IBEAM, ibeam(), (16, 16)),
        (IDC_WAIT, wait(), (16, 12)),
        (IDC_CROSS, cross(), (16, 16)),
        (IDC_UPARROW, uparrow(), (16, 1)),
        (IDC_SIZE, size_all(), (16, 16)),
        (IDC_ICON, icon_cursor(), (16, 16)),
        (IDC_SIZENWSE, size_nwse(), (16, 16)),
        (IDC_SIZENESW, size_nwse().mirrored(), (15, 16)),
        (IDC_SIZEWE, size_we(), (16, 16)),
        (IDC_SIZENS, size_we().transposed(), (16, 16)),
        (IDC_SIZEALL, size_all(), (16, 16)),
        (IDC_NO, no(), (16, 16)),
        (IDC_HAND, pointing_hand(), (11, 0)),
        (IDC_APPSTARTING, arrow_with(HOURGLASS, 13, 15), (0, 0)),
        (IDC_HELP, arrow_with(QUESTION_MARK, 14, 2), (0, 0)),
    ];
    for (id, c, hot) in cursors {
        m.insert((id, true), Arc::new(c.image(false, hot)));
    }
    m
}

/// The picture of system icon (`cursor` false) or cursor `id`, if there is one.
pub fn image(id: u16, cursor: bool) -> Option<Arc<IconImage>> {
    static ALL: OnceLock<HashMap<(u16, bool), Arc<IconImage>>> = OnceLock::new();
    ALL.get_or_init(all).get(&(id, cursor)).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(img: &IconImage, x: i32, y: i32) -> (bool, u32) {
        let i = (y * img.width + x) as usize;
        (img.mask[i], img.color[i])
    }

    #[test]
    fn every_documented_id_has_a_32x32_picture() {
        for id in 32512..=32517 {
            let i = image(id, false).expect("icon");
            assert_eq!((i.width, i.height, i.hotspot), (32, 32, (16, 16)));
            assert!(i.is_icon && !i.mono);
        }
        for id in [
            IDC_ARROW,
            IDC_IBEAM,
            IDC_WAIT,
            IDC_CROSS,
            IDC_UPARROW,
            IDC_SIZE,
            IDC_ICON,
            IDC_SIZENWSE,
            IDC_SIZENESW,
            IDC_SIZEWE,
            IDC_SIZENS,
            IDC_SIZEALL,
            IDC_NO,
            IDC_HAND,
            IDC_APPSTARTING,
            IDC_HELP,
        ] {
            let c = image(id, true).expect("cursor");
            assert_eq!((c.width, c.height), (32, 32));
            assert!(!c.is_icon && c.mono);
            // Monochrome: every XOR pixel is black or white.
            assert!(c.color.iter().all(|&p| p == BLACK || p == WHITE));
            // The hot spot lies on the drawing or next to it.
            let (hx, hy) = c.hotspot;
            let drawn = |x: i32, y: i32| {
                let i = (y.clamp(0, 31) * 32 + x.clamp(0, 31)) as usize;
                !c.mask[i] || c.color[i] == WHITE
            };
            assert!(
                (-1..=1).any(|dy| (-1..=1).any(|dx| drawn(hx + dx, hy + dy))),
                "cursor {id}: nothing drawn at its hot spot {:?}",
                c.hotspot
            );
        }
        assert!(image(32518, false).is_none() && image(32647, true).is_none());
    }

    #[test]
    fn pictures_hold_what_their_names_say() {
        // IDI_APPLICATION: a navy title bar above a white page, clear corners.
        let a = image(IDI_APPLICATION, false).unwrap();
        assert_eq!(at(&a, 10, 5), (false, NAVY));
        assert_eq!(at(&a, 10, 20), (false, WHITE));
        assert_eq!(at(&a, 0, 0), (true, BLACK));
        // IDI_HAND: white cross on red, clear corners.
        let h = image(IDI_HAND, false).unwrap();
        assert_eq!(at(&h, 16, 16), (false, WHITE));
        assert_eq!(at(&h, 16, 6), (false, RED));
        assert!(at(&h, 0, 0).0);
        // IDC_ARROW: black tip at the hot spot, white body, black edge, clear elsewhere.
        let c = image(IDC_ARROW, true).unwrap();
        assert_eq!(c.hotspot, (0, 0));
        assert_eq!(at(&c, 0, 0), (false, BLACK));
        assert_eq!(at(&c, 2, 5), (false, WHITE));
        assert_eq!(at(&c, 20, 5), (true, BLACK));
        // IDC_CROSS inverts the screen along its lines.
        let x = image(IDC_CROSS, true).unwrap();
        assert_eq!(at(&x, 16, 10), (true, WHITE));
        assert_eq!(at(&x, 10, 10), (true, BLACK));
    }
}
