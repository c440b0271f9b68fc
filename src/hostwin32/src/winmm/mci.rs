//! winmm MCI: mciSendString and mciSendCommand for the devices this machine has.
//!
//! - `sequencer`: a Standard MIDI File player (format 0, 1, 2, RMID) into winmm's
//!   General MIDI synthesizer (`super::midi`). It exists only when the synthesizer
//!   does (a GM SoundFont was found); otherwise opening it fails with
//!   MCIERR_DEVICE_NOT_INSTALLED, as on a machine without the driver.
//! - `waveaudio`: a PCM WAV file played through the wave output as a voice of its
//!   own (`playsound::Voice`).
//! - `cdaudio`: the driver is there but the machine has no CD drive, so opening it
//!   fails with MCIERR_CANNOT_LOAD_DRIVER, as Windows' cdaudio driver does when it
//!   finds no drive (its open fails and MCI reports that the driver did not load).
//! - every other device type of the `[mci]` section: not installed
//!   (MCIERR_DEVICE_NOT_INSTALLED).
//!
//! A device plays on the guest clock: its position is a function of guest time
//! (the sequencer schedules the file's messages at the guest times they fall on,
//! the wave device's voice starts at the play's time), so `status ... position` and
//! `mode` and the MM_MCINOTIFY at the end land at the same guest time in every run.
//! The notification of a play that ends by itself is posted by winmm's sound
//! service thread at the end time (or by a command that finds it ended first).
//! Notifications follow the documented rules: MCI_NOTIFY_SUCCESSFUL when the
//! command's condition is met (at once for commands that complete at once),
//! MCI_NOTIFY_SUPERSEDED when another play with MCI_NOTIFY replaces a pending one,
//! MCI_NOTIFY_ABORTED when stop, seek, close or a play without MCI_NOTIFY ends it.
//!
//! Device ids count from 1 (the lowest free); an element opened without an alias
//! is named by its file name, a device type opened without an element by its type.
//! Time formats: milliseconds on both devices (the default), bytes and samples on
//! waveaudio. Commands, keywords and time formats winterp does not implement
//! (auto-open, recording, song pointer and SMPTE time, ...) report themselves by
//! name; those a device does not have get the documented MCIERR.

use super::midi::{self, Cmd as MidiCmd};
use super::playsound::{self, Wav};
use super::wave_service::{self, Action, Timed};
use crate::hle::{ApiDef, ApiError, ApiResult, CStrPtr, Ctx, Outcome, Ptr, WStrPtr, stdcall};
use crate::kernel32::string::{read_ansi, read_wstr, write_wide};
use crate::objects::KernelObject;
use crate::process::Process;
use crate::scheduler::{self, Locked, Waitable};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};
use winterp_midi::smf::{self, Msg, Song};

const MCIERR_BASE: u32 = 256;
pub const MCIERR_INVALID_DEVICE_ID: u32 = MCIERR_BASE + 1;
pub const MCIERR_UNRECOGNIZED_KEYWORD: u32 = MCIERR_BASE + 3;
pub const MCIERR_UNRECOGNIZED_COMMAND: u32 = MCIERR_BASE + 5;
pub const MCIERR_INVALID_DEVICE_NAME: u32 = MCIERR_BASE + 7;
pub const MCIERR_CANNOT_LOAD_DRIVER: u32 = MCIERR_BASE + 10;
pub const MCIERR_MISSING_COMMAND_STRING: u32 = MCIERR_BASE + 11;
pub const MCIERR_PARAM_OVERFLOW: u32 = MCIERR_BASE + 12;
pub const MCIERR_BAD_INTEGER: u32 = MCIERR_BASE + 14;
pub const MCIERR_MISSING_PARAMETER: u32 = MCIERR_BASE + 17;
pub const MCIERR_UNSUPPORTED_FUNCTION: u32 = MCIERR_BASE + 18;
pub const MCIERR_FILE_NOT_FOUND: u32 = MCIERR_BASE + 19;
pub const MCIERR_EXTENSION_NOT_FOUND: u32 = MCIERR_BASE + 25;
pub const MCIERR_OUTOFRANGE: u32 = MCIERR_BASE + 26;
pub const MCIERR_FLAGS_NOT_COMPATIBLE: u32 = MCIERR_BASE + 28;
pub const MCIERR_DUPLICATE_ALIAS: u32 = MCIERR_BASE + 33;
pub const MCIERR_MISSING_DEVICE_NAME: u32 = MCIERR_BASE + 36;
pub const MCIERR_BAD_TIME_FORMAT: u32 = MCIERR_BASE + 37;
pub const MCIERR_INVALID_FILE: u32 = MCIERR_BASE + 40;
pub const MCIERR_NULL_PARAMETER_BLOCK: u32 = MCIERR_BASE + 41;
pub const MCIERR_DEVICE_NOT_INSTALLED: u32 = MCIERR_BASE + 50;

pub const MM_MCINOTIFY: u32 = 0x3b9;
pub const MCI_NOTIFY_SUCCESSFUL: u32 = 1;
pub const MCI_NOTIFY_SUPERSEDED: u32 = 2;
pub const MCI_NOTIFY_ABORTED: u32 = 4;

const MCI_OPEN: u32 = 0x0803;
const MCI_CLOSE: u32 = 0x0804;
const MCI_PLAY: u32 = 0x0806;
const MCI_SEEK: u32 = 0x0807;
const MCI_STOP: u32 = 0x0808;
const MCI_PAUSE: u32 = 0x0809;
const MCI_INFO: u32 = 0x080a;
const MCI_GETDEVCAPS: u32 = 0x080b;
const MCI_SET: u32 = 0x080d;
const MCI_SYSINFO: u32 = 0x0810;
const MCI_STATUS: u32 = 0x0814;
const MCI_RESUME: u32 = 0x0855;
const MCI_ALL_DEVICE_ID: u32 = 0xffff_ffff;

const MCI_NOTIFY: u32 = 0x1;
const MCI_WAIT: u32 = 0x2;
const MCI_FROM: u32 = 0x4;
const MCI_TO: u32 = 0x8;
const MCI_TRACK: u32 = 0x10;
const MCI_OPEN_SHAREABLE: u32 = 0x100;
const MCI_OPEN_ELEMENT: u32 = 0x200;
const MCI_OPEN_ALIAS: u32 = 0x400;
const MCI_OPEN_ELEMENT_ID: u32 = 0x800;
const MCI_OPEN_TYPE_ID: u32 = 0x1000;
const MCI_OPEN_TYPE: u32 = 0x2000;
const MCI_SEEK_TO_START: u32 = 0x100;
const MCI_SEEK_TO_END: u32 = 0x200;
const MCI_STATUS_ITEM: u32 = 0x100;
const MCI_STATUS_START: u32 = 0x200;
const MCI_SET_TIME_FORMAT: u32 = 0x400;
const MCI_SET_AUDIO: u32 = 0x800;
const MCI_GETDEVCAPS_ITEM: u32 = 0x100;
const MCI_INFO_PRODUCT: u32 = 0x100;
const MCI_INFO_FILE: u32 = 0x200;
const MCI_SYSINFO_QUANTITY: u32 = 0x100;
const MCI_SYSINFO_OPEN: u32 = 0x200;
const MCI_SYSINFO_NAME: u32 = 0x400;

const MCI_STATUS_LENGTH: u32 = 1;
const MCI_STATUS_POSITION: u32 = 2;
const MCI_STATUS_NUMBER_OF_TRACKS: u32 = 3;
const MCI_STATUS_MODE: u32 = 4;
const MCI_STATUS_MEDIA_PRESENT: u32 = 5;
const MCI_STATUS_TIME_FORMAT: u32 = 6;
const MCI_STATUS_READY: u32 = 7;
const MCI_STATUS_CURRENT_TRACK: u32 = 8;

const MCI_MODE_STOP: u32 = 525;
const MCI_MODE_PLAY: u32 = 526;
const MCI_MODE_PAUSE: u32 = 529;

const MCI_FORMAT_MILLISECONDS: u32 = 0;
const MCI_FORMAT_BYTES: u32 = 8;
const MCI_FORMAT_SAMPLES: u32 = 9;

const MCI_GETDEVCAPS_CAN_RECORD: u32 = 1;
const MCI_GETDEVCAPS_HAS_AUDIO: u32 = 2;
const MCI_GETDEVCAPS_HAS_VIDEO: u32 = 3;
const MCI_GETDEVCAPS_DEVICE_TYPE: u32 = 4;
const MCI_GETDEVCAPS_USES_FILES: u32 = 5;
const MCI_GETDEVCAPS_COMPOUND_DEVICE: u32 = 6;
const MCI_GETDEVCAPS_CAN_EJECT: u32 = 7;
const MCI_GETDEVCAPS_CAN_PLAY: u32 = 8;
const MCI_GETDEVCAPS_CAN_SAVE: u32 = 9;

