//! `aesop serve`: the prediction service (docs/SERVICE.md).
//!
//! [`api`] parses and validates requests, [`score`] answers them (on a blocking thread, so the
//! async executor stays free for health checks), [`registry`] holds the models and reloads
//! them, [`metrics`] counts, [`limits`] bounds the work, [`encoding`] reads compressed bodies and
//! compresses answers, [`openapi`] describes the API, and [`server`] binds, handles signals and
//! shuts down gracefully. This file holds the arguments, the shared state and the router.

pub mod api;
pub mod connections;
pub mod cors;
pub mod encoding;
pub mod error;
mod handlers;
pub mod limits;
pub mod metrics;
pub mod openapi;
pub mod registry;
pub mod score;
pub mod server;

use aesop_learn::builtin::Family;
use anyhow::{bail, Context, Result};
use axum::routing::{get, post};
use axum::Router;
use limits::Limits;
use metrics::Metrics;
use registry::{ModelSpec, Registry};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio::sync::Semaphore;

pub use server::{run, spawn, ServerHandle};

/// The shortest bearer token accepted: 16 bytes (128 bits when random).
pub const MIN_TOKEN_BYTES: usize = 16;

/// The largest `--max-connections` (far beyond any file-descriptor limit).
pub const MAX_CONNECTIONS: usize = 1_000_000;

/// The largest `--queue`.
pub const MAX_QUEUE: usize = 1_000_000;

/// `aesop serve [--addr IP:PORT] [--model NAME=PATH …] [--token-file FILE] [limits…]`
#[derive(Debug, Clone)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct ServeArgs {
    /// Address to listen on, IP:PORT or HOST:PORT (`localhost:8080`; port 0 picks a free port;
    /// the bound address is logged).
    #[cfg_attr(feature = "cli", arg(long, default_value = "127.0.0.1:8080", value_parser = parse_addr))]
    pub addr: SocketAddr,
    /// A model file to serve besides the built-ins, as `PATH` (named by the file's stem) or
    /// `NAME=PATH`; repeat for several. Reloaded on SIGHUP or POST /v1/models/reload.
    #[cfg_attr(feature = "cli", arg(long = "model", value_name = "[NAME=]PATH", value_parser = ModelSpec::parser()))]
    pub models: Vec<ModelSpec>,
    /// File holding a bearer token that requests must send (`Authorization: Bearer TOKEN`);
    /// required when --addr is not a loopback address.
    #[cfg_attr(feature = "cli", arg(long))]
    pub token_file: Option<PathBuf>,
    /// Scoring requests run at once [default: number of CPUs].
    #[cfg_attr(feature = "cli", arg(long, value_parser = clap::value_parser!(u32).range(1..=1024)))]
    pub workers: Option<u32>,
    /// Scoring requests that may wait for a worker; more get 429 at once.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 32, value_parser = up_to(0, MAX_QUEUE)))]
    pub queue: usize,
    /// Largest request body in bytes.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = Limits::default().max_body_bytes, value_parser = at_least_one()))]
    pub max_body_bytes: usize,
    /// Most topics in one request.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = Limits::default().max_topics, value_parser = at_least_one()))]
    pub max_topics: usize,
    /// Most summaries in one request (over all its topics).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = Limits::default().max_summaries, value_parser = at_least_one()))]
    pub max_summaries: usize,
    /// Longest document, reference or summary text, in bytes.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = Limits::default().max_text_bytes, value_parser = at_least_one()))]
    pub max_text_bytes: usize,
    /// Time limit per request in milliseconds, waiting for a worker included.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 30_000, value_parser = clap::value_parser!(u64).range(1..)))]
    pub timeout_ms: u64,
    /// Most connections open at once; more are closed at once.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = Limits::default().max_connections, value_parser = up_to(1, MAX_CONNECTIONS)))]
    pub max_connections: usize,
    /// Seconds a connection has to send a request's headers; then it is closed.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..)))]
    pub header_timeout_secs: u64,
    /// Also load the built-ins with the neural LM class (`…-lm`, `faithfulness`) and use them
    /// when a request names no model. Needs `aesop models fetch smollm2`; see docs/NEURAL.md
    /// for their latency.
    #[cfg_attr(feature = "cli", arg(long))]
    pub neural: bool,
    /// An origin whose web pages may call the service from a browser (CORS), as
    /// `scheme://host[:port]` (`https://annotate.example.org`, `http://localhost:3000`); repeat
    /// for several, or `*` for every origin. Without it browsers keep other origins' pages from
    /// reading the answers. See docs/SERVICE.md, "Browsers (CORS)".
    #[cfg_attr(feature = "cli", arg(long = "cors-origin", value_name = "ORIGIN"))]
    pub cors_origins: Vec<String>,
}

