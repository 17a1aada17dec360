//! `rusty-sdk alpha generate`: the project scaffolded afresh from its PROJECT file with this
//! rusty-sdk, into another folder or in place. In place, a file you changed since it was
//! scaffolded is a conflict unless `--force` (your code is not overwritten silently).
use std::path::{Path, PathBuf};

use crate::cli::AlphaGenerateArgs;
use crate::error::{Error, Result};
use crate::project::{self, Project, Resource};
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
    let mut fresh = super::scaffold_with(&super::this_binary()?, &replay, &input)?;
    if let Some(replayed) = fresh.get_mut(project::FILE_NAME) {
        *replayed = in_projects_order(replayed, &project)?.into_bytes();
    }
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

/// The replayed PROJECT with its resources in `project`'s order. PROJECT lists them in the
/// order commands first recorded them, which the replay cannot always follow: a
/// `create webhook` for a built-in kind records it, and it may have run between two
/// `create api`, where the replay runs every webhook after the APIs (a conversion webhook
/// needs its spokes).
fn in_projects_order(replayed: &[u8], project: &Project) -> Result<String> {
    let mut regenerated = Project::parse(&String::from_utf8_lossy(replayed))?;
    let position = |resource: &Resource| {
        project
            .resources
            .iter()
            .position(|r| {
                (&r.group, &r.version, &r.kind)
                    == (&resource.group, &resource.version, &resource.kind)
            })
            .unwrap_or(usize::MAX)
    };
    regenerated.resources.sort_by_key(position);
    regenerated.render()
}
