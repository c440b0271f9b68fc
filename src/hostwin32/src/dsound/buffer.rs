//! IDirectSoundBuffer and IDirectSoundNotify.

use super::cursor::{lock_regions, write_lead_frames};
use super::voice::{BufState, Buffer, DSBPN_OFFSETSTOP, Memory};
use super::*;
use crate::sound::{PcmFormat, Source};
use crate::winmm::wave_service::{self, Timed};

const DSBCAPS_PRIMARYBUFFER: u32 = 0x1;
const DSBCAPS_LOCHARDWARE: u32 = 0x4;
const DSBCAPS_LOCSOFTWARE: u32 = 0x8;
const DSBCAPS_CTRL3D: u32 = 0x10;
const DSBCAPS_CTRLFREQUENCY: u32 = 0x20;
const DSBCAPS_CTRLPAN: u32 = 0x40;
const DSBCAPS_CTRLVOLUME: u32 = 0x80;
const DSBCAPS_CTRLPOSITIONNOTIFY: u32 = 0x100;
const DSBCAPS_CTRLFX: u32 = 0x200;
const DSBCAPS_LOCDEFER: u32 = 0x4_0000;

const DSBPLAY_LOOPING: u32 = 0x1;
const DSBSTATUS_PLAYING: u32 = 0x1;
const DSBSTATUS_LOOPING: u32 = 0x4;
const DSBLOCK_FROMWRITECURSOR: u32 = 0x1;
const DSBLOCK_ENTIREBUFFER: u32 = 0x2;

const DSBSIZE_MIN: u32 = 4;
const DSBSIZE_MAX: u32 = 0x0fff_ffff;
const DSBFREQUENCY_MIN: u32 = 100;
const DSBFREQUENCY_MAX: u32 = 200_000;
const DSBNOTIFICATIONS_MAX: u32 = 100_000;

/// sizeof(DSBUFFERDESC1) and sizeof(DSBUFFERDESC) (DirectX 7+, with the 3D GUID).
const DSBUFFERDESC1_SIZE: u32 = 20;
const DSBUFFERDESC_SIZE: u32 = 36;
const DSBCAPS_SIZE: u32 = 20;
/// sizeof(WAVEFORMATEX).
const WAVEFORMATEX_SIZE: u32 = 18;

/// IDirectSoundBuffer8's methods: IDirectSoundBuffer's and three for effects. Every
/// buffer gets this table (an IDirectSoundBuffer caller never reaches the last
/// three), so QueryInterface for IDirectSoundBuffer8 hands out the same pointer.
const BUFFER_METHODS: &[&str] = &[
    "QueryInterface",
    "AddRef",
    "Release",
    "GetCaps",
    "GetCurrentPosition",
    "GetFormat",
    "GetVolume",
    "GetPan",
    "GetFrequency",
    "GetStatus",
    "Initialize",
    "Lock",
    "Play",
    "SetCurrentPosition",
    "SetFormat",
    "SetVolume",
    "SetPan",
    "SetFrequency",
    "Stop",
    "Unlock",
    "Restore",
    "SetFX",
    "AcquireResources",
    "GetObjectInPath",
];

const NOTIFY_METHODS: &[&str] = &[
    "QueryInterface",
    "AddRef",
    "Release",
    "SetNotificationPositions",
];

/// The primary buffer's format until SetFormat: Windows' default, 22 kHz 8-bit stereo.
const PRIMARY_DEFAULT: PcmFormat = PcmFormat {
    channels: 2,
    bits_per_sample: 8,
    samples_per_sec: 22_050,
};

/// The buffer behind an IDirectSoundBuffer pointer.
pub fn get(cx: &Ctx, this: u32) -> Option<Arc<Buffer>> {
    match lock(&state(cx.proc).objects).get(&this) {
        Some(Obj::Buffer(b, _)) => Some(b.clone()),
        _ => None,
    }
}

fn owner(cx: &Ctx, this: u32) -> Option<u32> {
    match lock(&state(cx.proc).objects).get(&this) {
        Some(Obj::Buffer(_, d)) => Some(*d),
        _ => None,
    }
}

fn now(cx: &Ctx) -> u64 {
    crate::kernel32::time::micros(cx)
}

/// Signals events a buffer's state change says are due.
fn signal(cx: &mut Ctx, events: Vec<u32>) -> ApiResult<()> {
    for h in events {
        crate::kernel32::sync::SetEvent(cx, h)?;
    }
    Ok(())
}

