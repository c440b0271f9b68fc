//! winmm MIDI output: one General MIDI synthesizer (device 0, also reachable as
//! MIDI_MAPPER) that any number of handles and the MCI sequencer play into.
//!
//! The synthesizer is `winterp_midi::Synth` playing the GM SoundFont found on the
//! host (`$WINTERP_SOUNDFONT`, else Debian's; see `winterp_midi::synth`). Without a
//! SoundFont there is no device: midiOutGetNumDevs answers 0 and every device id is
//! out of range, as on a machine without a MIDI device — never a device that
//! plays nothing.
//!
//! The synthesizer is one voice of the sound contract (`crate::sound`), 44100 Hz
//! 16-bit stereo, paced by the guest clock: a message takes effect at the frame of
//! the guest time it was sent (midiOutShortMsg's call, or the time the sequencer
//! scheduled it for), and frames are rendered only when captured (when the host
//! drains, before a volume change). So a deterministic run renders the same
//! samples every time, whatever the host's timing. While nobody listens (no
//! `--audio-dump`, no player) messages still change the synthesizer's state but
//! nothing is rendered.
//!
//! Callbacks (MOM_OPEN, MOM_DONE, MOM_CLOSE) are delivered as waveOut's are:
//! CALLBACK_WINDOW and CALLBACK_THREAD post MM_MOM_*, CALLBACK_EVENT sets the
//! event, CALLBACK_FUNCTION runs on winmm's sound service thread.
//!
//! midiOutLongMsg plays the system-exclusive messages of its buffer at once (the
//! GM and GS resets and the master volume change the synthesizer; the rest are
//! ignored, as a GM receiver ignores what it does not recognise) and returns the
//! header done with MOM_DONE. The midiStream* functions are not implemented.

use super::wave::{
    MMSYSERR_BADDEVICEID, MMSYSERR_INVALFLAG, MMSYSERR_INVALHANDLE, MMSYSERR_INVALPARAM,
    MMSYSERR_NOERROR, MMSYSERR_NOTSUPPORTED,
};
use super::wave_service::{self, Action, Callback};
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Ptr, stdcall};
use crate::process::Process;
use crate::sound::{self, Chunk, PcmFormat, Source, VoiceKind};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use winterp_midi::Synth;

pub const MIDI_MAPPER: u32 = 0xffff_ffff;
pub const MOM_OPEN: u32 = 0x3c7;
pub const MOM_CLOSE: u32 = 0x3c8;
pub const MOM_DONE: u32 = 0x3c9;

const MIDIERR_BASE: u32 = 64;
pub const MIDIERR_UNPREPARED: u32 = MIDIERR_BASE;
pub const MIDIERR_STILLPLAYING: u32 = MIDIERR_BASE + 1;
const MIDIERR_NOMAP: u32 = MIDIERR_BASE + 2;
const MIDIERR_NOTREADY: u32 = MIDIERR_BASE + 3;
const MIDIERR_NODEVICE: u32 = MIDIERR_BASE + 4;
const MIDIERR_INVALIDSETUP: u32 = MIDIERR_BASE + 5;

const MHDR_DONE: u32 = 0x1;
const MHDR_PREPARED: u32 = 0x2;
const MHDR_INQUEUE: u32 = 0x4;
/// offsetof(MIDIHDR, dwOffset): headers from before dwOffset existed are this long.
const MIDIHDR_MIN: u32 = 28;
const HDR_DATA: u32 = 0;
const HDR_LENGTH: u32 = 4;
const HDR_FLAGS: u32 = 16;

/// wTechnology: a software synthesizer.
const MOD_SWSYNTH: u16 = 7;
const MOD_MAPPER: u16 = 5;
/// dwSupport: volume, left/right volume.
const MIDICAPS_VOLUME: u32 = 1;
const MIDICAPS_LRVOLUME: u32 = 2;

/// The mix rate: the synthesizer renders at it, so its chunks pass the mixer as is.
pub const RATE: u32 = 44100;
const FORMAT: PcmFormat = PcmFormat {
    channels: 2,
    bits_per_sample: 16,
    samples_per_sec: RATE,
};
/// The synthesizer's voice id (waveOut handles are 1 << 32, PlaySound 2 << 32).
const VOICE_ID: u64 = 3 << 32;
/// The name midiOutGetDevCaps gives (at most 31 characters).
const DEVICE_NAME: &str = "winterp GM SoundFont Synth";

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What the synthesizer is told, at a guest time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cmd {
    /// A channel message, packed as midiOutShortMsg takes it.
    Short(u32),
    /// A system-exclusive message.
    SysEx(Vec<u8>),
    /// Release every sounding note (midiOutReset, a sequencer stopping).
    NotesOff,
}

