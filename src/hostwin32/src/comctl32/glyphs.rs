//! The toolbar's standard bitmaps (HINST_COMMCTRL: IDB_STD_*, IDB_VIEW_*, IDB_HIST_*),
//! drawn here from simple shapes at 16x16 (the large sets are the same pictures
//! scaled to 24x24). They follow the order of the STD_*, VIEW_* and HIST_* indexes;
//! the artwork is winterp's own.

const K: u32 = 0x00_0000; // black
const W: u32 = 0xff_ffff; // white
const G: u32 = 0x80_8080; // dark grey
const L: u32 = 0xc0_c0c0; // light grey
const Y: u32 = 0xff_ff00; // yellow
const D: u32 = 0x80_8000; // dark yellow
const B: u32 = 0x00_00ff; // blue
const N: u32 = 0x00_0080; // navy
const R: u32 = 0xff_0000; // red
const E: u32 = 0x00_8000; // green

/// A 16x16 picture under construction: pixels and transparency.
struct Canvas {
    px: Vec<u32>,
    t: Vec<bool>,
}

impl Canvas {
    fn new() -> Canvas {
        Canvas {
            px: vec![0; 256],
            t: vec![true; 256],
        }
    }
    fn set(&mut self, x: i32, y: i32, c: u32) {
        if (0..16).contains(&x) && (0..16).contains(&y) {
            let i = (y * 16 + x) as usize;
            self.px[i] = c;
            self.t[i] = false;
        }
    }
    fn fill(&mut self, x0: i32, y0: i32, x1: i32, y1: i32, c: u32) {
        for y in y0..=y1 {
            for x in x0..=x1 {
                self.set(x, y, c);
            }
        }
    }
    fn frame(&mut self, x0: i32, y0: i32, x1: i32, y1: i32, c: u32) {
        for x in x0..=x1 {
            self.set(x, y0, c);
            self.set(x, y1, c);
        }
        for y in y0..=y1 {
            self.set(x0, y, c);
            self.set(x1, y, c);
        }
    }
    fn boxed(&mut self, x0: i32, y0: i32, x1: i32, y1: i32, inside: u32, edge: u32) {
        self.fill(x0, y0, x1, y1, inside);
        self.frame(x0, y0, x1, y1, edge);
    }
    fn line(&mut self, x0: i32, y0: i32, x1: i32, y1: i32, c: u32) {
        let n = (x1 - x0).abs().max((y1 - y0).abs()).max(1);
        for k in 0..=n {
            self.set(x0 + (x1 - x0) * k / n, y0 + (y1 - y0) * k / n, c);
        }
    }
    fn ring(&mut self, cx: i32, cy: i32, r: i32, c: u32) {
        for y in -r..=r {
            for x in -r..=r {
                let d = x * x + y * y;
                if d <= r * r && d > (r - 1) * (r - 1) {
                    self.set(cx + x, cy + y, c);
                }
            }
        }
    }
    /// A page with a folded top-right corner and a few text lines.
    fn page(&mut self, x0: i32, y0: i32, x1: i32, y1: i32, lines: bool) {
        self.boxed(x0, y0, x1, y1, W, K);
        for k in 0..3 {
            self.set(x1 - k, y0 + 2 - k, K);
            self.set(x1 - 2, y0 + k, K);
        }
        if lines {
            let mut y = y0 + 4;
            while y < y1 - 1 {
                self.line(x0 + 2, y, x1 - 2, y, G);
                y += 2;
            }
        }
    }
    fn folder(&mut self) {
        self.boxed(1, 5, 13, 13, Y, D);
        self.fill(2, 3, 6, 4, Y);
        self.frame(1, 3, 6, 5, D);
    }
    fn arrow_left(&mut self, y: i32, c: u32) {
        self.line(3, y, 12, y, c);
        self.line(3, y, 6, y - 3, c);
        self.line(3, y, 6, y + 3, c);
    }
    fn arrow_right(&mut self, y: i32, c: u32) {
        self.line(3, y, 12, y, c);
        self.line(12, y, 9, y - 3, c);
        self.line(12, y, 9, y + 3, c);
    }
}

