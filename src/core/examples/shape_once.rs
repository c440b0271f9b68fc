//! Runs one standard bench shape once, with one toggle forced on or off, and prints
//! its time and counters. `winterp bench` times many rounds; this is for profilers
//! (callgrind, perf) that want a single run of one arm:
//!
//! ```text
//! cargo build --release -p winterp-core --example shape_once
//! valgrind --tool=callgrind target/release/examples/shape_once x87_island x87_fusion on
//! ```

use std::process::ExitCode;

use winterp_core::bench::{self, RunConfig};

const USAGE: &str = "usage: shape_once <shape> [<toggle> <on|off>] [--scale N]";

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("shape_once: {e}\n{USAGE}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Vec<String>) -> Result<(), String> {
    let mut scale = 1u32;
    let mut positional = Vec::new();
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        if a == "--scale" {
            let v = it.next().ok_or("--scale needs a value")?;
            scale = v
                .parse()
                .ok()
                .filter(|&s| s >= 1)
                .ok_or(format!("--scale {v:?} is not a positive integer"))?;
        } else {
            positional.push(a);
        }
    }
    let (name, cfg) = match positional.as_slice() {
        [name] => (name, RunConfig::default()),
        [name, toggle, state] => {
            let on = match state.as_str() {
                "on" => true,
                "off" => false,
                other => return Err(format!("{other:?} is neither on nor off")),
            };
            (name, RunConfig::default().with(toggle, on)?)
        }
        _ => return Err("expected a shape, optionally followed by a toggle and on|off".into()),
    };
    let shapes = bench::standard(scale);
    let shape = shapes
        .iter()
        .find(|s| s.name == name.as_str())
        .ok_or_else(|| {
            let names: Vec<&str> = shapes.iter().map(|s| s.name).collect();
            format!("unknown shape {name:?}; known: {}", names.join(", "))
        })?;
    let sample = bench::run_once_with(shape, cfg)?;
    let c = sample.counters;
    println!(
        "{} ({} iterations): {:.3} s, {} instructions, {} blocks, {} dispatches",
        shape.name, shape.iters, sample.secs, c.insns, c.blocks, c.dispatches
    );
    Ok(())
}
