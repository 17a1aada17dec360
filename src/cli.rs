//! The command line, as clap derive structs only; validation happens in the commands.
#![expect(
    clippy::doc_markdown,
    reason = "clap prints these doc comments as --help text, where backticks would show"
)]
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::ui::ColorChoice;

/// Scaffold Kubernetes operators in Rust on kube-rs: Rust controllers, Helm charts
/// reconciled per custom resource, or both in one binary.
#[derive(Debug, Parser)]
#[command(name = "rusty-sdk", version, max_term_width = 100)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args, Clone)]
#[command(next_help_heading = "Global options")]
#[expect(
    clippy::struct_excessive_bools,
    reason = "each is a command-line switch"
)]
pub struct GlobalArgs {
    /// Run as if started in DIR (created by `init` if missing)
    #[arg(short = 'C', long = "directory", value_name = "DIR", global = true)]
    pub directory: Option<PathBuf>,
    /// Print what would change, write nothing
    #[arg(long, global = true)]
    pub dry_run: bool,
    /// Also print a unified diff of every file that would change
    #[arg(long, global = true)]
    pub diff: bool,
    /// Overwrite files this command owns even if they were changed since
    #[arg(long, global = true)]
    pub force: bool,
    /// Never prompt; a missing answer is an error naming the flag to pass
    #[arg(long, global = true)]
    pub no_interactive: bool,
    /// Print nothing but errors
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Print more detail
    #[arg(short, long, global = true)]
    pub verbose: bool,
    /// When to use colours
    #[arg(long, value_enum, default_value_t, global = true, value_name = "WHEN")]
    pub color: ColorChoice,
}

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Create a new operator project in the current directory
    #[command(after_help = "Examples:\n  \
        rusty-sdk init --plugins hybrid.helm --domain my.domain \\\n      \
            --repo github.com/example/memcached-operator\n  \
        rusty-sdk init --plugins rust --domain example.com --project-name widget-operator\n  \
        rusty-sdk -C ./nginx-operator init --plugins helm\n  \
        rusty-sdk init --plugins helm --group demo --version v1 --kind Nginx   # and its API")]
    Init(InitArgs),
    /// Add something to the project
    #[command(subcommand)]
    Create(CreateCommand),
    /// Regenerate files derived from the project
    #[command(subcommand)]
    Generate(GenerateCommand),
    /// Change a setting of an existing project, or add a Helm chart of the operator or
    /// Grafana dashboards
    #[command(after_help = "Examples:\n  \
        rusty-sdk edit --namespaced          # scope the manager to its own namespace\n  \
        rusty-sdk edit --namespaced=false    # watch every namespace again\n  \
        rusty-sdk edit --plugins=helm/v2-alpha   # a Helm chart of the operator in dist/chart\n  \
        rusty-sdk edit --plugins=grafana/v1-alpha   # Grafana dashboards of the operator's metrics in grafana/")]
    Edit(EditArgs),
    /// Check an OLM bundle
    #[command(subcommand)]
    Bundle(BundleCommand),
    /// Experimental: re-scaffold the project, or upgrade it to this rusty-sdk
    #[command(subcommand)]
    Alpha(AlphaCommand),
    /// Print rusty-sdk's version
    Version,
    /// Print a shell completion script
    Completion {
        /// The shell to complete for
        shell: clap_complete::Shell,
    },
}

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum AlphaCommand {
    /// Scaffold the project afresh from its PROJECT file with this rusty-sdk: init, then
    /// every API, webhook and plugin PROJECT records, in order
    #[command(after_help = "Examples:\n  \
        rusty-sdk alpha generate --output-dir ../memcached-operator-fresh\n  \
        rusty-sdk alpha generate --dry-run --diff      # what differs from a fresh scaffold")]
    Generate(AlphaGenerateArgs),
    /// Upgrade the project to this rusty-sdk: a three-way merge of your tree with the
    /// scaffolds of the version that made it and of this one
    #[command(after_help = "Examples:\n  \
        rusty-sdk alpha update                         # from PROJECT's cliVersion\n  \
        rusty-sdk alpha update --from-binary ~/old/rusty-sdk --dry-run --diff\n  \
        rusty-sdk alpha update --from-version 0.1.0")]
    Update(AlphaUpdateArgs),
}