#[derive(Clone, Debug)]
struct Queued {
    us: u64,
    /// Who sent it (a handle, or an MCI device's tag), so a sequencer that stops
    /// can take back what it scheduled.
    owner: u32,
    cmd: Cmd,
}

struct SynthState {
    synth: Synth,
    /// Frames rendered (or skipped) so far: the next frame's index on the mix
    /// timeline (frame n is at guest time n / 44100 s).
    frame: u64,
    /// Messages not yet played, in time order.
    queue: VecDeque<Queued>,
    /// midiOutSetVolume's DWORD (left level low, right high).
    volume: u32,
}

/// The process's synthesizer, a voice of the sound contract.
pub struct SynthVoice {
    st: Mutex<SynthState>,
}

/// The frame of the mix timeline that plays at guest time `us`.
pub fn frame_of(us: u64) -> u64 {
    (u128::from(us) * u128::from(RATE) / 1_000_000) as u64
}

impl SynthVoice {
    /// Plays what is due up to `now`: renders the frames between messages (when
    /// someone listens) and applies each message at its frame.
    fn capture_locked(&self, proc: &Process, st: &mut SynthState, now: u64) {
        let target = frame_of(now);
        if target < st.frame {
            return;
        }
        let listening = sound::listening(proc);
        let start = st.frame;
        let mut pcm = Vec::new();
        while st.queue.front().is_some_and(|q| q.us <= now) {
            let Some(q) = st.queue.pop_front() else { break };
            let at = frame_of(q.us).max(st.frame);
            if listening {
                st.synth.render_i16((at - st.frame) as usize, &mut pcm);
            }
            st.frame = at;
            apply(&mut st.synth, &q.cmd);
        }
        if listening {
            st.synth.render_i16((target - st.frame) as usize, &mut pcm);
        }
        st.frame = target;
        if !pcm.is_empty() {
            let (volume, pan) = super::wave::volume_pan(st.volume);
            sound::push(
                proc,
                Chunk {
                    voice: VOICE_ID,
                    kind: VoiceKind::Midi,
                    format: FORMAT,
                    volume,
                    pan,
                    start_us: (u128::from(start) * 1_000_000 / u128::from(RATE)) as u64,
                    data: pcm,
                },
            );
        }
    }

    /// Sends a message at guest time `now` (after everything already due then).
    pub fn send(&self, proc: &Process, now: u64, owner: u32, cmd: Cmd) {
        let mut st = lock(&self.st);
        let at = st.queue.partition_point(|q| q.us <= now);
        st.queue.insert(
            at,
            Queued {
                us: now,
                owner,
                cmd,
            },
        );
        if !sound::listening(proc) {
            self.capture_locked(proc, &mut st, now);
        }
    }

    /// Schedules messages at future guest times (they must be in time order).
    pub fn schedule(&self, owner: u32, msgs: impl IntoIterator<Item = (u64, Cmd)>) {
        let mut st = lock(&self.st);
        let new: Vec<Queued> = msgs
            .into_iter()
            .map(|(us, cmd)| Queued { us, owner, cmd })
            .collect();
        if new.is_empty() {
            return;
        }
        // Merge: at equal times, what was queued first plays first.
        let old = std::mem::take(&mut st.queue);
        let mut merged = VecDeque::with_capacity(old.len() + new.len());
        let mut a = old.into_iter().peekable();
        let mut b = new.into_iter().peekable();
        loop {
            let take_a = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) => x.us <= y.us,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            let next = if take_a { a.next() } else { b.next() };
            merged.extend(next);
        }
        st.queue = merged;
    }

    /// Takes back what `owner` scheduled after `now`.
    pub fn cancel(&self, owner: u32, now: u64) {
        lock(&self.st)
            .queue
            .retain(|q| q.owner != owner || q.us <= now);
    }

    fn set_volume(&self, proc: &Process, now: u64, v: u32) {
        let mut st = lock(&self.st);
        self.capture_locked(proc, &mut st, now);
        st.volume = v;
    }

    fn volume(&self) -> u32 {
        lock(&self.st).volume
    }
}

