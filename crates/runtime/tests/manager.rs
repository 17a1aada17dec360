//! Manager lifecycle without a cluster: controllers get the right context, and one
//! failing controller stops the others and fails the manager (so the pod restarts).
use http::{Request, Response};
use kube::Client;
use kube::client::Body;
use rusty_sdk_runtime::manager::RunError;
use rusty_sdk_runtime::{Manager, ManagerArgs, WatchScope};

/// A client whose API server never answers; these tests make no API calls.
fn offline_client() -> Client {
    let (service, handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
    std::mem::forget(handle);
    Client::new(service, "default")
}

/// No probe or metrics servers, so tests need no ports.
fn serverless_args() -> ManagerArgs {
    ManagerArgs {
        health_probe_bind_address: "0".into(),
        metrics_bind_address: "0".into(),
        ..ManagerArgs::default()
    }
}

#[tokio::test]
async fn context_carries_scope_and_reporter() {
    let args = ManagerArgs {
        namespace: "ns1".into(),
        ..serverless_args()
    };
    let manager = Manager::with_client("memcached-operator", args, offline_client()).unwrap();
    let ctx = manager.context();
    assert_eq!(ctx.scope, WatchScope::Namespace("ns1".into()));
    assert_eq!(ctx.reporter.controller, "memcached-operator");
    assert!(!ctx.shutdown.is_shutting_down());
}

#[tokio::test]
async fn failing_controller_stops_the_others_and_fails_the_manager() {
    let mut manager =
        Manager::with_client("memcached-operator", serverless_args(), offline_client()).unwrap();
    let (stopped_tx, stopped_rx) = tokio::sync::oneshot::channel();
    manager.add_controller("patient", move |ctx| async move {
        ctx.shutdown.wait().await;
        let _ = stopped_tx.send(());
        Ok(())
    });
    manager.add_controller("memcached", |_ctx| async {
        anyhow::bail!("cannot list memcacheds: forbidden")
    });

    let err = format!("{:#}", manager.run().await.unwrap_err());
    assert!(err.contains("controller \"memcached\" failed"), "{err}");
    assert!(err.contains("cannot list memcacheds: forbidden"), "{err}");
    stopped_rx
        .await
        .expect("the other controller saw the shutdown and returned");
}

#[tokio::test]
async fn panicking_controller_fails_the_manager_with_its_message() {
    let mut manager =
        Manager::with_client("memcached-operator", serverless_args(), offline_client()).unwrap();
    manager.add_controller("memcached", |_ctx| async { panic!("index out of range") });
    let err = format!("{:#}", manager.run().await.unwrap_err());
    assert!(
        err.contains("memcached") && err.contains("index out of range"),
        "{err}"
    );
}

#[tokio::test]
async fn a_failed_run_says_which_controller_failed_in_its_type() {
    let mut manager =
        Manager::with_client("memcached-operator", serverless_args(), offline_client()).unwrap();
    manager.add_controller("memcached", |_ctx| async {
        anyhow::bail!("cannot list memcacheds: forbidden")
    });
    match manager.run_until_stopped().await {
        Err(RunError::Controller { name, source }) => {
            assert_eq!(name, "memcached");
            assert_eq!(source.to_string(), "cannot list memcacheds: forbidden");
        }
        other => panic!("expected the controller's failure, got {other:?}"),
    }
}

#[tokio::test]
async fn a_panic_is_its_own_way_to_fail() {
    let mut manager =
        Manager::with_client("memcached-operator", serverless_args(), offline_client()).unwrap();
    manager.add_controller("memcached", |_ctx| async { panic!("index out of range") });
    match manager.run_until_stopped().await {
        Err(RunError::ControllerPanicked { name, message }) => {
            assert_eq!(
                (name.as_str(), message.as_str()),
                ("memcached", "index out of range")
            );
        }
        other => panic!("expected the controller's panic, got {other:?}"),
    }
}

/// `run` keeps the `anyhow::Result` a generated `main` returns, with the typed error in it.
#[tokio::test]
async fn run_returns_the_typed_error_inside_anyhow() {
    let mut manager =
        Manager::with_client("memcached-operator", serverless_args(), offline_client()).unwrap();
    manager.add_controller("memcached", |_ctx| async { anyhow::bail!("forbidden") });
    let error = manager.run().await.unwrap_err();
    assert!(
        matches!(
            error.downcast_ref::<RunError>(),
            Some(RunError::Controller { name, .. }) if name == "memcached"
        ),
        "{error:?}"
    );
}

/// A port another process holds: the run fails before any controller starts, naming the
/// flag and the address.
#[tokio::test]
async fn a_port_in_use_fails_the_run_naming_its_flag() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap();
    let args = ManagerArgs {
        health_probe_bind_address: address.to_string(),
        ..serverless_args()
    };
    let mut manager = Manager::with_client("op", args, offline_client()).unwrap();
    let (started_tx, mut started_rx) = tokio::sync::oneshot::channel::<()>();
    manager.add_controller("memcached", move |_ctx| async move {
        let _ = started_tx.send(());
        Ok(())
    });
    let error = manager.run_until_stopped().await.unwrap_err();
    assert!(
        matches!(&error, RunError::Bind { flag: "health-probe-bind-address", address: at, .. } if *at == address),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        format!(
            "--health-probe-bind-address: cannot listen on {address} (is the port in use? pick another or `0` to disable)"
        )
    );
    assert!(started_rx.try_recv().is_err(), "no controller started");
}

#[tokio::test]
async fn bad_bind_address_is_reported_before_running() {
    let args = ManagerArgs {
        metrics_bind_address: "localhost:http".into(),
        ..serverless_args()
    };
    let err = Manager::with_client("op", args, offline_client())
        .err()
        .expect("an invalid address is an error")
        .to_string();
    assert!(
        err.contains("--metrics-bind-address") && err.contains("localhost:http"),
        "{err}"
    );
}

#[tokio::test]
async fn empty_manager_name_is_rejected() {
    assert!(Manager::with_client(" ", serverless_args(), offline_client()).is_err());
}
