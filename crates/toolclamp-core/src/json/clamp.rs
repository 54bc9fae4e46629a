//! The clamp: the search for the largest room of the whole value whose result fits the
//! limits, and the walk that prices or renders a node within a room (dispatching to
//! [`super::string`], [`super::array`] and [`super::object`]).

use super::layout::{as_measure, ascii, push_ascii, Gap};
use super::markers::SHORT_STRING;
use super::sink::{NoSink, Render, Rendering, Shortened, Sink};
use super::tree::{children, Kind, Node, Parsed};
use super::{Elided, JsonClamp, JsonRequest, JsonUnit, Markers, MAX_DEPTH};
use crate::measure::{Measure, Span};
use crate::plan::{Limits, Strategy, UNLIMITED};

/// One clamp of a parsed value: the request as the walk needs it.
pub(super) struct Clamp<'a, U> {
    pub(super) units: &'a [U],
    pub(super) nodes: &'a [Node],
    pub(super) gap: Gap,
    pub(super) markers: Markers,
    pub(super) strategy: Strategy,
    /// The result is written with the gap (as measured); else compact.
    pub(super) indented: bool,
    /// The gap's units, for writing indentation.
    pub(super) gap_units: Vec<U>,
    /// A kept container's compact text is its token as written (no whitespace in it).
    pub(super) compact_input: bool,
    /// The request's gap is empty (the measures are of the compact rendering).
    pub(super) compact_measures: bool,
}

impl<'a, U: JsonUnit> Clamp<'a, U> {
    pub(super) fn new(units: &'a [U], parsed: &'a Parsed, request: &JsonRequest<'_>) -> Self {
        let gap = Gap::new(request.gap);
        // Units that cannot hold the gap's chars write the stand-in `?` (only a Latin-1
        // caller that asked for indentation it cannot write; see JsonRequest::indent).
        let gap_units =
            request.gap.encode_utf16().map(|c| U::from_utf16(c).unwrap_or_else(|| U::from_ascii(b'?'))).collect();
        Clamp {
            units,
            nodes: &parsed.nodes,
            indented: request.indent && gap.indented(),
            gap,
            markers: request.markers,
            strategy: request.strategy,
            gap_units,
            compact_input: parsed.compact,
            compact_measures: request.gap.is_empty(),
        }
    }

    /// The whole value as rendered with the gap.
    pub(super) fn total(&self) -> Measure {
        as_measure(self.nodes[0].full)
    }

    /// The whole value, rendered.
    pub(super) fn whole(&self) -> JsonClamp<U> {
        self.render(self.nodes[0].full.bytes)
    }

    /// The value clamped within `limits`, which its rendering exceeds.
    pub(super) fn run(&self, limits: Limits) -> JsonClamp<U> {
        match self.best_room(limits) {
            Some(room) => {
                let clamped = self.render(room);
                debug_assert!(clamped.output.fits(limits.as_measure()));
                clamped
            }
            None => self.nothing_fits(limits),
        }
    }

