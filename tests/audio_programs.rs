//! Guest sound programs run by the `winterp` binary with `--audio-dump`: the WAV it
//! writes (44100 Hz, 16-bit, stereo, sample 0 at guest time 0) is compared with
//! samples generated here from the formulas the programs document, and the
//! programs' stdout (API results) with `tests/guest/expected/`.
//!
//! - `dsound_play`: DirectSound one-shot, streaming through wrapped Locks,
//!   SetFrequency/SetVolume/SetPan, an 8-bit resampled buffer, notifications, a
//!   duplicated buffer.
//! - `waveout_stream`: waveOut blocks through CALLBACK_FUNCTION, a looped header
//!   at half volume through CALLBACK_EVENT, a paused and restarted header, window
//!   and thread callbacks.
//! - `playsnd`: PlaySound of a 44100 Hz stereo file (SND_SYNC), a 22050 Hz 8-bit
//!   sine from memory (SND_ASYNC, purged after 100 ms), a looped 10 ms sound
//!   stopped after 50 ms and a four-frame WAVE resource.
//! - `midi_play`: MCI waveaudio (bit-exact), midiOut notes and SysEx and the MCI
//!   sequencer through winmm's General MIDI synthesizer: sound where notes play,
//!   exact silence before them and after the GM resets; the same program without a
//!   SoundFont finds no MIDI device.
//!
//! Exactness: the 44100 Hz 16-bit paths must match bit for bit (stereo passes
//! through; mono is duplicated); with a volume or pan the mixer's gain
//! `10^(-attenuation/2000)` may round either way (1 LSB); the 8-bit 22050 Hz sine
//! is resampled, so it is compared with the ideal sine within 400 LSB (8-bit
//! quantisation is 128, interpolation error of a 50-sample-period sine is small).
//! Timing: each part starts when the guest's clock reaches a documented time and
//! its first frame must land at `round(t * 44100)` for that `t` (plus at most two
//! frames: the program spins on the counter and calls Play a few µs later).

mod common;

use common::{Run, expected, winterp};
use std::fs;

const RATE: f64 = 44100.0;

/// The program's path as an argument.
fn exe(name: &str) -> String {
    common::exe(name).display().to_string()
}

/// Runs `name` headless and deterministic with `--audio-dump`; checks its stdout
/// and exit status; returns the WAV's frames as (left, right).
fn run_with_audio(name: &str) -> (Vec<(i16, i16)>, Vec<u8>) {
    run_with_audio_frames(name, "180")
}

/// [`run_with_audio`] for `frames` refresh ticks.
fn run_with_audio_frames(name: &str, frames: &str) -> (Vec<(i16, i16)>, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let wav = dir.path().join("out.wav");
    let args: Vec<String> = [
        "--headless",
        "--deterministic",
        "--frames",
        frames,
        "--audio-dump",
        wav.to_str().unwrap(),
        &exe(name),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let r = winterp(&args);
    check_stdout(name, &r);
    let bytes = fs::read(&wav).unwrap_or_else(|e| panic!("{name}: no WAV written: {e}"));
    (parse_wav(&bytes), bytes)
}

fn check_stdout(name: &str, r: &Run) {
    let want = fs::read_to_string(expected(&format!("{name}.stdout")))
        .unwrap()
        .replace("\r\n", "\n");
    assert!(
        r.stdout == want && r.code == Some(0),
        "{name}: exit {:?}\n--- expected\n{want}\n--- got\n{}\n--- stderr\n{}",
        r.code,
        r.stdout,
        r.stderr
    );
}

/// A canonical PCM WAV's frames; asserts the format is 44100 Hz 16-bit stereo.
fn parse_wav(b: &[u8]) -> Vec<(i16, i16)> {
    assert!(
        b.len() >= 12 && &b[0..4] == b"RIFF" && &b[8..12] == b"WAVE",
        "not a WAV"
    );
    let u16_at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
    let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    let mut i = 12;
    let mut fmt_ok = false;
    while i + 8 <= b.len() {
        let len = u32_at(i + 4) as usize;
        let body = i + 8;
        match &b[i..i + 4] {
            b"fmt " => {
                assert_eq!(u16_at(body), 1, "PCM");
                assert_eq!(u16_at(body + 2), 2, "channels");
                assert_eq!(u32_at(body + 4), 44100, "rate");
                assert_eq!(u16_at(body + 14), 16, "bits");
                fmt_ok = true;
            }
            b"data" => {
                assert!(fmt_ok, "data before fmt");
                let end = (body + len).min(b.len());
                return b[body..end]
                    .chunks_exact(4)
                    .map(|c| {
                        (
                            i16::from_le_bytes([c[0], c[1]]),
                            i16::from_le_bytes([c[2], c[3]]),
                        )
                    })
                    .collect();
            }
            _ => {}
        }
        i = body + len + (len & 1);
    }
    panic!("WAV without a data chunk");
}

/// The programs' LCG: x = x * 1103515245 + 12345 (mod 2^32), sample (short)(x >> 16).
fn lcg(seed: u32, n: usize) -> Vec<i16> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (x >> 16) as u16 as i16
        })
        .collect()
}