/// The size limits and `--max-connections`: 0 would refuse every request, so it is a usage error.
#[cfg(feature = "cli")]
fn at_least_one() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::<usize>::new().range(1..)
}

/// `--queue` and `--max-connections` within `min..=max`: each sizes a semaphore, and one beyond
/// tokio's `Semaphore::MAX_PERMITS` panicked after "listening" was logged.
#[cfg(feature = "cli")]
fn up_to(min: u64, max: usize) -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::<usize>::new().range(min..=max as u64)
}

/// `--addr`: an IP address and port, or a host name and port resolved once (the first address).
#[cfg(feature = "cli")]
fn parse_addr(text: &str) -> std::result::Result<SocketAddr, String> {
    use std::net::ToSocketAddrs;
    if let Ok(addr) = text.parse() {
        return Ok(addr);
    }
    let mut addrs = text
        .to_socket_addrs()
        .map_err(|e| format!("{text}: not IP:PORT or HOST:PORT ({e})"))?;
    addrs
        .next()
        .ok_or_else(|| format!("{text}: the host name has no address"))
}

impl ServeArgs {
    /// The defaults of every flag, listening on `addr`.
    pub fn new(addr: SocketAddr) -> ServeArgs {
        let limits = Limits::default();
        ServeArgs {
            addr,
            models: Vec::new(),
            token_file: None,
            workers: None,
            queue: limits.queue,
            max_body_bytes: limits.max_body_bytes,
            max_topics: limits.max_topics,
            max_summaries: limits.max_summaries,
            max_text_bytes: limits.max_text_bytes,
            timeout_ms: 30_000,
            max_connections: limits.max_connections,
            header_timeout_secs: limits.header_timeout.as_secs(),
            neural: false,
            cors_origins: Vec::new(),
        }
    }

    pub fn limits(&self) -> Limits {
        let defaults = Limits::default();
        Limits {
            max_body_bytes: self.max_body_bytes,
            max_topics: self.max_topics,
            max_summaries: self.max_summaries,
            max_text_bytes: self.max_text_bytes,
            timeout: Duration::from_millis(self.timeout_ms),
            workers: self.workers.map_or(defaults.workers, |w| w as usize),
            queue: self.queue,
            max_connections: self.max_connections,
            header_timeout: Duration::from_secs(self.header_timeout_secs),
        }
    }

    /// The usage errors found before the port is bound: the `--model` names and the
    /// `--cors-origin` values.
    pub fn check_usage(&self) -> std::result::Result<(), String> {
        self.check_model_names()?;
        self.cors_origins().map(|_| ())
    }

    /// The `--cors-origin` values, checked; `None` when none was given.
    pub fn cors_origins(&self) -> std::result::Result<Option<cors::CorsOrigins>, String> {
        cors::CorsOrigins::from_args(&self.cors_origins)
    }

