//! Standard MIDI Files (SMF, "MThd"/"MTrk"; also inside a RIFF "RMID" file) and
//! their timing.
//!
//! [`parse`] reads the chunks as the SMF 1.0 specification lays them out: a header
//! (format 0, 1 or 2, the track count and the division: ticks per quarter note, or
//! SMPTE frames per second and ticks per frame), then tracks of events, each after
//! a variable-length delta time. Channel messages may use running status (the
//! status byte of the previous channel message is reused when a data byte comes
//! first); system-exclusive (`F0`, `F7` escapes) and meta events (`FF`) cancel it.
//! Chunks of other types are skipped, as the specification asks. A track ends at
//! its end-of-track meta event (anything after it is ignored) or at the end of its
//! chunk.
//!
//! [`Song::new`] turns the tracks into one list of events in microseconds: format
//! 0 and 1 tracks play together (merged by tick; at equal ticks the lower track
//! first, so a conductor track's tempo change applies to notes at its tick),
//! format 2 tracks one after the other. Times come from the tempo map (set-tempo
//! meta events, 500000 µs per quarter note until the first), each event's time
//! computed from the last tempo change's exact time, so rounding never accumulates.

use std::fmt;

/// Why a file is not a Standard MIDI File this reader plays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SmfError {
    /// Not "MThd" (nor a RIFF RMID file with one in its data chunk).
    NotMidi,
    /// The header chunk is shorter than its six bytes.
    BadHeader,
    /// A format other than 0, 1 or 2.
    BadFormat(u16),
    /// A division of 0 ticks per quarter note, or an SMPTE rate other than
    /// 24, 25, 29 (30 drop-frame) and 30 frames per second.
    BadDivision(u16),
    /// A track ends inside an event.
    Truncated { track: usize },
    /// A data byte with no running status, or a status byte that has no place in
    /// a file (`F1`..`F6`, `F8`..`FE`).
    BadStatus {
        track: usize,
        offset: usize,
        byte: u8,
    },
    /// A variable-length quantity longer than four bytes.
    BadLength { track: usize, offset: usize },
}

impl fmt::Display for SmfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SmfError::NotMidi => write!(f, "not a Standard MIDI File (no MThd chunk)"),
            SmfError::BadHeader => write!(f, "MThd chunk shorter than 6 bytes"),
            SmfError::BadFormat(x) => write!(f, "SMF format {x} (only 0, 1 and 2 exist)"),
            SmfError::BadDivision(d) => write!(f, "division {d:#06x} is not a valid time base"),
            SmfError::Truncated { track } => write!(f, "track {track} ends inside an event"),
            SmfError::BadStatus {
                track,
                offset,
                byte,
            } => write!(
                f,
                "track {track}: byte {byte:#04x} at offset {offset} is not a valid status"
            ),
            SmfError::BadLength { track, offset } => write!(
                f,
                "track {track}: variable-length number at offset {offset} is over 4 bytes"
            ),
        }
    }
}

impl std::error::Error for SmfError {}

/// The header's time base.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Division {
    /// Ticks per quarter note; the tempo map gives a quarter note's length.
    Ppqn(u16),
    /// SMPTE time: frames per second (24, 25, 29 = 30 drop-frame, 30) and ticks per
    /// frame; independent of tempo.
    Smpte { fps: u8, ticks_per_frame: u8 },
}

/// One event of a track.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A channel message: status byte and data bytes (`data2` is 0 for program
    /// change and channel pressure, which have one).
    Channel { status: u8, data1: u8, data2: u8 },
    /// A system-exclusive message as it goes to the synthesizer: `F0` and the
    /// event's bytes for an `F0` event, the bytes alone for an `F7` escape.
    SysEx(Vec<u8>),
    /// A meta event: its type byte and data.
    Meta { kind: u8, data: Vec<u8> },
}

/// An event at an absolute tick of its track.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrackEvent {
    pub tick: u64,
    pub event: Event,
}

/// A parsed file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Smf {
    pub format: u16,
    pub division: Division,
    /// Each track's events, and the tick at which it ends (its end-of-track event,
    /// or its last event when that is missing).
    pub tracks: Vec<Track>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Track {
    pub events: Vec<TrackEvent>,
    pub end_tick: u64,
}

