//! A plugin's captured stderr: the last [`STDERR_TAIL`] bytes it wrote, so that a panic message
//! printed after a flood of output is still there to put in the failure (a pipe that stops at
//! its capacity would keep the flood and lose the message).

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use bytes::Bytes;
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::p2::{OutputStream, Pollable, StreamResult};

/// Bytes of a plugin's stderr kept (the most recent ones).
pub(crate) const STDERR_TAIL: usize = 16 << 10;

/// A write-only pipe that keeps the tail of what was written; clones share it.
#[derive(Debug, Clone)]
pub(crate) struct TailPipe {
    keep: usize,
    buf: Arc<Mutex<VecDeque<u8>>>,
    /// Bytes written since the pipe was made (kept or not).
    written: Arc<std::sync::atomic::AtomicU64>,
}

impl TailPipe {
    /// A pipe keeping the last `keep` bytes.
    pub(crate) fn new(keep: usize) -> Self {
        Self {
            keep,
            buf: Arc::new(Mutex::new(VecDeque::with_capacity(keep.min(4096)))),
            written: Arc::default(),
        }
    }

    /// A mark of how much was written so far, for [`Self::since`].
    pub(crate) fn mark(&self) -> u64 {
        self.written.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The bytes kept that were written after `mark` (what one call wrote).
    pub(crate) fn since(&self, mark: u64) -> Vec<u8> {
        let buf = self.buf.lock().unwrap_or_else(PoisonError::into_inner);
        let new = self
            .written
            .load(std::sync::atomic::Ordering::Relaxed)
            .saturating_sub(mark);
        let new = usize::try_from(new).unwrap_or(usize::MAX).min(buf.len());
        buf.iter().skip(buf.len() - new).copied().collect()
    }

    /// The bytes kept.
    pub(crate) fn contents(&self) -> Vec<u8> {
        let buf = self.buf.lock().unwrap_or_else(PoisonError::into_inner);
        buf.iter().copied().collect()
    }

    fn push(&self, bytes: &[u8]) {
        let written = bytes.len();
        let mut buf = self.buf.lock().unwrap_or_else(PoisonError::into_inner);
        let bytes = &bytes[bytes.len().saturating_sub(self.keep)..];
        let overflow = (buf.len() + bytes.len()).saturating_sub(self.keep);
        let drop = overflow.min(buf.len());
        buf.drain(..drop);
        buf.extend(bytes);
        self.written.fetch_add(
            u64::try_from(written).unwrap_or(u64::MAX),
            std::sync::atomic::Ordering::Relaxed,
        );
    }
}

impl IsTerminal for TailPipe {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for TailPipe {
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.clone())
    }

    fn async_stream(&self) -> Box<dyn tokio::io::AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }
}

#[wasmtime_wasi::async_trait]
impl Pollable for TailPipe {
    async fn ready(&mut self) {}
}

impl OutputStream for TailPipe {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        self.push(&bytes);
        Ok(())
    }

    fn flush(&mut self) -> StreamResult<()> {
        Ok(())
    }

    fn check_write(&mut self) -> StreamResult<usize> {
        // Always ready: old bytes make room for new ones.
        Ok(64 << 10)
    }
}

impl tokio::io::AsyncWrite for TailPipe {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        self.push(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_tail() {
        let pipe = TailPipe::new(8);
        let mut stream = pipe.clone();
        assert!(stream.write(Bytes::from_static(b"0123456789")).is_ok());
        assert_eq!(pipe.contents(), b"23456789");
        assert!(stream.write(Bytes::from_static(b"ab")).is_ok());
        assert_eq!(pipe.contents(), b"456789ab");
        assert_eq!(stream.check_write().ok(), Some(64 << 10));
    }

    #[test]
    fn since_a_mark_gives_only_what_was_written_after_it() {
        let pipe = TailPipe::new(8);
        let mut stream = pipe.clone();
        assert!(stream.write(Bytes::from_static(b"old")).is_ok());
        let mark = pipe.mark();
        assert_eq!(pipe.since(mark), b"");
        assert!(stream.write(Bytes::from_static(b"new")).is_ok());
        assert_eq!(pipe.since(mark), b"new");
        // More than is kept: the tail that is kept.
        assert!(stream.write(Bytes::from_static(b"0123456789")).is_ok());
        assert_eq!(pipe.since(mark), b"23456789");
    }
}
