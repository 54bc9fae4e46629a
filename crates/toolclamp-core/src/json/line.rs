//! A JSON text held as UTF-8 bytes (a JSON-RPC message as it came off a pipe), read
//! without copying its long strings: [`skeleton`] checks the text as `JSON.parse` would and
//! gives it back with each long string value replaced by a short marker, and the list of
//! those strings; each can then be decoded on its own, or in place where the text was
//! ([`unescape_ascii_in_place`]). A caller parses the small skeleton and puts the strings
//! back where the markers are: the value is the one `JSON.parse` gives of the whole text,
//! built with one copy of the long strings at most, and none of those that are ASCII.

/// What the chars of a string value span, decoded: how small a code unit holds them all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Width {
    /// U+0000..=U+007F: its UTF-8 bytes are its Latin-1 units.
    Ascii,
    /// U+0000..=U+00FF: Latin-1 units hold it.
    Latin1,
    /// Anything else: UTF-16 units.
    Wide,
}

/// A string value of the text, long enough to be left out of the skeleton.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LongString {
    /// The content as written, between the quotes: `text[start..end]`.
    pub start: usize,
    pub end: usize,
    /// Whether it holds an escape (so its decoded value differs from what is written).
    pub escaped: bool,
    pub width: Width,
}

impl LongString {
    /// The content as written.
    pub fn content<'a>(&self, text: &'a [u8]) -> &'a [u8] {
        &text[self.start..self.end]
    }
}

/// A text with its long strings left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skeleton {
    /// The text, each long string value written `"<marker><k>"` for the `k`-th of them.
    pub text: Vec<u8>,
    pub strings: Vec<LongString>,
}

/// `text` with every string value whose content is at least `min_len` bytes as written
/// replaced by the string `marker` followed by its index (keys stay as written), or `None`
/// when `text` is not valid UTF-8 or not a JSON text `JSON.parse` takes. `marker` must be
/// written as it reads (no `"`, `\` or control chars): a caller picks one no string holds,
/// such as a random one. One pass, no recursion.
pub fn skeleton(text: &[u8], min_len: usize, marker: &[u8]) -> Option<Skeleton> {
    simdutf8::basic::from_utf8(text).ok()?;
    let mut reader = Reader { text, at: 0, copied: 0, out: Vec::new(), strings: Vec::new(), min_len, marker };
    reader.value_list()?;
    reader.whitespace();
    if reader.at != text.len() {
        return None;
    }
    if reader.strings.is_empty() {
        reader.out = text.to_vec();
    } else {
        reader.out.extend_from_slice(&text[reader.copied..]);
    }
    Some(Skeleton { text: reader.out, strings: reader.strings })
}

