//! Command-line flags of the manager, with kubebuilder v4's names and defaults.
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::WatchScope;
use crate::helm::duration::parse_go_duration;
use crate::leader::LeaseTimings;

/// Log output format.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

/// Where the webhook server's certificate comes from.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WebhookCertMode {
    /// Files in `--webhook-cert-path`, such as cert-manager's Secret mounted there.
    #[default]
    Files,
    /// A CA and certificate the operator makes and keeps in a Secret, injecting the CA
    /// into its webhook configurations and CRDs: no cert-manager needed.
    SelfSigned,
    /// A certificate for `localhost` made at start and held in memory, for `make run` on a
    /// workstation (the cluster does not call webhooks served there).
    Local,
}

/// The manager's flags. Flatten into the operator's own `clap::Parser`.
#[derive(clap::Args, Debug, Clone, PartialEq, Eq)]
pub struct ManagerArgs {
    /// Address the metrics endpoint binds to (`:8443` = all interfaces); `0` disables metrics.
    #[arg(long, default_value = ":8443")]
    pub metrics_bind_address: String,

    /// Serve metrics over HTTPS, allowed only to callers that pass a `TokenReview` and a
    /// `SubjectAccessReview` for `get /metrics`; `--metrics-secure=false` serves plain HTTP.
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set,
          num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub metrics_secure: bool,

    /// Directory holding the metrics server's certificate and key (kubebuilder's flag;
    /// `--metrics-cert-dir` is the old spelling); a self-signed certificate is generated
    /// when not set.
    #[arg(long, alias = "metrics-cert-dir", value_name = "DIR")]
    pub metrics_cert_path: Option<PathBuf>,

    /// File name of the certificate in `--metrics-cert-path`.
    #[arg(long, default_value = "tls.crt", value_name = "FILE")]
    pub metrics_cert_name: String,

    /// File name of the private key in `--metrics-cert-path`.
    #[arg(long, default_value = "tls.key", value_name = "FILE")]
    pub metrics_cert_key: String,

    /// Let the metrics server speak HTTP/2 (kubebuilder's flag). Off by default, as in
    /// kubebuilder, since HTTP/2's stream reset floods (CVE-2023-44487) cost a server
    /// more than HTTP/1.1 requests do; off, TLS clients are offered HTTP/1.1 only.
    #[arg(long, default_value_t = false, action = clap::ArgAction::Set,
          num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub enable_http2: bool,

    /// Port the webhook server listens on, on every interface; it listens only when the
    /// operator registers webhooks.
    #[arg(long, default_value_t = 9443, value_name = "PORT")]
    pub webhook_port: u16,

