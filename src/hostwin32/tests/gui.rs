//! USER32 end to end: tests/gui/gui.exe (a mingw C program: window class, main and
//! child window, GDI painting in WM_PAINT, a timer, keyboard and mouse input,
//! WM_CLOSE) runs in deterministic mode while the refresh hook checks its frames
//! and injects input, as the headless runner and the player do.

use std::sync::{Arc, Mutex};
use winterp_hostwin32::display::{self, InputEvent, MouseButton};
use winterp_hostwin32::host::CaptureHost;
use winterp_hostwin32::process::ProcessConfig;
use winterp_hostwin32::scheduler;
use winterp_hostwin32::thread::ThreadEnd;

fn exe(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/gui")
        .join(name)
}

fn key(vk: u8, scancode: u16, extended: bool, down: bool) -> InputEvent {
    InputEvent::Key {
        vk,
        scancode,
        extended,
        down,
    }
}

#[derive(Default)]
struct Seen {
    frame: Option<display::Frame>,
    title: Option<String>,
}

#[test]
fn gui_program_paints_gets_input_and_quits_on_close() {
    let mut config = ProcessConfig::new(exe("gui.exe"), r"C:\GUI\GUI.EXE".into());
    config.deterministic = true;
    config.max_instructions = Some(400_000_000);
    let host = Arc::new(CaptureHost::default());
    let (proc, mut main) = winterp_hostwin32::startup::prepare(config, host.clone()).unwrap();
    winterp_hostwin32::startup::initialize(&proc, &mut main).unwrap();
    let seen = Arc::new(Mutex::new(Seen::default()));
    let s2 = seen.clone();
    scheduler::set_frame_hook(
        &proc,
        Box::new(move |p, k| match k {
            3 => {
                let mut s = s2.lock().unwrap();
                s.frame = display::current_frame(p);
                s.title = display::main_window_title(p);
            }
            4 => display::inject(p, key(0x41, 0x1e, false, true)),
            5 => display::inject(p, key(0x41, 0x1e, false, false)),
            6 => {
                display::inject(
                    p,
                    InputEvent::MouseButton {
                        button: MouseButton::Left,
                        down: true,
                        x: 10,
                        y: 12,
                    },
                );
                display::inject(
                    p,
                    InputEvent::MouseButton {
                        button: MouseButton::Left,
                        down: false,
                        x: 10,
                        y: 12,
                    },
                );
            }
            7 => display::inject(
                p,
                InputEvent::MouseButton {
                    button: MouseButton::Left,
                    down: true,
                    x: 45,
                    y: 37,
                },
            ),
            8 => {
                display::inject(p, key(0x27, 0x4d, true, true));
                display::inject(p, key(0x27, 0x4d, true, true));
                display::inject(p, key(0x27, 0x4d, true, false));
            }
            20 => display::inject(p, InputEvent::Close),
            200 => scheduler::end_process(p, 99),
            _ => {}
        }),
    );
    let end = scheduler::run_process(&proc, main);
    let out = String::from_utf8(host.out.lock().unwrap().clone()).unwrap();
    let err = String::from_utf8(host.err.lock().unwrap().clone()).unwrap();
    // mingw's start-up calls exit() with main's result.
    assert_eq!(
        end,
        ThreadEnd::ProcessExit(3),
        "output:\n{out}\nstderr:\n{err}"
    );
    let lines: Vec<&str> = out.lines().collect();
    let expect_in_order = [
        "create",
        "client 200 x 120",
        "keydown 41 repeat 1 scan 1e ext 0 prev 0",
        "char a",
        "keyup 41 prev 1 trans 1",
        "click 10,12 mk 1",
        "child click 5,7",
        "keydown 27 repeat 1 scan 4d ext 1 prev 0",
        "keydown 27 repeat 1 scan 4d ext 1 prev 1",
        "keyup 27 prev 1 trans 1",
        "close",
        "destroy",
        "quit 3",
    ];
    let mut at = 0;
    for e in expect_in_order {
        match lines[at..].iter().position(|l| *l == e) {
            Some(i) => at += i + 1,
            None => panic!("missing {e:?} (in order) in:\n{out}"),
        }
    }
    assert!(lines.contains(&"timer 7 x3"), "{out}");
    let s = seen.lock().unwrap();
    assert_eq!(s.title.as_deref(), Some("winterp gui test"));
    let f = s.frame.as_ref().expect("a frame at tick 3");
    assert_eq!((f.width, f.height), (200, 120));
    let px = |x: u32, y: u32| f.pixels[(y * f.width + x) as usize];
    // Main window red, child window (40,30)-(140,80) blue.
    assert_eq!(px(0, 0), 0xff0000);
    assert_eq!(px(199, 119), 0xff0000);
    assert_eq!(px(40, 30), 0x0000ff);
    assert_eq!(px(139, 79), 0x0000ff);
    assert_eq!(px(140, 80), 0xff0000);
}
