//! Seeded random numbers and the distributions of a workload.
//!
//! The generator is xoshiro256** seeded through SplitMix64: small, fast,
//! and fixed here, so that a scenario and a seed give the same numbers on
//! every machine and with every version of the dependencies. Each user
//! draws from its own stream (the seed mixed with the user's index), so
//! adding a user does not change what the others do.
//!
//! ```
//! use negotiator_sim::simulate::random::{Distribution, Rng};
//!
//! let mut a = Rng::new(42, 0);
//! let mut b = Rng::new(42, 0);
//! assert_eq!(a.next_u64(), b.next_u64());
//! let runtime = Distribution::Exponential { mean: 3600.0 };
//! let x = runtime.sample(&mut a);
//! assert!(x > 0.0);
//! assert_eq!(x, runtime.sample(&mut b));
//! ```

/// A seeded generator (xoshiro256**).
#[derive(Debug, Clone)]
pub struct Rng {
    s: [u64; 4],
}

fn splitmix(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    /// The generator of stream `stream` of seed `seed`.
    pub fn new(seed: u64, stream: u64) -> Rng {
        let mut x = seed ^ stream.wrapping_mul(0xD605_BBB5_8C8A_BBFD).rotate_left(17);
        let s = [splitmix(&mut x), splitmix(&mut x), splitmix(&mut x), splitmix(&mut x)];
        Rng { s }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// A uniform real in `[0, 1)`.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniform real in `(0, 1]` (safe to take the logarithm of).
    pub fn uniform_open(&mut self) -> f64 {
        1.0 - self.uniform()
    }

    /// An exponential variate of mean `mean`.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * self.uniform_open().ln()
    }

    /// A standard normal variate (Box-Muller, one of the pair).
    pub fn normal(&mut self) -> f64 {
        let u = self.uniform_open();
        let v = self.uniform();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    /// An integer uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }
}

/// A distribution of positive reals (run times in seconds, sizes).
#[derive(Debug, Clone, PartialEq)]
pub enum Distribution {
    /// Always `value`.
    Fixed {
        /// The value.
        value: f64,
    },
    /// Uniform between `min` and `max`.
    Uniform {
        /// The smallest value.
        min: f64,
        /// The largest value.
        max: f64,
    },
    /// Exponential of mean `mean`.
    Exponential {
        /// The mean.
        mean: f64,
    },
    /// Log-normal: `median · e^(sigma · N(0,1))`.
    LogNormal {
        /// The median.
        median: f64,
        /// The standard deviation of the logarithm.
        sigma: f64,
    },
    /// One of `values` with the given weights.
    Choice {
        /// The values and their weights.
        values: Vec<(f64, f64)>,
    },
}

impl Distribution {
    /// One draw.
    pub fn sample(&self, rng: &mut Rng) -> f64 {
        match self {
            Distribution::Fixed { value } => *value,
            Distribution::Uniform { min, max } => min + (max - min) * rng.uniform(),
            Distribution::Exponential { mean } => rng.exponential(*mean),
            Distribution::LogNormal { median, sigma } => median * (sigma * rng.normal()).exp(),
            Distribution::Choice { values } => {
                let total: f64 = values.iter().map(|(_, w)| w).sum();
                let mut x = rng.uniform() * total;
                for (v, w) in values {
                    if x < *w {
                        return *v;
                    }
                    x -= w;
                }
                values.last().map_or(0.0, |(v, _)| *v)
            }
        }
    }

    /// The distribution's mean.
    ///
    /// ```
    /// use negotiator_sim::simulate::random::Distribution;
    /// assert_eq!(Distribution::Uniform { min: 10.0, max: 30.0 }.mean(), 20.0);
    /// ```
    pub fn mean(&self) -> f64 {
        match self {
            Distribution::Fixed { value } => *value,
            Distribution::Uniform { min, max } => (min + max) / 2.0,
            Distribution::Exponential { mean } => *mean,
            Distribution::LogNormal { median, sigma } => median * (sigma * sigma / 2.0).exp(),
            Distribution::Choice { values } => {
                let total: f64 = values.iter().map(|(_, w)| w).sum();
                if total > 0.0 {
                    values.iter().map(|(v, w)| v * w).sum::<f64>() / total
                } else {
                    0.0
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mean_of(d: &Distribution, n: usize) -> f64 {
        let mut rng = Rng::new(7, 3);
        (0..n).map(|_| d.sample(&mut rng)).sum::<f64>() / n as f64
    }

    #[test]
    fn streams_differ_and_repeat() {
        let a: Vec<u64> = (0..4).map(|_| Rng::new(1, 0).next_u64()).collect();
        assert!(a.iter().all(|&x| x == a[0]));
        assert_ne!(Rng::new(1, 0).next_u64(), Rng::new(1, 1).next_u64());
        assert_ne!(Rng::new(1, 0).next_u64(), Rng::new(2, 0).next_u64());
    }

    #[test]
    fn sample_means_approach_the_distributions() {
        for d in [
            Distribution::Exponential { mean: 100.0 },
            Distribution::Uniform { min: 5.0, max: 15.0 },
            Distribution::LogNormal { median: 50.0, sigma: 0.5 },
            Distribution::Choice { values: vec![(1.0, 3.0), (10.0, 1.0)] },
        ] {
            let m = mean_of(&d, 200_000);
            assert!((m - d.mean()).abs() < 0.02 * d.mean(), "{d:?}: {m}");
        }
    }

    #[test]
    fn uniform_stays_in_range_and_below_is_bounded() {
        let mut rng = Rng::new(99, 0);
        for _ in 0..10_000 {
            let u = rng.uniform();
            assert!((0.0..1.0).contains(&u));
            assert!(rng.below(7) < 7);
        }
        assert_eq!(rng.below(0), 0);
    }
}
