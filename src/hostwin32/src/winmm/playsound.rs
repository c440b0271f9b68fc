//! PlaySound and sndPlaySound: one waveform sound at a time per process, played as
//! a voice of the sound contract (`crate::sound`) on the guest clock, so it reaches
//! the mixer (and `--audio-dump`) exactly as a waveOut handle's headers do:
//! raw PCM chunks in the file's format, resampled by the mixer.
//!
//! Where the sound comes from (the flags as the SDK documents them):
//! - SND_FILENAME: a sandbox file, opened through the VFS.
//! - SND_RESOURCE: a "WAVE" resource of `hmod` (NULL: the program), by name or id.
//! - SND_MEMORY: a RIFF WAVE image in guest memory (its RIFF size says how long).
//! - SND_ALIAS / SND_ALIAS_ID: a system event. winterp has no sound scheme (as a
//!   Windows machine set to "No Sounds"), so no event has a sound and neither does
//!   the default event SND_NODEFAULT would otherwise fall back to: the documented
//!   result is FALSE without playing anything, with or without SND_NODEFAULT.
//! - no source flag: the registry association first (none, as above), then the name
//!   as a file name.
//!
//! A sound that cannot be found or is not PCM (8/16-bit, mono/stereo) returns FALSE
//! and logs why; a missing sound has no default sound to fall back to either.
//!
//! SND_ASYNC starts the sound and returns; SND_SYNC returns when it ends on the
//! guest clock (through `scheduler::wait_for`, so a deterministic run blocks the
//! thread on a virtual deadline) or when another thread stops it. SND_LOOP repeats
//! an asynchronous sound until it is stopped; a synchronous one would never return,
//! so it plays once (Windows requires SND_ASYNC with it; Wine does the same).
//! Starting a sound stops the one playing; SND_NOSTOP instead returns FALSE while
//! one plays. SND_NOWAIT returns at once when the device is busy, which winterp's
//! never is. A NULL `pszSound` or SND_PURGE stops the current sound and returns
//! TRUE (with one sound per process, "every instance of the named sound" is at most
//! that one).

use super::wave::{bytes_in, duration_us};
use crate::hle::{ApiDef, ApiResult, Ctx, Outcome, Ptr, stdcall};
use crate::objects::KernelObject;
use crate::process::Process;
use crate::scheduler::{self, Locked, Waitable};
use crate::sound::{self, Chunk, PcmFormat, Source, VoiceKind};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

pub const SND_SYNC: u32 = 0x0;
pub const SND_ASYNC: u32 = 0x1;
pub const SND_NODEFAULT: u32 = 0x2;
pub const SND_MEMORY: u32 = 0x4;
pub const SND_LOOP: u32 = 0x8;
pub const SND_NOSTOP: u32 = 0x10;
pub const SND_PURGE: u32 = 0x40;
pub const SND_NOWAIT: u32 = 0x2000;
pub const SND_ALIAS: u32 = 0x1_0000;
pub const SND_ALIAS_ID: u32 = 0x11_0000;
pub const SND_FILENAME: u32 = 0x2_0000;
pub const SND_RESOURCE: u32 = 0x4_0004;

const WAVE_FORMAT_PCM: u16 = 1;
/// Voice ids of PlaySound sounds: a counter in the low half, this in the high
/// (waveOut handles use 1 << 32).
const VOICE_TAG: u64 = 2 << 32;
/// Longest RIFF image read from memory or a resource (a 64 MiB WAV is minutes of
/// CD-quality sound; anything longer is a bad size field).
const MAX_IMAGE: u32 = 64 << 20;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A parsed PCM WAV.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wav {
    pub format: PcmFormat,
    /// nAvgBytesPerSec as the format implies it (samples/s times block align).
    pub avg: u32,
    /// Whole frames of the data chunk.
    pub data: Vec<u8>,
}