    /// The `--model` names: no two alike and none a built-in's, ignoring case (`Pyramid` beside
    /// the built-in `pyramid`, or `mine` beside `Mine`, is a trap for clients). A usage error
    /// found before the port is bound; the registry's own check runs only after.
    pub fn check_model_names(&self) -> std::result::Result<(), String> {
        let family = self.family();
        for (i, spec) in self.models.iter().enumerate() {
            if let Some(builtin) = aesop_learn::builtin::BUILTINS
                .iter()
                .filter(|b| family.includes(b))
                .find(|b| b.name.eq_ignore_ascii_case(&spec.name))
            {
                return Err(format!(
                    "--model {}={}: the name '{}' is taken by the built-in model '{}'; choose another name",
                    spec.name,
                    spec.path.display(),
                    spec.name,
                    builtin.name
                ));
            }
            if let Some(first) = self.models[..i]
                .iter()
                .find(|other| other.name.eq_ignore_ascii_case(&spec.name))
            {
                return Err(format!(
                    "--model {}={}: the name '{}' is already given to {} (names differing only in case count as the same); give each model its own name",
                    spec.name,
                    spec.path.display(),
                    spec.name,
                    first.path.display()
                ));
            }
        }
        Ok(())
    }

    /// The built-ins served: the classic ones, or with `--neural` the LM ones too.
    fn family(&self) -> Family {
        if self.neural {
            Family::Neural
        } else {
            Family::Classic
        }
    }

    /// The bearer token, read from --token-file. Binding beyond loopback without one is refused:
    /// the service would otherwise be open to the network.
    pub fn token(&self) -> Result<Option<String>> {
        let Some(path) = &self.token_file else {
            if !self.addr.ip().is_loopback() {
                bail!(
                    "--addr {} is not a loopback address: give --token-file so that requests must \
                     carry a bearer token",
                    self.addr
                );
            }
            return Ok(None);
        };
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading --token-file {}", path.display()))?;
        let token = aesop_core::input::without_bom(&text).trim();
        if token.is_empty() {
            bail!("--token-file {} is empty", path.display());
        }
        if token.len() < MIN_TOKEN_BYTES {
            bail!(
                "--token-file {}: the token has {} bytes; use at least {MIN_TOKEN_BYTES} (e.g. `openssl rand -hex 16`)",
                path.display(),
                token.len()
            );
        }
        if token.chars().any(|c| c.is_whitespace() || c.is_control()) {
            bail!(
                "--token-file {}: the token must be one line without spaces",
                path.display()
            );
        }
        Ok(Some(token.to_string()))
    }
}

/// What every request handler shares.
pub struct AppState {
    pub limits: Limits,
    token: Option<String>,
    specs: Vec<ModelSpec>,
    family: Family,
    /// `None` until the models are loaded and warmed; swapped whole on reload.
    registry: RwLock<Option<Arc<Registry>>>,
    /// Serializes reloads; requests never wait on it.
    reload_lock: tokio::sync::Mutex<()>,
    /// Permits for requests admitted to scoring (running or waiting): workers + queue.
    admission: Arc<Semaphore>,
    /// Permits for requests scoring now.
    workers: Arc<Semaphore>,
    pub metrics: Metrics,
    draining: AtomicBool,
    /// `true` once shutdown has begun: what a request that waits on something slower than
    /// itself (a reload) watches, so that the graceful shutdown does not wait on that too.
    drain_signal: tokio::sync::watch::Sender<bool>,
    /// Reloads started and not yet ended (each on its own task).
    reloads_running: Arc<AtomicUsize>,
    next_request_id: AtomicU64,
    /// The origins whose pages may call the service (`--cors-origin`), if any.
    cors: Option<cors::CorsOrigins>,
}

