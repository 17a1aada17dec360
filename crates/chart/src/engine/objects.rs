//! The top-level objects a template sees, as Helm defines them: `.Values` (a
//! `common.Values` map with its methods), `.Release`, `.Chart` (metadata as a map plus
//! `IsRoot`), `.Capabilities` (a struct with `KubeVersion`, `APIVersions` and
//! `HelmVersion`), `.Files` (a `files` map with `Get`, `GetBytes`, `Glob`, `Lines`,
//! `AsConfig`, `AsSecrets`) and `.Template`.
use std::sync::{Arc, OnceLock};

use gotemplate::{Error, MapMethods, MapRef, Object, StructField, Value};

use super::{Capabilities, RenderOptions};
use crate::chart::Chart;
use crate::convert::{map, string, to_template};
use crate::funcs::{files, yaml_emit};
use crate::metadata::ChartMetadata;

fn strings(items: &[String]) -> Value {
    Value::List(items.iter().map(|s| string(s)).collect())
}

/// `.Chart`: Helm 4 exposes the metadata as a map with these keys (plus `IsRoot`).
pub fn chart_object(meta: &ChartMetadata, is_root: bool) -> Value {
    let maintainers = meta
        .maintainers
        .iter()
        .map(|m| {
            map([
                ("Name", string(&m.name)),
                ("Email", string(&m.email)),
                ("URL", string(&m.url)),
            ])
        })
        .collect();
    let dependencies = meta
        .dependencies
        .iter()
        .map(|d| {
            map([
                ("Name", string(&d.name)),
                ("Version", string(&d.version)),
                ("Repository", string(&d.repository)),
                ("Condition", string(&d.condition)),
                ("Tags", strings(&d.tags)),
                ("Enabled", Value::Bool(true)),
                (
                    "ImportValues",
                    Value::List(d.import_values.iter().map(to_template).collect()),
                ),
                ("Alias", string(&d.alias)),
            ])
        })
        .collect();
    // Helm's Metadata.Annotations is a map[string]string, nil when Chart.yaml has none.
    let annotations = Value::Map(if meta.annotations_nil {
        MapRef::nil_of_type("map[string]string")
    } else {
        MapRef::new(
            meta.annotations
                .iter()
                .map(|(k, v)| (Arc::from(k.as_str()), string(v)))
                .collect(),
        )
        .with_type_name("map[string]string")
    });
    map([
        ("APIVersion", string(&meta.api_version)),
        ("Annotations", annotations),
        ("AppVersion", string(&meta.app_version)),
        ("Condition", string(&meta.condition)),
        ("Dependencies", Value::List(dependencies)),
        ("Deprecated", Value::Bool(meta.deprecated)),
        ("Description", string(&meta.description)),
        ("Home", string(&meta.home)),
        ("Icon", string(&meta.icon)),
        ("IsRoot", Value::Bool(is_root)),
        ("Keywords", strings(&meta.keywords)),
        ("KubeVersion", string(&meta.kube_version)),
        ("Maintainers", Value::List(maintainers)),
        ("Name", string(&meta.name)),
        ("Sources", strings(&meta.sources)),
        ("Tags", string(&meta.tags)),
        ("Type", string(&meta.chart_type)),
        ("Version", string(&meta.version)),
    ])
}

pub fn release_object(opts: &RenderOptions) -> Value {
    map([
        ("IsInstall", Value::Bool(opts.is_install)),
        ("IsUpgrade", Value::Bool(opts.is_upgrade)),
        ("Name", string(&opts.release_name)),
        ("Namespace", string(&opts.namespace)),
        ("Revision", Value::Int(opts.revision)),
        ("Service", string("Helm")),
    ])
}

fn wrong_args(method: &str, want: usize, got: usize) -> Error {
    Error::Exec(format!(
        "wrong number of args for {method}: want {want} got {got}"
    ))
}

fn string_arg(v: &Value) -> Result<String, Error> {
    match v {
        Value::String(s) => Ok(s.to_string()),
        Value::Nil => Err(Error::Exec("invalid value; expected string".into())),
        other => Err(Error::Exec(format!(
            "wrong type for value; expected string; got {}",
            other.type_name()
        ))),
    }
}