const META_END_OF_TRACK: u8 = 0x2F;
const META_TEMPO: u8 = 0x51;

fn be16(b: &[u8]) -> u16 {
    u16::from_be_bytes([b[0], b[1]])
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

/// The SMF inside a RIFF RMID file's "data" chunk, or the bytes themselves.
fn unwrap_rmid(b: &[u8]) -> &[u8] {
    if b.len() < 12 || &b[0..4] != b"RIFF" || &b[8..12] != b"RMID" {
        return b;
    }
    let end = (8 + be32_le(&b[4..8]) as usize).min(b.len());
    let mut i = 12;
    while i + 8 <= end {
        let len = be32_le(&b[i + 4..i + 8]) as usize;
        let body = i + 8;
        if &b[i..i + 4] == b"data" {
            return &b[body..body.saturating_add(len).min(end)];
        }
        i = body.saturating_add(len).saturating_add(len & 1);
    }
    b
}

fn be32_le(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// Parses a Standard MIDI File (or an RMID file holding one).
pub fn parse(bytes: &[u8]) -> Result<Smf, SmfError> {
    let b = unwrap_rmid(bytes);
    if b.len() < 8 || &b[0..4] != b"MThd" {
        return Err(SmfError::NotMidi);
    }
    let hlen = be32(&b[4..8]) as usize;
    if hlen < 6 || b.len() < 8 + 6 {
        return Err(SmfError::BadHeader);
    }
    let format = be16(&b[8..10]);
    let ntracks = be16(&b[10..12]) as usize;
    let div = be16(&b[12..14]);
    if format > 2 {
        return Err(SmfError::BadFormat(format));
    }
    let division = if div & 0x8000 != 0 {
        let fps = (-((div >> 8) as u8 as i8)) as u8;
        if ![24, 25, 29, 30].contains(&fps) || div & 0xFF == 0 {
            return Err(SmfError::BadDivision(div));
        }
        Division::Smpte {
            fps,
            ticks_per_frame: div as u8,
        }
    } else if div == 0 {
        return Err(SmfError::BadDivision(div));
    } else {
        Division::Ppqn(div)
    };
    let mut tracks = Vec::with_capacity(ntracks.min(256));
    let mut i = (8usize).saturating_add(hlen);
    while tracks.len() < ntracks && i + 8 <= b.len() {
        let len = be32(&b[i + 4..i + 8]) as usize;
        let body = i + 8;
        let end = body.saturating_add(len).min(b.len());
        if &b[i..i + 4] == b"MTrk" {
            tracks.push(parse_track(&b[body..end], tracks.len())?);
        }
        i = body.saturating_add(len);
    }
    Ok(Smf {
        format,
        division,
        tracks,
    })
}

/// A variable-length quantity at `*i`.
fn vlq(b: &[u8], i: &mut usize, track: usize) -> Result<u32, SmfError> {
    let start = *i;
    let mut v: u32 = 0;
    for _ in 0..4 {
        let Some(&c) = b.get(*i) else {
            return Err(SmfError::Truncated { track });
        };
        *i += 1;
        v = (v << 7) | u32::from(c & 0x7F);
        if c & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err(SmfError::BadLength {
        track,
        offset: start,
    })
}

fn take<'a>(b: &'a [u8], i: &mut usize, n: usize, track: usize) -> Result<&'a [u8], SmfError> {
    let end = i.checked_add(n).filter(|&e| e <= b.len());
    let Some(end) = end else {
        return Err(SmfError::Truncated { track });
    };
    let s = &b[*i..end];
    *i = end;
    Ok(s)
}

fn parse_track(b: &[u8], track: usize) -> Result<Track, SmfError> {
    let mut out = Track::default();
    let mut i = 0;
    let mut tick: u64 = 0;
    let mut running: Option<u8> = None;
    while i < b.len() {
        tick += u64::from(vlq(b, &mut i, track)?);
        let at = i;
        let Some(&first) = b.get(i) else {
            return Err(SmfError::Truncated { track });
        };
        let event = match first {
            0x80..=0xEF => {
                i += 1;
                running = Some(first);
                channel(b, &mut i, first, track)?
            }
            0x00..=0x7F => match running {
                Some(s) => channel(b, &mut i, s, track)?,
                None => {
                    return Err(SmfError::BadStatus {
                        track,
                        offset: at,
                        byte: first,
                    });
                }
            },
            0xF0 | 0xF7 => {
                i += 1;
                running = None;
                let n = vlq(b, &mut i, track)? as usize;
                let data = take(b, &mut i, n, track)?;
                let mut v = Vec::with_capacity(n + 1);
                if first == 0xF0 {
                    v.push(0xF0);
                }
                v.extend_from_slice(data);
                Event::SysEx(v)
            }
            0xFF => {
                i += 1;
                running = None;
                let kind = *take(b, &mut i, 1, track)?.first().unwrap_or(&0);
                let n = vlq(b, &mut i, track)? as usize;
                let data = take(b, &mut i, n, track)?.to_vec();
                if kind == META_END_OF_TRACK {
                    out.end_tick = tick;
                    return Ok(out);
                }
                Event::Meta { kind, data }
            }
            _ => {
                return Err(SmfError::BadStatus {
                    track,
                    offset: at,
                    byte: first,
                });
            }
        };
        out.events.push(TrackEvent { tick, event });
    }
    out.end_tick = tick;
    Ok(out)
}

fn channel(b: &[u8], i: &mut usize, status: u8, track: usize) -> Result<Event, SmfError> {
    let n = match status & 0xF0 {
        0xC0 | 0xD0 => 1,
        _ => 2,
    };
    let d = take(b, i, n, track)?;
    if d.iter().any(|&x| x & 0x80 != 0) {
        return Err(SmfError::BadStatus {
            track,
            offset: *i - n,
            byte: d[0],
        });
    }
    Ok(Event::Channel {
        status,
        data1: d[0],
        data2: if n == 2 { d[1] } else { 0 },
    })
}

/// What a song sends to the synthesizer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    /// A channel message packed as midiOutShortMsg takes it: status in the low
    /// byte, then the data bytes.
    Short(u32),
    SysEx(Vec<u8>),
}

