//! winterp: plays 32-bit Windows programs. This binary is the command line and
//! (later) the desktop player; `winterp bench` measures the interpreter.

mod bench_cmd;

use anyhow::Result;
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "winterp",
    version,
    about = "Plays 32-bit Windows (Win9x-era) games"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// The Windows program to run.
    program: Option<std::path::PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Measures the interpreter on guest-code benchmark shapes.
    Bench(bench_cmd::BenchArgs),
}

fn main() -> Result<()> {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Bench(args)) => bench_cmd::run(args),
        None => match cli.program {
            Some(p) => anyhow::bail!(
                "running Windows programs arrives with the Win32 layer; cannot run {} yet",
                p.display()
            ),
            None => anyhow::bail!(
                "the bundled demo arrives with the player; try `winterp bench` to measure the CPU core"
            ),
        },
    }
}