const MCI_DEVTYPE_CD_AUDIO: u32 = 516;
const MCI_DEVTYPE_WAVEFORM_AUDIO: u32 = 522;
const MCI_DEVTYPE_SEQUENCER: u32 = 523;

/// The "General MCI Errors" table's meaning of each code returned here.
fn error_text(code: u32) -> Option<&'static str> {
    Some(match code {
        0 => "The specified command was carried out.",
        MCIERR_INVALID_DEVICE_ID => {
            "Invalid device ID. Use the ID given to the device when the device was opened."
        }
        MCIERR_UNRECOGNIZED_KEYWORD => {
            "The driver cannot recognize the specified command parameter."
        }
        MCIERR_UNRECOGNIZED_COMMAND => "The driver cannot recognize the specified command.",
        MCIERR_INVALID_DEVICE_NAME => {
            "The specified device is not open or is not recognized by MCI."
        }
        MCIERR_CANNOT_LOAD_DRIVER => {
            "There is an undetectable problem in loading the specified device driver."
        }
        MCIERR_MISSING_COMMAND_STRING => "No command was specified.",
        MCIERR_PARAM_OVERFLOW => {
            "The output string was too large to fit in the return buffer. Increase the size of \
             the buffer."
        }
        MCIERR_BAD_INTEGER => "The specified integer is invalid for this command.",
        MCIERR_MISSING_PARAMETER => {
            "The specified command requires a parameter. Please supply one."
        }
        MCIERR_UNSUPPORTED_FUNCTION => {
            "The MCI device you are using does not support the specified command."
        }
        MCIERR_FILE_NOT_FOUND => {
            "Cannot find the specified file. Make sure the path and filename are correct."
        }
        MCIERR_EXTENSION_NOT_FOUND => {
            "Cannot determine the device type from the given filename extension."
        }
        MCIERR_OUTOFRANGE => "The specified parameter is out of range for the specified command.",
        MCIERR_FLAGS_NOT_COMPATIBLE => "The specified parameters cannot be used together.",
        MCIERR_DUPLICATE_ALIAS => {
            "The specified alias is already being used in this application. Use a unique alias."
        }
        MCIERR_MISSING_DEVICE_NAME => "No device name was specified.",
        MCIERR_BAD_TIME_FORMAT => {
            "The specified value for the time format is invalid. Refer to the MCI documentation \
             for valid formats."
        }
        MCIERR_INVALID_FILE => {
            "The specified file cannot be played on the specified MCI device. The file may be \
             corrupt, or not in the correct format."
        }
        MCIERR_NULL_PARAMETER_BLOCK => "A null parameter block was passed to MCI.",
        MCIERR_DEVICE_NOT_INSTALLED => {
            "The specified device is not installed on the system. Use the Drivers option from \
             the Control Panel to install the device."
        }
        _ => return None,
    })
}

/// The MCI device types of the [mci] section of a Windows system.
const DEVICE_TYPES: &[&str] = &[
    "cdaudio",
    "waveaudio",
    "sequencer",
    "avivideo",
    "mpegvideo",
    "digitalvideo",
    "videodisc",
    "vcr",
    "overlay",
    "scanner",
    "dat",
    "animation",
    "mmmovie",
    "other",
];

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Words of a command string; a double-quoted part is one word without its quotes.
fn words(cmd: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in cmd.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

/// What a device plays.
enum Media {
    Seq(Arc<Song>),
    Wave(Arc<Wav>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Stopped,
    /// Playing since guest time `start` from content time `from` (µs) until `to`.
    Playing {
        start: u64,
        from: u64,
        to: u64,
    },
    /// Paused; resuming plays on to `to`.
    Paused {
        to: u64,
    },
}

struct DevState {
    mode: Mode,
    /// The content position (µs) while not playing.
    pos: u64,
    time_format: u32,
    /// The window waiting for the current play's MM_MCINOTIFY.
    notify: Option<u32>,
    voice: Option<Arc<playsound::Voice>>,
}

/// An open MCI device.
pub struct Device {
    id: u32,
    /// The name commands use (case-insensitive).
    alias: String,
    element: String,
    media: Media,
    st: Mutex<DevState>,
}

impl Device {
    fn devtype(&self) -> u32 {
        match self.media {
            Media::Seq(_) => MCI_DEVTYPE_SEQUENCER,
            Media::Wave(_) => MCI_DEVTYPE_WAVEFORM_AUDIO,
        }
    }

    fn length_us(&self) -> u64 {
        match &self.media {
            Media::Seq(s) => s.length_us,
            Media::Wave(w) => super::wave::duration_us(w.data.len() as u64, w.avg),
        }
    }

    /// The synthesizer messages this device schedules carry this owner.
    fn owner(&self) -> u32 {
        0x4d43_0000 | self.id
    }

    fn position(&self, st: &DevState, now: u64) -> u64 {
        match st.mode {
            Mode::Playing { start, from, to } => (from + now.saturating_sub(start)).min(to),
            _ => st.pos,
        }
    }

    /// Guest time at which the current play ends.
    fn end_us(&self, st: &DevState) -> Option<u64> {
        match st.mode {
            Mode::Playing { start, from, to } => Some(start + (to - from)),
            _ => None,
        }
    }

    /// Ends a play that has reached its end by `now`; returns the window waiting
    /// for its notification.
    fn settle(&self, st: &mut DevState, now: u64) -> Option<u32> {
        if let Mode::Playing { to, .. } = st.mode
            && self.end_us(st).is_some_and(|e| now >= e)
        {
            // The wave voice stays until the next play or close: it hands the last
            // of its samples to the mixer when captured.
            st.mode = Mode::Stopped;
            st.pos = to;
            return st.notify.take();
        }
        None
    }

    /// Starts playing from `from` to `to` (µs of content) at guest time `now`.
    fn start(&self, proc: &Process, st: &mut DevState, now: u64, from: u64, to: u64) {
        match &self.media {
            Media::Seq(song) => {
                if let Some(synth) = midi::synth(proc) {
                    // Chase: the controllers, programs and SysEx before the start
                    // point, at once, so the notes play with their instruments.
                    let first = song.index_at(from);
                    let chase = song.events[..first].iter().filter_map(|e| match &e.msg {
                        // Notes before the start point are not played.
                        Msg::Short(m) if matches!(m & 0xf0, 0x80 | 0x90) => None,
                        Msg::Short(m) => Some((now, MidiCmd::Short(*m))),
                        Msg::SysEx(b) => Some((now, MidiCmd::SysEx(b.clone()))),
                    });
                    let body = song.events[first..]
                        .iter()
                        .take_while(|e| e.us < to)
                        .map(|e| {
                            let at = now + (e.us - from);
                            match &e.msg {
                                Msg::Short(m) => (at, MidiCmd::Short(*m)),
                                Msg::SysEx(b) => (at, MidiCmd::SysEx(b.clone())),
                            }
                        });
                    // Whatever still sounds at the end is released there.
                    let end = std::iter::once((now + (to - from), MidiCmd::NotesOff));
                    let all: Vec<(u64, MidiCmd)> = chase.chain(body).chain(end).collect();
                    synth.schedule(self.owner(), all);
                }
            }
            Media::Wave(w) => {
                let block = u64::from(w.format.block_align());
                let byte = |us: u64| {
                    let b = super::wave::bytes_in(us, w.avg, block as u32);
                    (b as usize).min(w.data.len())
                };
                let part = Wav {
                    format: w.format,
                    avg: w.avg,
                    data: w.data[byte(from)..byte(to)].to_vec(),
                };
                st.voice = Some(playsound::Voice::start(proc, part, now));
            }
        }
        st.mode = Mode::Playing {
            start: now,
            from,
            to,
        };
    }

    /// Stops the sound at `now`, keeping the position.
    fn halt(&self, proc: &Process, st: &mut DevState, now: u64) {
        if let Mode::Playing { .. } = st.mode {
            st.pos = self.position(st, now);
            if let (Media::Seq(_), Some(s)) = (&self.media, midi::synth(proc)) {
                s.cancel(self.owner(), now);
                s.send(proc, now, self.owner(), MidiCmd::NotesOff);
            }
        }
        // A wave voice (playing, or finished and not yet captured to its end) hands
        // what it played to the mixer before it goes.
        if let Some(v) = st.voice.take() {
            v.stop(proc, now);
        }
        st.mode = Mode::Stopped;
    }

    fn us_to_units(&self, st: &DevState, us: u64) -> u64 {
        match (&self.media, st.time_format) {
            (Media::Wave(w), MCI_FORMAT_BYTES) => {
                super::wave::bytes_in(us, w.avg, w.format.block_align())
            }
            (Media::Wave(w), MCI_FORMAT_SAMPLES) => {
                super::wave::bytes_in(us, w.avg, w.format.block_align())
                    / u64::from(w.format.block_align().max(1))
            }
            _ => us / 1000,
        }
    }

    fn units_to_us(&self, st: &DevState, v: u32) -> u64 {
        let v = u64::from(v);
        match (&self.media, st.time_format) {
            (Media::Wave(w), MCI_FORMAT_BYTES) => v * 1_000_000 / u64::from(w.avg.max(1)),
            (Media::Wave(w), MCI_FORMAT_SAMPLES) => {
                v * 1_000_000 / u64::from(w.format.samples_per_sec.max(1))
            }
            _ => v * 1000,
        }
    }
}

impl Timed for Device {
    fn poll(&self, _proc: &Arc<Process>, now: u64) -> ApiResult<(Vec<Action>, Option<u64>)> {
        let mut st = lock(&self.st);
        let mut actions = Vec::new();
        if let Some(hwnd) = self.settle(&mut st, now) {
            actions.push(notify_action(hwnd, MCI_NOTIFY_SUCCESSFUL, self.id));
        }
        Ok((actions, self.end_us(&st)))
    }
}

/// A play with MCI_WAIT waits for this: signalled when the play stops early.
impl Waitable for Device {
    fn ready(&self, _k: &Locked, _tid: u32) -> bool {
        !matches!(lock(&self.st).mode, Mode::Playing { .. })
    }
    fn acquire(&self, _k: &Locked, _tid: u32) -> bool {
        false
    }
    fn describe(&self) -> String {
        format!("MCI device {} playing with the wait flag", self.id)
    }
}

impl KernelObject for Device {
    fn type_name(&self) -> &'static str {
        "MciDevice"
    }
    fn as_waitable(&self) -> Option<&dyn Waitable> {
        Some(self)
    }
}

fn notify_action(hwnd: u32, flag: u32, id: u32) -> Action {
    Action::Post {
        hwnd,
        msg: MM_MCINOTIFY,
        wp: flag,
        lp: id,
    }
}

/// Per-process MCI state (a process slot).
#[derive(Default)]
pub struct MciState {
    devs: Mutex<BTreeMap<u32, Arc<Device>>>,
    /// Deterministic mode: the device each thread waits for in a play with the
    /// wait flag, so the re-entered call goes on waiting.
    waiting: Mutex<HashMap<u32, Arc<Device>>>,
}

fn state(proc: &Process) -> Arc<MciState> {
    proc.slot::<MciState>()
}

fn find_alias(proc: &Process, name: &str) -> Option<Arc<Device>> {
    lock(&state(proc).devs)
        .values()
        .find(|d| d.alias.eq_ignore_ascii_case(name))
        .cloned()
}

fn find_id(proc: &Process, id: u32) -> Option<Arc<Device>> {
    lock(&state(proc).devs).get(&id).cloned()
}

/// What a command answers besides its error code.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Reply {
    Nothing,
    Int(u64),
    Bool(bool),
    Mode(u32),
    TimeFormat(u32),
    DevType(u32),
    Text(String),
}