/// Parses a RIFF WAVE image: the `fmt ` chunk (WAVE_FORMAT_PCM, 1 or 2 channels,
/// 8 or 16 bits, a rate of 100..=200000 Hz, nBlockAlign consistent) and the `data`
/// chunk after it. A data chunk cut short by the end of the image keeps what is
/// there (as players do with truncated files).
pub fn parse_wav(b: &[u8]) -> Result<Wav, String> {
    let u16_at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
    let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    if b.len() < 12 || &b[0..4] != b"RIFF" || &b[8..12] != b"WAVE" {
        return Err("not a RIFF WAVE image".into());
    }
    let end = (8 + u32_at(4) as usize).min(b.len());
    let mut fmt = None;
    let mut i = 12;
    while i + 8 <= end {
        let id = &b[i..i + 4];
        let len = u32_at(i + 4) as usize;
        let body = i + 8;
        match id {
            b"fmt " => {
                if len < 16 || body + 16 > end {
                    return Err("fmt chunk shorter than PCMWAVEFORMAT".into());
                }
                let tag = u16_at(body);
                let channels = u16_at(body + 2);
                let rate = u32_at(body + 4);
                let align = u16_at(body + 12);
                let bits = u16_at(body + 14);
                let f = PcmFormat {
                    channels,
                    bits_per_sample: bits,
                    samples_per_sec: rate,
                };
                if tag != WAVE_FORMAT_PCM {
                    return Err(format!("format tag {tag:#06x} is not PCM"));
                }
                if !(1..=2).contains(&channels)
                    || !(bits == 8 || bits == 16)
                    || !(100..=200_000).contains(&rate)
                    || u32::from(align) != f.block_align()
                {
                    return Err(format!(
                        "PCM with {channels} channels, {bits} bits, {rate} Hz, block align {align}"
                    ));
                }
                fmt = Some(f);
            }
            b"data" => {
                let Some(f) = fmt else {
                    return Err("data chunk before the fmt chunk".into());
                };
                let stop = body.saturating_add(len).min(end);
                let mut data = b[body..stop].to_vec();
                data.truncate(data.len() - data.len() % f.block_align() as usize);
                return Ok(Wav {
                    format: f,
                    avg: f.samples_per_sec * f.block_align(),
                    data,
                });
            }
            _ => {}
        }
        i = body.saturating_add(len).saturating_add(len & 1);
    }
    Err(if fmt.is_none() {
        "no fmt chunk".into()
    } else {
        "no data chunk".into()
    })
}

/// The sound playing (or played last).
pub struct Voice {
    id: u64,
    wav: Wav,
    looped: bool,
    start_us: u64,
    /// waveOutSetVolume's device level when it started (PlaySound plays through the
    /// wave mapper on Windows).
    volume: u32,
    st: Mutex<VoiceState>,
}

struct VoiceState {
    /// Bytes of the (loop-expanded) stream already captured.
    captured: u64,
    /// When PlaySound stopped it, if it did.
    stopped_at: Option<u64>,
}

impl Voice {
    fn total(&self) -> Option<u64> {
        (!self.looped).then_some(self.wav.data.len() as u64)
    }

    /// Guest time at which it ends by itself (`None`: a loop).
    pub fn end_us(&self) -> Option<u64> {
        self.total()
            .map(|n| self.start_us + duration_us(n, self.wav.avg))
    }

    fn playing(&self, now: u64) -> bool {
        lock(&self.st).stopped_at.is_none() && self.end_us().is_none_or(|e| now < e)
    }

