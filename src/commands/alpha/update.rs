//! `rusty-sdk alpha update`: a three-way merge that brings the project to this rusty-sdk.
//! The ancestor is what the rusty-sdk that made the project scaffolds from its PROJECT
//! (an older executable given with `--from-binary`, or a release `cargo install`ed into the
//! cache), "theirs" is what this one (or `--to-binary`, `--to-version`) scaffolds, "ours"
//! is the project as it is. Clean merges are written; conflicts are written with git's
//! markers and listed, and the command then exits with 1. In a git repository the tree
//! must be clean first, so that `git diff` shows exactly what the update did (and
//! `git checkout` undoes it); no branch is made.
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use super::merge::{self, Outcome};
use crate::cli::AlphaUpdateArgs;
use crate::error::{Error, Result};
use crate::model::names::{shown, shown_path};
use crate::project::Project;
use crate::scaffold::{Policy, Tree};
use crate::session::Session;
use crate::versions::{LOCAL_LINK, RUNTIME_CRATE};

pub fn run(session: &Session, args: &AlphaUpdateArgs) -> Result<()> {
    let project = session.load_project()?;
    let root = session.root.clone();
    let replay = super::replay::plan(&project, &root)?;
    if !session.dry_run {
        git_tree_is_clean(&root)?;
    }
    let old = older_binary(args, &project, &root)?;
    let older = linked_as_now(&replay, &root);
    let mut ancestor = match super::scaffold_with(&old, &older, &root, &project) {
        Ok(files) => files,
        // An older rusty-sdk may not know `init --license-file`: then the header is the
        // user's edit, and the older one wrote the licence nearest to it.
        Err(error) => match super::replay::without_license_file(&older) {
            Some(older) => super::scaffold_with(&old, &older, &root, &project)?,
            None => return Err(error),
        },
    };
    let theirs = super::scaffold_with(&newer_binary(args, &root)?, &replay, &root, &project)?;
    let mut ours = super::read_tree(&root)?;
    // The runtime source the project links is gone, so the older rusty-sdk wrote no link:
    // the link as it is now is what it wrote then.
    if let (false, Some(link)) = (ancestor.contains_key(LOCAL_LINK), ours.get(LOCAL_LINK)) {
        ancestor.insert(LOCAL_LINK.to_string(), link.clone());
    }

    let mut tree = Tree::new(&root);
    let mut conflicts = Vec::new();
    let mut listed = Vec::new();
    let paths: BTreeSet<&String> = ancestor.keys().chain(theirs.keys()).collect();
    for path in paths {
        let side = |files| side(files, path);
        let mut outcome = merge::merge(side(&ancestor), side(&ours), side(&theirs));
        if path == crate::project::FILE_NAME {
            outcome = recording_the_new_version(outcome, side(&ours), side(&theirs));
        }
        match outcome {
            Outcome::Keep => {}
            Outcome::Write(bytes) => tree.add(path, bytes, Policy::Tool),
            Outcome::Conflict(bytes) => {
                conflicts.push(path.clone());
                tree.add(path, bytes, Policy::Tool);
            }
            Outcome::Dropped => listed.push(format!(
                "{path}: no longer scaffolded; kept as you have it (remove it if nothing uses it)"
            )),
            Outcome::DeletedByUser => listed.push(format!(
                "{path}: you removed it and the new scaffold changed it; left removed"
            )),
            Outcome::Binary => listed.push(format!(
                "{path}: not text, changed by you and by the new scaffold; kept as you have it"
            )),
        }
    }
    for what in &replay.not_replayed {
        session.shell.warn(&format!("not replayed: {what}"));
    }
    for line in &listed {
        session.shell.warn(line);
    }
    session.apply_tree(&tree)?;
    for (path, staged) in tree_files(&tree) {
        ours.insert(path, staged);
    }
    let to = theirs
        .get(crate::project::FILE_NAME)
        .and_then(|text| Project::parse(&String::from_utf8_lossy(text)).ok())
        .and_then(|p| p.cli_version)
        .unwrap_or_else(crate::versions::cli);
    print_notes(session, &project, &to, &ours);
    if conflicts.is_empty() {
        return Ok(());
    }
    for path in &conflicts {
        session.shell.warn(&format!("conflict: {path}"));
    }
    Err(Error::Project(format!(
        "{} file(s) have conflict markers (listed above{}); resolve each <<<<<<< ours / >>>>>>> theirs, then build and test",
        conflicts.len(),
        if session.dry_run {
            ", nothing was written"
        } else {
            ""
        }
    )))
}

