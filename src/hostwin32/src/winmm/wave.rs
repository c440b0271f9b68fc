//! winmm waveOut: one output device (ID 0, also reachable as WAVE_MAPPER) that any
//! number of handles may open at once, each a voice of the sound contract.
//!
//! Timing is the guest clock's. Headers written to a handle play back to back: the
//! first starts when it is written (or when the queue ran dry, at its write time),
//! each following one when the previous ends, a header of `n` bytes lasting
//! `ceil(n * 1e6 / nAvgBytesPerSec)` µs (times its loop count). The sound service
//! thread (`wave_service`) returns each header at its end time: WHDR_DONE set,
//! WHDR_INQUEUE cleared, and the callback (WOM_DONE) delivered — a CALLBACK_FUNCTION
//! on that thread, a CALLBACK_WINDOW / CALLBACK_THREAD message posted, a
//! CALLBACK_EVENT set. WOM_OPEN and WOM_CLOSE are delivered the same way when the
//! handle opens and closes (a function callback runs on the service thread shortly
//! after, not inside waveOutOpen/waveOutClose).
//!
//! What a handle played is captured (raw PCM of its headers, with loops expanded)
//! before a header returns to the program, at pause, reset and close, and when the
//! host drains; the chunk's volume and pan carry waveOutSetVolume's left/right
//! levels in DirectSound's hundredths of a decibel.
//!
//! Loops: a header with both WHDR_BEGINLOOP and WHDR_ENDLOOP plays `dwLoops` times;
//! a loop spanning several headers is reported as not implemented.

use super::wave_service::{self, Action, Callback, Timed};
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Ptr, stdcall};
use crate::process::Process;
use crate::sound::{self, Chunk, PcmFormat, Source, VoiceKind};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

pub const MMSYSERR_NOERROR: u32 = 0;
pub const MMSYSERR_ERROR: u32 = 1;
pub const MMSYSERR_BADDEVICEID: u32 = 2;
pub const MMSYSERR_INVALHANDLE: u32 = 5;
pub const MMSYSERR_NOMEM: u32 = 7;
pub const MMSYSERR_NOTSUPPORTED: u32 = 8;
pub const MMSYSERR_BADERRNUM: u32 = 9;
pub const MMSYSERR_INVALFLAG: u32 = 10;
pub const MMSYSERR_INVALPARAM: u32 = 11;
pub const WAVERR_BADFORMAT: u32 = 32;
pub const WAVERR_STILLPLAYING: u32 = 33;
pub const WAVERR_UNPREPARED: u32 = 34;
pub const WAVERR_SYNC: u32 = 35;

pub const WAVE_MAPPER: u32 = 0xffff_ffff;
const WAVE_FORMAT_QUERY: u32 = 0x1;

pub const WOM_OPEN: u32 = 0x3bb;
pub const WOM_CLOSE: u32 = 0x3bc;
pub const WOM_DONE: u32 = 0x3bd;

pub const WHDR_DONE: u32 = 0x01;
pub const WHDR_PREPARED: u32 = 0x02;
pub const WHDR_BEGINLOOP: u32 = 0x04;
pub const WHDR_ENDLOOP: u32 = 0x08;
pub const WHDR_INQUEUE: u32 = 0x10;
/// sizeof(WAVEHDR).
const WAVEHDR_SIZE: u32 = 32;
const HDR_DATA: u32 = 0;
const HDR_LENGTH: u32 = 4;
const HDR_FLAGS: u32 = 16;
const HDR_LOOPS: u32 = 20;

const TIME_MS: u32 = 0x01;
const TIME_SAMPLES: u32 = 0x02;
const TIME_BYTES: u32 = 0x04;
/// sizeof(MMTIME).
const MMTIME_SIZE: u32 = 12;

const WAVE_FORMAT_PCM: u16 = 1;

/// Voice ids of waveOut handles: the handle in the low half, this in the high.
const VOICE_TAG: u64 = 1 << 32;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Per-process waveOut state (in `proc.winmm.wave`).
pub struct State {
    /// The sound service thread (shared with DirectSound's notifications).
    pub service: wave_service::Service,
    devs: Mutex<HashMap<u32, Arc<Device>>>,
    next: AtomicU32,
    /// waveOutSetVolume on device ID 0: the level handles opened later start with.
    device_volume: AtomicU32,
}

