//! The sleep protocol's packed counter word.
//!
//! | bits   | field          | meaning                                                     |
//! |--------|----------------|-------------------------------------------------------------|
//! | 0..16  | `idle`         | workers looking for work, awake or asleep                   |
//! | 16..32 | `sleeping`     | workers asleep (a subset of `idle`)                         |
//! | 32..64 | `jobs_event`   | bumped (wrapping) every time work is published              |
//!
//! One word, so that "did work arrive since I got sleepy?" and "I am now asleep" are decided
//! by one compare-and-swap (see *sleepy-then-publish* in `README.md`).

/// The most workers one pool can have: `idle` and `sleeping` are 16-bit fields.
pub(crate) const MAX_WORKERS: usize = 0xFFFF;

pub(crate) const ONE_IDLE: u64 = 1;
pub(crate) const ONE_SLEEPING: u64 = 1 << 16;
pub(crate) const ONE_JOBS_EVENT: u64 = 1 << 32;

/// A decoded counter word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Counters {
    pub(crate) idle: usize,
    pub(crate) sleeping: usize,
    pub(crate) jobs_event: u32,
}

impl Counters {
    #[inline]
    pub(crate) fn unpack(word: u64) -> Counters {
        Counters {
            idle: (word & 0xFFFF) as usize,
            sleeping: ((word >> 16) & 0xFFFF) as usize,
            jobs_event: (word >> 32) as u32,
        }
    }

    #[cfg(all(test, not(loom)))]
    pub(crate) fn pack(self) -> u64 {
        (self.idle as u64) | ((self.sleeping as u64) << 16) | ((self.jobs_event as u64) << 32)
    }

    /// Idle workers that are awake, and so will find newly published work on their own.
    #[inline]
    pub(crate) fn awake_idle(self) -> usize {
        self.idle - self.sleeping
    }
}

/// True if the word says some worker is looking for work (the `join` fast path's hint).
#[inline]
pub(crate) fn anyone_idle(word: u64) -> bool {
    word & 0xFFFF != 0
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn pack_unpack_round_trip() {
        for &(idle, sleeping, jobs_event) in &[
            (0, 0, 0),
            (1, 0, 7),
            (3, 2, u32::MAX),
            (MAX_WORKERS, MAX_WORKERS, 0x8000_0001),
        ] {
            let c = Counters {
                idle,
                sleeping,
                jobs_event,
            };
            assert_eq!(Counters::unpack(c.pack()), c);
        }
    }

    #[test]
    fn increments_touch_one_field() {
        let base = Counters {
            idle: 5,
            sleeping: 2,
            jobs_event: 9,
        }
        .pack();
        let c = Counters::unpack(base + ONE_IDLE);
        assert_eq!((c.idle, c.sleeping, c.jobs_event), (6, 2, 9));
        let c = Counters::unpack(base + ONE_SLEEPING);
        assert_eq!((c.idle, c.sleeping, c.jobs_event), (5, 3, 9));
        let c = Counters::unpack(base + ONE_JOBS_EVENT);
        assert_eq!((c.idle, c.sleeping, c.jobs_event), (5, 2, 10));
        assert_eq!(c.awake_idle(), 3);
        // The jobs event wraps without disturbing the other fields.
        let top = Counters {
            idle: 1,
            sleeping: 1,
            jobs_event: u32::MAX,
        }
        .pack();
        let c = Counters::unpack(top.wrapping_add(ONE_JOBS_EVENT));
        assert_eq!((c.idle, c.sleeping, c.jobs_event), (1, 1, 0));
        assert!(anyone_idle(base) && !anyone_idle(ONE_JOBS_EVENT * 3));
    }
}
