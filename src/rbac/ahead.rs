//! Rendering a chart for its RBAC objects ahead of need: `create api --plugins helm` starts
//! it on a second thread as soon as the chart is loaded, so that it runs while the command
//! checks the chart, stages its files and edits the project, instead of after. The renders
//! are the slowest part of the command when the chart is not in the objects cache.
use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};
use std::thread::JoinHandle;

use rusty_sdk_chart::{Chart, ChartFile};

use super::objects_cache::{self, Entry};

/// Renders started, by cache key. A render that fails yields `None`: the caller renders
/// again and reports the error in its own words.
static STARTED: LazyLock<Mutex<HashMap<String, JoinHandle<Option<Entry>>>>> =
    LazyLock::new(Mutex::default);

/// Start rendering the chart made of `files` (names relative to the chart's folder), unless
/// the cache holds it already. The work has no effect but its result: a command that ends
/// before asking for it loses nothing.
pub fn start(origin: &std::path::Path, files: &[ChartFile]) {
    let mut files = files.to_vec();
    files.sort_by(|a, b| a.name.cmp(&b.name));
    let key = objects_cache::key(&files);
    if objects_cache::dir().is_some_and(|dir| objects_cache::contains(&dir, &key)) {
        return;
    }
    start_render(key, origin, files);
}

/// Render `files` (sorted by name) on a thread of its own, to be taken under `key`.
fn start_render(key: String, origin: &std::path::Path, files: Vec<ChartFile>) {
    let origin = origin.to_path_buf();
    let spawned = std::thread::Builder::new()
        .name("rbac-render".into())
        .spawn(move || {
            let chart = Chart::from_files(&origin, files).ok()?;
            super::chart_source::entry(&chart).ok()
        });
    if let (Ok(handle), Ok(mut started)) = (spawned, STARTED.lock()) {
        started.insert(key, handle);
    }
}

/// The result of a render started for `key`, waiting for it if it is still running.
pub fn take(key: &str) -> Option<Entry> {
    let handle = STARTED.lock().ok()?.remove(key)?;
    handle.join().ok().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_render_started_ahead_is_the_render_the_command_asks_for_later() {
        let files: Vec<ChartFile> = rusty_sdk_chart::starter::files("ahead")
            .into_iter()
            .map(|(name, text)| ChartFile {
                name,
                data: text.into_bytes(),
            })
            .collect();
        let origin = std::path::Path::new("starter chart ahead");
        let mut sorted = files.clone();
        sorted.sort_by(|a, b| a.name.cmp(&b.name));
        let key = objects_cache::key(&sorted);
        // Not `start`: the objects cache of whoever runs the test may hold the chart.
        start_render(key.clone(), origin, sorted);
        let chart = Chart::from_files(origin, files).unwrap();
        let expected = super::super::chart_source::entry(&chart).unwrap();
        let ahead = take(&key).expect("the render started ahead");
        assert_eq!(
            serde_json::to_value(&ahead).unwrap(),
            serde_json::to_value(&expected).unwrap()
        );
        assert!(take(&key).is_none(), "a result is handed out once");
        assert!(take("another chart").is_none());
    }
}