    fn capture_locked(&self, proc: &Process, st: &mut VoiceState, now: u64) {
        let t = st.stopped_at.map_or(now, |s| s.min(now));
        if t <= self.start_us || self.wav.data.is_empty() {
            return;
        }
        let block = self.wav.format.block_align();
        let mut played = bytes_in(t - self.start_us, self.wav.avg, block);
        if let Some(total) = self.total() {
            played = played.min(total);
        }
        if played <= st.captured {
            return;
        }
        if !sound::listening(proc) {
            st.captured = played;
            return;
        }
        let len = self.wav.data.len() as u64;
        let mut data = Vec::with_capacity((played - st.captured) as usize);
        let mut o = st.captured;
        while o < played {
            let off = (o % len) as usize;
            let n = ((len - off as u64).min(played - o)) as usize;
            data.extend_from_slice(&self.wav.data[off..off + n]);
            o += n as u64;
        }
        let start_us = self.start_us + st.captured * 1_000_000 / u64::from(self.wav.avg.max(1));
        st.captured = played;
        let (volume, pan) = super::wave::volume_pan(self.volume);
        sound::push(
            proc,
            Chunk {
                voice: self.id,
                kind: VoiceKind::WaveOut,
                format: self.wav.format,
                volume,
                pan,
                start_us,
                data,
            },
        );
    }

    /// Starts `wav` playing once at guest time `now` as a voice of its own (the
    /// MCI waveaudio device plays its file's parts this way); independent of
    /// PlaySound's one current sound.
    pub(crate) fn start(proc: &Process, wav: Wav, now: u64) -> Arc<Voice> {
        let st = state(proc);
        let v = Arc::new(Voice {
            id: VOICE_TAG | st.next.fetch_add(1, Ordering::Relaxed),
            wav,
            looped: false,
            start_us: now,
            volume: super::wave::device_volume(proc),
            st: Mutex::new(VoiceState {
                captured: 0,
                stopped_at: None,
            }),
        });
        let src: Arc<dyn Source> = v.clone();
        sound::register(proc, &src);
        v
    }

    /// Stops it at `now` (what played before reaches the mixer first).
    pub(crate) fn stop(&self, proc: &Process, now: u64) {
        let mut st = lock(&self.st);
        if st.stopped_at.is_none() {
            self.capture_locked(proc, &mut st, now);
            st.stopped_at = Some(now);
        }
    }
}

impl Source for Voice {
    fn capture(&self, proc: &Arc<Process>, now_us: u64) {
        let mut st = lock(&self.st);
        self.capture_locked(proc, &mut st, now_us);
    }
}

impl KernelObject for Voice {
    fn type_name(&self) -> &'static str {
        "PlaySoundVoice"
    }
    fn as_waitable(&self) -> Option<&dyn Waitable> {
        Some(self)
    }
}

/// A synchronous caller waits for this to be signalled (stopped by another
/// PlaySound) or for the sound's end time.
impl Waitable for Voice {
    fn ready(&self, _k: &Locked, _tid: u32) -> bool {
        lock(&self.st).stopped_at.is_some()
    }
    fn acquire(&self, _k: &Locked, _tid: u32) -> bool {
        false
    }
    fn describe(&self) -> String {
        "a PlaySound(SND_SYNC) sound".to_string()
    }
}

/// Per-process PlaySound state.
#[derive(Default)]
pub struct PlaySoundState {
    current: Mutex<Option<Arc<Voice>>>,
    next: AtomicU64,
    /// Deterministic mode: the sound each thread blocked in SND_SYNC waits for, so
    /// the re-entered call goes on waiting instead of starting it again.
    waiting: Mutex<HashMap<u32, Arc<Voice>>>,
}

fn state(proc: &Process) -> Arc<PlaySoundState> {
    proc.slot::<PlaySoundState>()
}

/// Stops the current sound, if any (under the dispatcher lock, so a synchronous
/// caller waiting for it wakes).
fn stop_current(cx: &Ctx, now: u64) {
    let cur = lock(&state(cx.proc).current).take();
    if let Some(v) = cur {
        v.stop(cx.proc, now);
        let k = cx.proc.sched.lock();
        cx.proc.sched.wake(&k);
    }
}

