//! The session store across processes: SIGKILL at random points during commits, two writers on
//! one session, and corrupt histories that must be reported and left untouched.

use std::collections::{BTreeMap, HashSet};
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, SystemTime};

use anyhow::{Context, Result, bail, ensure};
use warden::domain::{Item, Source};
use warden::store::{Home, Loaded, SessionWriter, StoreError, load};

const WRITER: &str = env!("CARGO_BIN_EXE_commit_writer");

/// What the writer printed for one group: `committed <group> <first-seq> <items> <label>`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Reported {
    group: u64,
    first_seq: u64,
    items: u64,
}

fn writer(home: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(WRITER);
    cmd.args(args).env("WARDEN_HOME", home);
    cmd
}

fn parse_reported(line: &str) -> Result<(String, Reported)> {
    let parts: Vec<&str> = line.split(' ').collect();
    let ["committed", group, first_seq, items, label] = parts.as_slice() else {
        bail!("unexpected writer output {line:?}");
    };
    Ok((
        (*label).to_owned(),
        Reported {
            group: group.parse()?,
            first_seq: first_seq.parse()?,
            items: items.parse()?,
        },
    ))
}

/// Checks the invariants of a loaded history (contiguous `seq` and `group`, every group whole,
/// none twice) and that every group a writer reported committed is there as reported.
fn check_history(loaded: &Loaded, reported: &BTreeMap<String, Reported>) -> Result<()> {
    let mut groups: BTreeMap<String, Reported> = BTreeMap::new();
    let mut expected_seq = 1;
    let mut expected_group = 1;
    let records = &loaded.records;
    let mut i = 0;
    while i < records.len() {
        let first = &records[i];
        ensure!(
            first.group == expected_group,
            "group {} after {}",
            first.group,
            expected_group - 1
        );
        let (label, rest) = first
            .item
            .text()
            .split_once(':')
            .context("item text has no label")?;
        let n: u64 = rest
            .split([' ', '/'])
            .nth(1)
            .context("item text has no count")?
            .parse()?;
        for j in 0..n {
            let r = records
                .get(i + j as usize)
                .with_context(|| format!("group {label} cut short: {j} of {n} items"))?;
            ensure!(
                r.seq == expected_seq,
                "seq {} where {expected_seq} was expected",
                r.seq
            );
            ensure!(r.group == first.group, "group {label} is split");
            let prefix = format!("{label}:{j}/{n} ");
            ensure!(
                r.item.text().starts_with(&prefix),
                "item {} of group {label} is {:.40?}",
                j,
                r.item.text()
            );
            expected_seq += 1;
        }
        let previous = groups.insert(
            label.to_owned(),
            Reported {
                group: first.group,
                first_seq: first.seq,
                items: n,
            },
        );
        ensure!(previous.is_none(), "group {label} committed twice");
        i += n as usize;
        expected_group += 1;
    }
    for (label, want) in reported {
        let got = groups.get(label);
        ensure!(
            got == Some(want),
            "group {label} was reported committed as {want:?} but history has {got:?}"
        );
    }
    Ok(())
}

/// splitmix64, seeded per run; the seed is in every failure message.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % n
    }
}

/// Reads the writer's stdout lines into `reported` until `limit` lines or end of output.
fn read_reported(
    lines: &mut impl Iterator<Item = std::io::Result<String>>,
    limit: u64,
    reported: &mut BTreeMap<String, Reported>,
) -> Result<()> {
    for _ in 0..limit {
        let Some(line) = lines.next() else {
            break;
        };
        let (label, r) = parse_reported(&line?)?;
        reported.insert(label, r);
    }
    Ok(())
}

/// How a crash iteration ends the writer.
#[derive(Clone, Copy)]
enum Crash {
    /// SIGKILL after a random number of reported commits and a random pause.
    Kill,
    /// A file size limit (`ulimit -f`) a random number of bytes past the current end: the
    /// write that crosses it is cut there and the process dies of SIGXFSZ, leaving a torn
    /// group at an arbitrary byte.
    FileSizeLimit,
}