/// PROJECT as the merge leaves it, with the `cliVersion` of the new scaffold: the update
/// brings the project to that rusty-sdk, whatever the older one recorded (the ancestor's
/// may differ from the project's: a rusty-sdk given with `--from-binary` built elsewhere,
/// a project whose version a later command recorded). A PROJECT in conflict is left as
/// the merge has it.
fn recording_the_new_version(
    outcome: Outcome,
    ours: Option<&[u8]>,
    theirs: Option<&[u8]>,
) -> Outcome {
    const KEY: &str = "cliVersion: ";
    let Some(new) = theirs.map(String::from_utf8_lossy).and_then(|text| {
        text.lines()
            .find(|l| l.starts_with(KEY))
            .map(str::to_string)
    }) else {
        return outcome;
    };
    let merged = match &outcome {
        Outcome::Keep => ours,
        Outcome::Write(bytes) => Some(bytes.as_slice()),
        _ => None,
    };
    let Some(Ok(text)) = merged.map(std::str::from_utf8) else {
        return outcome;
    };
    let mut changed = false;
    let updated: String = text
        .split_inclusive('\n')
        .map(|line| {
            let body = line.trim_end_matches(['\r', '\n']);
            if body.starts_with(KEY) && body != new {
                changed = true;
                format!("{new}{}", &line[body.len()..])
            } else {
                line.to_string()
            }
        })
        .collect();
    if changed {
        Outcome::Write(updated.into_bytes())
    } else {
        outcome
    }
}

/// The replay for the ancestor: its `init` links the runtime source the project links now
/// (`.cargo/config.toml`, machine-local), where the older rusty-sdk would link the source
/// it was built from, which is often gone (a `cargo install` builds in a folder it
/// removes). Then the link is the user's side of the merge and moves to this rusty-sdk's
/// runtime like any scaffold change.
fn linked_as_now(replay: &super::replay::Replay, root: &Path) -> super::replay::Replay {
    let mut replay = replay.clone();
    let linked = crate::scaffold::input::read_text(
        &root.join(LOCAL_LINK),
        crate::scaffold::input::PROJECT_FILE_LIMIT,
    )
    .ok()
    .and_then(|text| text.parse::<toml_edit::DocumentMut>().ok())
    .and_then(|doc| {
        let path = doc
            .get("patch")?
            .get("crates-io")?
            .get(RUNTIME_CRATE)?
            .get("path")?;
        path.as_str().map(PathBuf::from)
    })
    .filter(|dir| dir.join("Cargo.toml").is_file());
    if let (Some(dir), Some(init)) = (linked, replay.steps.first_mut()) {
        init.extend(["--runtime-path".into(), dir.to_string_lossy().into_owned()]);
    }
    replay
}

fn side<'a>(files: &'a BTreeMap<String, Vec<u8>>, path: &str) -> Option<&'a [u8]> {
    files.get(path).map(Vec::as_slice)
}

/// What the tree stages, to read the project as the update leaves it.
fn tree_files(tree: &Tree) -> Vec<(String, Vec<u8>)> {
    tree.staged()
        .iter()
        .map(|(path, staged)| (path.clone(), staged.content.clone()))
        .collect()
}

/// The version that made the project and the notes its code needs.
fn print_notes(session: &Session, project: &Project, to: &str, files: &BTreeMap<String, Vec<u8>>) {
    let from = project.cli_version.as_deref().unwrap_or("(not recorded)");
    session
        .shell
        .note(&format!("updated from rusty-sdk {from} to {to}"));
    let notes = super::notes::applying(files);
    if notes.is_empty() {
        session
            .shell
            .note("no migration note of docs/upgrading.md applies to the project's code");
    }
    for (note, file) in notes {
        session.shell.warn(&format!(
            "migration note: {} ({file})\n{}",
            note.title, note.body
        ));
    }
}

