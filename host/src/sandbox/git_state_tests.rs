use super::*;

fn shown(p: &Path) -> String {
    p.display().to_string()
}

fn put_text(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A `.git` with a config, a hook, a linked worktree and a submodule.
fn repo(dir: &Path) -> PathBuf {
    let git = dir.join(".git");
    put_text(&git.join("config"), "[core]\n\tbare = false\n");
    put_text(&git.join("hooks/pre-commit.sample"), "#!/bin/sh\n");
    put_text(&git.join("worktrees/wt/commondir"), "../..\n");
    put_text(&git.join("worktrees/wt/gitdir"), "/w/wt/.git\n");
    put_text(
        &git.join("modules/lib/config"),
        "[core]\n\tworktree = ../../../lib\n",
    );
    std::fs::create_dir_all(git.join("modules/lib/objects/pack")).unwrap();
    git
}

#[test]
fn a_changed_or_planted_path_is_put_back_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let git = repo(dir.path());
    let state = GitState::take(std::slice::from_ref(&git)).unwrap();
    put_text(
        &git.join("modules/lib/config"),
        "[core]\n\tfsmonitor = evil\n",
    );
    put_text(&git.join("worktrees/wt/commondir"), "/tmp/evil\n");
    put_text(&git.join("hooks/pre-commit"), "#!/bin/sh\nevil\n");
    put_text(&git.join("config.worktree"), "[core]\n\tfsmonitor = evil\n");
    put_text(&git.join("info/attributes"), "* diff=x\n");
    put_text(&git.join("modules/lib/objects/pack/x.pack"), "data");
    let notes = state.restore(&shown);
    assert_eq!(notes.len(), 5, "{notes:#?}");
    assert_eq!(
        std::fs::read_to_string(git.join("modules/lib/config")).unwrap(),
        "[core]\n\tworktree = ../../../lib\n"
    );
    assert_eq!(
        std::fs::read_to_string(git.join("worktrees/wt/commondir")).unwrap(),
        "../..\n"
    );
    assert!(!git.join("hooks/pre-commit").exists());
    assert!(!git.join("config.worktree").exists());
    assert!(!git.join("info/attributes").exists());
    assert!(git.join("modules/lib/objects/pack/x.pack").exists());
    assert!(state.restore(&shown).is_empty());
}

#[test]
fn what_git_itself_makes_stays() {
    let dir = tempfile::tempdir().unwrap();
    let git = repo(dir.path());
    let state = GitState::take(std::slice::from_ref(&git)).unwrap();
    put_text(&git.join("worktrees/new/commondir"), "../..\n");
    put_text(&git.join("worktrees/new/gitdir"), "/w/new/.git\n");
    put_text(
        &git.join("modules/other/config"),
        "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = /x\n",
    );
    put_text(
        &git.join("modules/other/hooks/update.sample"),
        "#!/bin/sh\n",
    );
    put_text(&git.join("rebase-merge/git-rebase-todo"), "pick abc one\n");
    put_text(&git.join("rebase-merge/strategy"), "ort\n");
    std::fs::remove_dir_all(git.join("worktrees/wt")).unwrap();
    let notes = state.restore(&shown);
    assert_eq!(notes, Vec::<String>::new());
    assert!(git.join("worktrees/new/commondir").exists());
    assert!(git.join("modules/other/config").exists());
    assert!(git.join("rebase-merge/git-rebase-todo").exists());
}

#[test]
fn new_state_that_runs_a_program_is_removed_and_the_persons_is_put_back() {
    let dir = tempfile::tempdir().unwrap();
    let git = repo(dir.path());
    put_text(
        &git.join("sequencer/todo"),
        "pick abc one\nexec make test\n",
    );
    let state = GitState::take(std::slice::from_ref(&git)).unwrap();
    put_text(
        &git.join("rebase-merge/git-rebase-todo"),
        "pick abc one\n  x touch /tmp/m\n",
    );
    put_text(&git.join("rebase-apply/strategy"), "evil\n");
    put_text(&git.join("sequencer/todo"), "exec make test\n");
    put_text(&git.join("worktrees/bad/commondir"), "/tmp/evil\n");
    put_text(
        &git.join("modules/bad/config"),
        "[core]\n\tfsmonitor = evil\n",
    );
    put_text(&git.join("modules/bad/hooks/post-checkout"), "#!/bin/sh\n");
    let notes = state.restore(&shown);
    assert_eq!(notes.len(), 5, "{notes:#?}");
    assert!(!git.join("rebase-merge").exists());
    assert!(!git.join("rebase-apply").exists());
    assert!(!git.join("worktrees/bad/commondir").exists());
    assert!(!git.join("modules/bad/config").exists());
    assert!(!git.join("modules/bad/hooks/post-checkout").exists());
    // The person's own state advanced without a new `exec`: it stays.
    assert_eq!(
        std::fs::read_to_string(git.join("sequencer/todo")).unwrap(),
        "exec make test\n"
    );
    put_text(&git.join("sequencer/todo"), "exec touch /tmp/m\n");
    let notes = state.restore(&shown);
    assert_eq!(notes.len(), 1, "{notes:#?}");
    assert_eq!(
        std::fs::read_to_string(git.join("sequencer/todo")).unwrap(),
        "pick abc one\nexec make test\n"
    );
}

#[test]
fn a_replaced_git_is_moved_back() {
    let dir = tempfile::tempdir().unwrap();
    let git = repo(dir.path());
    let state = GitState::take(std::slice::from_ref(&git)).unwrap();
    std::fs::rename(&git, dir.path().join("old")).unwrap();
    put_text(&git.join("config"), "[core]\n\tfsmonitor = evil\n");
    let notes = state.restore(&shown);
    assert!(notes[0].contains("moved back"), "{notes:#?}");
    assert!(git.join("modules/lib/config").exists());
    assert!(!dir.path().join("old").exists());
}

#[test]
fn links_are_not_followed_and_a_large_file_refuses_the_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let git = repo(dir.path());
    std::os::unix::fs::symlink("/etc", git.join("hooks/etc")).unwrap();
    let state = GitState::take(std::slice::from_ref(&git)).unwrap();
    assert!(state.restore(&shown).is_empty());
    std::fs::write(
        git.join("hooks/big"),
        vec![b'x'; usize::try_from(MAX_FILE_BYTES).unwrap() + 1],
    )
    .unwrap();
    let err = GitState::take(std::slice::from_ref(&git)).unwrap_err();
    assert!(err.contains("larger than"), "{err}");
}