fn std_glyph(i: usize) -> Canvas {
    let mut c = Canvas::new();
    match i {
        0 => {
            // cut: scissors
            c.line(4, 1, 9, 9, G);
            c.line(11, 1, 6, 9, G);
            c.ring(5, 12, 3, K);
            c.ring(10, 12, 3, K);
        }
        1 => {
            // copy: two pages
            c.page(1, 1, 9, 11, true);
            c.page(6, 4, 14, 14, true);
        }
        2 => {
            // paste: clipboard and page
            c.boxed(1, 2, 10, 14, D, K);
            c.boxed(3, 1, 8, 3, L, K);
            c.page(7, 6, 14, 15, true);
        }
        3 => {
            // undo: arrow bending left
            c.arrow_left(5, N);
            c.line(12, 5, 12, 11, N);
            c.line(12, 11, 6, 11, N);
        }
        4 => {
            // redo: arrow bending right
            c.arrow_right(5, N);
            c.line(3, 5, 3, 11, N);
            c.line(3, 11, 9, 11, N);
        }
        5 => {
            // delete: a red cross
            for d in 0..2 {
                c.line(2 + d, 2, 13 + d, 13, R);
                c.line(13 + d, 2, 2 + d, 13, R);
            }
        }
        6 => c.page(3, 1, 12, 14, false),
        7 => {
            c.folder();
            c.line(7, 1, 11, 1, K);
            c.line(11, 1, 11, 4, K);
            c.line(10, 3, 12, 3, K);
        }
        8 => {
            // save: a floppy disk
            c.boxed(1, 1, 14, 14, N, K);
            c.boxed(4, 1, 11, 7, W, K);
            c.boxed(4, 10, 11, 14, L, K);
            c.fill(9, 11, 10, 13, N);
        }
        9 => {
            // print preview: page and magnifier
            c.page(1, 1, 10, 14, true);
            c.ring(10, 9, 3, K);
            c.line(12, 12, 14, 14, K);
        }
        10 => {
            // properties: page with a check list
            c.page(2, 1, 13, 14, false);
            for k in 0..3 {
                let y = 4 + 3 * k;
                c.fill(4, y, 5, y + 1, E);
                c.line(7, y, 11, y, G);
            }
        }
        11 => {
            // help: a question mark
            c.line(5, 3, 6, 2, B);
            c.line(6, 2, 10, 2, B);
            c.line(10, 2, 11, 3, B);
            c.line(11, 3, 11, 6, B);
            c.line(11, 6, 8, 8, B);
            c.line(8, 8, 8, 10, B);
            c.fill(8, 12, 9, 13, B);
        }
        12 => {
            // find: binoculars
            c.ring(4, 9, 3, K);
            c.ring(11, 9, 3, K);
            c.fill(6, 5, 9, 7, K);
            c.fill(3, 2, 5, 6, K);
            c.fill(10, 2, 12, 6, K);
        }
        13 => {
            // replace: page and arrow
            c.page(1, 1, 9, 13, true);
            c.arrow_right(13, B);
        }
        _ => {
            // print: a printer
            c.page(4, 1, 11, 7, false);
            c.boxed(1, 7, 14, 12, L, K);
            c.line(3, 9, 4, 9, E);
            c.boxed(3, 12, 12, 14, W, K);
        }
    }
    c
}

