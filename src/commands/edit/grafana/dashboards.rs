//! The Grafana dashboards of the metrics the runtime exports, as JSON a Grafana imports
//! (Dashboards > New > Import; it asks for the Prometheus data source, `DS_PROMETHEUS`).
//!
//! Dashboards are described as rows of panels, each with its PromQL queries, and laid out
//! here; every query names its metrics with a selector (`name{...}`), which is how the
//! tests find the names and check them against a running manager's `/metrics`.
use serde_json::{Value, json};

/// The series of the operator the dashboard shows: its scrape job and namespace.
pub const SELECTOR: &str = r#"job="$job", namespace="$namespace""#;
/// [`SELECTOR`] narrowed to the pods picked in the `pod` variable.
const POD_SELECTOR: &str = r#"job="$job", namespace="$namespace", pod=~"$pod""#;
/// The rate window of every `rate` and `increase`.
const WINDOW: &str = "5m";
const WIDTH: u64 = 24;
const HEIGHT: u64 = 8;

/// How a panel draws its queries.
#[derive(Clone, Copy)]
pub enum Draw {
    /// Lines over time.
    Lines,
    /// The latest value of each series.
    Gauge,
}

/// One query of a panel.
pub struct Query {
    pub expr: String,
    pub legend: String,
}

pub struct Panel {
    pub title: String,
    pub description: String,
    pub unit: String,
    pub draw: Draw,
    pub width: u64,
    pub queries: Vec<Query>,
}

/// A titled group of panels.
pub struct Row {
    pub title: &'static str,
    pub panels: Vec<Panel>,
}

fn query(expr: String, legend: &str) -> Query {
    Query {
        expr,
        legend: legend.to_string(),
    }
}

fn panel(title: &str, description: &str, unit: &str, queries: Vec<Query>) -> Panel {
    Panel {
        title: title.to_string(),
        description: description.to_string(),
        unit: unit.to_string(),
        draw: Draw::Lines,
        width: 12,
        queries,
    }
}

/// The per-second rate of counter `metric`, summed by `by`.
fn rate(metric: &str, by: &str) -> String {
    format!("sum by ({by}) (rate({metric}{{{SELECTOR}}}[{WINDOW}]))")
}

/// The P50, P90 and P99 of histogram `metric`, per `by`.
fn quantiles(metric: &str, by: &str, legend: &str) -> Vec<Query> {
    [("0.50", "P50"), ("0.90", "P90"), ("0.99", "P99")]
        .into_iter()
        .map(|(q, name)| {
            query(
                format!(
                    "histogram_quantile({q}, sum by ({by}, le) (rate({metric}_bucket{{{SELECTOR}}}[{WINDOW}])))"
                ),
                &format!("{name} {legend}"),
            )
        })
        .collect()
}

/// What to show: the controllers' reconciles and queues, the API server requests, and the
/// Helm releases and webhooks when the project has them.
pub fn runtime_rows(helm: bool, webhooks: bool) -> Vec<Row> {
    let mut rows = vec![reconciles_row(), work_queues_row(), api_server_row()];
    if helm {
        rows.push(helm_row());
    }
    if webhooks {
        rows.push(webhooks_row());
    }
    rows
}

/// The controllers' reconciles: their rate, errors, time and workers.
fn reconciles_row() -> Row {
    Row {
        title: "Reconciles",
        panels: vec![
            panel(
                "Reconciles per second",
                "Finished reconciles per controller and result (success, requeue, requeue_after, error).",
                "ops",
                vec![query(
                    rate("controller_runtime_reconcile_total", "controller, result"),
                    "{{controller}} {{result}}",
                )],
            ),
            panel(
                "Reconcile errors per second",
                "Reconciles that returned an error, per controller; each is retried with backoff.",
                "ops",
                vec![query(
                    rate("controller_runtime_reconcile_errors_total", "controller"),
                    "{{controller}}",
                )],
            ),
            panel(
                "Reconcile time (P50, P90, P99)",
                "How long one reconcile takes, per controller.",
                "s",
                quantiles(
                    "controller_runtime_reconcile_time_seconds",
                    "controller",
                    "{{controller}}",
                ),
            ),
            panel(
                "Workers in use",
                "Reconciles running now, against the most a controller runs at once.",
                "short",
                vec![
                    query(
                        format!(
                            "sum by (controller) (controller_runtime_active_workers{{{SELECTOR}}})"
                        ),
                        "{{controller}} busy",
                    ),
                    query(
                        format!(
                            "max by (controller) (controller_runtime_max_concurrent_reconciles{{{SELECTOR}}})"
                        ),
                        "{{controller}} at most",
                    ),
                ],
            ),
        ],
    }
}