/// The first frame at or after `from` that is not silent.
fn first_sound(w: &[(i16, i16)], from: usize) -> usize {
    (from..w.len())
        .find(|&k| w[k] != (0, 0))
        .unwrap_or_else(|| panic!("no sound after frame {from}"))
}

/// The frame a sound started at guest time `ms` lands on.
fn frame_at_ms(ms: f64) -> usize {
    (ms / 1000.0 * RATE).round() as usize
}

fn assert_starts_near(what: &str, got: usize, ms: f64) {
    let want = frame_at_ms(ms);
    assert!(
        got >= want && got <= want + 2,
        "{what}: first frame at {got}, expected {want}..={} (guest time {ms} ms)",
        want + 2
    );
}

fn gain(centibels: i32) -> f64 {
    10f64.powf(-f64::from(centibels) / 2000.0)
}

fn assert_silent(w: &[(i16, i16)], from: usize, to: usize, what: &str) {
    if let Some(k) = (from..to.min(w.len())).find(|&k| w[k] != (0, 0)) {
        panic!("{what}: frame {k} is {:?}, expected silence", w[k]);
    }
}

#[test]
fn dsound_play_audio_matches_its_formulas_on_the_guest_clock() {
    let (w, bytes) = run_with_audio("dsound_play");

    // 1: one-shot at 200 ms, 11025 stereo frames of LCG(1), exact.
    let k1 = first_sound(&w, 0);
    assert_starts_near("one-shot", k1, 200.0);
    let g = lcg(1, 2 * 11025);
    for j in 0..11025 {
        assert_eq!(w[k1 + j], (g[2 * j], g[2 * j + 1]), "one-shot frame {j}");
    }
    assert_silent(&w, k1 + 11025, frame_at_ms(600.0), "after the one-shot");

    // 2: streamed through wrapped Locks from 600 ms: 22050 frames of LCG(2), exact,
    // then the zeros the program wrote.
    let k2 = first_sound(&w, k1 + 11025);
    assert_starts_near("stream", k2, 600.0);
    let g = lcg(2, 2 * 22050);
    for j in 0..22050 {
        assert_eq!(w[k2 + j], (g[2 * j], g[2 * j + 1]), "stream frame {j}");
    }
    assert_silent(&w, k2 + 22050, frame_at_ms(1400.0), "after the stream");

    // 3: 16-bit mono 22050 Hz buffer played at 44100 Hz (SetFrequency): 4410 output
    // frames, volume -602 and pan 602: left -12.04 dB, right -6.02 dB.
    let k3 = first_sound(&w, k2 + 22050);
    assert_starts_near("frequency/volume/pan", k3, 1400.0);
    let g = lcg(3, 4410);
    let (gl, gr) = (gain(1204), gain(602));
    for j in 0..4410 {
        let (l, r) = w[k3 + j];
        let (el, er) = (f64::from(g[j]) * gl, f64::from(g[j]) * gr);
        assert!(
            (f64::from(l) - el).abs() <= 1.0 && (f64::from(r) - er).abs() <= 1.0,
            "frame {j}: got ({l}, {r}), expected ({el:.1}, {er:.1})"
        );
    }
    assert_silent(
        &w,
        k3 + 4410,
        frame_at_ms(1600.0),
        "after the controlled buffer",
    );

    // 4: 8-bit mono 22050 Hz sine, resampled to 44100: 100 ms at 1600 ms.
    let want = frame_at_ms(1600.0);
    let sine = |j: usize| 25600.0 * (2.0 * std::f64::consts::PI * 441.0 * j as f64 / RATE).sin();
    let err_at = |start: usize| {
        (2..4400)
            .map(|j| {
                let (l, r) = w[start + j];
                (f64::from(l) - sine(j))
                    .abs()
                    .max((f64::from(r) - sine(j)).abs())
            })
            .fold(0.0, f64::max)
    };
    let (start, err) = (want..=want + 2)
        .map(|s| (s, err_at(s)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap();
    assert!(
        err <= 400.0,
        "resampled sine: best start {start} still {err:.0} LSB off"
    );
    assert_silent(&w, start + 4420, frame_at_ms(2150.0), "after the sine");

    // 6: a duplicate of the first buffer plays its samples again at 2150 ms.
    let k6 = first_sound(&w, start + 4420);
    assert_starts_near("duplicate", k6, 2150.0);
    let g = lcg(1, 2 * 11025);
    for j in 0..11025 {
        assert_eq!(w[k6 + j], (g[2 * j], g[2 * j + 1]), "duplicate frame {j}");
    }
    assert_silent(&w, k6 + 11025, w.len(), "after the duplicate");

    // A second run writes the same file.
    let (_, again) = run_with_audio("dsound_play");
    assert!(
        bytes == again,
        "two deterministic runs wrote different WAVs"
    );
}

#[test]
fn waveout_stream_audio_matches_its_formulas_on_the_guest_clock() {
    let (w, _) = run_with_audio("waveout_stream");

    // 1: 44100 stereo frames of LCG(4) from 300 ms, through ten headers, exact.
    let k1 = first_sound(&w, 0);
    assert_starts_near("waveOut stream", k1, 300.0);
    let g = lcg(4, 2 * 44100);
    for j in 0..44100 {
        assert_eq!(w[k1 + j], (g[2 * j], g[2 * j + 1]), "stream frame {j}");
    }
    assert_silent(&w, k1 + 44100, frame_at_ms(1500.0), "after the stream");

    // 2: a 2205-frame mono header looped 3 times from 1500 ms at half volume on both
    // channels (waveOutSetVolume 0x80008000 = -6.02 dB).
    let k2 = first_sound(&w, k1 + 44100);
    assert_starts_near("looped header", k2, 1500.0);
    let g = lcg(5, 2205);
    let h = gain(602);
    for j in 0..3 * 2205 {
        let e = f64::from(g[j % 2205]) * h;
        let (l, r) = w[k2 + j];
        assert!(
            (f64::from(l) - e).abs() <= 1.0 && (f64::from(r) - e).abs() <= 1.0,
            "loop frame {j}: got ({l}, {r}), expected {e:.1}"
        );
    }
    assert_silent(&w, k2 + 3 * 2205, frame_at_ms(1800.0), "after the loop");

    // 4: 4410 stereo frames of LCG(6) written at 1800 ms, paused at 1825 ms (after
    // 1102 whole frames: 25 ms is 1102.5), restarted at 1900 ms, exact either side.
    let k4 = first_sound(&w, k2 + 3 * 2205);
    assert_starts_near("paused header", k4, 1800.0);
    let g = lcg(6, 2 * 4410);
    let n1 = (0..4410)
        .take_while(|&j| w[k4 + j] == (g[2 * j], g[2 * j + 1]))
        .count();
    assert!(
        (1102..=1104).contains(&n1),
        "{n1} frames played before the pause at 1825 ms, expected 1102..=1104"
    );
    let resume = frame_at_ms(1900.0);
    assert_silent(&w, k4 + n1, resume - 1, "while paused");
    let k5 = first_sound(&w, k4 + n1);
    assert!(
        k5 + 1 >= resume && k5 <= resume + 2,
        "restart: the rest starts at frame {k5}, expected about {resume}"
    );
    for j in n1..4410 {
        assert_eq!(
            w[k5 + j - n1],
            (g[2 * j], g[2 * j + 1]),
            "frame {j} after the restart"
        );
    }
    assert_silent(&w, k5 + 4410 - n1, w.len(), "after the paused header");
}

/// A console program's dump: it runs until it exits (no `--frames`), so the
/// deterministic run drains at its start and end only.
fn run_console_with_audio(name: &str) -> Vec<(i16, i16)> {
    let dir = tempfile::tempdir().unwrap();
    let wav = dir.path().join("out.wav");
    let args: Vec<String> = [
        "--headless",
        "--deterministic",
        "--audio-dump",
        wav.to_str().unwrap(),
        &exe(name),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let r = winterp(&args);
    check_stdout(name, &r);
    let bytes = fs::read(&wav).unwrap_or_else(|e| panic!("{name}: no WAV written: {e}"));
    parse_wav(&bytes)
}

#[test]
fn playsound_plays_its_sounds_on_the_guest_clock() {
    let w = run_console_with_audio("playsnd");

    // 1: the file, 11025 frames of LCG(7), 44100 Hz 16-bit stereo: exact.
    let k1 = first_sound(&w, 0);
    let g = lcg(7, 2 * 11025);
    for j in 0..11025 {
        assert_eq!(w[k1 + j], (g[2 * j], g[2 * j + 1]), "file frame {j}");
    }

    // 2: SND_SYNC returned when the file ended, so the sine from memory starts
    // right after it (the program only prints a line in between). 22050 Hz 8-bit
    // mono, 128 + round(100 sin): resampled to 44100 Hz, amplitude 100 << 8.
    let k2 = first_sound(&w, k1 + 11025);
    assert!(
        k2 - (k1 + 11025) < 50,
        "the memory sound starts {} frames after the file ended",
        k2 - (k1 + 11025)
    );
    let sine = |j: usize| 25600.0 * (2.0 * std::f64::consts::PI * 441.0 * j as f64 / RATE).sin();
    let err_at = |start: usize| {
        (2..4400)
            .map(|j| {
                let (l, r) = w[start + j];
                (f64::from(l) - sine(j))
                    .abs()
                    .max((f64::from(r) - sine(j)).abs())
            })
            .fold(0.0, f64::max)
    };
    // Its first sample is 128 (silence), so the first sound is a frame later.
    let (start, err) = (k2.saturating_sub(3)..=k2)
        .map(|s| (s, err_at(s)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap();
    assert!(
        err <= 400.0,
        "resampled sine: best start {start} still {err:.0} LSB off"
    );

    // 3: purged after Sleep(100); the looped 441 frames of LCG(8) (mono, so the
    // same on both channels) follow at once and repeat for 50 ms (2205 frames).
    let g = lcg(8, 441);
    let k3 = (start + 4400..w.len() - 441)
        .find(|&k| (0..441).all(|j| w[k + j] == (g[j], g[j])))
        .expect("the looped sound is in the dump");
    assert!(
        (4410..4410 + 50).contains(&(k3 - start)),
        "the sine played {} frames, expected 100 ms (4410)",
        k3 - start
    );
    let n = (0..w.len() - k3)
        .take_while(|&j| w[k3 + j] == (g[j % 441], g[j % 441]))
        .count();
    assert!(
        (2205..2205 + 50).contains(&n),
        "the loop played {n} frames, expected 50 ms (2205)"
    );

    // 4: after it, silence and then the four frames of the WAVE resource.
    let k4 = first_sound(&w, k3 + n);
    for (j, v) in [1000, 2000, 3000, 4000].into_iter().enumerate() {
        assert_eq!(w[k4 + j], (v, v), "resource frame {j}");
    }
    assert_silent(&w, k4 + 4, w.len(), "after the resource");
}

/// Lines of the programs' stdout that measure real time in OS-thread mode (where a
/// loaded host may run a thread late); the deterministic runs check them exactly.
const TIMING_LINES: &[&str] = &[
    "one-shot at 130 ms",
    "FROMWRITECURSOR",
    "notifications at",
    "position at 50 ms",
    "all blocks done by",
    "looped header done",
    "position while paused",
    "wave notify",
    "position at 100 ms",
    "sequencer notify",
    "MCI_STATUS position after",
];

#[test]
fn sound_programs_behave_alike_with_os_threads() {
    let keep = |t: &str| {
        t.lines()
            .filter(|l| !TIMING_LINES.iter().any(|p| l.starts_with(p)))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut names = vec!["dsound_play", "waveout_stream"];
    if have_soundfont() {
        names.push("midi_play");
    }
    for name in names {
        let r = winterp(&["--headless".to_string(), exe(name)]);
        let want = fs::read_to_string(expected(&format!("{name}.stdout")))
            .unwrap()
            .replace("\r\n", "\n");
        assert!(
            keep(&r.stdout) == keep(&want) && r.code == Some(0),
            "{name} (OS threads): exit {:?}\n--- expected\n{want}\n--- got\n{}\n--- stderr\n{}",
            r.code,
            r.stdout,
            r.stderr
        );
    }
}

/// Whether the host has a GM SoundFont winmm's synthesizer would find (as
/// winterp-midi looks: `$WINTERP_SOUNDFONT`, else Debian's paths). Without one the
/// MIDI test skips with a notice, or fails where the corpus is required (CI, whose
/// `scripts/setup.sh` installs `timgm6mb-soundfont`).
fn have_soundfont() -> bool {
    let found = match std::env::var_os("WINTERP_SOUNDFONT") {
        Some(p) if !p.is_empty() => std::path::Path::new(&p).is_file(),
        _ => [
            "/usr/share/sounds/sf2/default-GM.sf2",
            "/usr/share/sounds/sf2/FluidR3_GM.sf2",
            "/usr/share/sounds/sf2/TimGM6mb.sf2",
        ]
        .iter()
        .any(|p| std::path::Path::new(p).is_file()),
    };
    if !found {
        assert!(
            std::env::var_os("WINTERP_REQUIRE_CORPUS").is_none(),
            "no General MIDI SoundFont: run scripts/setup.sh (timgm6mb-soundfont)"
        );
        eprintln!("skipped: no General MIDI SoundFont (run scripts/setup.sh)");
    }
    found
}

/// The largest absolute sample of either channel in frames `from..to`.
fn peak(w: &[(i16, i16)], from: usize, to: usize) -> i32 {
    w[from..to.min(w.len())]
        .iter()
        .map(|&(l, r)| i32::from(l).abs().max(i32::from(r).abs()))
        .max()
        .unwrap_or(0)
}

#[test]
fn midi_play_synthesizes_notes_where_they_play_and_nothing_elsewhere() {
    if !have_soundfont() {
        return;
    }
    let (w, bytes) = run_with_audio_frames("midi_play", "240");

    // 1: the MCI waveaudio device plays test.wav at 300 ms, bit for bit.
    assert_silent(&w, 0, frame_at_ms(300.0), "before the wave");
    let k1 = first_sound(&w, 0);
    assert_starts_near("MCI waveaudio", k1, 300.0);
    let g = lcg(7, 2 * 4410);
    for j in 0..4410 {
        assert_eq!(w[k1 + j], (g[2 * j], g[2 * j + 1]), "wave frame {j}");
    }
    assert_silent(&w, k1 + 4410, frame_at_ms(600.0), "after the wave");

    // 2: middle C from 600 to 900 ms. The synthesizer renders in blocks of 64
    // frames, so a note starts within one block of its frame (and its attack).
    let k2 = first_sound(&w, frame_at_ms(600.0));
    assert!(
        k2 <= frame_at_ms(605.0),
        "the note at 600 ms first sounds at frame {k2}"
    );
    let p = peak(&w, frame_at_ms(600.0), frame_at_ms(900.0));
    assert!(p > 1000, "the note's peak is only {p}");
    // GM System On at 1000 ms resets the synthesizer: nothing sounds until 2000 ms.
    assert_silent(
        &w,
        frame_at_ms(1000.0) + 2,
        frame_at_ms(2000.0),
        "after GM System On",
    );

    // 3: the sequencer plays four notes of 0.2 s every 0.25 s from 2000 ms.
    let k3 = first_sound(&w, frame_at_ms(2000.0));
    assert!(
        k3 <= frame_at_ms(2005.0),
        "the sequence at 2000 ms first sounds at frame {k3}"
    );
    for n in 0..4 {
        let t = 2000.0 + 250.0 * n as f64;
        let p = peak(&w, frame_at_ms(t + 5.0), frame_at_ms(t + 200.0));
        assert!(
            p > 500,
            "note {n} of the file (at {t} ms) peaks at only {p}"
        );
    }
    // 4: played again from 500 ms of the file at 3100 ms, stopped at 3300 ms.
    let p = peak(&w, frame_at_ms(3105.0), frame_at_ms(3300.0));
    assert!(p > 500, "the second play peaks at only {p}");
    // GM System On at 3400 ms: silence to the end.
    // The program ends at 3500 ms.
    assert!(
        w.len() >= frame_at_ms(3500.0),
        "the WAV ends at frame {}",
        w.len()
    );
    assert_silent(&w, frame_at_ms(3400.0) + 2, w.len(), "after the last reset");

    // A second run writes the same file.
    let (_, again) = run_with_audio_frames("midi_play", "240");
    assert!(
        bytes == again,
        "two deterministic runs wrote different WAVs"
    );
}

#[test]
fn midi_play_without_a_soundfont_finds_no_midi_device() {
    let data = tempfile::tempdir().unwrap();
    let program = exe("midi_play");
    let r = common::run_winterp_env(
        [
            "--headless",
            "--deterministic",
            "--frames",
            "60",
            program.as_str(),
        ],
        &[("WINTERP_SOUNDFONT", "/nonexistent/winterp-test.sf2")],
        data.path(),
        &common::guest_dir().join("bin"),
        common::TIMEOUT,
    );
    check_stdout("midi_play_nosynth", &r);
}