fn view_glyph(i: usize) -> Canvas {
    let mut c = Canvas::new();
    match i {
        0 => {
            for (x, y) in [(1, 1), (9, 1), (1, 9), (9, 9)] {
                c.boxed(x, y, x + 5, y + 5, B, N);
            }
        }
        1 | 2 => {
            for k in 0..4 {
                let y = 1 + 4 * k;
                c.boxed(1, y, 3, y + 2, B, N);
                c.line(5, y + 1, 7, y + 1, K);
                if i == 1 {
                    c.boxed(9, y, 11, y + 2, B, N);
                    c.line(13, y + 1, 14, y + 1, K);
                } else {
                    c.line(7, y + 1, 13, y + 1, K);
                }
            }
        }
        3 => {
            for k in 0..4 {
                let y = 2 + 4 * k;
                c.boxed(1, y - 1, 3, y + 1, B, N);
                c.line(5, y, 8, y, K);
                c.line(10, y, 14, y, G);
            }
        }
        4..=7 => {
            // sort by name/size/date/type: a down arrow beside a marker
            c.line(4, 2, 4, 13, K);
            c.line(4, 13, 1, 10, K);
            c.line(4, 13, 7, 10, K);
            let col = [B, E, R, D][i - 4];
            c.boxed(9, 3, 14, 6, col, K);
            c.boxed(9, 9, 14, 12, L, K);
        }
        8 => {
            c.folder();
            c.line(9, 11, 9, 6, K);
            c.line(9, 6, 7, 8, K);
            c.line(9, 6, 11, 8, K);
        }
        9 | 10 => {
            c.boxed(1, 8, 14, 13, L, K);
            c.line(3, 10, 5, 10, E);
            c.line(7, 1, 7, 7, K);
            if i == 10 {
                c.line(4, 2, 10, 6, R);
                c.line(10, 2, 4, 6, R);
            }
        }
        11 => {
            c.folder();
            c.line(11, 0, 11, 4, R);
            c.line(9, 2, 13, 2, R);
        }
        _ => {
            c.boxed(1, 2, 11, 13, W, K);
            c.line(12, 6, 15, 6, K);
            c.line(13, 7, 14, 7, K);
        }
    }
    c
}

fn hist_glyph(i: usize) -> Canvas {
    let mut c = Canvas::new();
    match i {
        0 => {
            for d in 0..2 {
                c.arrow_left(7 + d, E);
            }
        }
        1 => {
            for d in 0..2 {
                c.arrow_right(7 + d, E);
            }
        }
        2 | 3 => {
            c.boxed(2, 2, 13, 13, Y, D);
            if i == 3 {
                c.line(7, 4, 7, 11, R);
                c.line(4, 7, 11, 7, R);
            }
        }
        _ => {
            c.folder();
            c.line(4, 8, 4, 12, K);
            c.line(4, 10, 8, 10, K);
            c.line(4, 12, 8, 12, K);
        }
    }
    c
}

/// The picture strip of standard bitmap `id` (IDB_*): (width, height, pixels,
/// transparency), or None for an id comctl32 does not have.
pub fn standard_bitmap(id: u32) -> Option<(i32, i32, Vec<u32>, Vec<bool>)> {
    let (n, size, f): (usize, i32, fn(usize) -> Canvas) = match id {
        0 => (15, 16, std_glyph),
        1 => (15, 24, std_glyph),
        4 => (12, 16, view_glyph),
        5 => (12, 24, view_glyph),
        8 => (5, 16, hist_glyph),
        9 => (5, 24, hist_glyph),
        _ => return None,
    };
    let w = size * n as i32;
    let mut px = vec![0u32; (w * size) as usize];
    let mut t = vec![true; (w * size) as usize];
    for k in 0..n {
        let c = f(k);
        for y in 0..size {
            for x in 0..size {
                let (sx, sy) = (x * 16 / size, y * 16 / size);
                let s = (sy * 16 + sx) as usize;
                let d = (y * w + k as i32 * size + x) as usize;
                px[d] = c.px[s];
                t[d] = c.t[s];
            }
        }
    }
    Some((w, size, px, t))
}

/// How many images standard bitmap `id` holds.
pub fn standard_count(id: u32) -> usize {
    match id {
        0 | 1 => 15,
        4 | 5 => 12,
        8 | 9 => 5,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn standard_strips_have_their_image_counts() {
        let (w, h, px, t) = super::standard_bitmap(0).expect("IDB_STD_SMALL_COLOR");
        assert_eq!((w, h), (15 * 16, 16));
        assert_eq!(px.len(), t.len());
        // Every picture has something drawn.
        for k in 0..15 {
            assert!((0..16).any(|y| (0..16).any(|x| !t[(y * w + k * 16 + x) as usize])));
        }
        assert_eq!(
            super::standard_bitmap(5).map(|s| (s.0, s.1)),
            Some((12 * 24, 24))
        );
        assert!(super::standard_bitmap(2).is_none());
    }
}
