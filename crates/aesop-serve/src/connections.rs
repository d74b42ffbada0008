//! Connection-level limits, below HTTP: a cap on open connections and a header read timeout.
//!
//! Why: axum's `serve` sets no timer on hyper, so hyper's header read timeout never fires, and it
//! accepts every connection. A client sending one header line per second stayed connected
//! indefinitely, and 3,000 half-open connections all stayed open — before authentication, so a
//! token did not help. [`GuardedListener`] closes a connection at once when
//! [`Limits::max_connections`](super::limits::Limits) are already open, and [`GuardedIo`] fails a
//! connection whose request head (request line and headers, up to the blank line) has not
//! arrived within the header timeout, counted from the connection's start or from the end of the
//! previous response (so an idle keep-alive connection is also closed after that time).

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Sleep;

/// A TCP listener that caps open connections and wraps each in [`GuardedIo`].
pub struct GuardedListener {
    inner: TcpListener,
    permits: Arc<Semaphore>,
    header_timeout: Duration,
}

impl GuardedListener {
    pub fn new(inner: TcpListener, max_connections: usize, header_timeout: Duration) -> Self {
        GuardedListener {
            inner,
            permits: Arc::new(Semaphore::new(max_connections.max(1))),
            header_timeout,
        }
    }
}

impl axum::serve::Listener for GuardedListener {
    type Io = GuardedIo;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (GuardedIo, SocketAddr) {
        loop {
            let (stream, addr) = axum::serve::Listener::accept(&mut self.inner).await;
            match Arc::clone(&self.permits).try_acquire_owned() {
                Ok(permit) => return (GuardedIo::new(stream, permit, self.header_timeout), addr),
                Err(_) => {
                    tracing::warn!(%addr, "connection cap reached: closing a new connection");
                    drop(stream);
                }
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
    }
}

/// What hyper writes, as one write, when a request with `Expect: 100-continue` reads its body.
const CONTINUE: &[u8] = b"HTTP/1.1 100 Continue\r\n\r\n";

/// A connection that must deliver each request head within the header timeout.
pub struct GuardedIo {
    inner: TcpStream,
    _permit: OwnedSemaphorePermit,
    header_timeout: Duration,
    /// Set while a request head is awaited.
    deadline: Option<Pin<Box<Sleep>>>,
    /// How much of the `\r\n\r\n` that ends a head has been seen.
    matched: u8,
}

impl GuardedIo {
    fn new(inner: TcpStream, permit: OwnedSemaphorePermit, header_timeout: Duration) -> Self {
        GuardedIo {
            inner,
            _permit: permit,
            header_timeout,
            deadline: Some(Box::pin(tokio::time::sleep(header_timeout))),
            matched: 0,
        }
    }

    /// A write of `total` bytes starting with `first` is going out. A response: the next
    /// request head gets a fresh deadline. Not hyper's interim `100 Continue` (sent alone, before
    /// the request body is read): the request is still being answered, and a deadline armed
    /// then fired while the handler ran, so hyper's next read failed and the connection closed
    /// with no response.
    fn response_going_out(&mut self, total: usize, first: &[u8]) {
        let interim = total == CONTINUE.len() && first.starts_with(CONTINUE);
        if self.deadline.is_none() && !interim {
            self.deadline = Some(Box::pin(tokio::time::sleep(self.header_timeout)));
            self.matched = 0;
        }
    }

    /// Scan received bytes for the end of the request head.
    fn scan(&mut self, bytes: &[u8]) {
        const END: &[u8; 4] = b"\r\n\r\n";
        for &b in bytes {
            if b == END[self.matched as usize] {
                self.matched += 1;
                if self.matched == 4 {
                    self.deadline = None;
                    self.matched = 0;
                    return;
                }
            } else {
                self.matched = u8::from(b == b'\r');
            }
        }
    }
}

impl AsyncRead for GuardedIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if let Some(deadline) = this.deadline.as_mut() {
            if deadline.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "request headers not received within the header timeout",
                )));
            }
        }
        let before = buf.filled().len();
        let result = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = result {
            if this.deadline.is_some() {
                let new = buf.filled()[before..].to_vec();
                this.scan(&new);
            }
        }
        result
    }
}

impl AsyncWrite for GuardedIo {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        this.response_going_out(buf.len(), buf);
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let total = bufs.iter().map(|b| b.len()).sum();
        this.response_going_out(total, bufs.first().map_or(&[][..], |b| &b[..]));
        Pin::new(&mut this.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
