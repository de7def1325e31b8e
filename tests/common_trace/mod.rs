//! Strict little readers for the trace tests: a JSON parser (RFC 8259) and an XML
//! well-formedness checker, so that the tests check weft's output without a new dependency.
#![allow(dead_code)] // each test file uses a different subset of these helpers

use std::collections::BTreeMap;

/// A JSON value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Json>),
    Object(BTreeMap<String, Json>),
}

impl Json {
    pub(crate) fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(map) => map.get(key),
            _ => None,
        }
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(text) => Some(text),
            _ => None,
        }
    }

    pub(crate) fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Number(number) => Some(*number),
            _ => None,
        }
    }

    pub(crate) fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }
}

/// Parses a whole JSON text (one value, surrounding whitespace allowed).
pub(crate) fn parse_json(text: &str) -> Result<Json, String> {
    let mut parser = JsonParser {
        bytes: text.as_bytes(),
        at: 0,
    };
    let value = parser.value()?;
    parser.space();
    if parser.at != parser.bytes.len() {
        return Err(format!("trailing input at byte {}", parser.at));
    }
    Ok(value)
}

struct JsonParser<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl JsonParser<'_> {
    fn space(&mut self) {
        while matches!(self.bytes.get(self.at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn error<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("{what} at byte {}", self.at))
    }

    fn eat(&mut self, literal: &str) -> Result<(), String> {
        if self.bytes[self.at..].starts_with(literal.as_bytes()) {
            self.at += literal.len();
            Ok(())
        } else {
            self.error(&format!("expected {literal}"))
        }
    }

    fn value(&mut self) -> Result<Json, String> {
        self.space();
        match self.bytes.get(self.at) {
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => self.string().map(Json::String),
            Some(b't') => self.eat("true").map(|()| Json::Bool(true)),
            Some(b'f') => self.eat("false").map(|()| Json::Bool(false)),
            Some(b'n') => self.eat("null").map(|()| Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => self.error("expected a value"),
        }
    }

    fn object(&mut self) -> Result<Json, String> {
        self.at += 1;
        let mut map = BTreeMap::new();
        self.space();
        if self.bytes.get(self.at) == Some(&b'}') {
            self.at += 1;
            return Ok(Json::Object(map));
        }
        loop {
            self.space();
            if self.bytes.get(self.at) != Some(&b'"') {
                return self.error("expected a key");
            }
            let key = self.string()?;
            self.space();
            self.eat(":")?;
            let value = self.value()?;
            if map.insert(key.clone(), value).is_some() {
                return self.error(&format!("duplicate key {key}"));
            }
            self.space();
            match self.bytes.get(self.at) {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Json::Object(map));
                }
                _ => return self.error("expected , or }"),
            }
        }
    }

    fn array(&mut self) -> Result<Json, String> {
        self.at += 1;
        let mut items = Vec::new();
        self.space();
        if self.bytes.get(self.at) == Some(&b']') {
            self.at += 1;
            return Ok(Json::Array(items));
        }
        loop {
            items.push(self.value()?);
            self.space();
            match self.bytes.get(self.at) {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(Json::Array(items));
                }
                _ => return self.error("expected , or ]"),
            }
        }
    }

    fn string(&mut self) -> Result<String, String> {
        self.at += 1;
        let mut out = Vec::new();
        loop {
            let Some(&byte) = self.bytes.get(self.at) else {
                return self.error("unterminated string");
            };
            self.at += 1;
            match byte {
                b'"' => return String::from_utf8(out).map_err(|err| err.to_string()),
                b'\\' => {
                    let Some(&escape) = self.bytes.get(self.at) else {
                        return self.error("unterminated escape");
                    };
                    self.at += 1;
                    let c = match escape {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hex = self.bytes.get(self.at..self.at + 4);
                            let code = hex
                                .and_then(|hex| std::str::from_utf8(hex).ok())
                                .and_then(|hex| u32::from_str_radix(hex, 16).ok());
                            self.at += 4;
                            match code.and_then(char::from_u32) {
                                Some(c) => c,
                                None => return self.error("bad \\u escape"),
                            }
                        }
                        _ => return self.error("bad escape"),
                    };
                    let mut buffer = [0; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buffer).as_bytes());
                }
                0..=0x1f => return self.error("control character in a string"),
                _ => out.push(byte),
            }
        }
    }

    fn number(&mut self) -> Result<Json, String> {
        let start = self.at;
        if self.bytes[self.at] == b'-' {
            self.at += 1;
        }
        let digits = |parser: &mut Self| {
            let first = parser.at;
            while parser.bytes.get(parser.at).is_some_and(u8::is_ascii_digit) {
                parser.at += 1;
            }
            parser.at - first
        };
        let integer_start = self.at;
        let integer = digits(self);
        if integer == 0 || (integer > 1 && self.bytes[integer_start] == b'0') {
            return self.error("bad integer part");
        }
        if self.bytes.get(self.at) == Some(&b'.') {
            self.at += 1;
            if digits(self) == 0 {
                return self.error("bad fraction");
            }
        }
        if matches!(self.bytes.get(self.at), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.bytes.get(self.at), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if digits(self) == 0 {
                return self.error("bad exponent");
            }
        }
        let text = std::str::from_utf8(&self.bytes[start..self.at]).unwrap();
        text.parse()
            .map(Json::Number)
            .map_err(|err| format!("{text}: {err}"))
    }
}

