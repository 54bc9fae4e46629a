//! Cutting an array within its room: whole items in order from the ends the strategy
//! keeps, one item shrunk when none fits whole, and the marker item for the rest.

use super::clamp::Clamp;
use super::layout::ascii;
use super::markers::{count_text, json_string, SHORT_STRING};
use super::sink::{Shortened, Sink, Step};
use super::{JsonUnit, Markers};
use crate::measure::Span;
use crate::plan::Strategy;

impl<U: JsonUnit> Clamp<'_, U> {
    /// Renders (or prices) array `id` within `room`: the items [`Clamp::kept_items`]
    /// chooses, in order, with the marker where items were dropped.
    pub(super) fn array<S: Sink<U>>(&self, id: usize, room: u64, sink: &mut S) -> Span {
        let node = &self.nodes[id];
        let depth = node.depth;
        let n = node.count();
        let per = self.gap.per_member(depth);
        let frame = self.gap.frame(depth);
        let avail = room.saturating_sub(frame.bytes);
        let Kept { items, head, tail, partial, mark, dropped } = self.kept_items(id, avail);
        let members = head + tail + partial.is_some() as usize + mark.is_some() as usize;
        if members == 0 {
            sink.ascii("[]");
            if S::RENDERS {
                sink.elide(Shortened::Items { kept: 0, total: n as u64 });
            }
            return ascii(2);
        }
        let mut total = frame;
        let mut first = true;
        let mut next_member = |sink: &mut S| {
            self.before_member(sink, first, depth);
            first = false;
        };
        sink.ascii("[");
        let whole = |k: usize, sink: &mut S| {
            let item = &self.nodes[items[k]];
            if S::RENDERS {
                self.write_whole(items[k], sink);
            }
            per + item.full
        };
        let shrunk = |k: usize, left: u64, sink: &mut S| {
            sink.enter(Step::Index(k));
            let s = self.value(items[k], left, sink);
            sink.leave();
            per + s
        };
        let tail_from = n - tail;
        for k in 0..head {
            next_member(sink);
            total = total + whole(k, sink);
        }
        let partial_in_head = self.strategy != Strategy::Tail;
        if let (Some((k, left)), true) = (partial, partial_in_head) {
            next_member(sink);
            total = total + shrunk(k, left, sink);
        }
        if let Some(m) = &mark {
            next_member(sink);
            sink.ascii(m);
            total = total + per + ascii(m.len() as u64);
        }
        if let (Some((k, left)), false) = (partial, partial_in_head) {
            next_member(sink);
            total = total + shrunk(k, left, sink);
        }
        for k in tail_from..n {
            next_member(sink);
            total = total + whole(k, sink);
        }
        self.close(sink, "]", depth, true);
        if S::RENDERS && dropped > 0 {
            sink.elide(Shortened::Items { kept: (n - dropped) as u64, total: n as u64 });
        }
        total
    }

    /// The items of array `id` kept within `avail` bytes (its room less its brackets):
    /// whole items from the ends the strategy keeps, else one item shrunk, and the marker
    /// for the rest.
    fn kept_items(&self, id: usize, avail: u64) -> Kept {
        let node = &self.nodes[id];
        let n = node.count();
        let per = self.gap.per_member(node.depth);
        // `Head` reads no further than one item past the room (an array of a million items
        // is walked once per room tried); the other strategies need the last items too.
        let items: Vec<usize> = if self.strategy == Strategy::Head {
            let mut used = 0;
            let mut prefix = Vec::new();
            for c in self.children(id) {
                prefix.push(c);
                used += per.bytes + self.nodes[c].full.bytes;
                if used > avail {
                    break;
                }
            }
            prefix
        } else {
            self.children(id).collect()
        };
        let inline = self.markers == Markers::Inline;
        let marker = |dropped: usize| -> Option<String> {
            (inline && dropped > 0).then(|| json_string(&count_text(dropped as u64, "more items")))
        };
        // Room is kept for the long marker; the short one stands in where it does not fit.
        let marker_bytes = |dropped: usize| marker(dropped).map_or(0, |m| per.bytes + m.len() as u64);
        let cost = |i: usize| per.bytes + self.nodes[items[i]].full.bytes;
        // Whole items from the front (`head`) and the back (`tail`).
        let (mut head, mut tail, mut used) = (0usize, 0usize, 0u64);
        let take = |from_front: bool, cap: u64, head: &mut usize, tail: &mut usize, used: &mut u64| {
            while *head + *tail < n {
                let i = if from_front { *head } else { n - 1 - *tail };
                let next = *used + cost(i);
                if next + marker_bytes(n - *head - *tail - 1) > cap {
                    break;
                }
                *used = next;
                if from_front {
                    *head += 1;
                } else {
                    *tail += 1;
                }
            }
        };
        match self.strategy {
            Strategy::Head => take(true, avail, &mut head, &mut tail, &mut used),
            Strategy::Tail => take(false, avail, &mut head, &mut tail, &mut used),
            Strategy::HeadTail { head_ratio } => {
                let cap = (avail as f64 * head_ratio.clamp(0.0, 1.0)).floor() as u64;
                take(true, cap, &mut head, &mut tail, &mut used);
                take(false, avail, &mut head, &mut tail, &mut used);
                take(true, avail, &mut head, &mut tail, &mut used);
            }
        }
        // When no item fits whole, the first one (the last with `Tail`) is shrunk into the
        // room, so an array of one huge item still shows something.
        let mut partial = None;
        let dropped = n - head - tail;
        if dropped > 0 && head + tail == 0 {
            let at = if self.strategy == Strategy::Tail { n - 1 - tail } else { head };
            let left = avail.saturating_sub(used + per.bytes + marker_bytes(dropped - 1));
            if avail >= used + per.bytes + marker_bytes(dropped - 1)
                && left >= self.nodes[items[at]].min_bytes(self.markers)
            {
                partial = Some((at, left));
            }
        }
        let dropped = dropped - partial.is_some() as usize;
        // With a shrunk item the marker's room was kept; without, it may not fit, and the
        // short one may.
        let mark = marker(dropped).and_then(|long| {
            if partial.is_some() || used + per.bytes + long.len() as u64 <= avail {
                Some(long)
            } else {
                (used + per.bytes + SHORT_STRING.len() as u64 <= avail).then(|| SHORT_STRING.to_string())
            }
        });
        Kept { items, head, tail, partial, mark, dropped }
    }
}

/// What an array keeps: `head` items from the front and `tail` from the back of `items`
/// (its children, or with `Head` those up to one past the room), maybe one item shrunk
/// into the room left (its index and room), and the marker for the `dropped` ones.
struct Kept {
    items: Vec<usize>,
    head: usize,
    tail: usize,
    partial: Option<(usize, u64)>,
    mark: Option<String>,
    dropped: usize,
}