impl Reply {
    /// mciSendString's return string.
    fn text(&self) -> String {
        match self {
            Reply::Nothing => String::new(),
            Reply::Int(v) => v.to_string(),
            Reply::Bool(b) => if *b { "true" } else { "false" }.into(),
            Reply::Mode(m) => match *m {
                524 => "not ready",
                MCI_MODE_STOP => "stopped",
                MCI_MODE_PLAY => "playing",
                527 => "recording",
                528 => "seeking",
                MCI_MODE_PAUSE => "paused",
                _ => "open",
            }
            .into(),
            Reply::TimeFormat(f) => match *f {
                MCI_FORMAT_BYTES => "bytes",
                MCI_FORMAT_SAMPLES => "samples",
                _ => "milliseconds",
            }
            .into(),
            Reply::DevType(t) => match *t {
                MCI_DEVTYPE_SEQUENCER => "sequencer",
                MCI_DEVTYPE_WAVEFORM_AUDIO => "waveaudio",
                _ => "cdaudio",
            }
            .into(),
            Reply::Text(s) => s.clone(),
        }
    }

    /// MCI_STATUS_PARMS/MCI_GETDEVCAPS_PARMS dwReturn.
    fn dword(&self) -> u32 {
        match self {
            Reply::Int(v) => *v as u32,
            Reply::Bool(b) => u32::from(*b),
            Reply::Mode(m) | Reply::TimeFormat(m) | Reply::DevType(m) => *m,
            Reply::Nothing | Reply::Text(_) => 0,
        }
    }
}

