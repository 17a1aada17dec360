//! operator-sdk's `generate bundle` flags, meaning what they mean there: `--manifests` and
//! `--metadata` choose the parts to write (both when neither is given), `--input-dir` (or
//! its older spellings `--deploy-dir` and `--crds-dir`) replaces standard input,
//! `--kustomize-dir` holds the base CSV, `--overwrite=false` keeps metadata the bundle
//! has, `--stdout` prints the manifests instead of writing them, and
//! `--extra-service-accounts` names accounts whose RBAC goes into the CSV; operator-sdk's
//! `--use-image-digests`, which asks the image registries, is refused.
use std::path::Path;

use crate::cli::BundleArgs;
use crate::error::{Error, Result};
use crate::kustomize_output::{self, Object};
use crate::model::names::{parse_project_dir, shown};

/// Which parts of the bundle to write, and where the manifests go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "operator-sdk's four independent switches"
)]
pub struct Parts {
    /// `<out>/manifests` and the scorecard tests.
    pub manifests: bool,
    /// `<out>/metadata` and bundle.Dockerfile.
    pub metadata: bool,
    /// The manifests go to standard output rather than files.
    pub stdout: bool,
    /// Metadata the bundle already has is written again.
    pub overwrite: bool,
}

impl Parts {
    pub fn from_args(args: &BundleArgs) -> Result<Self> {
        if let Some(arg) = args.unexpected.first()
            && semver::Version::parse(arg).is_ok()
        {
            return Err(Error::invalid(format!(
                "unexpected argument {}: operator-sdk's -v VERSION is --version {} here (-v is --verbose)",
                shown(arg),
                shown(arg)
            )));
        }
        if args.use_image_digests {
            return Err(Error::invalid(
                "--use-image-digests looks each image's tag up in its registry, which rusty-sdk does not reach; pass the image by digest instead (make bundle IMG=<repo>@sha256:<digest>), and the CSV carries it as given",
            ));
        }
        if let Some(arg) = args.unexpected.first() {
            return Err(Error::invalid(format!(
                "unexpected argument {}: `generate bundle` takes flags only (operator-sdk's --manifests and --metadata are switches; a folder or file of manifests is --input-dir {})",
                shown(arg),
                shown(arg)
            )));
        }
        let (manifests, metadata) = match (args.manifests, args.metadata) {
            (None, None) => (true, true),
            (manifests, metadata) => (manifests.unwrap_or(false), metadata.unwrap_or(false)),
        };
        if !manifests && !metadata {
            return Err(Error::invalid(
                "nothing to write: --manifests=false and --metadata=false leave nothing; drop one of them",
            ));
        }
        if args.stdout && args.output_dir.is_some() {
            return Err(Error::invalid(
                "--output-dir and --stdout both say where the manifests go; pass one of them",
            ));
        }
        if args.stdout && !manifests {
            return Err(Error::invalid(
                "--stdout prints the manifests, and --manifests=false leaves them out; drop one of them",
            ));
        }
        Ok(Parts {
            manifests,
            metadata,
            stdout: args.stdout,
            overwrite: args.overwrite,
        })
    }
}

/// Whether the staged file at `path` is part of the manifests (`out` is the bundle's
/// folder): `<out>/manifests` and `<out>/tests`; the rest is metadata (`<out>/metadata`
/// and bundle.Dockerfile).
pub fn is_manifest(path: &str, out: &str) -> bool {
    [format!("{out}/manifests/"), format!("{out}/tests/")]
        .iter()
        .any(|prefix| path.starts_with(prefix.as_str()))
}

/// `--kustomize-dir`, the folder whose `bases/` holds the base CSV.
pub fn kustomize_dir(args: &BundleArgs) -> Result<String> {
    match &args.kustomize_dir {
        Some(dir) => parse_project_dir("--kustomize-dir", dir),
        None => Ok("config/manifests".to_string()),
    }
}

/// The folder (or file) the manifests come from instead of standard input, and the CRDs'
/// folder of `--crds-dir`.
pub fn input(args: &BundleArgs) -> Result<Option<(String, Option<String>)>> {
    match (&args.input_dir, &args.deploy_dir, &args.crds_dir) {
        (Some(_), Some(_), _) => Err(Error::invalid(
            "--input-dir and --deploy-dir are two spellings of the manifests' folder; pass one",
        )),
        (Some(_), None, Some(_)) => Err(Error::invalid(
            "--crds-dir goes with --deploy-dir (operator-sdk's older pair); with --input-dir, put the CRDs in that folder",
        )),
        (None, None, Some(crds)) => Err(Error::invalid(format!(
            "--crds-dir {} needs --deploy-dir, the folder of the other manifests",
            shown(crds)
        ))),
        (Some(dir), None, None) | (None, Some(dir), None) => Ok(Some((dir.clone(), None))),
        (None, Some(dir), Some(crds)) => Ok(Some((dir.clone(), Some(crds.clone())))),
        (None, None, None) => Ok(None),
    }
}

/// The objects of `dir` and, with `--crds-dir`, of `crds`, relative to the project.
pub fn read_input(root: &Path, dir: &str, crds: Option<&str>) -> Result<Vec<Object>> {
    let mut objects = kustomize_output::read_dir(&root.join(dir), dir)?;
    if let Some(crds) = crds {
        objects.extend(kustomize_output::read_dir(&root.join(crds), crds)?);
    }
    Ok(objects)
}
