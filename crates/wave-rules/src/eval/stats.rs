//! The numbers of an eval: pass rates with Wilson score intervals (with
//! continuity correction), and the uplift (with minus without) with
//! Newcombe's hybrid score interval built from them, both at 95%.
//!
//! An eval affords few runs (5 to 50 an arm). There the textbook
//! `p ± 1.96·se` collapses to a point at 0/n and n/n, and the plain Wilson
//! interval, though centred well, holds the true rate less often than it
//! says at some rates (92% at 7/10 of 30 runs; Brown, Cai and DasGupta
//! 2001). With the continuity correction (Newcombe 1998, method 4) its
//! exact coverage is at least 95% at every rate from 0.05 to 0.95 and every
//! run count from 5 to 50 (a test below computes it), so "95%" means at
//! least 95%. The uplift's interval is Newcombe's (1998b) method 11: the
//! hybrid score interval from the two arms' corrected intervals.

/// z for a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// A pass rate with its 95% Wilson interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    pub passed: u32,
    pub runs: u32,
    pub rate: f64,
    pub low: f64,
    pub high: f64,
}

impl Rate {
    /// `passed` of `runs` (no runs: rate 0 and the interval [0, 1]).
    pub fn new(passed: u32, runs: u32) -> Rate {
        let (low, high) = wilson(passed, runs);
        let rate = if runs == 0 {
            0.0
        } else {
            f64::from(passed) / f64::from(runs)
        };
        Rate {
            passed,
            runs,
            rate,
            low,
            high,
        }
    }
}

/// The Wilson score interval with continuity correction of `k` successes
/// in `n` trials, at 95% (Newcombe 1998, method 4).
pub fn wilson(k: u32, n: u32) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (kf, nf) = (f64::from(k), f64::from(n));
    let (p, z2) = (kf / nf, Z95 * Z95);
    let q = 1.0 - p;
    let denom = 2.0 * (nf + z2);
    let low = if k == 0 {
        0.0
    } else {
        (2.0 * nf * p + z2 - 1.0 - Z95 * (z2 - 2.0 - 1.0 / nf + 4.0 * p * (nf * q + 1.0)).sqrt())
            / denom
    };
    let high = if k == n {
        1.0
    } else {
        (2.0 * nf * p + z2 + 1.0 + Z95 * (z2 + 2.0 - 1.0 / nf + 4.0 * p * (nf * q - 1.0)).sqrt())
            / denom
    };
    (low.max(0.0), high.min(1.0))
}

/// The uplift `with.rate - without.rate` and its 95% interval (Newcombe's
/// hybrid score interval from the two arms' intervals, method 11).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Uplift {
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

impl Uplift {
    pub fn new(with: &Rate, without: &Rate) -> Uplift {
        let d = with.rate - without.rate;
        let low =
            d - ((with.rate - with.low).powi(2) + (without.high - without.rate).powi(2)).sqrt();
        let high =
            d + ((with.high - with.rate).powi(2) + (without.rate - without.low).powi(2)).sqrt();
        Uplift {
            value: d,
            low: low.max(-1.0),
            high: high.min(1.0),
        }
    }
}

/// How many runs per arm an eval needs before a difference of `uplift`
/// between two rates near `base` shows as an interval clear of zero (the
/// smallest n whose Newcombe interval for the expected counts excludes 0),
/// up to `max`; `None` past it.
pub fn runs_needed(base: f64, uplift: f64, max: u32) -> Option<u32> {
    let with = (base + uplift).clamp(0.0, 1.0);
    (2..=max).find(|&n| uplift_at(with, base, n).low > 0.0)
}

/// The runs per arm at which the uplift's lower bound reaches `bar`, if
/// the arms' rates stay `with` and `without` (up to `max`; `None` past it).
pub fn runs_to_clear_uplift(with: f64, without: f64, bar: f64, max: u32) -> Option<u32> {
    (2..=max).find(|&n| uplift_at(with, without, n).low >= bar)
}

/// The runs at which a rate's lower bound reaches `bar`, if the rate
/// stays `rate` (up to `max`; `None` past it).
pub fn runs_to_clear_rate(rate: f64, bar: f64, max: u32) -> Option<u32> {
    (2..=max).find(|&n| Rate::new(expected(rate, n), n).low >= bar)
}

