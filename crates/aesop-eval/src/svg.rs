//! The small SVG writer behind aesop's plots (`evaluate --plot`'s scatter plot, `ablate`'s bar
//! chart): a white page of a given size, a title, and elements appended as formatted text.
//! Hand-written because the plots are a few dozen elements, not worth a plotting dependency.

use std::fmt::Write as _;

/// An SVG document being written.
pub struct Svg {
    out: String,
}

impl Svg {
    /// A `width` × `height` page with a white background and 11-point sans-serif text.
    pub fn new(width: f64, height: f64) -> Svg {
        let mut out = String::new();
        let _ = writeln!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">"#
        );
        let _ = writeln!(
            out,
            r#"<rect width="{width}" height="{height}" fill="white"/>"#
        );
        Svg { out }
    }

    /// The title, centred at the top of a page `width` wide (`text` is escaped here).
    pub fn title(&mut self, width: f64, text: &str) {
        let _ = writeln!(
            self.out,
            r#"<text x="{}" y="24" text-anchor="middle" font-size="14">{}</text>"#,
            width / 2.0,
            escape(text)
        );
    }

    /// One line of elements (text in them must already be [`escape`]d).
    pub fn push(&mut self, element: std::fmt::Arguments) {
        let _ = self.out.write_fmt(element);
        self.out.push('\n');
    }

    /// The finished document.
    pub fn finish(mut self) -> String {
        self.out.push_str("</svg>\n");
        self.out
    }
}

/// Text made safe for SVG/XML content and attribute values.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
