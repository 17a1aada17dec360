//! The chart's default values and Helm's coalescing of them with the release's values, so
//! the values sent to Helm are complete: an emptied spec means "chart defaults", never "the
//! previous release's values" (helm-operator-plugins pkg/reconciler/reconciler.go coalesces
//! with `chartutil.CoalesceValues` before every install and upgrade).
use std::fs::File;
use std::io::Read;
use std::path::Path;

use flate2::read::GzDecoder;
use serde_json::{Map, Value};

/// values.yaml files larger than this are refused (charts keep them in kilobytes).
const MAX_VALUES_BYTES: u64 = 16 * 1024 * 1024;

/// Why the chart's defaults could not be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot read default values of chart {chart}: {reason}")]
pub struct ChartValuesError {
    chart: String,
    reason: String,
}

/// `values.yaml` of a chart directory or packaged chart as JSON (`{}` when it has none).
pub(crate) fn chart_defaults(chart: &Path) -> Result<Value, ChartValuesError> {
    let error = |reason: String| ChartValuesError {
        chart: chart.display().to_string(),
        reason,
    };
    let text = if chart.is_dir() {
        read_dir_values(chart)
    } else {
        read_archive_values(chart)
    }
    .map_err(|e| error(e.to_string()))?;
    let Some(text) = text else {
        return Ok(Value::Object(Map::new()));
    };
    // Comments are not read: the parser would buffer them while looking ahead, and refuse a
    // long commented-out block (jenkins' values.yaml has one) past its limit of buffered ones.
    let mut options = serde_saphyr::Options::default();
    options.emit_comments = false;
    let parsed: Value = serde_saphyr::from_str_with_options(&text, options)
        .map_err(|e| error(format!("values.yaml: {e}")))?;
    match parsed {
        Value::Null => Ok(Value::Object(Map::new())),
        Value::Object(_) => Ok(parsed),
        _ => Err(error("values.yaml is not a map".into())),
    }
}

fn read_dir_values(chart: &Path) -> std::io::Result<Option<String>> {
    let path = chart.join("values.yaml");
    if !path.is_file() {
        return Ok(None);
    }
    read_bounded(File::open(path)?).map(Some)
}

/// `<top>/values.yaml` of a `helm package` archive.
fn read_archive_values(chart: &Path) -> std::io::Result<Option<String>> {
    let mut archive = tar::Archive::new(GzDecoder::new(File::open(chart)?));
    for entry in archive.entries()? {
        let entry = entry?;
        let path = entry.path()?.into_owned();
        let parts: Vec<_> = path.components().collect();
        if parts.len() == 2 && parts[1].as_os_str() == "values.yaml" {
            return read_bounded(entry).map(Some);
        }
    }
    Ok(None)
}

fn read_bounded(reader: impl Read) -> std::io::Result<String> {
    let mut text = String::new();
    reader
        .take(MAX_VALUES_BYTES + 1)
        .read_to_string(&mut text)?;
    if text.len() as u64 > MAX_VALUES_BYTES {
        return Err(std::io::Error::other(format!(
            "values.yaml is larger than {MAX_VALUES_BYTES} bytes"
        )));
    }
    Ok(text)
}

/// Helm's coalescing (helm/helm pkg/chart/common/util/coalesce.go): the release's values
/// win, maps merge key by key, defaults fill what is missing. A `null` the user set stays
/// `null` so that Helm still deletes that default when it coalesces again.
pub(crate) fn coalesce(defaults: &Value, values: Value) -> Value {
    match (defaults, values) {
        (Value::Object(defaults), Value::Object(mut values)) => {
            for (key, default) in defaults {
                match values.remove(key) {
                    None => {
                        values.insert(key.clone(), default.clone());
                    }
                    Some(given) => {
                        values.insert(key.clone(), coalesce(default, given));
                    }
                }
            }
            Value::Object(values)
        }
        (_, values) => values,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn user_values_win_maps_merge_and_nulls_stay() {
        let defaults = json!({"replicaCount": 1, "image": {"repository": "memcached", "tag": "1.6"},
                              "service": {"port": 11211}, "extra": "d"});
        let values = json!({"image": {"tag": "1.7"}, "service": null, "extra": {"a": 1}});
        assert_eq!(
            coalesce(&defaults, values),
            json!({"replicaCount": 1, "image": {"repository": "memcached", "tag": "1.7"},
                   "service": null, "extra": {"a": 1}})
        );
        assert_eq!(coalesce(&defaults, json!({})), defaults);
    }

    /// jenkins' values.yaml: a commented-out block of over a hundred lines inside a map.
    #[test]
    fn a_long_commented_out_block_is_read_past() {
        let dir = tempfile::tempdir().unwrap();
        let comments = "#    line\n".repeat(300);
        std::fs::write(
            dir.path().join("values.yaml"),
            format!("controller:\n  image: jenkins\n{comments}  tag: lts\nagent:\n{comments}  enabled: true\n"),
        )
        .unwrap();
        assert_eq!(
            chart_defaults(dir.path()).unwrap(),
            json!({"controller": {"image": "jenkins", "tag": "lts"}, "agent": {"enabled": true}})
        );
    }

    #[test]
    fn defaults_come_from_a_directory_or_an_archive() {
        let dir = tempfile::tempdir().unwrap();
        let chart = dir.path().join("memcached");
        std::fs::create_dir(&chart).unwrap();
        std::fs::write(
            chart.join("Chart.yaml"),
            "name: memcached\nversion: 0.1.0\n",
        )
        .unwrap();
        std::fs::write(
            chart.join("values.yaml"),
            "replicaCount: 1\nimage:\n  tag: \"1.6\"\n",
        )
        .unwrap();
        let expected = json!({"replicaCount": 1, "image": {"tag": "1.6"}});
        assert_eq!(chart_defaults(&chart).unwrap(), expected);

        let archive = dir.path().join("memcached-0.1.0.tgz");
        let gz = flate2::write::GzEncoder::new(
            File::create(&archive).unwrap(),
            flate2::Compression::fast(),
        );
        let mut tar = tar::Builder::new(gz);
        tar.append_dir_all("memcached", &chart).unwrap();
        tar.into_inner().unwrap().finish().unwrap();
        assert_eq!(chart_defaults(&archive).unwrap(), expected);

        std::fs::write(chart.join("values.yaml"), "- a list\n").unwrap();
        let error = chart_defaults(&chart).unwrap_err().to_string();
        assert!(
            error.contains("memcached") && error.contains("not a map"),
            "{error}"
        );
        std::fs::remove_file(chart.join("values.yaml")).unwrap();
        assert_eq!(chart_defaults(&chart).unwrap(), json!({}));
    }
}
