//! `Handoff<T>`: a `StealRange` plus the splittable value its indices stand for (an indexed
//! producer, or a producer and consumer pair), so that whoever claims indices also receives
//! exactly the piece of the value for them. See "The hand-off" in `drive/README.md`.
//!
//! The indices are decided lock-free by the `StealRange`; the value is a single owned `T`
//! (Send, not Sync), so its pieces sit in a slot behind a mutex. Each claimant (the owner once
//! per chunk, a thief once per steal) locks it for a few `split_at` calls, never while user
//! code runs. Invariant: the pieces in the slot cover exactly the indices that are unclaimed
//! or claimed but not yet taken out, and every claim lies inside one piece (pieces are only
//! cut at claim boundaries, and claims are disjoint). So a claimant always finds its piece,
//! whatever order the claimants reach the slot in.

use core::ops::Range;

use super::{Chunk, OwnerCursor, StealRange};
use crate::sync::Mutex;

/// A value that stands for `len` consecutive indices and can be cut in two, like a Rayon
/// `Producer`: `split_at(i)` gives the first `i` and the rest.
pub(crate) trait SplitAt: Sized {
    /// Splits into `[0, index)` and `[index, len)`.
    fn split_at(self, index: usize) -> (Self, Self);
}

/// A `StealRange` together with the value for its indices.
pub(crate) struct Handoff<T> {
    /// `pub(super)` (like `take_out`) so that the tests can claim and take out separately.
    pub(super) range: StealRange,
    /// Pieces not yet taken out by their claimant. Locked once per claim, for `split_at` only.
    slot: Mutex<Pieces<T>>,
}

impl<T> core::fmt::Debug for Handoff<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Handoff")
            .field("range", &self.range)
            .finish_non_exhaustive()
    }
}

/// The value for the indices `indices`.
struct Piece<T> {
    indices: Range<u32>,
    value: T,
}

/// Usually one piece (`first`); `others` holds the rare extra pieces left when a later thief
/// reaches the slot before an earlier one, so the common path never allocates.
struct Pieces<T> {
    first: Option<Piece<T>>,
    others: Vec<Piece<T>>,
}

impl<T: SplitAt> Handoff<T> {
    /// `value` stands for `indices` (so `indices.len()` items); returns the owner's cursor too
    /// (tests and benches; the driver builds its hand-off with [`Handoff::unclaimed_by`]).
    #[cfg(any(test, feature = "bench-internals"))]
    pub(crate) fn new(
        indices: Range<u32>,
        value: T,
        limits: super::ChunkLimits,
    ) -> (Self, OwnerCursor) {
        let cursor = OwnerCursor::new(indices, limits);
        (Handoff::unclaimed_by(&cursor, value), cursor)
    }

    /// A hand-off for the indices `cursor` has not claimed yet, for which `value` stands (a
    /// driver that claimed a first chunk with [`OwnerCursor::claim_unshared`]).
    pub(crate) fn unclaimed_by(cursor: &OwnerCursor, value: T) -> Self {
        let first = Some(Piece {
            indices: cursor.low..cursor.high_seen,
            value,
        });
        let slot = Mutex::new(Pieces {
            first,
            others: Vec::new(),
        });
        Handoff {
            range: StealRange::unclaimed_by(cursor),
            slot,
        }
    }

    /// Owner: the next chunk and its piece of the value, or `None` once exhausted.
    #[inline]
    pub(crate) fn take_chunk(&self, cursor: &mut OwnerCursor) -> Option<(Chunk, T)> {
        let chunk = self.range.take_chunk(cursor)?;
        let value = self.take_out(chunk.indices.clone());
        Some((chunk, value))
    }

    /// Thief: the upper half of what is left and its piece, or `None` if too little is left.
    /// The thief then owns that piece: it makes a `Handoff` of its own for it.
    pub(crate) fn steal_half(&self) -> Option<(Range<u32>, T)> {
        let indices = self.range.steal_half()?;
        let value = self.take_out(indices.clone());
        Some((indices, value))
    }

    /// Owner: whether a thief took part of the range since the owner last looked (see
    /// `StealRange::peek_steal`).
    #[inline]
    pub(crate) fn peek_steal(&self, cursor: &mut OwnerCursor) -> bool {
        self.range.peek_steal(cursor)
    }

    /// Owner: no thief may start on what is left (see `StealRange::close`); the unclaimed
    /// pieces stay in the slot and are dropped with the `Handoff`.
    pub(crate) fn close(&self) {
        self.range.close();
    }

    /// True once every index has been claimed (pieces may still be on their way out).
    #[cfg(test)]
    pub(crate) fn is_exhausted(&self) -> bool {
        self.range.is_exhausted()
    }

    /// Takes the piece for `claim` (just claimed on `range`) out of the slot.
    pub(super) fn take_out(&self, claim: Range<u32>) -> T {
        let mut pieces = self
            .slot
            .lock()
            .expect("weft: a producer's split_at panicked during a range hand-off");
        pieces.take_out(claim)
    }
}

impl<T: SplitAt> Pieces<T> {
    /// Removes the piece holding `claim`, puts back what lies below and above, returns the rest.
    fn take_out(&mut self, claim: Range<u32>) -> T {
        // The common case, an owner's chunk: a prefix of the first piece. One `split_at`,
        // nothing else to look at or put back.
        if let Some(first) = self
            .first
            .take_if(|piece| piece.indices.start == claim.start && claim.end <= piece.indices.end)
        {
            let (mine, above) = first.cut(claim.end);
            self.first = above;
            return mine.expect("a claim is never empty").value;
        }
        let piece = self.remove_containing(&claim);
        let (below, from_claim) = piece.cut(claim.start);
        let (mine, above) = from_claim.expect("a claim is never empty").cut(claim.end);
        self.put_back(below);
        self.put_back(above);
        mine.expect("a claim is never empty").value
    }

    fn remove_containing(&mut self, claim: &Range<u32>) -> Piece<T> {
        let holds = |piece: &mut Piece<T>| {
            piece.indices.start <= claim.start && claim.end <= piece.indices.end
        };
        if let Some(piece) = self.first.take_if(holds) {
            return piece;
        }
        let position = self
            .others
            .iter_mut()
            .position(holds)
            .expect("weft: claimed indices missing from the hand-off slot");
        self.others.swap_remove(position)
    }

    fn put_back(&mut self, piece: Option<Piece<T>>) {
        match (piece, &self.first) {
            (None, _) => {}
            (Some(piece), None) => self.first = Some(piece),
            (Some(piece), Some(_)) => self.others.push(piece),
        }
    }
}

impl<T: SplitAt> Piece<T> {
    /// Cuts at the absolute index `at`, calling `split_at` only for a real cut.
    fn cut(self, at: u32) -> (Option<Self>, Option<Self>) {
        let Range { start, end } = self.indices;
        if at <= start {
            return (None, Some(self));
        }
        if at >= end {
            return (Some(self), None);
        }
        let (lower, upper) = self.value.split_at((at - start) as usize);
        let lower = Piece {
            indices: start..at,
            value: lower,
        };
        let upper = Piece {
            indices: at..end,
            value: upper,
        };
        (Some(lower), Some(upper))
    }
}
