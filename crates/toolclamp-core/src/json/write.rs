//! Writing whole values and the separators between members: a kept value as written when
//! the result lays it out so, else member by member with the gap.

use super::clamp::Clamp;
use super::sink::Sink;
use super::tree::Kind;
use super::JsonUnit;

impl<U: JsonUnit> Clamp<'_, U> {
    /// Writes node `id` whole: its token as written when that is how the result lays it
    /// out, else rendered member by member (without recursion: a kept value may be nested
    /// far deeper than [`super::MAX_DEPTH`]).
    pub(super) fn write_whole<S: Sink<U>>(&self, id: usize, sink: &mut S) {
        let node = &self.nodes[id];
        let as_written = match node.kind {
            Kind::Scalar | Kind::String => true,
            Kind::Array | Kind::Object => {
                !self.indented
                    && (self.compact_input
                        || self.compact_measures && node.full.chars == (node.end - node.start) as u64)
            }
        };
        if as_written || node.count == 0 {
            if node.count == 0 && !matches!(node.kind, Kind::Scalar | Kind::String) {
                sink.ascii(if node.kind == Kind::Array { "[]" } else { "{}" });
            } else {
                sink.units(self.token(node));
            }
            return;
        }
        // Open containers: (the node, members left to write).
        let mut open: Vec<(usize, u32)> = Vec::new();
        for k in id..node.next() {
            let n = &self.nodes[k];
            if let Some((parent, left)) = open.last_mut() {
                let p = &self.nodes[*parent];
                self.before_member(sink, *left == p.count, p.depth);
                *left -= 1;
                if p.kind == Kind::Object {
                    sink.units(&self.units[n.key()]);
                    self.write_colon(sink);
                }
            }
            match n.kind {
                Kind::Scalar | Kind::String => sink.units(self.token(n)),
                Kind::Array | Kind::Object if n.count == 0 => {
                    sink.ascii(if n.kind == Kind::Array { "[]" } else { "{}" });
                }
                Kind::Array | Kind::Object => {
                    sink.ascii(if n.kind == Kind::Array { "[" } else { "{" });
                    open.push((k, n.count));
                    continue;
                }
            }
            while let Some(&(parent, 0)) = open.last() {
                let p = &self.nodes[parent];
                self.close(sink, if p.kind == Kind::Array { "]" } else { "}" }, p.depth, true);
                open.pop();
            }
        }
    }

    /// Before a member of a container at `depth`: a comma after the first, and when
    /// indented a line break and the member's indentation.
    pub(super) fn before_member<S: Sink<U>>(&self, sink: &mut S, first: bool, depth: u32) {
        if !S::RENDERS {
            return;
        }
        if !first {
            sink.ascii(",");
        }
        if self.indented {
            sink.ascii("\n");
            for _ in 0..=depth {
                sink.units(&self.gap_units);
            }
        }
    }

    /// The closing bracket of a container at `depth`, on its own line when indented and
    /// the container holds anything.
    pub(super) fn close<S: Sink<U>>(&self, sink: &mut S, bracket: &str, depth: u32, nonempty: bool) {
        if S::RENDERS && self.indented && nonempty {
            sink.ascii("\n");
            for _ in 0..depth {
                sink.units(&self.gap_units);
            }
        }
        sink.ascii(bracket);
    }

    pub(super) fn write_colon<S: Sink<U>>(&self, sink: &mut S) {
        sink.ascii(if self.indented { ": " } else { ":" });
    }

    /// Writes the marker key of `dots` ellipses: as the char where the units hold it (it
    /// is then measured as written), else as escapes (read back as that char).
    pub(super) fn write_marker_key<S: Sink<U>>(&self, sink: &mut S, dots: usize) {
        if !S::RENDERS {
            return;
        }
        sink.ascii("\"");
        match U::from_utf16(0x2026) {
            Some(dot) => (0..dots).for_each(|_| sink.units(&[dot])),
            None => (0..dots).for_each(|_| sink.ascii("\\u2026")),
        }
        sink.ascii("\"");
    }
}