/// Go's `*common.Capabilities`.
struct CapabilitiesObject {
    kube: Value,
    api_versions: Value,
    helm: Value,
}

impl Object for CapabilitiesObject {
    fn type_name(&self) -> &'static str {
        "*common.Capabilities"
    }
    fn field(&self, name: &str) -> Option<Value> {
        match name {
            "KubeVersion" => Some(self.kube.clone()),
            "APIVersions" => Some(self.api_versions.clone()),
            "HelmVersion" => Some(self.helm.clone()),
            _ => None,
        }
    }
    fn call_method(&self, name: &str, args: &[Value]) -> Option<Result<Value, Error>> {
        (name == "Copy").then(|| {
            if args.is_empty() {
                Ok(Value::Nil)
            } else {
                Err(wrong_args(name, 0, args.len()))
            }
        })
    }
    fn has_method(&self, name: &str) -> bool {
        name == "Copy"
    }
    fn method_signature(&self, _: &str) -> Option<&'static str> {
        Some("func() *common.Capabilities")
    }
    fn go_string(&self) -> String {
        format!("{{{} {} {}}}", self.kube, self.api_versions, self.helm)
    }
    fn pointer_to_struct(&self) -> bool {
        true
    }
    fn to_data(&self) -> Value {
        let data = |v: &Value| match v {
            Value::Object(o) => o.to_data(),
            other => other.clone(),
        };
        map([
            ("APIVersions", data(&self.api_versions)),
            ("HelmVersion", data(&self.helm)),
            ("KubeVersion", data(&self.kube)),
        ])
    }
    fn json_fields(&self) -> Option<Vec<(&'static str, Value)>> {
        Some(vec![
            ("KubeVersion", self.kube.clone()),
            ("APIVersions", self.api_versions.clone()),
            ("HelmVersion", self.helm.clone()),
        ])
    }
    fn struct_fields(&self) -> Option<Vec<StructField>> {
        Some(struct_fields([
            (0, "KubeVersion", self.kube.clone()),
            (1, "APIVersions", self.api_versions.clone()),
            (2, "HelmVersion", self.helm.clone()),
        ]))
    }
}

/// A struct's exported fields from (index, Go name, value).
fn struct_fields<const N: usize>(fields: [(usize, &'static str, Value); N]) -> Vec<StructField> {
    fields
        .into_iter()
        .map(|(index, name, value)| StructField {
            name,
            index,
            value: Ok(value),
        })
        .collect()
}

/// Go's `common.KubeVersion`: its `String` (declared on the pointer) gives the version
/// without suffixes, which templates print; fmt prints its fields.
struct KubeVersionObject {
    version: String,
    major: String,
    minor: String,
}

impl KubeVersionObject {
    /// Helm's normalized version: `v` and the numeric components of the version
    /// (k8s.io's generic parse), so `v1.33.4-gke.1245000` is `v1.33.4`.
    fn normalized(&self) -> String {
        let digits = self.version.trim_start_matches('v');
        let numeric: Vec<String> = digits
            .split('.')
            .map_while(|part| {
                let n: String = part.chars().take_while(char::is_ascii_digit).collect();
                let whole = n.len() == part.len();
                (!n.is_empty()).then(|| (n.trim_start_matches('0').to_string(), whole))
            })
            .scan(true, |go_on, (n, whole)| {
                let keep = *go_on;
                *go_on = whole;
                keep.then(|| if n.is_empty() { "0".to_string() } else { n })
            })
            .collect();
        format!("v{}", numeric.join("."))
    }
}

impl Object for KubeVersionObject {
    fn type_name(&self) -> &'static str {
        "common.KubeVersion"
    }
    fn field(&self, name: &str) -> Option<Value> {
        match name {
            "Version" => Some(string(&self.version)),
            "Major" => Some(string(&self.major)),
            "Minor" => Some(string(&self.minor)),
            _ => None,
        }
    }
    fn call_method(&self, name: &str, args: &[Value]) -> Option<Result<Value, Error>> {
        matches!(name, "String" | "GitVersion").then(|| {
            if !args.is_empty() {
                return Err(wrong_args(name, 0, args.len()));
            }
            Ok(if name == "String" {
                string(&self.normalized())
            } else {
                string(&self.version)
            })
        })
    }
    fn has_method(&self, name: &str) -> bool {
        matches!(name, "String" | "GitVersion")
    }
    fn method_signature(&self, _: &str) -> Option<&'static str> {
        Some("func() string")
    }
    fn go_string(&self) -> String {
        format!(
            "{{{} {} {} {}}}",
            self.version,
            self.normalized(),
            self.major,
            self.minor
        )
    }
    fn template_string(&self) -> String {
        self.normalized()
    }
    fn to_data(&self) -> Value {
        map([
            ("Major", string(&self.major)),
            ("Minor", string(&self.minor)),
            ("Version", string(&self.version)),
        ])
    }
    /// `GitVersion` is `json:"-"`.
    fn json_fields(&self) -> Option<Vec<(&'static str, Value)>> {
        Some(vec![
            ("Version", string(&self.version)),
            ("Major", string(&self.major)),
            ("Minor", string(&self.minor)),
        ])
    }
    /// Field 1 is the unexported `normalizedVersion`.
    fn struct_fields(&self) -> Option<Vec<StructField>> {
        Some(struct_fields([
            (0, "Version", string(&self.version)),
            (2, "Major", string(&self.major)),
            (3, "Minor", string(&self.minor)),
        ]))
    }
}