/// A command for an open device, from a string or a command message.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Command {
    Close,
    Play { from: Option<u32>, to: Option<u32> },
    Stop,
    Pause,
    Resume,
    Seek(SeekTo),
    Status { item: u32, track: Option<u32> },
    SetTimeFormat(u32),
    Capability(u32),
    Info(u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SeekTo {
    Start,
    End,
    At(u32),
}

/// What the caller of a command does afterwards.
enum Done {
    Reply(Reply),
    /// A play with MCI_WAIT: wait until the device's play ends.
    Wait(Arc<Device>),
}

/// Runs a command on an open device. `notify` is the window for MCI_NOTIFY.
fn exec(
    cx: &mut Ctx,
    dev: &Arc<Device>,
    cmd: Command,
    notify: Option<u32>,
    wait: bool,
) -> ApiResult<Result<Done, u32>> {
    let now = crate::kernel32::time::micros(cx);
    let is_play = matches!(cmd, Command::Play { .. });
    let changes_mode = matches!(
        cmd,
        Command::Play { .. } | Command::Stop | Command::Pause | Command::Seek(_)
    );
    let mut posts: Vec<(u32, u32)> = Vec::new();
    let result = {
        let mut st = lock(&dev.st);
        if let Some(h) = dev.settle(&mut st, now) {
            posts.push((h, MCI_NOTIFY_SUCCESSFUL));
        }
        let len = dev.length_us();
        match cmd {
            Command::Close => {
                return Err(ApiError::Other(
                    "MCI close reached the command runner (callers close devices)".into(),
                ));
            }
            Command::Play { from, to } => {
                let from_us = match from {
                    Some(f) => dev.units_to_us(&st, f),
                    None => dev.position(&st, now),
                };
                let to_us = match to {
                    Some(t) => dev.units_to_us(&st, t),
                    None => len,
                };
                if from_us > len || to_us > len || to_us < from_us {
                    Err(MCIERR_OUTOFRANGE)
                } else {
                    dev.halt(cx.proc, &mut st, now);
                    if let Some(old) = st.notify.take() {
                        let flag = if notify.is_some() {
                            MCI_NOTIFY_SUPERSEDED
                        } else {
                            MCI_NOTIFY_ABORTED
                        };
                        posts.push((old, flag));
                    }
                    dev.start(cx.proc, &mut st, now, from_us, to_us);
                    st.notify = notify;
                    if to_us == from_us
                        && let Some(h) = dev.settle(&mut st, now)
                    {
                        posts.push((h, MCI_NOTIFY_SUCCESSFUL));
                    }
                    Ok(if wait {
                        Done::Wait(dev.clone())
                    } else {
                        Done::Reply(Reply::Nothing)
                    })
                }
            }
            Command::Stop | Command::Seek(_) => {
                let target = match cmd {
                    Command::Seek(SeekTo::Start) => Some(0),
                    Command::Seek(SeekTo::End) => Some(len),
                    Command::Seek(SeekTo::At(v)) => Some(dev.units_to_us(&st, v)),
                    _ => None,
                };
                if target.is_some_and(|t| t > len) {
                    Err(MCIERR_OUTOFRANGE)
                } else {
                    dev.halt(cx.proc, &mut st, now);
                    if let Some(old) = st.notify.take() {
                        posts.push((old, MCI_NOTIFY_ABORTED));
                    }
                    if let Some(t) = target {
                        st.pos = t;
                    }
                    Ok(Done::Reply(Reply::Nothing))
                }
            }
            Command::Pause => {
                if let Mode::Playing { to, .. } = st.mode {
                    dev.halt(cx.proc, &mut st, now);
                    st.mode = Mode::Paused { to };
                }
                Ok(Done::Reply(Reply::Nothing))
            }
            Command::Resume => {
                if let Mode::Paused { to } = st.mode {
                    let from = st.pos;
                    dev.start(cx.proc, &mut st, now, from, to);
                }
                Ok(Done::Reply(Reply::Nothing))
            }
            Command::Status { item, track } => {
                if track.is_some_and(|t| t != 1) {
                    Err(MCIERR_OUTOFRANGE)
                } else {
                    match item {
                        MCI_STATUS_LENGTH => Ok(Reply::Int(dev.us_to_units(&st, len))),
                        MCI_STATUS_POSITION => {
                            Ok(Reply::Int(dev.us_to_units(&st, dev.position(&st, now))))
                        }
                        MCI_STATUS_NUMBER_OF_TRACKS | MCI_STATUS_CURRENT_TRACK => Ok(Reply::Int(1)),
                        MCI_STATUS_MODE => Ok(Reply::Mode(match st.mode {
                            Mode::Stopped => MCI_MODE_STOP,
                            Mode::Playing { .. } => MCI_MODE_PLAY,
                            Mode::Paused { .. } => MCI_MODE_PAUSE,
                        })),
                        MCI_STATUS_MEDIA_PRESENT | MCI_STATUS_READY => Ok(Reply::Bool(true)),
                        MCI_STATUS_TIME_FORMAT => Ok(Reply::TimeFormat(st.time_format)),
                        other => {
                            return Err(ApiError::UnimplementedCase(format!(
                                "MCI status item {other:#x} of a {} device",
                                Reply::DevType(dev.devtype()).text()
                            )));
                        }
                    }
                    .map(Done::Reply)
                }
            }
            Command::SetTimeFormat(f) => {
                let ok = match (&dev.media, f) {
                    (_, MCI_FORMAT_MILLISECONDS) => true,
                    (Media::Wave(_), MCI_FORMAT_BYTES | MCI_FORMAT_SAMPLES) => true,
                    (Media::Seq(_), 4..=7 | 0x4001) => {
                        return Err(ApiError::UnimplementedCase(format!(
                            "MCI sequencer time format {f:#x} (SMPTE or song pointer)"
                        )));
                    }
                    _ => false,
                };
                if ok {
                    st.time_format = f;
                    Ok(Done::Reply(Reply::Nothing))
                } else {
                    Err(MCIERR_BAD_TIME_FORMAT)
                }
            }
            Command::Capability(item) => {
                let wave = matches!(dev.media, Media::Wave(_));
                match item {
                    MCI_GETDEVCAPS_CAN_RECORD | MCI_GETDEVCAPS_CAN_SAVE => {
                        // winterp records nothing; a wave device could on Windows.
                        Ok(Reply::Bool(false))
                    }
                    MCI_GETDEVCAPS_HAS_AUDIO | MCI_GETDEVCAPS_CAN_PLAY => Ok(Reply::Bool(true)),
                    MCI_GETDEVCAPS_HAS_VIDEO | MCI_GETDEVCAPS_CAN_EJECT => Ok(Reply::Bool(false)),
                    MCI_GETDEVCAPS_USES_FILES | MCI_GETDEVCAPS_COMPOUND_DEVICE => {
                        Ok(Reply::Bool(true))
                    }
                    MCI_GETDEVCAPS_DEVICE_TYPE => Ok(Reply::DevType(if wave {
                        MCI_DEVTYPE_WAVEFORM_AUDIO
                    } else {
                        MCI_DEVTYPE_SEQUENCER
                    })),
                    _ => Err(MCIERR_UNSUPPORTED_FUNCTION),
                }
                .map(Done::Reply)
            }
            Command::Info(MCI_INFO_FILE) => Ok(Done::Reply(Reply::Text(dev.element.clone()))),
            Command::Info(_) => Ok(Done::Reply(Reply::Text(
                match dev.media {
                    Media::Seq(_) => "winterp MIDI Sequencer",
                    Media::Wave(_) => "winterp Sound",
                }
                .into(),
            ))),
        }
    };
    let playing = matches!(lock(&dev.st).mode, Mode::Playing { .. });
    if changes_mode {
        // A thread waiting for a play (MCI_WAIT) looks again.
        let k = cx.proc.sched.lock();
        cx.proc.sched.wake(&k);
    }
    if playing {
        let timed: Arc<dyn Timed> = dev.clone();
        wave_service::watch(cx, &timed)?;
    }
    for (h, flag) in posts {
        crate::user32::msg::post(cx, h, MM_MCINOTIFY, flag, dev.id);
    }
    // Commands that complete at once notify at once; a play notifies at its end.
    if let (Ok(Done::Reply(_)), Some(h)) = (&result, notify)
        && !is_play
    {
        crate::user32::msg::post(cx, h, MM_MCINOTIFY, MCI_NOTIFY_SUCCESSFUL, dev.id);
    }
    Ok(result)
}

/// Closes a device: what it plays stops, a pending notification is aborted.
fn close(cx: &mut Ctx, dev: &Arc<Device>, notify: Option<u32>) {
    let now = crate::kernel32::time::micros(cx);
    let old = {
        let mut st = lock(&dev.st);
        let settled = dev.settle(&mut st, now);
        dev.halt(cx.proc, &mut st, now);
        (settled, st.notify.take())
    };
    lock(&state(cx.proc).devs).remove(&dev.id);
    {
        let k = cx.proc.sched.lock();
        cx.proc.sched.wake(&k);
    }
    if let Some(h) = old.0 {
        crate::user32::msg::post(cx, h, MM_MCINOTIFY, MCI_NOTIFY_SUCCESSFUL, dev.id);
    }
    if let Some(h) = old.1 {
        crate::user32::msg::post(cx, h, MM_MCINOTIFY, MCI_NOTIFY_ABORTED, dev.id);
    }
    if let Some(h) = notify {
        crate::user32::msg::post(cx, h, MM_MCINOTIFY, MCI_NOTIFY_SUCCESSFUL, dev.id);
    }
}

/// The device type a file's extension names (the [mci extensions] of Windows).
fn type_of_extension(name: &str) -> Option<&'static str> {
    let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
    match ext.as_str() {
        "mid" | "rmi" | "midi" => Some("sequencer"),
        "wav" => Some("waveaudio"),
        "cda" => Some("cdaudio"),
        "avi" => Some("avivideo"),
        "mpg" | "mpeg" | "m1v" | "mp2" | "mp3" | "mpa" | "mpe" => Some("mpegvideo"),
        _ => None,
    }
}

/// Opens a device: `devtype` (lower case) with an optional file.
fn open(
    cx: &mut Ctx,
    devtype: &str,
    element: Option<&str>,
    alias: Option<&str>,
    shareable: bool,
) -> ApiResult<Result<Arc<Device>, u32>> {
    match devtype {
        "cdaudio" => return Ok(Err(MCIERR_CANNOT_LOAD_DRIVER)),
        "sequencer" if midi::synth(cx.proc).is_none() => {
            return Ok(Err(MCIERR_DEVICE_NOT_INSTALLED));
        }
        "sequencer" | "waveaudio" => {}
        t if DEVICE_TYPES.contains(&t) => return Ok(Err(MCIERR_DEVICE_NOT_INSTALLED)),
        _ => return Ok(Err(MCIERR_INVALID_DEVICE_NAME)),
    }
    if shareable && devtype == "sequencer" {
        // The sequencer cannot be shared.
        return Ok(Err(MCIERR_UNSUPPORTED_FUNCTION));
    }
    let Some(element) = element else {
        return Err(ApiError::UnimplementedCase(format!(
            "MCI open of a {devtype} device without a file (recording, a file loaded later)"
        )));
    };
    let name = alias.unwrap_or(element);
    if find_alias(cx.proc, name).is_some() {
        return Ok(Err(MCIERR_DUPLICATE_ALIAS));
    }
    let Some(bytes) = playsound::read_file(cx, element)? else {
        return Ok(Err(MCIERR_FILE_NOT_FOUND));
    };
    let media = if devtype == "sequencer" {
        match smf::parse(&bytes) {
            Ok(f) => Media::Seq(Arc::new(Song::new(&f))),
            Err(e) => {
                log::warn!("MCI sequencer: {element}: {e}");
                return Ok(Err(MCIERR_INVALID_FILE));
            }
        }
    } else {
        match playsound::parse_wav(&bytes) {
            Ok(w) => Media::Wave(Arc::new(w)),
            Err(e) => {
                log::warn!("MCI waveaudio: {element}: {e}");
                return Ok(Err(MCIERR_INVALID_FILE));
            }
        }
    };
    let s = state(cx.proc);
    let mut devs = lock(&s.devs);
    let id = (1..).find(|k| !devs.contains_key(k)).unwrap_or(1);
    let dev = Arc::new(Device {
        id,
        alias: name.to_string(),
        element: element.to_string(),
        media,
        st: Mutex::new(DevState {
            mode: Mode::Stopped,
            pos: 0,
            time_format: MCI_FORMAT_MILLISECONDS,
            notify: None,
            voice: None,
        }),
    });
    devs.insert(id, dev.clone());
    Ok(Ok(dev))
}

