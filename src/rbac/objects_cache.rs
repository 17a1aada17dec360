//! A cache of what a chart's renders yield for RBAC, shared by every project of the user:
//! `create api --plugins helm`, a later `create api` and `generate rbac` each derive the role
//! from the same chart, and rendering it (every `enabled` switch on, generated keys and all)
//! is most of what those commands cost. An entry is keyed by the SHA-256 of the chart's
//! files and of this executable, so a changed chart or a rebuilt rusty-sdk never reads a
//! stale one; it holds only apiVersions, kinds, CRD names and switch errors
//! (see [`super::chart::essentials`]), never rendered data.
//!
//! The cache lives in `$RUSTY_SDK_CACHE_DIR`, else `$XDG_CACHE_HOME/rusty-sdk`, else
//! `~/.cache/rusty-sdk`; `RUSTY_SDK_CACHE_DIR=` (empty) turns it off. It is only ever an
//! optimisation: an entry that cannot be read, parsed or written is a miss, silently.
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use rusty_sdk_chart::{ChartFile, FailedSwitch};
use serde::{Deserialize, Serialize};

use super::chart::ChartObject;

/// Bumped when what an entry holds, or how it is derived, changes.
const FORMAT: &str = "chart-objects 2";
/// Entries kept: a few charts per project over many projects, a few KB each.
const MAX_ENTRIES: usize = 256;
/// An entry larger than this is not ours to trust (a chart yields a few KB).
const MAX_ENTRY_BYTES: u64 = 16 << 20;

/// What `all_objects` found in a chart, as the role needs it.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub objects: Vec<ChartObject>,
    pub failed_switches: Vec<FailedSwitch>,
}

/// The cache directory, or `None` when there is none (turned off, no home).
pub fn dir() -> Option<PathBuf> {
    let from_env = |name: &str| std::env::var_os(name).map(PathBuf::from);
    if let Some(dir) = from_env("RUSTY_SDK_CACHE_DIR") {
        return (!dir.as_os_str().is_empty()).then_some(dir);
    }
    let base = from_env("XDG_CACHE_HOME")
        .filter(|d| d.is_absolute())
        .or_else(|| from_env("HOME").map(|home| home.join(".cache")))?;
    Some(base.join("rusty-sdk"))
}

/// The key of a chart made of `files` (sorted by name), for this build of rusty-sdk.
pub fn key(files: &[ChartFile]) -> String {
    let mut hash = aws_lc_rs::digest::Context::new(&aws_lc_rs::digest::SHA256);
    let mut field = |bytes: &[u8]| {
        hash.update(&(bytes.len() as u64).to_le_bytes());
        hash.update(bytes);
    };
    field(FORMAT.as_bytes());
    field(env!("CARGO_PKG_VERSION").as_bytes());
    field(executable_identity().as_bytes());
    for file in files {
        field(file.name.as_bytes());
        field(&file.data);
    }
    crate::digest::hex(hash.finish().as_ref())
}

/// Size and modification time of the running executable: a rebuilt rusty-sdk (with a
/// changed chart engine, say) gets keys of its own even under the same version. Looked up
/// once per process, through /proc/self/exe where there is one (a readlink of it costs
/// more than the lookup).
fn executable_identity() -> &'static str {
    static IDENTITY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    IDENTITY.get_or_init(|| {
        let meta = fs::metadata("/proc/self/exe")
            .or_else(|_| std::env::current_exe().and_then(fs::metadata));
        match meta {
            Ok(meta) => {
                let modified = meta
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos());
                format!("{} {modified}", meta.len())
            }
            Err(_) => String::new(),
        }
    })
}

fn entry_path(dir: &Path, key: &str) -> PathBuf {
    dir.join("chart-objects").join(format!("{key}.json"))
}

/// The entry stored under `key`, if there is a readable one.
pub fn get(dir: &Path, key: &str) -> Option<Entry> {
    let path = entry_path(dir, key);
    let file = fs::File::open(path).ok()?;
    if file.metadata().ok()?.len() > MAX_ENTRY_BYTES {
        return None;
    }
    serde_json::from_reader(std::io::BufReader::new(file)).ok()
}

