//! Tables as people keep them (CSV, TSV, a spreadsheet's export): how a header tells the
//! character its fields are split at, and how a cell holds a number. Shared by the readers of
//! human scores and feature columns (`aesop evaluate`) and the table importer (`aesop import
//! table`), so that a table one of them reads the other reads the same way.

/// The delimiter of a table whose header is `line`: a tab, a comma or a semicolon (tried in that
/// order) when, split at it, the header has every one of `columns` (a table of scores has
/// `topic` and `system`); `None` for a line that is no such header (JSON, or anything else). A
/// semicolon is what spreadsheets write where the decimal mark is a comma.
pub fn delimiter_of_header(line: &str, columns: &[&str]) -> Option<u8> {
    let has_columns = |delimiter: char| {
        let names: Vec<&str> = line
            .split(delimiter)
            .map(|name| name.trim().trim_matches('"'))
            .collect();
        columns.iter().all(|column| names.contains(column))
    };
    if line.trim_start().starts_with('{') {
        return None;
    }
    [b'\t', b',', b';']
        .into_iter()
        .find(|&delimiter| has_columns(delimiter as char))
}

/// What a table's fields are split at, in words, for messages.
pub fn delimiter_name(delimiter: u8) -> &'static str {
    match delimiter {
        b'\t' => "tabs",
        b';' => "semicolons",
        _ => "commas",
    }
}

/// The number a table's cell holds. In a table split at semicolons a decimal comma is read as
/// the decimal mark (`2,5` is 2.5), as the spreadsheets that write such tables mean it; a cell
/// with a comma and a point (`1.234,5`, a grouping mark) is no number.
pub fn parse_cell(cell: &str, delimiter: u8) -> Option<f64> {
    if let Ok(value) = cell.parse() {
        return Some(value);
    }
    let decimal_comma = delimiter == b';' && cell.matches(',').count() == 1 && !cell.contains('.');
    decimal_comma
        .then(|| cell.replace(',', ".").parse().ok())
        .flatten()
}

/// What to add to "expected a number" for a cell that [`parse_cell`] refused: why a decimal
/// comma was not read where it could be a thousands separator (`1,500` in a table split at
/// commas); empty otherwise.
pub fn not_a_number_hint(cell: &str, delimiter: u8) -> &'static str {
    if delimiter != b';' && parse_cell(cell, b';').is_some() {
        " (a decimal comma is read only in a table split at semicolons, where it cannot be a \
         thousands separator: write a decimal point, or save the table split at semicolons)"
    } else {
        ""
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_tells_its_delimiter_by_the_columns_it_holds() {
        let scores = ["topic", "system"];
        assert_eq!(
            delimiter_of_header("topic,system,pyramid", &scores),
            Some(b',')
        );
        assert_eq!(
            delimiter_of_header("\"topic\",\"system\",x", &scores),
            Some(b',')
        );
        assert_eq!(
            delimiter_of_header("system\ttopic\tscore, raw", &scores),
            Some(b'\t')
        );
        assert_eq!(
            delimiter_of_header(r#"{"topic": "t", "system": "s"}"#, &scores),
            None
        );
        assert_eq!(delimiter_of_header("topic,score", &scores), None);
        assert_eq!(delimiter_of_header("not json, topic system", &scores), None);
        assert_eq!(
            delimiter_of_header("topic;system;relevance", &scores),
            Some(b';')
        );
        assert_eq!(
            delimiter_of_header("\"topic\";\"system\";\"a,b\"", &scores),
            Some(b';')
        );
        assert_eq!(
            delimiter_of_header("id;model;decoded", &["id", "decoded"]),
            Some(b';')
        );
    }

    #[test]
    fn a_decimal_comma_is_read_only_in_a_table_split_at_semicolons() {
        assert_eq!(parse_cell("2,5", b';'), Some(2.5));
        assert_eq!(parse_cell("-0,25", b';'), Some(-0.25));
        assert_eq!(parse_cell("1,5e-3", b';'), Some(0.0015));
        assert_eq!(parse_cell("2.5", b';'), Some(2.5));
        assert_eq!(parse_cell("3", b';'), Some(3.0));
        assert_eq!(parse_cell("1.234,5", b';'), None);
        assert_eq!(parse_cell("1,2,3", b';'), None);
        assert_eq!(parse_cell("2,5", b','), None);
        assert_eq!(parse_cell("2,5", b'\t'), None);
        assert!(parse_cell("NaN", b';').is_some_and(f64::is_nan));
        assert!(not_a_number_hint("2,5", b',').starts_with(" (a decimal comma"));
        assert_eq!(not_a_number_hint("high", b','), "");
    }
}
