//! A DirectSound buffer's host-side state: its play state on the guest clock,
//! capture of what it played (the sound contract's `Source`) and its position
//! notifications (the sound service's `Timed`).

use super::cursor::{Run, crossings, next_crossing};
use crate::hle::ApiResult;
use crate::process::Process;
use crate::sound::{self, Chunk, PcmFormat, Source, VoiceKind};
use crate::winmm::wave_service::{Action, Timed};
use std::sync::{Arc, Mutex, MutexGuard};

/// DSBPN_OFFSETSTOP: signalled when the buffer stops.
pub const DSBPN_OFFSETSTOP: u32 = 0xffff_ffff;

/// The guest memory holding a buffer's samples, shared by duplicates.
pub struct Memory {
    pub addr: u32,
}

pub struct BufState {
    pub primary: bool,
    /// DSBCAPS_* it was created with.
    pub flags: u32,
    pub fmt: PcmFormat,
    /// Current frequency (the format's until SetFrequency).
    pub freq: u32,
    pub bytes: u32,
    pub mem: Arc<Memory>,
    pub volume: i32,
    pub pan: i32,
    pub run: Option<Run>,
    /// Position in frames while stopped.
    pub pos: u32,
    /// Absolute frame up to which what played was captured.
    pub captured: u64,
    /// Absolute byte up to which notifications were checked.
    pub notified: u64,
    /// (dwOffset, hEventNotify) from SetNotificationPositions.
    pub notifies: Vec<(u32, u32)>,
    /// Whether what it plays is heard: secondary buffers, and the primary buffer
    /// only when the program writes it (DSSCL_WRITEPRIMARY).
    pub audible: bool,
    /// COM references (the IDirectSoundNotify interface shares them).
    pub refs: u32,
    /// Its IDirectSoundNotify interface once asked for.
    pub notify_iface: u32,
    /// Made by an IDirectSound8 (answers QueryInterface for IDirectSoundBuffer8).
    pub is8: bool,
}