/// Whether an entry is stored under `key` (without reading it: a damaged one is only found
/// out by [`get`]).
pub fn contains(dir: &Path, key: &str) -> bool {
    entry_path(dir, key).is_file()
}

/// Store `entry` under `key`: written to a temporary file, then renamed, so a reader sees
/// a whole entry or none ([`crate::scaffold::commit::replace_unjournaled`]). Errors are
/// ignored (the cache is only an optimisation).
pub fn put(dir: &Path, key: &str, entry: &Entry) {
    let path = entry_path(dir, key);
    let Some(entries) = path.parent() else { return };
    if fs::create_dir_all(entries).is_err() {
        return;
    }
    let Ok(bytes) = serde_json::to_vec(entry) else {
        return;
    };
    if crate::scaffold::commit::replace_unjournaled(&path, &bytes).is_err() {
        return;
    }
    prune(entries, &path);
}

/// Past [`MAX_ENTRIES`], drop the least recently written half (never `keep`, the entry
/// just written: file times are coarser than a burst of writes).
fn prune(entries: &Path, keep: &Path) {
    let Ok(listing) = fs::read_dir(entries) else {
        return;
    };
    let mut found: Vec<(SystemTime, PathBuf)> = listing
        .filter_map(Result::ok)
        .take(MAX_ENTRIES * 4)
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .filter(|(_, path)| path != keep)
        .collect();
    if found.len() < MAX_ENTRIES {
        return;
    }
    found.sort();
    for (_, path) in &found[..found.len() - MAX_ENTRIES / 2] {
        let _ = fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn file(name: &str, data: &str) -> ChartFile {
        ChartFile {
            name: name.into(),
            data: data.as_bytes().to_vec(),
        }
    }

    #[test]
    fn a_key_changes_with_any_byte_or_name_of_the_chart() {
        let base = [file("Chart.yaml", "name: a"), file("values.yaml", "x: 1")];
        let key = key(&base);
        assert_eq!(key.len(), 64);
        assert_eq!(key, super::key(&base), "a key is stable");
        let changed_byte = [file("Chart.yaml", "name: a"), file("values.yaml", "x: 2")];
        let renamed = [file("Chart.yaml", "name: a"), file("values.yml", "x: 1")];
        // Length-prefixed fields: moving bytes between name and data changes the key.
        let shifted = [file("Chart.yaml", "name: a"), file("values.yamlx", ": 1")];
        for other in [&changed_byte, &renamed, &shifted] {
            assert_ne!(key, super::key(other));
        }
    }

    #[test]
    fn an_entry_round_trips_and_a_damaged_one_is_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let objects = [ChartObject {
            source: "c/templates/a.yaml".into(),
            test_hook: false,
            object: json!({"apiVersion": "v1", "kind": "Service"}),
        }];
        let failed = [FailedSwitch {
            switch: "ingress.enabled".into(),
            templates: vec!["c/templates/ingress.yaml".into()],
            error: "boom".into(),
        }];
        assert_eq!(get(dir.path(), "k"), None);
        let entry = Entry {
            objects: objects.to_vec(),
            failed_switches: failed.to_vec(),
        };
        put(dir.path(), "k", &entry);
        assert_eq!(get(dir.path(), "k"), Some(entry));
        fs::write(entry_path(dir.path(), "k"), "{\"objects\": [").unwrap();
        assert_eq!(get(dir.path(), "k"), None);
        let leftovers: Vec<_> = fs::read_dir(dir.path().join("chart-objects"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers, ["k.json"], "no temporary is left");
    }

    #[test]
    fn past_the_limit_the_oldest_entries_go() {
        let dir = tempfile::tempdir().unwrap();
        let entry = Entry {
            objects: Vec::new(),
            failed_switches: Vec::new(),
        };
        for i in 0..=MAX_ENTRIES {
            put(dir.path(), &format!("k{i}"), &entry);
        }
        let left = fs::read_dir(dir.path().join("chart-objects"))
            .unwrap()
            .count();
        assert!(left <= MAX_ENTRIES / 2 + 1, "{left} entries left");
        assert!(
            get(dir.path(), &format!("k{MAX_ENTRIES}")).is_some(),
            "the newest stays"
        );
    }
}
