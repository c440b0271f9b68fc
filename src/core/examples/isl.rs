use winterp_core::bench::{self, RunConfig};
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let on = a[1] == "on";
    let name = a.get(2).map(|s| s.as_str()).unwrap_or("island");
    let n: u32 = a.get(3).map(|s| s.parse().unwrap()).unwrap_or(4096 * 64);
    let shape = match name {
        "pipeline" => bench::x87_pipeline(n),
        "x87" => bench::x87(n * 2),
        _ => bench::x87_island(n),
    };
    let s =
        bench::run_once_with(&shape, RunConfig::default().with("x87_fusion", on).unwrap()).unwrap();
    println!("{} {} {:.3}s", name, on, s.secs);
}
