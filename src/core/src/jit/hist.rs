//! Compile time per compiled unit as a histogram (issue 19: p50/p99 in `--stats`).
//!
//! Buckets are eighths of an octave: values below 8 ns have a bucket each, above
//! that a value's bucket is its highest set bit and the three bits below it, so a
//! percentile read back as its bucket's upper bound is at most 12.5 % above the
//! true sample. 496 relaxed counters cover every `u64`; recording is one
//! `fetch_add`, readable from any thread while compiles go on.

use std::sync::atomic::{AtomicU64, Ordering};

const SUB: u32 = 3;
const BUCKETS: usize = ((64 - SUB as usize) << SUB) + (1 << SUB);

pub struct Hist {
    counts: [AtomicU64; BUCKETS],
}

impl Default for Hist {
    fn default() -> Self {
        Hist {
            counts: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }
}

fn bucket(v: u64) -> usize {
    if v < 1 << SUB {
        return v as usize;
    }
    let msb = 63 - v.leading_zeros();
    let sub = (v >> (msb - SUB)) & ((1 << SUB) - 1);
    (((msb - SUB + 1) as usize) << SUB) + sub as usize
}

/// The largest value that falls in bucket `i`.
fn upper(i: usize) -> u64 {
    if i < 1 << SUB {
        return i as u64;
    }
    let msb = (i >> SUB) as u32 + SUB - 1;
    let sub = (i & ((1 << SUB) - 1)) as u64;
    let step = 1u64 << (msb - SUB);
    ((1 << SUB) + sub) * step + (step - 1)
}

impl Hist {
    pub fn record(&self, v: u64) {
        self.counts[bucket(v)].fetch_add(1, Ordering::Relaxed);
    }

    pub fn count(&self) -> u64 {
        self.counts.iter().map(|c| c.load(Ordering::Relaxed)).sum()
    }

    /// The `q`-quantile (0 < q <= 1) as its bucket's upper bound (at most 12.5 %
    /// above the sample of that rank); 0 when nothing was recorded.
    pub fn quantile(&self, q: f64) -> u64 {
        let counts: Vec<u64> = self
            .counts
            .iter()
            .map(|c| c.load(Ordering::Relaxed))
            .collect();
        let n: u64 = counts.iter().sum();
        if n == 0 {
            return 0;
        }
        let rank = ((q * n as f64).ceil() as u64).clamp(1, n);
        let mut seen = 0;
        for (i, &c) in counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return upper(i);
            }
        }
        upper(BUCKETS - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_values_are_exact() {
        let h = Hist::default();
        for v in [3, 3, 5, 9] {
            h.record(v);
        }
        assert_eq!(h.count(), 4);
        assert_eq!(h.quantile(0.5), 3);
        assert_eq!(h.quantile(0.75), 5);
        // Below 16 every value has its own bucket.
        assert_eq!(h.quantile(1.0), 9);
    }

    #[test]
    fn quantiles_of_a_known_sample() {
        let h = Hist::default();
        // 1, 2, ..., 100 microseconds.
        for i in 1..=100u64 {
            h.record(i * 1000);
        }
        // Rank 50 is 50 000 ns; its bucket (2^15 range, step 2^12) is 49 152..=53 247.
        assert_eq!(h.quantile(0.5), 53_247);
        // Rank 99 is 99 000 ns; bucket (2^16 range, step 2^13) is 98 304..=106 495.
        assert_eq!(h.quantile(0.99), 106_495);
        assert_eq!(Hist::default().quantile(0.99), 0);
    }

    #[test]
    fn every_u64_has_a_bucket_and_bounds_hold() {
        for v in [0u64, 7, 8, 15, 16, 17, 1 << 40, u64::MAX - 1, u64::MAX] {
            let i = bucket(v);
            assert!(i < BUCKETS);
            assert!(upper(i) >= v, "{v}");
            assert!(upper(i) - v <= v / 8, "{v}");
        }
        assert_eq!(upper(BUCKETS - 1), u64::MAX);
    }
}
