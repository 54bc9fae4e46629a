//! Where a walk of the clamp writes: [`NoSink`] while pricing a room (the walk only adds
//! up sizes), [`Rendering`] for the result (text, and each shortening with its path).
//! One walk serves both, so the priced result is the rendered one.

use super::layout::push_ascii;
use super::Elided;
use crate::measure::Unit;

/// Where a walk writes: nowhere while pricing, the result while rendering.
pub(super) trait Sink<U: Unit> {
    const RENDERS: bool;
    fn units(&mut self, units: &[U]);
    fn ascii(&mut self, s: &str);
    fn enter(&mut self, step: Step);
    fn leave(&mut self);
    fn elide(&mut self, what: Shortened);
}

#[derive(Clone, Copy)]
pub(super) enum Step {
    Key { start: usize, end: usize },
    Index(usize),
}

pub(super) enum Shortened {
    Items { kept: u64, total: u64 },
    Keys { kept: u64, total: u64 },
    Text { kept_bytes: u64, total_bytes: u64 },
}

pub(super) struct NoSink;

impl<U: Unit> Sink<U> for NoSink {
    const RENDERS: bool = false;
    fn units(&mut self, _: &[U]) {}
    fn ascii(&mut self, _: &str) {}
    fn enter(&mut self, _: Step) {}
    fn leave(&mut self) {}
    fn elide(&mut self, _: Shortened) {}
}

pub(super) struct Render<'u, U> {
    pub(super) text: Vec<U>,
    pub(super) elided: Vec<Elided<U>>,
    pub(super) path: Vec<(Step, &'u [U])>,
}

impl<'u, U: Unit> Render<'u, U> {
    fn path_text(&self) -> Vec<U> {
        let mut out = Vec::new();
        push_ascii(&mut out, "$");
        for (step, key) in &self.path {
            match *step {
                Step::Index(i) => {
                    push_ascii(&mut out, "[");
                    push_ascii(&mut out, &i.to_string());
                    push_ascii(&mut out, "]");
                }
                Step::Key { .. } => {
                    let inner = &key[1..key.len() - 1];
                    if is_identifier(inner) {
                        push_ascii(&mut out, ".");
                        out.extend_from_slice(inner);
                    } else {
                        push_ascii(&mut out, "[");
                        out.extend_from_slice(key);
                        push_ascii(&mut out, "]");
                    }
                }
            }
        }
        out
    }
}

fn is_identifier<U: Unit>(key: &[U]) -> bool {
    let word = |c: u16| c == b'_' as u16 || c == b'$' as u16 || (c < 0x80 && (c as u8).is_ascii_alphanumeric());
    key.first().is_some_and(|u| !(0x30..=0x39).contains(&u.code())) && key.iter().all(|u| word(u.code()))
}

/// A rendering walk that knows its input, for paths.
pub(super) struct Rendering<'r, 'u, U> {
    pub(super) render: &'r mut Render<'u, U>,
    pub(super) units: &'u [U],
}

impl<U: Unit> Sink<U> for Rendering<'_, '_, U> {
    const RENDERS: bool = true;
    fn units(&mut self, units: &[U]) {
        self.render.text.extend_from_slice(units);
    }
    fn ascii(&mut self, s: &str) {
        push_ascii(&mut self.render.text, s);
    }
    fn enter(&mut self, step: Step) {
        let key: &[U] = match step {
            Step::Key { start, end } => &self.units[start..end],
            Step::Index(_) => &[],
        };
        self.render.path.push((step, key));
    }
    fn leave(&mut self) {
        self.render.path.pop();
    }
    fn elide(&mut self, what: Shortened) {
        let path = self.render.path_text();
        self.render.elided.push(match what {
            Shortened::Items { kept, total } => Elided::Items { path, kept, total },
            Shortened::Keys { kept, total } => Elided::Keys { path, kept, total },
            Shortened::Text { kept_bytes, total_bytes } => Elided::Text { path, kept_bytes, total_bytes },
        });
    }
}
