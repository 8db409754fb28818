//! A hostile OCI registry on 127.0.0.1, written for these tests: it records every request
//! (path and `Authorization` header) and answers in one of a few bad ways. It stops when its
//! guard is dropped.

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How the registry answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    /// 401 with a Basic challenge to a request without credentials, 404 `MANIFEST_UNKNOWN`
    /// to one with them.
    Challenge,
    /// A manifest of 200 OK that never ends (no length; bytes as fast as the client reads),
    /// until `limit` bytes.
    EndlessManifest { limit: u64 },
    /// A manifest that announces 1 MB and sends one byte every two seconds.
    TrickleManifest,
    /// A Bearer challenge naming the token service `/token` of this registry, which answers
    /// `{"token":"t0k3n"}` (or, `endless`, a token response without end up to `limit`); a
    /// request with the token gets 404 `MANIFEST_UNKNOWN`.
    Bearer { endless: bool, limit: u64 },
    /// A valid wasm manifest whose 1000-byte layer is served without end, up to `limit`.
    EndlessLayer { limit: u64 },
    /// Every request that is not a GET or HEAD (a push's upload, blob or manifest) answered
    /// `500` with an error body without end, up to `limit`, or (`trickle`) one that announces
    /// 1 MB and sends one byte every two seconds.
    EndlessPushAnswer { limit: u64, trickle: bool },
}

/// One request as received.
#[derive(Debug, Clone)]
pub struct Seen {
    /// The request line's path.
    pub path: String,
    /// Its `Authorization` header, if any.
    pub authorization: Option<String>,
}

/// The running registry.
pub struct Hostile {
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
    sent: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
}

impl Hostile {
    /// Start one answering as `behaviour`.
    pub fn start(behaviour: Behaviour) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sent = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (seen2, sent2, stop2) = (seen.clone(), sent.clone(), stop.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stop2.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (seen, sent, stop) = (seen2.clone(), sent2.clone(), stop2.clone());
                std::thread::spawn(move || serve(stream, behaviour, &seen, &sent, &stop));
            }
        });
        Self {
            port,
            seen,
            sent,
            stop,
        }
    }

    /// `127.0.0.1:PORT`.
    pub fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// `oci://127.0.0.1:PORT/<rest>`.
    pub fn oci(&self, rest: &str) -> String {
        format!("oci://{}/{rest}", self.addr())
    }

    /// Every request received so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// Body bytes written so far.
    pub fn sent(&self) -> u64 {
        self.sent.load(Ordering::SeqCst)
    }
}

impl Drop for Hostile {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so that it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// Answer the requests of one connection.
fn serve(
    stream: TcpStream,
    behaviour: Behaviour,
    seen: &Mutex<Vec<Seen>>,
    sent: &AtomicU64,
    stop: &AtomicBool,
) {
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let mut out = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let method = line.split_whitespace().next().unwrap_or("").to_owned();
        let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
        let mut authorization = None;
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("authorization")
            {
                authorization = Some(value.trim().to_owned());
            }
        }
        seen.lock().unwrap().push(Seen {
            path: path.clone(),
            authorization: authorization.clone(),
        });
        let manifest = path.contains("/manifests/");
        let port = out.local_addr().map(|a| a.port()).unwrap_or(0);
        let done = match behaviour {
            Behaviour::Bearer { endless, limit } => {
                if path.starts_with("/token") {
                    if endless {
                        endless_body(
                            &mut out,
                            "application/json",
                            "{\"token\":\"",
                            limit,
                            sent,
                            stop,
                        );
                        return;
                    }
                    respond(&mut out, "200 OK", "", r#"{"token":"t0k3n"}"#)
                } else if authorization.as_deref() == Some("Bearer t0k3n") {
                    challenge(&mut out, true)
                } else {
                    respond(
                        &mut out,
                        "401 Unauthorized",
                        &format!(
                            "WWW-Authenticate: Bearer realm=\"http://127.0.0.1:{port}/token\",service=\"hostile\"\r\n"
                        ),
                        r#"{"errors":[{"code":"UNAUTHORIZED"}]}"#,
                    )
                }
            }
            Behaviour::EndlessLayer { .. } if manifest => {
                respond(&mut out, "200 OK", "", &wasm_manifest())
            }
            Behaviour::EndlessLayer { limit } if path.contains("/blobs/") => {
                endless_body(&mut out, "application/wasm", "\0asm", limit, sent, stop);
                return;
            }
            Behaviour::EndlessPushAnswer { limit, trickle }
                if method != "GET" && method != "HEAD" =>
            {
                push_failure(&mut out, trickle, limit, sent, stop);
                return;
            }
            Behaviour::Challenge => challenge(&mut out, authorization.is_some()),
            Behaviour::EndlessManifest { limit } if manifest => {
                endless(&mut out, limit, sent, stop);
                return;
            }
            Behaviour::TrickleManifest if manifest => {
                trickle(&mut out, sent, stop);
                return;
            }
            _ => respond(&mut out, "200 OK", "", "{}"),
        };
        if done.is_err() {
            return;
        }
    }
}

