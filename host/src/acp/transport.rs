//! Newline-delimited JSON-RPC on stdin and stdout, each incoming line bounded: a line longer
//! than the limit is read to its end and dropped (never held whole in memory), and answered at
//! once with a JSON-RPC error naming its size and the limit, carrying its `id` when one is
//! found at its start. Bytes that are not UTF-8 are replaced, so that the protocol layer
//! answers them with a parse error. Everything written goes through one writer task, so that
//! lines never interleave.

use std::io;

use agent_client_protocol::Lines;
use futures::channel::mpsc;
use futures::{SinkExt as _, Stream, StreamExt as _};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

/// Bytes of a line's start searched for its `id`.
const ID_WINDOW: usize = 4096;

/// The transport over `input` and `output` (stdin and stdout), with lines of at most
/// `max_line` bytes.
pub(crate) fn lines(
    input: impl AsyncRead + Send + Unpin + 'static,
    output: impl AsyncWrite + Send + Unpin + 'static,
    max_line: usize,
) -> Lines<
    impl futures::Sink<String, Error = io::Error> + Send + 'static,
    impl Stream<Item = io::Result<String>> + Send + 'static,
> {
    let (tx, rx) = mpsc::unbounded::<String>();
    tokio::spawn(write_all(rx, output));
    let errors = tx.clone();
    let reader = Reader {
        input: BufReader::new(input),
        max_line,
        errors,
    };
    let incoming = futures::stream::unfold(reader, |mut reader| async move {
        match reader.next().await {
            Ok(Some(line)) => Some((Ok(line), reader)),
            Ok(None) => None,
            Err(err) => Some((Err(err), reader)),
        }
    })
    .boxed();
    let outgoing = tx.sink_map_err(io::Error::other);
    Lines::new(outgoing, incoming)
}

async fn write_all(mut rx: mpsc::UnboundedReceiver<String>, mut output: impl AsyncWrite + Unpin) {
    while let Some(mut line) = rx.next().await {
        line.push('\n');
        if output.write_all(line.as_bytes()).await.is_err() || output.flush().await.is_err() {
            // The editor is gone: nobody reads what would follow.
            return;
        }
    }
}

struct Reader<R> {
    input: BufReader<R>,
    max_line: usize,
    errors: mpsc::UnboundedSender<String>,
}

impl<R: AsyncRead + Unpin> Reader<R> {
    /// The next line worth handing on (blank lines skipped, over-long ones answered here).
    async fn next(&mut self) -> io::Result<Option<String>> {
        loop {
            let mut line = Vec::new();
            let mut total = 0usize;
            let mut ended = false;
            loop {
                let buf = self.input.fill_buf().await?;
                if buf.is_empty() {
                    break;
                }
                let (take, found) = match memchr::memchr(b'\n', buf) {
                    Some(at) => (at + 1, true),
                    None => (buf.len(), false),
                };
                let room = (self.max_line + 1).saturating_sub(line.len());
                line.extend_from_slice(&buf[..take.min(room)]);
                total += take;
                self.input.consume(take);
                if found {
                    ended = true;
                    break;
                }
            }
            if total == 0 {
                return Ok(None);
            }
            if ended {
                line.pop();
                total -= 1;
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
            }
            if total > self.max_line {
                self.refuse(&line, total);
                continue;
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            return Ok(Some(String::from_utf8_lossy(&line).into_owned()));
        }
    }

    /// Answer a line of `total` bytes that is over the limit.
    fn refuse(&self, start: &[u8], total: usize) {
        let id = request_id(&start[..start.len().min(ID_WINDOW)]);
        let error = json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {
                "code": -32600,
                "message": format!(
                    "a message of {total} bytes is over warden's limit of {} bytes per message; nothing of it was read",
                    self.max_line
                ),
            },
        });
        let _ = self.errors.unbounded_send(error.to_string());
    }
}

/// The `id` at the start of a JSON-RPC message (a number or a string), else `null`.
fn request_id(start: &[u8]) -> Value {
    let text = String::from_utf8_lossy(start);
    let Some(at) = text.find("\"id\"") else {
        return Value::Null;
    };
    let rest = text[at + 4..].trim_start();
    let Some(rest) = rest.strip_prefix(':') else {
        return Value::Null;
    };
    let rest = rest.trim_start();
    // The value alone, read as JSON: a number or a string up to its end.
    let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
    match stream.next() {
        Some(Ok(value @ (Value::Number(_) | Value::String(_)))) => value,
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_of_a_cut_message_is_found_at_its_start() {
        assert_eq!(
            request_id(
                br#"{"jsonrpc":"2.0","id":42,"method":"session/prompt","params":{"x":"aaaa"#
            ),
            json!(42)
        );
        assert_eq!(request_id(br#"{"id": "a-1", "method""#), json!("a-1"));
        assert_eq!(request_id(br#"{"method":"x","params":{"#), Value::Null);
    }

    #[tokio::test]
    async fn an_over_long_line_is_answered_and_the_next_one_is_read() -> io::Result<()> {
        let big = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":7,\"params\":\"{}\"}}",
            "x".repeat(5000)
        );
        let input = format!("{big}\n\n{{\"id\":8}}\n");
        let (tx, mut rx) = mpsc::unbounded();
        let mut reader = Reader {
            input: BufReader::with_capacity(64, input.as_bytes()),
            max_line: 1000,
            errors: tx,
        };
        assert_eq!(reader.next().await?, Some("{\"id\":8}".to_owned()));
        assert_eq!(reader.next().await?, None);
        let answered: Value = serde_json::from_str(&rx.next().await.unwrap_or_default())?;
        assert_eq!(answered["id"], 7);
        assert_eq!(answered["error"]["code"], -32600);
        Ok(())
    }
}
