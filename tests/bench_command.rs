//! `winterp bench`: `--tier` reaches the shapes' gates, and repeat runs with the
//! native-code tier compiling in the background are accepted as the same work.

mod common;

use common::{s, winterp};

/// `winterp bench --json --shapes reg_alu --reps 3 --tier jit=ARM`: (instructions a
/// run, dispatches per instruction).
fn reg_alu(arm: &str) -> (u64, f64) {
    let r = winterp(&[
        s("bench"),
        s("--json"),
        s("--shapes"),
        s("reg_alu"),
        s("--reps"),
        s("3"),
        s("--tier"),
        format!("jit={arm}"),
    ]);
    assert_eq!(r.code, Some(0), "bench jit={arm}: {}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("bench --json");
    let shape = &v["shapes"][0];
    assert_eq!(shape["name"], "reg_alu");
    assert_eq!(shape["reps"], 3);
    (
        shape["insns"].as_u64().unwrap(),
        shape["dispatches_per_insn"].as_f64().unwrap(),
    )
}

#[test]
fn bench_tier_switch_reaches_the_shapes() {
    let (insns_off, disp_off) = reg_alu("off");
    let (insns_on, disp_on) = reg_alu("on");
    assert_eq!(insns_off, insns_on, "the same guest work in both");
    // The threaded interpreter makes one dispatch per instruction; compiled code
    // runs the loop without any.
    assert_eq!(disp_off, 1.0, "jit=off");
    assert!(
        disp_on < 0.1,
        "jit=on: {disp_on} dispatches per instruction"
    );
}