    /// The largest room for the whole value whose result fits `limits`, from the room of
    /// its smallest form (with inline markers; from nothing without), or `None` when that
    /// does not fit.
    fn best_room(&self, limits: Limits) -> Option<u64> {
        let total = self.nodes[0].full.bytes;
        let floor = match self.markers {
            Markers::Inline => self.nodes[0].min_bytes(Markers::Inline),
            Markers::None => 0,
        };
        let fits = |room: u64| self.price(room).fits(limits.as_measure());
        // Results grow with the room in every dimension (near enough: the search keeps the
        // best room that fits, not the last one tried). A result never exceeds its room in
        // bytes and has no more chars than bytes, so a room of the byte or char limit fits
        // those two; room a result leaves unused in them (whole items and members that did
        // not fit their share) is then added back while it fits.
        let start = limits.max_bytes.min(limits.max_chars).min(total).max(floor);
        let at_start = self.price(start);
        let (mut lo, mut hi) = if at_start.fits(limits.as_measure()) {
            self.grow_by_slack(limits, start, at_start)
        } else {
            if floor >= start || !fits(floor) {
                return None;
            }
            (floor, start)
        };
        // Invariant: `lo` fits; `hi` does not, or is past what is worth trying.
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if fits(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some(lo)
    }

    /// The whole value's result within `room`, priced without rendering.
    fn price(&self, room: u64) -> Measure {
        as_measure(self.value(0, room, &mut NoSink))
    }

    /// From a room `start` whose result (`at_start`) fits `limits`, adds back the room the
    /// result leaves unused in bytes and chars while the result still fits. Returns the
    /// bracket for the bisection: `lo` fits; `hi` does not, or is past what is worth trying.
    fn grow_by_slack(&self, limits: Limits, start: u64, at_start: Measure) -> (u64, u64) {
        let total = self.nodes[0].full.bytes;
        let slack = |m: Measure| {
            let room = |limit: u64, used: u64| if limit == UNLIMITED { u64::MAX } else { limit.saturating_sub(used) };
            room(limits.max_bytes, m.bytes).min(room(limits.max_chars, m.chars))
        };
        let (mut lo, mut hi) = (start, total);
        let mut spare = slack(at_start);
        for _ in 0..16 {
            if spare == 0 || spare == u64::MAX {
                break;
            }
            let next = lo.saturating_add(spare).min(total);
            if next == lo {
                break;
            }
            let m = self.price(next);
            if !m.fits(limits.as_measure()) {
                hi = next;
                break;
            }
            lo = next;
            spare = slack(m);
        }
        if spare == 0 || hi == total && spare != u64::MAX {
            hi = lo + 1;
        }
        (lo, hi)
    }

    /// The value rendered within `room`.
    pub(super) fn render(&self, room: u64) -> JsonClamp<U> {
        let mut render = Render { text: Vec::new(), elided: Vec::new(), path: Vec::new() };
        let output = as_measure(self.value(0, room, &mut Rendering { render: &mut render, units: self.units }));
        JsonClamp { text: render.text, elided: render.elided, total: self.total(), output }
    }

    /// The result when not even the value's smallest form fits: `"[...]"` with inline
    /// markers when that fits, else the empty text.
    fn nothing_fits(&self, limits: Limits) -> JsonClamp<U> {
        let total = self.total();
        let marker = as_measure(ascii(SHORT_STRING.len() as u64));
        let (text, output) = if self.markers == Markers::Inline && marker.fits(limits.as_measure()) {
            let mut text = Vec::new();
            push_ascii(&mut text, SHORT_STRING);
            (text, marker)
        } else {
            (Vec::new(), Measure { chars: 0, bytes: 0, lines: 0 })
        };
        let mut path = Vec::new();
        push_ascii(&mut path, "$");
        JsonClamp { text, elided: vec![Elided::Value { path, total_bytes: total.bytes }], total, output }
    }

    pub(super) fn children(&self, id: usize) -> impl Iterator<Item = usize> + 'a {
        children(self.nodes, id)
    }

    pub(super) fn token(&self, node: &Node) -> &'a [U] {
        &self.units[node.span()]
    }

    /// Renders (or prices) node `id` within `room` bytes; returns its exact cost. A node
    /// is never given less than its smallest form, except the root (whose result is then
    /// checked against the limits).
    pub(super) fn value<S: Sink<U>>(&self, id: usize, room: u64, sink: &mut S) -> Span {
        let node = &self.nodes[id];
        if node.full.bytes <= room {
            if S::RENDERS {
                self.write_whole(id, sink);
            }
            return node.full;
        }
        match node.kind {
            Kind::Scalar => {
                sink.units(self.token(node));
                node.full
            }
            Kind::String => self.string(node, room, sink),
            Kind::Array | Kind::Object if node.depth >= MAX_DEPTH => self.deepest(id, room, sink),
            Kind::Array => self.array(id, room, sink),
            Kind::Object => self.object(id, room, sink),
        }
    }

    /// A container too deep to cut inside, which does not fit whole: its smallest form.
    fn deepest<S: Sink<U>>(&self, id: usize, room: u64, sink: &mut S) -> Span {
        let node = &self.nodes[id];
        let array = node.kind == Kind::Array;
        let total = node.count as u64;
        let marked = self.markers == Markers::Inline && node.count > 0 && node.min_bytes(self.markers) <= room;
        let span = if !marked {
            sink.ascii(if array { "[]" } else { "{}" });
            ascii(2)
        } else {
            let depth = node.depth;
            sink.ascii(if array { "[" } else { "{" });
            self.before_member(sink, true, depth);
            let mut span = self.gap.frame(depth) + self.gap.per_member(depth) + ascii(SHORT_STRING.len() as u64);
            if !array {
                let key = self.marker_key(id);
                self.write_marker_key(sink, key.0);
                self.write_colon(sink);
                span = span + key.1 + self.gap.colon();
            }
            sink.ascii(SHORT_STRING);
            self.close(sink, if array { "]" } else { "}" }, depth, true);
            span
        };
        sink.elide(if array { Shortened::Items { kept: 0, total } } else { Shortened::Keys { kept: 0, total } });
        span
    }
}