fn seed() -> u64 {
    std::env::var("WARDEN_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        })
}

/// Crashes a writer `iterations` times on one session; after every crash the session must load
/// with every reported group whole and once. Returns how many loads dropped a torn tail.
fn crash_repeatedly(crash: Crash, iterations: u64) -> Result<usize> {
    let seed = seed();
    let mut rng = Rng(seed);
    let dir = tempfile::tempdir()?;
    let home_path = dir.path().join("state");
    let home = Home::new(&home_path);
    let mut reported = BTreeMap::new();
    let mut torn = 0;

    for iteration in 0..iterations {
        let context = || format!("seed {seed} (WARDEN_CRASH_SEED), iteration {iteration}");
        let tag = format!("r{iteration}");
        // Without fsync a commit survives a process crash all the same, and the writer spends
        // a larger share of its time inside `write`.
        let sync = if rng.below(2) == 0 { "sync" } else { "nosync" };
        let args = ["run", "s1", tag.as_str(), "100000", sync];
        let mut cmd = match crash {
            Crash::Kill => writer(&home_path, &args),
            Crash::FileSizeLimit => {
                let size = std::fs::metadata(home.history_path("s1")?).map_or(0, |m| m.len());
                // Blocks of 512 bytes (1024 in some shells: the cut is random either way).
                let blocks = size / 512 + 1 + rng.below(4096);
                let mut cmd = Command::new("sh");
                cmd.args([
                    "-c",
                    r#"ulimit -c 0; ulimit -f "$1"; shift; exec "$@""#,
                    "sh",
                ])
                .arg(blocks.to_string())
                .arg(WRITER)
                .args(args)
                .env("WARDEN_HOME", &home_path);
                cmd
            }
        };
        let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
        let stdout = child.stdout.take().context("no stdout")?;
        let mut lines = BufReader::new(stdout).lines();
        if let Crash::Kill = crash {
            read_reported(&mut lines, rng.below(12), &mut reported).with_context(context)?;
            if rng.below(2) == 0 {
                std::thread::sleep(Duration::from_micros(rng.below(3000)));
            }
            child.kill()?; // SIGKILL
        }
        // Every line printed is a commit that returned, whether read before the crash or not.
        read_reported(&mut lines, u64::MAX, &mut reported).with_context(context)?;
        let status = child.wait()?;
        if status.code().is_some() {
            let mut stderr = String::new();
            if let Some(mut e) = child.stderr.take() {
                e.read_to_string(&mut stderr)?;
            }
            bail!(
                "writer exited by itself ({status}): {stderr}; {}",
                context()
            );
        }

        match load(&home, "s1") {
            Err(StoreError::NotFound { .. }) if reported.is_empty() => continue,
            Err(e) => return Err(e).with_context(context),
            Ok(loaded) => {
                torn += loaded.warnings.len();
                check_history(&loaded, &reported).with_context(context)?;
            }
        }
    }

    // A writer still appends after all those crashes, and leaves no torn tail behind.
    let out = writer(&home_path, &["run", "s1", "final", "3"]).output()?;
    ensure!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for line in String::from_utf8(out.stdout)?.lines() {
        let (label, r) = parse_reported(line)?;
        reported.insert(label, r);
    }
    let loaded = load(&home, "s1")?;
    ensure!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    check_history(&loaded, &reported).with_context(|| format!("seed {seed}, final"))?;
    ensure!(reported.len() >= 3, "nothing was committed");
    Ok(torn)
}

#[test]
fn sigkill_at_random_points_loses_no_committed_group() -> Result<()> {
    crash_repeatedly(Crash::Kill, 40)?;
    Ok(())
}

#[test]
fn writes_cut_at_random_bytes_leave_only_a_dropped_torn_tail() -> Result<()> {
    let torn = crash_repeatedly(Crash::FileSizeLimit, 12)?;
    // Almost every cut falls inside a group; if none was seen, the cuts did not happen.
    ensure!(torn >= 6, "only {torn} of 12 crashes left a torn tail");
    Ok(())
}

fn spawn_holder(home: &Path, session: &str) -> Result<Child> {
    let mut holder = writer(home, &["hold", session])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let stdout = holder.stdout.take().context("no stdout")?;
    let mut first = String::new();
    BufReader::new(stdout).read_line(&mut first)?;
    ensure!(first.trim() == "locked", "holder said {first:?}");
    Ok(holder)
}

fn run_writer(home: &Path, session: &str) -> Result<Output> {
    Ok(writer(home, &["run", session, "second", "1"]).output()?)
}

#[test]
fn a_second_writer_in_another_process_gets_a_clear_error() -> Result<()> {
    let dir = tempfile::tempdir()?;
    let home = Home::new(dir.path());
    let mut first = SessionWriter::create(&home, Some("s1"), Path::new("/ws"))?;
    first.commit(&[(Source::User, Item::user("hello"))])?;
    drop(first);

    let mut holder = spawn_holder(dir.path(), "s1")?;
    let out = run_writer(dir.path(), "s1")?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    ensure!(!out.status.success(), "second writer succeeded");
    ensure!(
        stderr.contains("session \"s1\" is locked")
            && stderr.contains("another warden process is writing it"),
        "{stderr}"
    );
    ensure!(matches!(
        SessionWriter::open(&home, "s1"),
        Err(StoreError::Locked { .. })
    ));
    ensure!(
        load(&home, "s1")?.records.len() == 1,
        "readers are not blocked"
    );

    // Released on a clean exit…
    drop(holder.stdin.take());
    ensure!(holder.wait()?.success());
    ensure!(run_writer(dir.path(), "s1")?.status.success());

    // …and when the holder is killed.
    let mut holder = spawn_holder(dir.path(), "s1")?;
    ensure!(!run_writer(dir.path(), "s1")?.status.success());
    holder.kill()?;
    holder.wait()?;
    ensure!(run_writer(dir.path(), "s1")?.status.success());
    let groups = load(&home, "s1")?.records.last().map_or(0, |r| r.group);
    ensure!(
        groups == 3,
        "{groups} groups, expected the first and one per successful writer"
    );
    Ok(())
}

/// Writes a session, then replaces its history with `corrupt(original)`; every reader and
/// writer, in this process and another, must fail naming `file:line` and change nothing.
fn assert_refused(corrupt: impl Fn(&str) -> String, line: u64, expected: &str) -> Result<()> {
    let dir = tempfile::tempdir()?;
    let home = Home::new(dir.path());
    let mut w = SessionWriter::create(&home, Some("s1"), Path::new("/ws"))?;
    for g in 0..3 {
        w.commit(&[
            (Source::User, Item::user(format!("u{g}"))),
            (Source::FileRef, Item::system(format!("f{g}"))),
        ])?;
    }
    drop(w);
    let path = home.history_path("s1")?;
    let content = corrupt(&std::fs::read_to_string(&path)?);
    std::fs::write(&path, &content)?;
    let location = format!("{}:{line}:", path.display());

    let in_process = [
        load(&home, "s1").err(),
        SessionWriter::open(&home, "s1").err(),
    ];
    for err in in_process {
        let msg = err.map(|e| e.to_string()).unwrap_or_default();
        ensure!(msg.contains(&location) && msg.contains(expected), "{msg:?}");
    }
    let out = run_writer(dir.path(), "s1")?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    ensure!(!out.status.success(), "writer accepted a corrupt history");
    ensure!(
        stderr.contains(&location) && stderr.contains(expected),
        "{stderr}"
    );
    ensure!(
        std::fs::read_to_string(&path)? == content,
        "the history was changed"
    );
    Ok(())
}

#[test]
fn garbage_in_the_middle_is_refused_with_file_and_line() -> Result<()> {
    assert_refused(
        |text| {
            let mut lines: Vec<&str> = text.lines().collect();
            lines.insert(4, "{\"seq\": oops");
            format!("{}\n", lines.join("\n"))
        },
        5,
        "corrupt session file",
    )
}

#[test]
fn unknown_format_version_is_refused_with_file_and_line() -> Result<()> {
    assert_refused(
        |text| text.replacen("\"version\":1", "\"version\":7", 1),
        1,
        "version 7",
    )
}

#[test]
fn notifications_pushed_concurrently_and_while_busy_are_committed_once() -> Result<()> {
    let dir = tempfile::tempdir()?;
    let home = Home::new(dir.path());
    drop(SessionWriter::create(&home, Some("s1"), Path::new("/ws"))?);
    // Pushed while no writer runs, and while one holds the session.
    let pushers: Vec<_> = (0..8)
        .map(|i| {
            let home = home.clone();
            std::thread::spawn(move || warden::store::Inbox::push(&home, "s1", &format!("n{i}")))
        })
        .collect();
    let mut ids = HashSet::new();
    for p in pushers {
        let note = p.join().map_err(|_| anyhow::anyhow!("pusher panicked"))??;
        ids.insert(note.id);
    }
    let mut w = SessionWriter::open(&home, "s1")?;
    warden::store::Inbox::push(&home, "s1", "while busy")?;
    let got = w.commit_notifications()?;
    ensure!(got.len() == 9, "{got:?}");
    ensure!(
        got.windows(2).all(|p| p[0].id < p[1].id),
        "not in arrival order"
    );
    ensure!(got.last().is_some_and(|n| n.text == "while busy"));
    drop(w);
    let loaded = load(&home, "s1")?;
    let origins: HashSet<_> = loaded
        .records
        .iter()
        .filter_map(|r| r.origin.clone())
        .collect();
    ensure!(origins.len() == 9 && ids.is_subset(&origins));
    Ok(())
}