#[derive(Debug, Args)]
pub struct AlphaGenerateArgs {
    /// The project whose PROJECT file is replayed [default: the project directory]
    #[arg(long, value_name = "DIR")]
    pub input_dir: Option<PathBuf>,
    /// Where the fresh scaffold goes [default: the input directory, where files you
    /// changed are conflicts unless --force]
    #[arg(long, value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct AlphaUpdateArgs {
    /// The rusty-sdk release that made the project, installed with `cargo install` into
    /// the cache [default: PROJECT's cliVersion]
    #[arg(long, value_name = "VERSION", conflicts_with = "from_binary")]
    pub from_version: Option<String>,
    /// An older rusty-sdk executable to replay the project with (works offline)
    #[arg(long, value_name = "PATH")]
    pub from_binary: Option<PathBuf>,
    /// The rusty-sdk release to update to, installed with `cargo install` into the cache
    /// [default: this rusty-sdk]
    #[arg(long, value_name = "VERSION", conflicts_with = "to_binary")]
    pub to_version: Option<String>,
    /// The rusty-sdk executable to update to [default: this rusty-sdk]
    #[arg(long, value_name = "PATH")]
    pub to_binary: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct EditArgs {
    /// Scope the manager to its own namespace (Role and RoleBinding, WATCH_NAMESPACE from
    /// the pod), or with `=false` let it watch every namespace again (ClusterRole)
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true",
          value_name = "BOOL")]
    pub namespaced: Option<bool>,
    /// `helm/v2-alpha` (kubebuilder's key; `helm-chart` for short): write a Helm chart of
    /// the operator to dist/chart from dist/install.yaml (`make build-installer`);
    /// `grafana/v1-alpha` (or `grafana.kubebuilder.io/v1-alpha`): write Grafana dashboards of
    /// the manager's metrics to grafana/
    #[arg(long, value_name = "PLUGIN")]
    pub plugins: Option<String>,
    /// With --plugins=helm/v2-alpha: the kustomize output to make the chart from
    #[arg(long, value_name = "FILE", requires = "plugins")]
    pub manifests: Option<String>,
    /// With --plugins=helm/v2-alpha: the folder the chart goes in (as <DIR>/chart)
    #[arg(long, value_name = "DIR", requires = "plugins")]
    pub output_dir: Option<String>,
    /// kubebuilder's multi-group layout: a Rust project always has it (api/src/<group>),
    /// so this changes nothing, and `=false` is refused
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true",
          value_name = "BOOL")]
    pub multigroup: Option<bool>,
    /// Write hack/boilerplate.txt again with this licence header (as init's --license)
    #[arg(long, value_enum)]
    pub license: Option<License>,
    /// With --license: the copyright holder [default: the one hack/boilerplate.txt names]
    #[arg(long, requires = "license")]
    pub owner: Option<String>,
    /// Write hack/boilerplate.txt again with this file's text, in Rust comments
    #[arg(long, value_name = "FILE", conflicts_with = "license")]
    pub license_file: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Project layout: hybrid.helm, helm or rust (operator-sdk's plugin keys are accepted);
    /// without it, rust, as kubebuilder's and operator-sdk's `init` default to their
    /// language's plugin
    #[arg(long, value_name = "PLUGIN", default_value = "rust")]
    pub plugins: String,
    /// Domain of the API groups (<group>.<domain>)
    #[arg(long, default_value = "my.domain")]
    pub domain: String,
    /// Repository path, e.g. github.com/example/memcached-operator
    #[arg(long)]
    pub repo: Option<String>,
    /// Project name [default: the directory's name]
    #[arg(long)]
    pub project_name: Option<String>,
    /// PROJECT file version (only 3 is supported)
    #[arg(long, default_value = "3")]
    pub project_version: String,
    /// Copyright holder for the licence header [default: "The <project> Authors"]
    #[arg(long)]
    pub owner: Option<String>,
    /// Licence header for generated sources, and the licence Cargo.toml declares
    /// [default: apache2; none with --license-file, whose licence rusty-sdk cannot name]
    #[arg(long, value_enum)]
    pub license: Option<License>,
    /// A licence header of your own, in Rust comments: hack/boilerplate.txt gets its text
    /// instead of the --license header (kubebuilder's)
    #[arg(long, value_name = "FILE")]
    pub license_file: Option<PathBuf>,
    /// kubebuilder's `go mod download` afterwards: rusty-sdk leaves the download to cargo,
    /// so `=false` is accepted and `=true` is refused naming `cargo fetch`
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true",
          value_name = "BOOL")]
    pub fetch_deps: Option<bool>,
    /// kubebuilder's: rusty-sdk checks no Go version (rust-toolchain.toml pins the Rust
    /// release), so this is accepted and changes nothing
    #[arg(long)]
    pub skip_go_version_check: bool,
    /// rusty-sdk-runtime source to link the project to until the crate is published
    /// [default: the runtime this rusty-sdk was built from]
    #[arg(long, value_name = "DIR")]
    pub runtime_path: Option<PathBuf>,
    /// Scope the manager to its own namespace (kubebuilder's `--namespaced`): it watches
    /// only there (WATCH_NAMESPACE from the pod's namespace) and its permissions are a
    /// Role and RoleBinding there instead of a ClusterRole
    #[arg(long)]
    pub namespaced: bool,
    /// kubebuilder's multi-group layout: accepted and changes nothing, as a Rust project
    /// always keeps each group in its own module (api/src/<group>/<version>)
    #[arg(long)]
    pub multigroup: bool,
    /// With --plugins=helm: also create a Helm API, as `create api` with these flags would,
    /// in the same step (operator-sdk's helm plugin): its group [default: charts]
    #[arg(long, help_heading = "First Helm API (helm layout)")]
    pub group: Option<String>,
    /// The first Helm API's version [default: v1alpha1]
    #[arg(long, help_heading = "First Helm API (helm layout)")]
    pub version: Option<String>,
    /// The first Helm API's kind [default: the chart's name in PascalCase]
    #[arg(long, help_heading = "First Helm API (helm layout)")]
    pub kind: Option<String>,
    /// The first Helm API's chart: a directory, a .tgz, repo/name, an https:// URL or
    /// oci:// [default: Helm's starter chart named after the kind]
    #[arg(
        long,
        value_name = "CHART",
        help_heading = "First Helm API (helm layout)"
    )]
    pub helm_chart: Option<String>,
    /// Chart repository URL (with --helm-chart naming a chart in it)
    #[arg(
        long,
        value_name = "URL",
        help_heading = "First Helm API (helm layout)"
    )]
    pub helm_chart_repo: Option<String>,
    /// Chart version (with --helm-chart) [default: latest]
    #[arg(
        long,
        value_name = "VERSION",
        help_heading = "First Helm API (helm layout)"
    )]
    pub helm_chart_version: Option<String>,
    /// operator-sdk's (deprecated there) apiextensions version of the CRD: only v1
    #[arg(
        long,
        value_name = "VERSION",
        value_parser = crd_version,
        help_heading = "First Helm API (helm layout)"
    )]
    pub crd_version: Option<String>,
}

