//! Controllers for kinds another project defines, read from that project's CRD file:
//! `create api --plugins rust --external-api-crd crds/dnsendpoints.yaml --controller`.
//! kopium turns the CRD's schema into Rust types under `api/src/external/`, and the
//! controller is the one built-in kinds get: this operator does not own those objects.
use std::path::Path;

use k8s_openapi_kopium::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::Value as Json;

use crate::cli::CreateApiArgs;
use crate::error::{Error, Result};
use crate::project::EXTERNAL_CRD_DIR;
use crate::yaml;

/// Larger CRD files than this are refused before reading (the biggest real CRDs, such as
/// Prometheus' or Strimzi's, are under 2 MiB).
const MAX_CRD_BYTES: u64 = 8 << 20;
/// More documents than this in one file are refused.
const MAX_DOCUMENTS: usize = 500;

/// One version of one kind of an external CRD.
pub struct ExternalCrd {
    crd: CustomResourceDefinition,
    /// The chosen CRD document as the file has it, for the copy the project keeps.
    document: Json,
    /// The file as the user named it, for messages and the generated header.
    pub source: String,
    /// The API group, e.g. `externaldns.k8s.io`.
    pub api_group: String,
    pub version: String,
    pub kind: String,
    pub plural: String,
    pub namespaced: bool,
}

impl ExternalCrd {
    /// Read `path` and pick the CRD and version `--group`, `--version` and `--kind` name;
    /// each may be left out when the file leaves no choice (the version then is the one
    /// the API server stores).
    pub fn load(path: &Path, args: &CreateApiArgs) -> Result<ExternalCrd> {
        let source = path.display().to_string();
        let text = read_bounded(path)?;
        let crds = custom_resource_definitions(&text)
            .map_err(|e| Error::invalid(format!("--external-api-crd {source}: {e}")))?;
        let chosen = choose(&crds, args)
            .map_err(|e| Error::invalid(format!("--external-api-crd {source}: {e}")))?;
        let crd: CustomResourceDefinition =
            serde_json::from_value(chosen.clone()).map_err(|e| {
                Error::invalid(format!(
                    "--external-api-crd {source}: not a valid apiextensions.k8s.io/v1 CustomResourceDefinition: {e}"
                ))
            })?;
        let version = pick_version(&crd, args.version.as_deref())
            .map_err(|e| Error::invalid(format!("--external-api-crd {source}: {e}")))?;
        Ok(ExternalCrd {
            api_group: crd.spec.group.clone(),
            kind: crd.spec.names.kind.clone(),
            plural: crd.spec.names.plural.clone(),
            namespaced: crd.spec.scope == "Namespaced",
            version,
            source,
            crd,
            document: chosen.clone(),
        })
    }

    /// Where the project keeps this CRD, the input `alpha generate` replays the command
    /// from: `config/crd/external/<group>_<plural>.yaml`, named as controller-gen names
    /// CRD files. Outside config/crd/bases, so no kustomization installs it: the CRD is the
    /// other project's to install.
    pub fn kept_path(&self) -> String {
        format!("{EXTERNAL_CRD_DIR}/{}_{}.yaml", self.api_group, self.plural)
    }

    /// The CRD document the types come from, as YAML: the file may hold others.
    pub fn kept_text(&self) -> Result<String> {
        yaml::to_string(&self.document).map_err(|e| {
            Error::invalid(format!(
                "--external-api-crd {}: cannot write its {} CRD back as YAML ({e}); pass a file with that CRD alone",
                self.source, self.kind
            ))
        })
    }

    /// The group as kubebuilder's `--group` spells it: the API group's first label.
    pub fn group_label(&self) -> &str {
        self.api_group.split('.').next().unwrap_or(&self.api_group)
    }

    /// The rest of the API group, kubebuilder's `--external-api-domain` (`k8s.io`).
    pub fn domain(&self) -> Option<&str> {
        self.api_group.split_once('.').map(|(_, rest)| rest)
    }

    /// The name kopium gives the root type: the kind in upper camel case (`DNSEndpoint`
    /// becomes `DnsEndpoint`).
    pub fn type_name(&self) -> String {
        heck::ToUpperCamelCase::to_upper_camel_case(self.kind.as_str())
    }

    /// The Rust types of this version, as kopium writes them, under a header that says
    /// where they came from.
    pub fn rust_types(&self) -> Result<String> {
        let generator = kopium::TypeGenerator::builder()
            .api_version(Some(self.version.clone()))
            .emit_docs(true)
            .smart_derive_elision(true)
            .derive(kopium::Derive::all("Default"))
            .build();
        let types = generator
            .generate_rust_types_for(&self.crd, None::<&str>)
            .map_err(|e| {
                Error::invalid(format!(
                    "--external-api-crd {}: kopium cannot turn its {} schema into Rust types: {e}",
                    self.source, self.version
                ))
            })?;
        Ok(format!(
            "//! Types of `{kind}` ({group}/{version}), another project's API.\n\
             //!\n\
             //! Generated by kopium (`rusty-sdk create api --external-api-crd`) from the CRD kept in\n\
             //! {kept}.\n\
             //! To update them, run that command again with a newer CRD and `--force`.\n\n{types}",
            kind = self.kind,
            group = self.api_group,
            version = self.version,
            kept = self.kept_path(),
        ))
    }
}

