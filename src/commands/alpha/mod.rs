//! `rusty-sdk alpha`: bringing a scaffolded project to this rusty-sdk, as kubebuilder's
//! `alpha generate` and `alpha update` do for Go projects.
//!
//! Both start from PROJECT, which records every command's outcome: [`replay`] turns it back
//! into command lines and runs them with some rusty-sdk in a scratch folder. `generate`
//! replays with this one; `update` replays with the version that made the project too and
//! merges the two scaffolds into the user's tree file by file ([`merge`]).
use std::collections::BTreeMap;
use std::path::Path;

use crate::error::{Error, Result};
use crate::model::names::shown_path;
use crate::project::{self, Project, Resource};
use crate::scaffold::input;

pub mod generate;
pub mod merge;
pub mod notes;
pub mod replay;
pub mod update;

/// Folders that are build output or version control, never scaffold.
const NOT_SCAFFOLD: [&str; 2] = [".git", "target"];

/// Every file under `root` (path relative to it with `/` -> bytes), outside build output
/// and version control.
pub fn read_tree(root: &Path) -> Result<BTreeMap<String, Vec<u8>>> {
    let mut files = BTreeMap::new();
    let walk = walkdir::WalkDir::new(root)
        .into_iter()
        .filter_entry(|entry| {
            entry.depth() != 1
                || !NOT_SCAFFOLD.contains(&entry.file_name().to_string_lossy().as_ref())
        });
    for entry in walk {
        let entry = entry.map_err(|e| {
            let path = e.path().unwrap_or(root).to_path_buf();
            Error::io(path, e.into())
        })?;
        if !entry.file_type().is_file() {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(root)
            .map_err(|e| Error::Internal(e.to_string()))?
            .to_string_lossy()
            .replace('\\', "/");
        let bytes = input::read_file(entry.path(), input::PROJECT_FILE_LIMIT)
            .map_err(|e| Error::io(entry.path(), e))?;
        files.insert(rel, bytes);
    }
    Ok(files)
}

/// The PROJECT file of the project in `dir`, named after the flag that gave it.
pub fn read_project(dir: &Path, flag: &str) -> Result<Project> {
    let path = dir.join(project::FILE_NAME);
    match input::read_text(&path, input::PROJECT_FILE_LIMIT) {
        Ok(text) => Project::parse(&text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Error::invalid(format!(
            "{flag} {}: no PROJECT file there; pass the folder of a rusty-sdk project",
            shown_path(dir)
        ))),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Run `replay` of the project in `input` (whose PROJECT is `project`) with `binary` in a
/// scratch folder and return the files it wrote.
pub fn scaffold_with(
    binary: &Path,
    replay: &replay::Replay,
    input: &Path,
    project: &Project,
) -> Result<BTreeMap<String, Vec<u8>>> {
    let name = input
        .file_name()
        .map_or_else(|| "project".into(), ToOwned::to_owned);
    let (_scratch, root) = replay::scratch(&name)?;
    replay::run(binary, replay, input, &root)?;
    let mut files = read_tree(&root)?;
    for path in &replay.inputs {
        files.remove(path);
    }
    if let Some(replayed) = files.get_mut(project::FILE_NAME)
        && let Some(ordered) = in_projects_order(replayed, project)
    {
        *replayed = ordered.into_bytes();
    }
    Ok(files)
}

/// The replayed PROJECT with its resources in `project`'s order. PROJECT lists them in the
/// order commands first recorded them, which the replay cannot always follow: a
/// `create webhook` for a built-in kind records it, and it may have run between two
/// `create api`, where the replay runs every webhook after the APIs (a conversion webhook
/// needs its spokes). Only a PROJECT that this rusty-sdk writes back the same is reordered
/// (another rusty-sdk's may be laid out otherwise); `None` leaves it as replayed.
fn in_projects_order(replayed: &[u8], project: &Project) -> Option<String> {
    let text = std::str::from_utf8(replayed).ok()?;
    let mut regenerated = Project::parse(text).ok()?;
    if regenerated.render().ok()? != text {
        return None;
    }
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
    regenerated.render().ok()
}

/// This rusty-sdk's executable, to replay with.
pub fn this_binary() -> Result<std::path::PathBuf> {
    std::env::current_exe().map_err(|e| Error::io("rusty-sdk", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resource(group: &str, kind: &str) -> Resource {
        Resource {
            group: group.into(),
            version: "v1".into(),
            kind: kind.into(),
            ..Resource::default()
        }
    }

    #[test]
    fn the_replayed_project_takes_the_projects_order_of_resources() {
        let project = Project {
            version: "3".into(),
            resources: vec![resource("core", "Pod"), resource("cache", "Backup")],
            ..Project::default()
        };
        let replayed = Project {
            resources: vec![resource("cache", "Backup"), resource("core", "Pod")],
            ..project.clone()
        };
        let text = replayed.render().unwrap();
        let ordered = in_projects_order(text.as_bytes(), &project).unwrap();
        assert_eq!(ordered, project.render().unwrap());
        // Laid out as this rusty-sdk would not write it: left as replayed.
        let other = text.replace("kind: Pod", "kind: 'Pod'");
        assert_eq!(in_projects_order(other.as_bytes(), &project), None);
    }
}