/// operator-sdk's `--crd-version`: `v1` is taken and changes nothing; `v1beta1`, which
/// operator-sdk still takes with a warning, is refused, as Kubernetes 1.22 removed it.
fn crd_version(value: &str) -> Result<String, String> {
    if value == "v1" {
        return Ok(value.to_string());
    }
    Err("rusty-sdk writes apiextensions.k8s.io/v1 CRDs only (Kubernetes 1.22 removed v1beta1): pass --crd-version v1 or leave the flag out".to_string())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum License {
    Apache2,
    None,
}

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum CreateCommand {
    /// Add an API (a custom resource) and optionally its controller
    #[command(after_help = "Examples:\n  \
        rusty-sdk create api --plugins rust --group cache --version v1alpha1 --kind Memcached \\\n      \
            --resource --controller\n  \
        rusty-sdk create api --plugins rust --group cache --version v1alpha1 --kind Memcached \\\n      \
            --image memcached:1.6.26-alpine --image-container-port 11211\n  \
        rusty-sdk create api --plugins helm --group cache --version v1 --kind Nginx\n  \
        rusty-sdk create api --plugins helm --helm-chart bitnami/redis \\\n      \
            --helm-chart-repo https://charts.bitnami.com/bitnami")]
    Api(CreateApiArgs),
    /// Add webhooks (defaulting, validation, conversion) for a Rust API of the project, a
    /// Kubernetes kind or an external one
    #[command(after_help = "Examples:\n  \
        rusty-sdk create webhook --group cache --version v1alpha1 --kind Memcached \\\n      \
            --defaulting --programmatic-validation")]
    Webhook(CreateWebhookArgs),
}

#[derive(Debug, Args)]
pub struct CreateWebhookArgs {
    /// rust, the plugin whose APIs take webhooks (kubebuilder's flag is global; other keys
    /// are refused)
    #[arg(long, value_name = "PLUGIN")]
    pub plugins: Option<String>,
    /// API group of the kind, without the domain (e.g. cache)
    #[arg(long)]
    pub group: Option<String>,
    /// API version of the kind (e.g. v1alpha1)
    #[arg(long)]
    pub version: Option<String>,
    /// Kind, as created with `create api` (e.g. Memcached)
    #[arg(long)]
    pub kind: Option<String>,
    /// A mutating webhook that fills in defaults (a JSON patch)
    #[arg(long)]
    pub defaulting: bool,
    /// A validating webhook for creates and updates (and deletes, once its marker lists them)
    #[arg(long)]
    pub programmatic_validation: bool,
    /// A conversion webhook between --version (the hub, stored) and each --spoke
    #[arg(long)]
    pub conversion: bool,
    /// With --conversion: another version of the kind that converts to and from the hub
    /// (repeated, or comma-separated as kubebuilder takes it)
    #[arg(long, value_name = "VERSION", value_delimiter = ',')]
    pub spoke: Vec<String>,
    /// With --defaulting: serve it at this path instead of /mutate-<group>-<version>-<kind>
    #[arg(long, value_name = "PATH")]
    pub defaulting_path: Option<String>,
    /// With --programmatic-validation: serve it at this path instead of /validate-...
    #[arg(long, value_name = "PATH")]
    pub validation_path: Option<String>,
    /// The kind's resource name, as PROJECT has it (kubebuilder's; another is refused)
    #[arg(long)]
    pub plural: Option<String>,
    /// kubebuilder's `make generate` afterwards; Rust needs no generated code, so this
    /// is accepted and changes nothing
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub make: Option<bool>,
    /// kubebuilder's: the domain of another project's kind (checked against the one its CRD
    /// gave `create api --external-api-crd`)
    #[arg(long, value_name = "DOMAIN")]
    pub external_api_domain: Option<String>,
    /// kubebuilder's Go package of an external kind: refused, as Rust types come from the
    /// kind's CRD (`create api --external-api-crd`)
    #[arg(long, value_name = "PATH", hide = true)]
    pub external_api_path: Option<String>,
    /// kubebuilder's Go module of an external kind: refused like --external-api-path
    #[arg(long, value_name = "MODULE", hide = true)]
    pub external_api_module: Option<String>,
}

#[derive(Debug, Args)]
pub struct CreateApiArgs {
    /// rust (a kube-rs controller) or helm (a chart reconciled per resource)
    #[arg(long, value_name = "PLUGIN")]
    pub plugins: Option<String>,
    /// API group, without the domain (e.g. cache)
    #[arg(long)]
    pub group: Option<String>,
    /// API version (e.g. v1, v1alpha1)
    #[arg(long)]
    pub version: Option<String>,
    /// Kind, in PascalCase (e.g. Memcached)
    #[arg(long)]
    pub kind: Option<String>,
    /// Create the resource type without asking
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub resource: Option<bool>,
    /// Create the controller without asking
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub controller: Option<bool>,
    /// Name of the controller (a DNS-1035 label, e.g. memcached-backup): a kind may have
    /// several, each its own module, RBAC and registration (implies --controller)
    #[arg(long, value_name = "NAME")]
    pub controller_name: Option<String>,
    /// Whether the resource is namespaced (false: cluster-scoped)
    #[arg(long, num_args = 0..=1, default_value_t = true, default_missing_value = "true", value_name = "BOOL", action = clap::ArgAction::Set)]
    pub namespaced: bool,
    /// Resource plural [default: the English plural of the kind]
    #[arg(long)]
    pub plural: Option<String>,
    /// Container image the controller deploys (kubebuilder's deploy-image)
    #[arg(long)]
    pub image: Option<String>,
    /// Container command, comma-separated (with --image)
    #[arg(long, value_delimiter = ',', value_name = "CMD")]
    pub image_container_command: Option<Vec<String>>,
    /// Container port (with --image)
    #[arg(long, value_name = "PORT")]
    pub image_container_port: Option<u16>,
    /// runAsUser of the container (with --image)
    #[arg(long, value_name = "UID")]
    pub run_as_user: Option<i64>,
    /// Chart to use: a directory, a .tgz, repo/name, an https:// URL or oci://
    #[arg(long, value_name = "CHART")]
    pub helm_chart: Option<String>,
    /// Chart repository URL (with --helm-chart naming a chart in it)
    #[arg(long, value_name = "URL")]
    pub helm_chart_repo: Option<String>,
    /// Chart version (with --helm-chart) [default: latest]
    #[arg(long, value_name = "VERSION")]
    pub helm_chart_version: Option<String>,
    /// operator-sdk's (deprecated there) apiextensions version of the CRD: only v1, the one
    /// rusty-sdk writes
    #[arg(long, value_name = "VERSION", value_parser = crd_version)]
    pub crd_version: Option<String>,
    /// Another project's CRD file: a controller for its kind, with Rust types generated
    /// from its schema (implies --resource=false)
    #[arg(long, value_name = "FILE")]
    pub external_api_crd: Option<std::path::PathBuf>,
    /// kubebuilder's `make generate` afterwards; Rust needs no generated code, so this
    /// is accepted and changes nothing
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub make: Option<bool>,
    /// kubebuilder's deploy-image `make manifests` afterwards; create api writes the CRD and
    /// its sample itself, so this is accepted and changes nothing
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub manifests: Option<bool>,
    /// kubebuilder's server-side apply support: accepted and changes nothing, as kube-rs
    /// applies any type server-side and the Rust controllers write with server-side apply
    #[arg(long)]
    pub ssa: bool,
    /// With --external-api-crd: the domain of the kind's group (kubebuilder's spelling;
    /// `--group cert-manager --external-api-domain io` picks cert-manager.io from the file)
    #[arg(long, value_name = "DOMAIN")]
    pub external_api_domain: Option<String>,
    /// kubebuilder's Go package of an external kind: refused, as Rust types come from the
    /// kind's CRD (--external-api-crd)
    #[arg(long, value_name = "PATH", hide = true)]
    pub external_api_path: Option<String>,
    /// kubebuilder's Go module of an external kind: refused like --external-api-path
    #[arg(long, value_name = "MODULE", hide = true)]
    pub external_api_module: Option<String>,
}

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum GenerateCommand {
    /// Write config/rbac/role.yaml from controller markers, Helm charts and the runtime's needs,
    /// and config/webhook/manifests.yaml from webhook markers
    #[command(after_help = "Examples:\n  \
        rusty-sdk generate rbac\n  \
        rusty-sdk generate rbac --check            # in CI: fail when role.yaml is out of date\n  \
        rusty-sdk generate rbac --namespace memcached-system")]
    Rbac(RbacArgs),
    /// Write an OLM bundle (bundle/ and bundle.Dockerfile) from `kubectl kustomize
    /// config/manifests` on stdin, as operator-sdk's `generate bundle`
    #[command(after_help = "Examples:\n  \
        make bundle VERSION=0.1.0                  # runs the pipe below after make manifests\n  \
        kubectl kustomize config/manifests | rusty-sdk generate bundle --version 0.1.0\n  \
        rusty-sdk generate bundle --version 0.2.0 --channels alpha,stable --default-channel stable --input-dir out/\n  \
        rusty-sdk generate bundle --metadata --channels alpha,stable --overwrite=false")]
    // Boxed: its many flags make it much larger than the other variants.
    Bundle(Box<BundleArgs>),
}

#[derive(Debug, Args)]
pub struct BundleArgs {
    /// Write the bundle's manifests (the CSV, CRDs and other objects in <DIR>/manifests);
    /// with neither --manifests nor --metadata, both are written (as operator-sdk's)
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true",
          value_name = "BOOL")]
    pub manifests: Option<bool>,
    /// Write the bundle's metadata (<DIR>/metadata/annotations.yaml) and bundle.Dockerfile
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true",
          value_name = "BOOL")]
    pub metadata: Option<bool>,
    /// The bundle's semantic version (the CSV's spec.version) [default: the base CSV's]
    #[arg(long)]
    pub version: Option<String>,
    /// Comma-separated channels the bundle belongs to [default: alpha]
    #[arg(long)]
    pub channels: Option<String>,
    /// The package's default channel [default: the first of --channels]
    #[arg(long)]
    pub default_channel: Option<String>,
    /// The OLM package name [default: the project name]
    #[arg(long)]
    pub package: Option<String>,
    /// Where the bundle goes [default: bundle]
    #[arg(long, value_name = "DIR")]
    pub output_dir: Option<String>,
    /// Read the manifests from the YAML files of this folder (or one file) instead of
    /// standard input
    #[arg(long, value_name = "DIR")]
    pub input_dir: Option<String>,
    /// operator-sdk's older spelling of --input-dir
    #[arg(long, value_name = "DIR")]
    pub deploy_dir: Option<String>,
    /// With --deploy-dir: read the CRDs from this folder too
    #[arg(long, value_name = "DIR")]
    pub crds_dir: Option<String>,
    /// The folder of the base CSV, <DIR>/bases/<package>.clusterserviceversion.yaml
    /// [default: config/manifests]
    #[arg(long, value_name = "DIR")]
    pub kustomize_dir: Option<String>,
    /// Rewrite the metadata and bundle.Dockerfile when the bundle has them; `=false` keeps
    /// them
    #[arg(long, num_args = 0..=1, require_equals = true, default_value_t = true,
          default_missing_value = "true", value_name = "BOOL", action = clap::ArgAction::Set)]
    pub overwrite: bool,
    /// Print the manifests on standard output instead of writing <DIR>/manifests (with -q,
    /// nothing else)
    #[arg(long)]
    pub stdout: bool,
    /// Service accounts besides the manager's whose bound Roles and ClusterRoles go into the
    /// CSV's permissions (OLM creates the accounts); comma-separated or repeated
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    pub extra_service_accounts: Vec<String>,
    /// operator-sdk's tag-to-digest lookup in the image registries: refused (rusty-sdk
    /// reaches no registry; pass the image by digest, IMG=<repo>@sha256:<digest>)
    #[arg(long)]
    pub use_image_digests: bool,
    /// Arguments the command does not take (refused in one line naming the flag meant)
    #[arg(hide = true)]
    pub unexpected: Vec<String>,
}

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum BundleCommand {
    /// Check a bundle offline against OLM's rules (as `operator-sdk bundle validate`): its
    /// metadata, the CSV's required fields, owned CRDs, channels and webhook definitions
    #[command(after_help = "Examples:\n  \
        rusty-sdk bundle validate bundle           # make bundle runs it after writing bundle/")]
    Validate(BundleValidateArgs),
}

#[derive(Debug, Args)]
pub struct BundleValidateArgs {
    /// The bundle's folder (holding manifests/ and metadata/)
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct RbacArgs {
    /// Exit with 1 if role.yaml is out of date instead of writing it (for CI)
    #[arg(long)]
    pub check: bool,
    /// Scope the operator to one namespace: a Role and RoleBinding there instead of a
    /// ClusterRole for namespaced resources (recorded in PROJECT for later runs)
    #[arg(long, value_name = "NS", conflicts_with = "cluster_wide")]
    pub namespace: Option<String>,
    /// Undo --namespace: grant everything through the ClusterRole again
    #[arg(long)]
    pub cluster_wide: bool,
}