struct Reader<'a> {
    text: &'a [u8],
    at: usize,
    /// What of `text` went to `out` so far.
    copied: usize,
    out: Vec<u8>,
    strings: Vec<LongString>,
    min_len: usize,
    marker: &'a [u8],
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    /// Skips JSON whitespace: space, tab, line feed, carriage return.
    fn whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        self.whitespace();
        (self.peek() == Some(byte)).then(|| self.at += 1)
    }

    /// The whole value, its containers kept on a stack of their openers.
    fn value_list(&mut self) -> Option<()> {
        let mut open: Vec<u8> = Vec::new();
        'value: loop {
            self.whitespace();
            match self.peek()? {
                b'{' => {
                    self.at += 1;
                    self.whitespace();
                    if self.peek() == Some(b'}') {
                        self.at += 1;
                    } else {
                        open.push(b'{');
                        self.key()?;
                        continue 'value;
                    }
                }
                b'[' => {
                    self.at += 1;
                    self.whitespace();
                    if self.peek() == Some(b']') {
                        self.at += 1;
                    } else {
                        open.push(b'[');
                        continue 'value;
                    }
                }
                b'"' => self.string_value()?,
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'n' => self.literal(b"null")?,
                _ => self.number()?,
            }
            // After a value: the next member, or the end of the containers it closes.
            loop {
                let Some(&inside) = open.last() else { return Some(()) };
                self.whitespace();
                let closer = if inside == b'{' { b'}' } else { b']' };
                match self.peek()? {
                    b',' => {
                        self.at += 1;
                        if inside == b'{' {
                            self.key()?;
                        }
                        continue 'value;
                    }
                    c if c == closer => {
                        self.at += 1;
                        open.pop();
                    }
                    _ => return None,
                }
            }
        }
    }

    /// A member's key and its colon.
    fn key(&mut self) -> Option<()> {
        self.whitespace();
        if self.peek() != Some(b'"') {
            return None;
        }
        self.scan_string()?;
        self.expect(b':')
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        self.text[self.at..].starts_with(word).then(|| self.at += word.len())
    }

    fn digits(&mut self) -> usize {
        let from = self.at;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.at += 1;
        }
        self.at - from
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    fn number(&mut self) -> Option<()> {
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek()? {
            b'0' => self.at += 1,
            b'1'..=b'9' => {
                self.digits();
            }
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            if self.digits() == 0 {
                return None;
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if self.digits() == 0 {
                return None;
            }
        }
        Some(())
    }

    /// A string value: left out of the skeleton when long.
    fn string_value(&mut self) -> Option<()> {
        let quote = self.at;
        let string = self.scan_string()?;
        if string.end - string.start < self.min_len {
            return Some(());
        }
        self.out.extend_from_slice(&self.text[self.copied..quote]);
        self.out.push(b'"');
        self.out.extend_from_slice(self.marker);
        self.out.extend_from_slice(self.strings.len().to_string().as_bytes());
        self.out.push(b'"');
        self.copied = self.at;
        self.strings.push(string);
        Some(())
    }

    /// The string at `self.at` (its opening quote), checked as `JSON.parse` checks it: no
    /// control char written raw, only the escapes JSON has (lone surrogates are taken).
    fn scan_string(&mut self) -> Option<LongString> {
        let start = self.at + 1;
        let mut i = start;
        let mut escaped = false;
        let mut width = Width::Ascii;
        loop {
            let c = *self.text.get(i)?;
            match c {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    match *self.text.get(i + 1)? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                        b'u' => {
                            let unit = hex4(self.text.get(i + 2..i + 6)?)?;
                            width = width.max(width_of(unit));
                            i += 6;
                        }
                        _ => return None,
                    }
                }
                0x00..=0x1F => return None,
                0x20..=0x7F => i += 1,
                // Valid UTF-8 (checked whole): a lead byte of U+0080..=U+00FF is C2 or C3.
                0xC2 | 0xC3 => {
                    width = width.max(Width::Latin1);
                    i += 2;
                }
                _ => {
                    width = Width::Wide;
                    i += 1;
                }
            }
        }
        self.at = i + 1;
        Some(LongString { start, end: i, escaped, width })
    }
}

fn width_of(unit: u16) -> Width {
    match unit {
        0..=0x7F => Width::Ascii,
        0x80..=0xFF => Width::Latin1,
        _ => Width::Wide,
    }
}

fn hex4(digits: &[u8]) -> Option<u16> {
    digits.iter().try_fold(0u16, |acc, &d| Some(acc * 16 + (d as char).to_digit(16)? as u16))
}

/// Calls `unit` with each UTF-16 code unit of the decoded `content` (a string's content as
/// [`skeleton`] checked it), in order: what `JSON.parse` makes of it, lone surrogates
/// included.
pub fn decode_units(content: &[u8], mut unit: impl FnMut(u16)) {
    let mut i = 0;
    while i < content.len() {
        let c = content[i];
        if c == b'\\' {
            let simple = match content[i + 1] {
                b'b' => 0x08,
                b'f' => 0x0C,
                b'n' => 0x0A,
                b'r' => 0x0D,
                b't' => 0x09,
                b'u' => {
                    unit(hex4(&content[i + 2..i + 6]).expect("a checked escape"));
                    i += 6;
                    continue;
                }
                other => other as u16,
            };
            unit(simple);
            i += 2;
        } else if c < 0x80 {
            unit(c as u16);
            i += 1;
        } else {
            let len = utf8_len(c);
            let ch = std::str::from_utf8(&content[i..i + len]).expect("checked UTF-8").chars().next().expect("a char");
            let mut pair = [0u16; 2];
            for &u in ch.encode_utf16(&mut pair).iter() {
                unit(u);
            }
            i += len;
        }
    }
}