    /// Directory holding the webhook server's certificate and key (kubebuilder's flag and
    /// controller-runtime's default directory); files replaced there are served without a
    /// restart.
    #[arg(
        long,
        default_value = "/tmp/k8s-webhook-server/serving-certs",
        value_name = "DIR"
    )]
    pub webhook_cert_path: PathBuf,

    /// File name of the certificate in `--webhook-cert-path`.
    #[arg(long, default_value = "tls.crt", value_name = "FILE")]
    pub webhook_cert_name: String,

    /// File name of the private key in `--webhook-cert-path`.
    #[arg(long, default_value = "tls.key", value_name = "FILE")]
    pub webhook_cert_key: String,

    /// Where the webhook certificate comes from: `files` in `--webhook-cert-path`
    /// (cert-manager), `self-signed` (the operator makes its own CA, keeps it in a Secret
    /// and injects it into its webhook configurations and CRDs), or `local` (a throwaway
    /// certificate for `localhost`, as `make run` passes).
    #[arg(long, value_enum, default_value_t = WebhookCertMode::Files)]
    pub webhook_cert_mode: WebhookCertMode,

    /// The Service the API server reaches the webhooks through (self-signed mode); empty
    /// means `<manager name>-webhook-service`, the name kubebuilder's manifests give it.
    #[arg(long, default_value = "", value_name = "NAME")]
    pub webhook_service_name: String,

    /// The Secret that keeps the self-signed CA and certificate, in the manager's
    /// namespace; empty means `<manager name>-webhook-server-cert`.
    #[arg(long, default_value = "", value_name = "NAME")]
    pub webhook_cert_secret: String,

    /// Address the /healthz and /readyz probes bind to; `0` disables them.
    #[arg(long, default_value = ":8081")]
    pub health_probe_bind_address: String,

    /// Elect a leader with a Lease so that only one replica runs the controllers.
    #[arg(long, default_value_t = false, action = clap::ArgAction::Set,
          num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub leader_elect: bool,

    /// Name of the leader-election Lease; empty means `<manager name>-leader`.
    #[arg(long, default_value = "")]
    pub leader_election_id: String,

    /// Namespace of the leader-election Lease; defaults to `POD_NAMESPACE`, then the
    /// kubeconfig's namespace.
    #[arg(long)]
    pub leader_election_namespace: Option<String>,

    /// How long a Lease holds without renewal: a standby replica takes over once the
    /// leader has not renewed it for this long (Go duration, whole seconds).
    #[arg(long, default_value = "15s", value_parser = parse_duration, value_name = "DURATION")]
    pub leader_elect_lease_duration: Duration,

    /// How long the leader keeps failing to renew the Lease before it stops its
    /// controllers; shorter than the lease duration, so it stops before another replica
    /// can lead.
    #[arg(long, default_value = "10s", value_parser = parse_duration, value_name = "DURATION")]
    pub leader_elect_renew_deadline: Duration,

    /// How often replicas try to acquire the Lease, and the leader to renew it.
    #[arg(long, default_value = "2s", value_parser = parse_duration, value_name = "DURATION")]
    pub leader_elect_retry_period: Duration,

    /// Watch only these namespaces (comma-separated, e.g. `team-a,team-b`); empty watches
    /// all namespaces.
    #[arg(long, env = "WATCH_NAMESPACE", default_value = "")]
    pub namespace: String,

    /// Log format.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// Log filter in tracing's env-filter syntax, e.g. `info` or `info,kube=debug`.
    #[arg(long, env = "RUST_LOG", default_value = "info")]
    pub log_level: String,
}

impl Default for ManagerArgs {
    fn default() -> Self {
        ManagerArgs {
            metrics_bind_address: ":8443".into(),
            metrics_secure: true,
            metrics_cert_path: None,
            metrics_cert_name: "tls.crt".into(),
            metrics_cert_key: "tls.key".into(),
            webhook_port: 9443,
            webhook_cert_path: PathBuf::from("/tmp/k8s-webhook-server/serving-certs"),
            webhook_cert_name: "tls.crt".into(),
            webhook_cert_key: "tls.key".into(),
            webhook_cert_mode: WebhookCertMode::Files,
            webhook_service_name: String::new(),
            webhook_cert_secret: String::new(),
            health_probe_bind_address: ":8081".into(),
            leader_elect: false,
            enable_http2: false,
            leader_election_id: String::new(),
            leader_election_namespace: None,
            leader_elect_lease_duration: LeaseTimings::default().lease_duration,
            leader_elect_renew_deadline: LeaseTimings::default().renew_deadline,
            leader_elect_retry_period: LeaseTimings::default().retry_period,
            namespace: String::new(),
            log_format: LogFormat::Text,
            log_level: "info".into(),
        }
    }
}