impl Msg {
    /// Whether it starts a note (a note-on with a velocity above 0).
    pub fn is_note_on(&self) -> bool {
        matches!(self, Msg::Short(m) if m & 0xF0 == 0x90 && (m >> 16) & 0x7F != 0)
    }
}

/// An event at a time from the start of the song.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimedMsg {
    pub us: u64,
    pub msg: Msg,
}

/// A file's events in playing order, timed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Song {
    pub format: u16,
    pub division: Division,
    pub tracks: usize,
    pub events: Vec<TimedMsg>,
    /// When the last track ends (its end-of-track event).
    pub length_us: u64,
    /// The tempo at the start (µs per quarter note; 500000 without a set-tempo
    /// event at tick 0).
    pub initial_tempo: u32,
}

/// The tempo map: turns ticks into microseconds.
struct TempoMap {
    division: Division,
    tempo: u32,
    base_tick: u64,
    base_us: u64,
}

impl TempoMap {
    fn us(&self, tick: u64) -> u64 {
        let dt = u128::from(tick - self.base_tick);
        let add = match self.division {
            Division::Ppqn(ppqn) => dt * u128::from(self.tempo) / u128::from(ppqn),
            // 29 means 30 drop-frame: 29.97 frames per second.
            Division::Smpte {
                fps: 29,
                ticks_per_frame,
            } => dt * 1_001_000_000 / (30_000 * u128::from(ticks_per_frame)),
            Division::Smpte {
                fps,
                ticks_per_frame,
            } => dt * 1_000_000 / (u128::from(fps) * u128::from(ticks_per_frame)),
        };
        self.base_us + add as u64
    }

    fn set_tempo(&mut self, tick: u64, tempo: u32) {
        self.base_us = self.us(tick);
        self.base_tick = tick;
        self.tempo = tempo.max(1);
    }
}

