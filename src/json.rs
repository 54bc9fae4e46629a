//! JSON values and texts clamped in the core, and locating values in a JSON text.

use toolclamp_core::{
    answer_text, clamp_json, clamp_json_text, locate_json, parse_json_paths, JsonRequest, JsonText, JsonUnit, Markers,
};

use crate::call::{Answer, Call, Thrown};
use crate::layout::{Results, Slot, Verdict};
use crate::text::{with_scratch, NoticeText, StringUnit, LATIN1, UTF16};

/// `clampJson`: where `text` is `JSON.stringify(value)`, `null` when the value fits the
/// request's limits as `JSON.stringify(value, null, gap)` renders it, else the elisions as
/// a JSON array (inline markers in the value with `inlineMarkers`), a line feed and the
/// clamped value as compact JSON (see [`answer_text`]; the value is
/// empty when no form of it fits). The total and output measures are in their slots
/// either way.
pub(crate) fn clamp_json_string(call: &Call) -> Answer {
    let wide = call.boolean(2)?;
    let (request, gap) = json_request(call, 3, false)?;
    let request = JsonRequest { gap: &gap.text, ..request };
    if wide {
        with_scratch(&UTF16, |buf| answer_json(call, call.string_arg::<u16>(1, buf)?, &request))
    } else {
        with_scratch(&LATIN1, |buf| answer_json(call, call.string_arg::<u8>(1, buf)?, &request))
    }
}

/// The request of `clampJson` and `clampJsonText`: the request block's strategy, limits
/// and head ratio, and the arguments `inlineMarkers` at `first` and `gap` after it, with
/// the gap beside it (for the request to borrow).
fn json_request(call: &Call, first: usize, indent: bool) -> Result<(JsonRequest<'static>, NoticeText), Thrown> {
    let strategy = call.strategy()?;
    let limits = call.limits()?;
    let markers = if call.boolean(first)? { Markers::Inline } else { Markers::None };
    // A gap is at most ten chars (JSON.stringify's rule); lone surrogates weigh what their
    // stand-ins do.
    let gap = call.notice_text(call.arg(first + 1)).map_err(|e| call.naming(e, first + 1, "a string"))?;
    Ok((JsonRequest { limits, strategy, markers, gap: "", indent }, gap))
}

fn answer_json<U: StringUnit + JsonUnit>(call: &Call, units: &[U], request: &JsonRequest<'_>) -> Answer {
    let (total, clamped) = clamp_json(units, request).map_err(|e| Thrown::Type(format!("text: {e}")))?;
    let Some(clamped) = clamped else {
        let mut r = Results::new(Verdict::Fits);
        r.set_measure(Slot::TotalChars, total).set_measure(Slot::OutputChars, total);
        call.answer(&r)?;
        return call.null();
    };
    let answer = answer_text(&clamped);
    let text = U::string_from(call, &answer)?;
    let mut r = Results::new(Verdict::Cut);
    r.set_measure(Slot::TotalChars, clamped.total).set_measure(Slot::OutputChars, clamped.output);
    call.answer(&r)?;
    Ok(text)
}

/// `clampJsonText`: where `text` is any string, `null` when it fits as it is, else
/// the elisions as a JSON array, a line feed and the value rendered with the gap (see
/// [`clamp_json_text`]). A text that is not JSON throws a `TypeError` "text: not valid
/// JSON at position N". The total slots hold the text's measure, the output slots the
/// result's. Read as UTF-16 whatever it holds: the result may hold the gap and `…`.
pub(crate) fn clamp_json_text_string(call: &Call) -> Answer {
    let (request, gap) = json_request(call, 2, true)?;
    let request = JsonRequest { gap: &gap.text, ..request };
    with_scratch(&UTF16, |buf| {
        let units = call.string_arg::<u16>(1, buf)?;
        let answer = clamp_json_text(units, &request).map_err(|e| Thrown::Type(format!("text: {e}")))?;
        let (verdict, input, output, text) = match answer {
            JsonText::AsGiven { input } => (Verdict::Fits, input, input, None),
            JsonText::Rendered { input, clamped } => (Verdict::Cut, input, clamped.output, Some(answer_text(&clamped))),
        };
        let text = match text {
            Some(answer) => call.string_from_utf16(&answer)?,
            None => call.null()?,
        };
        let mut r = Results::new(verdict);
        r.set_measure(Slot::TotalChars, input).set_measure(Slot::OutputChars, output);
        call.answer(&r)?;
        Ok(text)
    })
}

/// `locateJson`: where in the JSON `text` the value at each of
/// `paths` (a JSON text, see [`parse_json_paths`]) is → a JSON text `[[start,end],null,...]`
/// of offsets in the string's UTF-16 units (`null` where a path leads nowhere). A `text` or
/// `paths` that is not JSON throws a `TypeError` naming it.
pub(crate) fn locate_json_string(call: &Call) -> Answer {
    let wide = call.boolean(2)?;
    let mut path_units = Vec::new();
    let path_units = call.string_arg::<u16>(3, &mut path_units)?;
    let paths = parse_json_paths(path_units).map_err(|toolclamp_core::JsonError::Invalid { at }| {
        Thrown::Type(format!("paths: not a JSON array of paths of keys and indices (at position {at})"))
    })?;
    let located = |spans: Result<Vec<Option<std::ops::Range<usize>>>, toolclamp_core::JsonError>| {
        spans.map_err(|e| Thrown::Type(format!("text: {e}")))
    };
    let spans = if wide {
        with_scratch(&UTF16, |buf| located(locate_json(call.string_arg::<u16>(1, buf)?, &paths)))
    } else {
        with_scratch(&LATIN1, |buf| located(locate_json(call.string_arg::<u8>(1, buf)?, &paths)))
    }?;
    let mut answer = String::from("[");
    for (i, span) in spans.iter().enumerate() {
        if i > 0 {
            answer.push(',');
        }
        match span {
            Some(r) => answer.push_str(&format!("[{},{}]", r.start, r.end)),
            None => answer.push_str("null"),
        }
    }
    answer.push(']');
    let text = call.string_from_utf8(answer.as_bytes(), answer.len())?;
    call.answer(&Results::new(Verdict::Located))?;
    Ok(text)
}
