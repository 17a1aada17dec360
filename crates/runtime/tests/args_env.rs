//! `ManagerArgs` defaults and environment fallbacks. One test, because environment
//! variables are process-wide.
use clap::Parser;
use rusty_sdk_runtime::{LogFormat, ManagerArgs, WatchScope};

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    manager: ManagerArgs,
}

fn parse(args: &[&str]) -> ManagerArgs {
    Cli::parse_from(std::iter::once("operator").chain(args.iter().copied())).manager
}

#[test]
fn defaults_and_environment() {
    // SAFETY: this test binary has a single test, so nothing reads the environment concurrently.
    unsafe {
        std::env::remove_var("WATCH_NAMESPACE");
        std::env::remove_var("RUST_LOG");
    }
    let defaults = parse(&[]);
    assert_eq!(defaults, ManagerArgs::default());
    assert_eq!(defaults.metrics_bind_address, ":8443");
    assert!(defaults.metrics_secure);
    assert_eq!(defaults.health_probe_bind_address, ":8081");
    assert!(!defaults.leader_elect);
    assert_eq!(defaults.log_format, LogFormat::Text);
    assert_eq!(defaults.log_level, "info");
    assert_eq!(defaults.watch_scope(), WatchScope::AllNamespaces);

    unsafe {
        std::env::set_var("WATCH_NAMESPACE", "ns2");
        std::env::set_var("RUST_LOG", "debug");
    }
    let from_env = parse(&[]);
    assert_eq!(from_env.watch_scope(), WatchScope::Namespace("ns2".into()));
    assert_eq!(from_env.log_level, "debug");

    // Flags win over the environment.
    let flagged = parse(&["--namespace=ns3", "--log-level=warn"]);
    assert_eq!(flagged.watch_scope(), WatchScope::Namespace("ns3".into()));
    assert_eq!(flagged.log_level, "warn");

    // WATCH_NAMESPACE="" means every namespace, as for operator-sdk.
    unsafe { std::env::set_var("WATCH_NAMESPACE", "") };
    assert_eq!(parse(&[]).watch_scope(), WatchScope::AllNamespaces);
}