fn apply(s: &mut Synth, cmd: &Cmd) {
    match cmd {
        Cmd::Short(m) => s.short(*m),
        Cmd::SysEx(b) => {
            if !s.sysex(b) {
                log::debug!("MIDI: system-exclusive message {b:02x?} not recognised; ignored");
            }
        }
        Cmd::NotesOff => s.all_notes_off(),
    }
}

impl Source for SynthVoice {
    fn capture(&self, proc: &Arc<Process>, now_us: u64) {
        let mut st = lock(&self.st);
        self.capture_locked(proc, &mut st, now_us);
    }
}

struct Handle {
    handle: u32,
    cb: Callback,
    instance: u32,
    /// The last channel status byte sent (midiOutShortMsg's running status).
    running: AtomicU32,
}

impl Handle {
    fn callback_action(&self, msg: u32, p1: u32) -> Option<Action> {
        self.cb.action(self.handle, self.instance, msg, p1)
    }
}

/// Per-process MIDI state (in a process slot).
pub struct MidiState {
    /// The synthesizer once looked for: `None` inside when there is no SoundFont.
    synth: Mutex<Option<Option<Arc<SynthVoice>>>>,
    handles: Mutex<HashMap<u32, Arc<Handle>>>,
    next: AtomicU32,
}

impl Default for MidiState {
    fn default() -> Self {
        MidiState {
            synth: Mutex::new(None),
            handles: Mutex::new(HashMap::new()),
            next: AtomicU32::new(0x0000_6d01),
        }
    }
}

fn state(proc: &Process) -> Arc<MidiState> {
    proc.slot::<MidiState>()
}

/// The synthesizer, started on first use; `None` without a usable SoundFont.
pub fn synth(proc: &Process) -> Option<Arc<SynthVoice>> {
    let st = state(proc);
    let mut s = lock(&st.synth);
    if let Some(v) = s.as_ref() {
        return v.clone();
    }
    let voice = start_synth(proc);
    *s = Some(voice.clone());
    voice
}

fn start_synth(proc: &Process) -> Option<Arc<SynthVoice>> {
    let Some(path) = winterp_midi::find_soundfont() else {
        log::info!(
            "MIDI: no General MIDI SoundFont (set {} or install Debian's \
             timgm6mb-soundfont or fluid-soundfont-gm); there is no MIDI output device",
            winterp_midi::synth::SOUNDFONT_ENV
        );
        return None;
    };
    let made = winterp_midi::synth::load(&path).and_then(|f| Synth::new(&f, RATE));
    let synth = match made {
        Ok(s) => s,
        Err(e) => {
            log::warn!("MIDI: {e}; there is no MIDI output device");
            return None;
        }
    };
    log::info!("MIDI: General MIDI synthesizer playing {}", path.display());
    let now = sound::now_us(proc);
    let voice = Arc::new(SynthVoice {
        st: Mutex::new(SynthState {
            synth,
            frame: frame_of(now),
            queue: VecDeque::new(),
            volume: 0xffff_ffff,
        }),
    });
    let src: Arc<dyn Source> = voice.clone();
    sound::register(proc, &src);
    Some(voice)
}

fn handle(cx: &Ctx, h: u32) -> Option<Arc<Handle>> {
    lock(&state(cx.proc).handles).get(&h).cloned()
}

fn deliver(cx: &mut Ctx, h: &Handle, msg: u32, p1: u32) -> ApiResult<()> {
    wave_service::deliver(cx, h.callback_action(msg, p1))
}

pub fn midiOutGetNumDevs(cx: &mut Ctx) -> u32 {
    u32::from(synth(cx.proc).is_some())
}

