//! End to end: the generated hybrid project with a Helm API builds and starts.
use super::*;
use rusty_sdk_test_tools::needs;

#[needs(e2e, kubectl)]
#[test]
fn hybrid_project_with_memcached_helm_api_builds_and_loads_its_watch() {
    let (_dir, root) = hybrid_project_named("e2e-hybrid-helm-api");
    run_ok(&root, CREATE_MEMCACHED);
    crate::e2e::check_project(&root);

    // The operator reads watches.yaml and the chart at start: it must get as far as
    // serving /healthz with a Helm controller for Memcached (the API server is unreachable).
    let binary = crate::e2e::built_operator(&root);
    let log = crate::e2e::run_until_healthy_then_stop(&root, &binary);
    assert!(
        log.contains("Memcached"),
        "no Memcached controller started:\n{log}"
    );
}