/// Go's `common.VersionSet` (a `[]string` with `Has`).
struct VersionSet(Arc<[Value]>);

impl Object for VersionSet {
    fn type_name(&self) -> &'static str {
        "common.VersionSet"
    }
    fn call_method(&self, name: &str, args: &[Value]) -> Option<Result<Value, Error>> {
        (name == "Has").then(|| {
            let [wanted] = args else {
                return Err(wrong_args(name, 1, args.len()));
            };
            let wanted = string_arg(wanted)?;
            Ok(Value::Bool(
                self.0.iter().any(|v| v.as_str() == Some(wanted.as_str())),
            ))
        })
    }
    fn has_method(&self, name: &str) -> bool {
        name == "Has"
    }
    fn method_signature(&self, _: &str) -> Option<&'static str> {
        Some("func(string) bool")
    }
    fn go_string(&self) -> String {
        gotemplate::fmt::sprint_value(&Value::List(self.0.clone()))
    }
    fn as_list(&self) -> Option<Arc<[Value]>> {
        Some(self.0.clone())
    }
    fn to_data(&self) -> Value {
        Value::List(self.0.clone())
    }
}

/// Go's `version.BuildInfo` struct.
struct BuildInfo([String; 5]);

const BUILD_INFO_FIELDS: [&str; 5] = [
    "Version",
    "GitCommit",
    "GitTreeState",
    "GoVersion",
    "KubeClientVersion",
];

impl Object for BuildInfo {
    fn type_name(&self) -> &'static str {
        "version.BuildInfo"
    }
    fn field(&self, name: &str) -> Option<Value> {
        BUILD_INFO_FIELDS
            .iter()
            .position(|f| *f == name)
            .map(|i| string(&self.0[i]))
    }
    fn go_string(&self) -> String {
        format!("{{{}}}", self.0.join(" "))
    }
    fn to_data(&self) -> Value {
        let entries = self
            .json_fields()
            .unwrap_or_default()
            .into_iter()
            .map(|(key, v)| (Arc::from(key), v))
            .collect();
        Value::Map(MapRef::new(entries))
    }
    /// Go's JSON tags: `version`, `git_commit`, `git_tree_state`, `go_version` (all
    /// omitempty) and `kube_client_version`.
    fn json_fields(&self) -> Option<Vec<(&'static str, Value)>> {
        const JSON: [&str; 5] = [
            "version",
            "git_commit",
            "git_tree_state",
            "go_version",
            "kube_client_version",
        ];
        Some(
            JSON.iter()
                .zip(&self.0)
                .filter(|(key, v)| !v.is_empty() || **key == "kube_client_version")
                .map(|(key, v)| (*key, string(v)))
                .collect(),
        )
    }
    fn struct_fields(&self) -> Option<Vec<StructField>> {
        Some(
            BUILD_INFO_FIELDS
                .iter()
                .zip(&self.0)
                .enumerate()
                .map(|(index, (name, v))| StructField {
                    name,
                    index,
                    value: Ok(string(v)),
                })
                .collect(),
        )
    }
}