fn respond(out: &mut TcpStream, status: &str, extra: &str, body: &str) -> std::io::Result<()> {
    write!(
        out,
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{extra}\r\n{body}",
        body.len()
    )?;
    out.flush()
}

fn challenge(out: &mut TcpStream, has_credentials: bool) -> std::io::Result<()> {
    if has_credentials {
        respond(
            out,
            "404 Not Found",
            "",
            r#"{"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown"}]}"#,
        )
    } else {
        respond(
            out,
            "401 Unauthorized",
            "WWW-Authenticate: Basic realm=\"hostile\"\r\n",
            r#"{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}"#,
        )
    }
}

/// A wasm component artifact's manifest whose layer claims 1000 bytes.
fn wasm_manifest() -> String {
    let digest = format!("sha256:{}", "b".repeat(64));
    format!(
        r#"{{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{{"mediaType":"application/vnd.wasm.config.v0+json","digest":"{digest}","size":2}},"layers":[{{"mediaType":"application/wasm","digest":"{digest}","size":1000}}]}}"#
    )
}

fn endless(out: &mut TcpStream, limit: u64, sent: &AtomicU64, stop: &AtomicBool) {
    endless_body(
        out,
        "application/vnd.oci.image.manifest.v1+json",
        "{\"schemaVersion\":2,\"x\":\"",
        limit,
        sent,
        stop,
    );
}

/// 200 OK of `content_type` without a length: `start`, then bytes as fast as the client
/// reads, until `limit` or the client hangs up.
fn endless_body(
    out: &mut TcpStream,
    content_type: &str,
    start: &str,
    limit: u64,
    sent: &AtomicU64,
    stop: &AtomicBool,
) {
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nConnection: close\r\n\r\n{start}"
    );
    if out.write_all(head.as_bytes()).is_err() {
        return;
    }
    let chunk = vec![b'A'; 64 * 1024];
    while sent.load(Ordering::SeqCst) < limit && !stop.load(Ordering::SeqCst) {
        if out.write_all(&chunk).is_err() {
            return;
        }
        sent.fetch_add(chunk.len() as u64, Ordering::SeqCst);
    }
}

fn trickle(out: &mut TcpStream, sent: &AtomicU64, stop: &AtomicBool) {
    let head = "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.oci.image.manifest.v1+json\r\nContent-Length: 1000000\r\n\r\n{";
    if out.write_all(head.as_bytes()).is_err() {
        return;
    }
    while !stop.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_secs(2));
        if out.write_all(b" ").and_then(|()| out.flush()).is_err() {
            return;
        }
        sent.fetch_add(1, Ordering::SeqCst);
    }
}

/// `500` whose JSON error body never ends (up to `limit`) or (`trickle`) announces 1 MB and
/// sends one byte every two seconds.
fn push_failure(
    out: &mut TcpStream,
    trickle: bool,
    limit: u64,
    sent: &AtomicU64,
    stop: &AtomicBool,
) {
    let length = if trickle {
        "Content-Length: 1000000\r\n"
    } else {
        "Connection: close\r\n"
    };
    let head = format!(
        "HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\n{length}\r\n{{\"errors\":[{{\"code\":\"UNKNOWN\",\"message\":\""
    );
    if out
        .write_all(head.as_bytes())
        .and_then(|()| out.flush())
        .is_err()
    {
        return;
    }
    let chunk = vec![b'A'; if trickle { 1 } else { 64 * 1024 }];
    while (trickle || sent.load(Ordering::SeqCst) < limit) && !stop.load(Ordering::SeqCst) {
        if trickle {
            std::thread::sleep(Duration::from_secs(2));
        }
        if out.write_all(&chunk).and_then(|()| out.flush()).is_err() {
            return;
        }
        sent.fetch_add(chunk.len() as u64, Ordering::SeqCst);
    }
}
