//! The project's Rust files, as the tree sees them (staged content first), for markers.
use std::collections::BTreeSet;

use walkdir::WalkDir;

use crate::error::{Error, Result};
use crate::scaffold::Tree;

/// Folders that hold no sources of the project: build output, VCS and tool state, charts.
fn skipped(name: &str) -> bool {
    name == "target" || name == "helm-charts" || name.starts_with('.')
}

/// Every `.rs` file (path relative to the project root, with `/`) and its text, by path.
#[expect(
    clippy::case_sensitive_file_extension_comparisons,
    reason = "cargo builds only `.rs` files"
)]
pub fn read_all(tree: &Tree) -> Result<Vec<(String, String)>> {
    let mut paths: BTreeSet<String> = tree
        .staged()
        .keys()
        .filter(|p| p.ends_with(".rs"))
        .cloned()
        .collect();
    let root = tree.root();
    if root.is_dir() {
        let walk = WalkDir::new(root)
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|e| e.depth() == 0 || !skipped(&e.file_name().to_string_lossy()));
        for entry in walk {
            let entry = entry.map_err(|e| {
                let path = e.path().unwrap_or(root).to_path_buf();
                Error::io(path, e.into())
            })?;
            if entry.file_type().is_file() && entry.path().extension().is_some_and(|x| x == "rs") {
                let rel = entry.path().strip_prefix(root).unwrap_or(entry.path());
                paths.insert(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut files = Vec::with_capacity(paths.len());
    for path in paths {
        if let Some(text) = tree.read(&path)? {
            files.push((path, text));
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scaffold::Policy;

    #[test]
    fn staged_and_disk_files_are_read_and_build_output_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (path, text) in [
            ("src/main.rs", "fn main() {}"),
            ("src/controller/a.rs", "disk"),
            ("target/debug/build/x.rs", "no"),
            (".git/hooks/x.rs", "no"),
            ("notes.txt", "no"),
        ] {
            std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
            std::fs::write(root.join(path), text).unwrap();
        }
        let mut tree = Tree::new(root);
        tree.add("src/controller/a.rs", "staged", Policy::User);
        tree.add("src/controller/b.rs", "new", Policy::User);
        let files = read_all(&tree).unwrap();
        assert_eq!(
            files,
            [
                ("src/controller/a.rs".to_string(), "staged".to_string()),
                ("src/controller/b.rs".to_string(), "new".to_string()),
                ("src/main.rs".to_string(), "fn main() {}".to_string()),
            ]
        );
    }
}
