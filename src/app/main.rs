//! winterp: plays 32-bit Windows programs. `winterp [PROGRAM.EXE]` opens the desktop
//! player (plain `winterp` plays the bundled demo, see demo.rs), `winterp --headless
//! PROGRAM.EXE` runs a program without a window and `winterp bench` measures the
//! interpreter.

mod audio_pump;
mod bench_cmd;
mod check;
mod child;
mod demo;
mod gui;
mod headless;
mod input_script;
mod settings;

use anyhow::Result;
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "winterp",
    version,
    about = "Plays 32-bit Windows (Win9x-era) games",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Run without a window: standard streams are the host's, the exit code is the guest's.
    #[arg(long)]
    headless: bool,
    /// Run all guest threads cooperatively on one host thread with instruction-driven clocks.
    #[arg(long)]
    deterministic: bool,
    /// Stop after this many guest instructions.
    #[arg(long, value_name = "N")]
    max_instructions: Option<u64>,
    /// Write run statistics (instructions, blocks, decodes, API calls, threads) as JSON.
    #[arg(long, value_name = "FILE.json")]
    stats: Option<std::path::PathBuf>,
    /// Log every API call with its arguments and result (to stderr, via RUST_LOG=info).
    #[arg(long)]
    trace_api: bool,
    /// Unimplemented APIs log and return 0 instead of stopping the program.
    #[arg(long)]
    stub_unimplemented: bool,
    /// The Windows version GetVersion(Ex) reports (NT-only programs such as 7-Zip
    /// refuse to run on 9x).
    #[arg(long, value_enum, default_value = "98")]
    winver: headless::WinVer,
    /// Headless: stop after N refresh ticks (60 Hz; virtual time with --deterministic).
    #[arg(long, value_name = "N")]
    frames: Option<u64>,
    /// Headless: write the guest's frame at the last tick (--frames) as PNG.
    #[arg(long, value_name = "OUT.png")]
    screenshot: Option<std::path::PathBuf>,
    /// Headless: inject the keyboard and mouse events of this script (see the README).
    #[arg(long, value_name = "SCRIPT")]
    input: Option<std::path::PathBuf>,
    /// Headless: write what the program played (DirectSound, waveOut) as a 44100 Hz
    /// 16-bit stereo WAV file, on the guest's clock.
    #[arg(long, value_name = "OUT.wav")]
    audio_dump: Option<std::path::PathBuf>,
    /// Switch an optimisation tier: NAME=on|off (repeatable; names in docs/tiers.md).
    #[arg(long, value_name = "NAME=on|off")]
    tier: Vec<String>,
    /// Headless: write one line per frame 1..N (--frames): its number, WIDTHxHEIGHT and
    /// the FNV-1a 64 hash of its RGBA8 pixels (a DirectDraw program's frames are its
    /// presents).
    #[arg(long, value_name = "FILE")]
    frame_hashes: Option<std::path::PathBuf>,
    /// Headless: switch a tier once frame FRAME (as --frames counts them, 1..N-1) has
    /// been shown, before the guest runs on (repeatable; deterministic with
    /// --deterministic).
    #[arg(long, value_name = "FRAME:NAME=on|off")]
    tier_at: Vec<String>,
    /// Headless: render the tier overlay (counters, elements/s plot, hot blocks) as it
    /// stands at the end of the run into a PNG (needs a wgpu adapter; software Vulkan
    /// will do).
    #[arg(long, value_name = "OUT.png")]
    overlay_png: Option<std::path::PathBuf>,
    /// Headless: at the end, print the micro-op tier's census: hot loop heads by
    /// verdict (installed, retired, claimed by another tier, declined with the
    /// instruction form or reason that stopped the scan), weighted by their block
    /// entries. Also in the --stats JSON as `uop_census`.
    #[arg(long)]
    uop_census: bool,
    /// Headless: a message box presses its default button after it has shown for N
    /// refresh ticks (default 30, half a second) and prints itself and the answer to
    /// stderr; `off` leaves it to --input.
    #[arg(long, value_name = "N|off")]
    message_box_ticks: Option<String>,
    /// Set by a parent winterp whose guest called CreateProcess: what the child
    /// process is told (JSON, read once and removed).
    #[arg(long, value_name = "FILE.json", hide = true)]
    child_spec: Option<std::path::PathBuf>,
    /// The Windows program to run.
    program: Option<std::path::PathBuf>,
    /// Arguments passed to the program.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

#[derive(Subcommand)]
enum Command {
    /// Measures the executor (the interpreter and the tiers that are on) on guest-code
    /// benchmark shapes.
    Bench(bench_cmd::BenchArgs),
    /// Says whether a program will run: its runtime and packer, every import marked
    /// implemented, unimplemented or missing, and a headless run of N frames (exit
    /// code 0 only when it reached them).
    Check(check::CheckArgs),
}

