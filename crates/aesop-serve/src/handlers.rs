//! Route handlers and the middleware every request passes (auth, metrics, logs).

use super::api::parse_score_request;
use super::encoding;
use super::error::{ApiError, ErrorCode};
use super::score::score_request;
use super::AppState;
use axum::body::Body;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

type Shared = State<Arc<AppState>>;

/// Routes answered without a token: probes must work without secrets.
const PUBLIC: &[&str] = &["/healthz", "/readyz"];

/// The status logged and counted for a request whose client went away before its answer (as
/// nginx logs it), with this error code.
pub const CLIENT_CLOSED_STATUS: u16 = 499;
pub const CLIENT_CLOSED_CODE: &str = "client_closed";

/// Auth, then the handler; then count, time and log the request.
pub async fn track(State(state): Shared, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let _in_flight = state.metrics.start_request();
    let id = state.request_id();
    let client_id = client_request_id(request.headers());
    let method = request.method().clone();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", |p| p.as_str())
        .to_string();
    let authorization = request
        .headers()
        .get(header::AUTHORIZATION)
        .map(|h| h.as_bytes().to_vec());
    // hyper drops this future when the client closes its connection before the answer: the
    // guard then logs and counts the request all the same.
    let mut unanswered = Unanswered {
        state: Arc::clone(&state),
        id,
        client_id: client_id.clone(),
        method: method.clone(),
        route: route.clone(),
        started,
        armed: true,
    };
    let mut response =
        if PUBLIC.contains(&route.as_str()) || state.authorized(authorization.as_deref()) {
            next.run(request).await
        } else {
            ApiError::new(
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                "this service needs a bearer token: send `Authorization: Bearer TOKEN`",
            )
            .into_response()
        };
    unanswered.armed = false;
    let elapsed = started.elapsed();
    let status = response.status();
    let code = response.extensions().get::<ErrorCode>().map(|c| c.0);
    let code =
        code.or_else(|| (status.is_client_error() || status.is_server_error()).then_some("other"));
    state.metrics.record(&route, status.as_u16(), elapsed, code);
    // The client's own id when it sent one, so it finds its request in the logs by it.
    let answered_id = client_id.clone().unwrap_or_else(|| id.to_string());
    if let Ok(value) = HeaderValue::from_str(&answered_id) {
        response.headers_mut().insert("x-request-id", value);
    }
    let latency_ms = elapsed.as_secs_f64() * 1000.0;
    let client_request_id = client_id.as_deref();
    if status.is_server_error() {
        tracing::warn!(request_id = id, client_request_id, %method, route, status = status.as_u16(), latency_ms, error = code, "request");
    } else {
        tracing::info!(request_id = id, client_request_id, %method, route, status = status.as_u16(), latency_ms, error = code, "request");
    }
    response
}

/// The longest `X-Request-Id` taken from a client (a UUID is 36 characters).
pub const MAX_CLIENT_REQUEST_ID: usize = 128;

/// The request's `X-Request-Id` when the client sent a usable one: 1 to
/// [`MAX_CLIENT_REQUEST_ID`] visible ASCII characters (no space or control character, which could
/// forge a log line or a header). Anything else is ignored and the service's own id is used.
fn client_request_id(headers: &axum::http::HeaderMap) -> Option<String> {
    let value = headers.get("x-request-id")?.as_bytes();
    let usable = !value.is_empty()
        && value.len() <= MAX_CLIENT_REQUEST_ID
        && value.iter().all(|b| b.is_ascii_graphic());
    usable.then(|| String::from_utf8_lossy(value).into_owned())
}

/// A request being answered; dropped while armed, its client went away first.
struct Unanswered {
    state: Arc<AppState>,
    id: u64,
    client_id: Option<String>,
    method: axum::http::Method,
    route: String,
    started: Instant,
    armed: bool,
}

