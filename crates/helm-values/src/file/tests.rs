use serde_json::json;

use super::*;

#[test]
fn documents_of_a_values_file_merge_as_helm_merges_them() {
    let v = load_values("a: 1\nm: {p: 1, q: 2}\n---\nb: 2\nm: {q: 3}\n---\n").unwrap();
    assert_eq!(v, json!({"a": 1, "b": 2, "m": {"p": 1, "q": 3}}));
    let err = load_values("a: 1\n---\n- x\n").unwrap_err();
    assert!(
        err.ends_with("cannot unmarshal array into Go value of type map[string]interface {}"),
        "{err}"
    );
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
        read_chart_values(dir.path()).unwrap(),
        json!({"controller": {"image": "jenkins", "tag": "lts"}, "agent": {"enabled": true}})
    );
}

fn package(chart: &Path, archive: &Path) {
    let gz =
        flate2::write::GzEncoder::new(File::create(archive).unwrap(), flate2::Compression::fast());
    let mut tar = tar::Builder::new(gz);
    tar.append_dir_all(chart.file_name().unwrap(), chart)
        .unwrap();
    tar.into_inner().unwrap().finish().unwrap();
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
    assert_eq!(read_chart_values(&chart).unwrap(), expected);

    let archive = dir.path().join("memcached-0.1.0.tgz");
    package(&chart, &archive);
    assert_eq!(read_chart_values(&archive).unwrap(), expected);

    std::fs::write(chart.join("values.yaml"), "- a list\n").unwrap();
    let error = read_chart_values(&chart).unwrap_err().to_string();
    assert!(
        error.starts_with("values.yaml: ")
            && error
                .ends_with("cannot unmarshal array into Go value of type map[string]interface {}"),
        "{error}"
    );
    std::fs::remove_file(chart.join("values.yaml")).unwrap();
    assert_eq!(read_chart_values(&chart).unwrap(), json!({}));
}

/// `helm template` of a chart whose values.yaml is not UTF-8 fails with "cannot load
/// values.yaml: cannot unmarshal yaml document: ... invalid leading UTF-8 octet".
#[test]
fn a_values_file_that_is_not_utf8_is_refused_in_helms_words() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("values.yaml"), b"a: \xff\n").unwrap();
    assert_eq!(
        read_chart_values(dir.path()).unwrap_err().to_string(),
        "values.yaml: cannot unmarshal yaml document: error converting YAML to JSON: \
         yaml: invalid leading UTF-8 octet"
    );
}

#[test]
fn a_values_file_past_the_limit_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let big = format!(
        "a: \"{}\"\n",
        "x".repeat(usize::try_from(MAX_VALUES_BYTES).unwrap())
    );
    std::fs::write(dir.path().join("values.yaml"), big).unwrap();
    assert!(matches!(
        read_chart_values(dir.path()),
        Err(ReadError::TooLarge)
    ));
}