/// The answer for a name that is not open: a device type or file would be
/// auto-opened on Windows.
fn not_open(name: &str) -> ApiResult<u32> {
    let lower = name.to_ascii_lowercase();
    let t = if DEVICE_TYPES.contains(&lower.as_str()) {
        Some(lower.as_str())
    } else {
        type_of_extension(&lower)
    };
    match t {
        Some("cdaudio") => Ok(MCIERR_CANNOT_LOAD_DRIVER),
        Some("sequencer") | Some("waveaudio") => Err(ApiError::UnimplementedCase(format!(
            "MCI auto-open of {name:?} (a command to a device that was not opened)"
        ))),
        Some(_) => Ok(MCIERR_DEVICE_NOT_INSTALLED),
        None => Ok(MCIERR_INVALID_DEVICE_NAME),
    }
}

/// sysinfo: how many devices of a type are installed (or open).
fn sysinfo_quantity(proc: &Process, devtype: &str, open_only: bool) -> u32 {
    if open_only {
        return lock(&state(proc).devs)
            .values()
            .filter(|d| devtype == "all" || Reply::DevType(d.devtype()).text() == devtype)
            .count() as u32;
    }
    let seq = u32::from(midi::synth(proc).is_some());
    match devtype {
        "all" => 2 + seq,
        "waveaudio" | "cdaudio" => 1,
        "sequencer" => seq,
        _ => 0,
    }
}

/// A parsed command string for an open device.
struct Parsed {
    cmd: Command,
    notify: bool,
    wait: bool,
}

fn number(w: Option<&String>) -> Result<u32, u32> {
    let w = w.ok_or(MCIERR_MISSING_PARAMETER)?;
    w.parse::<u32>().map_err(|_| MCIERR_BAD_INTEGER)
}

/// Parses the words after the device name.
fn parse_rest(verb: &str, rest: &[String]) -> Result<Parsed, u32> {
    let mut notify = false;
    let mut wait = false;
    let mut from = None;
    let mut to = None;
    let mut seek = None;
    let mut item: Option<u32> = None;
    let mut track = None;
    let mut format = None;
    let mut info = None;
    let mut i = 0;
    let w = |k: usize| rest.get(k).map(String::as_str);
    while i < rest.len() {
        let word = rest[i].as_str();
        let two = (word, w(i + 1));
        i += 1;
        match (verb, two) {
            (_, ("notify", _)) => notify = true,
            (_, ("wait", _)) => wait = true,
            ("play", ("from", _)) => {
                from = Some(number(rest.get(i))?);
                i += 1;
            }
            ("play", ("to", _)) => {
                to = Some(number(rest.get(i))?);
                i += 1;
            }
            ("seek", ("to", Some("start"))) => {
                seek = Some(SeekTo::Start);
                i += 1;
            }
            ("seek", ("to", Some("end"))) => {
                seek = Some(SeekTo::End);
                i += 1;
            }
            ("seek", ("to", _)) => {
                seek = Some(SeekTo::At(number(rest.get(i))?));
                i += 1;
            }
            ("status", ("track", _)) => {
                track = Some(number(rest.get(i))?);
                i += 1;
            }
            ("status", ("length", _)) => item = Some(MCI_STATUS_LENGTH),
            ("status", ("position", _)) => item = Some(MCI_STATUS_POSITION),
            ("status", ("mode", _)) => item = Some(MCI_STATUS_MODE),
            ("status", ("ready", _)) => item = Some(MCI_STATUS_READY),
            ("status", ("time", Some("format"))) => {
                item = Some(MCI_STATUS_TIME_FORMAT);
                i += 1;
            }
            ("status", ("number", Some("of"))) if w(i + 1) == Some("tracks") => {
                item = Some(MCI_STATUS_NUMBER_OF_TRACKS);
                i += 2;
            }
            ("status", ("current", Some("track"))) => {
                item = Some(MCI_STATUS_CURRENT_TRACK);
                i += 1;
            }
            ("status", ("media", Some("present"))) => {
                item = Some(MCI_STATUS_MEDIA_PRESENT);
                i += 1;
            }
            ("set", ("time", Some("format"))) => {
                i += 1;
                let f = match w(i) {
                    Some("ms" | "milliseconds") => MCI_FORMAT_MILLISECONDS,
                    Some("bytes") => MCI_FORMAT_BYTES,
                    Some("samples") => MCI_FORMAT_SAMPLES,
                    Some("song") if w(i + 1) == Some("pointer") => {
                        i += 1;
                        0x4001
                    }
                    Some("smpte") => {
                        i += 1;
                        match w(i) {
                            Some("24") => 4,
                            Some("25") => 5,
                            Some("30") => 6,
                            Some("30drop") => 7,
                            _ => return Err(MCIERR_BAD_TIME_FORMAT),
                        }
                    }
                    Some(_) => return Err(MCIERR_BAD_TIME_FORMAT),
                    None => return Err(MCIERR_MISSING_PARAMETER),
                };
                i += 1;
                format = Some(f);
            }
            ("capability", (a, b)) => {
                let (it, n) = match (a, b) {
                    ("can", Some("play")) => (MCI_GETDEVCAPS_CAN_PLAY, 1),
                    ("can", Some("record")) => (MCI_GETDEVCAPS_CAN_RECORD, 1),
                    ("can", Some("save")) => (MCI_GETDEVCAPS_CAN_SAVE, 1),
                    ("can", Some("eject")) => (MCI_GETDEVCAPS_CAN_EJECT, 1),
                    ("has", Some("audio")) => (MCI_GETDEVCAPS_HAS_AUDIO, 1),
                    ("has", Some("video")) => (MCI_GETDEVCAPS_HAS_VIDEO, 1),
                    ("device", Some("type")) => (MCI_GETDEVCAPS_DEVICE_TYPE, 1),
                    ("uses", Some("files")) => (MCI_GETDEVCAPS_USES_FILES, 1),
                    ("compound", Some("device")) => (MCI_GETDEVCAPS_COMPOUND_DEVICE, 1),
                    _ => return Err(MCIERR_UNRECOGNIZED_KEYWORD),
                };
                item = Some(it);
                i += n;
            }
            ("info", ("product", _)) => info = Some(MCI_INFO_PRODUCT),
            ("info", ("file", _)) => info = Some(MCI_INFO_FILE),
            _ => return Err(MCIERR_UNRECOGNIZED_KEYWORD),
        }
    }
    let cmd = match verb {
        "close" => Command::Close,
        "play" => Command::Play { from, to },
        "stop" => Command::Stop,
        "pause" => Command::Pause,
        "resume" => Command::Resume,
        "seek" => Command::Seek(seek.ok_or(MCIERR_MISSING_PARAMETER)?),
        "status" => Command::Status {
            item: item.ok_or(MCIERR_MISSING_PARAMETER)?,
            track,
        },
        "set" => Command::SetTimeFormat(format.ok_or(MCIERR_MISSING_PARAMETER)?),
        "capability" => Command::Capability(item.ok_or(MCIERR_MISSING_PARAMETER)?),
        "info" => Command::Info(info.ok_or(MCIERR_MISSING_PARAMETER)?),
        _ => return Err(MCIERR_UNRECOGNIZED_COMMAND),
    };
    Ok(Parsed { cmd, notify, wait })
}

/// Verbs of the core command set and the device commands winterp's devices do
/// not have: they are reported by name rather than answered.
const KNOWN_VERBS: &[&str] = &[
    "record",
    "save",
    "load",
    "cue",
    "delete",
    "cut",
    "copy",
    "paste",
    "step",
    "spin",
    "escape",
    "break",
    "window",
    "put",
    "where",
    "freeze",
    "unfreeze",
    "realize",
    "update",
    "signal",
    "configure",
];

/// mciSendString: the error code and the return string, or a wait.
enum StrOutcome {
    Done(u32, String),
    Wait(Arc<Device>),
}

