//! The service's error answer: `{"error": {"code", "message", "field"?}}` with a 4xx/5xx status.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// One error answer. `field` names the offending part of the request
/// (`topics[0].summaries[2].text`), or is `None` when the whole request is at fault.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    pub field: Option<String>,
    /// Seconds a client should wait before retrying (sent as `Retry-After`).
    pub retry_after: Option<u64>,
}

/// Carried in the response's extensions so the metrics middleware can count errors by code.
#[derive(Debug, Clone, Copy)]
pub struct ErrorCode(pub &'static str);

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
            field: None,
            retry_after: None,
        }
    }

    /// 422: a field of the request is invalid.
    pub fn invalid(
        code: &'static str,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, code, message).at(field)
    }

    /// 413: a limit of the service is exceeded.
    pub fn too_large(
        code: &'static str,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, code, message).at(field)
    }

    pub fn at(mut self, field: impl Into<String>) -> ApiError {
        let field = field.into();
        self.field = (!field.is_empty()).then_some(field);
        self
    }

    pub fn retry_after(mut self, seconds: u64) -> ApiError {
        self.retry_after = Some(seconds);
        self
    }

    /// 500 for failures that are the service's fault; the message still says what failed.
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", message)
    }

    pub fn body(&self) -> serde_json::Value {
        let mut error = json!({"code": self.code, "message": self.message});
        if let Some(field) = &self.field {
            error["field"] = json!(field);
        }
        json!({ "error": error })
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, axum::Json(self.body())).into_response();
        if let Some(seconds) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        if self.status == StatusCode::UNSUPPORTED_MEDIA_TYPE {
            // RFC 9110, 15.5.16: a content coding the server does not take is answered with the
            // codings it does.
            response
                .headers_mut()
                .insert(header::ACCEPT_ENCODING, HeaderValue::from_static("gzip"));
        }
        if self.status == StatusCode::UNAUTHORIZED {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response.extensions_mut().insert(ErrorCode(self.code));
        response
    }
}