impl Default for State {
    fn default() -> Self {
        State {
            service: Default::default(),
            devs: Mutex::new(HashMap::new()),
            next: AtomicU32::new(0x0000_7a01),
            device_volume: AtomicU32::new(0xffff_ffff),
        }
    }
}

/// A header in a handle's queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Queued {
    hdr: u32,
    data: u32,
    /// dwBufferLength rounded down to whole frames.
    len: u32,
    /// Times it plays (dwLoops for a one-header loop, else 1).
    plays: u32,
    /// When it was written (it cannot start before).
    write_us: u64,
    /// Bytes of its (loop-expanded) stream already captured.
    captured: u64,
}

impl Queued {
    fn total(&self) -> u64 {
        u64::from(self.len) * u64::from(self.plays)
    }
}

struct DevState {
    queue: VecDeque<Queued>,
    /// When `queue[0]` started (or will start).
    head_start: u64,
    /// waveOutPause's time while paused.
    paused_at: Option<u64>,
    /// Bytes of headers finished since open or the last reset.
    done_bytes: u64,
    /// waveOutSetVolume's DWORD: left level in the low word, right in the high.
    volume: u32,
}

pub struct Device {
    handle: u32,
    fmt: PcmFormat,
    avg: u32,
    cb: Callback,
    instance: u32,
    st: Mutex<DevState>,
}

/// Microseconds `bytes` take at `avg` bytes per second, rounded up.
pub fn duration_us(bytes: u64, avg: u32) -> u64 {
    (u128::from(bytes) * 1_000_000).div_ceil(u128::from(avg.max(1))) as u64
}

/// Whole frames' bytes played `us` after a start, at `avg` bytes per second.
pub fn bytes_in(us: u64, avg: u32, block: u32) -> u64 {
    let b = (u128::from(us) * u128::from(avg) / 1_000_000) as u64;
    b - b % u64::from(block.max(1))
}

/// Start and end times of each queued header, given when the first starts.
fn schedule(queue: &VecDeque<Queued>, head_start: u64, avg: u32) -> Vec<(u64, u64)> {
    let mut v = Vec::with_capacity(queue.len());
    let mut prev_end = None;
    for q in queue {
        let s = match prev_end {
            None => head_start,
            Some(e) => q.write_us.max(e),
        };
        let e = s + duration_us(q.total(), avg);
        v.push((s, e));
        prev_end = Some(e);
    }
    v
}

/// DSBVOLUME of a waveOut channel level (0..=0xFFFF, linear).
pub fn level_to_db100(level: u16) -> i32 {
    if level == 0 {
        return -10000;
    }
    let db = 2000.0 * (f64::from(level) / 65535.0).log10();
    (db.round() as i32).clamp(-10000, 0)
}

/// waveOutSetVolume's DWORD as DirectSound volume and pan: the louder channel's
/// level is the volume, and the pan attenuates the other by the difference.
pub fn volume_pan(v: u32) -> (i32, i32) {
    let l = level_to_db100(v as u16);
    let r = level_to_db100((v >> 16) as u16);
    (l.max(r), (r - l).clamp(-10000, 10000))
}

impl Device {
    fn voice(&self) -> u64 {
        VOICE_TAG | u64::from(self.handle)
    }

    /// Pushes what was played up to `now` and not yet captured.
    fn capture_locked(&self, proc: &Process, st: &mut DevState, now: u64) {
        let t = st.paused_at.unwrap_or(now);
        let (volume, pan) = volume_pan(st.volume);
        let sched = schedule(&st.queue, st.head_start, self.avg);
        for (q, &(s, _)) in st.queue.iter_mut().zip(&sched) {
            if s >= t {
                break;
            }
            let played = bytes_in(t - s, self.avg, self.fmt.block_align()).min(q.total());
            if played <= q.captured || q.len == 0 {
                continue;
            }
            if !sound::listening(proc) {
                // Nobody mixes: remember how far it got without copying samples.
                q.captured = played;
                continue;
            }
            let mut data = Vec::with_capacity((played - q.captured) as usize);
            let mut o = q.captured;
            while o < played {
                let off = (o % u64::from(q.len)) as u32;
                let n = (u64::from(q.len - off)).min(played - o) as usize;
                let mut buf = vec![0u8; n];
                if let Err(f) = proc.mem.read_bytes(q.data.wrapping_add(off), &mut buf) {
                    log::warn!(
                        "waveOut {:#x}: header {:#010x} data unreadable at {:#010x}",
                        self.handle,
                        q.hdr,
                        f.addr
                    );
                    break;
                }
                data.extend_from_slice(&buf);
                o += n as u64;
            }
            if data.is_empty() {
                continue;
            }
            let start_us = s + q.captured * 1_000_000 / u64::from(self.avg.max(1));
            q.captured += data.len() as u64;
            sound::push(
                proc,
                Chunk {
                    voice: self.voice(),
                    kind: VoiceKind::WaveOut,
                    format: self.fmt,
                    volume,
                    pan,
                    start_us,
                    data,
                },
            );
        }
    }