fn send_string(cx: &mut Ctx, cmd: &str, hwnd: u32) -> ApiResult<StrOutcome> {
    let w = words(cmd);
    let Some(verb) = w.first().map(|v| v.to_ascii_lowercase()) else {
        return Ok(StrOutcome::Done(
            MCIERR_MISSING_COMMAND_STRING,
            String::new(),
        ));
    };
    let Some(device) = w.get(1).cloned() else {
        return Ok(StrOutcome::Done(MCIERR_MISSING_DEVICE_NAME, String::new()));
    };
    let rest: Vec<String> = w[2..].iter().map(|s| s.to_ascii_lowercase()).collect();
    let lower = device.to_ascii_lowercase();
    let done = |e: u32| Ok(StrOutcome::Done(e, String::new()));
    match verb.as_str() {
        "open" => {
            let mut devtype = None;
            let mut alias = None;
            let mut shareable = false;
            let mut notify = false;
            let mut i = 0;
            while i < rest.len() {
                match rest[i].as_str() {
                    "type" => {
                        i += 1;
                        devtype = rest.get(i).cloned();
                    }
                    "alias" => {
                        i += 1;
                        alias = w.get(2 + i).cloned();
                    }
                    "shareable" => shareable = true,
                    "notify" => notify = true,
                    "wait" => {}
                    _ => return done(MCIERR_UNRECOGNIZED_KEYWORD),
                }
                i += 1;
            }
            // "type!element" names both.
            let (devtype, element) = match (devtype, device.split_once('!')) {
                (Some(t), _) => (t, Some(device.clone())),
                (None, Some((t, e))) => (t.to_ascii_lowercase(), Some(e.to_string())),
                (None, None) if DEVICE_TYPES.contains(&lower.as_str()) => (lower.clone(), None),
                (None, None) => match type_of_extension(&lower) {
                    Some(t) => (t.to_string(), Some(device.clone())),
                    None => return done(MCIERR_EXTENSION_NOT_FOUND),
                },
            };
            let dev = match open(
                cx,
                &devtype,
                element.as_deref(),
                alias.as_deref(),
                shareable,
            )? {
                Ok(d) => d,
                Err(e) => return done(e),
            };
            if notify {
                crate::user32::msg::post(cx, hwnd, MM_MCINOTIFY, MCI_NOTIFY_SUCCESSFUL, dev.id);
            }
            Ok(StrOutcome::Done(0, dev.id.to_string()))
        }
        "sysinfo" => {
            let open_only = rest.iter().any(|r| r == "open");
            match rest.first().map(String::as_str) {
                Some("quantity") => Ok(StrOutcome::Done(
                    0,
                    sysinfo_quantity(cx.proc, &lower, open_only).to_string(),
                )),
                Some("name") => {
                    let n = match number(rest.get(1)) {
                        Ok(n) => n,
                        Err(e) => return done(e),
                    };
                    if !open_only {
                        return Err(ApiError::UnimplementedCase(
                            "MCI sysinfo name of an installed (not open) device".into(),
                        ));
                    }
                    let s = state(cx.proc);
                    let devs = lock(&s.devs);
                    let d = devs
                        .values()
                        .filter(|d| lower == "all" || Reply::DevType(d.devtype()).text() == lower)
                        .nth((n as usize).wrapping_sub(1));
                    let name = d.map(|d| d.alias.clone());
                    drop(devs);
                    match name {
                        Some(n) => Ok(StrOutcome::Done(0, n)),
                        None => done(MCIERR_OUTOFRANGE),
                    }
                }
                _ => done(MCIERR_MISSING_PARAMETER),
            }
        }
        "close" if lower == "all" => {
            let all: Vec<Arc<Device>> = lock(&state(cx.proc).devs).values().cloned().collect();
            let notify = rest.iter().any(|r| r == "notify");
            for d in all {
                close(cx, &d, None);
            }
            if notify {
                crate::user32::msg::post(
                    cx,
                    hwnd,
                    MM_MCINOTIFY,
                    MCI_NOTIFY_SUCCESSFUL,
                    MCI_ALL_DEVICE_ID,
                );
            }
            done(0)
        }
        v if KNOWN_VERBS.contains(&v) => Err(ApiError::UnimplementedCase(format!(
            "MCI command {v:?} (\"{cmd}\")"
        ))),
        _ => {
            let Some(dev) = find_alias(cx.proc, &device) else {
                if !matches!(
                    verb.as_str(),
                    "play"
                        | "stop"
                        | "pause"
                        | "resume"
                        | "seek"
                        | "status"
                        | "set"
                        | "capability"
                        | "info"
                        | "close"
                ) {
                    return done(MCIERR_UNRECOGNIZED_COMMAND);
                }
                return not_open(&device).map(|e| StrOutcome::Done(e, String::new()));
            };
            let p = match parse_rest(&verb, &rest) {
                Ok(p) => p,
                Err(e) => return done(e),
            };
            let notify = p.notify.then_some(hwnd);
            if p.cmd == Command::Close {
                close(cx, &dev, notify);
                return done(0);
            }
            Ok(match exec(cx, &dev, p.cmd, notify, p.wait)? {
                Ok(Done::Reply(r)) => StrOutcome::Done(0, r.text()),
                Ok(Done::Wait(d)) => StrOutcome::Wait(d),
                Err(e) => StrOutcome::Done(e, String::new()),
            })
        }
    }
}

/// A play with the wait flag: returns 0 when the play has ended or was stopped.
fn wait_play(cx: &mut Ctx, dev: Arc<Device>) -> Outcome {
    let tid = cx.thread.tid;
    let now = crate::kernel32::time::micros(cx);
    let end = dev.end_us(&lock(&dev.st)).unwrap_or(now);
    if end <= now {
        lock(&state(cx.proc).waiting).remove(&tid);
        let h = {
            let mut st = lock(&dev.st);
            dev.settle(&mut st, now)
        };
        if let Some(h) = h {
            crate::user32::msg::post(cx, h, MM_MCINOTIFY, MCI_NOTIFY_SUCCESSFUL, dev.id);
        }
        return Outcome::Return(0);
    }
    let ms = (end - now).div_ceil(1000).min(u64::from(u32::MAX - 1)) as u32;
    let first = cx.thread.sched.wait.is_none();
    let obj: Arc<dyn KernelObject> = dev.clone();
    match scheduler::wait_for(cx, vec![obj], false, ms) {
        Outcome::Return(_) => {
            // Woken or timed out: look again (the play may have ended).
            wait_play(cx, dev)
        }
        Outcome::Resume => {
            if first {
                if let Some(w) = cx.thread.sched.wait.as_mut() {
                    w.deadline = Some(end * scheduler::INSNS_PER_MS / 1000);
                }
                lock(&state(cx.proc).waiting).insert(tid, dev);
            }
            Outcome::Resume
        }
        other => {
            lock(&state(cx.proc).waiting).remove(&tid);
            other
        }
    }
}

/// A deterministic-mode re-entry of a call that waits for a play.
fn resumed_wait(cx: &mut Ctx) -> Option<Arc<Device>> {
    if cx.thread.sched.wait.is_some() {
        lock(&state(cx.proc).waiting).get(&cx.thread.tid).cloned()
    } else {
        None
    }
}

fn put_return_a(cx: &Ctx, buf: Ptr, cch: u32, s: &str) -> ApiResult<u32> {
    if buf.is_null() || cch == 0 {
        return Ok(0);
    }
    let b = s.as_bytes();
    let n = b.len().min(cch as usize - 1);
    let mut v = b[..n].to_vec();
    v.push(0);
    cx.proc.mem.write_bytes(buf.0, &v)?;
    Ok(if b.len() >= cch as usize {
        MCIERR_PARAM_OVERFLOW
    } else {
        0
    })
}

fn put_return_w(cx: &Ctx, buf: Ptr, cch: u32, s: &str) -> ApiResult<u32> {
    if buf.is_null() || cch == 0 {
        return Ok(0);
    }
    let u: Vec<u16> = s.encode_utf16().collect();
    let n = u.len().min(cch as usize - 1);
    let mut v = u[..n].to_vec();
    v.push(0);
    write_wide(cx.proc, buf.0, &v)?;
    Ok(if u.len() >= cch as usize {
        MCIERR_PARAM_OVERFLOW
    } else {
        0
    })
}

fn send_string_api(
    cx: &mut Ctx,
    cmd: Option<String>,
    ret: Ptr,
    cch: u32,
    hwnd: u32,
    wide: bool,
) -> ApiResult<Outcome> {
    if let Some(d) = resumed_wait(cx) {
        return Ok(wait_play(cx, d));
    }
    let Some(cmd) = cmd else {
        return Ok(Outcome::Return(u64::from(MCIERR_MISSING_COMMAND_STRING)));
    };
    match send_string(cx, &cmd, hwnd)? {
        StrOutcome::Done(code, text) => {
            let over = if wide {
                put_return_w(cx, ret, cch, &text)?
            } else {
                put_return_a(cx, ret, cch, &text)?
            };
            Ok(Outcome::Return(u64::from(if code == 0 {
                over
            } else {
                code
            })))
        }
        StrOutcome::Wait(d) => {
            if wide {
                put_return_w(cx, ret, cch, "")?;
            } else {
                put_return_a(cx, ret, cch, "")?;
            }
            Ok(wait_play(cx, d))
        }
    }
}

pub fn mciSendStringA(
    cx: &mut Ctx,
    lpszCommand: CStrPtr,
    lpszReturnString: Ptr,
    cchReturn: u32,
    hwndCallback: u32,
) -> ApiResult<Outcome> {
    let cmd = if lpszCommand.0 == 0 {
        None
    } else {
        Some(read_ansi(cx.proc, lpszCommand.0)?)
    };
    send_string_api(cx, cmd, lpszReturnString, cchReturn, hwndCallback, false)
}

pub fn mciSendStringW(
    cx: &mut Ctx,
    lpszCommand: WStrPtr,
    lpszReturnString: Ptr,
    cchReturn: u32,
    hwndCallback: u32,
) -> ApiResult<Outcome> {
    let cmd = if lpszCommand.0 == 0 {
        None
    } else {
        Some(read_wstr(cx.proc, lpszCommand.0)?)
    };
    send_string_api(cx, cmd, lpszReturnString, cchReturn, hwndCallback, true)
}