impl AppState {
    pub fn new(args: &ServeArgs) -> Result<AppState> {
        let limits = args.limits();
        if limits.workers == 0 {
            bail!("--workers must be at least 1");
        }
        // The CLI range-checks these; a library caller gets an error, not a semaphore panic.
        if limits.queue > MAX_QUEUE {
            bail!("--queue must be at most {MAX_QUEUE}");
        }
        if !(1..=MAX_CONNECTIONS).contains(&limits.max_connections) {
            bail!("--max-connections must be between 1 and {MAX_CONNECTIONS}");
        }
        let cors = match args.check_model_names().and_then(|()| args.cors_origins()) {
            Ok(cors) => cors,
            Err(e) => bail!(e),
        };
        Ok(AppState {
            cors,
            token: args.token()?,
            specs: args.models.clone(),
            family: args.family(),
            registry: RwLock::new(None),
            reload_lock: tokio::sync::Mutex::new(()),
            admission: Arc::new(Semaphore::new(limits.workers + limits.queue)),
            workers: Arc::new(Semaphore::new(limits.workers)),
            limits,
            metrics: Metrics::default(),
            draining: AtomicBool::new(false),
            drain_signal: tokio::sync::watch::Sender::new(false),
            reloads_running: Arc::default(),
            next_request_id: AtomicU64::new(1),
        })
    }

