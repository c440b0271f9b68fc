//! Opens the output as the player does, plays a quiet 440 Hz tone for a second and
//! reports how the device consumed it (a real-time card takes ~its rate per second;
//! ALSA's null PCM takes everything at once). `cargo run --release -p winterp-audio
//! --example output_probe [DEVICE-ID]`.
use winterp_audio::Output;

fn main() {
    let device = std::env::args().nth(1);
    let mut out = Output::open(device.as_deref());
    eprintln!("{}", out.kind().describe());
    let tone: Vec<[i16; 2]> = (0..44100)
        .map(|i| {
            let s = (2000.0 * (2.0 * std::f64::consts::PI * 440.0 * f64::from(i) / 44100.0).sin())
                as i16;
            [s, s]
        })
        .collect();
    let start = std::time::Instant::now();
    for block in tone.chunks(441) {
        out.write(block);
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    println!("{:.2} s: {:?}", start.elapsed().as_secs_f64(), out.stats());
}
