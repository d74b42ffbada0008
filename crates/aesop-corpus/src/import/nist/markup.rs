//! A lenient scanner for the SGML and XML NIST ships: documents (`<DOC>`, `<HEADLINE>`,
//! `<TEXT><P>`), topics files with a non-XML preamble, unquoted or spaced attributes
//! (`id = "D0801A"`), unescaped `&` and unclosed `<P>`. A strict XML parser rejects much of
//! this, so elements are found by tag name, case-insensitively, without nesting of the same tag.

use crate::Document;
use serde_json::Value;

/// One element: its attributes and the text between its start and end tags.
pub struct Element<'a> {
    attributes: Vec<(String, String)>,
    pub inner: &'a str,
}

impl Element<'_> {
    /// An attribute value by case-insensitive name.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// Every `<tag ...>...</tag>` (or `<tag .../>`) in `text`. An element without an end tag
/// runs to the next start tag of the same name, or to the end of `text`.
pub fn elements<'a>(text: &'a str, tag: &str) -> Vec<Element<'a>> {
    let mut found = Vec::new();
    let mut position = 0;
    // The end tag found last, kept while it lies ahead: a run of start tags without end tags
    // (`<P>` paragraphs never closed) would otherwise each search to the same far end tag.
    let mut end_tag_ahead: Option<Option<(usize, usize)>> = None;
    while let Some((start, after_name)) = find_start_tag(text, position, tag) {
        let Some(close) = text[after_name..].find('>').map(|i| after_name + i) else {
            break;
        };
        let head = &text[after_name..close];
        let self_closing = head.trim_end().ends_with('/');
        let attributes = parse_attributes(head.trim_end().trim_end_matches('/'));
        let content_start = close + 1;
        if self_closing {
            found.push(Element {
                attributes,
                // Empty, but where the element is, so that a caller can tell its line.
                inner: &text[content_start..content_start],
            });
            position = content_start;
            continue;
        }
        let end_tag = match end_tag_ahead {
            Some(Some((end, after))) if end >= content_start => Some((end, after)),
            // None further on: none after this start either.
            Some(None) => None,
            _ => find_end_tag(text, content_start, tag),
        };
        end_tag_ahead = Some(end_tag);
        let next_start = find_start_tag(text, content_start, tag).map(|(s, _)| s);
        let (content_end, resume) = match (end_tag, next_start) {
            (Some((end, _)), Some(next)) if next < end => (next, next),
            (Some((end, after)), _) => (end, after),
            (None, Some(next)) => (next, next),
            (None, None) => (text.len(), text.len()),
        };
        found.push(Element {
            attributes,
            inner: &text[content_start..content_end],
        });
        position = resume.max(start + 1);
    }
    found
}

/// The plain text of the first `<tag>` element, tags stripped and whitespace collapsed;
/// `None` when absent or empty.
pub fn first_text(text: &str, tag: &str) -> Option<String> {
    elements(text, tag)
        .first()
        .map(|e| plain_text(e.inner))
        .filter(|t| !t.is_empty())
}

/// (start of `<tag`, index just after the name) of the next start tag at or after `from`.
fn find_start_tag(text: &str, from: usize, tag: &str) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut at = from;
    while let Some(offset) = text.get(at..)?.find('<') {
        let start = at + offset;
        let name_end = start + 1 + tag.len();
        if name_end <= text.len()
            && text.is_char_boundary(name_end)
            && text[start + 1..name_end].eq_ignore_ascii_case(tag)
            && matches!(
                bytes.get(name_end),
                Some(b'>' | b'/' | b' ' | b'\t' | b'\n' | b'\r')
            )
        {
            return Some((start, name_end));
        }
        at = start + 1;
    }
    None
}

/// (start of `</tag`, index after its `>`) of the next end tag at or after `from`.
fn find_end_tag(text: &str, from: usize, tag: &str) -> Option<(usize, usize)> {
    let mut at = from;
    while let Some(offset) = text.get(at..)?.find("</") {
        let start = at + offset;
        let name_end = start + 2 + tag.len();
        if name_end <= text.len()
            && text.is_char_boundary(name_end)
            && text[start + 2..name_end].eq_ignore_ascii_case(tag)
        {
            let rest = &text[name_end..];
            let trimmed = rest.trim_start();
            if trimmed.starts_with('>') {
                let after = name_end + (rest.len() - trimmed.len()) + 1;
                return Some((start, after));
            }
        }
        at = start + 2;
    }
    None
}