    /// Bytes played since open or reset at `now`.
    fn position(&self, st: &DevState, now: u64) -> u64 {
        let t = st.paused_at.unwrap_or(now);
        let sched = schedule(&st.queue, st.head_start, self.avg);
        let mut p = st.done_bytes;
        for (q, &(s, _)) in st.queue.iter().zip(&sched) {
            if s >= t {
                break;
            }
            p += bytes_in(t - s, self.avg, self.fmt.block_align()).min(q.total());
        }
        p
    }

    fn callback_action(&self, msg: u32, p1: u32) -> Option<Action> {
        self.cb.action(self.handle, self.instance, msg, p1)
    }

    /// Returns a finished header to the program: WHDR_DONE, not WHDR_INQUEUE.
    fn mark_done(&self, proc: &Process, hdr: u32) -> ApiResult<()> {
        let f = proc.mem.read_u32(hdr + HDR_FLAGS)?;
        proc.mem
            .write_u32(hdr + HDR_FLAGS, (f & !WHDR_INQUEUE) | WHDR_DONE)?;
        Ok(())
    }
}

impl Source for Device {
    fn capture(&self, proc: &Arc<Process>, now_us: u64) {
        let mut st = lock(&self.st);
        self.capture_locked(proc, &mut st, now_us);
    }
}

impl Timed for Device {
    fn poll(&self, proc: &Arc<Process>, now: u64) -> ApiResult<(Vec<Action>, Option<u64>)> {
        let mut st = lock(&self.st);
        if st.paused_at.is_some() || st.queue.is_empty() {
            return Ok((Vec::new(), None));
        }
        let mut actions = Vec::new();
        loop {
            let sched = schedule(&st.queue, st.head_start, self.avg);
            let Some(&(_, end)) = sched.first() else {
                return Ok((actions, None));
            };
            if end > now {
                return Ok((actions, Some(end)));
            }
            // Everything of it reaches the mixer before the program may refill it.
            self.capture_locked(proc, &mut st, end);
            let Some(q) = st.queue.pop_front() else {
                return Ok((actions, None));
            };
            st.done_bytes += q.total();
            if let Some(next) = st.queue.front() {
                st.head_start = next.write_us.max(end);
            }
            self.mark_done(proc, q.hdr)?;
            actions.extend(self.callback_action(WOM_DONE, q.hdr));
        }
    }
}

fn state(proc: &Process) -> &State {
    &proc.winmm.wave
}

/// waveOutSetVolume's level for device 0 / WAVE_MAPPER (PlaySound plays at it).
pub fn device_volume(proc: &Process) -> u32 {
    state(proc).device_volume.load(Ordering::Relaxed)
}

fn device(cx: &Ctx, h: u32) -> Option<Arc<Device>> {
    lock(&state(cx.proc).devs).get(&h).cloned()
}

/// Delivers a callback message now (posts, events) or through the service thread
/// (functions).
fn deliver(cx: &mut Ctx, dev: &Device, msg: u32, p1: u32) -> ApiResult<()> {
    wave_service::deliver(cx, dev.callback_action(msg, p1))
}

/// A WAVEFORMATEX this device plays, or WAVERR_BADFORMAT.
fn read_format(cx: &Ctx, p: u32) -> ApiResult<Result<(PcmFormat, u32), u32>> {
    let tag = cx.proc.mem.read_u16(p)?;
    let channels = cx.proc.mem.read_u16(p + 2)?;
    let rate = cx.proc.mem.read_u32(p + 4)?;
    let align = cx.proc.mem.read_u16(p + 12)?;
    let bits = cx.proc.mem.read_u16(p + 14)?;
    let f = PcmFormat {
        channels,
        bits_per_sample: bits,
        samples_per_sec: rate,
    };
    if tag != WAVE_FORMAT_PCM
        || !(1..=2).contains(&channels)
        || !(bits == 8 || bits == 16)
        || !(100..=200_000).contains(&rate)
        || u32::from(align) != f.block_align()
    {
        return Ok(Err(WAVERR_BADFORMAT));
    }
    Ok(Ok((f, rate * f.block_align())))
}

