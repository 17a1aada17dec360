//! What every command shares: the project root, the shell and the global flags, and the
//! last step of every command (plan, print, commit).
use std::cell::RefCell;
use std::path::PathBuf;

use crate::cli::GlobalArgs;
use crate::error::{Error, Result};
use crate::project::{self, Project};
use crate::scaffold::lock::{self, ProjectLock};
use crate::scaffold::{Plan, Policy, Tree, commit, journal};
use crate::ui::Shell;

#[expect(
    clippy::struct_excessive_bools,
    reason = "the global switches (--dry-run, --diff, --force, prompts) a command reads"
)]
pub struct Session {
    pub root: PathBuf,
    pub shell: Shell,
    pub dry_run: bool,
    pub diff: bool,
    pub force: bool,
    pub interactive: bool,
    /// Held from the first read of PROJECT to the end of the command.
    lock: RefCell<Option<ProjectLock>>,
    /// The command's files are written: output lost after this point loses nothing else.
    committed: std::cell::Cell<bool>,
}

impl Session {
    pub fn new(global: &GlobalArgs) -> Result<Session> {
        let cwd = std::env::current_dir().map_err(|e| Error::io(".", e))?;
        let root = match &global.directory {
            Some(dir) if dir.is_absolute() => dir.clone(),
            Some(dir) => cwd.join(dir),
            None => cwd,
        };
        if root.exists() && !root.is_dir() {
            return Err(Error::invalid(format!(
                "-C {}: not a directory; pass -C <project dir>",
                crate::model::names::shown_path(&root)
            )));
        }
        Ok(Session {
            root,
            shell: Shell::new(global.color, global.quiet, global.verbose),
            dry_run: global.dry_run,
            diff: global.diff,
            force: global.force,
            interactive: !global.no_interactive,
            lock: RefCell::new(None),
            committed: std::cell::Cell::new(false),
        })
    }

    /// Take the project's lock (once), then roll back or forward a commit an earlier
    /// command left half done, saying what was done.
    pub fn lock(&self) -> Result<()> {
        if self.lock.borrow().is_some() {
            return Ok(());
        }
        let Some(held) = lock::acquire(&self.root, lock::WAIT)? else {
            return Ok(());
        };
        *self.lock.borrow_mut() = Some(held);
        if let Some(message) = journal::recover(&self.root)?.message() {
            self.shell.warn(&message);
        }
        Ok(())
    }

    /// Read the project's PROJECT file.
    pub fn load_project(&self) -> Result<Project> {
        self.lock()?;
        let path = self.root.join(project::FILE_NAME);
        let text = match crate::scaffold::input::read_text(
            &path,
            crate::scaffold::input::PROJECT_FILE_LIMIT,
        ) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // Started in a folder of a project: say where its root is.
                let above = self
                    .root
                    .ancestors()
                    .skip(1)
                    .find(|dir| dir.join(project::FILE_NAME).is_file());
                let fix = match above {
                    Some(dir) => format!(
                        "the project is in {0}: run rusty-sdk there, or pass -C {0}",
                        crate::model::names::shown_path(dir)
                    ),
                    None => "run `rusty-sdk init` first, or pass -C <project dir>".to_string(),
                };
                return Err(Error::Project(format!(
                    "no PROJECT file in {}; {fix}",
                    crate::model::names::shown_path(&self.root)
                )));
            }
            Err(e) => return Err(Error::io(path, e)),
        };
        Project::parse(&text)
    }

    /// Stage PROJECT, plan every staged change, print it, then write it all (or nothing).
    pub fn apply(&self, mut tree: Tree, project: &Project) -> Result<Plan> {
        self.lock()?;
        // Every command records which rusty-sdk last wrote the project (`alpha update`
        // starts from it).
        let project = Project {
            cli_version: Some(crate::versions::cli()),
            ..project.clone()
        };
        tree.add(project::FILE_NAME, project.render()?, Policy::Tool);
        self.write(&tree, &self.root)
    }

    /// Plan every staged change of `tree`, which carries its own PROJECT (`alpha generate`
    /// into another folder, `alpha update`'s merge), print it, then write it all at the
    /// tree's root (or nothing).
    pub fn apply_tree(&self, tree: &Tree) -> Result<Plan> {
        self.write(tree, tree.root())
    }

    fn write(&self, tree: &Tree, root: &std::path::Path) -> Result<Plan> {
        let plan = Plan::build(tree, self.force)?;
        // A refused plan prints only its conflicts (in the error), never `create` lines
        // for files that will not be written.
        plan.check()?;
        self.shell.plan(&plan, self.diff);
        self.shell.verbose(&plan.summary());
        if let Some(kind) = self.shell.stdout_error() {
            return Err(Error::Output(kind));
        }
        if self.dry_run {
            self.shell.note("dry run: nothing was written");
        } else {
            commit::commit(root, &plan)?;
            self.committed.set(true);
        }
        Ok(plan)
    }

    /// Whether the command has written its files.
    pub fn committed(&self) -> bool {
        self.committed.get()
    }
}