impl Song {
    /// Times a parsed file's events (see the module comment).
    pub fn new(smf: &Smf) -> Song {
        // (tick, track, event) in playing order.
        let mut all: Vec<(u64, usize, &Event)> = Vec::new();
        let mut ends = Vec::with_capacity(smf.tracks.len());
        let mut offset = 0u64;
        for (n, t) in smf.tracks.iter().enumerate() {
            for e in &t.events {
                all.push((offset + e.tick, n, &e.event));
            }
            ends.push(offset + t.end_tick);
            if smf.format == 2 {
                offset += t.end_tick;
            }
        }
        // Stable: at equal ticks, lower tracks first and each track in its order.
        all.sort_by_key(|&(tick, n, _)| (tick, n));
        let mut map = TempoMap {
            division: smf.division,
            tempo: 500_000,
            base_tick: 0,
            base_us: 0,
        };
        let mut initial_tempo = 500_000;
        let mut events = Vec::with_capacity(all.len());
        // Every event lies at or before its track's end, so at or before this.
        let end_tick = ends.iter().copied().max().unwrap_or(0);
        for (tick, _, e) in all {
            match e {
                Event::Channel {
                    status,
                    data1,
                    data2,
                } => events.push(TimedMsg {
                    us: map.us(tick),
                    msg: Msg::Short(
                        u32::from(*status) | u32::from(*data1) << 8 | u32::from(*data2) << 16,
                    ),
                }),
                Event::SysEx(v) => events.push(TimedMsg {
                    us: map.us(tick),
                    msg: Msg::SysEx(v.clone()),
                }),
                Event::Meta { kind, data } if *kind == META_TEMPO && data.len() >= 3 => {
                    let tempo =
                        u32::from(data[0]) << 16 | u32::from(data[1]) << 8 | u32::from(data[2]);
                    if tick == 0 {
                        initial_tempo = tempo;
                    }
                    map.set_tempo(tick, tempo);
                }
                Event::Meta { .. } => {}
            }
        }
        Song {
            format: smf.format,
            division: smf.division,
            tracks: smf.tracks.len(),
            events,
            length_us: map.us(end_tick.max(map.base_tick)),
            initial_tempo,
        }
    }

