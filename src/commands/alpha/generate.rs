//! `rusty-sdk alpha generate`: the project scaffolded afresh from its PROJECT file with this
//! rusty-sdk, into another folder or in place. In place, a file you changed since it was
//! scaffolded is a conflict unless `--force` (your code is not overwritten silently).
use std::path::{Path, PathBuf};

use crate::cli::AlphaGenerateArgs;
use crate::error::{Error, Result};
use crate::project;
use crate::scaffold::{Policy, Tree};
use crate::session::Session;

pub fn run(session: &Session, args: &AlphaGenerateArgs) -> Result<()> {
    let absolute = |dir: &Path| -> PathBuf {
        if dir.is_absolute() {
            dir.to_path_buf()
        } else {
            session.root.join(dir)
        }
    };
    let input = args
        .input_dir
        .as_deref()
        .map_or_else(|| session.root.clone(), absolute);
    let output = args
        .output_dir
        .as_deref()
        .map_or_else(|| input.clone(), absolute);
    if output == session.root {
        session.lock()?;
    }
    let project = super::read_project(&input, "--input-dir")?;
    let replay = super::replay::plan(&project, &input)?;
    if !replay.not_replayed.is_empty() {
        return Err(Error::Project(format!(
            "alpha generate cannot make again {}; use alpha update, which keeps those files as they are",
            replay.not_replayed.join("; ")
        )));
    }
    let fresh = super::scaffold_with(&super::this_binary()?, &replay, &input, &project)?;
    let mut tree = Tree::new(&output);
    for (path, bytes) in fresh {
        // PROJECT is the tool's; every other file may hold the user's work.
        let policy = if path == project::FILE_NAME {
            Policy::Tool
        } else {
            Policy::User
        };
        tree.add(&path, bytes, policy);
    }
    session.apply_tree(&tree)?;
    Ok(())
}
