//! A bounded single-producer single-consumer ring of `Copy` records: a worker appends what it
//! did, a reader (`ThreadPool::take_trace`, serialized by the pool's trace mutex) drains it.
//! No lock and no allocation on the producer's side; when the ring is full the newest record
//! is dropped and counted, so a worker never waits for a reader.
//!
//! # Orderings
//!
//! | atomic | written by | read by | Release → Acquire pairs |
//! |---|---|---|---|
//! | `head`: records ever written | producer (`push`, Release store) | consumer (`drain_into`, Acquire load) | the slot written before the store is seen by the consumer that loads the new `head` |
//! | `tail`: records ever consumed | consumer (`drain_into`, Release store) | producer (`push`, Acquire load, only when its cached copy says full) | the consumer's reads of the slots before the store happen before the producer overwrites them |
//! | `dropped` | producer (Relaxed load + store, single writer) | consumer (Relaxed) | none: a count |
//!
//! The producer writes slot `head % capacity` only while `head - tail < capacity`, so the
//! slot is outside the consumer's window `tail..head`; the consumer reads only that window.
//! Both counters only grow (wrapping `usize`), so their difference is the fill level.

use std::mem::MaybeUninit;
use std::sync::Arc;

use crossbeam_utils::CachePadded;

use crate::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use crate::sync::UnsafeCell;

/// The shared part of a ring.
#[derive(Debug)]
struct Ring<T> {
    /// Slot `i % capacity` holds record `i` while `tail <= i < head`. Written by the producer
    /// only outside that window, read by the consumer only inside it (see the module doc).
    slots: Box<[UnsafeCell<MaybeUninit<T>>]>,
    /// Padded apart: the producer stores `head` at every push, the consumer `tail` at drains.
    head: CachePadded<AtomicUsize>,
    tail: CachePadded<AtomicUsize>,
    dropped: AtomicU64,
}

// SAFETY: the slots are only reached through the one `Producer` (writes outside the
// consumer's window) and the one `Consumer` (reads inside it), synchronized by `head` and
// `tail` as the module doc's table says; records are `Send`, so moving their copies to the
// consumer's thread is fine.
unsafe impl<T: Send> Sync for Ring<T> {}
// SAFETY: as above; the ring owns its records.
unsafe impl<T: Send> Send for Ring<T> {}

/// The writing end: exactly one per ring, used by one thread at a time (`!Sync`).
#[derive(Debug)]
pub(crate) struct Producer<T> {
    ring: Arc<Ring<T>>,
    /// Our copy of `head` (only we write it).
    head: std::cell::Cell<usize>,
    /// The last `tail` we loaded; the real one is at least this.
    tail_seen: std::cell::Cell<usize>,
}

/// The reading end: exactly one per ring; `drain_into` takes `&mut self`.
#[derive(Debug)]
pub(crate) struct Consumer<T> {
    ring: Arc<Ring<T>>,
}

/// A ring of `capacity` records (at least 1) and its two ends.
pub(crate) fn ring<T: Copy + Send>(capacity: usize) -> (Producer<T>, Consumer<T>) {
    let capacity = capacity.max(1);
    let ring = Arc::new(Ring {
        slots: (0..capacity)
            .map(|_| UnsafeCell::new(MaybeUninit::uninit()))
            .collect(),
        head: CachePadded::new(AtomicUsize::new(0)),
        tail: CachePadded::new(AtomicUsize::new(0)),
        dropped: AtomicU64::new(0),
    });
    let producer = Producer {
        ring: Arc::clone(&ring),
        head: std::cell::Cell::new(0),
        tail_seen: std::cell::Cell::new(0),
    };
    (producer, Consumer { ring })
}