fn caps(cx: &mut Ctx, uDeviceID: u32, pmoc: Ptr, cbmoc: u32, wide: bool) -> ApiResult<u32> {
    let known = uDeviceID == 0 || uDeviceID == MIDI_MAPPER || handle(cx, uDeviceID).is_some();
    if !known || synth(cx.proc).is_none() {
        return Ok(MMSYSERR_BADDEVICEID);
    }
    if pmoc.is_null() {
        return Ok(MMSYSERR_INVALPARAM);
    }
    let mapper = uDeviceID == MIDI_MAPPER;
    let name = if mapper {
        "Microsoft MIDI Mapper"
    } else {
        DEVICE_NAME
    };
    // MIDIOUTCAPS: wMid, wPid, vDriverVersion, szPname[32], wTechnology, wVoices,
    // wNotes, wChannelMask, dwSupport.
    let mut b = Vec::with_capacity(84);
    b.extend_from_slice(&1u16.to_le_bytes()); // MM_MICROSOFT
    b.extend_from_slice(&(if mapper { 1u16 } else { 102 }).to_le_bytes());
    b.extend_from_slice(&0x0500u32.to_le_bytes());
    let mut pname = [0u8; 64];
    if wide {
        for (k, u) in name.encode_utf16().take(31).enumerate() {
            pname[2 * k..2 * k + 2].copy_from_slice(&u.to_le_bytes());
        }
        b.extend_from_slice(&pname);
    } else {
        let n = name.len().min(31);
        pname[..n].copy_from_slice(&name.as_bytes()[..n]);
        b.extend_from_slice(&pname[..32]);
    }
    b.extend_from_slice(&(if mapper { MOD_MAPPER } else { MOD_SWSYNTH }).to_le_bytes());
    b.extend_from_slice(&64u16.to_le_bytes()); // wVoices: the synthesizer's polyphony
    b.extend_from_slice(&64u16.to_le_bytes()); // wNotes
    b.extend_from_slice(&0xffffu16.to_le_bytes()); // all 16 channels
    b.extend_from_slice(&(MIDICAPS_VOLUME | MIDICAPS_LRVOLUME).to_le_bytes());
    let n = (cbmoc as usize).min(b.len());
    cx.proc.mem.write_bytes(pmoc.0, &b[..n])?;
    Ok(MMSYSERR_NOERROR)
}

pub fn midiOutGetDevCapsA(cx: &mut Ctx, uDeviceID: u32, pmoc: Ptr, cbmoc: u32) -> ApiResult<u32> {
    caps(cx, uDeviceID, pmoc, cbmoc, false)
}

pub fn midiOutGetDevCapsW(cx: &mut Ctx, uDeviceID: u32, pmoc: Ptr, cbmoc: u32) -> ApiResult<u32> {
    caps(cx, uDeviceID, pmoc, cbmoc, true)
}

pub fn midiOutOpen(
    cx: &mut Ctx,
    phmo: Ptr,
    uDeviceID: u32,
    dwCallback: u32,
    dwInstance: u32,
    fdwOpen: u32,
) -> ApiResult<u32> {
    if (uDeviceID != 0 && uDeviceID != MIDI_MAPPER) || synth(cx.proc).is_none() {
        return Ok(MMSYSERR_BADDEVICEID);
    }
    let Some(cb) = Callback::from_open(fdwOpen, dwCallback) else {
        return Ok(MMSYSERR_INVALFLAG);
    };
    if phmo.is_null() {
        return Ok(MMSYSERR_INVALPARAM);
    }
    let st = state(cx.proc);
    let h = Arc::new(Handle {
        handle: st.next.fetch_add(1, Ordering::Relaxed),
        cb,
        instance: dwInstance,
        running: AtomicU32::new(0),
    });
    cx.proc.mem.write_u32(phmo.0, h.handle)?;
    lock(&st.handles).insert(h.handle, h.clone());
    deliver(cx, &h, MOM_OPEN, 0)?;
    Ok(MMSYSERR_NOERROR)
}

pub fn midiOutClose(cx: &mut Ctx, hmo: u32) -> ApiResult<u32> {
    let Some(h) = lock(&state(cx.proc).handles).remove(&hmo) else {
        return Ok(MMSYSERR_INVALHANDLE);
    };
    deliver(cx, &h, MOM_CLOSE, 0)?;
    Ok(MMSYSERR_NOERROR)
}

pub fn midiOutShortMsg(cx: &mut Ctx, hmo: u32, dwMsg: u32) -> ApiResult<u32> {
    let Some(h) = handle(cx, hmo) else {
        return Ok(MMSYSERR_INVALHANDLE);
    };
    let Some(s) = synth(cx.proc) else {
        return Ok(MMSYSERR_INVALHANDLE);
    };
    let status = dwMsg & 0xff;
    let msg = if status < 0x80 {
        // Running status: the data bytes move up behind the last status byte.
        let run = h.running.load(Ordering::Relaxed);
        if run == 0 {
            return Ok(MMSYSERR_INVALPARAM);
        }
        ((dwMsg << 8) & 0xffff00) | run
    } else {
        if status < 0xf0 {
            h.running.store(status, Ordering::Relaxed);
        }
        dwMsg
    };
    if msg & 0xff >= 0xf0 {
        // System common and real-time messages make no sound on a synthesizer.
        return Ok(MMSYSERR_NOERROR);
    }
    let now = crate::kernel32::time::micros(cx);
    s.send(cx.proc, now, hmo, Cmd::Short(msg));
    Ok(MMSYSERR_NOERROR)
}