/// Runs `f` on a buffer brought up to date (notifications passed, a finished
/// one-shot stopped), then signals what became due.
fn with<R>(
    cx: &mut Ctx,
    this: u32,
    f: impl FnOnce(&mut Ctx, &mut BufState, u64, u64) -> ApiResult<R>,
) -> ApiResult<Option<R>> {
    let Some(b) = get(cx, this) else {
        return Ok(None);
    };
    let t = now(cx);
    let (r, events, replan) = {
        let mut st = b.lock();
        let mut events = st.advance(cx.proc, b.voice, t);
        let before = (st.run, st.freq);
        let r = f(cx, &mut st, b.voice, t)?;
        if before.0.is_some()
            && st.run.is_none()
            && !events.iter().any(|e| st.stop_events().contains(e))
        {
            events.extend(st.stop_events());
        }
        // The service thread re-plans only when the cursor's course changed (not
        // for every GetCurrentPosition a game polls with).
        let replan = !st.notifies.is_empty() && before != (st.run, st.freq);
        (r, events, replan)
    };
    signal(cx, events)?;
    if replan {
        wave_service::kick(cx)?;
    }
    Ok(Some(r))
}

/// Reads a WAVEFORMATEX a buffer can hold: PCM, 1-2 channels, 8 or 16 bits.
fn read_format(cx: &Ctx, p: u32) -> ApiResult<Option<PcmFormat>> {
    let m = &cx.proc.mem;
    let tag = m.read_u16(p)?;
    let f = PcmFormat {
        channels: m.read_u16(p + 2)?,
        samples_per_sec: m.read_u32(p + 4)?,
        bits_per_sample: m.read_u16(p + 14)?,
    };
    let align = m.read_u16(p + 12)?;
    let ok = tag == 1
        && (1..=2).contains(&f.channels)
        && (f.bits_per_sample == 8 || f.bits_per_sample == 16)
        && (DSBFREQUENCY_MIN..=DSBFREQUENCY_MAX).contains(&f.samples_per_sec)
        && u32::from(align) == f.block_align();
    Ok(ok.then_some(f))
}

/// A WAVEFORMATEX (WAVE_FORMAT_PCM, cbSize 0) as it lies in memory.
fn format_bytes(f: &PcmFormat) -> Vec<u8> {
    let mut b = Vec::with_capacity(18);
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&f.channels.to_le_bytes());
    b.extend_from_slice(&f.samples_per_sec.to_le_bytes());
    b.extend_from_slice(&(f.samples_per_sec * f.block_align()).to_le_bytes());
    b.extend_from_slice(&(f.block_align() as u16).to_le_bytes());
    b.extend_from_slice(&f.bits_per_sample.to_le_bytes());
    b.extend_from_slice(&0u16.to_le_bytes());
    b
}

fn new_buffer(cx: &mut Ctx, dev_iface: u32, st: BufState) -> ApiResult<u32> {
    let is8 = super::device(cx, dev_iface).is_some_and(|d| d.is8);
    let vt = com::vtable(cx.proc, "dsound.dll", "IDirectSoundBuffer8", BUFFER_METHODS)?;
    let obj = com::new_object(cx.proc, vt, 0, 8)?;
    let b = Arc::new(Buffer {
        voice: new_voice_id(cx.proc),
        st: Mutex::new(BufState { is8, ..st }),
    });
    let src: Arc<dyn Source> = b.clone();
    crate::sound::register(cx.proc, &src);
    lock(&state(cx.proc).objects).insert(obj, Obj::Buffer(b, dev_iface));
    if let Some(Obj::Device(d)) = lock(&state(cx.proc).objects).get(&dev_iface) {
        lock(&d.st).buffers.push(obj);
    }
    Ok(obj)
}

