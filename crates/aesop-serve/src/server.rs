//! Binding, signals and graceful shutdown: the `aesop serve` process ([`run`]) and an in-process
//! server for tests and embedding ([`spawn`]).

use super::{router, AppState, ServeArgs};
use anyhow::{bail, Context, Result};
use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Notify;

/// Serve until `shutdown` completes, then stop accepting connections and wait for the requests
/// in flight to finish (each is bounded by the request timeout).
async fn serve_until(
    listener: TcpListener,
    state: Arc<AppState>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<()> {
    let drain_state = Arc::clone(&state);
    let listener = super::connections::GuardedListener::new(
        listener,
        state.limits.max_connections,
        state.limits.header_timeout,
    );
    axum::serve(listener, router(state))
        .with_graceful_shutdown(async move {
            shutdown.await;
            drain_state.start_draining();
            tracing::info!(
                in_flight = drain_state.metrics.in_flight(),
                "shutting down: finishing requests in flight"
            );
        })
        .await
        .context("serving HTTP")
}

/// JSON lines on standard error; `AESOP_LOG` filters (default `info`).
fn init_logging() -> Result<()> {
    let filter = log_filter(std::env::var_os("AESOP_LOG").as_deref())?;
    // A second initialization (e.g. several servers in one process) keeps the first.
    // A line that cannot be written (standard error closed: the log reader has gone) is dropped:
    // by default tracing-subscriber reports it with `eprintln!`, which panics on the same closed
    // stream, in whichever task logged (a request's, the model load's, the shutdown's).
    let _ = tracing_subscriber::fmt()
        .json()
        .flatten_event(true)
        .with_current_span(false)
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .log_internal_errors(false)
        .try_init();
    Ok(())
}

/// The log filter `AESOP_LOG` names (`info` when unset or blank). A value that is not a filter
/// is an error: tracing's own reading falls back to its default unsaid, so a malformed
/// `AESOP_LOG=aesop_serve=debug[` logged at `info` with no word of why.
fn log_filter(value: Option<&std::ffi::OsStr>) -> Result<tracing_subscriber::EnvFilter> {
    let example = "e.g. AESOP_LOG=warn, or AESOP_LOG=info,aesop_serve=debug";
    let Some(value) = value else {
        return Ok(tracing_subscriber::EnvFilter::new("info"));
    };
    let Some(text) = value.to_str() else {
        bail!("AESOP_LOG is not UTF-8: expected a log filter ({example})");
    };
    if text.trim().is_empty() {
        return Ok(tracing_subscriber::EnvFilter::new("info"));
    }
    tracing_subscriber::EnvFilter::builder()
        .parse(text)
        .map_err(|e| anyhow::anyhow!("AESOP_LOG is '{text}': not a log filter ({e}; {example})"))
}

/// How long, once the requests in flight are answered, the process waits for work left on
/// the blocking pool before it exits anyway: a reload stuck reading a model file (a FIFO, a hung
/// NFS mount) never ends, and a cancelled scoring or the first load need not be waited for
/// (none writes anything). Dropping the runtime instead waits for them forever.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// `aesop serve`: listen, load and warm the models (ready afterwards), reload on SIGHUP, and
/// shut down gracefully on SIGTERM or Ctrl-C.
pub fn run(args: ServeArgs) -> Result<()> {
    init_logging()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let result = runtime.block_on(serve_process(args));
    runtime.shutdown_timeout(SHUTDOWN_GRACE);
    result
}

async fn serve_process(args: ServeArgs) -> Result<()> {
    let state = Arc::new(AppState::new(&args)?);
    let listener = TcpListener::bind(args.addr)
        .await
        .with_context(|| format!("binding {}", args.addr))?;
    let addr = listener.local_addr()?;
    // Before the line below: a supervisor (or test) that signals as soon as it reads it must
    // meet our handlers, not the default action (SIGHUP's kills the process).
    let signals = Signals::install();
    tracing::info!(%addr, "listening on {addr}");
    let stop = Arc::new(Notify::new());
    let load_error: Arc<Mutex<Option<anyhow::Error>>> = Arc::default();
    {
        let (state, stop, load_error) = (
            Arc::clone(&state),
            Arc::clone(&stop),
            Arc::clone(&load_error),
        );
        tokio::spawn(async move {
            match state.load().await {
                Ok(()) => {
                    let models = state.registry().map_or(0, |r| r.models().len());
                    tracing::info!(models, "ready");
                }
                Err(e) => {
                    tracing::error!(error = format!("{e:#}"), "loading models failed");
                    if let Ok(mut slot) = load_error.lock() {
                        *slot = Some(e);
                    }
                    stop.notify_one();
                }
            }
        });
    }
    tokio::spawn(handle_signals(
        signals,
        Arc::clone(&state),
        Arc::clone(&stop),
    ));
    serve_until(listener, Arc::clone(&state), async move {
        stop.notified().await
    })
    .await?;
    tracing::info!("stopped");
    if state.reloads_running() > 0 {
        tracing::warn!(
            "a model reload is still running (a model file that cannot be read?); exiting without it"
        );
    }
    let failed = load_error.lock().ok().and_then(|mut slot| slot.take());
    match failed {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The signals the service handles, registered before it says it is listening: from then on a
/// signal waits in its stream until [`handle_signals`] reads it.
#[cfg(unix)]
struct Signals {
    hangup: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
    interrupt: tokio::signal::unix::Signal,
}

#[cfg(unix)]
impl Signals {
    /// `None` (and an error in the log) when the handlers cannot be installed.
    fn install() -> Option<Signals> {
        use tokio::signal::unix::{signal, SignalKind};
        match (
            signal(SignalKind::hangup()),
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) {
            (Ok(hangup), Ok(terminate), Ok(interrupt)) => Some(Signals {
                hangup,
                terminate,
                interrupt,
            }),
            _ => {
                tracing::error!("cannot install signal handlers; stop the service with Ctrl-C");
                None
            }
        }
    }
}

/// SIGHUP reloads the user models; SIGTERM and Ctrl-C start a graceful shutdown. A reload runs
/// on its own task, so one that hangs (a model path that is a FIFO, a hung NFS mount) never
/// keeps this loop from seeing the next signal.
#[cfg(unix)]
async fn handle_signals(signals: Option<Signals>, state: Arc<AppState>, stop: Arc<Notify>) {
    let Some(mut signals) = signals else {
        let _ = tokio::signal::ctrl_c().await;
        stop.notify_one();
        return;
    };
    loop {
        tokio::select! {
            _ = signals.hangup.recv() => {
                if state.registry().is_none() {
                    tracing::warn!("SIGHUP ignored: the models are still loading");
                } else {
                    // Detached: the reload logs and counts its own outcome.
                    drop(state.spawn_reload("SIGHUP"));
                }
            }
            _ = signals.terminate.recv() => break,
            _ = signals.interrupt.recv() => break,
        }
    }
    stop.notify_one();
}

#[cfg(not(unix))]
struct Signals;

#[cfg(not(unix))]
impl Signals {
    fn install() -> Option<Signals> {
        Some(Signals)
    }
}

#[cfg(not(unix))]
async fn handle_signals(_signals: Option<Signals>, _state: Arc<AppState>, stop: Arc<Notify>) {
    let _ = tokio::signal::ctrl_c().await;
    stop.notify_one();
}

/// A server running on its own thread and runtime, ready (models loaded) once [`spawn`]
/// returns. Dropping it shuts it down gracefully.
pub struct ServerHandle {
    pub addr: SocketAddr,
    pub state: Arc<AppState>,
    stop: Arc<Notify>,
    thread: Option<std::thread::JoinHandle<Result<()>>>,
}

impl ServerHandle {
    /// Stop accepting connections, wait for the requests in flight, and join the thread.
    pub fn shutdown(mut self) -> Result<()> {
        self.stop_and_join()
    }

    /// Start the graceful shutdown without waiting for it.
    pub fn begin_shutdown(&self) {
        self.stop.notify_one();
    }

    fn stop_and_join(&mut self) -> Result<()> {
        self.stop.notify_one();
        match self.thread.take() {
            Some(thread) => match thread.join() {
                Ok(result) => result,
                Err(_) => anyhow::bail!("the server thread panicked"),
            },
            None => Ok(()),
        }
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        let _ = self.stop_and_join();
    }
}

/// Start a server in this process (tests bind `127.0.0.1:0`); returns when it is ready.
pub fn spawn(args: &ServeArgs) -> Result<ServerHandle> {
    let state = Arc::new(AppState::new(args)?);
    let stop = Arc::new(Notify::new());
    let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<SocketAddr>>();
    let addr = args.addr;
    let thread = {
        let (state, stop) = (Arc::clone(&state), Arc::clone(&stop));
        std::thread::Builder::new()
            .name("aesop-serve".into())
            .spawn(move || -> Result<()> {
                let runtime = match tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
                {
                    Ok(runtime) => runtime,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e.into()));
                        return Ok(());
                    }
                };
                let result = runtime.block_on(async move {
                    let started = async {
                        let listener = TcpListener::bind(addr)
                            .await
                            .with_context(|| format!("binding {addr}"))?;
                        state.load().await?;
                        Ok::<_, anyhow::Error>(listener)
                    };
                    let listener = match started.await {
                        Ok(listener) => listener,
                        Err(e) => {
                            let _ = ready_tx.send(Err(e));
                            return Ok(());
                        }
                    };
                    let _ = ready_tx.send(listener.local_addr().map_err(Into::into));
                    serve_until(listener, state, async move { stop.notified().await }).await
                });
                runtime.shutdown_timeout(SHUTDOWN_GRACE);
                result
            })
            .context("starting the server thread")?
    };
    let addr = ready_rx
        .recv()
        .context("the server thread ended before it was ready")??;
    Ok(ServerHandle {
        addr,
        state,
        stop,
        thread: Some(thread),
    })
}

#[cfg(test)]
mod tests {
    use super::log_filter;
    use std::ffi::OsStr;

    #[test]
    fn a_log_filter_that_does_not_parse_is_an_error_naming_the_variable() {
        for good in [
            None,
            Some(""),
            Some(" "),
            Some("warn"),
            Some("info,aesop_serve=debug"),
        ] {
            assert!(log_filter(good.map(OsStr::new)).is_ok(), "{good:?}");
        }
        for bad in ["aesop_serve=debug[", "info,=x=y", "aesop_serve=loud"] {
            let error = log_filter(Some(OsStr::new(bad)))
                .expect_err(bad)
                .to_string();
            assert!(
                error.starts_with(&format!("AESOP_LOG is '{bad}': not a log filter (")),
                "{error}"
            );
        }
    }
}