pub struct Buffer {
    pub voice: u64,
    pub st: Mutex<BufState>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl BufState {
    pub fn frames(&self) -> u64 {
        u64::from(self.bytes / self.fmt.block_align())
    }

    fn block(&self) -> u64 {
        u64::from(self.fmt.block_align())
    }

    /// Play position in frames at `now` (a finished one-shot reads 0, as it does
    /// after the mixer stops it on Windows).
    pub fn position(&self, now: u64) -> u32 {
        match &self.run {
            None => self.pos,
            Some(r) if r.ended(now, self.freq) => 0,
            Some(r) => (r.frame_at(now, self.freq) % self.frames().max(1)) as u32,
        }
    }

    pub fn playing(&self, now: u64) -> bool {
        self.run.is_some_and(|r| !r.ended(now, self.freq))
    }

    /// Pushes what played up to `now` since the last capture.
    pub fn capture(&mut self, proc: &Process, voice: u64, now: u64) {
        let Some(run) = self.run else { return };
        let upto = run.frame_at(now, self.freq);
        if upto <= self.captured {
            return;
        }
        if !self.audible || !sound::listening(proc) {
            self.captured = upto;
            return;
        }
        let n = self.frames().max(1);
        let ba = self.block();
        let fmt = PcmFormat {
            samples_per_sec: self.freq,
            ..self.fmt
        };
        while self.captured < upto {
            let pos = self.captured % n;
            let len = (n - pos).min(upto - self.captured);
            let mut data = vec![0u8; (len * ba) as usize];
            if let Err(f) = proc
                .mem
                .read_bytes(self.mem.addr.wrapping_add((pos * ba) as u32), &mut data)
            {
                log::warn!("DirectSound buffer memory unreadable at {:#010x}", f.addr);
                self.captured = upto;
                return;
            }
            sound::push(
                proc,
                Chunk {
                    voice,
                    kind: VoiceKind::DirectSound,
                    format: fmt,
                    volume: self.volume,
                    pan: self.pan,
                    start_us: run.frame_time(self.captured, self.freq),
                    data,
                },
            );
            self.captured += len;
        }
    }

    /// Brings the play state up to `now`: notifications the cursor passed, and the
    /// end of a one-shot run (captured in full, then stopped at position 0).
    /// Returns the event handles to signal, in order.
    pub fn advance(&mut self, proc: &Process, voice: u64, now: u64) -> Vec<u32> {
        let Some(run) = self.run else {
            return Vec::new();
        };
        let ba = self.block();
        let to = run.frame_at(now, self.freq) * ba;
        let offsets: Vec<u32> = self
            .notifies
            .iter()
            .filter(|n| n.0 != DSBPN_OFFSETSTOP)
            .map(|n| n.0)
            .collect();
        let mut fire: Vec<u32> = crossings(self.notified, to, self.bytes, &offsets)
            .into_iter()
            .map(|k| {
                self.notifies
                    .iter()
                    .filter(|n| n.0 != DSBPN_OFFSETSTOP)
                    .nth(k)
            })
            .filter_map(|n| n.map(|n| n.1))
            .collect();
        self.notified = self.notified.max(to);
        if run.ended(now, self.freq) {
            self.capture(proc, voice, now);
            self.run = None;
            self.pos = 0;
            fire.extend(self.stop_events());
        }
        fire
    }

    pub fn stop_events(&self) -> Vec<u32> {
        self.notifies
            .iter()
            .filter(|n| n.0 == DSBPN_OFFSETSTOP)
            .map(|n| n.1)
            .collect()
    }

    /// Starts (or restarts the numbering of) a run at `frame` now.
    pub fn start_run(&mut self, now: u64, frame: u64, looping: bool) {
        let n = self.frames();
        self.run = Some(Run {
            anchor_us: now,
            anchor_frame: frame,
            end: (!looping).then_some(n),
        });
        self.captured = frame;
        self.notified = frame * self.block();
    }

    /// Re-anchors a playing run at `now` (before a frequency or mode change); the
    /// absolute numbering continues. `looping` changes the mode.
    pub fn reanchor(&mut self, now: u64, looping: Option<bool>) {
        let Some(r) = self.run else { return };
        let f = r.frame_at(now, self.freq);
        let n = self.frames().max(1);
        let end = match looping {
            None => r.end,
            Some(true) => None,
            // One-shot from here: to the end of the current lap.
            Some(false) => Some(r.end.unwrap_or((f / n + 1) * n)),
        };
        self.run = Some(Run {
            anchor_us: now,
            anchor_frame: f,
            end,
        });
    }

    /// When the next notification or a one-shot's end is due.
    pub fn next_due(&self) -> Option<u64> {
        let run = self.run?;
        let ba = self.block();
        let offsets: Vec<u32> = self
            .notifies
            .iter()
            .filter(|n| n.0 != DSBPN_OFFSETSTOP)
            .map(|n| n.0)
            .collect();
        let mut next = next_crossing(self.notified, self.bytes, &offsets)
            // Passed once the frame holding byte x has started playing.
            .map(|x| run.frame_time(x / ba + 1, self.freq));
        if let Some(e) = run.end {
            if let Some(n) = next
                && n > run.frame_time(e, self.freq)
            {
                next = None;
            }
            let t = run.frame_time(e, self.freq);
            next = Some(next.map_or(t, |n| n.min(t)));
        }
        next
    }
}

impl Buffer {
    pub fn lock(&self) -> MutexGuard<'_, BufState> {
        lock(&self.st)
    }
}

impl Source for Buffer {
    fn capture(&self, proc: &Arc<Process>, now_us: u64) {
        let v = self.voice;
        self.lock().capture(proc, v, now_us);
    }
}