pub fn waveOutGetNumDevs(_cx: &mut Ctx) -> u32 {
    1
}

fn caps_common(cx: &mut Ctx, uDeviceID: u32, pwoc: Ptr, cbwoc: u32, wide: bool) -> ApiResult<u32> {
    let known = uDeviceID == 0 || uDeviceID == WAVE_MAPPER || device(cx, uDeviceID).is_some();
    if !known {
        return Ok(MMSYSERR_BADDEVICEID);
    }
    if pwoc.is_null() {
        return Ok(MMSYSERR_INVALPARAM);
    }
    let name = if uDeviceID == WAVE_MAPPER {
        "Microsoft Sound Mapper"
    } else {
        "winterp Wave Out"
    };
    let mut b = Vec::with_capacity(84);
    b.extend_from_slice(&1u16.to_le_bytes()); // wMid: MM_MICROSOFT
    b.extend_from_slice(&(if uDeviceID == WAVE_MAPPER { 2u16 } else { 104 }).to_le_bytes());
    b.extend_from_slice(&0x0500u32.to_le_bytes()); // vDriverVersion 5.0
    let mut pname = [0u8; 64];
    if wide {
        for (k, u) in name.encode_utf16().take(31).enumerate() {
            pname[2 * k..2 * k + 2].copy_from_slice(&u.to_le_bytes());
        }
        b.extend_from_slice(&pname);
    } else {
        pname[..name.len().min(31)].copy_from_slice(&name.as_bytes()[..name.len().min(31)]);
        b.extend_from_slice(&pname[..32]);
    }
    // dwFormats: every WAVE_FORMAT_{1,2,4}{M,S}{08,16} bit.
    b.extend_from_slice(&0x0fffu32.to_le_bytes());
    b.extend_from_slice(&2u16.to_le_bytes()); // wChannels
    b.extend_from_slice(&0u16.to_le_bytes());
    // dwSupport: WAVECAPS_VOLUME | WAVECAPS_LRVOLUME | WAVECAPS_SAMPLEACCURATE.
    b.extend_from_slice(&0x2cu32.to_le_bytes());
    let n = (cbwoc as usize).min(b.len());
    cx.proc.mem.write_bytes(pwoc.0, &b[..n])?;
    Ok(MMSYSERR_NOERROR)
}

pub fn waveOutGetDevCapsA(cx: &mut Ctx, uDeviceID: u32, pwoc: Ptr, cbwoc: u32) -> ApiResult<u32> {
    caps_common(cx, uDeviceID, pwoc, cbwoc, false)
}

pub fn waveOutGetDevCapsW(cx: &mut Ctx, uDeviceID: u32, pwoc: Ptr, cbwoc: u32) -> ApiResult<u32> {
    caps_common(cx, uDeviceID, pwoc, cbwoc, true)
}

pub fn waveOutOpen(
    cx: &mut Ctx,
    phwo: Ptr,
    uDeviceID: u32,
    pwfx: Ptr,
    dwCallback: u32,
    dwInstance: u32,
    fdwOpen: u32,
) -> ApiResult<u32> {
    if uDeviceID != 0 && uDeviceID != WAVE_MAPPER {
        return Ok(MMSYSERR_BADDEVICEID);
    }
    if pwfx.is_null() {
        return Ok(MMSYSERR_INVALPARAM);
    }
    let (fmt, avg) = match read_format(cx, pwfx.0)? {
        Ok(f) => f,
        Err(e) => return Ok(e),
    };
    let Some(cb) = Callback::from_open(fdwOpen, dwCallback) else {
        return Ok(MMSYSERR_INVALFLAG);
    };
    if fdwOpen & WAVE_FORMAT_QUERY != 0 {
        return Ok(MMSYSERR_NOERROR);
    }
    if phwo.is_null() {
        return Ok(MMSYSERR_INVALPARAM);
    }
    let s = state(cx.proc);
    let handle = s.next.fetch_add(1, Ordering::Relaxed);
    let dev = Arc::new(Device {
        handle,
        fmt,
        avg,
        cb,
        instance: dwInstance,
        st: Mutex::new(DevState {
            queue: VecDeque::new(),
            head_start: 0,
            paused_at: None,
            done_bytes: 0,
            volume: s.device_volume.load(Ordering::Relaxed),
        }),
    });
    cx.proc.mem.write_u32(phwo.0, handle)?;
    lock(&s.devs).insert(handle, dev.clone());
    let src: Arc<dyn Source> = dev.clone();
    sound::register(cx.proc, &src);
    let timed: Arc<dyn Timed> = dev.clone();
    wave_service::watch(cx, &timed)?;
    deliver(cx, &dev, WOM_OPEN, 0)?;
    Ok(MMSYSERR_NOERROR)
}

