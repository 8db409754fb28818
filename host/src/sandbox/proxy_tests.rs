#![allow(clippy::unwrap_used)]

use std::io::{Read, Write};
use std::net::TcpListener;
use std::os::unix::net::UnixStream;

use super::*;

/// A loopback server that answers `pong` to one request per connection and echoes back the
/// head it got after the answer's body.
fn server() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let (head, _) = proxy_request::read_head(&mut stream).unwrap_or_default();
            let body = format!("pong\n{}", String::from_utf8_lossy(&head));
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            );
        }
    });
    port
}

fn ask(socket: &Path, request: &str) -> String {
    let mut client = UnixStream::connect(socket).unwrap();
    client.write_all(request.as_bytes()).unwrap();
    client.shutdown(Shutdown::Write).unwrap();
    let mut out = String::new();
    client.read_to_string(&mut out).unwrap();
    out
}

#[test]
fn allowed_hosts_are_served_and_others_get_403_and_are_listed() {
    let port = server();
    let dir = tempfile::tempdir().unwrap();
    let spec = SandboxSpec {
        tmp: dir.path().to_owned(),
        caches: Vec::new(),
        allowed_hosts: vec![format!("127.0.0.1:{port}")],
        ..SandboxSpec::default()
    };
    let proxy = HostProxy::start(&spec).unwrap().unwrap();
    proxy.admit(std::process::id());
    let socket = dir.path().join(PROXY_SOCKET);

    let answer = ask(
        &socket,
        &format!("GET http://127.0.0.1:{port}/p?q HTTP/1.1\r\nHost: other\r\n\r\n"),
    );
    assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
    assert!(
        answer.contains(&format!(
            "pong\nGET /p?q HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        )),
        "{answer}"
    );
    let tunnel = ask(
        &socket,
        &format!("CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\nGET /t HTTP/1.1\r\n\r\n"),
    );
    assert!(
        tunnel.starts_with("HTTP/1.1 200 Connection established\r\n\r\nHTTP/1.1 200 OK"),
        "{tunnel}"
    );
    let refused = ask(&socket, "CONNECT evil.example:443 HTTP/1.1\r\n\r\n");
    assert!(refused.starts_with("HTTP/1.1 403 Forbidden"), "{refused}");
    assert!(
        refused.contains("evil.example:443 is not in `[tools.shell] allowed_hosts`"),
        "{refused}"
    );
    let other_port = ask(
        &socket,
        &format!(
            "GET http://127.0.0.1:{}/ HTTP/1.1\r\n\r\n",
            port.wrapping_add(1).max(1)
        ),
    );
    assert!(other_port.starts_with("HTTP/1.1 403"), "{other_port}");
    assert!(ask(&socket, "GET /x HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 400"));
    let lines = proxy.refused();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(
        lines[0],
        "network: refused CONNECT evil.example:443: not in `[tools.shell] allowed_hosts`"
    );
    // A malformed request is kept with why.
    assert!(
        lines[2].starts_with("network: refused a malformed request: ")
            && lines[2].contains("only CONNECT and absolute http:// URLs"),
        "{lines:?}"
    );
    drop(proxy);
    assert!(!socket.exists(), "the socket outlived the proxy");
}

#[test]
fn no_proxy_without_hosts_or_with_the_full_network_and_refusals_are_capped() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = SandboxSpec {
        tmp: dir.path().to_owned(),
        caches: Vec::new(),
        ..SandboxSpec::default()
    };
    assert!(HostProxy::start(&spec).unwrap().is_none());
    spec.allowed_hosts = vec!["a.example".into()];
    spec.network = true;
    assert!(HostProxy::start(&spec).unwrap().is_none());
    spec.network = false;
    spec.allowed_hosts = vec!["https://a.example".into()];
    assert!(
        HostProxy::start(&spec)
            .err()
            .unwrap()
            .contains("allowed_hosts")
    );
    spec.allowed_hosts = vec!["a.example".into()];
    let proxy = HostProxy::start(&spec).unwrap().unwrap();
    proxy.admit(std::process::id());
    let socket = dir.path().join(PROXY_SOCKET);
    for _ in 0..MAX_REFUSALS + 3 {
        ask(&socket, "CONNECT b.example:443 HTTP/1.1\r\n\r\n");
    }
    let lines = proxy.refused();
    assert_eq!(lines.len(), MAX_REFUSALS + 1);
    assert_eq!(lines[MAX_REFUSALS], "... and 3 more");
}

#[test]
fn only_the_admitted_process_is_served_and_the_socket_is_the_owners_alone() {
    use std::os::unix::fs::PermissionsExt;
    let port = server();
    let dir = tempfile::tempdir().unwrap();
    let spec = SandboxSpec {
        tmp: dir.path().to_owned(),
        caches: Vec::new(),
        allowed_hosts: vec![format!("127.0.0.1:{port}")],
        ..SandboxSpec::default()
    };
    let proxy = HostProxy::start(&spec).unwrap().unwrap();
    let socket = dir.path().join(PROXY_SOCKET);
    let mode = std::fs::metadata(&socket).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    let request = format!("GET http://127.0.0.1:{port}/ HTTP/1.1\r\n\r\n");
    // Another process is named: this one is refused, named, and listed.
    proxy.admit(std::process::id() + 1);
    let answer = ask(&socket, &request);
    assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
    assert!(
        answer.contains(&format!("process {}", std::process::id())),
        "{answer}"
    );
    let lines = proxy.refused();
    assert!(
        lines.len() == 1 && lines[0].contains("serves only its own sandbox"),
        "{lines:?}"
    );
    // A connection made before the launcher is named waits for it.
    let proxy2_dir = tempfile::tempdir().unwrap();
    let spec2 = SandboxSpec {
        tmp: proxy2_dir.path().to_owned(),
        caches: Vec::new(),
        ..spec
    };
    let proxy2 = std::sync::Arc::new(HostProxy::start(&spec2).unwrap().unwrap());
    let later = std::sync::Arc::clone(&proxy2);
    let admit = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        later.admit(std::process::id());
    });
    let answer = ask(&proxy2_dir.path().join(PROXY_SOCKET), &request);
    assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
    admit.join().unwrap();
}