/// A Go string holding bytes that are not UTF-8 (a binary file read with
/// `.Files.Get`): prints as Go prints it, and keeps its bytes for `b64enc`.
struct RawString(Vec<u8>);

impl Object for RawString {
    fn type_name(&self) -> &'static str {
        "string"
    }
    fn go_string(&self) -> String {
        String::from_utf8_lossy(&self.0).into_owned()
    }
    fn to_data(&self) -> Value {
        string(&self.go_string())
    }
    fn as_bytes(&self) -> Option<&[u8]> {
        Some(&self.0)
    }
}

pub fn capabilities_object(caps: &Capabilities) -> Value {
    let kube = &caps.kube_version;
    let helm = &caps.helm_version;
    Value::Object(Arc::new(CapabilitiesObject {
        kube: Value::Object(Arc::new(KubeVersionObject {
            version: kube.version.clone(),
            major: kube.major.clone(),
            minor: kube.minor.clone(),
        })),
        api_versions: Value::Object(Arc::new(VersionSet(
            caps.api_versions.iter().map(|s| string(s)).collect(),
        ))),
        helm: Value::Object(Arc::new(BuildInfo([
            helm.version.clone(),
            helm.git_commit.clone(),
            helm.git_tree_state.clone(),
            helm.go_version.clone(),
            helm.kube_client_version.clone(),
        ]))),
    }))
}

/// `.Files`: every file of the chart outside templates/, charts/ and the chart's own
/// Chart.yaml/values files, by chart-relative path, with Helm's `files` methods. Like
/// Helm's `map[string][]byte`, each file is its bytes: printed as a list of numbers,
/// serialized as base64, read as text by `Get`.
pub fn files_object(chart: &Chart) -> Value {
    let entries = (0..chart.files.len())
        .map(|i| {
            let file = Bytes::Chart(Arc::clone(&chart.files), i);
            let name = Arc::from(chart.files[i].name.as_str());
            (name, Value::Object(Arc::new(file)))
        })
        .collect();
    Value::Map(files_map(&MapRef::new(entries)))
}

/// Go's `[]byte` as a template value.
fn byte_slice(data: Vec<u8>) -> Value {
    Value::Object(Arc::new(Bytes::Owned(data)))
}

/// Go's `[]byte`: a slice of numbers to fmt and `range`, a string to `%s`, base64 to
/// encoding/json. A chart's file is read where the chart holds it, not copied.
enum Bytes {
    Chart(Arc<Vec<crate::ChartFile>>, usize),
    Owned(Vec<u8>),
}

impl Object for Bytes {
    fn type_name(&self) -> &'static str {
        "[]uint8"
    }
    fn go_string(&self) -> String {
        gotemplate::fmt::sprint_value(&Value::List(self.items()))
    }
    fn as_list(&self) -> Option<Arc<[Value]>> {
        Some(self.items())
    }
    fn as_bytes(&self) -> Option<&[u8]> {
        Some(self.data())
    }
    fn to_data(&self) -> Value {
        string(&files::base64(self.data()))
    }
}

impl Bytes {
    fn data(&self) -> &[u8] {
        match self {
            Bytes::Chart(files, i) => files.get(*i).map_or(&[][..], |f| &f.data),
            Bytes::Owned(data) => data,
        }
    }

    fn items(&self) -> Arc<[Value]> {
        self.data()
            .iter()
            .map(|b| Value::Uint(u64::from(*b)))
            .collect()
    }
}

fn files_map(m: &MapRef) -> MapRef {
    static METHODS: OnceLock<MapMethods> = OnceLock::new();
    m.with_methods_of_type(
        METHODS.get_or_init(|| Arc::new(files_method)).clone(),
        "engine.files",
    )
    .with_method_signatures(files_signature)
}

/// Go's types of Helm's `files` methods, so that their arguments are checked as Go does.
fn files_signature(name: &str) -> Option<&'static str> {
    Some(match name {
        "Get" => "func(string) string",
        "GetBytes" => "func(string) []uint8",
        "Glob" => "func(string) engine.files",
        "Lines" => "func(string) []string",
        "AsConfig" | "AsSecrets" => "func() string",
        _ => return None,
    })
}