pub fn waveOutClose(cx: &mut Ctx, hwo: u32) -> ApiResult<u32> {
    let Some(dev) = device(cx, hwo) else {
        return Ok(MMSYSERR_INVALHANDLE);
    };
    if !lock(&dev.st).queue.is_empty() {
        return Ok(WAVERR_STILLPLAYING);
    }
    lock(&state(cx.proc).devs).remove(&hwo);
    deliver(cx, &dev, WOM_CLOSE, 0)?;
    Ok(MMSYSERR_NOERROR)
}

/// A WAVEHDR argument: (address, dwFlags), or the MMSYSERR for a bad one.
fn header(cx: &Ctx, pwh: Ptr, cbwh: u32) -> ApiResult<Result<(u32, u32), u32>> {
    if pwh.is_null() || cbwh < WAVEHDR_SIZE {
        return Ok(Err(MMSYSERR_INVALPARAM));
    }
    Ok(Ok((pwh.0, cx.proc.mem.read_u32(pwh.0 + HDR_FLAGS)?)))
}

pub fn waveOutPrepareHeader(cx: &mut Ctx, hwo: u32, pwh: Ptr, cbwh: u32) -> ApiResult<u32> {
    if device(cx, hwo).is_none() {
        return Ok(MMSYSERR_INVALHANDLE);
    }
    let (h, f) = match header(cx, pwh, cbwh)? {
        Ok(x) => x,
        Err(e) => return Ok(e),
    };
    if f & WHDR_INQUEUE != 0 {
        return Ok(WAVERR_STILLPLAYING);
    }
    cx.proc
        .mem
        .write_u32(h + HDR_FLAGS, (f | WHDR_PREPARED) & !WHDR_DONE)?;
    Ok(MMSYSERR_NOERROR)
}

pub fn waveOutUnprepareHeader(cx: &mut Ctx, hwo: u32, pwh: Ptr, cbwh: u32) -> ApiResult<u32> {
    if device(cx, hwo).is_none() {
        return Ok(MMSYSERR_INVALHANDLE);
    }
    let (h, f) = match header(cx, pwh, cbwh)? {
        Ok(x) => x,
        Err(e) => return Ok(e),
    };
    if f & WHDR_INQUEUE != 0 {
        return Ok(WAVERR_STILLPLAYING);
    }
    cx.proc.mem.write_u32(h + HDR_FLAGS, f & !WHDR_PREPARED)?;
    Ok(MMSYSERR_NOERROR)
}

pub fn waveOutWrite(cx: &mut Ctx, hwo: u32, pwh: Ptr, cbwh: u32) -> ApiResult<u32> {
    let Some(dev) = device(cx, hwo) else {
        return Ok(MMSYSERR_INVALHANDLE);
    };
    let (h, f) = match header(cx, pwh, cbwh)? {
        Ok(x) => x,
        Err(e) => return Ok(e),
    };
    if f & WHDR_PREPARED == 0 {
        return Ok(WAVERR_UNPREPARED);
    }
    if f & WHDR_INQUEUE != 0 {
        return Ok(WAVERR_STILLPLAYING);
    }
    let data = cx.proc.mem.read_u32(h + HDR_DATA)?;
    let len = cx.proc.mem.read_u32(h + HDR_LENGTH)?;
    let loops = cx.proc.mem.read_u32(h + HDR_LOOPS)?;
    let plays = match f & (WHDR_BEGINLOOP | WHDR_ENDLOOP) {
        x if x == WHDR_BEGINLOOP | WHDR_ENDLOOP => loops.max(1),
        WHDR_BEGINLOOP => {
            return Err(ApiError::UnimplementedCase(
                "waveOutWrite: a loop spanning several headers (WHDR_BEGINLOOP without \
                 WHDR_ENDLOOP on the same header)"
                    .into(),
            ));
        }
        _ => 1,
    };
    let block = dev.fmt.block_align();
    let len = len - len % block;
    let now = crate::kernel32::time::micros(cx);
    cx.proc
        .mem
        .write_u32(h + HDR_FLAGS, (f | WHDR_INQUEUE) & !WHDR_DONE)?;
    let was_empty = {
        let mut st = lock(&dev.st);
        let was_empty = st.queue.is_empty();
        if was_empty {
            // A paused handle starts it at the pause time; Restart shifts it to then.
            st.head_start = st.paused_at.unwrap_or(now);
        }
        st.queue.push_back(Queued {
            hdr: h,
            data,
            len,
            plays,
            write_us: now,
            captured: 0,
        });
        was_empty
    };
    // Only a new head changes when the service thread is next due.
    if was_empty {
        wave_service::kick(cx)?;
    }
    Ok(MMSYSERR_NOERROR)
}

