//! The per-thread block cache: a directory of guest pages, each with a parallel
//! index of one u16 per guest byte (page-compilation.md §0 and §5):
//!
//! - `< COVER`: a block starts at this byte; the value is its slot in the page;
//! - `COVER`: some block's instruction bytes include this byte;
//! - `NONE`: no decoded code here.
//!
//! A store into code reads the entries under the written bytes (and the 14 bytes
//! before, since an instruction is at most 15 bytes long): if they are all `NONE`
//! nothing is retired. Otherwise exactly the blocks whose byte range intersects the
//! write are retired and the page's entries rebuilt for their bytes.

use super::op::Op;
use std::cell::Cell;

pub const NONE: u16 = 0xffff;
pub const COVER: u16 = 0x8000;
const PAGES: usize = 1 << 20;

pub struct Block {
    pub ops: Box<[Op]>,
    pub start: u32,
    /// One past the last guest byte decoded (may lie in the next page).
    pub end: u32,
    /// Guest instructions in the block (ops minus a trailing `block_end`).
    pub ninsn: u32,
    pub live: bool,
    /// Times the run loop entered the block (a fast-path iteration counts as one).
    pub entries: Cell<u64>,
    /// The run loop no longer offers this block to the micro-op tier: the gate was
    /// off, a fold owns it, or the tier holds a negative verdict on it as a loop
    /// head (declined, claimed by another tier, retired). A gate switch flushes
    /// decoded code and negative verdicts last until a flush, so the mark never
    /// outlives its reason.
    pub uop_skip: Cell<bool>,
    /// A loop-idiom fold matched on this block when it was decoded (tiers/fold.rs).
    pub fold: Option<Box<crate::tiers::fold::Fold>>,
    /// A block/region executor descriptor headed by this block (tiers/region.rs).
    pub region: Option<Box<crate::tiers::region::Region>>,
    /// The block's host code from the `jit` tier, if compiled (src/core/src/jit):
    /// retired with the block.
    pub jit: Cell<crate::jit::Slot>,
}

pub struct PageCode {
    pub index: Box<[u16; 4096]>,
    pub blocks: Vec<Block>,
    free: Vec<u16>,
}

impl PageCode {
    fn new() -> PageCode {
        PageCode {
            index: Box::new([NONE; 4096]),
            blocks: Vec::new(),
            free: Vec::new(),
        }
    }
}

pub struct BlockCache {
    dir: Vec<Option<Box<PageCode>>>,
    /// Pages that have a directory entry, for flushing.
    live_pages: Vec<u32>,
}

impl Default for BlockCache {
    fn default() -> Self {
        Self::new()
    }
}

impl BlockCache {
    pub fn new() -> BlockCache {
        BlockCache {
            dir: (0..PAGES).map(|_| None).collect(),
            live_pages: Vec::new(),
        }
    }

    #[inline(always)]
    pub fn lookup(&self, eip: u32) -> Option<&Block> {
        let page = self.dir[(eip >> 12) as usize].as_deref()?;
        let e = page.index[(eip & 0xfff) as usize];
        if e < COVER {
            Some(&page.blocks[e as usize])
        } else {
            None
        }
    }

    /// The block starting at `eip`, decoding and installing it with `decode` on a miss.
    #[inline(always)]
    pub fn get_or_decode<E>(
        &mut self,
        eip: u32,
        decode: impl FnOnce() -> Result<Block, E>,
    ) -> Result<&Block, E> {
        let pn = (eip >> 12) as usize;
        let slot = self.dir[pn]
            .as_deref()
            .map_or(NONE, |p| p.index[(eip & 0xfff) as usize]);
        if slot < COVER {
            let page = self.dir[pn].as_deref().expect("page checked above");
            return Ok(&page.blocks[slot as usize]);
        }
        let b = decode()?;
        Ok(self.insert(b))
    }

    /// Installs a decoded block starting at `block.start` and returns it.
    pub fn insert(&mut self, block: Block) -> &Block {
        let start = block.start;
        let end = block.end;
        let pn = (start >> 12) as usize;
        if self.dir[pn].is_none() {
            self.dir[pn] = Some(Box::new(PageCode::new()));
            self.live_pages.push(pn as u32);
        }
        // A block that spills into the next page marks the spilled bytes there too.
        let page_end = (start & !0xfff).wrapping_add(0x1000);
        if end > page_end || (end < start) {
            let npn = (pn + 1) & (PAGES - 1);
            if self.dir[npn].is_none() {
                self.dir[npn] = Some(Box::new(PageCode::new()));
                self.live_pages.push(npn as u32);
            }
            let next = self.dir[npn].as_mut().expect("just created");
            for a in page_end..end.max(page_end) {
                let e = &mut next.index[(a & 0xfff) as usize];
                if *e == NONE {
                    *e = COVER;
                }
            }
        }
        let page = self.dir[pn].as_mut().expect("just created");
        let slot = match page.free.pop() {
            Some(s) => {
                page.blocks[s as usize] = block;
                s
            }
            None => {
                page.blocks.push(block);
                (page.blocks.len() - 1) as u16
            }
        };
        assert!(slot < COVER, "more than 32767 blocks in one guest page");
        page.index[(start & 0xfff) as usize] = slot;
        let stop = end.min(page_end).max(start + 1);
        for a in start + 1..stop {
            let e = &mut page.index[(a & 0xfff) as usize];
            if *e == NONE {
                *e = COVER;
            }
        }
        &page.blocks[slot as usize]
    }

