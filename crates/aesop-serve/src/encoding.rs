//! Content codings: gzip-compressed request bodies read, responses gzip-compressed for clients
//! that accept it.
//!
//! Why: clients send large batches compressed (`Content-Encoding: gzip`) and expect large answers
//! compressed when they say they can read them (`Accept-Encoding: gzip`, which curl's
//! `--compressed`, Python's requests and every browser send). A scoring answer is JSON that
//! repeats its keys per summary, so gzip shrinks it four- to tenfold (three SummEval topics,
//! 48 summaries: 14.2 kB to 3.2 kB; with `features`, 921 kB to 86 kB). Only gzip is offered:
//! every HTTP client reads it, and flate2 is already a dependency.

use super::error::ApiError;
use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use flate2::write::GzEncoder;
use flate2::Compression;
use std::io::Write;

/// Answers shorter than this go as they are: gzip's header and trailer (18 bytes) and a client's
/// work to inflate outweigh what a few hundred bytes compress to.
pub const MIN_COMPRESSED_BYTES: usize = 1024;

/// Middleware: compress the answer with gzip when the request accepts it and the answer is at
/// least [`MIN_COMPRESSED_BYTES`] long and not compressed already. Every answer says `Vary:
/// Accept-Encoding`, so a cache between client and service never hands a compressed answer to a
/// client that did not ask for one.
pub async fn compress_response(request: Request, next: Next) -> Response {
    let accepts_gzip = accepts_gzip(request.headers());
    let mut response = next.run(request).await;
    response
        .headers_mut()
        .append(header::VARY, HeaderValue::from_static("accept-encoding"));
    if !accepts_gzip || response.headers().contains_key(header::CONTENT_ENCODING) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    // Every answer of the service is built in memory (JSON or the metrics' text): reading it
    // back costs a copy, not a wait.
    let bytes = match axum::body::to_bytes(body, usize::MAX).await {
        Ok(bytes) => bytes,
        Err(e) => return ApiError::internal(format!("reading the answer: {e}")).into_response(),
    };
    if bytes.len() < MIN_COMPRESSED_BYTES {
        return Response::from_parts(parts, bytes.into());
    }
    let compressed = match gzip(&bytes) {
        Ok(compressed) => compressed,
        Err(e) => {
            return ApiError::internal(format!("compressing the answer: {e}")).into_response()
        }
    };
    parts
        .headers
        .insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    // The length was the plain body's; hyper sets the compressed one.
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, compressed.into())
}

/// Whether `Accept-Encoding` lets the answer be gzip-compressed (RFC 9110, 12.5.3): `gzip` (or
/// `x-gzip`) or `*` with a weight above 0, `gzip` named with `q=0` refusing it whatever `*` says.
/// No header: the answer goes as it is, as most servers do (the RFC would allow any coding).
pub fn accepts_gzip(headers: &HeaderMap) -> bool {
    let (mut gzip, mut any) = (None, None);
    for value in headers.get_all(header::ACCEPT_ENCODING) {
        let Ok(text) = value.to_str() else { continue };
        for item in text.split(',') {
            let mut fields = item.split(';').map(str::trim);
            let coding = fields.next().unwrap_or("").to_ascii_lowercase();
            let weight = fields
                .filter_map(|f| f.split_once('='))
                .find(|(name, _)| name.trim().eq_ignore_ascii_case("q"))
                .map_or(Some(1.0), |(_, q)| q.trim().parse::<f64>().ok());
            // A weight that is not a number is read as a refusal: never guess a client can inflate.
            let accepted = weight.is_some_and(|q| q > 0.0);
            match coding.as_str() {
                "gzip" | "x-gzip" => gzip = Some(gzip.unwrap_or(true) && accepted),
                "*" => any = Some(accepted),
                _ => {}
            }
        }
    }
    gzip.or(any).unwrap_or(false)
}

/// `bytes` gzip-compressed at zlib's default level: on an answer with `features` it writes half
/// the bytes of the fast level, in about 10 ms per MB, far less than the scoring took.
fn gzip(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut encoder = GzEncoder::new(Vec::with_capacity(bytes.len() / 4), Compression::default());
    encoder.write_all(bytes)?;
    encoder.finish()
}

/// Whether the request body is gzip-compressed (`Content-Encoding: gzip`, which clients use to
/// send large batches), read before the body is: no coding or `identity` is plain JSON, and any
/// other coding is 415 (with `Accept-Encoding: gzip`), where the body used to be read as JSON
/// and refused as "invalid UTF-8 at byte 1".
pub fn body_is_gzipped(headers: &axum::http::HeaderMap) -> Result<bool, ApiError> {
    let mut gzipped = false;
    for value in headers.get_all(header::CONTENT_ENCODING) {
        let text = value.to_str().unwrap_or("?");
        for coding in text.split(',').map(str::trim).filter(|c| !c.is_empty()) {
            match coding.to_ascii_lowercase().as_str() {
                "identity" => {}
                "gzip" | "x-gzip" if !gzipped => gzipped = true,
                _ => {
                    return Err(ApiError::new(
                        StatusCode::UNSUPPORTED_MEDIA_TYPE,
                        "unsupported_encoding",
                        format!(
                            "Content-Encoding '{text}': the request body may be sent as is or \
                             gzip-compressed once (Content-Encoding: gzip)"
                        ),
                    ))
                }
            }
        }
    }
    Ok(gzipped)
}

/// A gzip-compressed body decompressed, its text held to the same `limit` as a plain body's (so
/// a small body that expands without bound is 413, not memory spent).
pub fn gunzip_body(bytes: &[u8], limit: usize) -> Result<Vec<u8>, ApiError> {
    use std::io::Read;
    let mut text = Vec::new();
    flate2::read::MultiGzDecoder::new(bytes)
        .take(limit as u64 + 1)
        .read_to_end(&mut text)
        .map_err(|e| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                "invalid_encoding",
                format!("the body is not valid gzip (Content-Encoding: gzip): {e}"),
            )
        })?;
    if text.len() > limit {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body_too_large",
            format!("the request body exceeds {limit} bytes once decompressed (--max-body-bytes)"),
        ));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accepts(values: &[&str]) -> bool {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(
                header::ACCEPT_ENCODING,
                HeaderValue::from_str(value).expect("header"),
            );
        }
        accepts_gzip(&headers)
    }

    #[test]
    fn gzip_is_accepted_as_rfc_9110_weighs_it() {
        assert!(!accepts(&[]));
        for yes in [
            "gzip",
            "GZip",
            "x-gzip",
            "gzip, deflate, br",
            "br;q=1.0, gzip;q=0.8",
            "*",
            "identity;q=1, *;q=0.5",
            "gzip;q=0.001",
        ] {
            assert!(accepts(&[yes]), "{yes}");
        }
        assert!(accepts(&["br", "gzip"]), "two header lines");
        for no in [
            "",
            "identity",
            "br, deflate",
            "gzip;q=0",
            "gzip; q=0.000",
            "*;q=0",
            "gzip;q=0, *",
            "*, gzip;q=0",
            "gzip;q=abc",
        ] {
            assert!(!accepts(&[no]), "{no}");
        }
    }
}