impl Drop for Unanswered {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let elapsed = self.started.elapsed();
        self.state.metrics.record(
            &self.route,
            CLIENT_CLOSED_STATUS,
            elapsed,
            Some(CLIENT_CLOSED_CODE),
        );
        tracing::info!(
            request_id = self.id,
            client_request_id = self.client_id.as_deref(),
            method = %self.method,
            route = self.route,
            status = CLIENT_CLOSED_STATUS,
            latency_ms = elapsed.as_secs_f64() * 1000.0,
            error = CLIENT_CLOSED_CODE,
            "request"
        );
    }
}

pub async fn healthz() -> Json<serde_json::Value> {
    Json(json!({"status": "ok"}))
}

pub async fn readyz(State(state): Shared) -> Response {
    if state.is_ready() {
        Json(json!({"status": "ready"})).into_response()
    } else {
        not_ready().into_response()
    }
}

fn not_ready() -> ApiError {
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "not_ready",
        "the service is loading its models or shutting down",
    )
    .retry_after(1)
}

pub async fn metrics(State(state): Shared) -> Response {
    let models = state.registry().map_or(0, |r| r.models().len());
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
        )],
        state.metrics.render(models),
    )
        .into_response()
}

pub async fn openapi() -> Json<serde_json::Value> {
    Json(super::openapi::document())
}

pub async fn models(State(state): Shared) -> Result<Json<serde_json::Value>, ApiError> {
    let registry = state.registry().ok_or_else(not_ready)?;
    Ok(Json(json!({"models": registry.cards()})))
}

/// One model's whole card. `reload` names the reload route, not a model, for GET too.
pub async fn model(
    State(state): Shared,
    name: Result<axum::extract::Path<String>, axum::extract::rejection::PathRejection>,
) -> Result<Json<serde_json::Value>, ApiError> {
    // axum answers a name it cannot decode (`%FF`) in plain text; every error here is JSON, and
    // no model has such a name.
    let axum::extract::Path(name) = name.map_err(|e| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "unknown_model",
            format!(
                "no model named by this URL ({}): model names are UTF-8",
                e.body_text()
            ),
        )
    })?;
    let registry = state.registry().ok_or_else(not_ready)?;
    registry.card_of(&name).map(Json).ok_or_else(|| {
        let known: Vec<&str> = registry.models().iter().map(|m| m.name.as_str()).collect();
        ApiError::new(
            StatusCode::NOT_FOUND,
            "unknown_model",
            format!("no model {name:?}; models: {}", known.join(", ")),
        )
    })
}

pub async fn reload(State(state): Shared) -> Result<Json<serde_json::Value>, ApiError> {
    // Still loading at start: there are no previous models to keep serving, so this is the
    // 503 every other route answers then, not a failed reload.
    if state.registry().is_none() {
        return Err(not_ready());
    }
    // The reload runs on its own task, to its end, whether or not this request waits for it.
    let reload = state.spawn_reload("POST /v1/models/reload");
    let timeout = state.limits.timeout;
    let still_running = "it goes on; the log and aesop_model_reloads_total tell its outcome";
    tokio::select! {
        biased;
        outcome = reload => match outcome {
            Ok(Ok(registry)) => Ok(Json(
                json!({"reloaded": true, "models": model_refs(&registry)}),
            )),
            Ok(Err(e)) => Err(ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "reload_failed",
                format!("{e:#}; the previous models keep serving"),
            )),
            Err(e) => Err(ApiError::internal(format!("the reload task failed: {e}"))),
        },
        // Bounded as every request is, so that neither a client nor the graceful shutdown
        // waits on a model file that cannot be read.
        () = tokio::time::sleep(timeout) => Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "timeout",
            format!(
                "the reload did not finish within {} ms (--timeout-ms); {still_running}",
                timeout.as_millis()
            ),
        )
        .retry_after(1)),
        () = state.draining() => Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "not_ready",
            format!("the service is shutting down before the reload finished; {still_running}"),
        )
        .retry_after(1)),
    }
}

fn model_refs(registry: &super::registry::Registry) -> Vec<serde_json::Value> {
    registry
        .models()
        .iter()
        .map(|m| json!({"name": m.name, "version": m.version, "target": m.target}))
        .collect()
}

