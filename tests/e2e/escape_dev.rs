//! Sandbox escape cases: the devices a sandboxed process finds in `/dev`. The sandbox's `/dev`
//! offers only the harmless devices (`null`, `zero`, `full`, `random`, `urandom`) and the
//! names of the process's own descriptors (`fd`, `stdin`, `stdout`, `stderr`): no virtual
//! console, system console, screen memory, kernel log or disk, even where the process is root
//! of its namespace and the file's mode would let root read it.
//!
//! Where this kernel cannot build the sandbox a test prints a SKIP line instead of passing
//! silently.

use serde_json::json;
use warden_tests::mock_server::{MockServer, Reply};

use crate::mcp_client::sandbox;
use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr};

const MODEL: &str = "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n[tools]\nmode = \"full-auto\"\n\n";

/// Opens each named device without blocking; prints `OPENED <name>` for each that opened.
const OPEN_DEVICES: &str = r#"
import os
for name in ["tty0", "tty1", "tty63", "console", "vcs", "vcs1", "vcsa", "vcsu", "kmsg", "vda", "sda", "mem", "ptmx", "tty", "hwrng", "kvm", "fuse", "loop0", "zram0"]:
    try:
        os.close(os.open("/dev/" + name, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY))
        print("OPENED", name)
    except OSError:
        pass
print("ENTRIES", " ".join(sorted(os.listdir("/dev"))))
with open("/dev/urandom", "rb") as f:
    print("RANDOM", len(f.read(8)))
with open("/dev/null", "w") as f:
    f.write("x")
print("NULL written")
"#;

/// Promise: a sandboxed command's `/dev` holds only the harmless devices and its own
/// descriptors' names; consoles, screen memory, the kernel log and disks are absent.
#[test]
fn dev_offers_only_the_harmless_devices() {
    let test = "dev_offers_only_the_harmless_devices";
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    env.user_config(MODEL);
    std::fs::write(env.workspace().join("devices.py"), OPEN_DEVICES).unwrap();
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[(
            "c1",
            "shell",
            json!({ "command": "python3 devices.py; echo to-stderr > /dev/stderr; cat /dev/stdin < /dev/null; echo end" }),
        )],
    ));
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--json", "--mode", "full-auto", "go"]);
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let requests = server.requests();
    let result = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned();
    assert!(result.contains("end"), "{result}");
    assert!(result.contains("RANDOM 8"), "{result}");
    assert!(result.contains("NULL written"), "{result}");
    assert!(result.contains("to-stderr"), "{result}");
    assert!(!result.contains("OPENED"), "{result}");
    let entries = result
        .lines()
        .find_map(|l| l.strip_prefix("ENTRIES "))
        .unwrap_or_else(|| panic!("{result}"));
    let allowed = [
        "fd", "full", "null", "random", "stderr", "stdin", "stdout", "urandom", "zero",
    ];
    for entry in entries.split(' ') {
        assert!(allowed.contains(&entry), "{entry} in /dev: {result}");
    }
}
