//! `rusty-sdk create api --plugins helm`: the tutorial's Memcached API, charts from a
//! directory, a .tgz and the network, re-runs, failures and every error message.
//! This module holds the shared helpers; each submodule one theme.
mod charts;
mod e2e;
mod errors;
mod http_server;
mod init;
mod remote;
mod tutorial;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{read_tree, rusty, snapshot_settings, transcript};

const CREATE_MEMCACHED: &[&str] = &[
    "create",
    "api",
    "--plugins",
    "helm",
    "--group",
    "cache",
    "--version",
    "v1",
    "--kind",
    "Memcached",
];

/// A fresh hybrid project, as the tutorial's `init` makes it.
fn hybrid_project() -> (tempfile::TempDir, PathBuf) {
    hybrid_project_named("memcached-operator")
}

fn hybrid_project_named(name: &str) -> (tempfile::TempDir, PathBuf) {
    let (dir, root) = crate::e2e::project_dir(name);
    let output = rusty(&root)
        .args(["init", "--plugins=hybrid.helm", "--domain", "my.domain"])
        .args(["--repo", "github.com/example/memcached-operator"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", transcript(&output, &root));
    (dir, root)
}

fn run(root: &Path, args: &[&str]) -> std::process::Output {
    rusty(root).args(args).output().unwrap()
}

fn run_ok(root: &Path, args: &[&str]) -> std::process::Output {
    let output = run(root, args);
    assert!(output.status.success(), "{}", transcript(&output, root));
    output
}

fn helm_api(extra: &[&str]) -> Vec<String> {
    ["create", "api", "--plugins", "helm"]
        .iter()
        .chain(extra)
        .map(std::string::ToString::to_string)
        .collect()
}

fn yaml_file(root: &Path, path: &str) -> Value {
    let text = std::fs::read_to_string(root.join(path)).unwrap();
    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}\n{text}"))
}

/// The CRD's spec schema (first version).
fn crd_spec_schema(root: &Path, crd: &str) -> Value {
    let crd = yaml_file(root, crd);
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"].clone()
}

/// Files that differ between two trees (added or changed), with their new bytes.
fn changed(
    before: &BTreeMap<String, Vec<u8>>,
    after: &BTreeMap<String, Vec<u8>>,
) -> BTreeMap<String, Vec<u8>> {
    after
        .iter()
        .filter(|(path, bytes)| before.get(*path) != Some(*bytes))
        .map(|(p, b)| (p.clone(), b.clone()))
        .collect()
}

fn write_files(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// A .tgz as `helm package` makes it: every file under a `<name>/` folder.
fn tgz(name: &str, files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (path, data) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        builder
            .append_data(&mut header, format!("{name}/{path}"), *data)
            .unwrap();
    }
    let tar = builder.into_inner().unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&tar).unwrap();
    gz.finish().unwrap()
}

const WEB_CHART: &[(&str, &str)] = &[
    (
        "Chart.yaml",
        "apiVersion: v2\nname: web-app\nversion: 0.1.0\nappVersion: \"2.0\"\n",
    ),
    (
        "values.yaml",
        "# How many pods\nreplicas: 2\nimage:\n  repository: example/web\n  tag: \"2.0\"\nextraEnv: []\n",
    ),
    (
        "templates/deployment.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  replicas: {{ .Values.replicas }}\n",
    ),
];