fn files_method(m: &MapRef, name: &str, args: &[Value]) -> Option<Result<Value, Error>> {
    let one_string = |args: &[Value]| -> Result<String, Error> {
        match args {
            [v] => string_arg(v),
            _ => Err(wrong_args(name, 1, args.len())),
        }
    };
    let no_args = |args: &[Value]| {
        if args.is_empty() {
            Ok(())
        } else {
            Err(wrong_args(name, 0, args.len()))
        }
    };
    Some(match name {
        "Get" => one_string(args).map(|path| {
            let data = files::bytes(m.get(&path).as_ref());
            match String::from_utf8(data) {
                Ok(text) => string(&text),
                Err(e) => Value::Object(Arc::new(RawString(e.into_bytes()))),
            }
        }),
        "GetBytes" => one_string(args).map(|path| byte_slice(files::bytes(m.get(&path).as_ref()))),
        "Glob" => one_string(args).map(|pattern| Value::Map(files_map(&files::glob(m, &pattern)))),
        "Lines" => one_string(args).map(|path| files::lines(m.get(&path).as_ref())),
        "AsConfig" => no_args(args).map(|()| files::as_config(m)),
        "AsSecrets" => no_args(args).map(|()| files::as_secrets(m)),
        _ => return None,
    })
}

/// `.Values` as Helm's `common.Values`, with its methods.
pub fn values_map(m: &MapRef) -> MapRef {
    static METHODS: OnceLock<MapMethods> = OnceLock::new();
    m.with_methods(METHODS.get_or_init(|| Arc::new(values_method)).clone())
        .with_method_signatures(values_signature)
}

/// Go's types of `common.Values`' methods.
fn values_signature(name: &str) -> Option<&'static str> {
    Some(match name {
        "AsMap" => "func() map[string]interface {}",
        "YAML" => "func() (string, error)",
        "Table" => "func(string) (common.Values, error)",
        "PathValue" => "func(string) (interface {}, error)",
        _ => return None,
    })
}

fn values_method(m: &MapRef, name: &str, args: &[Value]) -> Option<Result<Value, Error>> {
    let no_args = || {
        if args.is_empty() {
            Ok(())
        } else {
            Err(wrong_args(name, 0, args.len()))
        }
    };
    let one_string = || match args {
        [v] => string_arg(v),
        _ => Err(wrong_args(name, 1, args.len())),
    };
    Some(match name {
        "AsMap" => no_args().map(|()| Value::Map(m.plain())),
        "YAML" => no_args().map(|()| string(&yaml_emit::to_yaml(&Value::Map(m.plain())))),
        "Table" => {
            one_string().and_then(|path| table(m, &path).map(|t| Value::Map(values_map(&t))))
        }
        "PathValue" => one_string().and_then(|path| path_value(m, &path)),
        _ => return None,
    })
}

/// Go's Values.Table: the nested map at a dotted path.
fn table(m: &MapRef, path: &str) -> Result<MapRef, Error> {
    let mut current = m.plain();
    for key in path.split('.') {
        match current.get(key) {
            Some(Value::Map(next)) => current = next.plain(),
            _ => {
                return Err(Error::call(format!(
                    "{} is not a table",
                    crate::gofmt::go_quote(key)
                )));
            }
        }
    }
    Ok(current)
}

/// Go's Values.PathValue: a non-table value at a dotted path.
fn path_value(m: &MapRef, path: &str) -> Result<Value, Error> {
    if path.is_empty() {
        return Err(Error::call("YAML path cannot be empty"));
    }
    let (parents, key) = match path.rsplit_once('.') {
        Some((p, k)) => (Some(p), k),
        None => (None, path),
    };
    let no_value = || Error::call(format!("{} is not a value", crate::gofmt::go_quote(key)));
    let t = match parents {
        Some(p) => table(m, p).map_err(|_| no_value())?,
        None => m.plain(),
    };
    match t.get(key) {
        Some(Value::Map(_)) | None => Err(no_value()),
        Some(v) => Ok(v),
    }
}