pub fn waveOutPause(cx: &mut Ctx, hwo: u32) -> ApiResult<u32> {
    let Some(dev) = device(cx, hwo) else {
        return Ok(MMSYSERR_INVALHANDLE);
    };
    let now = crate::kernel32::time::micros(cx);
    let mut st = lock(&dev.st);
    if st.paused_at.is_none() {
        dev.capture_locked(cx.proc, &mut st, now);
        st.paused_at = Some(now);
    }
    Ok(MMSYSERR_NOERROR)
}

pub fn waveOutRestart(cx: &mut Ctx, hwo: u32) -> ApiResult<u32> {
    let Some(dev) = device(cx, hwo) else {
        return Ok(MMSYSERR_INVALHANDLE);
    };
    let now = crate::kernel32::time::micros(cx);
    {
        let mut st = lock(&dev.st);
        if let Some(p) = st.paused_at.take() {
            st.head_start += now.saturating_sub(p);
            for q in st.queue.iter_mut() {
                q.write_us += now.saturating_sub(p);
            }
        }
    }
    wave_service::kick(cx)?;
    Ok(MMSYSERR_NOERROR)
}

pub fn waveOutReset(cx: &mut Ctx, hwo: u32) -> ApiResult<u32> {
    let Some(dev) = device(cx, hwo) else {
        return Ok(MMSYSERR_INVALHANDLE);
    };
    let now = crate::kernel32::time::micros(cx);
    let returned: Vec<u32> = {
        let mut st = lock(&dev.st);
        dev.capture_locked(cx.proc, &mut st, now);
        st.done_bytes = 0;
        st.queue.drain(..).map(|q| q.hdr).collect()
    };
    for h in returned {
        dev.mark_done(cx.proc, h)?;
        deliver(cx, &dev, WOM_DONE, h)?;
    }
    Ok(MMSYSERR_NOERROR)
}

pub fn waveOutBreakLoop(cx: &mut Ctx, hwo: u32) -> ApiResult<u32> {
    let Some(dev) = device(cx, hwo) else {
        return Ok(MMSYSERR_INVALHANDLE);
    };
    let now = crate::kernel32::time::micros(cx);
    {
        let mut st = lock(&dev.st);
        dev.capture_locked(cx.proc, &mut st, now);
        let t = st.paused_at.unwrap_or(now);
        let sched = schedule(&st.queue, st.head_start, dev.avg);
        // The loop playing now finishes its current pass and stops repeating.
        if let (Some(q), Some(&(s, _))) = (st.queue.front_mut(), sched.first())
            && q.plays > 1
            && q.len > 0
        {
            let played = bytes_in(t.saturating_sub(s), dev.avg, dev.fmt.block_align());
            let pass = (played / u64::from(q.len) + 1).min(u64::from(q.plays));
            q.plays = pass as u32;
        }
    }
    wave_service::kick(cx)?;
    Ok(MMSYSERR_NOERROR)
}

pub fn waveOutGetPosition(cx: &mut Ctx, hwo: u32, pmmt: Ptr, cbmmt: u32) -> ApiResult<u32> {
    let Some(dev) = device(cx, hwo) else {
        return Ok(MMSYSERR_INVALHANDLE);
    };
    if pmmt.is_null() || cbmmt < MMTIME_SIZE {
        return Ok(MMSYSERR_INVALPARAM);
    }
    let now = crate::kernel32::time::micros(cx);
    let bytes = dev.position(&lock(&dev.st), now);
    let wtype = cx.proc.mem.read_u32(pmmt.0)?;
    let (t, v) = match wtype {
        TIME_MS => (TIME_MS, bytes * 1000 / u64::from(dev.avg)),
        TIME_SAMPLES => (TIME_SAMPLES, bytes / u64::from(dev.fmt.block_align())),
        // Other formats are not supported: Windows answers in bytes and says so in wType.
        _ => (TIME_BYTES, bytes),
    };
    cx.proc.mem.write_u32(pmmt.0, t)?;
    cx.proc.mem.write_u32(pmmt.0 + 4, v as u32)?;
    Ok(MMSYSERR_NOERROR)
}

