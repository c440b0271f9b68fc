//! Play-cursor arithmetic of a DirectSound buffer, on the guest clock.
//!
//! While a buffer plays, frames are numbered absolutely: frame `anchor_frame` played
//! at `anchor_us`, and the play cursor at guest time `t` is
//! `anchor_frame + floor((t - anchor_us) * freq / 1e6)` (so frame `f` starts at
//! [`frame_time`]`(f)`, the exact inverse). The buffer position is that number modulo
//! the buffer's frames; a one-shot run ends at an absolute frame (`end`). Keeping the
//! numbering absolute lets capture and notifications remember how far they got
//! across loop wrap-arounds.

/// A buffer's play state while it plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    pub anchor_us: u64,
    pub anchor_frame: u64,
    /// One-shot: the absolute frame at which it stops (the end of the buffer).
    pub end: Option<u64>,
}

impl Run {
    /// Absolute frame under the play cursor at `now` (clamped to a one-shot's end).
    pub fn frame_at(&self, now: u64, freq: u32) -> u64 {
        let played =
            (u128::from(now.saturating_sub(self.anchor_us)) * u128::from(freq) / 1_000_000) as u64;
        let f = self.anchor_frame + played;
        match self.end {
            Some(e) => f.min(e),
            None => f,
        }
    }

    /// Guest time at which the play cursor reaches absolute frame `f`.
    pub fn frame_time(&self, f: u64, freq: u32) -> u64 {
        let d = f.saturating_sub(self.anchor_frame);
        self.anchor_us + (u128::from(d) * 1_000_000).div_ceil(u128::from(freq.max(1))) as u64
    }

    /// Whether a one-shot run has reached its end by `now`.
    pub fn ended(&self, now: u64, freq: u32) -> bool {
        self.end.is_some_and(|e| self.frame_at(now, freq) >= e)
    }
}

/// The write cursor's lead over the play cursor while playing: 10 ms of frames at
/// the buffer's frequency, rounded up to a whole frame (Windows drivers report
/// 10-15 ms; the lead is the region the mixer is assumed to have taken already).
pub fn write_lead_frames(freq: u32) -> u32 {
    freq.div_ceil(100)
}

/// The regions Lock hands out for `bytes` from `offset` in a buffer of `size`
/// bytes: (first length, second length at the start of the buffer). Without a
/// second pointer the lock stops at the end of the buffer.
pub fn lock_regions(offset: u32, bytes: u32, size: u32, want_second: bool) -> (u32, u32) {
    let first = bytes.min(size - offset);
    let second = if want_second { bytes - first } else { 0 };
    (first, second)
}

/// Indices of notification offsets (bytes into a buffer of `size` bytes) that the
/// play cursor passed while moving from absolute byte `from` to `to`: an offset `o`
/// fires when some `o + k * size` lies in `from..to`, that is once the byte at `o`
/// has started playing.
pub fn crossings(from: u64, to: u64, size: u32, offsets: &[u32]) -> Vec<usize> {
    let n = u64::from(size.max(1));
    offsets
        .iter()
        .enumerate()
        .filter(|&(_, &o)| {
            if to <= from {
                return false;
            }
            // The first x >= from with x = o (mod n).
            let o = u64::from(o) % n;
            let x = from + (o + n - from % n) % n;
            x < to
        })
        .map(|(k, _)| k)
        .collect()
}

/// The smallest absolute byte `x >= from` with `x = o (mod size)` over all offsets:
/// the next one the cursor will pass.
pub fn next_crossing(from: u64, size: u32, offsets: &[u32]) -> Option<u64> {
    let n = u64::from(size.max(1));
    offsets
        .iter()
        .map(|&o| from + (u64::from(o) % n + n - from % n) % n)
        .min()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn play_cursor_advances_with_guest_time_at_the_buffer_frequency() {
        let r = Run {
            anchor_us: 1_000_000,
            anchor_frame: 100,
            end: None,
        };
        assert_eq!(r.frame_at(1_000_000, 44_100), 100);
        // 10 ms at 44100 Hz is 441 frames.
        assert_eq!(r.frame_at(1_010_000, 44_100), 541);
        // 1 µs is 0.0441 frames: nothing yet.
        assert_eq!(r.frame_at(1_000_001, 44_100), 100);
        // frame_time is the exact inverse: the cursor reaches 541 at 1.010 s, and the
        // frame after it 22.68 µs later (rounded up).
        assert_eq!(r.frame_time(541, 44_100), 1_010_000);
        assert_eq!(r.frame_time(542, 44_100), 1_010_023);
        assert_eq!(r.frame_at(1_010_022, 44_100), 541);
        assert_eq!(r.frame_at(1_010_023, 44_100), 542);
    }

    #[test]
    fn one_shot_runs_stop_at_their_end() {
        let r = Run {
            anchor_us: 0,
            anchor_frame: 0,
            end: Some(22_050),
        };
        assert!(!r.ended(499_999, 44_100));
        assert!(r.ended(500_000, 44_100));
        assert_eq!(r.frame_at(2_000_000, 44_100), 22_050);
    }

    #[test]
    fn write_lead_is_ten_ms_of_frames() {
        assert_eq!(write_lead_frames(44_100), 441);
        assert_eq!(write_lead_frames(22_050), 221);
        assert_eq!(write_lead_frames(8_000), 80);
    }

    #[test]
    fn lock_wraps_around_the_buffer_end() {
        // 1000-byte buffer, 300 bytes from 800: 200 at the end, 100 at the start.
        assert_eq!(lock_regions(800, 300, 1000, true), (200, 100));
        assert_eq!(lock_regions(800, 300, 1000, false), (200, 0));
        assert_eq!(lock_regions(0, 1000, 1000, true), (1000, 0));
        // The whole buffer from the middle: two halves.
        assert_eq!(lock_regions(500, 1000, 1000, true), (500, 500));
    }

    #[test]
    fn notifications_fire_when_the_cursor_passes_their_offset() {
        let offs = [0u32, 500, 999];
        // Start of play: cursor moved 0 -> 4 bytes: offset 0 fired.
        assert_eq!(crossings(0, 4, 1000, &offs), vec![0]);
        assert_eq!(crossings(4, 500, 1000, &offs), Vec::<usize>::new());
        assert_eq!(crossings(4, 501, 1000, &offs), vec![1]);
        // Across the wrap: 999 then 0 (absolute 1000) pass.
        assert_eq!(crossings(996, 1004, 1000, &offs), vec![0, 2]);
        // A second lap.
        assert_eq!(crossings(1004, 1504, 1000, &offs), vec![1]);
        assert_eq!(next_crossing(1004, 1000, &offs), Some(1500));
        assert_eq!(next_crossing(1501, 1000, &offs), Some(1999));
        assert_eq!(next_crossing(2000, 1000, &offs), Some(2000));
        assert_eq!(next_crossing(0, 1000, &[]), None);
    }
}