pub fn create(
    cx: &mut Ctx,
    dev_iface: u32,
    dev: &Arc<Device>,
    desc: Ptr,
    ppBuf: Ptr,
    pUnkOuter: Ptr,
) -> ApiResult<u32> {
    if desc.is_null() || ppBuf.is_null() {
        return Ok(DSERR_INVALIDPARAM);
    }
    cx.proc.mem.write_u32(ppBuf.0, 0)?;
    if !pUnkOuter.is_null() {
        return Ok(DSERR_NOAGGREGATION);
    }
    let m = &cx.proc.mem;
    let size = m.read_u32(desc.0)?;
    if size != DSBUFFERDESC1_SIZE && size != DSBUFFERDESC_SIZE {
        return Ok(DSERR_INVALIDPARAM);
    }
    let flags = m.read_u32(desc.0 + 4)?;
    let bytes = m.read_u32(desc.0 + 8)?;
    let pwfx = m.read_u32(desc.0 + 16)?;
    if flags & DSBCAPS_LOCHARDWARE != 0 && flags & DSBCAPS_LOCSOFTWARE != 0 {
        return Ok(DSERR_INVALIDPARAM);
    }
    let level = lock(&dev.st).level;
    if flags & DSBCAPS_PRIMARYBUFFER != 0 {
        if bytes != 0 || pwfx != 0 {
            return Ok(DSERR_INVALIDPARAM);
        }
        let existing = lock(&dev.st).primary;
        if let Some(b) = get(cx, existing) {
            // One primary buffer per device: asking again hands out the same object.
            b.lock().refs += 1;
            cx.proc.mem.write_u32(ppBuf.0, existing)?;
            return Ok(DS_OK);
        }
        let fmt = PRIMARY_DEFAULT;
        // 100 ms of the default format, whole frames.
        let bytes = fmt.samples_per_sec / 10 * fmt.block_align();
        let Some(mem) = alloc(cx, bytes, fmt.bits_per_sample)? else {
            return Ok(DSERR_OUTOFMEMORY);
        };
        let obj = new_buffer(
            cx,
            dev_iface,
            BufState {
                primary: true,
                flags,
                fmt,
                freq: fmt.samples_per_sec,
                bytes,
                mem,
                volume: 0,
                pan: 0,
                run: None,
                pos: 0,
                captured: 0,
                notified: 0,
                notifies: Vec::new(),
                audible: level == DSSCL_WRITEPRIMARY,
                refs: 1,
                notify_iface: 0,
                is8: false,
            },
        )?;
        lock(&dev.st).primary = obj;
        cx.proc.mem.write_u32(ppBuf.0, obj)?;
        return Ok(DS_OK);
    }
    if pwfx == 0 || !(DSBSIZE_MIN..=DSBSIZE_MAX).contains(&bytes) {
        return Ok(DSERR_INVALIDPARAM);
    }
    let Some(fmt) = read_format(cx, pwfx)? else {
        return Ok(DSERR_BADFORMAT);
    };
    if flags & DSBCAPS_CTRLFX != 0 {
        // No effects processing: a buffer asking for it cannot be made.
        return Ok(DSERR_CONTROLUNAVAIL);
    }
    if flags & DSBCAPS_CTRL3D != 0 && fmt.channels != 1 {
        return Ok(DSERR_INVALIDPARAM);
    }
    // Whole frames, rounded up as Windows does.
    let bytes = bytes.div_ceil(fmt.block_align()) * fmt.block_align();
    let Some(mem) = alloc(cx, bytes, fmt.bits_per_sample)? else {
        return Ok(DSERR_OUTOFMEMORY);
    };
    let obj = new_buffer(
        cx,
        dev_iface,
        BufState {
            primary: false,
            flags,
            fmt,
            freq: fmt.samples_per_sec,
            bytes,
            mem,
            volume: 0,
            pan: 0,
            run: None,
            pos: 0,
            captured: 0,
            notified: 0,
            notifies: Vec::new(),
            audible: true,
            refs: 1,
            notify_iface: 0,
            is8: false,
        },
    )?;
    cx.proc.mem.write_u32(ppBuf.0, obj)?;
    Ok(DS_OK)
}

/// Guest memory for samples, filled with silence; `None` when the heap is full.
fn alloc(cx: &mut Ctx, bytes: u32, bits: u16) -> ApiResult<Option<Arc<Memory>>> {
    let heap = crate::kernel32::heap::process_heap(cx.proc)?;
    let addr = heap.alloc(bytes, true)?;
    if addr == 0 {
        return Ok(None);
    }
    if bits == 8 {
        cx.proc
            .mem
            .write_bytes(addr, &vec![0x80u8; bytes as usize])?;
    }
    Ok(Some(Arc::new(Memory { addr })))
}