/// `id = "D0801A" category='1' type=story` -> pairs; values are entity-decoded.
fn parse_attributes(head: &str) -> Vec<(String, String)> {
    let mut attributes = Vec::new();
    let mut rest = head.trim_start();
    while !rest.is_empty() {
        let name_len = rest
            .find(|c: char| c.is_whitespace() || c == '=')
            .unwrap_or(rest.len());
        let name = &rest[..name_len];
        rest = rest[name_len..].trim_start();
        let mut value = String::new();
        if let Some(after_equals) = rest.strip_prefix('=') {
            rest = after_equals.trim_start();
            let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'');
            if let Some(quote) = quote {
                let body = &rest[1..];
                let end = body.find(quote).unwrap_or(body.len());
                value = decode_entities(&body[..end]);
                rest = body.get(end + 1..).unwrap_or("");
            } else {
                let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
                value = decode_entities(&rest[..end]);
                rest = &rest[end..];
            }
        }
        if !name.is_empty() {
            attributes.push((name.to_string(), value));
        }
        rest = rest.trim_start();
        if name.is_empty() && !rest.is_empty() {
            // A stray character (e.g. a lone '='): skip it rather than loop.
            let skip = rest.chars().next().map_or(1, char::len_utf8);
            rest = &rest[skip..];
        }
    }
    attributes
}

/// Remove tags, decode entities and collapse whitespace.
pub fn plain_text(markup: &str) -> String {
    let mut out = String::with_capacity(markup.len());
    let mut rest = markup;
    // Whether a `>` is left in `rest`: once one is not, no later `<` can close, and searching
    // again from each `<` would make a text of many unclosed `<` quadratic.
    let mut closer_left = true;
    while let Some(start) = rest.find('<') {
        out.push_str(&rest[..start]);
        // A '<' that does not open a tag (e.g. "a < b") is kept as text.
        let is_tag = rest[start + 1..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '/' || c == '!' || c == '?');
        let end = match is_tag && closer_left {
            true => rest[start..].find('>'),
            false => None,
        };
        closer_left &= !is_tag || end.is_some();
        match end {
            Some(end) => {
                out.push(' ');
                rest = &rest[start + end + 1..];
            }
            None => {
                out.push('<');
                rest = &rest[start + 1..];
            }
        }
    }
    out.push_str(rest);
    collapse_whitespace(&decode_entities(&out))
}

fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Decode the XML entities and numeric references; unknown or bare `&` stay as they are.
pub fn decode_entities(text: &str) -> String {
    if !text.contains('&') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find('&') {
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        // A reference is at most 10 bytes to its `;` (`&#x1F600;`): only those are read, so a
        // text of many bare `&` stays linear.
        let end = rest.as_bytes()[..rest.len().min(11)]
            .iter()
            .position(|&b| b == b';');
        let decoded = end.and_then(|end| {
            let name = &rest[1..end];
            let c = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                _ => name
                    .strip_prefix("#x")
                    .or_else(|| name.strip_prefix("#X"))
                    .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                    .or_else(|| name.strip_prefix('#').and_then(|d| d.parse().ok()))
                    .and_then(char::from_u32),
            };
            c.map(|c| (c, end))
        });
        match decoded {
            Some((c, end)) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The documents of one NIST/TREC SGML file. Id: `<DOC id=...>`, else `<DOCNO>`, else the file
/// name. Text: the `<P>` paragraphs of `<TEXT>` joined by blank lines; a `<TEXT>` without `<P>`
/// (non-story types) is one paragraph; no `<TEXT>`: `<GRAPHIC>`, else empty (the importer leaves
/// such a document out). The headline and type are kept as extra fields. A file without `<DOC>`
/// is one document of plain text.
pub fn documents(text: &str, file_name: &str) -> Vec<Document> {
    let docs = elements(text, "DOC");
    if docs.is_empty() {
        return vec![Document::new(file_name, plain_text(text))];
    }
    docs.iter()
        .map(|doc| {
            let id = doc
                .attr("id")
                .map(|id| id.trim().to_string())
                .filter(|id| !id.is_empty())
                .or_else(|| first_text(doc.inner, "DOCNO"))
                .unwrap_or_else(|| file_name.to_string());
            let body = elements(doc.inner, "TEXT");
            let paragraphs: Vec<String> = match body.first() {
                Some(body) => {
                    let marked = elements(body.inner, "P");
                    if marked.is_empty() {
                        vec![plain_text(body.inner)]
                    } else {
                        marked.iter().map(|p| plain_text(p.inner)).collect()
                    }
                }
                None => first_text(doc.inner, "GRAPHIC").into_iter().collect(),
            };
            let paragraphs: Vec<String> =
                paragraphs.into_iter().filter(|p| !p.is_empty()).collect();
            let mut document = Document::new(id, paragraphs.join("\n\n"));
            if let Some(headline) = first_text(doc.inner, "HEADLINE") {
                document
                    .extra
                    .insert("headline".to_string(), Value::from(headline));
            }
            let kind = doc
                .attr("type")
                .map(str::to_string)
                .or_else(|| first_text(doc.inner, "DOCTYPE"))
                .map(|t| t.trim().to_ascii_lowercase());
            if let Some(kind) = kind.filter(|k| !k.is_empty()) {
                document.extra.insert("type".to_string(), Value::from(kind));
            }
            document
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Pieces of NIST-like SGML: tags of every case, attributes quoted or not, entities bare or
    /// whole, and characters of several bytes beside them (where a scanner that slices by byte
    /// would cut one in two).
    fn sgml_piece() -> impl Strategy<Value = String> {
        let fixed: Vec<&'static str> = vec![
            "<DOC>",
            "</DOC>",
            "<doc id=\"D1\">",
            "<DOC id = 'x' type=story>",
            "<DOCNO>",
            "</DOCNO>",
            "<TEXT>",
            "</text>",
            "<P>",
            "</P>",
            "<p/>",
            "<HEADLINE>",
            "</HEADLINE>",
            "<GRAPHIC>",
            "<DOCTYPE>",
            "</",
            "<",
            ">",
            "/>",
            "=",
            "\"",
            "'",
            "&",
            "&amp;",
            "&#x1F600;",
            "&#99999999;",
            "&#;",
            "&lt",
            " ",
            "\n",
            "é",
            "中",
            "😀",
            "<DOCé>",
            "</DOC é>",
            "<Pé",
            "text",
            "<!-- c -->",
            "<?xml?>",
        ];
        prop_oneof![
            6 => prop::sample::select(fixed).prop_map(String::from),
            1 => any::<char>().prop_map(String::from),
        ]
    }

    proptest! {
        #[test]
        fn the_scanner_never_panics_on_sgml_like_text(
            pieces in prop::collection::vec(sgml_piece(), 0..60)
        ) {
            let text = pieces.concat();
            for document in documents(&text, "file") {
                prop_assert!(!document.id.is_empty());
            }
            let _ = plain_text(&text);
            let _ = decode_entities(&text);
        }
    }

    #[test]
    fn finds_elements_with_loose_attributes() {
        let text = "preamble < not a tag\n<topic id = \"D0801A\" category=3>\n<title> T &amp; U </title>\n\
                    <docsetA id='D0801A-A'><doc id = \"X1\" /><doc id=X2/></docsetA></topic>";
        let topics = elements(text, "topic");
        assert_eq!(topics.len(), 1);
        assert_eq!(topics[0].attr("ID"), Some("D0801A"));
        assert_eq!(topics[0].attr("category"), Some("3"));
        assert_eq!(
            first_text(topics[0].inner, "title").as_deref(),
            Some("T & U")
        );
        let docs = elements(topics[0].inner, "doc");
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[0].attr("id"), Some("X1"));
        assert_eq!(docs[1].attr("id"), Some("X2"));
    }

    #[test]
    fn unclosed_paragraphs_end_at_the_next_one() {
        let ps = elements("<P>one\n<P>two</P><P>three", "p");
        let texts: Vec<String> = ps.iter().map(|p| plain_text(p.inner)).collect();
        assert_eq!(texts, ["one", "two", "three"]);
    }

    /// Runs of unclosed paragraphs, brackets and ampersands (a damaged or hostile file) are
    /// read as short ones are: each paragraph ends at the next, one end tag far on ends the
    /// last, and bare `<` and `&` stay text.
    #[test]
    fn long_runs_of_unclosed_tags_brackets_and_ampersands_read_as_short_ones() {
        let n = 20_000;
        let unclosed = format!("{}</P> after", "<P>x".repeat(n));
        let ps = elements(&unclosed, "P");
        assert_eq!(ps.len(), n);
        assert!(ps.iter().all(|p| p.inner == "x"));
        // Compared without printing: a failure would print 40 kB.
        let brackets = "<P".repeat(n);
        assert!(plain_text(&brackets) == brackets);
        let spaced = format!("a{}", "< ".repeat(n));
        assert!(plain_text(&spaced) == spaced.trim_end());
        let ampersands = "&amp".repeat(n);
        assert!(decode_entities(&ampersands) == ampersands);
        let last_closed = format!("{}&", "&amp".repeat(n - 1));
        assert!(decode_entities(&format!("{ampersands};")) == last_closed);
    }

    #[test]
    fn plain_text_keeps_lone_brackets_and_ampersands() {
        assert_eq!(
            plain_text("a < b & c &lt;d&gt; &#233;<br/>e"),
            "a < b & c <d> é e"
        );
    }

    #[test]
    fn trec_documents_use_docno() {
        let text = "<DOC><DOCNO> FT921-1 </DOCNO><DOCTYPE> NEWS STORY </DOCTYPE><TEXT>\nOne line\n of text.\n</TEXT></DOC>";
        let docs = documents(text, "file");
        assert_eq!(docs.len(), 1);
        assert_eq!(docs[0].id, "FT921-1");
        assert_eq!(docs[0].text, "One line of text.");
        assert_eq!(docs[0].extra["type"], "news story");
    }
}