    /// The models serving now (a snapshot: a reload does not change it under a request).
    pub fn registry(&self) -> Option<Arc<Registry>> {
        match self.registry.read() {
            Ok(guard) => guard.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    fn install(&self, registry: Registry) {
        let registry = Some(Arc::new(registry));
        match self.registry.write() {
            Ok(mut guard) => *guard = registry,
            Err(poisoned) => *poisoned.into_inner() = registry,
        }
    }

    /// Load and warm the models for the first time; the service is ready afterwards.
    pub async fn load(&self) -> Result<()> {
        let (specs, family) = (self.specs.clone(), self.family);
        let registry = tokio::task::spawn_blocking(move || Registry::load_family(&specs, family))
            .await
            .context("loading models")??;
        self.install(registry);
        Ok(())
    }

    /// [`AppState::reload`] on a task of its own, which logs its outcome (the metrics count it
    /// in `reload`): once started, a reload runs to its end, applied, logged and counted, even
    /// if whoever asked for it (an HTTP client) stops waiting. `trigger` names the asker in
    /// the log (`SIGHUP`, `POST /v1/models/reload`).
    pub fn spawn_reload(
        self: &Arc<Self>,
        trigger: &'static str,
    ) -> tokio::task::JoinHandle<Result<Arc<Registry>>> {
        let state = Arc::clone(self);
        let running = ReloadRunning::start(&self.reloads_running);
        tokio::spawn(async move {
            let _running = running;
            tracing::info!(trigger, "reloading models ({trigger})");
            let result = state.reload().await;
            match &result {
                Ok(registry) => tracing::info!(
                    models = registry.models().len(),
                    trigger,
                    "models reloaded ({trigger})"
                ),
                Err(e) => tracing::error!(
                    error = format!("{e:#}"),
                    trigger,
                    "reload failed ({trigger}); the previous models keep serving"
                ),
            }
            result
        })
    }

    /// Reloads started by [`AppState::spawn_reload`] that have not ended.
    pub fn reloads_running(&self) -> usize {
        self.reloads_running.load(Ordering::Relaxed)
    }

    /// Read the user model files again and swap them in. On any error the old models keep
    /// serving. Returns the new registry.
    pub async fn reload(&self) -> Result<Arc<Registry>> {
        let _one_at_a_time = self.reload_lock.lock().await;
        let Some(current) = self.registry() else {
            bail!("models are still loading");
        };
        let specs = self.specs.clone();
        let result = tokio::task::spawn_blocking(move || current.reload(&specs))
            .await
            .context("reloading models");
        let registry = match result {
            Ok(Ok(registry)) => registry,
            Ok(Err(e)) | Err(e) => {
                self.metrics.record_reload(false);
                return Err(e);
            }
        };
        self.install(registry);
        self.metrics.record_reload(true);
        self.registry().context("models vanished during reload")
    }

    pub fn is_ready(&self) -> bool {
        self.registry().is_some() && !self.draining.load(Ordering::Relaxed)
    }

    /// Stop reporting ready (shutdown has begun); requests in flight still finish.
    pub fn start_draining(&self) {
        self.draining.store(true, Ordering::Relaxed);
        self.drain_signal.send_replace(true);
    }

    /// Completes once shutdown has begun ([`AppState::start_draining`]).
    pub async fn draining(&self) {
        let mut receiver = self.drain_signal.subscribe();
        // An error means the sender is gone, which it never is while `self` lives.
        let _ = receiver.wait_for(|draining| *draining).await;
    }

    fn request_id(&self) -> u64 {
        self.next_request_id.fetch_add(1, Ordering::Relaxed)
    }

    /// Whether `header` (the Authorization header's value) carries the token, if one is set.
    fn authorized(&self, header: Option<&[u8]>) -> bool {
        let Some(token) = &self.token else {
            return true;
        };
        // The scheme is case-insensitive (RFC 7235 §2.1): `Bearer`, `bearer`, `BEARER`.
        let Some(given) = header.and_then(|h| {
            (h.len() > 7 && h[..7].eq_ignore_ascii_case(b"bearer ")).then(|| &h[7..])
        }) else {
            return false;
        };
        // Compare in time independent of where the first difference is.
        let expected = token.as_bytes();
        given.len() == expected.len()
            && given
                .iter()
                .zip(expected)
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0
    }
}

/// Counts a reload as running while it lives (a guard: a reload task dropped at exit counts
/// down too).
struct ReloadRunning(Arc<AtomicUsize>);

impl ReloadRunning {
    fn start(count: &Arc<AtomicUsize>) -> ReloadRunning {
        count.fetch_add(1, Ordering::Relaxed);
        ReloadRunning(Arc::clone(count))
    }
}

impl Drop for ReloadRunning {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Every route: (method, path). The OpenAPI document lists exactly these (a test checks it).
pub const ROUTES: &[(&str, &str)] = &[
    ("GET", "/healthz"),
    ("GET", "/readyz"),
    ("GET", "/metrics"),
    ("GET", "/openapi.json"),
    ("GET", "/v1/models"),
    ("GET", "/v1/models/{name}"),
    ("POST", "/v1/models/reload"),
    ("POST", "/v1/score"),
];

/// The service's router over shared state.
pub fn router(state: Arc<AppState>) -> Router {
    let cors = state.cors.as_ref().map(cors::CorsOrigins::layer);
    let router = Router::new()
        .route("/healthz", get(handlers::healthz))
        .route("/readyz", get(handlers::readyz))
        .route("/metrics", get(handlers::metrics))
        .route("/openapi.json", get(handlers::openapi))
        .route("/v1/models", get(handlers::models))
        .route("/v1/models/{name}", get(handlers::model))
        .route("/v1/models/reload", post(handlers::reload))
        .route("/v1/score", post(handlers::score))
        .fallback(handlers::not_found)
        .method_not_allowed_fallback(handlers::method_not_allowed)
        .layer(axum::middleware::from_fn(encoding::compress_response))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&state),
            handlers::track,
        ))
        .with_state(state);
    // Outermost, so that a preflight is answered before authentication (browsers send it
    // without the token) and every answer, errors included, carries the headers.
    match cors {
        Some(layer) => router.layer(layer),
        None => router,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::extract::State;
    use axum::http::StatusCode;

    fn loopback() -> ServeArgs {
        ServeArgs::new(SocketAddr::from(([127, 0, 0, 1], 0)))
    }

    #[tokio::test]
    async fn ready_only_after_loading_and_until_draining() {
        let state = Arc::new(AppState::new(&loopback()).expect("state"));
        let answer = handlers::readyz(State(Arc::clone(&state))).await;
        assert_eq!(answer.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            answer.headers().get("retry-after").map(|v| v.as_bytes()),
            Some(&b"1"[..])
        );
        assert!(handlers::models(State(Arc::clone(&state))).await.is_err());
        // Reload too: there are no previous models to keep serving, so not a failed reload.
        let Err(reload) = handlers::reload(State(Arc::clone(&state))).await else {
            panic!("a reload while loading succeeded");
        };
        assert_eq!(
            (reload.status, reload.code, reload.retry_after),
            (StatusCode::SERVICE_UNAVAILABLE, "not_ready", Some(1))
        );
        state.load().await.expect("built-ins load");
        let answer = handlers::readyz(State(Arc::clone(&state))).await;
        assert_eq!(answer.status(), StatusCode::OK);
        state.start_draining();
        let answer = handlers::readyz(State(Arc::clone(&state))).await;
        assert_eq!(answer.status(), StatusCode::SERVICE_UNAVAILABLE);
    }

    #[test]
    fn model_names_must_differ_from_each_other_and_the_builtins_ignoring_case() {
        let mut args = loopback();
        let names = |args: &mut ServeArgs, specs: &[&str]| {
            args.models = specs.iter().map(|s| s.parse().expect("spec")).collect();
            args.check_model_names()
        };
        assert_eq!(names(&mut args, &["a=x.aesop", "b=x.aesop"]), Ok(()));
        let taken = names(&mut args, &["Pyramid-NoRef=x.aesop"]).expect_err("a built-in");
        assert!(taken.contains("built-in model 'pyramid-noref'"), "{taken}");
        let twice = names(&mut args, &["mine=a.aesop", "MINE=b.aesop"]).expect_err("twice");
        assert!(twice.contains("already given to a.aesop"), "{twice}");
        // The LM built-ins are taken only when served (--neural).
        assert_eq!(names(&mut args, &["faithfulness=x.aesop"]), Ok(()));
        args.neural = true;
        assert!(names(&mut args, &["faithfulness=x.aesop"]).is_err());
        // A library caller gets the same check from AppState::new.
        assert!(AppState::new(&args).is_err());
    }

    #[tokio::test]
    async fn a_spawned_reload_runs_to_its_end_and_is_counted() {
        let state = Arc::new(AppState::new(&loopback()).expect("state"));
        // Both series from the start.
        assert!(state.registry().is_none());
        let metrics = state.metrics.render(0);
        assert!(metrics.contains("aesop_model_reloads_total{result=\"failed\"} 0"));
        state.load().await.expect("built-ins load");
        let reloaded = state.spawn_reload("test").await.expect("task");
        assert!(reloaded.is_ok());
        assert_eq!(state.reloads_running(), 0);
        let metrics = state.metrics.render(0);
        assert!(
            metrics.contains("aesop_model_reloads_total{result=\"ok\"} 1"),
            "{metrics}"
        );
    }

    #[test]
    fn tokens_compare_whole() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("token");
        std::fs::write(&path, "abc123abc123abc123\n").expect("write");
        let mut args = loopback();
        args.token_file = Some(path.clone());
        let state = AppState::new(&args).expect("state");
        assert!(state.authorized(Some(b"Bearer abc123abc123abc123")));
        assert!(state.authorized(Some(b"bearer abc123abc123abc123")));
        assert!(state.authorized(Some(b"BEARER abc123abc123abc123")));
        for wrong in [
            &b"Bearer abc123abc123abc12"[..],
            b"Bearer abc123abc123abc1234",
            b"Basic abc123abc123abc123",
            b"abc123abc123abc123",
            b"Bearer",
        ] {
            assert!(!state.authorized(Some(wrong)), "{wrong:?}");
        }
        assert!(!state.authorized(None));
        std::fs::write(&path, "two words\n").expect("write");
        assert!(AppState::new(&args).is_err());
        std::fs::write(&path, "ab\n").expect("write");
        let short = AppState::new(&args)
            .err()
            .expect("a 2-byte token is refused");
        assert!(format!("{short:#}").contains("at least 16"), "{short:#}");
        std::fs::write(&path, "\n").expect("write");
        assert!(AppState::new(&args).is_err());
    }
}