/// The flags of an operator with Helm APIs, with the Go helm-operator's names. Flatten
/// them next to [`ManagerArgs`]; [`crate::helm::ReconcilerBuilder::with_flag_defaults`]
/// applies them to each watches.yaml entry that does not set its own value.
#[derive(clap::Args, Debug, Clone, PartialEq, Eq)]
pub struct HelmArgs {
    /// watches.yaml listing the Helm APIs; chart paths in it are relative to the working
    /// directory.
    #[arg(
        long,
        env = "WATCHES_FILE",
        default_value = "watches.yaml",
        value_name = "FILE"
    )]
    pub watches_file: PathBuf,

    /// How long after a successful reconcile each custom resource is reconciled again
    /// (which repairs drift nothing triggered), for watches.yaml entries without
    /// `reconcilePeriod`; `0s` waits for changes. [default: 1m]
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    pub reconcile_period: Option<Duration>,

    /// How many custom resources of one kind are reconciled at once, for watches.yaml
    /// entries without `maxConcurrentReconciles`. [default: four per CPU]
    #[arg(long, value_parser = parse_concurrency, value_name = "N")]
    pub max_concurrent_reconciles: Option<usize>,
}

impl Default for HelmArgs {
    fn default() -> Self {
        HelmArgs {
            watches_file: PathBuf::from("watches.yaml"),
            reconcile_period: None,
            max_concurrent_reconciles: None,
        }
    }
}

impl ManagerArgs {
    /// The namespaces controllers watch.
    pub fn watch_scope(&self) -> WatchScope {
        WatchScope::from_namespace(Some(&self.namespace))
    }

    /// The leader-election timings of the `--leader-elect-*` flags.
    pub fn lease_timings(&self) -> LeaseTimings {
        LeaseTimings {
            lease_duration: self.leader_elect_lease_duration,
            renew_deadline: self.leader_elect_renew_deadline,
            retry_period: self.leader_elect_retry_period,
        }
    }
}

fn parse_duration(text: &str) -> Result<Duration, String> {
    parse_go_duration(text).map_err(|e| format!("{e} (a Go duration such as `15s` or `1m`)"))
}

fn parse_concurrency(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("a whole number of at least 1".to_string()),
    }
}

/// A `--*-bind-address` flag whose value is not a bind address.
#[derive(Debug, thiserror::Error)]
#[error("--{flag}={value:?} is not a bind address: use `:PORT`, `IP:PORT` or `0` to disable")]
pub struct BindAddressError {
    /// The flag, without its dashes (`metrics-bind-address`).
    pub flag: String,
    /// The value as given.
    pub value: String,
    #[source]
    source: std::net::AddrParseError,
}