pub fn waveOutGetVolume(cx: &mut Ctx, hwo: u32, pdwVolume: Ptr) -> ApiResult<u32> {
    if pdwVolume.is_null() {
        return Ok(MMSYSERR_INVALPARAM);
    }
    let v = if hwo == 0 || hwo == WAVE_MAPPER {
        state(cx.proc).device_volume.load(Ordering::Relaxed)
    } else {
        match device(cx, hwo) {
            Some(d) => lock(&d.st).volume,
            None => return Ok(MMSYSERR_INVALHANDLE),
        }
    };
    cx.proc.mem.write_u32(pdwVolume.0, v)?;
    Ok(MMSYSERR_NOERROR)
}

pub fn waveOutSetVolume(cx: &mut Ctx, hwo: u32, dwVolume: u32) -> ApiResult<u32> {
    if hwo == 0 || hwo == WAVE_MAPPER {
        state(cx.proc)
            .device_volume
            .store(dwVolume, Ordering::Relaxed);
        return Ok(MMSYSERR_NOERROR);
    }
    let Some(dev) = device(cx, hwo) else {
        return Ok(MMSYSERR_INVALHANDLE);
    };
    let now = crate::kernel32::time::micros(cx);
    let mut st = lock(&dev.st);
    dev.capture_locked(cx.proc, &mut st, now);
    st.volume = dwVolume;
    Ok(MMSYSERR_NOERROR)
}

pub fn waveOutGetID(cx: &mut Ctx, hwo: u32, puDeviceID: Ptr) -> ApiResult<u32> {
    if device(cx, hwo).is_none() {
        return Ok(MMSYSERR_INVALHANDLE);
    }
    if puDeviceID.is_null() {
        return Ok(MMSYSERR_INVALPARAM);
    }
    cx.proc.mem.write_u32(puDeviceID.0, 0)?;
    Ok(MMSYSERR_NOERROR)
}

/// Windows' texts for the errors waveOut functions return.
pub(super) fn error_text(e: u32) -> Option<&'static str> {
    Some(match e {
        MMSYSERR_NOERROR => "The specified command was carried out.",
        MMSYSERR_ERROR => "Undefined external error.",
        MMSYSERR_BADDEVICEID => "A device ID has been used that is out of range for your system.",
        3 => "The driver was not enabled.",
        4 => "The specified device is already in use.  Wait until it is free, and then try again.",
        MMSYSERR_INVALHANDLE => "The specified device handle is invalid.",
        6 => "There is no driver installed on your system.",
        MMSYSERR_NOMEM => {
            "There is not enough memory available for this task.  Quit one or more applications to increase available memory, and then try again."
        }
        MMSYSERR_NOTSUPPORTED => {
            "This function is not supported.  Use the Capabilities function to determine which functions and messages the driver supports."
        }
        MMSYSERR_BADERRNUM => "An error number was specified that is not defined in the system.",
        MMSYSERR_INVALFLAG => "An invalid flag was passed to a system function.",
        MMSYSERR_INVALPARAM => "An invalid parameter was passed to a system function.",
        WAVERR_BADFORMAT => {
            "The specified format is not supported or cannot be translated.  Use the Capabilities function to determine the supported formats."
        }
        WAVERR_STILLPLAYING => {
            "Cannot perform this operation while media data is still playing.  Reset the device, or wait until the data is finished playing."
        }
        WAVERR_UNPREPARED => {
            "The wave header was not prepared.  Use the Prepare function to prepare the header, and then try again."
        }
        WAVERR_SYNC => {
            "Cannot open the device without using the WAVE_ALLOWSYNC flag.  Use the flag, and then try again."
        }
        _ => return None,
    })
}

pub fn waveOutGetErrorTextA(
    cx: &mut Ctx,
    mmrError: u32,
    pszText: Ptr,
    cchText: u32,
) -> ApiResult<u32> {
    let Some(t) = error_text(mmrError) else {
        return Ok(MMSYSERR_BADERRNUM);
    };
    if pszText.is_null() {
        return Ok(MMSYSERR_INVALPARAM);
    }
    crate::kernel32::string::copy_truncated_a(cx.proc, pszText.0, cchText, t.as_bytes())?;
    Ok(MMSYSERR_NOERROR)
}