    /// Retires every block whose bytes intersect `[addr, addr+len)`. Returns how many.
    pub fn invalidate(&mut self, addr: u32, len: u32) -> u32 {
        if len == 0 {
            return 0;
        }
        let lo = addr as u64;
        let hi = addr as u64 + len as u64;
        let first = (addr >> 12) as u64;
        let last = ((hi - 1) >> 12).min(PAGES as u64 - 1);
        let mut retired = 0;
        for pn in first..=last {
            // Cheap filter: any decoded byte under the write (or up to 14 bytes before)?
            let page_lo = (pn << 12).max(lo.saturating_sub(14));
            let page_hi = ((pn + 1) << 12).min(hi);
            let hit = match self.dir[pn as usize].as_deref() {
                None => false,
                Some(p) => (page_lo..page_hi).any(|a| p.index[(a & 0xfff) as usize] != NONE),
            };
            if !hit {
                continue;
            }
            retired += self.retire_in_page(pn as usize, lo, hi);
            // A block of the previous page may spill into this one.
            if pn > 0 && lo < (pn << 12) + 15 {
                retired += self.retire_in_page(pn as usize - 1, lo, hi);
            }
        }
        retired
    }

    fn retire_in_page(&mut self, pn: usize, lo: u64, hi: u64) -> u32 {
        let Some(page) = self.dir[pn].as_deref_mut() else {
            return 0;
        };
        let mut n = 0;
        let mut spilled = false;
        for s in 0..page.blocks.len() {
            let b = &mut page.blocks[s];
            if !b.live {
                continue;
            }
            let (bs, be) = (b.start as u64, span_end(b.start, b.end));
            if bs < hi && lo < be {
                b.live = false;
                b.ops = Box::new([]);
                page.free.push(s as u16);
                n += 1;
                spilled |= be > ((pn as u64 + 1) << 12);
            }
        }
        if n > 0 {
            self.reindex(pn);
            if spilled && pn + 1 < PAGES {
                self.reindex(pn + 1);
            }
        }
        n
    }

    /// Recomputes page `pn`'s index from its live blocks and the blocks of the
    /// previous page that spill into it.
    fn reindex(&mut self, pn: usize) {
        let prev = if pn == 0 {
            None
        } else {
            self.dir[pn - 1].as_deref()
        };
        let spill_end = prev.map_or(0, |prev| {
            prev.blocks
                .iter()
                .filter(|b| b.live)
                .map(|b| span_end(b.start, b.end))
                .max()
                .unwrap_or(0)
        });
        if let Some(page) = self.dir[pn].as_deref_mut() {
            rebuild_index(page, pn);
            for a in (pn as u64) << 12..spill_end.max((pn as u64) << 12) {
                let e = &mut page.index[(a & 0xfff) as usize];
                if *e == NONE {
                    *e = COVER;
                }
            }
        }
    }

    /// Drops all decoded code.
    pub fn flush(&mut self) {
        for pn in self.live_pages.drain(..) {
            self.dir[pn as usize] = None;
        }
    }

    /// Live blocks, for the hot-block histogram.
    pub fn blocks(&self) -> impl Iterator<Item = &Block> {
        self.live_pages
            .iter()
            .filter_map(|&pn| self.dir[pn as usize].as_deref())
            .flat_map(|p| p.blocks.iter().filter(|b| b.live))
    }
}

fn span_end(start: u32, end: u32) -> u64 {
    if end < start {
        end as u64 + (1 << 32)
    } else {
        end as u64
    }
}

/// Rebuilds a page's index from its live blocks (bytes spilled in from the previous
/// page are restored by the caller).
fn rebuild_index(page: &mut PageCode, pn: usize) {
    page.index.fill(NONE);
    let base = (pn as u64) << 12;
    for (s, b) in page.blocks.iter().enumerate() {
        if !b.live {
            continue;
        }
        let be = span_end(b.start, b.end).min(base + 0x1000);
        for a in b.start as u64 + 1..be {
            let e = &mut page.index[(a & 0xfff) as usize];
            if *e == NONE {
                *e = COVER;
            }
        }
        let _ = s;
    }
    for (s, b) in page.blocks.iter().enumerate() {
        if b.live {
            page.index[(b.start & 0xfff) as usize] = s as u16;
        }
    }
}