/// A MIDIHDR argument: (address, dwFlags), or the MMSYSERR for a bad one.
fn header(cx: &Ctx, pmh: Ptr, cbmh: u32) -> ApiResult<Result<(u32, u32), u32>> {
    if pmh.is_null() || cbmh < MIDIHDR_MIN {
        return Ok(Err(MMSYSERR_INVALPARAM));
    }
    Ok(Ok((pmh.0, cx.proc.mem.read_u32(pmh.0 + HDR_FLAGS)?)))
}

pub fn midiOutPrepareHeader(cx: &mut Ctx, hmo: u32, pmh: Ptr, cbmh: u32) -> ApiResult<u32> {
    if handle(cx, hmo).is_none() {
        return Ok(MMSYSERR_INVALHANDLE);
    }
    let (h, f) = match header(cx, pmh, cbmh)? {
        Ok(x) => x,
        Err(e) => return Ok(e),
    };
    cx.proc.mem.write_u32(
        h + HDR_FLAGS,
        (f | MHDR_PREPARED) & !(MHDR_DONE | MHDR_INQUEUE),
    )?;
    Ok(MMSYSERR_NOERROR)
}

pub fn midiOutUnprepareHeader(cx: &mut Ctx, hmo: u32, pmh: Ptr, cbmh: u32) -> ApiResult<u32> {
    if handle(cx, hmo).is_none() {
        return Ok(MMSYSERR_INVALHANDLE);
    }
    let (h, f) = match header(cx, pmh, cbmh)? {
        Ok(x) => x,
        Err(e) => return Ok(e),
    };
    if f & MHDR_INQUEUE != 0 {
        return Ok(MIDIERR_STILLPLAYING);
    }
    cx.proc.mem.write_u32(h + HDR_FLAGS, f & !MHDR_PREPARED)?;
    Ok(MMSYSERR_NOERROR)
}

/// The system-exclusive messages in a long-message buffer: each from an F0 to
/// its F7 (a last one without F7 runs to the end); bytes outside them are dropped.
pub fn sysex_messages(b: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(s) = b[i..].iter().position(|&c| c == 0xf0).map(|p| p + i) {
        let e = b[s + 1..]
            .iter()
            .position(|&c| c == 0xf7)
            .map_or(b.len(), |p| s + 1 + p + 1);
        out.push(&b[s..e]);
        i = e;
    }
    out
}

pub fn midiOutLongMsg(cx: &mut Ctx, hmo: u32, pmh: Ptr, cbmh: u32) -> ApiResult<u32> {
    let Some(hd) = handle(cx, hmo) else {
        return Ok(MMSYSERR_INVALHANDLE);
    };
    let (h, f) = match header(cx, pmh, cbmh)? {
        Ok(x) => x,
        Err(e) => return Ok(e),
    };
    if f & MHDR_PREPARED == 0 {
        return Ok(MIDIERR_UNPREPARED);
    }
    if f & MHDR_INQUEUE != 0 {
        return Ok(MIDIERR_STILLPLAYING);
    }
    let data = cx.proc.mem.read_u32(h + HDR_DATA)?;
    let len = cx.proc.mem.read_u32(h + HDR_LENGTH)?.min(1 << 20);
    let mut buf = vec![0u8; len as usize];
    cx.proc.mem.read_bytes(data, &mut buf)?;
    if let Some(s) = synth(cx.proc) {
        let now = crate::kernel32::time::micros(cx);
        for m in sysex_messages(&buf) {
            s.send(cx.proc, now, hmo, Cmd::SysEx(m.to_vec()));
        }
    }
    // Played at once: the header is done before the call returns.
    cx.proc
        .mem
        .write_u32(h + HDR_FLAGS, (f | MHDR_DONE) & !MHDR_INQUEUE)?;
    deliver(cx, &hd, MOM_DONE, h)?;
    Ok(MMSYSERR_NOERROR)
}