pub fn waveOutGetErrorTextW(
    cx: &mut Ctx,
    mmrError: u32,
    pszText: Ptr,
    cchText: u32,
) -> ApiResult<u32> {
    let Some(t) = error_text(mmrError) else {
        return Ok(MMSYSERR_BADERRNUM);
    };
    if pszText.is_null() {
        return Ok(MMSYSERR_INVALPARAM);
    }
    let w: Vec<u16> = t.encode_utf16().collect();
    crate::kernel32::string::copy_truncated_w(cx.proc, pszText.0, cchText, &w)?;
    Ok(MMSYSERR_NOERROR)
}

pub fn waveOutMessage(_cx: &mut Ctx, _hwo: u32, uMsg: u32, _dw1: u32, _dw2: u32) -> ApiResult<u32> {
    Err(ApiError::UnimplementedCase(format!(
        "winmm.dll!waveOutMessage (driver message {uMsg:#x})"
    )))
}

pub fn exports() -> Vec<ApiDef> {
    let mut v = vec![
        stdcall("waveOutGetNumDevs", waveOutGetNumDevs),
        stdcall("waveOutGetDevCapsA", waveOutGetDevCapsA),
        stdcall("waveOutGetDevCapsW", waveOutGetDevCapsW),
        stdcall("waveOutOpen", waveOutOpen),
        stdcall("waveOutClose", waveOutClose),
        stdcall("waveOutPrepareHeader", waveOutPrepareHeader),
        stdcall("waveOutUnprepareHeader", waveOutUnprepareHeader),
        stdcall("waveOutWrite", waveOutWrite),
        stdcall("waveOutPause", waveOutPause),
        stdcall("waveOutRestart", waveOutRestart),
        stdcall("waveOutReset", waveOutReset),
        stdcall("waveOutBreakLoop", waveOutBreakLoop),
        stdcall("waveOutGetPosition", waveOutGetPosition),
        stdcall("waveOutGetVolume", waveOutGetVolume),
        stdcall("waveOutSetVolume", waveOutSetVolume),
        stdcall("waveOutGetID", waveOutGetID),
        stdcall("waveOutGetErrorTextA", waveOutGetErrorTextA),
        stdcall("waveOutGetErrorTextW", waveOutGetErrorTextW),
        stdcall("waveOutMessage", waveOutMessage),
    ];
    v.extend(wave_service::exports());
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(len: u32, plays: u32, write_us: u64) -> Queued {
        Queued {
            hdr: 0,
            data: 0,
            len,
            plays,
            write_us,
            captured: 0,
        }
    }

    #[test]
    fn headers_play_back_to_back_and_wait_for_late_writes() {
        // 44100 Hz 16-bit stereo: 176400 bytes/s, 4410 bytes = 25 ms.
        let avg = 176_400;
        let queue: VecDeque<Queued> =
            [q(4410, 1, 1000), q(4410, 2, 2000), q(4410, 1, 200_000)].into();
        let s = schedule(&queue, 1000, avg);
        assert_eq!(s[0], (1000, 26_000));
        // Written while the first played: starts when it ends; two passes last 50 ms.
        assert_eq!(s[1], (26_000, 76_000));
        // Written after the queue ran dry: starts at its write time.
        assert_eq!(s[2], (200_000, 225_000));
    }

    #[test]
    fn durations_round_up_and_positions_round_down_to_frames() {
        // 11025 Hz 8-bit mono: 1 byte = 90.70.. µs.
        assert_eq!(duration_us(1, 11_025), 91);
        assert_eq!(duration_us(11_025, 11_025), 1_000_000);
        // 100 µs at 176400 B/s is 17.64 bytes: 16 in whole 4-byte frames.
        assert_eq!(bytes_in(100, 176_400, 4), 16);
    }

    #[test]
    fn wave_volume_maps_to_hundredths_of_db() {
        assert_eq!(volume_pan(0xffff_ffff), (0, 0));
        // Half amplitude is -6.02 dB.
        assert_eq!(level_to_db100(0x8000), -602);
        assert_eq!(volume_pan(0x8000_8000), (-602, 0));
        // Left full, right silent: full volume panned hard left.
        assert_eq!(volume_pan(0x0000_ffff), (0, -10000));
        assert_eq!(volume_pan(0xffff_0000), (0, 10000));
        assert_eq!(volume_pan(0), (-10000, 0));
    }
}