fn utf8_len(lead: u8) -> usize {
    match lead {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}

/// The decoded `content` of a string whose [`Width`] is at most `Latin1`, as Latin-1 units.
pub fn decode_latin1(content: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(content.len());
    decode_units(content, |u| out.push(u8::try_from(u).expect("a Latin-1 string")));
    out
}

/// The decoded `content` of any string, as UTF-16 units.
pub fn decode_utf16(content: &[u8]) -> Vec<u16> {
    let mut out = Vec::with_capacity(content.len());
    decode_units(content, |u| out.push(u));
    out
}

/// Decodes the ASCII string `string` of `text` where it is written (a decoded string is
/// never longer than written) and returns its decoded length: its value is then
/// `text[string.start..string.start + len]`, and what follows up to `string.end` is left
/// as it was. The text no longer reads as before.
pub fn unescape_ascii_in_place(text: &mut [u8], string: &LongString) -> usize {
    assert_eq!(string.width, Width::Ascii, "only an ASCII string decodes in place");
    if !string.escaped {
        return string.end - string.start;
    }
    let mut write = string.start;
    let mut read = string.start;
    while read < string.end {
        // Runs without a backslash move as one copy.
        let run = memchr::memchr(b'\\', &text[read..string.end]).unwrap_or(string.end - read);
        text.copy_within(read..read + run, write);
        write += run;
        read += run;
        if read == string.end {
            break;
        }
        let mut decoded = 0u8;
        let escape_len = if text[read + 1] == b'u' { 6 } else { 2 };
        decode_units(&text[read..read + escape_len], |u| decoded = u8::try_from(u).expect("an ASCII escape"));
        text[write] = decoded;
        write += 1;
        read += escape_len;
    }
    write - string.start
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skel(text: &str, min: usize) -> Option<(String, Vec<LongString>)> {
        skeleton(text.as_bytes(), min, b"@").map(|s| (String::from_utf8(s.text).unwrap(), s.strings))
    }

    #[test]
    fn leaves_out_long_values_only() {
        let (text, strings) = skel(r#"{"abcdef":"abcdef","k":["xyz","abcdefg"],"n":-1.5e+3}"#, 6).unwrap();
        assert_eq!(text, r#"{"abcdef":"@0","k":["xyz","@1"],"n":-1.5e+3}"#);
        assert_eq!(strings.len(), 2);
        assert_eq!(&br#"{"abcdef":"abcdef""#[strings[0].start..strings[0].end], b"abcdef");
    }

    #[test]
    fn a_text_without_long_strings_comes_back_as_it_is() {
        let text = " {\"a\" : [ 1 , true , null , {} , [] ] }\r";
        assert_eq!(skel(text, 100).unwrap().0, text);
    }

    #[test]
    fn rejects_what_json_parse_rejects() {
        for bad in [
            "",
            " ",
            "{",
            "}",
            "[1,]",
            "{\"a\":1,}",
            "{\"a\" 1}",
            "{1:2}",
            "01",
            "1.",
            ".5",
            "-",
            "1e",
            "+1",
            "tru",
            "nul",
            "\"a",
            "\"\\x\"",
            "\"\\u12G4\"",
            "\"\u{1}\"",
            "[1]]",
            "1 2",
            "NaN",
            "'a'",
            "\u{feff}1",
            "[\"a\"\"b\"]",
        ] {
            assert!(skel(bad, 0).is_none(), "{bad:?} was taken");
        }
        assert!(skeleton(b"\"\xff\"", 0, b"@").is_none());
    }

    #[test]
    fn takes_what_json_parse_takes() {
        for good in ["0", "-0", "1e5", "1E-5", "0.5e+1", "\"\\ud800\"", "\"\\/\"", "[[[[]]]]", "{\"\":{}}", "\t\n1\r "]
        {
            assert!(skel(good, 0).is_some(), "{good:?} was refused");
        }
    }

    #[test]
    fn widths_and_decoding() {
        let text = r#"["a\nb","caf\u00e9","café","日本","\ud83d\ude00"]"#;
        let s = skeleton(text.as_bytes(), 1, b"@").unwrap();
        let widths: Vec<Width> = s.strings.iter().map(|s| s.width).collect();
        assert_eq!(widths, [Width::Ascii, Width::Latin1, Width::Latin1, Width::Wide, Width::Wide]);
        let decoded: Vec<String> =
            s.strings.iter().map(|l| String::from_utf16(&decode_utf16(l.content(text.as_bytes()))).unwrap()).collect();
        assert_eq!(decoded, ["a\nb", "café", "café", "日本", "😀"]);
        assert_eq!(decode_latin1(s.strings[2].content(text.as_bytes())), b"caf\xe9");
    }

    #[test]
    fn lone_surrogates_decode_as_units() {
        let text = br#""\udc00x\ud800""#;
        let s = skeleton(text, 0, b"@").unwrap();
        assert_eq!(decode_utf16(s.strings[0].content(text)), [0xDC00, b'x' as u16, 0xD800]);
    }

    #[test]
    fn decodes_ascii_in_place() {
        let mut text = br#"{"t":"a\\b\"c\/d\n\u0041\u007f-end"}"#.to_vec();
        let s = skeleton(&text, 1, b"@").unwrap();
        let long = s.strings[0];
        let len = unescape_ascii_in_place(&mut text, &long);
        assert_eq!(&text[long.start..long.start + len], b"a\\b\"c/d\nA\x7f-end");
    }
}
