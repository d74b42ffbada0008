//! Cross-origin requests from web pages (`--cors-origin`): a browser lets a page call the service
//! from another origin (an annotation tool at `https://annotate.example.org` calling
//! `http://localhost:8080`) only when the answers say that origin may, by CORS headers. Without
//! `--cors-origin` the service sends none, and browsers keep other origins' pages from reading its
//! answers, as before.
//!
//! The origins are checked when the flag is read, so a typo (`https://example.org/`, a path, no
//! scheme) is a usage error rather than an origin that never matches what browsers send.

use axum::http::{header, HeaderName, HeaderValue, Method};
use std::time::Duration;
use tower_http::cors::{AllowOrigin, AllowPrivateNetwork, CorsLayer};

/// How long a browser may keep a preflight's answer before asking again.
const PREFLIGHT_MAX_AGE: Duration = Duration::from_secs(3600);

/// The origins whose pages may call the service: every one (`*`), or those listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CorsOrigins {
    Any,
    List(Vec<String>),
}

impl CorsOrigins {
    /// The `--cors-origin` values, checked and written as browsers write an `Origin` header;
    /// `None` when none was given.
    pub fn from_args(values: &[String]) -> Result<Option<CorsOrigins>, String> {
        if values.is_empty() {
            return Ok(None);
        }
        if values.iter().any(|v| v.trim() == "*") {
            if values.len() > 1 {
                return Err(
                    "--cors-origin '*' lets every origin call the service: give it alone, or list the origins".to_string(),
                );
            }
            return Ok(Some(CorsOrigins::Any));
        }
        let mut origins: Vec<String> = Vec::new();
        for value in values {
            let origin = parse_origin(value)?;
            if !origins.contains(&origin) {
                origins.push(origin);
            }
        }
        Ok(Some(CorsOrigins::List(origins)))
    }

    /// The layer that answers preflight requests and adds the CORS headers to every answer,
    /// errors included (a page must be able to read a 401 or a 429).
    pub fn layer(&self) -> CorsLayer {
        let (allow_origin, private_network) = match self {
            CorsOrigins::Any => (AllowOrigin::any(), AllowPrivateNetwork::yes()),
            CorsOrigins::List(origins) => {
                let values: Vec<HeaderValue> = origins
                    .iter()
                    .filter_map(|o| HeaderValue::from_str(o).ok())
                    .collect();
                let listed = values.clone();
                (
                    AllowOrigin::list(values),
                    // Chrome asks before a public page calls a service on the user's own
                    // machine or network; a listed origin may.
                    AllowPrivateNetwork::predicate(move |origin, _| listed.contains(origin)),
                )
            }
        };
        CorsLayer::new()
            .allow_origin(allow_origin)
            .allow_private_network(private_network)
            .allow_methods([Method::GET, Method::POST])
            .allow_headers([
                header::AUTHORIZATION,
                header::CONTENT_TYPE,
                header::CONTENT_ENCODING,
                HeaderName::from_static("x-request-id"),
            ])
            .expose_headers([HeaderName::from_static("x-request-id"), header::RETRY_AFTER])
            .max_age(PREFLIGHT_MAX_AGE)
    }
}

/// One origin as browsers send it: `scheme://host[:port]`, lowercase, without the scheme's
/// default port, path, query or credentials. A trailing `/` is dropped (a URL copied from the
/// address bar); anything else past the host is an error naming the value.
fn parse_origin(value: &str) -> Result<String, String> {
    let explain = |why: &str| {
        format!(
            "--cors-origin '{value}': {why}; give an origin as browsers send it, scheme://host[:port] (e.g. https://annotate.example.org or http://localhost:3000), or '*' for every origin"
        )
    };
    let text = value.trim();
    let Some((scheme, rest)) = text.split_once("://") else {
        return Err(explain("no scheme"));
    };
    let scheme = scheme.to_ascii_lowercase();
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    if !scheme_ok {
        return Err(explain("not a URL scheme"));
    }
    let authority = rest.strip_suffix('/').unwrap_or(rest);
    if authority.is_empty() {
        return Err(explain("no host"));
    }
    if let Some(c) = authority
        .chars()
        .find(|c| matches!(c, '/' | '?' | '#' | '@') || c.is_whitespace() || c.is_control())
    {
        return Err(explain(&format!(
            "an origin has no path, query, fragment or credentials ('{c}' found)"
        )));
    }
    if !authority.is_ascii() {
        return Err(explain(
            "not ASCII: write an international domain name as browsers send it (xn--…)",
        ));
    }
    let (host, port) = match authority.rsplit_once(':') {
        // An IPv6 address holds colons of its own: `[::1]:8080`, `[::1]`.
        Some((host, port)) if !port.contains(']') => (host, Some(port)),
        _ => (authority, None),
    };
    if host.is_empty() {
        return Err(explain("no host"));
    }
    let host = host.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        _ => None,
    };
    let port = match port {
        None => None,
        Some(digits) => match digits.parse::<u16>() {
            Ok(0) | Err(_) => return Err(explain(&format!("'{digits}' is not a port"))),
            Ok(p) if Some(p) == default_port => None,
            Ok(p) => Some(p),
        },
    };
    Ok(match port {
        Some(p) => format!("{scheme}://{host}:{p}"),
        None => format!("{scheme}://{host}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origins(values: &[&str]) -> Result<Option<CorsOrigins>, String> {
        CorsOrigins::from_args(&values.iter().map(|v| v.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn origins_are_written_as_browsers_send_them() {
        assert_eq!(origins(&[]), Ok(None));
        assert_eq!(origins(&["*"]), Ok(Some(CorsOrigins::Any)));
        let listed = origins(&[
            "HTTPS://Annotate.Example.org/",
            "http://localhost:3000",
            "https://annotate.example.org:443",
            "http://[::1]:8080",
            "http://127.0.0.1:80",
        ]);
        assert_eq!(
            listed,
            Ok(Some(CorsOrigins::List(vec![
                "https://annotate.example.org".to_string(),
                "http://localhost:3000".to_string(),
                "http://[::1]:8080".to_string(),
                "http://127.0.0.1".to_string(),
            ])))
        );
    }

    #[test]
    fn an_origin_that_no_browser_sends_is_a_usage_error_naming_it() {
        for (value, why) in [
            ("annotate.example.org", "no scheme"),
            ("https://annotate.example.org/tool", "no path"),
            ("https://example.org?x=1", "no path, query"),
            ("https://user@example.org", "credentials"),
            ("https://", "no host"),
            ("https://:8080", "no host"),
            ("http://localhost:99999", "'99999' is not a port"),
            ("http://localhost:0", "'0' is not a port"),
            ("1http://x", "not a URL scheme"),
            ("https://bücher.example", "not ASCII"),
        ] {
            let message = origins(&[value]).expect_err(value);
            assert!(message.contains(value), "{message}");
            assert!(message.contains(why), "{value}: {message}");
        }
        let message = origins(&["*", "https://example.org"]).expect_err("mixed");
        assert!(message.contains("give it alone"), "{message}");
    }
}