/// The controllers' work queues: depth, adds, retries, waiting and processing time.
fn work_queues_row() -> Row {
    Row {
        title: "Work queues",
        panels: vec![
            Panel {
                draw: Draw::Gauge,
                width: 6,
                ..panel(
                    "Queue depth",
                    "Objects waiting for a reconcile, per controller.",
                    "short",
                    vec![query(
                        format!("sum by (name) (workqueue_depth{{{SELECTOR}}})"),
                        "{{name}}",
                    )],
                )
            },
            Panel {
                width: 9,
                ..panel(
                    "Adds per second",
                    "Objects queued for a reconcile (changes, owned objects, resyncs).",
                    "ops",
                    vec![query(rate("workqueue_adds_total", "name"), "{{name}}")],
                )
            },
            Panel {
                width: 9,
                ..panel(
                    "Retries per second",
                    "Objects queued again after a delay: failed reconciles and requested requeues.",
                    "ops",
                    vec![query(rate("workqueue_retries_total", "name"), "{{name}}")],
                )
            },
            panel(
                "Time in queue (P50, P90, P99)",
                "How long an object waits before its reconcile starts.",
                "s",
                quantiles("workqueue_queue_duration_seconds", "name", "{{name}}"),
            ),
            panel(
                "Processing time (P50, P90, P99)",
                "How long the reconcile of a queued object takes.",
                "s",
                quantiles("workqueue_work_duration_seconds", "name", "{{name}}"),
            ),
            Panel {
                width: 24,
                ..panel(
                    "Work in progress",
                    "Seconds of reconciles still running, and the longest running one; a steady climb means a stuck reconcile.",
                    "s",
                    vec![
                        query(
                            format!(
                                "sum by (name) (workqueue_unfinished_work_seconds{{{SELECTOR}}})"
                            ),
                            "{{name}} unfinished",
                        ),
                        query(
                            format!(
                                "max by (name) (workqueue_longest_running_processor_seconds{{{SELECTOR}}})"
                            ),
                            "{{name}} longest",
                        ),
                    ],
                )
            },
        ],
    }
}

/// The requests of the manager's client to the API server.
fn api_server_row() -> Row {
    Row {
        title: "API server requests",
        panels: vec![
            panel(
                "Requests per second",
                "Requests of the manager's client, per HTTP method and status code.",
                "reqps",
                vec![query(
                    rate("rest_client_requests_total", "method, code"),
                    "{{method}} {{code}}",
                )],
            ),
            panel(
                "Request latency (P99)",
                "How long the API server takes to answer, per verb.",
                "s",
                vec![query(
                    format!(
                        "histogram_quantile(0.99, sum by (verb, le) (rate(rest_client_request_duration_seconds_bucket{{{SELECTOR}}}[{WINDOW}])))"
                    ),
                    "{{verb}}",
                )],
            ),
        ],
    }
}

/// The Helm controllers' release operations.
fn helm_row() -> Row {
    Row {
        title: "Helm releases",
        panels: vec![
            panel(
                "Release operations per second",
                "Installs, upgrades, rollbacks and uninstalls of the Helm controllers, per result.",
                "ops",
                vec![query(
                    rate(
                        "helm_release_operations_total",
                        "controller, operation, result",
                    ),
                    "{{controller}} {{operation}} {{result}}",
                )],
            ),
            panel(
                "Failed release operations (last hour)",
                "Release operations that failed; the resource's status conditions say why.",
                "short",
                vec![query(
                    format!(
                        "sum by (controller, operation) (increase(helm_release_operations_total{{{SELECTOR}, result=\"error\"}}[1h]))"
                    ),
                    "{{controller}} {{operation}}",
                )],
            ),
        ],
    }
}

