//! Locating values in a JSON text by path, for edits that keep every other byte of it: the
//! spans [`locate_json`] answers are where new JSON is spliced in, so the text around them
//! stays as the caller wrote it.

use super::layout::Gap;
use super::parse::parse;
use super::scan::{escaped_unit, BACKSLASH};
use super::tree::{children, Kind};
use super::{JsonError, Markers};
use crate::measure::Unit;

/// One step of a path into a JSON value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathStep {
    /// An object member, by its key (decoded, as UTF-16).
    Key(Vec<u16>),
    /// An array item.
    Index(usize),
}

/// Where the value at each of `paths` is in the JSON text `units`: the `start..end` of its
/// token (a container's from bracket to bracket), or `None` where the path leads nowhere.
/// A key names the last member with that key, the one `JSON.parse` keeps. Splicing new
/// JSON over these spans changes nothing else of the text.
pub fn locate_json<U: Unit>(
    units: &[U],
    paths: &[Vec<PathStep>],
) -> Result<Vec<Option<std::ops::Range<usize>>>, JsonError> {
    let parsed = parse(units, &Gap::new(""), Markers::None)?;
    let nodes = &parsed.nodes;
    let find = |path: &[PathStep]| {
        let mut id = 0;
        for step in path {
            id = match (step, nodes[id].kind) {
                (PathStep::Index(i), Kind::Array) => children(nodes, id).nth(*i)?,
                (PathStep::Key(key), Kind::Object) => {
                    children(nodes, id).filter(|&m| decode_string(&units[nodes[m].key()]) == *key).last()?
                }
                _ => return None,
            };
        }
        Some(nodes[id].span())
    };
    Ok(paths.iter().map(|path| find(path)).collect())
}

/// Paths written as JSON: an array of paths, each an array of keys (strings) and indices
/// (non-negative integers), as `JSON.stringify([["message", "content", 0, "text"]])` writes.
pub fn parse_json_paths<U: Unit>(units: &[U]) -> Result<Vec<Vec<PathStep>>, JsonError> {
    let parsed = parse(units, &Gap::new(""), Markers::None)?;
    let nodes = &parsed.nodes;
    let invalid = |id: usize| JsonError::Invalid { at: nodes[id].start as usize };
    if nodes[0].kind != Kind::Array {
        return Err(invalid(0));
    }
    children(nodes, 0)
        .map(|p| {
            if nodes[p].kind != Kind::Array {
                return Err(invalid(p));
            }
            children(nodes, p)
                .map(|s| {
                    let token = &units[nodes[s].span()];
                    match nodes[s].kind {
                        Kind::String => Ok(PathStep::Key(decode_string(token))),
                        Kind::Scalar if token.iter().all(|u| (0x30..=0x39).contains(&u.code())) => token
                            .iter()
                            .try_fold(0usize, |n, u| n.checked_mul(10)?.checked_add((u.code() - 0x30) as usize))
                            .map(PathStep::Index)
                            .ok_or_else(|| invalid(s)),
                        _ => Err(invalid(s)),
                    }
                })
                .collect()
        })
        .collect()
}

/// The UTF-16 units a string token (quotes included, already scanned) stands for.
fn decode_string<U: Unit>(token: &[U]) -> Vec<u16> {
    let content = &token[1..token.len() - 1];
    let mut out = Vec::with_capacity(content.len());
    let mut i = 0;
    while i < content.len() {
        let c = content[i].code();
        if c != BACKSLASH {
            out.push(c);
            i += 1;
            continue;
        }
        let (unit, len) = match content.get(i + 1).map_or(0, |u| u.code()) {
            0x62 => (0x08, 2),
            0x66 => (0x0C, 2),
            0x6E => (0x0A, 2),
            0x72 => (0x0D, 2),
            0x74 => (0x09, 2),
            0x75 => (escaped_unit(content, i).unwrap_or(0xFFFD), 6),
            e => (e, 2),
        };
        out.push(unit);
        i += len;
    }
    out
}