/// Sets its flag when dropped: a request that times out (or whose client goes away) tells the
/// scoring thread to stop at its next checkpoint.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

pub async fn score(State(state): Shared, request: Request) -> Response {
    let cancel = Arc::new(AtomicBool::new(false));
    let guard = CancelOnDrop(Arc::clone(&cancel));
    let timeout = state.limits.timeout;
    let (parts, body) = request.into_parts();
    let answer = tokio::time::timeout(
        timeout,
        score_within_limits(&state, &parts.headers, body, cancel),
    )
    .await;
    drop(guard);
    match answer {
        Ok(Ok(response)) => response,
        Ok(Err(error)) => error.into_response(),
        Err(_) => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "timeout",
            format!(
                "the request took longer than {} ms (--timeout-ms)",
                timeout.as_millis()
            ),
        )
        .retry_after(1)
        .into_response(),
    }
}

async fn score_within_limits(
    state: &Arc<AppState>,
    headers: &axum::http::HeaderMap,
    body: Body,
    cancel: Arc<AtomicBool>,
) -> Result<Response, ApiError> {
    let registry = state.registry().ok_or_else(not_ready)?;
    // Admission first, before reading the body: an overloaded service turns requests away at
    // once instead of queueing them without bound.
    let admitted = Arc::clone(&state.admission)
        .try_acquire_owned()
        .map_err(|_| {
            ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "overloaded",
                "too many scoring requests in progress; retry later",
            )
            .retry_after(1)
        })?;
    let limit = state.limits.max_body_bytes;
    let gzipped = encoding::body_is_gzipped(headers)?;
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(body_too_large(limit));
    }
    let bytes = axum::body::to_bytes(body, limit).await.map_err(|_| {
        // hyper ends a body at its Content-Length, so with one within the limit the read
        // failed because the connection broke: the client went away mid-body.
        if declared.is_some() {
            client_closed("the connection closed before the whole request body arrived")
        } else {
            body_too_large(limit)
        }
    })?;
    let bytes = if gzipped {
        encoding::gunzip_body(&bytes, limit)?.into()
    } else {
        bytes
    };
    let request = parse_score_request(&bytes, &state.limits)?;
    drop(bytes);
    let worker = Arc::clone(&state.workers)
        .acquire_owned()
        .await
        .map_err(|_| ApiError::internal("the worker pool is closed"))?;
    let summaries: usize = request.topics.iter().map(|t| t.summaries.len()).sum();
    // Both permits move into the blocking task, which runs on after a request times out or its
    // client goes away (until scoring notices the cancel flag): held by this future, the
    // admission permit was freed at once, so --workers 1 --queue 0 admitted the next request
    // to wait for the busy worker instead of answering 429. The CPU and the queue stay bounded.
    let answer = tokio::task::spawn_blocking(move || {
        let _permits = (admitted, worker);
        score_request(&request, &registry, &cancel)
    })
    .await
    .map_err(|e| ApiError::internal(format!("scoring task failed: {e}")))??;
    state.metrics.add_summaries(summaries);
    Ok(Json(answer).into_response())
}

/// What a request whose client left is logged and counted as (nobody reads the answer).
fn client_closed(message: &str) -> ApiError {
    let status = StatusCode::from_u16(CLIENT_CLOSED_STATUS).unwrap_or(StatusCode::BAD_REQUEST);
    ApiError::new(status, CLIENT_CLOSED_CODE, message)
}

fn body_too_large(limit: usize) -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "body_too_large",
        format!("the request body exceeds {limit} bytes (--max-body-bytes)"),
    )
    .at("")
}

pub async fn not_found(request: Request) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        format!("no route {} (see /openapi.json)", request.uri().path()),
    )
}

pub async fn method_not_allowed(request: Request) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!(
            "{} is not allowed on {} (see /openapi.json)",
            request.method(),
            request.uri().path()
        ),
    )
}