/// Where `pszSound` says the sound is.
enum Source0 {
    File(String),
    Memory(u32),
    Resource {
        module: u32,
        name: crate::loader::resources::ResId,
    },
    Alias(String),
    AliasId(u32),
    /// No source flag: an alias if the scheme maps it, else a file.
    Name(String),
}

fn read_name(cx: &Ctx, p: u32, wide: bool) -> ApiResult<String> {
    Ok(if wide {
        crate::kernel32::string::read_wstr(cx.proc, p)?
    } else {
        crate::kernel32::string::decode_file_api(
            cx.proc,
            &crate::kernel32::string::read_cbytes(cx.proc, p)?,
        )
    })
}

/// The whole of a sandbox file, or `None` if it cannot be opened or read.
pub(crate) fn read_file(cx: &Ctx, name: &str) -> ApiResult<Option<Vec<u8>>> {
    use std::os::unix::fs::FileExt;
    let vfs = crate::kernel32::file::vfs(cx.proc)?;
    let opts = crate::vfs::OpenOptions {
        read: true,
        write: false,
        delete: false,
        share: crate::vfs::FILE_SHARE_READ,
        disposition: crate::vfs::CreationDisposition::OpenExisting,
        attributes: 0,
        backup_semantics: false,
    };
    let f = match vfs.open(name, &opts) {
        Ok(crate::vfs::Opened::File(f)) => f,
        Ok(_) => return Ok(None),
        Err(e) => {
            log::info!("PlaySound: {name}: {e}");
            return Ok(None);
        }
    };
    let file = f.host.get();
    let Ok(len) = file.metadata().map(|m| m.len()) else {
        return Ok(None);
    };
    if len > u64::from(MAX_IMAGE) {
        log::warn!("PlaySound: {name}: {len} bytes is too long for a sound");
        return Ok(None);
    }
    let mut v = vec![0u8; len as usize];
    Ok(file.read_exact_at(&mut v, 0).ok().map(|()| v))
}

/// A RIFF image in guest memory: its length comes from its RIFF header.
fn read_image(proc: &Process, p: u32, limit: u32) -> Option<Vec<u8>> {
    let mut hdr = [0u8; 8];
    proc.mem.read_bytes(p, &mut hdr).ok()?;
    if &hdr[0..4] != b"RIFF" {
        return None;
    }
    let n = (u32::from_le_bytes([hdr[4], hdr[5], hdr[6], hdr[7]]))
        .saturating_add(8)
        .min(limit)
        .min(MAX_IMAGE);
    let mut v = vec![0u8; n as usize];
    proc.mem.read_bytes(p, &mut v).ok()?;
    Some(v)
}

/// The image of a sound, or why there is none (logged; PlaySound returns FALSE).
fn load(cx: &Ctx, src: &Source0) -> ApiResult<Result<Vec<u8>, String>> {
    Ok(match src {
        Source0::File(name) | Source0::Name(name) => match read_file(cx, name)? {
            Some(v) => Ok(v),
            None => Err(format!(
                "{name:?} cannot be opened, and there is no default sound"
            )),
        },
        Source0::Memory(p) => {
            read_image(cx.proc, *p, u32::MAX).ok_or_else(|| format!("no RIFF image at {p:#010x}"))
        }
        Source0::Resource { module, name } => {
            use crate::loader::resources::{ResId, find_resource};
            let base = if *module == 0 {
                crate::kernel32::module::program_base(cx)
            } else {
                Some(*module)
            };
            let found = base.and_then(|b| {
                find_resource(cx.proc, b, &ResId::from_name("WAVE"), name, None)
                    .map(|(rva, size)| (b.wrapping_add(rva), size))
            });
            match found.and_then(|(a, size)| read_image(cx.proc, a, size)) {
                Some(v) => Ok(v),
                None => Err(format!(
                    "no WAVE resource {name:?} in module {:#010x}",
                    base.unwrap_or(0)
                )),
            }
        }
        Source0::Alias(name) => Err(format!(
            "system sound {name:?}: winterp has no sound scheme, so no event has a sound"
        )),
        Source0::AliasId(id) => Err(format!(
            "system sound id {id:#x}: winterp has no sound scheme, so no event has a sound"
        )),
    })
}

