//! `grafana/custom-metrics/config.yaml`: the operator's own metrics the user lists (a
//! metric and its type, optionally a PromQL expression and a unit), from which the custom
//! dashboard is made, as kubebuilder's grafana plugin reads it. The file is the user's:
//! written once with a commented example, never rewritten. An entry that cannot become a
//! panel is an error naming the entry, not (as in kubebuilder) silently left out.
use serde::Deserialize;

use super::dashboards::{Draw, Panel, Query, SELECTOR};
use crate::error::{Error, Result};

pub const CONFIG: &str = "grafana/custom-metrics/config.yaml";

/// The file as `edit --plugins=grafana/v1-alpha` first writes it.
pub fn template() -> Result<&'static str> {
    crate::templates::text("grafana/custom-metrics/config.yaml")
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Config {
    #[serde(default)]
    custom_metrics: Option<Vec<Entry>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    metric: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    expr: Option<String>,
    unit: Option<String>,
}

/// The panels of the custom dashboard, one per entry; none when the list is empty.
pub fn panels(text: &str) -> Result<Vec<Panel>> {
    let config: Config = serde_yaml::from_str(text).map_err(|e| {
        Error::invalid(format!(
            "{CONFIG}: {}; fix it (see the comments at its top) and run `rusty-sdk edit --plugins=grafana/v1-alpha` again",
            one_line(&e.to_string())
        ))
    })?;
    let entries = config.custom_metrics.unwrap_or_default();
    entries
        .iter()
        .enumerate()
        .map(|(index, entry)| {
            panel(entry).map_err(|why| {
                let name = entry
                    .metric
                    .as_deref()
                    .map(|m| format!(" ({})", crate::model::names::shown(m)))
                    .unwrap_or_default();
                Error::invalid(format!(
                    "{CONFIG}: customMetrics[{index}]{name}: {why}; fix the entry and run `rusty-sdk edit --plugins=grafana/v1-alpha` again"
                ))
            })
        })
        .collect()
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn panel(entry: &Entry) -> std::result::Result<Panel, String> {
    if let Some(metric) = &entry.metric
        && !is_metric_name(metric)
    {
        return Err(format!(
            "metric {} is no Prometheus metric name (letters, digits, `_` and `:`, not starting with a digit)",
            crate::model::names::shown(metric)
        ));
    }
    let kind = match entry.kind.as_deref().map(str::trim) {
        None => None,
        Some(kind) => Some(match kind.to_ascii_lowercase().as_str() {
            "counter" => Kind::Counter,
            "gauge" => Kind::Gauge,
            "histogram" => Kind::Histogram,
            _ => {
                return Err(format!(
                    "type {} is not counter, gauge or histogram",
                    crate::model::names::shown(kind)
                ));
            }
        }),
    };
    let expr = entry
        .expr
        .as_deref()
        .map(str::trim)
        .filter(|e| !e.is_empty());
    let (title, expr) = match (&entry.metric, kind, expr) {
        (metric, _, Some(expr)) => (
            metric.clone().unwrap_or_else(|| expr.to_string()),
            expr.to_string(),
        ),
        (Some(metric), Some(kind), None) => (metric.clone(), kind.expr(metric)),
        (None, _, None) => return Err("give a metric and its type, or an expr".into()),
        (Some(_), None, None) => {
            return Err("no type: add `type: counter`, `gauge` or `histogram` (or an expr)".into());
        }
    };
    let unit = match entry.unit.as_deref().map(str::trim) {
        Some(unit) if !unit.is_empty() => unit.to_string(),
        _ => guess_unit(entry.metric.as_deref().unwrap_or(&title)).to_string(),
    };
    let description = match kind {
        Some(kind) => format!("{title} ({})", kind.name()),
        None => title.clone(),
    };
    Ok(Panel {
        title,
        description,
        unit,
        draw: Draw::Lines,
        width: 12,
        queries: vec![Query {
            expr,
            legend: "{{pod}}".into(),
        }],
    })
}

#[derive(Clone, Copy)]
enum Kind {
    Counter,
    Gauge,
    Histogram,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Counter => "counter",
            Kind::Gauge => "gauge",
            Kind::Histogram => "histogram",
        }
    }

    /// The default chart of `metric`: a counter's rate, a gauge's value, a histogram's
    /// 90th percentile, per pod.
    fn expr(self, metric: &str) -> String {
        match self {
            Kind::Counter => format!("sum by (pod) (rate({metric}{{{SELECTOR}}}[5m]))"),
            Kind::Gauge => format!("sum by (pod) ({metric}{{{SELECTOR}}})"),
            Kind::Histogram => {
                let base = metric.strip_suffix("_bucket").unwrap_or(metric);
                format!(
                    "histogram_quantile(0.90, sum by (pod, le) (rate({base}_bucket{{{SELECTOR}}}[5m])))"
                )
            }
        }
    }
}