/// An element of an XML document: its name and attributes.
#[derive(Clone, Debug)]
pub(crate) struct Element {
    pub(crate) name: String,
    pub(crate) attributes: BTreeMap<String, String>,
}

/// Checks that `text` is a well-formed XML document (one root element, tags nested and
/// closed, attributes quoted and unique, only the predefined and numeric entities, no `<`
/// or stray `&` in text) and returns its elements in document order.
pub(crate) fn parse_xml(text: &str) -> Result<Vec<Element>, String> {
    let mut elements = Vec::new();
    let mut open: Vec<String> = Vec::new();
    let mut roots = 0;
    let mut rest = text.trim_start();
    if rest.starts_with("<?xml") {
        let end = rest.find("?>").ok_or("unterminated XML declaration")?;
        rest = rest[end + 2..].trim_start();
    }
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("<!--") {
            let end = after.find("-->").ok_or("unterminated comment")?;
            rest = &after[end + 3..];
        } else if let Some(after) = rest.strip_prefix("</") {
            let end = after.find('>').ok_or("unterminated end tag")?;
            let name = after[..end].trim_end();
            match open.pop() {
                Some(expected) if expected == name => {}
                other => return Err(format!("</{name}> closes {other:?}")),
            }
            rest = &after[end + 1..];
        } else if let Some(after) = rest.strip_prefix('<') {
            let end = after.find('>').ok_or("unterminated tag")?;
            let (tag, self_closing) = match after[..end].strip_suffix('/') {
                Some(tag) => (tag, true),
                None => (&after[..end], false),
            };
            let element = parse_tag(tag)?;
            if open.is_empty() {
                roots += 1;
            }
            if !self_closing {
                open.push(element.name.clone());
            }
            elements.push(element);
            rest = &after[end + 1..];
        } else {
            let end = rest.find('<').unwrap_or(rest.len());
            if open.is_empty() && !rest[..end].trim().is_empty() {
                return Err("text outside the root element".into());
            }
            check_text(&rest[..end])?;
            rest = &rest[end..];
        }
    }
    if let Some(name) = open.pop() {
        return Err(format!("<{name}> is never closed"));
    }
    if roots != 1 {
        return Err(format!("{roots} root elements"));
    }
    Ok(elements)
}

fn parse_tag(tag: &str) -> Result<Element, String> {
    let name_end = tag.find(char::is_whitespace).unwrap_or(tag.len());
    let name = &tag[..name_end];
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_alphanumeric() || "-_:.".contains(c))
    {
        return Err(format!("bad element name {name:?}"));
    }
    let mut attributes = BTreeMap::new();
    let mut rest = tag[name_end..].trim_start();
    while !rest.is_empty() {
        let equals = rest
            .find('=')
            .ok_or(format!("attribute without value in <{tag}>"))?;
        let key = rest[..equals].trim();
        let after = rest[equals + 1..].trim_start();
        let quote = after.chars().next().filter(|c| *c == '"' || *c == '\'');
        let quote = quote.ok_or(format!("unquoted attribute {key} in <{name}>"))?;
        let close = after[1..].find(quote).ok_or("unterminated attribute")?;
        let value = &after[1..1 + close];
        if value.contains('<') {
            return Err(format!("< in attribute {key}"));
        }
        check_text(value)?;
        if attributes
            .insert(key.to_owned(), value.to_owned())
            .is_some()
        {
            return Err(format!("duplicate attribute {key} in <{name}>"));
        }
        rest = after[close + 2..].trim_start();
    }
    Ok(Element {
        name: name.to_owned(),
        attributes,
    })
}

fn check_text(text: &str) -> Result<(), String> {
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        let end = rest[at..].find(';').ok_or("unterminated entity")?;
        let entity = &rest[at + 1..at + end];
        let known = matches!(entity, "amp" | "lt" | "gt" | "quot" | "apos")
            || entity
                .strip_prefix("#x")
                .is_some_and(|hex| u32::from_str_radix(hex, 16).is_ok())
            || entity
                .strip_prefix('#')
                .is_some_and(|dec| dec.parse::<u32>().is_ok());
        if !known {
            return Err(format!("unknown entity &{entity};"));
        }
        rest = &rest[at + end + 1..];
    }
    Ok(())
}

#[test]
fn the_readers_accept_good_input_and_reject_bad() {
    let json = parse_json(r#"{"a":[1,-2.5e3,true,null,"x\"\u00e9"],"b":{}}"#).unwrap();
    assert_eq!(
        json.get("a").unwrap().as_array().unwrap()[1],
        Json::Number(-2500.0)
    );
    assert_eq!(
        json.get("a").unwrap().as_array().unwrap()[4].as_str(),
        Some("x\"é")
    );
    for bad in [
        "{",
        "[1,]",
        "{\"a\":1,}",
        "01",
        "\"\u{1}\"",
        "{\"a\":1,\"a\":2}",
        "1 2",
    ] {
        assert!(parse_json(bad).is_err(), "{bad}");
    }
    let elements = parse_xml("<svg a=\"1\"><g><rect b='2'/></g><text>x &amp; y</text></svg>");
    assert_eq!(elements.unwrap().len(), 4);
    for bad in [
        "<svg><g></svg>",
        "<svg a=1></svg>",
        "<svg>a & b</svg>",
        "<svg></svg><svg></svg>",
        "<svg a=\"1\" a=\"2\"/>",
        "<svg>",
    ] {
        assert!(parse_xml(bad).is_err(), "{bad}");
    }
}