fn read_str(cx: &Ctx, p: u32, wide: bool) -> ApiResult<String> {
    if wide {
        read_wstr(cx.proc, p)
    } else {
        read_ansi(cx.proc, p)
    }
}

/// The lower-case device type of an MCI_OPEN_TYPE_ID's low word.
fn type_name_of_id(id: u32) -> &'static str {
    match id & 0xffff {
        MCI_DEVTYPE_CD_AUDIO => "cdaudio",
        MCI_DEVTYPE_WAVEFORM_AUDIO => "waveaudio",
        MCI_DEVTYPE_SEQUENCER => "sequencer",
        513 => "vcr",
        514 => "videodisc",
        515 => "overlay",
        517 => "dat",
        518 => "scanner",
        519 => "animation",
        520 => "digitalvideo",
        _ => "other",
    }
}

fn send_command(
    cx: &mut Ctx,
    id: u32,
    msg: u32,
    flags: u32,
    param: u32,
    wide: bool,
) -> ApiResult<Outcome> {
    if let Some(d) = resumed_wait(cx) {
        return Ok(wait_play(cx, d));
    }
    let ret = |e: u32| Ok(Outcome::Return(u64::from(e)));
    let callback = if param != 0 && flags & MCI_NOTIFY != 0 {
        Some(cx.proc.mem.read_u32(param)?)
    } else {
        None
    };
    match msg {
        MCI_OPEN => {
            if param == 0 {
                return ret(MCIERR_NULL_PARAMETER_BLOCK);
            }
            if flags & MCI_OPEN_ELEMENT_ID != 0 {
                return Err(ApiError::UnimplementedCase(
                    "MCI_OPEN with MCI_OPEN_ELEMENT_ID (an element by id)".into(),
                ));
            }
            let ptype = cx.proc.mem.read_u32(param + 8)?;
            let pelem = cx.proc.mem.read_u32(param + 12)?;
            let palias = cx.proc.mem.read_u32(param + 16)?;
            let element = if flags & MCI_OPEN_ELEMENT != 0 && pelem != 0 {
                Some(read_str(cx, pelem, wide)?)
            } else {
                None
            };
            let devtype = if flags & MCI_OPEN_TYPE_ID != 0 {
                type_name_of_id(ptype).to_string()
            } else if flags & MCI_OPEN_TYPE != 0 && ptype != 0 {
                read_str(cx, ptype, wide)?.to_ascii_lowercase()
            } else {
                match element.as_deref().and_then(type_of_extension) {
                    Some(t) => t.to_string(),
                    None if element.is_some() => return ret(MCIERR_EXTENSION_NOT_FOUND),
                    None => return ret(MCIERR_MISSING_PARAMETER),
                }
            };
            let alias = if flags & MCI_OPEN_ALIAS != 0 && palias != 0 {
                Some(read_str(cx, palias, wide)?)
            } else {
                None
            };
            let dev = match open(
                cx,
                &devtype,
                element.as_deref(),
                alias.as_deref(),
                flags & MCI_OPEN_SHAREABLE != 0,
            )? {
                Ok(d) => d,
                Err(e) => return ret(e),
            };
            cx.proc.mem.write_u32(param + 4, dev.id)?;
            if let Some(h) = callback {
                crate::user32::msg::post(cx, h, MM_MCINOTIFY, MCI_NOTIFY_SUCCESSFUL, dev.id);
            }
            ret(0)
        }
        MCI_CLOSE if id == MCI_ALL_DEVICE_ID => {
            let all: Vec<Arc<Device>> = lock(&state(cx.proc).devs).values().cloned().collect();
            for d in all {
                close(cx, &d, None);
            }
            ret(0)
        }
        MCI_SYSINFO => {
            if param == 0 {
                return ret(MCIERR_NULL_PARAMETER_BLOCK);
            }
            let pret = cx.proc.mem.read_u32(param + 4)?;
            let devtype = type_name_of_id(cx.proc.mem.read_u32(param + 16)?);
            let devtype = if id == MCI_ALL_DEVICE_ID {
                "all"
            } else {
                devtype
            };
            if flags & MCI_SYSINFO_QUANTITY != 0 {
                let n = sysinfo_quantity(cx.proc, devtype, flags & MCI_SYSINFO_OPEN != 0);
                if pret != 0 {
                    cx.proc.mem.write_u32(pret, n)?;
                }
                return ret(0);
            }
            if flags & MCI_SYSINFO_NAME != 0 {
                return Err(ApiError::UnimplementedCase(
                    "MCI_SYSINFO with MCI_SYSINFO_NAME".into(),
                ));
            }
            ret(MCIERR_MISSING_PARAMETER)
        }
        _ => {
            let Some(dev) = find_id(cx.proc, id) else {
                return ret(MCIERR_INVALID_DEVICE_ID);
            };
            let rd = |off: u32| -> ApiResult<u32> {
                if param == 0 {
                    Ok(0)
                } else {
                    Ok(cx.proc.mem.read_u32(param + off)?)
                }
            };
            let needs_param = matches!(
                msg,
                MCI_STATUS | MCI_SET | MCI_GETDEVCAPS | MCI_INFO | MCI_SEEK
            );
            if needs_param && param == 0 {
                return ret(MCIERR_NULL_PARAMETER_BLOCK);
            }
            let cmd = match msg {
                MCI_CLOSE => {
                    close(cx, &dev, callback);
                    return ret(0);
                }
                MCI_PLAY => Command::Play {
                    from: (flags & MCI_FROM != 0).then(|| rd(4)).transpose()?,
                    to: (flags & MCI_TO != 0).then(|| rd(8)).transpose()?,
                },
                MCI_STOP => Command::Stop,
                MCI_PAUSE => Command::Pause,
                MCI_RESUME => Command::Resume,
                MCI_SEEK => {
                    let n = [MCI_SEEK_TO_START, MCI_SEEK_TO_END, MCI_TO]
                        .iter()
                        .filter(|&&f| flags & f != 0)
                        .count();
                    if n > 1 {
                        return ret(MCIERR_FLAGS_NOT_COMPATIBLE);
                    }
                    Command::Seek(if flags & MCI_SEEK_TO_START != 0 {
                        SeekTo::Start
                    } else if flags & MCI_SEEK_TO_END != 0 {
                        SeekTo::End
                    } else if flags & MCI_TO != 0 {
                        SeekTo::At(rd(4)?)
                    } else {
                        return ret(MCIERR_MISSING_PARAMETER);
                    })
                }
                MCI_STATUS => {
                    if flags & MCI_STATUS_ITEM == 0 {
                        return ret(MCIERR_MISSING_PARAMETER);
                    }
                    if flags & MCI_STATUS_START != 0 {
                        return Err(ApiError::UnimplementedCase(
                            "MCI_STATUS with MCI_STATUS_START".into(),
                        ));
                    }
                    Command::Status {
                        item: rd(8)?,
                        track: (flags & MCI_TRACK != 0).then(|| rd(12)).transpose()?,
                    }
                }
                MCI_SET => {
                    if flags & MCI_SET_AUDIO != 0 || flags & !(MCI_SET_TIME_FORMAT | 3) != 0 {
                        return Err(ApiError::UnimplementedCase(format!(
                            "MCI_SET with flags {flags:#x} (only the time format is implemented)"
                        )));
                    }
                    if flags & MCI_SET_TIME_FORMAT == 0 {
                        return ret(MCIERR_MISSING_PARAMETER);
                    }
                    Command::SetTimeFormat(rd(4)?)
                }
                MCI_GETDEVCAPS => {
                    if flags & MCI_GETDEVCAPS_ITEM == 0 {
                        return ret(MCIERR_MISSING_PARAMETER);
                    }
                    Command::Capability(rd(8)?)
                }
                MCI_INFO => {
                    if flags & (MCI_INFO_PRODUCT | MCI_INFO_FILE) == 0 {
                        return ret(MCIERR_MISSING_PARAMETER);
                    }
                    Command::Info(if flags & MCI_INFO_FILE != 0 {
                        MCI_INFO_FILE
                    } else {
                        MCI_INFO_PRODUCT
                    })
                }
                other => {
                    return Err(ApiError::UnimplementedCase(format!(
                        "MCI command message {other:#06x} for a {} device",
                        Reply::DevType(dev.devtype()).text()
                    )));
                }
            };
            let is_info = matches!(cmd, Command::Info(_));
            match exec(cx, &dev, cmd, callback, flags & MCI_WAIT != 0)? {
                Ok(Done::Reply(r)) => {
                    if is_info {
                        let buf = Ptr(rd(4)?);
                        let cch = rd(8)?;
                        let e = if wide {
                            put_return_w(cx, buf, cch, &r.text())?
                        } else {
                            put_return_a(cx, buf, cch, &r.text())?
                        };
                        return ret(e);
                    }
                    if matches!(msg, MCI_STATUS | MCI_GETDEVCAPS) {
                        cx.proc.mem.write_u32(param + 4, r.dword())?;
                    }
                    ret(0)
                }
                Ok(Done::Wait(d)) => Ok(wait_play(cx, d)),
                Err(e) => ret(e),
            }
        }
    }
}

