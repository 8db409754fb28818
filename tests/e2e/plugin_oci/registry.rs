//! A CNCF Distribution registry (`docker-registry`) on a free loopback port, killed when its
//! guard is dropped; the `oras` Python SDK as a third-party client; the skip rule for a
//! missing tool.

use std::io::Write as _;
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{stderr, stdout};

/// `tool` is on the PATH; otherwise print the skip line (or fail under CI).
pub fn have(test: &str, tool: &str, probe: &[&str]) -> bool {
    let found = Command::new(probe[0])
        .args(&probe[1..])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        let line = format!("SKIP {test}: {tool} not installed");
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{line}, but CI=true: .ci/run must install it");
        }
        let _ = writeln!(std::io::stderr().lock(), "{line}");
    }
    found
}

pub fn have_registry(test: &str) -> bool {
    have(test, "docker-registry", &["docker-registry", "--version"])
}

pub fn have_oras(test: &str) -> bool {
    have(
        test,
        "oras (Python)",
        &["python3", "-c", "import oras.client"],
    )
}

/// A registry on 127.0.0.1, killed when dropped.
pub struct Registry {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Registry {
    /// Start one, with basic auth from `htpasswd` lines when given; waits until it answers.
    pub fn start(htpasswd: Option<&str>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut config = format!(
            "version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: {}\n  delete:\n    enabled: true\nhttp:\n  addr: 127.0.0.1:{port}\n",
            dir.path().join("data").display()
        );
        if let Some(lines) = htpasswd {
            let file = dir.path().join("htpasswd");
            std::fs::write(&file, lines).unwrap();
            config.push_str(&format!(
                "auth:\n  htpasswd:\n    realm: warden-test\n    path: {}\n",
                file.display()
            ));
        }
        let config_file = dir.path().join("config.yml");
        std::fs::write(&config_file, config).unwrap();
        let child = Command::new("docker-registry")
            .arg("serve")
            .arg(&config_file)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let registry = Self {
            child,
            port,
            _dir: dir,
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "the registry did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        registry
    }

    /// `127.0.0.1:PORT`.
    pub fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// The blob file holding `digest` (`sha256:…`) in the registry's storage.
    pub fn blob(&self, digest: &str) -> std::path::PathBuf {
        let hex = digest.trim_start_matches("sha256:");
        self._dir
            .path()
            .join("data/docker/registry/v2/blobs/sha256")
            .join(&hex[..2])
            .join(hex)
            .join("data")
    }

    /// `oci://127.0.0.1:PORT/<rest>`.
    pub fn oci(&self, rest: &str) -> String {
        format!("oci://{}/{rest}", self.addr())
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `python3 tests/fixtures/oci/oras_client.py ARGS`, which must succeed; its stdout.
pub fn oras(args: &[&str]) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join("oci")
        .join("oras_client.py");
    let out = Command::new("python3")
        .arg(script)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "oras {args:?}: {}", stderr(&out));
    stdout(&out)
}