pub fn midiOutReset(cx: &mut Ctx, hmo: u32) -> ApiResult<u32> {
    if handle(cx, hmo).is_none() {
        return Ok(MMSYSERR_INVALHANDLE);
    }
    if let Some(s) = synth(cx.proc) {
        let now = crate::kernel32::time::micros(cx);
        s.send(cx.proc, now, hmo, Cmd::NotesOff);
    }
    Ok(MMSYSERR_NOERROR)
}

/// A volume target: an open handle, device 0 or the mapper.
fn volume_target(cx: &Ctx, hmo: u32) -> Result<Arc<SynthVoice>, u32> {
    if hmo != 0 && hmo != MIDI_MAPPER && handle(cx, hmo).is_none() {
        return Err(MMSYSERR_INVALHANDLE);
    }
    synth(cx.proc).ok_or(MMSYSERR_BADDEVICEID)
}

pub fn midiOutGetVolume(cx: &mut Ctx, hmo: u32, pdwVolume: Ptr) -> ApiResult<u32> {
    let s = match volume_target(cx, hmo) {
        Ok(s) => s,
        Err(e) => return Ok(e),
    };
    if pdwVolume.is_null() {
        return Ok(MMSYSERR_INVALPARAM);
    }
    cx.proc.mem.write_u32(pdwVolume.0, s.volume())?;
    Ok(MMSYSERR_NOERROR)
}

pub fn midiOutSetVolume(cx: &mut Ctx, hmo: u32, dwVolume: u32) -> ApiResult<u32> {
    let s = match volume_target(cx, hmo) {
        Ok(s) => s,
        Err(e) => return Ok(e),
    };
    let now = crate::kernel32::time::micros(cx);
    s.set_volume(cx.proc, now, dwVolume);
    Ok(MMSYSERR_NOERROR)
}

pub fn midiOutGetID(cx: &mut Ctx, hmo: u32, puDeviceID: Ptr) -> ApiResult<u32> {
    if handle(cx, hmo).is_none() {
        return Ok(MMSYSERR_INVALHANDLE);
    }
    if puDeviceID.is_null() {
        return Ok(MMSYSERR_INVALPARAM);
    }
    cx.proc.mem.write_u32(puDeviceID.0, 0)?;
    Ok(MMSYSERR_NOERROR)
}

/// Patch caching is for synthesizers with limited memory; this one reports no
/// MIDICAPS_CACHE, and the documented answer is MMSYSERR_NOTSUPPORTED.
pub fn midiOutCachePatches(
    cx: &mut Ctx,
    hmo: u32,
    _uBank: u32,
    _pwpa: Ptr,
    _fuCache: u32,
) -> ApiResult<u32> {
    if handle(cx, hmo).is_none() {
        return Ok(MMSYSERR_INVALHANDLE);
    }
    Ok(MMSYSERR_NOTSUPPORTED)
}

pub fn midiOutCacheDrumPatches(
    cx: &mut Ctx,
    hmo: u32,
    _uPatch: u32,
    _pwkya: Ptr,
    _fuCache: u32,
) -> ApiResult<u32> {
    midiOutCachePatches(cx, hmo, 0, Ptr(0), 0)
}

pub fn midiOutMessage(_cx: &mut Ctx, _hmo: u32, uMsg: u32, _dw1: u32, _dw2: u32) -> ApiResult<u32> {
    Err(ApiError::UnimplementedCase(format!(
        "winmm.dll!midiOutMessage (driver message {uMsg:#x})"
    )))
}

/// Windows' texts for the MIDI errors (the MMSYSERR ones are waveOut's).
fn error_text(e: u32) -> Option<&'static str> {
    Some(match e {
        MIDIERR_UNPREPARED => {
            "The MIDI header was not prepared. Use the Prepare function to prepare the header, and then try again."
        }
        MIDIERR_STILLPLAYING => {
            "Cannot perform this operation while media data is still playing. Reset the device, or wait until the data is finished playing."
        }
        MIDIERR_NOMAP => {
            "A MIDI map was not found. There may be a problem with the driver, or the MIDIMAP.CFG file may be corrupt or missing."
        }
        MIDIERR_NOTREADY => {
            "The port is transmitting data to the device. Wait until the data has been transmitted, and then try again."
        }
        MIDIERR_NODEVICE => {
            "The current MIDI Mapper setup refers to a MIDI device that is not installed on the system."
        }
        MIDIERR_INVALIDSETUP => {
            "The current MIDI setup is damaged. Copy the original MIDIMAP.CFG file to the Windows SYSTEM directory, and then try again."
        }
        e => return super::wave::error_text(e),
    })
}

