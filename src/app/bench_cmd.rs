//! `winterp bench`: runs the CPU benchmark shapes and prints a table or JSON.

use anyhow::{Result, anyhow};
use clap::Args;
use winterp_core::bench;

#[derive(Args)]
pub struct BenchArgs {
    /// Print one JSON object per shape instead of a table.
    #[arg(long)]
    json: bool,
    /// Repetitions per shape (the median is reported).
    #[arg(long, default_value_t = 5)]
    reps: usize,
    /// Only these shapes (comma separated).
    #[arg(long, value_delimiter = ',')]
    shapes: Vec<String>,
    /// Work multiplier (1 = about 0.1-0.5 s per shape run).
    #[arg(long, default_value_t = 1)]
    scale: u32,
    /// A/B-measure an executor setting or a tier (lut, copy, fill, scan, chain): both
    /// arms in one process, interleaved, order rotated each round.
    #[arg(long)]
    toggle: Option<String>,
    /// Switch a tier for every run: NAME=on|off (repeatable; `--toggle` still sets
    /// its own tier per arm). `--tier jit=off` measures without the native-code tier.
    #[arg(long, value_name = "NAME=on|off")]
    pub tier: Vec<String>,
}

pub fn run(args: BenchArgs) -> Result<()> {
    let mut shapes = bench::standard(args.scale.max(1));
    if !args.shapes.is_empty() {
        shapes.retain(|s| args.shapes.iter().any(|n| n == s.name));
        if shapes.is_empty() {
            return Err(anyhow!("no shape matches {:?}", args.shapes));
        }
    }
    if let Some(t) = &args.toggle {
        return run_toggle(&shapes, &args, t);
    }
    let results = bench::run_all(&shapes, args.reps.max(1)).map_err(|e| anyhow!(e))?;
    if args.json {
        let list: Vec<serde_json::Value> = results
            .iter()
            .map(|r| {
                serde_json::json!({
                    "name": r.name,
                    "mips_median": round2(r.mips_median()),
                    "ns_per_iter_median": round2(r.ns_per_iter_median()),
                    "dispatches_per_insn": round2(r.dispatches_per_insn()),
                    "ns_per_iter_min": round2(r.ns_per_iter_min()),
                    "insns": r.insns(),
                    "iters": r.iters,
                    "reps": r.samples.len(),
                })
            })
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({ "shapes": list }))?
        );
    } else {
        println!(
            "{:<10} {:>10} {:>12} {:>12} {:>10} {:>14}",
            "shape", "MIPS", "ns/iter med", "ns/iter min", "disp/insn", "insns/run"
        );
        for (r, s) in results.iter().zip(&shapes) {
            println!(
                "{:<10} {:>10.1} {:>12.2} {:>12.2} {:>10.3} {:>14}   {}",
                r.name,
                r.mips_median(),
                r.ns_per_iter_median(),
                r.ns_per_iter_min(),
                r.dispatches_per_insn(),
                r.insns(),
                s.what
            );
        }
    }
    Ok(())
}

fn arm_json(r: &bench::ShapeResult, arm: &str) -> serde_json::Value {
    serde_json::json!({
        "name": r.name,
        "arm": arm,
        "ns_per_iter_median": round2(r.ns_per_iter_median()),
        "ns_per_iter_min": round2(r.ns_per_iter_min()),
        "dispatches_per_iter": round2(r.dispatches_per_iter()),
        "blocks_per_iter": round2(r.blocks_per_iter()),
        "mips_median": round2(r.mips_median()),
    })
}

fn run_toggle(shapes: &[bench::Shape], args: &BenchArgs, toggle: &str) -> Result<()> {
    let res = bench::run_toggle(shapes, args.reps.max(1), toggle).map_err(|e| anyhow!(e))?;
    if args.json {
        let list: Vec<serde_json::Value> = res
            .iter()
            .flat_map(|(off, on)| {
                let mut on_json = arm_json(on, "on");
                on_json["paired_ratio"] = round2(bench::paired_ratio_median(off, on)).into();
                [arm_json(off, "off"), on_json]
            })
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({ "toggle": toggle, "shapes": list }))?
        );
        return Ok(());
    }
    // off/on: ratio of the arms' medians; paired: median of the per-round ratios
    // (each round runs the two arms back to back, so a host speed change that outlasts
    // a pair cancels in it).
    println!(
        "toggle {toggle}: {:<12} {:>4} {:>12} {:>12} {:>10} {:>10} {:>8} {:>8}",
        "shape", "arm", "ns/iter med", "ns/iter min", "disp/iter", "blk/iter", "off/on", "paired"
    );
    for (off, on) in &res {
        for (r, arm) in [(off, "off"), (on, "on")] {
            let (ratio, paired) = if arm == "on" {
                (
                    format!("{:.2}x", off.ns_per_iter_median() / on.ns_per_iter_median()),
                    format!("{:.2}x", bench::paired_ratio_median(off, on)),
                )
            } else {
                (String::new(), String::new())
            };
            println!(
                "toggle {toggle}: {:<12} {:>4} {:>12.2} {:>12.2} {:>10.3} {:>10.3} {:>8} {:>8}",
                r.name,
                arm,
                r.ns_per_iter_median(),
                r.ns_per_iter_min(),
                r.dispatches_per_iter(),
                r.blocks_per_iter(),
                ratio,
                paired
            );
        }
    }
    Ok(())
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}