impl Timed for Buffer {
    fn poll(&self, proc: &Arc<Process>, now: u64) -> ApiResult<(Vec<Action>, Option<u64>)> {
        let mut st = self.lock();
        if st.notifies.is_empty() {
            return Ok((Vec::new(), None));
        }
        let fire = st.advance(proc, self.voice, now);
        Ok((
            fire.into_iter().map(Action::SetEvent).collect(),
            st.next_due(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::CaptureHost;
    use crate::process::ProcessConfig;
    use winterp_core::mem::Prot;

    fn process() -> Arc<Process> {
        let cfg = ProcessConfig::new("t.exe".into(), "C:\\T\\t.exe".into());
        Process::new(cfg, Arc::new(CaptureHost::default()), &crate::hle_dlls()).unwrap()
    }

    /// A 1000-frame 8-bit mono buffer at 1000 Hz (a frame per millisecond) whose byte
    /// k holds k % 251.
    fn buffer(proc: &Process) -> BufState {
        let addr = proc
            .vm
            .lock()
            .unwrap()
            .alloc(None, 0x1_0000, Prot::RW, "samples")
            .unwrap();
        let bytes: Vec<u8> = (0..1000u32).map(|k| (k % 251) as u8).collect();
        proc.mem.write_bytes(addr, &bytes).unwrap();
        let fmt = PcmFormat {
            channels: 1,
            bits_per_sample: 8,
            samples_per_sec: 1000,
        };
        BufState {
            primary: false,
            flags: 0,
            fmt,
            freq: 1000,
            bytes: 1000,
            mem: Arc::new(Memory { addr }),
            volume: -300,
            pan: 200,
            run: None,
            pos: 0,
            captured: 0,
            notified: 0,
            notifies: Vec::new(),
            audible: true,
            refs: 1,
            notify_iface: 0,
            is8: false,
        }
    }

    #[test]
    fn looping_capture_splits_at_the_wrap_and_keeps_guest_times() {
        let proc = process();
        crate::sound::drain(&proc); // switches capturing on
        let mut b = buffer(&proc);
        b.pos = 900;
        b.start_run(5_000_000, 900, true);
        // 250 ms later: frames 900..1000 then 0..150.
        b.capture(&proc, 7, 5_250_000);
        let chunks = crate::sound::drain(&proc);
        assert_eq!(chunks.len(), 2);
        assert_eq!(chunks[0].start_us, 5_000_000);
        assert_eq!(chunks[0].data.len(), 100);
        assert_eq!(chunks[0].data[0], (900 % 251) as u8);
        assert_eq!(chunks[1].start_us, 5_100_000);
        assert_eq!(
            chunks[1].data,
            (0..150u32).map(|k| (k % 251) as u8).collect::<Vec<_>>()
        );
        assert_eq!(
            (chunks[1].volume, chunks[1].pan, chunks[1].voice),
            (-300, 200, 7)
        );
        assert_eq!(b.position(5_250_000), 150);
        // Nothing twice: a capture at the same time pushes nothing.
        b.capture(&proc, 7, 5_250_000);
        assert!(crate::sound::drain(&proc).is_empty());
    }

    #[test]
    fn notifications_and_the_one_shot_end_come_due_on_the_guest_clock() {
        let proc = process();
        let mut b = buffer(&proc);
        b.notifies = vec![(0, 10), (500, 11), (DSBPN_OFFSETSTOP, 12)];
        b.start_run(1_000_000, 0, false);
        // Offset 0 passes once its frame starts playing: 1 ms after Play.
        assert_eq!(b.next_due(), Some(1_001_000));
        assert_eq!(b.advance(&proc, 1, 1_000_999), Vec::<u32>::new());
        assert_eq!(b.advance(&proc, 1, 1_001_000), vec![10]);
        assert_eq!(b.next_due(), Some(1_501_000));
        assert_eq!(b.advance(&proc, 1, 1_501_000), vec![11]);
        // The end of the buffer at 2 s: stopped at 0, the stop event signalled.
        assert_eq!(b.next_due(), Some(2_000_000));
        assert!(b.playing(1_999_999));
        assert_eq!(b.advance(&proc, 1, 2_000_000), vec![12]);
        assert!(b.run.is_none());
        assert_eq!(b.position(2_100_000), 0);
        assert_eq!(b.next_due(), None);
    }

    #[test]
    fn looping_notifications_fire_every_lap_and_follow_frequency_changes() {
        let proc = process();
        let mut b = buffer(&proc);
        b.notifies = vec![(500, 20)];
        b.start_run(0, 0, true);
        assert_eq!(b.advance(&proc, 1, 3_000_000), vec![20]);
        assert_eq!(b.next_due(), Some(3_501_000));
        // Twice as fast from 3 s: frame 3500 (offset 500) starts 250 ms later.
        b.reanchor(3_000_000, None);
        b.freq = 2000;
        assert_eq!(b.next_due(), Some(3_250_500));
        assert_eq!(b.advance(&proc, 1, 3_250_500), vec![20]);
    }
}
