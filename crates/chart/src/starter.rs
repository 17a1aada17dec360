//! The starter chart `create api --kind` scaffolds, written for this project and
//! embedded in the crate: a `Deployment` of nginx with its `Service` and `ServiceAccount`,
//! optional `Ingress`, `HTTPRoute` and `HorizontalPodAutoscaler`, and a `helm test` Pod; its
//! values have the keys and defaults operator-sdk's Helm tutorial shows. The files live
//! in `crates/chart/starter/` with a `<CHARTNAME>` placeholder.

/// Chart-relative path and contents of each starter file, with the placeholder.
const FILES: &[(&str, &str)] = &[
    (".helmignore", include_str!("../starter/.helmignore")),
    ("Chart.yaml", include_str!("../starter/Chart.yaml")),
    ("values.yaml", include_str!("../starter/values.yaml")),
    (
        "templates/NOTES.txt",
        include_str!("../starter/templates/NOTES.txt"),
    ),
    (
        "templates/_helpers.tpl",
        include_str!("../starter/templates/_helpers.tpl"),
    ),
    (
        "templates/deployment.yaml",
        include_str!("../starter/templates/deployment.yaml"),
    ),
    (
        "templates/hpa.yaml",
        include_str!("../starter/templates/hpa.yaml"),
    ),
    (
        "templates/httproute.yaml",
        include_str!("../starter/templates/httproute.yaml"),
    ),
    (
        "templates/ingress.yaml",
        include_str!("../starter/templates/ingress.yaml"),
    ),
    (
        "templates/service.yaml",
        include_str!("../starter/templates/service.yaml"),
    ),
    (
        "templates/serviceaccount.yaml",
        include_str!("../starter/templates/serviceaccount.yaml"),
    ),
    (
        "templates/tests/test-connection.yaml",
        include_str!("../starter/templates/tests/test-connection.yaml"),
    ),
];

/// The starter chart's files named `chart_name`, as (relative path, contents).
pub fn files(chart_name: &str) -> Vec<(String, String)> {
    FILES
        .iter()
        .map(|(path, text)| (path.to_string(), text.replace("<CHARTNAME>", chart_name)))
        .collect()
}