/// The rusty-sdk that made the project: `--from-binary`, or the release of `--from-version`
/// (else PROJECT's `cliVersion`) installed into the cache.
fn older_binary(args: &AlphaUpdateArgs, project: &Project, root: &Path) -> Result<PathBuf> {
    if let Some(path) = &args.from_binary {
        return given_binary("--from-binary", path, root);
    }
    let version = match (&args.from_version, &project.cli_version) {
        (Some(version), _) => version.trim_start_matches('v').to_string(),
        (None, None) => {
            return Err(Error::Project(
                "PROJECT has no cliVersion (it was made before rusty-sdk recorded one); pass --from-binary <the rusty-sdk that made it> or --from-version <its version>".into(),
            ));
        }
        (None, Some(recorded)) => match recorded.split_once('+') {
            Some((_, commit)) => {
                return Err(Error::Project(format!(
                    "PROJECT was written by a development build of rusty-sdk ({}), which crates.io does not have; build commit {} (git worktree add ../rusty-sdk-old {}; cargo build --manifest-path ../rusty-sdk-old/Cargo.toml) and pass --from-binary ../rusty-sdk-old/target/debug/rusty-sdk",
                    shown(recorded),
                    shown(commit),
                    shown(commit)
                )));
            }
            None => recorded.clone(),
        },
    };
    release("--from-version", &version)
}

/// The rusty-sdk to update to: `--to-binary`, the release of `--to-version`, or this one.
fn newer_binary(args: &AlphaUpdateArgs, root: &Path) -> Result<PathBuf> {
    match (&args.to_binary, &args.to_version) {
        (Some(path), _) => given_binary("--to-binary", path, root),
        (None, Some(version)) => release("--to-version", version.trim_start_matches('v')),
        (None, None) => super::this_binary(),
    }
}

/// The executable a `flag` names, which must exist.
fn given_binary(flag: &str, path: &Path, root: &Path) -> Result<PathBuf> {
    let path = if path.is_absolute() {
        path.to_path_buf()
    } else {
        root.join(path)
    };
    if path.is_file() {
        Ok(path)
    } else {
        Err(Error::invalid(format!(
            "{flag} {}: no such file; pass the path of a rusty-sdk executable",
            shown_path(&path)
        )))
    }
}

/// The release `version` (from `flag`), installed into the cache.
fn release(flag: &str, version: &str) -> Result<PathBuf> {
    if semver::Version::parse(version).is_err() {
        return Err(Error::invalid(format!(
            "{flag} {}: not a version such as 0.1.0",
            shown(version)
        )));
    }
    install(version)
}

/// `cargo install rusty-sdk --version =<version>` into the cache, once per version.
fn install(version: &str) -> Result<PathBuf> {
    let cache = crate::rbac::objects_cache::dir()
        .ok_or_else(|| {
            Error::Project(format!(
                "no cache folder to install rusty-sdk {version} into (set RUSTY_SDK_CACHE_DIR), or pass --from-binary <path>"
            ))
        })?
        .join("releases")
        .join(version);
    let binary = cache.join("bin").join("rusty-sdk");
    if binary.is_file() {
        return Ok(binary);
    }
    let output = Command::new("cargo")
        .args(["install", "--quiet", "--locked", "rusty-sdk", "--version"])
        .arg(format!("={version}"))
        .arg("--root")
        .arg(&cache)
        .output();
    let said = match output {
        Ok(out) if out.status.success() && binary.is_file() => return Ok(binary),
        Ok(out) => String::from_utf8_lossy(&out.stderr)
            .lines()
            .rfind(|l| !l.trim().is_empty())
            .unwrap_or("")
            .to_string(),
        Err(e) => e.to_string(),
    };
    Err(Error::Project(format!(
        "cannot install rusty-sdk {version} with cargo install ({}); pass --from-binary <path of rusty-sdk {version}> to work offline",
        said.trim_start_matches("error: ")
    )))
}

/// In a git repository, refuse a tree with uncommitted changes: the update's changes would
/// mix with them. Outside one (or without git) there is nothing to check.
fn git_tree_is_clean(root: &Path) -> Result<()> {
    let Ok(output) = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["status", "--porcelain", "--untracked-files=normal", "."])
        .output()
    else {
        return Ok(());
    };
    if !output.status.success() {
        return Ok(());
    }
    let status = String::from_utf8_lossy(&output.stdout);
    match status.lines().next() {
        None => Ok(()),
        Some(first) => Err(Error::Project(format!(
            "the project's git tree has uncommitted changes ({} path(s), first {}); commit or stash them first, so that `git diff` shows what alpha update changes",
            status.lines().count(),
            shown(first.get(3..).unwrap_or(first))
        ))),
    }
}
