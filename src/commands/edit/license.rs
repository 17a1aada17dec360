//! `rusty-sdk edit --license <apache2|none> [--owner O]` or `--license-file FILE`: write the
//! project's licence header (hack/boilerplate.txt) again, as kubebuilder's `edit` rewrites
//! its boilerplate after `init`. Nothing else changes.
use crate::cli::EditArgs;
use crate::error::{Error, Result};
use crate::model::boilerplate;
use crate::model::names::parse_owner;
use crate::scaffold::{Policy, Tree};
use crate::session::Session;

/// Whether `args` ask for a new licence header.
pub fn asked(args: &EditArgs) -> bool {
    args.license.is_some() || args.license_file.is_some()
}

/// Write hack/boilerplate.txt from `--license` (keeping the owner it names unless
/// `--owner`) or from `--license-file`.
pub fn run(session: &Session, args: &EditArgs) -> Result<()> {
    if args.namespaced.is_some() || args.plugins.is_some() || args.multigroup.is_some() {
        return Err(Error::invalid(
            "--license and --license-file rewrite hack/boilerplate.txt alone; run edit once for them and once for --namespaced, --plugins or --multigroup",
        ));
    }
    let project = session.load_project()?;
    let mut tree = Tree::new(&session.root);
    let header = match (&args.license_file, args.license) {
        (Some(file), _) => boilerplate::read_license_file(file)?,
        (None, Some(license)) => {
            let owner = match &args.owner {
                Some(owner) => parse_owner(owner)?,
                None => tree
                    .read(boilerplate::FILE)?
                    .as_deref()
                    .and_then(boilerplate::owner)
                    .map_or_else(|| format!("The {} Authors", project.name()), str::to_string),
            };
            boilerplate::render(license, &owner)?
        }
        (None, None) => return Err(Error::Internal("edit's licence without a flag".into())),
    };
    tree.add(boilerplate::FILE, header, Policy::Tool);
    session.apply(tree, &project)?;
    Ok(())
}
