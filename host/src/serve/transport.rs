//! The transports: stdio (the client starts `warden mcp serve` and speaks on its stdin and
//! stdout) and Streamable HTTP on a loopback address (`--http ADDR`; any other address is
//! refused: the server has no authentication of its own).

use std::net::SocketAddr;
use std::sync::Arc;

use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use super::handler::WardenServer;
use super::host::{self, ServeError, ServeOptions};

fn runtime() -> Result<tokio::runtime::Runtime, ServeError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|err| ServeError::Transport(format!("cannot start the runtime: {err}")))
}

/// Serve over stdio until the client closes stdin; `started` is told the session id.
pub fn serve_stdio(options: ServeOptions, started: impl FnOnce(&str)) -> Result<(), ServeError> {
    let host = host::start(options, "stdio")?;
    started(&host.session);
    runtime()?.block_on(async move {
        let service = WardenServer::new(host)
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|err| ServeError::Transport(format!("MCP initialisation failed: {err}")))?;
        service
            .waiting()
            .await
            .map_err(|err| ServeError::Transport(err.to_string()))?;
        Ok(())
    })
}

/// The loopback address `text` names (`127.0.0.1:PORT`, `[::1]:PORT`, `localhost:PORT`).
pub(crate) fn loopback(text: &str) -> Result<SocketAddr, ServeError> {
    let addr = match text.strip_prefix("localhost:") {
        Some(port) => format!("127.0.0.1:{port}"),
        None => text.to_owned(),
    };
    let addr: SocketAddr = addr.parse().map_err(|_| {
        ServeError::Address(format!(
            "--http {text}: not an address with a port (e.g. 127.0.0.1:8765)"
        ))
    })?;
    if !addr.ip().is_loopback() {
        return Err(ServeError::Address(format!(
            "--http {text}: only a loopback address is served (127.0.0.1, [::1] or localhost): the server has no authentication of its own"
        )));
    }
    Ok(addr)
}

/// Serve Streamable HTTP on `addr` (a loopback address) until the process is stopped;
/// `started` is told the session id and the address bound.
pub fn serve_http(
    options: ServeOptions,
    addr: &str,
    started: impl FnOnce(&str, SocketAddr),
) -> Result<(), ServeError> {
    let addr = loopback(addr)?;
    let rt = runtime()?;
    let listener = rt
        .block_on(tokio::net::TcpListener::bind(addr))
        .map_err(|err| ServeError::Transport(format!("--http {addr}: cannot listen: {err}")))?;
    let bound = listener
        .local_addr()
        .map_err(|err| ServeError::Transport(format!("--http {addr}: {err}")))?;
    let host = host::start(options, "http")?;
    started(&host.session, bound);
    let service = StreamableHttpService::new(
        move || Ok(WardenServer::new(host.clone())),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    rt.block_on(async move {
        loop {
            let (stream, _) = listener
                .accept()
                .await
                .map_err(|err| ServeError::Transport(format!("--http {bound}: {err}")))?;
            let service = TowerToHyperService::new(service.clone());
            tokio::spawn(async move {
                let served = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
                if let Err(err) = served {
                    tracing::debug!("http connection: {err}");
                }
            });
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_addresses_are_served() {
        assert!(loopback("127.0.0.1:0").is_ok());
        assert!(loopback("[::1]:8080").is_ok());
        assert!(loopback("localhost:9").is_ok());
        for bad in [
            "0.0.0.0:8080",
            "192.168.1.2:80",
            "[::]:80",
            "example.com:80",
            "127.0.0.1",
        ] {
            assert!(
                matches!(loopback(bad), Err(ServeError::Address(_))),
                "{bad} was accepted"
            );
        }
    }
}