impl<T: Copy + Send> Producer<T> {
    /// Appends `record`, or counts it as dropped if the ring is full. Never blocks.
    #[inline]
    pub(crate) fn push(&self, record: T) {
        let ring = &*self.ring;
        let capacity = ring.slots.len();
        let head = self.head.get();
        if head.wrapping_sub(self.tail_seen.get()) >= capacity {
            // ORDERING: Acquire pairs with the consumer's Release store of `tail`: its reads
            // of the slots it consumed happen before we overwrite them below.
            self.tail_seen.set(ring.tail.load(Ordering::Acquire));
            if head.wrapping_sub(self.tail_seen.get()) >= capacity {
                // ORDERING: a count with one writer (us); readers want a number, no data.
                let dropped = ring.dropped.load(Ordering::Relaxed);
                ring.dropped.store(dropped + 1, Ordering::Relaxed);
                return;
            }
        }
        ring.slots[head % capacity].with_mut(|slot| {
            // SAFETY: `head - tail < capacity` (checked above against a `tail` that only
            // grows), so this slot lies outside the consumer's window `tail..head` and no
            // one else reads or writes it; we are the only producer (`Producer` is unique
            // and `!Sync`).
            unsafe { slot.write(MaybeUninit::new(record)) }
        });
        self.head.set(head.wrapping_add(1));
        // ORDERING: Release publishes the slot just written to the consumer's Acquire load.
        ring.head.store(head.wrapping_add(1), Ordering::Release);
    }
}

impl<T: Copy + Send> Consumer<T> {
    /// Moves every record written so far to the end of `out`, oldest first, and frees their
    /// slots for the producer.
    pub(crate) fn drain_into(&mut self, out: &mut Vec<T>) {
        let ring = &*self.ring;
        let capacity = ring.slots.len();
        // ORDERING: Relaxed: only we store `tail`.
        let tail = ring.tail.load(Ordering::Relaxed);
        // ORDERING: Acquire pairs with the producer's Release store: the slots below `head`
        // are written and visible.
        let head = ring.head.load(Ordering::Acquire);
        let mut index = tail;
        while index != head {
            let record = ring.slots[index % capacity].with(|slot| {
                // SAFETY: `tail <= index < head`: the producer wrote this slot before its
                // Release store of `head` (which our Acquire load saw) and will not touch it
                // again before our Release store of `tail` below.
                unsafe { (*slot).assume_init() }
            });
            out.push(record);
            index = index.wrapping_add(1);
        }
        // ORDERING: Release pairs with the producer's Acquire load of `tail`: our reads of
        // the slots above happen before it reuses them.
        ring.tail.store(head, Ordering::Release);
    }

    /// Records dropped because the ring was full, since it was made.
    pub(crate) fn dropped(&self) -> u64 {
        // ORDERING: a count (see `Producer::push`).
        self.ring.dropped.load(Ordering::Relaxed)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn records_come_out_in_order_and_a_full_ring_drops_the_newest() {
        let (producer, mut consumer) = ring::<u32>(4);
        let mut out = Vec::new();
        for i in 0..6 {
            producer.push(i);
        }
        consumer.drain_into(&mut out);
        assert_eq!(out, [0, 1, 2, 3]);
        assert_eq!(consumer.dropped(), 2);
        // Draining frees the slots: the ring wraps around.
        for i in 10..13 {
            producer.push(i);
        }
        consumer.drain_into(&mut out);
        assert_eq!(out, [0, 1, 2, 3, 10, 11, 12]);
        consumer.drain_into(&mut out);
        assert_eq!(out.len(), 7, "nothing twice");
        assert_eq!(consumer.dropped(), 2);
    }

    #[test]
    fn a_concurrent_reader_sees_every_record_once_in_order() {
        let (producer, mut consumer) = ring::<u64>(64);
        let total = 200_000u64;
        let writer = std::thread::spawn(move || {
            for i in 0..total {
                producer.push(i);
            }
        });
        let mut out = Vec::new();
        while !writer.is_finished() {
            consumer.drain_into(&mut out);
        }
        writer.join().unwrap();
        consumer.drain_into(&mut out);
        // What was kept is in order, nothing twice, and kept + dropped = written.
        assert!(out.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(out.len() as u64 + consumer.dropped(), total);
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    //! The producer and the consumer on two threads: every record read was written, in
    //! order, at most once; kept + dropped = written; loom checks each slot access for races.

    use super::ring;
    use crate::sync::thread;

    #[test]
    fn loom_ring_hands_over_each_record_once() {
        loom::model(|| {
            let (producer, mut consumer) = ring::<u32>(2);
            let writer = thread::spawn(move || {
                for i in 0..3 {
                    producer.push(i);
                }
            });
            let mut out = Vec::new();
            consumer.drain_into(&mut out);
            writer.join().unwrap();
            consumer.drain_into(&mut out);
            assert!(out.windows(2).all(|w| w[0] < w[1]), "{out:?}");
            assert_eq!(out.len() as u64 + consumer.dropped(), 3);
        });
    }
}