fn play(cx: &mut Ctx, pszSound: u32, hmod: u32, fdwSound: u32, wide: bool) -> ApiResult<Outcome> {
    let st = state(cx.proc);
    let tid = cx.thread.tid;
    // A deterministic SND_SYNC call re-entered after its wait: keep waiting.
    let resumed = if cx.thread.sched.wait.is_some() {
        lock(&st.waiting).get(&tid).cloned()
    } else {
        None
    };
    if let Some(v) = resumed {
        return Ok(wait_sync(cx, &st, v));
    }
    let now = crate::kernel32::time::micros(cx);
    if pszSound == 0 || fdwSound & SND_PURGE != 0 {
        stop_current(cx, now);
        return Ok(Outcome::Return(1));
    }
    if fdwSound & SND_NOSTOP != 0 && lock(&st.current).as_ref().is_some_and(|v| v.playing(now)) {
        return Ok(Outcome::Return(0));
    }
    let src = if fdwSound & SND_RESOURCE == SND_RESOURCE {
        Source0::Resource {
            module: hmod,
            name: if pszSound >> 16 == 0 {
                crate::loader::resources::ResId::Id(pszSound as u16)
            } else {
                crate::loader::resources::ResId::from_name(&read_name(cx, pszSound, wide)?)
            },
        }
    } else if fdwSound & SND_MEMORY != 0 {
        Source0::Memory(pszSound)
    } else if fdwSound & SND_ALIAS_ID == SND_ALIAS_ID {
        Source0::AliasId(pszSound)
    } else if fdwSound & SND_ALIAS != 0 {
        Source0::Alias(read_name(cx, pszSound, wide)?)
    } else if fdwSound & SND_FILENAME != 0 {
        Source0::File(read_name(cx, pszSound, wide)?)
    } else {
        Source0::Name(read_name(cx, pszSound, wide)?)
    };
    // Starting a sound stops the current one, whether or not the new one plays.
    stop_current(cx, now);
    let wav = match load(cx, &src)?.and_then(|img| parse_wav(&img)) {
        Ok(w) => w,
        Err(why) => {
            log::warn!("PlaySound: not played: {why}");
            return Ok(Outcome::Return(0));
        }
    };
    let asynchronous = fdwSound & SND_ASYNC != 0;
    let v = Arc::new(Voice {
        id: VOICE_TAG | st.next.fetch_add(1, Ordering::Relaxed),
        wav,
        looped: asynchronous && fdwSound & SND_LOOP != 0,
        start_us: now,
        volume: super::wave::device_volume(cx.proc),
        st: Mutex::new(VoiceState {
            captured: 0,
            stopped_at: None,
        }),
    });
    let src: Arc<dyn Source> = v.clone();
    sound::register(cx.proc, &src);
    *lock(&st.current) = Some(v.clone());
    if asynchronous {
        return Ok(Outcome::Return(1));
    }
    Ok(wait_sync(cx, &st, v))
}

/// SND_SYNC: returns TRUE when the sound has ended or was stopped.
fn wait_sync(cx: &mut Ctx, st: &PlaySoundState, v: Arc<Voice>) -> Outcome {
    let tid = cx.thread.tid;
    let now = crate::kernel32::time::micros(cx);
    let end = v.end_us().unwrap_or(now);
    let ms = (end.saturating_sub(now).div_ceil(1000)).min(u64::from(u32::MAX - 1)) as u32;
    let first = cx.thread.sched.wait.is_none();
    let obj: Arc<dyn KernelObject> = v.clone();
    match scheduler::wait_for(cx, vec![obj], false, ms) {
        Outcome::Return(_) => {
            lock(&st.waiting).remove(&tid);
            Outcome::Return(1)
        }
        Outcome::Resume => {
            if first {
                // Wake at the exact microsecond the sound ends, not the next whole
                // millisecond.
                if let Some(w) = cx.thread.sched.wait.as_mut() {
                    w.deadline = Some(end * scheduler::INSNS_PER_MS / 1000);
                }
                lock(&st.waiting).insert(tid, v);
            }
            Outcome::Resume
        }
        other => {
            lock(&st.waiting).remove(&tid);
            other
        }
    }
}