/// The admission requests the webhooks answer.
fn webhooks_row() -> Row {
    Row {
        title: "Webhooks",
        panels: vec![
            panel(
                "Admission requests per second",
                "Requests the API server sent to the webhooks, per path and HTTP status code.",
                "reqps",
                vec![query(
                    rate("controller_runtime_webhook_requests_total", "webhook, code"),
                    "{{webhook}} {{code}}",
                )],
            ),
            panel(
                "Admission latency (P50, P90, P99)",
                "How long a webhook takes to answer.",
                "s",
                quantiles(
                    "controller_runtime_webhook_latency_seconds",
                    "webhook",
                    "{{webhook}}",
                ),
            ),
        ],
    }
}

/// The manager's process: CPU, memory, file descriptors.
pub fn resource_rows() -> Vec<Row> {
    vec![Row {
        title: "Manager process",
        panels: vec![
            panel(
                "CPU usage",
                "CPU time the manager uses, in percent of one core.",
                "percent",
                vec![query(
                    format!("rate(process_cpu_seconds_total{{{POD_SELECTOR}}}[{WINDOW}]) * 100"),
                    "{{pod}}",
                )],
            ),
            panel(
                "Resident memory",
                "Memory the manager holds in RAM.",
                "bytes",
                vec![query(
                    format!("process_resident_memory_bytes{{{POD_SELECTOR}}}"),
                    "{{pod}}",
                )],
            ),
            panel(
                "Open file descriptors",
                "Open file descriptors (connections, watches), against the limit.",
                "short",
                vec![
                    query(
                        format!("process_open_fds{{{POD_SELECTOR}}}"),
                        "{{pod}} open",
                    ),
                    query(
                        format!("process_max_fds{{{POD_SELECTOR}}}"),
                        "{{pod}} limit",
                    ),
                ],
            ),
            panel(
                "Uptime",
                "Time since the manager started; a drop is a restart.",
                "s",
                vec![query(
                    format!("time() - process_start_time_seconds{{{POD_SELECTOR}}}"),
                    "{{pod}}",
                )],
            ),
        ],
    }]
}

/// The dashboard titled `title` with `rows`, laid out on Grafana's 24-column grid.
pub fn dashboard(title: &str, rows: &[Row]) -> Value {
    let mut panels = Vec::new();
    let (mut x, mut y, mut id) = (0, 0, 0);
    for row in rows {
        if x > 0 {
            (x, y) = (0, y + HEIGHT);
        }
        id += 1;
        panels.push(json!({
            "collapsed": false,
            "gridPos": {"h": 1, "w": WIDTH, "x": 0, "y": y},
            "id": id,
            "panels": [],
            "title": row.title,
            "type": "row",
        }));
        y += 1;
        for panel in &row.panels {
            if x + panel.width > WIDTH {
                (x, y) = (0, y + HEIGHT);
            }
            id += 1;
            panels.push(panel_json(panel, id, x, y));
            x += panel.width;
        }
    }
    json!({
        "__inputs": [{
            "name": "DS_PROMETHEUS",
            "label": "Prometheus",
            "description": "",
            "type": "datasource",
            "pluginId": "prometheus",
            "pluginName": "Prometheus",
        }],
        "__requires": [{"type": "datasource", "id": "prometheus", "name": "Prometheus", "version": "1.0.0"}],
        "annotations": {"list": []},
        "editable": true,
        "graphTooltip": 1,
        "links": [],
        "panels": panels,
        "refresh": "30s",
        "schemaVersion": 39,
        "tags": ["rusty-sdk", "operator"],
        "templating": {"list": variables()},
        "time": {"from": "now-1h", "to": "now"},
        "timezone": "",
        "title": title,
    })
}