fn is_metric_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == ':')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
}

/// A Grafana unit from the metric's name, as kubebuilder guesses it.
fn guess_unit(name: &str) -> &'static str {
    let name = name.to_ascii_lowercase();
    if name.contains("second") || name.contains("duration") {
        "s"
    } else if name.contains("byte") {
        "bytes"
    } else if name.contains("ratio") {
        "percentunit"
    } else {
        "none"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exprs(text: &str) -> Vec<String> {
        panels(text)
            .unwrap()
            .into_iter()
            .map(|p| format!("{} [{}] {}", p.title, p.unit, p.queries[0].expr))
            .collect()
    }

    #[test]
    fn the_template_has_no_entries() {
        assert!(panels(template().unwrap()).unwrap().is_empty());
        assert!(panels("customMetrics:\n").unwrap().is_empty());
        assert!(panels("").unwrap().is_empty());
    }

    #[test]
    fn each_type_gets_its_chart_and_a_unit() {
        let text = "customMetrics:\n  - metric: backups_total\n    type: counter\n  - metric: queue_size\n    type: Gauge\n  - metric: backup_duration_seconds\n    type: histogram\n  - metric: x\n    expr: sum(x)\n    unit: bytes\n";
        assert_eq!(
            exprs(text),
            [
                r#"backups_total [none] sum by (pod) (rate(backups_total{job="$job", namespace="$namespace"}[5m]))"#,
                r#"queue_size [none] sum by (pod) (queue_size{job="$job", namespace="$namespace"})"#,
                r#"backup_duration_seconds [s] histogram_quantile(0.90, sum by (pod, le) (rate(backup_duration_seconds_bucket{job="$job", namespace="$namespace"}[5m])))"#,
                "x [bytes] sum(x)",
            ]
        );
    }

    #[test]
    fn a_bad_entry_is_one_line_naming_it() {
        for (text, expected) in [
            (
                "customMetrics:\n  - metric: ok\n    type: gauge\n  - metric: foo\n    type: summary\n",
                "customMetrics[1] (\"foo\"): type \"summary\" is not counter, gauge or histogram",
            ),
            (
                "customMetrics:\n  - metric: foo\n",
                "customMetrics[0] (\"foo\"): no type",
            ),
            (
                "customMetrics:\n  - type: counter\n",
                "customMetrics[0]: give a metric and its type, or an expr",
            ),
            (
                "customMetrics:\n  - metric: foo-bar\n    type: counter\n",
                "customMetrics[0] (\"foo-bar\"): metric \"foo-bar\" is no Prometheus metric name",
            ),
            (
                "customMetrics:\n  - metric: foo\n    typ: counter\n",
                "unknown field `typ`",
            ),
            ("customMetrics: [\n", CONFIG),
        ] {
            let message = panels(text).err().unwrap().to_string();
            assert!(message.contains(expected), "{message}");
            assert_eq!(message.lines().count(), 1, "{message}");
        }
    }
}