pub fn mciSendCommandA(
    cx: &mut Ctx,
    IDDevice: u32,
    uMsg: u32,
    fdwCommand: u32,
    dwParam: u32,
) -> ApiResult<Outcome> {
    send_command(cx, IDDevice, uMsg, fdwCommand, dwParam, false)
}

pub fn mciSendCommandW(
    cx: &mut Ctx,
    IDDevice: u32,
    uMsg: u32,
    fdwCommand: u32,
    dwParam: u32,
) -> ApiResult<Outcome> {
    send_command(cx, IDDevice, uMsg, fdwCommand, dwParam, true)
}

/// FALSE for a code this module never returns.
pub fn mciGetErrorStringA(
    cx: &mut Ctx,
    mcierr: u32,
    pszText: Ptr,
    cchText: u32,
) -> ApiResult<bool> {
    match error_text(mcierr) {
        Some(t) => {
            put_return_a(cx, pszText, cchText, t)?;
            Ok(true)
        }
        None => Ok(false),
    }
}

pub fn mciGetErrorStringW(
    cx: &mut Ctx,
    mcierr: u32,
    pszText: Ptr,
    cchText: u32,
) -> ApiResult<bool> {
    match error_text(mcierr) {
        Some(t) => {
            put_return_w(cx, pszText, cchText, t)?;
            Ok(true)
        }
        None => Ok(false),
    }
}

fn device_id(cx: &Ctx, name: &str) -> u32 {
    if name.eq_ignore_ascii_case("all") {
        return MCI_ALL_DEVICE_ID;
    }
    find_alias(cx.proc, name).map_or(0, |d| d.id)
}

pub fn mciGetDeviceIDA(cx: &mut Ctx, pszDevice: CStrPtr) -> ApiResult<u32> {
    if pszDevice.0 == 0 {
        return Ok(0);
    }
    let n = read_ansi(cx.proc, pszDevice.0)?;
    Ok(device_id(cx, &n))
}

pub fn mciGetDeviceIDW(cx: &mut Ctx, pszDevice: WStrPtr) -> ApiResult<u32> {
    if pszDevice.0 == 0 {
        return Ok(0);
    }
    let n = read_wstr(cx.proc, pszDevice.0)?;
    Ok(device_id(cx, &n))
}

/// There are no auxiliary audio devices (CD audio out, line in).
pub fn auxGetNumDevs(_cx: &mut Ctx) -> u32 {
    0
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("mciSendStringA", mciSendStringA),
        stdcall("mciSendStringW", mciSendStringW),
        stdcall("mciSendCommandA", mciSendCommandA),
        stdcall("mciSendCommandW", mciSendCommandW),
        stdcall("mciGetErrorStringA", mciGetErrorStringA),
        stdcall("mciGetErrorStringW", mciGetErrorStringW),
        stdcall("mciGetDeviceIDA", mciGetDeviceIDA),
        stdcall("mciGetDeviceIDW", mciGetDeviceIDW),
        stdcall("auxGetNumDevs", auxGetNumDevs),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_words_keep_their_spaces() {
        assert_eq!(
            words("open  \"a b.wav\" alias x"),
            vec!["open", "a b.wav", "alias", "x"]
        );
        assert_eq!(words("  "), Vec::<String>::new());
        assert_eq!(words("x \"\""), vec!["x", ""]);
    }

    fn parse(verb: &str, rest: &str) -> Result<Command, u32> {
        let r: Vec<String> = rest.split_whitespace().map(str::to_string).collect();
        parse_rest(verb, &r).map(|p| p.cmd)
    }

    #[test]
    fn command_strings_parse_to_commands() {
        assert_eq!(
            parse("play", "from 100 to 2000 notify"),
            Ok(Command::Play {
                from: Some(100),
                to: Some(2000)
            })
        );
        assert_eq!(parse("play", "from x"), Err(MCIERR_BAD_INTEGER));
        assert_eq!(parse("play", "to"), Err(MCIERR_MISSING_PARAMETER));
        assert_eq!(parse("play", "fast"), Err(MCIERR_UNRECOGNIZED_KEYWORD));
        assert_eq!(parse("seek", "to start"), Ok(Command::Seek(SeekTo::Start)));
        assert_eq!(parse("seek", "to 5"), Ok(Command::Seek(SeekTo::At(5))));
        assert_eq!(parse("seek", "wait"), Err(MCIERR_MISSING_PARAMETER));
        assert_eq!(
            parse("status", "number of tracks"),
            Ok(Command::Status {
                item: MCI_STATUS_NUMBER_OF_TRACKS,
                track: None
            })
        );
        assert_eq!(
            parse("status", "length track 1"),
            Ok(Command::Status {
                item: MCI_STATUS_LENGTH,
                track: Some(1)
            })
        );
        assert_eq!(parse("status", "notify"), Err(MCIERR_MISSING_PARAMETER));
        assert_eq!(
            parse("set", "time format milliseconds"),
            Ok(Command::SetTimeFormat(0))
        );
        assert_eq!(
            parse("set", "time format song pointer"),
            Ok(Command::SetTimeFormat(0x4001))
        );
        assert_eq!(
            parse("set", "time format fortnights"),
            Err(MCIERR_BAD_TIME_FORMAT)
        );
        assert_eq!(
            parse("capability", "can play"),
            Ok(Command::Capability(MCI_GETDEVCAPS_CAN_PLAY))
        );
        assert_eq!(parse("bogus", ""), Err(MCIERR_UNRECOGNIZED_COMMAND));
    }

    #[test]
    fn replies_as_strings_and_dwords() {
        assert_eq!(Reply::Mode(MCI_MODE_PLAY).text(), "playing");
        assert_eq!(Reply::Mode(MCI_MODE_STOP).text(), "stopped");
        assert_eq!(Reply::Mode(MCI_MODE_PAUSE).dword(), 529);
        assert_eq!(Reply::TimeFormat(0).text(), "milliseconds");
        assert_eq!(Reply::Bool(true).text(), "true");
        assert_eq!(Reply::Int(1234).text(), "1234");
        assert_eq!(Reply::DevType(MCI_DEVTYPE_SEQUENCER).text(), "sequencer");
    }

    #[test]
    fn extensions_name_device_types() {
        assert_eq!(type_of_extension("C:\\MUSIC\\A.MID"), Some("sequencer"));
        assert_eq!(type_of_extension("x.rmi"), Some("sequencer"));
        assert_eq!(type_of_extension("boom.wav"), Some("waveaudio"));
        assert_eq!(type_of_extension("track01.cda"), Some("cdaudio"));
        assert_eq!(type_of_extension("readme"), None);
        assert_eq!(not_open("cdaudio").unwrap(), MCIERR_CANNOT_LOAD_DRIVER);
        assert_eq!(not_open("videodisc").unwrap(), MCIERR_DEVICE_NOT_INSTALLED);
        assert_eq!(not_open("music").unwrap(), MCIERR_INVALID_DEVICE_NAME);
        assert!(not_open("song.mid").is_err());
    }

    #[test]
    fn every_returned_code_has_its_text() {
        for c in [
            MCIERR_INVALID_DEVICE_ID,
            MCIERR_UNRECOGNIZED_KEYWORD,
            MCIERR_UNRECOGNIZED_COMMAND,
            MCIERR_INVALID_DEVICE_NAME,
            MCIERR_CANNOT_LOAD_DRIVER,
            MCIERR_MISSING_COMMAND_STRING,
            MCIERR_PARAM_OVERFLOW,
            MCIERR_BAD_INTEGER,
            MCIERR_MISSING_PARAMETER,
            MCIERR_UNSUPPORTED_FUNCTION,
            MCIERR_FILE_NOT_FOUND,
            MCIERR_EXTENSION_NOT_FOUND,
            MCIERR_OUTOFRANGE,
            MCIERR_FLAGS_NOT_COMPATIBLE,
            MCIERR_DUPLICATE_ALIAS,
            MCIERR_MISSING_DEVICE_NAME,
            MCIERR_BAD_TIME_FORMAT,
            MCIERR_INVALID_FILE,
            MCIERR_NULL_PARAMETER_BLOCK,
            MCIERR_DEVICE_NOT_INSTALLED,
        ] {
            assert!(error_text(c).is_some(), "{c}");
        }
        assert_eq!(error_text(MCIERR_BASE + 200), None);
    }
}