/// Parse a Go-style bind address: `0` disables the server, `:8080` means every
/// interface, `host:port` binds that address.
///
/// # Errors
///
/// [`BindAddressError`], naming `flag` and `value`, when `value` is none of those forms.
///
/// # Examples
///
/// ```
/// use rusty_sdk_runtime::args::parse_bind_address;
///
/// assert_eq!(parse_bind_address("metrics-bind-address", "0")?, None);
/// let any = parse_bind_address("metrics-bind-address", ":8443")?;
/// assert_eq!(any, Some("0.0.0.0:8443".parse()?));
/// assert!(parse_bind_address("metrics-bind-address", "localhost").is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn parse_bind_address(flag: &str, value: &str) -> Result<Option<SocketAddr>, BindAddressError> {
    let value = value.trim();
    if value == "0" {
        return Ok(None);
    }
    let full = match value.strip_prefix(':') {
        Some(port) => format!("0.0.0.0:{port}"),
        None => value.to_string(),
    };
    let addr = full
        .parse::<SocketAddr>()
        .map_err(|source| BindAddressError {
            flag: flag.to_string(),
            value: value.to_string(),
            source,
        })?;
    Ok(Some(addr))
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        manager: ManagerArgs,
    }

    fn parse(args: &[&str]) -> Result<ManagerArgs, clap::Error> {
        let argv = std::iter::once("operator").chain(args.iter().copied());
        Cli::try_parse_from(argv).map(|cli| cli.manager)
    }

    #[test]
    fn kubebuilder_style_flags_are_parsed() {
        let args = parse(&[
            "--metrics-bind-address=:9443",
            "--metrics-secure=false",
            "--metrics-cert-dir=/certs",
            "--health-probe-bind-address=127.0.0.1:9081",
            "--leader-elect",
            "--leader-election-id=memcached-lock",
            "--leader-election-namespace=ops",
            "--namespace=ns1",
            "--log-format=json",
            "--log-level=debug",
        ])
        .unwrap();
        assert_eq!(args.metrics_bind_address, ":9443");
        assert!(!args.metrics_secure);
        assert_eq!(args.metrics_cert_path, Some(PathBuf::from("/certs")));
        assert_eq!(
            (
                args.metrics_cert_name.as_str(),
                args.metrics_cert_key.as_str()
            ),
            ("tls.crt", "tls.key")
        );
        let named = parse(&[
            "--metrics-cert-path=/etc/metrics",
            "--metrics-cert-name=cert.pem",
            "--metrics-cert-key=key.pem",
        ])
        .unwrap();
        assert_eq!(named.metrics_cert_path, Some(PathBuf::from("/etc/metrics")));
        assert_eq!(
            (
                named.metrics_cert_name.as_str(),
                named.metrics_cert_key.as_str()
            ),
            ("cert.pem", "key.pem")
        );
        assert_eq!(args.health_probe_bind_address, "127.0.0.1:9081");
        assert!(args.leader_elect);
        assert_eq!(args.leader_election_id, "memcached-lock");
        assert_eq!(args.leader_election_namespace.as_deref(), Some("ops"));
        assert_eq!(args.watch_scope(), WatchScope::Namespace("ns1".into()));
        assert_eq!(args.log_format, LogFormat::Json);
        assert_eq!(args.log_level, "debug");
    }

    #[test]
    fn leader_election_timings_take_go_durations() {
        assert_eq!(parse(&[]).unwrap().lease_timings(), LeaseTimings::default());
        let args = parse(&[
            "--leader-elect-lease-duration=6s",
            "--leader-elect-renew-deadline=4s",
            "--leader-elect-retry-period=500ms",
        ])
        .unwrap();
        assert_eq!(
            args.lease_timings(),
            LeaseTimings {
                lease_duration: Duration::from_secs(6),
                renew_deadline: Duration::from_secs(4),
                retry_period: Duration::from_millis(500),
            }
        );
        let err = parse(&["--leader-elect-retry-period=2"])
            .unwrap_err()
            .to_string();
        assert!(err.contains("Go duration"), "{err}");
    }

    #[test]
    fn bool_flags_take_go_style_values() {
        assert!(parse(&["--leader-elect=true"]).unwrap().leader_elect);
        assert!(!parse(&["--leader-elect=false"]).unwrap().leader_elect);
        assert!(parse(&["--metrics-secure"]).unwrap().metrics_secure);
        assert!(!parse(&[]).unwrap().enable_http2);
        assert!(parse(&["--enable-http2"]).unwrap().enable_http2);
        assert!(!parse(&["--enable-http2=false"]).unwrap().enable_http2);
        assert!(parse(&["--metrics-secure=maybe"]).is_err());
    }

    #[test]
    fn unknown_log_format_is_rejected_with_the_choices() {
        let err = parse(&["--log-format=xml"]).unwrap_err().to_string();
        assert!(err.contains("xml") && err.contains("json"), "{err}");
    }

    #[test]
    fn bind_addresses_follow_go_syntax() {
        assert_eq!(
            parse_bind_address("metrics-bind-address", "0").unwrap(),
            None
        );
        assert_eq!(
            parse_bind_address("metrics-bind-address", ":8443").unwrap(),
            Some("0.0.0.0:8443".parse().unwrap())
        );
        assert_eq!(
            parse_bind_address("health-probe-bind-address", "127.0.0.1:8081").unwrap(),
            Some("127.0.0.1:8081".parse().unwrap())
        );
        let err = parse_bind_address("health-probe-bind-address", "localhost")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("--health-probe-bind-address") && err.contains("localhost"),
            "{err}"
        );
    }
}