pub fn midiOutGetErrorTextA(
    cx: &mut Ctx,
    mmrError: u32,
    pszText: Ptr,
    cchText: u32,
) -> ApiResult<u32> {
    let Some(t) = error_text(mmrError) else {
        return Ok(super::wave::MMSYSERR_BADERRNUM);
    };
    if pszText.is_null() {
        return Ok(MMSYSERR_INVALPARAM);
    }
    crate::kernel32::string::copy_truncated_a(cx.proc, pszText.0, cchText, t.as_bytes())?;
    Ok(MMSYSERR_NOERROR)
}

pub fn midiOutGetErrorTextW(
    cx: &mut Ctx,
    mmrError: u32,
    pszText: Ptr,
    cchText: u32,
) -> ApiResult<u32> {
    let Some(t) = error_text(mmrError) else {
        return Ok(super::wave::MMSYSERR_BADERRNUM);
    };
    if pszText.is_null() {
        return Ok(MMSYSERR_INVALPARAM);
    }
    let w: Vec<u16> = t.encode_utf16().collect();
    crate::kernel32::string::copy_truncated_w(cx.proc, pszText.0, cchText, &w)?;
    Ok(MMSYSERR_NOERROR)
}

/// There is no MIDI input device.
pub fn midiInGetNumDevs(_cx: &mut Ctx) -> u32 {
    0
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("midiOutGetNumDevs", midiOutGetNumDevs),
        stdcall("midiOutGetDevCapsA", midiOutGetDevCapsA),
        stdcall("midiOutGetDevCapsW", midiOutGetDevCapsW),
        stdcall("midiOutOpen", midiOutOpen),
        stdcall("midiOutClose", midiOutClose),
        stdcall("midiOutShortMsg", midiOutShortMsg),
        stdcall("midiOutLongMsg", midiOutLongMsg),
        stdcall("midiOutPrepareHeader", midiOutPrepareHeader),
        stdcall("midiOutUnprepareHeader", midiOutUnprepareHeader),
        stdcall("midiOutReset", midiOutReset),
        stdcall("midiOutGetVolume", midiOutGetVolume),
        stdcall("midiOutSetVolume", midiOutSetVolume),
        stdcall("midiOutGetID", midiOutGetID),
        stdcall("midiOutCachePatches", midiOutCachePatches),
        stdcall("midiOutCacheDrumPatches", midiOutCacheDrumPatches),
        stdcall("midiOutMessage", midiOutMessage),
        stdcall("midiOutGetErrorTextA", midiOutGetErrorTextA),
        stdcall("midiOutGetErrorTextW", midiOutGetErrorTextW),
        stdcall("midiInGetNumDevs", midiInGetNumDevs),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_message_buffers_split_into_sysex_messages() {
        let b = [
            0x00, 0xf0, 0x7e, 0x7f, 0x09, 0x01, 0xf7, 0x90, 0xf0, 0x41, 0xf7, 0xf0, 0x43,
        ];
        assert_eq!(
            sysex_messages(&b),
            vec![
                &[0xf0, 0x7e, 0x7f, 0x09, 0x01, 0xf7][..],
                &[0xf0, 0x41, 0xf7][..],
                &[0xf0, 0x43][..],
            ]
        );
        assert!(sysex_messages(&[0x90, 0x3c]).is_empty());
    }

    #[test]
    fn frames_follow_the_guest_clock() {
        assert_eq!(frame_of(0), 0);
        assert_eq!(frame_of(1_000_000), 44100);
        // 22.67 µs per frame: 22 µs is still frame 0, 23 µs frame 1.
        assert_eq!(frame_of(22), 0);
        assert_eq!(frame_of(23), 1);
        // A chunk's start time maps back to its frame in the mixer (round(t * 44100)).
        for f in [1u64, 7, 44099, 1_234_567] {
            let us = (u128::from(f) * 1_000_000 / 44100) as u64;
            assert_eq!((us as f64 * 44100.0 / 1e6).round() as u64, f);
        }
    }
}
