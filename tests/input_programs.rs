//! Runs the guest programs of the game-input and multimedia-timer APIs (sources in
//! `tests/guest/src`, see `tests/guest/README.md`) with the `winterp` binary:
//!
//! - `mmtimer`: winmm timeSetEvent/timeKillEvent with every callback kind,
//!   timeGetTime, timeGetDevCaps, timeBeginPeriod; stdout (CR LF turned into LF)
//!   must equal `expected/mmtimer.stdout` (produced under Wine, each line a check
//!   that does not depend on the machine's speed, but for the `exact:` lines,
//!   which only the deterministic run compares), in the normal and the
//!   deterministic mode.
//! - `dinput_log`: DirectInput keyboard, mouse and joystick devices and
//!   joyGetPosEx under scripted input (`expected/dinput_log.script`: keys, mouse
//!   moves and buttons, pad buttons, axes, hat and unplugging at given refresh
//!   ticks), headless and deterministic; the per-frame log must equal
//!   `expected/dinput_log.stdout` and be the same in two runs.

mod common;

use common::{exe, expected, first_difference, s, tail, winterp};
use std::fs;

/// Runs `args` and checks stdout against `expected/{want}` and a zero exit status.
fn check_stdout(name: &str, args: &[String], want: &str) -> String {
    let want_text =
        fs::read_to_string(expected(want)).unwrap_or_else(|e| panic!("expected/{want}: {e}"));
    let got = winterp(args);
    assert!(
        got.stdout == want_text && got.code == Some(0),
        "{name}.exe {args:?}: exit status {:?}\n{}\n--- stderr (last 30 lines) ---\n{}",
        got.code,
        if got.stdout == want_text {
            "stdout as expected".to_string()
        } else {
            first_difference(&want_text, &got.stdout)
        },
        tail(&got.stderr, 30)
    );
    got.stdout
}

fn mmtimer(deterministic: bool) {
    let mut args = vec![s("--headless")];
    if deterministic {
        args.push(s("--deterministic"));
        args.push(exe("mmtimer").display().to_string());
        check_stdout("mmtimer", &args, "mmtimer.stdout");
        return;
    }
    // On the host clock a loaded machine may run the timer thread late: the
    // "exact:" lines (counts only a virtual clock pins down) are left out.
    args.push(exe("mmtimer").display().to_string());
    let inexact = |t: &str| -> String {
        t.lines()
            .filter(|l| !l.starts_with("exact:"))
            .map(|l| format!("{l}\n"))
            .collect()
    };
    let want = inexact(&fs::read_to_string(expected("mmtimer.stdout")).unwrap());
    let got = winterp(&args);
    let have = inexact(&got.stdout);
    assert!(
        have == want && got.code == Some(0),
        "mmtimer.exe {args:?}: exit status {:?}\n{}\n--- stderr (last 30 lines) ---\n{}",
        got.code,
        first_difference(&want, &have),
        tail(&got.stderr, 30)
    );
}

#[test]
fn mmtimer_normal() {
    mmtimer(false);
}

#[test]
fn mmtimer_deterministic() {
    mmtimer(true);
}

#[test]
fn dinput_log_scripted() {
    let args = vec![
        s("--headless"),
        s("--deterministic"),
        // More ticks than the script needs: the program ends itself (Escape
        // through DirectInput), so there is no screenshot to ask for.
        s("--frames"),
        s("200"),
        s("--input"),
        expected("dinput_log.script").display().to_string(),
        exe("dinput_log").display().to_string(),
    ];
    let first = check_stdout("dinput_log", &args, "dinput_log.stdout");
    let second = winterp(&args);
    assert_eq!(first, second.stdout, "a second deterministic run differs");
}