pub fn PlaySoundA(cx: &mut Ctx, pszSound: Ptr, hmod: u32, fdwSound: u32) -> ApiResult<Outcome> {
    play(cx, pszSound.0, hmod, fdwSound, false)
}

pub fn PlaySoundW(cx: &mut Ctx, pszSound: Ptr, hmod: u32, fdwSound: u32) -> ApiResult<Outcome> {
    play(cx, pszSound.0, hmod, fdwSound, true)
}

/// sndPlaySound takes only these flags; the name is an alias or a file name.
const SND_PLAYSOUND_FLAGS: u32 =
    SND_ASYNC | SND_LOOP | SND_MEMORY | SND_NODEFAULT | SND_NOSTOP | SND_SYNC;

pub fn sndPlaySoundA(cx: &mut Ctx, lpszSound: Ptr, fuSound: u32) -> ApiResult<Outcome> {
    play(cx, lpszSound.0, 0, fuSound & SND_PLAYSOUND_FLAGS, false)
}

pub fn sndPlaySoundW(cx: &mut Ctx, lpszSound: Ptr, fuSound: u32) -> ApiResult<Outcome> {
    play(cx, lpszSound.0, 0, fuSound & SND_PLAYSOUND_FLAGS, true)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        // The undecorated name is the ANSI function in winmm's export table.
        stdcall("PlaySound", PlaySoundA),
        stdcall("PlaySoundA", PlaySoundA),
        stdcall("PlaySoundW", PlaySoundW),
        stdcall("sndPlaySoundA", sndPlaySoundA),
        stdcall("sndPlaySoundW", sndPlaySoundW),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A RIFF WAVE image of `data` in `f`.
    pub fn wav_image(f: PcmFormat, data: &[u8]) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(b"RIFF");
        b.extend_from_slice(&(4 + 8 + 16 + 8 + data.len() as u32).to_le_bytes());
        b.extend_from_slice(b"WAVE");
        b.extend_from_slice(b"fmt ");
        b.extend_from_slice(&16u32.to_le_bytes());
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&f.channels.to_le_bytes());
        b.extend_from_slice(&f.samples_per_sec.to_le_bytes());
        b.extend_from_slice(&(f.samples_per_sec * f.block_align()).to_le_bytes());
        b.extend_from_slice(&(f.block_align() as u16).to_le_bytes());
        b.extend_from_slice(&f.bits_per_sample.to_le_bytes());
        b.extend_from_slice(b"data");
        b.extend_from_slice(&(data.len() as u32).to_le_bytes());
        b.extend_from_slice(data);
        b
    }

    const MONO8: PcmFormat = PcmFormat {
        channels: 1,
        bits_per_sample: 8,
        samples_per_sec: 11025,
    };

    #[test]
    fn parses_pcm_and_skips_other_chunks() {
        let f = PcmFormat {
            channels: 2,
            bits_per_sample: 16,
            samples_per_sec: 22050,
        };
        let mut img = wav_image(f, &[1, 2, 3, 4, 5, 6, 7, 8, 9]);
        // An odd-sized LIST chunk (padded) between fmt and data.
        let data_at = img.len() - 9 - 8;
        let list = [b"LIST".as_slice(), &3u32.to_le_bytes(), b"abc\0"].concat();
        img.splice(data_at..data_at, list);
        let riff = (img.len() - 8) as u32;
        img[4..8].copy_from_slice(&riff.to_le_bytes());
        let w = parse_wav(&img).unwrap();
        assert_eq!(w.format, f);
        assert_eq!(w.avg, 88200);
        // Nine bytes hold two whole 4-byte frames.
        assert_eq!(w.data, vec![1, 2, 3, 4, 5, 6, 7, 8]);
    }

    #[test]
    fn refuses_what_is_not_pcm() {
        let mut img = wav_image(MONO8, &[0x80; 4]);
        img[20] = 2; // WAVE_FORMAT_ADPCM
        assert!(parse_wav(&img).unwrap_err().contains("not PCM"));
        let mut img = wav_image(MONO8, &[0x80; 4]);
        img[34] = 24; // 24 bits
        assert!(parse_wav(&img).is_err());
        assert!(parse_wav(b"RIFX....WAVE").is_err());
        let img = wav_image(MONO8, &[]);
        assert_eq!(
            parse_wav(&img[..img.len() - 8]).unwrap_err(),
            "no data chunk"
        );
    }

    fn ret(o: ApiResult<Outcome>) -> u64 {
        match o.unwrap() {
            Outcome::Return(v) => v,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn one_sound_at_a_time_and_no_system_sounds() {
        use crate::kernel32::misc::test_support::Harness;
        let mut h = Harness::new();
        let img = wav_image(MONO8, &[0x80; 11025]);
        let p = h.scratch(0x4000);
        h.proc.mem.write_bytes(p, &img).unwrap();
        // A second of sound from memory plays asynchronously.
        assert_eq!(
            ret(PlaySoundA(&mut h.cx(), Ptr(p), 0, SND_MEMORY | SND_ASYNC)),
            1
        );
        let st = state(&h.proc);
        let v = lock(&st.current).clone().unwrap();
        assert_eq!(v.end_us(), Some(v.start_us + 1_000_000));
        // SND_NOSTOP yields to it.
        let f = SND_MEMORY | SND_ASYNC | SND_NOSTOP;
        assert_eq!(ret(PlaySoundA(&mut h.cx(), Ptr(p), 0, f)), 0);
        assert!(Arc::ptr_eq(&v, lock(&st.current).as_ref().unwrap()));
        // A system sound has nothing mapped: FALSE, and the sound playing stops.
        let name = h.scratch(64);
        h.put_cstr(name, "SystemAsterisk");
        assert_eq!(
            ret(PlaySoundA(&mut h.cx(), Ptr(name), 0, SND_ALIAS | SND_ASYNC)),
            0
        );
        assert!(lock(&v.st).stopped_at.is_some());
        assert!(lock(&st.current).is_none());
        // A looped sound plays until PlaySound(NULL).
        let f = SND_MEMORY | SND_ASYNC | SND_LOOP;
        assert_eq!(ret(PlaySoundA(&mut h.cx(), Ptr(p), 0, f)), 1);
        let v = lock(&st.current).clone().unwrap();
        assert_eq!(v.end_us(), None);
        assert_eq!(ret(PlaySoundA(&mut h.cx(), Ptr(0), 0, 0)), 1);
        assert!(lock(&v.st).stopped_at.is_some());
        // Not a WAV: FALSE.
        h.proc.mem.write_bytes(p, b"RIFX").unwrap();
        assert_eq!(
            ret(PlaySoundA(&mut h.cx(), Ptr(p), 0, SND_MEMORY | SND_ASYNC)),
            0
        );
    }

    #[test]
    fn a_cut_data_chunk_keeps_what_is_there() {
        let img = wav_image(MONO8, &[1, 2, 3, 4, 5]);
        let w = parse_wav(&img[..img.len() - 2]).unwrap();
        assert_eq!(w.data, vec![1, 2, 3]);
    }
}