fn panel_json(panel: &Panel, id: u64, x: u64, y: u64) -> Value {
    let targets: Vec<Value> = panel
        .queries
        .iter()
        .zip('A'..)
        .map(|(query, ref_id)| {
            json!({
                "datasource": "${DS_PROMETHEUS}",
                "editorMode": "code",
                "expr": query.expr,
                "legendFormat": query.legend,
                "range": true,
                "refId": ref_id.to_string(),
            })
        })
        .collect();
    let (kind, options) = match panel.draw {
        Draw::Lines => (
            "timeseries",
            json!({
                "legend": {"calcs": ["lastNotNull", "max"], "displayMode": "table", "placement": "bottom", "showLegend": true},
                "tooltip": {"mode": "multi", "sort": "desc"},
            }),
        ),
        Draw::Gauge => (
            "gauge",
            json!({
                "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": false},
                "showThresholdLabels": false,
                "showThresholdMarkers": false,
            }),
        ),
    };
    json!({
        "datasource": "${DS_PROMETHEUS}",
        "description": panel.description,
        "fieldConfig": {
            "defaults": {"unit": panel.unit, "min": 0},
            "overrides": [],
        },
        "gridPos": {"h": HEIGHT, "w": panel.width, "x": x, "y": y},
        "id": id,
        "options": options,
        "targets": targets,
        "title": panel.title,
        "type": kind,
    })
}

/// The namespace and scrape job of the operator, and its pods.
fn variables() -> Vec<Value> {
    let variable = |name: &str, query: &str, multi: bool| {
        json!({
            "datasource": "${DS_PROMETHEUS}",
            "definition": query,
            "includeAll": multi,
            "multi": multi,
            "name": name,
            "query": {"query": query, "refId": "StandardVariableQuery"},
            "refresh": 2,
            "sort": 1,
            "type": "query",
        })
    };
    vec![
        variable(
            "namespace",
            r#"label_values(process_start_time_seconds{job!=""}, namespace)"#,
            false,
        ),
        variable(
            "job",
            r#"label_values(process_start_time_seconds{namespace="$namespace"}, job)"#,
            false,
        ),
        variable(
            "pod",
            r#"label_values(process_start_time_seconds{job="$job", namespace="$namespace"}, pod)"#,
            true,
        ),
    ]
}

/// The metric names `text` (a dashboard's JSON, or one expression) selects: every name
/// written before a `{`.
pub fn selected_metrics(text: &str) -> std::collections::BTreeSet<String> {
    let is_name = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':';
    let mut names = std::collections::BTreeSet::new();
    for (at, _) in text.match_indices('{') {
        let before = &text[..at];
        let start = before
            .char_indices()
            .rev()
            .take_while(|(_, c)| is_name(*c))
            .last()
            .map_or(at, |(i, _)| i);
        let name = &text[start..at];
        if name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            names.insert(name.to_string());
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_query_selects_the_operators_series() {
        let rows = runtime_rows(true, true).into_iter().chain(resource_rows());
        for row in rows {
            for panel in &row.panels {
                for query in &panel.queries {
                    assert!(
                        query.expr.contains(SELECTOR),
                        "{}: {}",
                        panel.title,
                        query.expr
                    );
                    assert!(
                        !selected_metrics(&query.expr).is_empty(),
                        "{}: {}",
                        panel.title,
                        query.expr
                    );
                }
            }
        }
    }

    #[test]
    fn panels_stay_on_the_grid_and_ids_are_unique() {
        let board = dashboard("t", &runtime_rows(true, true));
        let mut ids = std::collections::BTreeSet::new();
        for panel in board["panels"].as_array().unwrap() {
            let grid = &panel["gridPos"];
            let right = grid["x"].as_u64().unwrap() + grid["w"].as_u64().unwrap();
            assert!(right <= WIDTH, "{panel}");
            assert!(ids.insert(panel["id"].as_u64().unwrap()), "{panel}");
        }
    }

    #[test]
    fn names_before_a_selector_are_found() {
        let names = selected_metrics(
            r#"histogram_quantile(0.9, sum by (le) (rate(a_bucket{job="x"}[5m]))) / b:c{}"#,
        );
        assert_eq!(names.into_iter().collect::<Vec<_>>(), ["a_bucket", "b:c"]);
        assert!(selected_metrics(r#"{"expr": 1}"#).is_empty());
    }
}