fn main() -> Result<()> {
    // The matches too: the player needs to know whether --winver was given or defaulted.
    let matches = <Cli as clap::CommandFactory>::command().get_matches();
    let cli =
        <Cli as clap::FromArgMatches>::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let level = if cli.trace_api { "info" } else { "warn" };
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(level)).init();
    // WINTERP_TIERS (forced tiers for test runs) is applied with the process-wide
    // gates; a bad value stops here with the reason instead of running on defaults.
    winterp_core::tiers::env_switches().map_err(|e| anyhow::anyhow!("{e}"))?;
    for t in &cli.tier {
        apply_tier(t)?;
    }
    match cli.command {
        Some(Command::Bench(args)) => {
            // The shapes' gates start from the process-wide ones (core's bench).
            for t in &args.tier {
                apply_tier(t)?;
            }
            bench_cmd::run(args)
        }
        Some(Command::Check(args)) => std::process::exit(check::run(args)?),
        None if !cli.headless => {
            if cli.stats.is_some()
                || cli.frames.is_some()
                || cli.screenshot.is_some()
                || cli.input.is_some()
                || cli.audio_dump.is_some()
                || cli.frame_hashes.is_some()
                || !cli.tier_at.is_empty()
                || cli.overlay_png.is_some()
                || cli.uop_census
            {
                eprintln!(
                    "winterp: --stats, --frames, --screenshot, --input, --audio-dump, \
                     --frame-hashes, --tier-at, --overlay-png and --uop-census need --headless; ignored \
                     in the player (F10 shows the tier overlay)"
                );
            }
            let winver_given = matches!(
                matches.value_source("winver"),
                Some(clap::parser::ValueSource::CommandLine)
            );
            // Without a program the bundled demo plays (the welcome screen when it
            // is not installed).
            let program = cli.program.or_else(demo::find);
            let code = gui::run(gui::GuiArgs {
                program,
                args: cli.args,
                deterministic: cli.deterministic,
                winver: winver_given.then(|| cli.winver.into()),
                trace_api: cli.trace_api,
                stub_unimplemented: cli.stub_unimplemented,
                max_instructions: cli.max_instructions,
                child: cli
                    .child_spec
                    .as_deref()
                    .map(child::ChildLaunch::load)
                    .transpose()?,
            })?;
            std::process::exit(code);
        }
        None => match cli.program {
            Some(program) => {
                let tier_at = cli
                    .tier_at
                    .iter()
                    .map(|a| parse_tier_at(a))
                    .collect::<Result<Vec<_>>>()?;
                let code = headless::run(headless::HeadlessArgs {
                    program,
                    args: cli.args,
                    deterministic: cli.deterministic,
                    max_instructions: cli.max_instructions,
                    stats: cli.stats,
                    trace_api: cli.trace_api,
                    stub_unimplemented: cli.stub_unimplemented,
                    winver: cli.winver,
                    frames: cli.frames,
                    screenshot: cli.screenshot,
                    input: cli.input,
                    audio_dump: cli.audio_dump,
                    frame_hashes: cli.frame_hashes,
                    tier_at,
                    overlay_png: cli.overlay_png,
                    uop_census: cli.uop_census,
                    track_progress: false,
                    frames_are_ticks: false,
                    message_box_ticks: parse_message_box_ticks(cli.message_box_ticks.as_deref())?,
                    child: cli
                        .child_spec
                        .as_deref()
                        .map(child::ChildLaunch::load)
                        .transpose()?,
                })?;
                std::process::exit(code);
            }
            None => anyhow::bail!(
                "no program given. Usage: winterp --headless PROGRAM.EXE [ARGS...] \
                 (or winterp [PROGRAM.EXE] for the player, winterp bench)"
            ),
        },
    }
}

/// `--message-box-ticks N|off`.
fn parse_message_box_ticks(arg: Option<&str>) -> Result<Option<u32>> {
    match arg {
        None => Ok(Some(winterp_hostwin32::process::DEFAULT_MESSAGE_BOX_TICKS)),
        Some("off") => Ok(None),
        Some(n) => match n.parse::<u32>() {
            Ok(n) if n > 0 => Ok(Some(n)),
            _ => anyhow::bail!(
                "--message-box-ticks wants a number of ticks (1 or more) or off, got {n:?}"
            ),
        },
    }
}

/// `--tier NAME=on|off`: sets a gate of the process-wide tiers every guest thread uses.
fn apply_tier(arg: &str) -> Result<()> {
    let (tier, on) = parse_tier(arg)?;
    winterp_core::tiers::global()
        .set(tier, on)
        .map_err(|e| anyhow::anyhow!("{e}"))
}

/// `--tier-at FRAME:NAME=on|off`.
fn parse_tier_at(arg: &str) -> Result<headless::TierAt> {
    let (frame, switch) = arg
        .split_once(':')
        .ok_or_else(|| anyhow::anyhow!("--tier-at wants FRAME:NAME=on|off, got {arg:?}"))?;
    let frame = frame
        .parse()
        .map_err(|_| anyhow::anyhow!("--tier-at wants a frame number before ':', got {frame:?}"))?;
    let (tier, on) = parse_tier(switch)?;
    // Checked now: a switch that cannot happen must not fail silently mid-run.
    if !tier.available() {
        anyhow::bail!("{}", winterp_core::tiers::TierError::NotAvailable(tier));
    }
    Ok(headless::TierAt { frame, tier, on })
}

/// `NAME=on|off`.
fn parse_tier(arg: &str) -> Result<(winterp_core::tiers::Tier, bool)> {
    use winterp_core::tiers::{self, Tier};
    let (name, v) = arg
        .split_once('=')
        .ok_or_else(|| anyhow::anyhow!("a tier switch is NAME=on|off, got {arg:?}"))?;
    let tier = Tier::from_name(name).ok_or_else(|| {
        anyhow::anyhow!(
            "unknown tier {name:?}; known: {:?}",
            tiers::ALL.map(|t| t.name())
        )
    })?;
    let on = match v {
        "on" => true,
        "off" => false,
        _ => anyhow::bail!("tier {name}= wants on or off, got {v:?}"),
    };
    Ok((tier, on))
}