/// The flags that cannot go with `--external-api-crd`.
pub fn check_flags(args: &CreateApiArgs) -> Result<()> {
    let conflict = if args.resource == Some(true) {
        Some("--resource (the CRD is the other project's; its types are generated from it)")
    } else if args.controller == Some(false) {
        Some("--controller=false (a controller is what it scaffolds)")
    } else if args.image.is_some() {
        Some("--image")
    } else if args.plural.is_some() {
        Some("--plural (the CRD names its plural)")
    } else if args.helm_chart.is_some() || args.helm_chart_repo.is_some() {
        Some("--helm-chart")
    } else {
        None
    };
    match conflict {
        Some(flag) => Err(Error::invalid(format!(
            "--external-api-crd cannot go with {flag}; drop one of the two"
        ))),
        None => Ok(()),
    }
}

fn read_bounded(path: &Path) -> Result<String> {
    let source = path.display();
    let size = std::fs::metadata(path).map_err(|e| {
        Error::invalid(format!(
            "--external-api-crd {source}: cannot read it ({e}); pass the path of a CRD file"
        ))
    })?;
    if size.len() > MAX_CRD_BYTES {
        return Err(Error::invalid(format!(
            "--external-api-crd {source}: {} bytes, more than the {MAX_CRD_BYTES} a CRD file may have; pass the file of the one CRD you need",
            size.len()
        )));
    }
    let bytes = crate::scaffold::input::read_named(path, MAX_CRD_BYTES).map_err(|e| {
        Error::invalid(format!(
            "--external-api-crd {source}: cannot read it ({e}); pass the path of a CRD file"
        ))
    })?;
    String::from_utf8(bytes).map_err(|_| {
        Error::invalid(format!(
            "--external-api-crd {source}: not UTF-8 text; pass a CRD in YAML or JSON"
        ))
    })
}

/// Every `CustomResourceDefinition` document of `text`; another kind of document is skipped,
/// a v1beta1 CRD is refused.
fn custom_resource_definitions(text: &str) -> std::result::Result<Vec<Json>, String> {
    let documents: Vec<yaml::Value> = yaml::documents(text, MAX_DOCUMENTS)
        .map_err(|e| format!("not valid YAML ({e}); pass a CRD file, not a template"))?;
    let mut crds = Vec::new();
    for document in documents {
        let json = serde_json::to_value(&document).map_err(|e| e.to_string())?;
        if json.get("kind").and_then(Json::as_str) != Some("CustomResourceDefinition") {
            continue;
        }
        let api_version = json.get("apiVersion").and_then(Json::as_str).unwrap_or("");
        if api_version != "apiextensions.k8s.io/v1" {
            return Err(format!(
                "its CustomResourceDefinition is {api_version:?}, which Kubernetes no longer serves; pass an apiextensions.k8s.io/v1 CRD"
            ));
        }
        crds.push(json);
    }
    if crds.is_empty() {
        return Err("no CustomResourceDefinition in it; pass the CRD of the kind to watch".into());
    }
    Ok(crds)
}

/// The CRD `--kind` (and `--group`, as a full API group or its first label) name, or the
/// only one.
fn choose<'a>(crds: &'a [Json], args: &CreateApiArgs) -> std::result::Result<&'a Json, String> {
    let field =
        |crd: &'a Json, pointer: &str| crd.pointer(pointer).and_then(Json::as_str).unwrap_or("");
    let matches: Vec<&Json> = crds
        .iter()
        .filter(|crd| {
            args.kind
                .as_deref()
                .is_none_or(|k| field(crd, "/spec/names/kind") == k)
        })
        .filter(|crd| {
            args.group.as_deref().is_none_or(|g| {
                let group = field(crd, "/spec/group");
                match args.external_api_domain.as_deref() {
                    // kubebuilder's spelling: --group cert-manager --external-api-domain io.
                    Some(domain) => group == format!("{g}.{domain}"),
                    None => group == g || group.split('.').next() == Some(g),
                }
            })
        })
        .collect();
    let kinds = || {
        crds.iter()
            .map(|crd| {
                format!(
                    "{} ({})",
                    field(crd, "/spec/names/kind"),
                    field(crd, "/spec/group")
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    match matches.as_slice() {
        [one] => Ok(one),
        [] => Err(format!(
            "it has no CRD for {}; it defines {}",
            wanted(args),
            kinds()
        )),
        _ => Err(format!(
            "it defines several kinds ({}); pick one with --kind (and --group)",
            kinds()
        )),
    }
}

fn wanted(args: &CreateApiArgs) -> String {
    let domain = args
        .external_api_domain
        .as_deref()
        .map(|d| format!(" --external-api-domain {d}"))
        .unwrap_or_default();
    match (args.group.as_deref(), args.kind.as_deref()) {
        (Some(g), Some(k)) => format!("--group {g}{domain} --kind {k}"),
        (None, Some(k)) => format!("--kind {k}"),
        (Some(g), None) => format!("--group {g}{domain}"),
        (None, None) => "any kind".into(),
    }
}

/// `--version` if the CRD serves it, else the version the API server stores.
fn pick_version(
    crd: &CustomResourceDefinition,
    flag: Option<&str>,
) -> std::result::Result<String, String> {
    let versions = &crd.spec.versions;
    let names = || {
        versions
            .iter()
            .map(|v| v.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match flag {
        Some(v) if versions.iter().any(|cv| cv.name == v) => Ok(v.to_string()),
        Some(v) => Err(format!(
            "{} has no version {v}; it has {}",
            crd.spec.names.kind,
            names()
        )),
        None => versions
            .iter()
            .find(|v| v.storage)
            .or_else(|| versions.first())
            .map(|v| v.name.clone())
            .ok_or_else(|| format!("{} lists no versions", crd.spec.names.kind)),
    }
}
