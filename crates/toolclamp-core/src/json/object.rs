//! Cutting an object within its room: every member kept (else the longest prefix with the
//! marker key for the rest), its values sharing the room by water-filling so small members
//! stay whole and large ones share what is left.

use super::clamp::Clamp;
use super::layout::ascii;
use super::markers::{count_text, free_dots, json_string, marker_key_span, note_dots, SHORT_STRING};
use super::sink::{Shortened, Sink, Step};
use super::{JsonUnit, Markers};
use crate::measure::Span;

impl<U: JsonUnit> Clamp<'_, U> {
    /// Renders (or prices) object `id` within `room`: every member (else the longest
    /// prefix that fits with the marker for the rest), its values sharing the room by
    /// water-filling; room a member leaves unused passes to the next.
    pub(super) fn object<S: Sink<U>>(&self, id: usize, room: u64, sink: &mut S) -> Span {
        let node = &self.nodes[id];
        let depth = node.depth;
        let n = node.count();
        let members: Vec<usize> = self.children(id).collect();
        let per = self.gap.per_member(depth);
        let frame = self.gap.frame(depth);
        let colon = self.gap.colon();
        let inline = self.markers == Markers::Inline;
        let key_span = |m: usize| {
            let c = &self.nodes[m];
            U::span(&self.units[c.key()], None)
        };
        let overhead = |m: usize| per + key_span(m) + colon;
        let (dots, key) = self.marker_key(id);
        let marker = |dropped: usize| -> Option<String> {
            (inline && dropped > 0).then(|| json_string(&count_text(dropped as u64, "more keys")))
        };
        let text_cost = |text: &str| per + key + colon + ascii(text.len() as u64);
        // Room is kept for the long marker; the short one stands in where it does not fit.
        let marker_cost = |dropped: usize| -> Span { marker(dropped).map_or(Span::ZERO, |m| text_cost(&m)) };
        let avail = room.saturating_sub(frame.bytes);
        // Every member in its smallest form, else the longest prefix that fits with the
        // marker for the rest.
        let smallest = |m: usize| overhead(m).bytes + self.nodes[m].min_bytes(self.markers);
        let all: u64 = members.iter().map(|&m| smallest(m)).sum();
        let (mut kept, mut fixed) = (n, all);
        if all > avail {
            (kept, fixed) = (0, 0);
            for (k, &m) in members.iter().enumerate() {
                let next = fixed + smallest(m);
                if next + marker_cost(n - k - 1).bytes > avail {
                    break;
                }
                fixed = next;
                kept += 1;
            }
        }
        let mark = marker(n - kept).and_then(|long| {
            if fixed + text_cost(&long).bytes <= avail {
                Some(long)
            } else {
                (fixed + text_cost(SHORT_STRING).bytes <= avail).then(|| SHORT_STRING.to_string())
            }
        });
        let mark_cost = mark.as_deref().map_or(Span::ZERO, text_cost);
        if kept == 0 && mark.is_none() {
            sink.ascii("{}");
            if S::RENDERS {
                sink.elide(Shortened::Keys { kept: 0, total: n as u64 });
            }
            return ascii(2);
        }
        let values_room = avail - members[..kept].iter().map(|&m| overhead(m).bytes).sum::<u64>() - mark_cost.bytes;
        let level = self.water_level(&members[..kept], values_room);
        let mut spare = values_room.saturating_sub(self.shares_at(level, &members[..kept]));
        let mut total = frame;
        sink.ascii("{");
        for (k, &m) in members[..kept].iter().enumerate() {
            self.before_member(sink, k == 0, depth);
            let c = &self.nodes[m];
            sink.units(&self.units[c.key()]);
            self.write_colon(sink);
            let given = self.share(level, m) + spare;
            sink.enter(Step::Key { start: c.key_start as usize, end: c.key_end as usize });
            let used = self.value(m, given, sink);
            sink.leave();
            spare = given.saturating_sub(used.bytes);
            total = total + overhead(m) + used;
        }
        if let Some(text) = &mark {
            self.before_member(sink, kept == 0, depth);
            self.write_marker_key(sink, dots);
            self.write_colon(sink);
            sink.ascii(text);
            total = total + mark_cost;
        }
        self.close(sink, "}", depth, true);
        if S::RENDERS && kept < n {
            sink.elide(Shortened::Keys { kept: kept as u64, total: n as u64 });
        }
        total
    }

    /// Water-filling: the largest level `L` whose shares over `members` fit `room`.
    fn water_level(&self, members: &[usize], room: u64) -> u64 {
        let (mut lo, mut hi) = (0u64, members.iter().map(|&m| self.nodes[m].full.bytes).max().unwrap_or(0));
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if self.shares_at(mid, members) <= room {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        lo
    }

    /// The room `members` get at water level `level`.
    fn shares_at(&self, level: u64, members: &[usize]) -> u64 {
        members.iter().map(|&m| self.share(level, m)).sum()
    }

    /// The room member `m` gets at water level `level`: `clamp(level, min, full)`, never
    /// less than its smallest form nor more than its whole rendering.
    fn share(&self, level: u64, m: usize) -> u64 {
        let c = &self.nodes[m];
        let min = c.min_bytes(self.markers);
        level.clamp(min, c.full.bytes.max(min))
    }

    /// The key of the dropped-keys member of object `id`: `"…"`, with more `…` while a
    /// member has it. Its dots and its span as rendered.
    pub(super) fn marker_key(&self, id: usize) -> (usize, Span) {
        let mut taken = 0u64;
        for m in self.children(id) {
            note_dots(&mut taken, &self.units[self.nodes[m].key()]);
        }
        let dots = free_dots(taken);
        (dots, marker_key_span(dots))
    }
}
