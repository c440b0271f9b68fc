use winterp_core::bench::{self, RunConfig};
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let on = a[1] == "on";
    let tier = a.get(2).map(|s| s.as_str()).unwrap_or("uop");
    let n: u32 = a.get(3).map(|s| s.parse().unwrap()).unwrap_or(1_000_000);
    let shape = bench::null(n);
    let mut best = f64::MAX;
    for _ in 0..a.get(4).map(|s| s.parse().unwrap()).unwrap_or(1) {
        let s = bench::run_once_with(&shape, RunConfig::default().with(tier, on).unwrap()).unwrap();
        best = best.min(s.secs);
    }
    println!("null {tier} {on} {:.4}s", best);
}