/// The uplift's interval for the counts `n` runs an arm give at these rates.
fn uplift_at(with: f64, without: f64, n: u32) -> Uplift {
    Uplift::new(
        &Rate::new(expected(with, n), n),
        &Rate::new(expected(without, n), n),
    )
}

fn expected(rate: f64, n: u32) -> u32 {
    (rate.clamp(0.0, 1.0) * f64::from(n)).round() as u32
}

/// The exact two-sided sign test: the chance, with no difference, of a
/// split at least as uneven as `up` against `down` (ties left out before).
pub fn sign_test(up: u32, down: u32) -> f64 {
    let n = up + down;
    if n == 0 {
        return 1.0;
    }
    let ln_choose = |k: u32| -> f64 {
        (1..=k)
            .map(|i| (f64::from(n - k + i) / f64::from(i)).ln())
            .sum()
    };
    let tail: f64 = (0..=up.min(down))
        .map(|k| (ln_choose(k) - f64::from(n) * std::f64::consts::LN_2).exp())
        .sum();
    (2.0 * tail).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small seeded generator (SplitMix64), so the trials are the same on
    /// every machine.
    struct SplitMix(u64);

    impl SplitMix {
        fn next_f64(&mut self) -> f64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    #[test]
    fn wilson_matches_published_values() {
        // Newcombe (1998), table I, method 4: 81/263, 15/148, 0/20, 1/29.
        for (k, n, lo, hi) in [
            (81, 263, 0.2535, 0.3682),
            (15, 148, 0.0598, 0.1644),
            (0, 20, 0.0, 0.2005),
            (1, 29, 0.0018, 0.1963),
        ] {
            let (l, h) = wilson(k, n);
            assert!(
                (l - lo).abs() < 5e-4 && (h - hi).abs() < 5e-4,
                "{k}/{n}: [{l:.4}, {h:.4}]"
            );
        }
    }

    #[test]
    fn newcombe_uplift_matches_the_published_examples() {
        // Newcombe (1998b), table II, method 11: (a) 56/70 - 48/80,
        // (b) 9/10 - 3/10, (c) 6/7 - 2/7, (d) 5/56 - 0/29.
        for ((k1, n1, k2, n2), (lo, hi)) in [
            ((56, 70, 48, 80), (0.0428, 0.3422)),
            ((9, 10, 3, 10), (0.1013, 0.8387)),
            ((6, 7, 2, 7), (-0.0290, 0.8423)),
            ((5, 56, 0, 29), (-0.0667, 0.2037)),
        ] {
            let u = Uplift::new(&Rate::new(k1, n1), &Rate::new(k2, n2));
            assert!(
                (u.low - lo).abs() < 5e-4 && (u.high - hi).abs() < 5e-4,
                "{k1}/{n1} - {k2}/{n2}: {u:?}"
            );
        }
    }

    #[test]
    fn the_exact_coverage_is_at_least_95_percent_at_every_rate_and_run_count() {
        // The probability, summed over every outcome k of n runs, that the
        // interval of k/n holds p.
        for n in 5..=50u32 {
            for p in (5..=95).map(|i| f64::from(i) / 100.0) {
                let coverage: f64 = (0..=n)
                    .filter(|&k| {
                        let (lo, hi) = wilson(k, n);
                        lo <= p && p <= hi
                    })
                    .map(|k| binomial(n, k, p))
                    .sum();
                assert!(coverage >= 0.95, "n={n} p={p}: coverage {coverage:.4}");
            }
        }
    }

    fn binomial(n: u32, k: u32, p: f64) -> f64 {
        let ln_choose: f64 = (1..=k)
            .map(|i| (f64::from(n - k + i) / f64::from(i)).ln())
            .sum();
        (ln_choose + f64::from(k) * p.ln() + f64::from(n - k) * (1.0 - p).ln()).exp()
    }

    #[test]
    fn all_and_none_give_intervals_that_do_not_collapse() {
        let all = Rate::new(10, 10);
        assert_eq!(all.rate, 1.0);
        assert!(all.low < 0.75 && all.high == 1.0);
        let none = Rate::new(0, 10);
        assert!(none.low == 0.0 && none.high > 0.25);
        let u = Uplift::new(&all, &none);
        assert!(u.low > 0.4 && u.high <= 1.0, "{u:?}");
        assert_eq!(Rate::new(0, 0).high, 1.0);
    }

    #[test]
    fn the_interval_holds_the_true_rate_in_at_least_95_of_100_seeded_trials() {
        // A model that follows the rule with probability p: 100 trials of n
        // runs each, seeded; the Wilson interval must hold p in 95 or more.
        // The rates and run counts were chosen before any trial was run,
        // and the seed is fixed: 1.
        for (p, n) in [(0.7, 30), (0.3, 25)] {
            let seed = 1;
            let mut rng = SplitMix(seed);
            let held = (0..100)
                .filter(|_| {
                    let k = (0..n).filter(|_| rng.next_f64() < p).count() as u32;
                    let (lo, hi) = wilson(k, n);
                    lo <= p && p <= hi
                })
                .count();
            assert!(
                held >= 95,
                "p={p} n={n}: {held}/100 intervals held the true rate"
            );
        }
    }

    #[test]
    fn the_sign_test_gives_the_exact_binomial_tails() {
        // 4 of 4 one way: 2 * (1/2)^4; 5 of 5: 1/16; 7-1: 2 * 9/256.
        assert!((sign_test(4, 0) - 0.125).abs() < 1e-12);
        assert!((sign_test(0, 5) - 0.0625).abs() < 1e-12);
        assert!((sign_test(7, 1) - 18.0 / 256.0).abs() < 1e-12);
        assert!((sign_test(6, 0) - 0.03125).abs() < 1e-12);
        assert_eq!(sign_test(3, 3), 1.0);
        assert_eq!(sign_test(0, 0), 1.0);
        // Fewer than 6 scenarios: even all one way is not under 0.05.
        assert!((1..6).all(|n| sign_test(n, 0) > 0.05));
        // 12 wins, 0 losses pooled over 4 scenarios of 3 runs: the
        // scenarios say 4-0, not 12-0.
        assert!(sign_test(12, 0) < 0.001 && sign_test(4, 0) > 0.1);
    }

    #[test]
    fn the_runs_that_clear_a_bar_are_the_fewest_whose_bound_reaches_it() {
        let n = runs_to_clear_uplift(0.8, 0.2, 0.2, 200).unwrap();
        assert!(uplift_at(0.8, 0.2, n).low >= 0.2);
        assert!(uplift_at(0.8, 0.2, n - 1).low < 0.2);
        // A point estimate under the bar never clears it.
        assert_eq!(runs_to_clear_uplift(0.5, 0.4, 0.2, 200), None);
        let r = runs_to_clear_rate(0.95, 0.8, 200).unwrap();
        assert!(Rate::new(expected(0.95, r), r).low >= 0.8);
        assert!(Rate::new(expected(0.95, r - 1), r - 1).low < 0.8);
        assert_eq!(runs_to_clear_rate(0.7, 0.8, 200), None);
    }

    #[test]
    fn more_runs_are_needed_for_a_smaller_difference() {
        let big = runs_needed(0.2, 0.6, 500).unwrap();
        let small = runs_needed(0.2, 0.2, 500).unwrap();
        assert!(big < small, "{big} {small}");
        assert!(runs_needed(0.5, 0.0, 200).is_none());
    }

    #[test]
    fn the_runs_table_of_docs_eval_md_is_what_runs_needed_gives() {
        let doc = include_str!("../../../../docs/eval.md");
        let mut rows = 0;
        for line in doc
            .lines()
            .filter(|l| l.starts_with("| 0%") || l.starts_with("| 20%") || l.starts_with("| 50%"))
        {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            let base = cells[0].trim_end_matches('%').parse::<f64>().unwrap() / 100.0;
            for (i, cell) in cells[1..].iter().enumerate() {
                let uplift = 0.2 * (i + 1) as f64;
                let want = if cell.is_empty() {
                    None
                } else {
                    Some(cell.parse::<u32>().unwrap())
                };
                let got = if base + uplift > 1.0 + 1e-9 {
                    None
                } else {
                    runs_needed(base, uplift, 200)
                };
                assert_eq!(got, want, "rate without {base}, +{uplift}");
            }
            rows += 1;
        }
        assert_eq!(rows, 3);
    }
}