pub fn duplicate(cx: &mut Ctx, dev_iface: u32, orig: u32, ppDup: Ptr) -> ApiResult<u32> {
    cx.proc.mem.write_u32(ppDup.0, 0)?;
    let Some(b) = get(cx, orig) else {
        return Ok(DSERR_INVALIDPARAM);
    };
    let st = {
        let s = b.lock();
        if s.primary {
            return Ok(DSERR_INVALIDCALL);
        }
        BufState {
            primary: false,
            flags: s.flags,
            fmt: s.fmt,
            freq: s.freq,
            bytes: s.bytes,
            mem: s.mem.clone(),
            volume: s.volume,
            pan: s.pan,
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
    };
    let obj = new_buffer(cx, dev_iface, st)?;
    cx.proc.mem.write_u32(ppDup.0, obj)?;
    Ok(DS_OK)
}

/// Ends a buffer: what it played so far reaches the mixer, then it is gone.
pub fn destroy(cx: &mut Ctx, this: u32) -> ApiResult<()> {
    let Some(b) = get(cx, this) else {
        return Ok(());
    };
    let t = now(cx);
    let (mem, notify) = {
        let mut st = b.lock();
        st.advance(cx.proc, b.voice, t);
        st.capture(cx.proc, b.voice, t);
        st.run = None;
        (st.mem.clone(), st.notify_iface)
    };
    let dev = owner(cx, this);
    {
        let mut objs = lock(&state(cx.proc).objects);
        objs.remove(&this);
        if notify != 0 {
            objs.remove(&notify);
        }
        if let Some(Obj::Device(d)) = dev.and_then(|d| objs.get(&d)) {
            let mut ds = lock(&d.st);
            ds.buffers.retain(|&x| x != this);
            if ds.primary == this {
                ds.primary = 0;
            }
        }
    }
    drop(b);
    // Duplicates share the samples; the last one frees them.
    if Arc::strong_count(&mem) == 1 {
        let heap = crate::kernel32::heap::process_heap(cx.proc)?;
        heap.free(mem.addr);
    }
    com::free_object(cx.proc, this)?;
    if notify != 0 {
        com::free_object(cx.proc, notify)?;
    }
    Ok(())
}

fn QueryInterface(cx: &mut Ctx, this: u32, riid: Ptr, ppv: Ptr) -> ApiResult<u32> {
    let Some(b) = get(cx, this) else {
        return Ok(DSERR_INVALIDPARAM);
    };
    if riid.is_null() || ppv.is_null() {
        return Ok(com::E_POINTER);
    }
    let g = Guid::read(cx.proc, riid.0)?;
    let is8 = b.lock().is8;
    if g == com::IID_IUNKNOWN
        || g == IID_IDIRECTSOUNDBUFFER
        || (g == IID_IDIRECTSOUNDBUFFER8 && is8)
    {
        b.lock().refs += 1;
        cx.proc.mem.write_u32(ppv.0, this)?;
        return Ok(DS_OK);
    }
    if g == IID_IDIRECTSOUNDNOTIFY && b.lock().flags & DSBCAPS_CTRLPOSITIONNOTIFY != 0 {
        let existing = b.lock().notify_iface;
        let n = if existing != 0 {
            existing
        } else {
            let vt = com::vtable(cx.proc, "dsound.dll", "IDirectSoundNotify", NOTIFY_METHODS)?;
            let n = com::new_object(cx.proc, vt, 0, 8)?;
            lock(&state(cx.proc).objects).insert(n, Obj::Notify(this));
            b.lock().notify_iface = n;
            n
        };
        b.lock().refs += 1;
        cx.proc.mem.write_u32(ppv.0, n)?;
        return Ok(DS_OK);
    }
    cx.proc.mem.write_u32(ppv.0, 0)?;
    Ok(com::E_NOINTERFACE)
}

fn AddRef(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    let Some(b) = get(cx, this) else {
        return Ok(0);
    };
    let mut st = b.lock();
    st.refs += 1;
    Ok(st.refs)
}

fn Release(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    let Some(b) = get(cx, this) else {
        return Ok(0);
    };
    let left = {
        let mut st = b.lock();
        st.refs = st.refs.saturating_sub(1);
        st.refs
    };
    if left == 0 {
        destroy(cx, this)?;
    }
    Ok(left)
}

fn GetCaps(cx: &mut Ctx, this: u32, caps: Ptr) -> ApiResult<u32> {
    let Some(b) = get(cx, this) else {
        return Ok(DSERR_INVALIDPARAM);
    };
    if caps.is_null() || cx.proc.mem.read_u32(caps.0)? != DSBCAPS_SIZE {
        return Ok(DSERR_INVALIDPARAM);
    }
    let (flags, bytes) = {
        let st = b.lock();
        let mut f = st.flags;
        if f & (DSBCAPS_LOCHARDWARE | DSBCAPS_LOCSOFTWARE) == 0 {
            f |= DSBCAPS_LOCSOFTWARE;
        }
        (f, st.bytes)
    };
    for (k, v) in [DSBCAPS_SIZE, flags, bytes, 0, 0].iter().enumerate() {
        cx.proc.mem.write_u32(caps.0 + 4 * k as u32, *v)?;
    }
    Ok(DS_OK)
}

fn GetCurrentPosition(cx: &mut Ctx, this: u32, pPlay: Ptr, pWrite: Ptr) -> ApiResult<u32> {
    let r = with(cx, this, |_, st, _, t| {
        let ba = st.fmt.block_align();
        let play = st.position(t);
        let write = if st.playing(t) {
            ((u64::from(play) + u64::from(write_lead_frames(st.freq))) % st.frames().max(1)) as u32
        } else {
            play
        };
        Ok((play * ba, write * ba))
    })?;
    let Some((play, write)) = r else {
        return Ok(DSERR_INVALIDPARAM);
    };
    if !pPlay.is_null() {
        cx.proc.mem.write_u32(pPlay.0, play)?;
    }
    if !pWrite.is_null() {
        cx.proc.mem.write_u32(pWrite.0, write)?;
    }
    Ok(DS_OK)
}

fn GetFormat(cx: &mut Ctx, this: u32, pwfx: Ptr, size: u32, pWritten: Ptr) -> ApiResult<u32> {
    let Some(b) = get(cx, this) else {
        return Ok(DSERR_INVALIDPARAM);
    };
    let fmt = b.lock().fmt;
    if pwfx.is_null() {
        if pWritten.is_null() {
            return Ok(DSERR_INVALIDPARAM);
        }
        cx.proc.mem.write_u32(pWritten.0, WAVEFORMATEX_SIZE)?;
        return Ok(DS_OK);
    }
    if size < WAVEFORMATEX_SIZE - 2 {
        return Ok(DSERR_INVALIDPARAM);
    }
    let bytes = format_bytes(&fmt);
    // A PCMWAVEFORMAT-sized (16-byte) buffer gets the format without cbSize.
    let n = size.min(WAVEFORMATEX_SIZE);
    cx.proc.mem.write_bytes(pwfx.0, &bytes[..n as usize])?;
    if !pWritten.is_null() {
        cx.proc.mem.write_u32(pWritten.0, n)?;
    }
    Ok(DS_OK)
}

/// Reads a control value if the buffer has the control.
fn get_control(
    cx: &mut Ctx,
    this: u32,
    flag: u32,
    p: Ptr,
    f: fn(&BufState) -> u32,
) -> ApiResult<u32> {
    let Some(b) = get(cx, this) else {
        return Ok(DSERR_INVALIDPARAM);
    };
    let (flags, v) = {
        let st = b.lock();
        (st.flags, f(&st))
    };
    if flags & flag == 0 {
        return Ok(DSERR_CONTROLUNAVAIL);
    }
    if p.is_null() {
        return Ok(DSERR_INVALIDPARAM);
    }
    cx.proc.mem.write_u32(p.0, v)?;
    Ok(DS_OK)
}

fn GetVolume(cx: &mut Ctx, this: u32, p: Ptr) -> ApiResult<u32> {
    get_control(cx, this, DSBCAPS_CTRLVOLUME, p, |s| s.volume as u32)
}

fn GetPan(cx: &mut Ctx, this: u32, p: Ptr) -> ApiResult<u32> {
    get_control(cx, this, DSBCAPS_CTRLPAN, p, |s| s.pan as u32)
}

fn GetFrequency(cx: &mut Ctx, this: u32, p: Ptr) -> ApiResult<u32> {
    get_control(cx, this, DSBCAPS_CTRLFREQUENCY, p, |s| s.freq)
}

fn GetStatus(cx: &mut Ctx, this: u32, p: Ptr) -> ApiResult<u32> {
    let r = with(cx, this, |_, st, _, t| {
        Ok(match &st.run {
            Some(r) if st.playing(t) => {
                DSBSTATUS_PLAYING
                    | if r.end.is_none() {
                        DSBSTATUS_LOOPING
                    } else {
                        0
                    }
            }
            _ => 0,
        })
    })?;
    let Some(s) = r else {
        return Ok(DSERR_INVALIDPARAM);
    };
    if p.is_null() {
        return Ok(DSERR_INVALIDPARAM);
    }
    cx.proc.mem.write_u32(p.0, s)?;
    Ok(DS_OK)
}

fn Initialize(cx: &mut Ctx, this: u32, _ds: u32, _desc: Ptr) -> ApiResult<u32> {
    if get(cx, this).is_none() {
        return Ok(DSERR_INVALIDPARAM);
    }
    // Buffers come from CreateSoundBuffer, which initialises them.
    Ok(DSERR_ALREADYINITIALIZED)
}

#[allow(clippy::too_many_arguments)]
fn Lock(
    cx: &mut Ctx,
    this: u32,
    dwOffset: u32,
    dwBytes: u32,
    ppv1: Ptr,
    pl1: Ptr,
    ppv2: Ptr,
    pl2: Ptr,
    dwFlags: u32,
) -> ApiResult<u32> {
    if ppv1.is_null() || pl1.is_null() {
        return Ok(DSERR_INVALIDPARAM);
    }
    let r = with(cx, this, |cx, st, voice, t| {
        if st.primary && !st.audible {
            return Ok(Err(DSERR_PRIOLEVELNEEDED));
        }
        let ba = st.fmt.block_align();
        let offset = if dwFlags & DSBLOCK_FROMWRITECURSOR != 0 {
            write_cursor(st, t) * ba
        } else {
            dwOffset
        };
        let bytes = if dwFlags & DSBLOCK_ENTIREBUFFER != 0 {
            st.bytes
        } else {
            dwBytes
        };
        if offset >= st.bytes || bytes > st.bytes || bytes == 0 {
            return Ok(Err(DSERR_INVALIDPARAM));
        }
        // The program may overwrite what already played: the mixer gets it first.
        st.capture(cx.proc, voice, t);
        let (l1, l2) = lock_regions(offset, bytes, st.bytes, !ppv2.is_null());
        Ok(Ok((st.mem.addr + offset, l1, st.mem.addr, l2)))
    })?;
    let (p1, l1, p2, l2) = match r {
        None => return Ok(DSERR_INVALIDPARAM),
        Some(Err(e)) => return Ok(e),
        Some(Ok(x)) => x,
    };
    cx.proc.mem.write_u32(ppv1.0, p1)?;
    cx.proc.mem.write_u32(pl1.0, l1)?;
    if !ppv2.is_null() {
        cx.proc.mem.write_u32(ppv2.0, if l2 > 0 { p2 } else { 0 })?;
    }
    if !pl2.is_null() {
        cx.proc.mem.write_u32(pl2.0, l2)?;
    }
    Ok(DS_OK)
}

/// The write cursor in frames: 10 ms ahead of the play cursor while playing.
fn write_cursor(st: &BufState, t: u64) -> u32 {
    let play = st.position(t);
    if st.playing(t) {
        ((u64::from(play) + u64::from(write_lead_frames(st.freq))) % st.frames().max(1)) as u32
    } else {
        play
    }
}

fn Play(cx: &mut Ctx, this: u32, _r1: u32, _priority: u32, dwFlags: u32) -> ApiResult<u32> {
    let r = with(cx, this, |_, st, _, t| {
        let looping = dwFlags & DSBPLAY_LOOPING != 0;
        // The primary buffer only plays looping.
        if st.primary && !looping {
            return Ok(DSERR_INVALIDPARAM);
        }
        if st.run.is_some() {
            st.reanchor(t, Some(looping));
        } else {
            let pos = u64::from(st.pos);
            st.start_run(t, pos, looping);
        }
        Ok(DS_OK)
    })?;
    Ok(r.unwrap_or(DSERR_INVALIDPARAM))
}

fn SetCurrentPosition(cx: &mut Ctx, this: u32, dwNewPosition: u32) -> ApiResult<u32> {
    let r = with(cx, this, |cx, st, voice, t| {
        if st.primary {
            return Ok(DSERR_INVALIDCALL);
        }
        if dwNewPosition >= st.bytes {
            return Ok(DSERR_INVALIDPARAM);
        }
        let frame = dwNewPosition / st.fmt.block_align();
        st.capture(cx.proc, voice, t);
        match st.run {
            Some(r) => st.start_run(t, u64::from(frame), r.end.is_none()),
            None => st.pos = frame,
        }
        Ok(DS_OK)
    })?;
    Ok(r.unwrap_or(DSERR_INVALIDPARAM))
}

fn SetFormat(cx: &mut Ctx, this: u32, pwfx: Ptr) -> ApiResult<u32> {
    let Some(b) = get(cx, this) else {
        return Ok(DSERR_INVALIDPARAM);
    };
    if !b.lock().primary {
        return Ok(DSERR_INVALIDCALL);
    }
    let level = owner(cx, this)
        .and_then(|d| super::device(cx, d))
        .map_or(0, |d| lock(&d.st).level);
    if level < DSSCL_PRIORITY {
        return Ok(DSERR_PRIOLEVELNEEDED);
    }
    if pwfx.is_null() {
        return Ok(DSERR_INVALIDPARAM);
    }
    let Some(fmt) = read_format(cx, pwfx.0)? else {
        return Ok(DSERR_BADFORMAT);
    };
    let t = now(cx);
    let mut st = b.lock();
    st.capture(cx.proc, b.voice, t);
    let was = st.run.map(|r| r.end.is_none());
    st.fmt = fmt;
    st.freq = fmt.samples_per_sec;
    // The primary buffer keeps 100 ms of its format.
    st.bytes = (fmt.samples_per_sec / 10).max(1) * fmt.block_align();
    let heap = crate::kernel32::heap::process_heap(cx.proc)?;
    let addr = heap.alloc(st.bytes, true)?;
    if addr == 0 {
        return Ok(DSERR_OUTOFMEMORY);
    }
    if Arc::strong_count(&st.mem) == 1 {
        heap.free(st.mem.addr);
    }
    st.mem = Arc::new(Memory { addr });
    st.pos = 0;
    st.run = None;
    if let Some(l) = was {
        st.start_run(t, 0, l);
    }
    Ok(DS_OK)
}

/// Changes a control (after capturing what played with the old setting).
fn set_control(
    cx: &mut Ctx,
    this: u32,
    flag: u32,
    ok: impl Fn(i64) -> bool,
    v: i64,
    apply: impl FnOnce(&mut BufState, u64),
) -> ApiResult<u32> {
    let r = with(cx, this, |cx, st, voice, t| {
        if st.flags & flag == 0 || (st.primary && flag == DSBCAPS_CTRLFREQUENCY) {
            return Ok(DSERR_CONTROLUNAVAIL);
        }
        if !ok(v) {
            return Ok(DSERR_INVALIDPARAM);
        }
        st.capture(cx.proc, voice, t);
        apply(st, t);
        Ok(DS_OK)
    })?;
    Ok(r.unwrap_or(DSERR_INVALIDPARAM))
}

fn SetVolume(cx: &mut Ctx, this: u32, lVolume: i32) -> ApiResult<u32> {
    set_control(
        cx,
        this,
        DSBCAPS_CTRLVOLUME,
        |v| (-10000..=0).contains(&v),
        i64::from(lVolume),
        |st, _| st.volume = lVolume,
    )
}

fn SetPan(cx: &mut Ctx, this: u32, lPan: i32) -> ApiResult<u32> {
    set_control(
        cx,
        this,
        DSBCAPS_CTRLPAN,
        |v| (-10000..=10000).contains(&v),
        i64::from(lPan),
        |st, _| st.pan = lPan,
    )
}

fn SetFrequency(cx: &mut Ctx, this: u32, dwFrequency: u32) -> ApiResult<u32> {
    set_control(
        cx,
        this,
        DSBCAPS_CTRLFREQUENCY,
        |v| v == 0 || (i64::from(DSBFREQUENCY_MIN)..=i64::from(DSBFREQUENCY_MAX)).contains(&v),
        i64::from(dwFrequency),
        |st, t| {
            st.reanchor(t, None);
            // DSBFREQUENCY_ORIGINAL: back to the format's rate.
            st.freq = if dwFrequency == 0 {
                st.fmt.samples_per_sec
            } else {
                dwFrequency
            };
        },
    )
}

fn Stop(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    let r = with(cx, this, |cx, st, voice, t| {
        st.capture(cx.proc, voice, t);
        st.pos = st.position(t);
        st.run = None;
        Ok(DS_OK)
    })?;
    Ok(r.unwrap_or(DSERR_INVALIDPARAM))
}

fn Unlock(cx: &mut Ctx, this: u32, p1: u32, l1: u32, p2: u32, l2: u32) -> ApiResult<u32> {
    let Some(b) = get(cx, this) else {
        return Ok(DSERR_INVALIDPARAM);
    };
    let st = b.lock();
    let inside = |p: u32, l: u32| {
        p >= st.mem.addr
            && u64::from(p) + u64::from(l) <= u64::from(st.mem.addr) + u64::from(st.bytes)
    };
    if (p1 != 0 && !inside(p1, l1)) || (p2 != 0 && !inside(p2, l2)) {
        return Ok(DSERR_INVALIDPARAM);
    }
    Ok(DS_OK)
}

fn Restore(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    // Buffers are never lost here.
    Ok(if get(cx, this).is_some() {
        DS_OK
    } else {
        DSERR_INVALIDPARAM
    })
}

/// No effects processing: a buffer never has DSBCAPS_CTRLFX (CreateSoundBuffer refuses
/// it), which is what SetFX reports.
fn SetFX(cx: &mut Ctx, this: u32, _count: u32, _desc: Ptr, _results: Ptr) -> ApiResult<u32> {
    Ok(if get(cx, this).is_some() {
        DSERR_CONTROLUNAVAIL
    } else {
        DSERR_INVALIDPARAM
    })
}

fn AcquireResources(
    cx: &mut Ctx,
    this: u32,
    _flags: u32,
    count: u32,
    _results: Ptr,
) -> ApiResult<u32> {
    let Some(b) = get(cx, this) else {
        return Ok(DSERR_INVALIDPARAM);
    };
    // Only DSBCAPS_LOCDEFER buffers defer their resources; software mixing has
    // them from the start, and there are no effects whose results to report.
    Ok(if b.lock().flags & DSBCAPS_LOCDEFER == 0 {
        DSERR_INVALIDCALL
    } else if count != 0 {
        DSERR_INVALIDPARAM
    } else {
        DS_OK
    })
}

fn GetObjectInPath(
    cx: &mut Ctx,
    this: u32,
    _guid: Ptr,
    _index: u32,
    _iid: Ptr,
    ppObject: Ptr,
) -> ApiResult<u32> {
    if get(cx, this).is_none() || ppObject.is_null() {
        return Ok(DSERR_INVALIDPARAM);
    }
    cx.proc.mem.write_u32(ppObject.0, 0)?;
    // No effects in any buffer's path.
    Ok(DSERR_OBJECTNOTFOUND)
}

/// The buffer behind an IDirectSoundNotify pointer.
fn notify_target(cx: &Ctx, this: u32) -> Option<u32> {
    match lock(&state(cx.proc).objects).get(&this) {
        Some(Obj::Notify(b)) => Some(*b),
        _ => None,
    }
}

fn n_QueryInterface(cx: &mut Ctx, this: u32, riid: Ptr, ppv: Ptr) -> ApiResult<u32> {
    let Some(b) = notify_target(cx, this) else {
        return Ok(DSERR_INVALIDPARAM);
    };
    if riid.is_null() || ppv.is_null() {
        return Ok(com::E_POINTER);
    }
    if Guid::read(cx.proc, riid.0)? == IID_IDIRECTSOUNDNOTIFY {
        if let Some(buf) = get(cx, b) {
            buf.lock().refs += 1;
        }
        cx.proc.mem.write_u32(ppv.0, this)?;
        return Ok(DS_OK);
    }
    QueryInterface(cx, b, riid, ppv)
}

fn n_AddRef(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    match notify_target(cx, this) {
        Some(b) => AddRef(cx, b),
        None => Ok(0),
    }
}

fn n_Release(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    match notify_target(cx, this) {
        Some(b) => Release(cx, b),
        None => Ok(0),
    }
}

fn SetNotificationPositions(cx: &mut Ctx, this: u32, count: u32, p: Ptr) -> ApiResult<u32> {
    let Some(bi) = notify_target(cx, this) else {
        return Ok(DSERR_INVALIDPARAM);
    };
    let Some(b) = get(cx, bi) else {
        return Ok(DSERR_INVALIDPARAM);
    };
    if count > DSBNOTIFICATIONS_MAX || (count > 0 && p.is_null()) {
        return Ok(DSERR_INVALIDPARAM);
    }
    let mut list = Vec::with_capacity(count as usize);
    for k in 0..count {
        let off = cx.proc.mem.read_u32(p.0 + 8 * k)?;
        let ev = cx.proc.mem.read_u32(p.0 + 8 * k + 4)?;
        list.push((off, ev));
    }
    {
        let t = now(cx);
        let mut st = b.lock();
        // Windows refuses while the buffer plays.
        if st.playing(t) {
            return Ok(DSERR_INVALIDCALL);
        }
        if list
            .iter()
            .any(|&(o, _)| o != DSBPN_OFFSETSTOP && o >= st.bytes)
        {
            return Ok(DSERR_INVALIDPARAM);
        }
        st.notifies = list;
    }
    let timed: Arc<dyn Timed> = b.clone();
    wave_service::watch(cx, &timed)?;
    Ok(DS_OK)
}

pub fn exports() -> Vec<ApiDef> {
    let mut v = vec![
        stdcall("IDirectSoundBuffer::QueryInterface", QueryInterface),
        stdcall("IDirectSoundBuffer::AddRef", AddRef),
        stdcall("IDirectSoundBuffer::Release", Release),
        stdcall("IDirectSoundBuffer::GetCaps", GetCaps),
        stdcall("IDirectSoundBuffer::GetCurrentPosition", GetCurrentPosition),
        stdcall("IDirectSoundBuffer::GetFormat", GetFormat),
        stdcall("IDirectSoundBuffer::GetVolume", GetVolume),
        stdcall("IDirectSoundBuffer::GetPan", GetPan),
        stdcall("IDirectSoundBuffer::GetFrequency", GetFrequency),
        stdcall("IDirectSoundBuffer::GetStatus", GetStatus),
        stdcall("IDirectSoundBuffer::Initialize", Initialize),
        stdcall("IDirectSoundBuffer::Lock", Lock),
        stdcall("IDirectSoundBuffer::Play", Play),
        stdcall("IDirectSoundBuffer::SetCurrentPosition", SetCurrentPosition),
        stdcall("IDirectSoundBuffer::SetFormat", SetFormat),
        stdcall("IDirectSoundBuffer::SetVolume", SetVolume),
        stdcall("IDirectSoundBuffer::SetPan", SetPan),
        stdcall("IDirectSoundBuffer::SetFrequency", SetFrequency),
        stdcall("IDirectSoundBuffer::Stop", Stop),
        stdcall("IDirectSoundBuffer::Unlock", Unlock),
        stdcall("IDirectSoundBuffer::Restore", Restore),
        stdcall("IDirectSoundNotify::QueryInterface", n_QueryInterface),
        stdcall("IDirectSoundNotify::AddRef", n_AddRef),
        stdcall("IDirectSoundNotify::Release", n_Release),
        stdcall(
            "IDirectSoundNotify::SetNotificationPositions",
            SetNotificationPositions,
        ),
    ];
    v.extend(buffer8_exports());
    v
}

/// The buffer methods under IDirectSoundBuffer8's names (the vtable every buffer gets).
fn buffer8_exports() -> Vec<ApiDef> {
    vec![
        stdcall("IDirectSoundBuffer8::QueryInterface", QueryInterface),
        stdcall("IDirectSoundBuffer8::AddRef", AddRef),
        stdcall("IDirectSoundBuffer8::Release", Release),
        stdcall("IDirectSoundBuffer8::GetCaps", GetCaps),
        stdcall(
            "IDirectSoundBuffer8::GetCurrentPosition",
            GetCurrentPosition,
        ),
        stdcall("IDirectSoundBuffer8::GetFormat", GetFormat),
        stdcall("IDirectSoundBuffer8::GetVolume", GetVolume),
        stdcall("IDirectSoundBuffer8::GetPan", GetPan),
        stdcall("IDirectSoundBuffer8::GetFrequency", GetFrequency),
        stdcall("IDirectSoundBuffer8::GetStatus", GetStatus),
        stdcall("IDirectSoundBuffer8::Initialize", Initialize),
        stdcall("IDirectSoundBuffer8::Lock", Lock),
        stdcall("IDirectSoundBuffer8::Play", Play),
        stdcall(
            "IDirectSoundBuffer8::SetCurrentPosition",
            SetCurrentPosition,
        ),
        stdcall("IDirectSoundBuffer8::SetFormat", SetFormat),
        stdcall("IDirectSoundBuffer8::SetVolume", SetVolume),
        stdcall("IDirectSoundBuffer8::SetPan", SetPan),
        stdcall("IDirectSoundBuffer8::SetFrequency", SetFrequency),
        stdcall("IDirectSoundBuffer8::Stop", Stop),
        stdcall("IDirectSoundBuffer8::Unlock", Unlock),
        stdcall("IDirectSoundBuffer8::Restore", Restore),
        stdcall("IDirectSoundBuffer8::SetFX", SetFX),
        stdcall("IDirectSoundBuffer8::AcquireResources", AcquireResources),
        stdcall("IDirectSoundBuffer8::GetObjectInPath", GetObjectInPath),
    ]
}
