//! Pages of a text with a continuation banner (`readPartial`), and re-paging a page that must
//! be cut again.

use std::borrow::Cow;

use toolclamp_core::{decode_lossy, lossy_position, page_with_banner, repage, Page, PageRequest, Repage, Source, Utf8};

use crate::call::{Answer, Call, Thrown};
use crate::layout::{Results, Slot, Verdict};
use crate::plan::with_string;
use crate::text::StandIns;

fn page_results(p: &Page, start: usize, end: usize) -> Results {
    let (next_line, next_column) = p.next.unwrap_or((0, 0));
    let mut r = Results::new(Verdict::Page);
    r.set(Slot::PageStart, start)
        .set(Slot::PageEnd, end)
        .set_measure(Slot::TotalChars, p.total)
        .set_measure(Slot::ShownChars, p.shown)
        .set(Slot::FirstLine, p.first_line)
        .set(Slot::LastLine, p.last_line)
        .set(Slot::StartByte, p.start_byte)
        .set(Slot::EndByte, p.end_byte)
        .set(Slot::NextLine, next_line)
        .set(Slot::NextColumn, next_column);
    r
}

/// The page request from arguments `first..first + 4`: line, column, maxBytes, maxLines.
fn page_request(call: &Call, first: usize) -> Result<PageRequest, Thrown> {
    Ok(PageRequest {
        line: call.index(first)? as u64,
        column: call.index(first + 1)?,
        max_bytes: call.budget(first + 2)?,
        max_lines: call.budget(first + 3)?,
    })
}

/// Pages `src` and answers with the banner of a partial page, else `null`; `map` turns page
/// positions into the caller's. A partial page and its banner line fit the budget together.
fn answer_page<S: Source + ?Sized>(call: &Call, src: &S, req: &PageRequest, map: impl Fn(usize) -> usize) -> Answer {
    let (p, banner) = page_with_banner(src, req).map_err(|e| Thrown::Range(e.to_string()))?;
    let banner = match banner {
        Some(banner) => Some(call.string_from_core(&banner, &StandIns::default())?),
        None => None,
    };
    call.answer(&page_results(&p, map(p.start), map(p.end)))?;
    banner.map_or_else(|| call.null(), Ok)
}

/// `planPage`: the page of `text` from `line` and `column`, under `maxBytes` and `maxLines`
/// → the banner of a partial page, or `null` when the page is the whole text. The page is
/// `text.slice(pageStart, pageEnd)`; columns count UTF-16 units. `banner + "\n" + page` is
/// within the budget. A line or column outside the text, or a budget too small for a banner
/// line and one character, throws a `RangeError`.
pub(crate) fn plan_page(call: &Call) -> Answer {
    let wide = call.boolean(2)?;
    let req = page_request(call, 3)?;
    with_string(call, 1, wide, |src| answer_page(call, src, &req, |i| i))
}

/// `planPageBuffer`: `planPage` for a
/// `Uint8Array` of UTF-8, paged as the text `buf.toString('utf8')` decodes to. Columns,
/// counts and `startByte`/`endByte` are those of the decoded text; `pageStart`/`pageEnd`
/// are offsets into `bytes`, so the page is `bytes.subarray(pageStart, pageEnd)` decoded,
/// even when `bytes` holds invalid UTF-8 (a maximal invalid subpart is never split).
pub(crate) fn plan_page_buffer(call: &Call) -> Answer {
    let req = page_request(call, 2)?;
    let (borrowed, shared) = call.bytes(1)?;
    // No JS runs while paging, so only shared memory needs a private copy.
    let private_copy: Vec<u8>;
    let data = if shared {
        private_copy = borrowed.to_vec();
        &private_copy[..]
    } else {
        borrowed
    };
    match decode_lossy(data) {
        Cow::Borrowed(text) => answer_page(call, &Utf8::new(text), &req, |i| i),
        // Positions in the decoded text map back to the invalid bytes.
        Cow::Owned(text) => answer_page(call, &Utf8::new(&text), &req, |i| lossy_position(data, i)),
    }
}

/// `repage`: `text` cut to the request block's limits as a page under its banner line (see
/// [`repage`]). Answers `fits` when `text` is no such page; else `page` with `pageStart` (where the page starts in `text`) and `pageEnd`
/// (where the kept part ends), returning the new banner, or `null` when the limits cannot
/// hold a banner line and one character.
pub(crate) fn repage_page(call: &Call) -> Answer {
    let wide = call.boolean(2)?;
    let limits = call.limits()?;
    let byte_columns = call.boolean(3)?;
    let answer = with_string(call, 1, wide, |src| Ok(repage(src, &limits, byte_columns)))?;
    let (start, end, banner) = match answer {
        Repage::NotAPage => {
            call.answer(&Results::new(Verdict::Fits))?;
            return call.null();
        }
        Repage::TooSmall { page_start } => (page_start, page_start, None),
        Repage::Cut { page_start, end, banner } => (page_start, end, Some(banner)),
    };
    let banner = match banner {
        Some(banner) => Some(call.string_from_core(&banner, &StandIns::default())?),
        None => None,
    };
    let mut r = Results::new(Verdict::Page);
    r.set(Slot::PageStart, start).set(Slot::PageEnd, end);
    call.answer(&r)?;
    banner.map_or_else(|| call.null(), Ok)
}
