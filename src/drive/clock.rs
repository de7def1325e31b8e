//! The on-steal driver's block clock: a cheap timestamp and the time between two of them.
//!
//! An owner reads the clock before its first block and after each block
//! (`owner::fold_in_blocks`), so a small parallel loop pays for at least two reads.
//! `Instant::now` goes through `clock_gettime` in the vDSO (a seqlock, a TSC read and a
//! scaling), so it costs several times the `rdtsc` instruction under it. On x86-64 with an
//! invariant TSC (a constant rate, ticking in every power state) the clock is the raw TSC,
//! converted to nanoseconds with a factor measured once per process against `Instant` over
//! a short spin; elsewhere it is `Instant`. The times only size blocks and claims
//! (`policy::Pace::block_took`), so a factor a fraction of a percent off, or a TSC that
//! differs a little between cores, only shifts a heuristic: nothing depends on it for
//! correctness.

use std::time::{Duration, Instant};

/// A point in time; only [`Stamp::until`] reads it.
#[derive(Clone, Copy, Debug)]
pub(super) enum Stamp {
    /// TSC ticks.
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    Tsc(u64),
    /// Where the TSC is not used: not x86-64, no invariant TSC, under valgrind (whose CPUID
    /// reports none) or under Miri (which has no `rdtsc`).
    Instant(Instant),
}

/// The current time.
#[inline]
pub(super) fn now() -> Stamp {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    if tsc::scale().is_some() {
        return Stamp::Tsc(tsc::read());
    }
    Stamp::Instant(Instant::now())
}

impl Stamp {
    /// The time from `self` to `later` (zero if the clock went backwards between cores).
    #[inline]
    pub(super) fn until(self, later: Stamp) -> Duration {
        match (self, later) {
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            (Stamp::Tsc(start), Stamp::Tsc(end)) => {
                let scale = tsc::scale().expect("TSC stamps exist only with a scale");
                Duration::from_nanos(tsc::to_nanos(end.saturating_sub(start), scale))
            }
            (Stamp::Instant(start), Stamp::Instant(end)) => end.saturating_duration_since(start),
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            _ => unreachable!("the clock is chosen once per process"),
        }
    }
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
mod tsc {
    use std::sync::OnceLock;
    use std::time::{Duration, Instant};

    /// Nanoseconds per tick times 2^32, or `None` if the TSC is not used.
    static SCALE: OnceLock<Option<u64>> = OnceLock::new();

    /// The conversion factor, measured on first use.
    #[inline]
    pub(super) fn scale() -> Option<u64> {
        *SCALE.get_or_init(calibrate)
    }

    #[inline]
    pub(super) fn read() -> u64 {
        // SAFETY: `rdtsc` reads a counter and has no preconditions; x86-64 always has it.
        unsafe { core::arch::x86_64::_rdtsc() }
    }

    /// `ticks` in nanoseconds. The product needs 128 bits (a long block at a few GHz
    /// exceeds 2^64 after a few seconds); one widening multiply, no division.
    #[inline]
    pub(super) fn to_nanos(ticks: u64, scale: u64) -> u64 {
        ((u128::from(ticks) * u128::from(scale)) >> 32) as u64
    }

    /// Whether the CPU reports an invariant TSC (CPUID 0x8000_0007, EDX bit 8): one rate
    /// whatever the frequency and power state.
    fn invariant() -> bool {
        let max_extended = core::arch::x86_64::__cpuid(0x8000_0000).eax;
        max_extended >= 0x8000_0007 && core::arch::x86_64::__cpuid(0x8000_0007).edx & (1 << 8) != 0
    }

    /// Times a 20 µs spin with both clocks. Each `Instant` read is bracketed by two TSC
    /// reads; a bracket longer than 2000 ticks (the thread was preempted in it) or reversed
    /// makes that attempt count for nothing. `None` if the TSC is not invariant or no
    /// attempt of five was clean.
    fn calibrate() -> Option<u64> {
        if !invariant() {
            return None;
        }
        const SPAN: Duration = Duration::from_micros(20);
        const BRACKET: u64 = 2000;
        for _ in 0..5 {
            let before_start = read();
            let start = Instant::now();
            let after_start = read();
            let (elapsed, before_end, after_end) = loop {
                let before = read();
                let elapsed = start.elapsed();
                let after = read();
                if elapsed >= SPAN {
                    break (elapsed, before, after);
                }
            };
            // Midpoints of the brackets: ticks between the two `Instant` reads. Checked, as a
            // thread moved between cores may see the TSC step back.
            let clean = |before: u64, after: u64| {
                after
                    .checked_sub(before)
                    .is_some_and(|bracket| bracket <= BRACKET)
            };
            if !clean(before_start, after_start) || !clean(before_end, after_end) {
                continue;
            }
            let ticks = (before_end / 2 + after_end / 2)
                .checked_sub(before_start / 2 + after_start / 2)
                .filter(|&ticks| ticks > 0);
            let Some(ticks) = ticks else { continue };
            let scale = (elapsed.as_nanos() << 32) / u128::from(ticks);
            return u64::try_from(scale).ok();
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_agrees_with_instant_over_a_few_milliseconds() {
        // Tolerant bounds: a busy CI machine may preempt between the paired reads, and the
        // factor is allowed to be slightly off (it only sizes blocks).
        let (start, instant) = (now(), std::time::Instant::now());
        std::thread::sleep(Duration::from_millis(20));
        let (ours, reference) = (start.until(now()), instant.elapsed());
        let (ours, reference) = (ours.as_secs_f64(), reference.as_secs_f64());
        assert!(
            ours > reference * 0.9 - 0.005 && ours < reference * 1.1 + 0.005,
            "clock says {ours} s, Instant {reference} s"
        );
    }

    #[test]
    fn a_pair_read_backwards_gives_zero_not_a_wrapped_time() {
        let earlier = now();
        std::thread::sleep(Duration::from_millis(1));
        let later = now();
        assert!(earlier.until(later) >= Duration::from_micros(500));
        assert_eq!(later.until(earlier), Duration::ZERO);
        // The fallback, whichever clock this machine uses.
        let (earlier, later) = (Instant::now(), Instant::now() + Duration::from_millis(3));
        let (earlier, later) = (Stamp::Instant(earlier), Stamp::Instant(later));
        assert!(earlier.until(later) >= Duration::from_millis(3));
        assert_eq!(later.until(earlier), Duration::ZERO);
    }
}