    /// The index of the first event at or after `us`.
    pub fn index_at(&self, us: u64) -> usize {
        self.events.partition_point(|e| e.us < us)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A variable-length quantity, written the way the specification shows.
    fn vl(mut v: u32) -> Vec<u8> {
        let mut out = vec![(v & 0x7F) as u8];
        v >>= 7;
        while v > 0 {
            out.insert(0, 0x80 | (v & 0x7F) as u8);
            v >>= 7;
        }
        out
    }

    fn chunk(id: &[u8; 4], body: &[u8]) -> Vec<u8> {
        let mut v = id.to_vec();
        v.extend_from_slice(&(body.len() as u32).to_be_bytes());
        v.extend_from_slice(body);
        v
    }

    fn file(format: u16, division: u16, tracks: &[Vec<u8>]) -> Vec<u8> {
        let mut h = format.to_be_bytes().to_vec();
        h.extend_from_slice(&(tracks.len() as u16).to_be_bytes());
        h.extend_from_slice(&division.to_be_bytes());
        let mut v = chunk(b"MThd", &h);
        for t in tracks {
            v.extend(chunk(b"MTrk", t));
        }
        v
    }

    #[test]
    fn variable_length_numbers_match_the_specification_table() {
        // The SMF 1.0 specification's examples.
        for (v, bytes) in [
            (0u32, vec![0x00]),
            (0x40, vec![0x40]),
            (0x7F, vec![0x7F]),
            (0x80, vec![0x81, 0x00]),
            (0x2000, vec![0xC0, 0x00]),
            (0x3FFF, vec![0xFF, 0x7F]),
            (0x4000, vec![0x81, 0x80, 0x00]),
            (0x0FFF_FFFF, vec![0xFF, 0xFF, 0xFF, 0x7F]),
        ] {
            assert_eq!(vl(v), bytes);
            let mut i = 0;
            assert_eq!(vlq(&bytes, &mut i, 0), Ok(v));
            assert_eq!(i, bytes.len());
        }
        let mut i = 0;
        assert_eq!(
            vlq(&[0x80, 0x80, 0x80, 0x80, 0x00], &mut i, 3),
            Err(SmfError::BadLength {
                track: 3,
                offset: 0
            })
        );
    }

    #[test]
    fn running_status_and_meta_events() {
        // Note on C4, then (running status) E4 and a note-off as velocity 0 after
        // 96 ticks, a text meta event, a program change, end of track.
        let mut t = vec![0x00, 0x90, 60, 100, 0x00, 64, 90];
        t.extend(vl(96));
        t.extend([60, 0]);
        t.extend([0x00, 0xFF, 0x01, 3, b'a', b'b', b'c']);
        t.extend([0x10, 0xC1, 5]);
        t.extend([0x00, 0xFF, 0x2F, 0x00]);
        // Bytes after the end of track are ignored.
        t.extend([0x00, 0x90, 1, 1]);
        let smf = parse(&file(0, 96, &[t])).unwrap();
        assert_eq!(smf.format, 0);
        assert_eq!(smf.division, Division::Ppqn(96));
        let ev: Vec<(u64, Event)> = smf.tracks[0]
            .events
            .iter()
            .map(|e| (e.tick, e.event.clone()))
            .collect();
        let ch = |status, data1, data2| Event::Channel {
            status,
            data1,
            data2,
        };
        assert_eq!(
            ev,
            vec![
                (0, ch(0x90, 60, 100)),
                (0, ch(0x90, 64, 90)),
                (96, ch(0x90, 60, 0)),
                (
                    96,
                    Event::Meta {
                        kind: 1,
                        data: b"abc".to_vec()
                    }
                ),
                (112, ch(0xC1, 5, 0)),
            ]
        );
        assert_eq!(smf.tracks[0].end_tick, 112);
    }

    #[test]
    fn sysex_cancels_running_status() {
        let t = vec![
            0x00, 0x90, 60, 100, 0x00, 0xF0, 0x02, 0x7E, 0xF7, 0x00, 61, 100,
        ];
        let err = parse(&file(0, 96, &[t])).unwrap_err();
        assert_eq!(
            err,
            SmfError::BadStatus {
                track: 0,
                offset: 10,
                byte: 61
            }
        );
        let t = vec![0x00, 0xF0, 0x02, 0x7E, 0xF7, 0x00, 0xF7, 0x01, 0xF8];
        let smf = parse(&file(0, 96, &[t])).unwrap();
        assert_eq!(
            smf.tracks[0].events[0].event,
            Event::SysEx(vec![0xF0, 0x7E, 0xF7])
        );
        assert_eq!(smf.tracks[0].events[1].event, Event::SysEx(vec![0xF8]));
    }

    #[test]
    fn bad_files_are_refused_with_the_reason() {
        assert_eq!(parse(b"RIFF"), Err(SmfError::NotMidi));
        assert_eq!(parse(&file(3, 96, &[])), Err(SmfError::BadFormat(3)));
        assert_eq!(parse(&file(0, 0, &[])), Err(SmfError::BadDivision(0)));
        // -23 frames per second does not exist.
        assert_eq!(
            parse(&file(0, 0xE928, &[])),
            Err(SmfError::BadDivision(0xE928))
        );
        // A note cut short by the end of the chunk.
        assert_eq!(
            parse(&file(0, 96, &[vec![0x00, 0x90, 60]])),
            Err(SmfError::Truncated { track: 0 })
        );
        // A data byte first, with no running status.
        assert!(matches!(
            parse(&file(0, 96, &[vec![0x00, 60, 100]])),
            Err(SmfError::BadStatus { byte: 60, .. })
        ));
        // A system common message has no place in a file.
        assert!(matches!(
            parse(&file(0, 96, &[vec![0x00, 0xF2, 0, 0]])),
            Err(SmfError::BadStatus { byte: 0xF2, .. })
        ));
    }

    #[test]
    fn unknown_chunks_are_skipped_and_rmid_is_unwrapped() {
        let t = vec![0x00, 0x90, 60, 100, 0x00, 0xFF, 0x2F, 0x00];
        let mut f = file(0, 96, &[]);
        f[11] = 1; // one track
        f.extend(chunk(b"XFIH", &[1, 2, 3]));
        f.extend(chunk(b"MTrk", &t));
        let smf = parse(&f).unwrap();
        assert_eq!(smf.tracks.len(), 1);
        // RIFF sizes are little-endian.
        let mut riff = b"RIFF".to_vec();
        riff.extend_from_slice(&((4 + 8 + f.len()) as u32).to_le_bytes());
        riff.extend_from_slice(b"RMID");
        riff.extend_from_slice(b"data");
        riff.extend_from_slice(&(f.len() as u32).to_le_bytes());
        riff.extend_from_slice(&f);
        assert_eq!(parse(&riff).unwrap(), smf);
    }

    #[test]
    fn format_1_merges_tracks_under_the_conductor_tempo_map() {
        // Conductor: 120 bpm (500000) at 0, 60 bpm (1000000) at tick 960, end at 1920.
        let mut conductor = vec![0x00, 0xFF, 0x51, 0x03, 0x07, 0xA1, 0x20];
        conductor.extend(vl(960));
        conductor.extend([0xFF, 0x51, 0x03, 0x0F, 0x42, 0x40]);
        conductor.extend(vl(960));
        conductor.extend([0xFF, 0x2F, 0x00]);
        // Notes at 0, 480 (0.25 s), 960 (0.5 s: the tempo change), 1440 (0.5 + 0.5 s).
        let mut notes = Vec::new();
        for k in 0..4 {
            notes.extend(vl(if k == 0 { 0 } else { 480 }));
            notes.extend([0x90, 60 + k, 100]);
        }
        notes.extend(vl(240));
        notes.extend([0xFF, 0x2F, 0x00]);
        let smf = parse(&file(1, 960, &[conductor, notes])).unwrap();
        let song = Song::new(&smf);
        let times: Vec<u64> = song.events.iter().map(|e| e.us).collect();
        assert_eq!(times, vec![0, 250_000, 500_000, 1_000_000]);
        assert_eq!(song.events[1].msg, Msg::Short(0x64_3D_90));
        // Tick 1920 at 60 bpm: 0.5 s + 1 s.
        assert_eq!(song.length_us, 1_500_000);
        assert_eq!(song.initial_tempo, 500_000);
        assert_eq!(song.index_at(250_000), 1);
        assert_eq!(song.index_at(250_001), 2);
        assert_eq!(song.index_at(2_000_000), 4);
    }

    #[test]
    fn tempo_changes_do_not_accumulate_rounding() {
        // 7 ticks per quarter note at 500000 µs: a tick is 71428.57 µs.
        let mut t = Vec::new();
        for _ in 0..700 {
            t.extend([0x01, 0x90, 60, 0]);
        }
        t.extend([0x00, 0xFF, 0x2F, 0x00]);
        let song = Song::new(&parse(&file(0, 7, &[t])).unwrap());
        // Tick 700 is 100 quarter notes: exactly 50 s.
        assert_eq!(song.events[699].us, 50_000_000);
        assert_eq!(song.events[0].us, 71_428);
        assert_eq!(song.length_us, 50_000_000);
    }

    #[test]
    fn smpte_and_format_2_timing() {
        // 25 fps, 40 ticks per frame: 1 ms per tick.
        let t = vec![
            0x00, 0x90, 60, 100, 0x83, 0x60, 0x80, 60, 0, 0x00, 0xFF, 0x2F, 0x00,
        ];
        let smf = parse(&file(0, 0xE728, std::slice::from_ref(&t))).unwrap();
        assert_eq!(
            smf.division,
            Division::Smpte {
                fps: 25,
                ticks_per_frame: 40
            }
        );
        let song = Song::new(&smf);
        assert_eq!(song.events[1].us, 480_000);
        assert_eq!(song.length_us, 480_000);
        // Format 2: the second sequence starts when the first ends.
        let song = Song::new(&parse(&file(2, 0xE728, &[t.clone(), t])).unwrap());
        let times: Vec<u64> = song.events.iter().map(|e| e.us).collect();
        assert_eq!(times, vec![0, 480_000, 480_000, 960_000]);
        assert_eq!(song.length_us, 960_000);
        // 30 drop-frame is 29.97 (30000/1001) frames per second.
        let smf = parse(&file(0, 0xE301, &[vec![0x00, 0xFF, 0x2F, 0x00]])).unwrap();
        assert_eq!(
            smf.division,
            Division::Smpte {
                fps: 29,
                ticks_per_frame: 1
            }
        );
        let m = TempoMap {
            division: smf.division,
            tempo: 500_000,
            base_tick: 0,
            base_us: 0,
        };
        // 30000 frames at 30000/1001 frames per second take 1001 s.
        assert_eq!(m.us(30_000), 1_001_000_000);
    }
}
