//! Cargo.toml and .cargo/config.toml edits with `toml_edit`: only the touched entries change,
//! formatting and comments elsewhere are kept, and each edit is idempotent.
use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, Value};

use crate::error::{Error, Result};
use crate::scaffold::markers::EditOutcome;

fn parse(path: &str, text: &str) -> Result<DocumentMut> {
    text.parse::<DocumentMut>().map_err(|e| {
        Error::Project(format!(
            "{path}: not valid TOML ({}); fix it by hand and run the command again",
            e.to_string().lines().next().unwrap_or("parse error")
        ))
    })
}

fn table_mut<'a>(parent: &'a mut Table, key: &str, path: &str) -> Result<&'a mut Table> {
    let item = parent.entry(key).or_insert_with(|| {
        let mut t = Table::new();
        t.set_implicit(true);
        Item::Table(t)
    });
    item.as_table_mut().ok_or_else(|| {
        Error::Project(format!(
            "{path}: `{key}` is not a table; fix it by hand and run the command again"
        ))
    })
}

/// Make `[workspace] members` contain `member`. Sorts only if the list was already sorted,
/// and never reformats the whole array (cargo's lesson: that drops comments).
pub fn ensure_workspace_member(
    path: &str,
    text: &str,
    member: &str,
) -> Result<(EditOutcome, String)> {
    let mut doc = parse(path, text)?;
    let workspace = table_mut(doc.as_table_mut(), "workspace", path)?;
    let members = workspace
        .entry("members")
        .or_insert_with(|| Item::Value(Value::Array(Array::new())))
        .as_array_mut()
        .ok_or_else(|| {
            Error::Project(format!(
                "{path}: `workspace.members` is not an array; fix it by hand"
            ))
        })?;
    if members.iter().any(|v| v.as_str() == Some(member)) {
        return Ok((EditOutcome::AlreadyPresent, text.to_string()));
    }
    let names: Vec<&str> = members.iter().filter_map(Value::as_str).collect();
    let was_sorted = names.windows(2).all(|w| w[0] <= w[1]);
    let at = if was_sorted {
        names
            .iter()
            .position(|n| *n > member)
            .unwrap_or(names.len())
    } else {
        names.len()
    };
    members.insert(at, member);
    Ok((EditOutcome::Applied, doc.to_string()))
}

/// Point `[patch.crates-io] <krate>` at a local path (the machine-local runtime link).
pub fn ensure_patch_path(
    path: &str,
    text: &str,
    krate: &str,
    local: &str,
) -> Result<(EditOutcome, String)> {
    let mut doc = parse(path, text)?;
    let patch = table_mut(doc.as_table_mut(), "patch", path)?;
    let crates_io = table_mut(patch, "crates-io", path)?;
    let current = crates_io
        .get(krate)
        .and_then(|item| item.get("path"))
        .and_then(|p| p.as_str());
    if current == Some(local) {
        return Ok((EditOutcome::AlreadyPresent, text.to_string()));
    }
    let mut entry = InlineTable::new();
    entry.insert("path", local.into());
    crates_io.insert(krate, Item::Value(Value::InlineTable(entry)));
    Ok((EditOutcome::Applied, doc.to_string()))
}

/// Make `[dependencies]` have `krate` (as `krate = "version"` when it is missing). A
/// dependency the user declared, in whatever form, is left as it is.
pub fn ensure_dependency(
    path: &str,
    text: &str,
    krate: &str,
    version: &str,
) -> Result<(EditOutcome, String)> {
    let mut doc = parse(path, text)?;
    let dependencies = table_mut(doc.as_table_mut(), "dependencies", path)?;
    if dependencies.contains_key(krate) {
        return Ok((EditOutcome::AlreadyPresent, text.to_string()));
    }
    dependencies.insert(krate, toml_edit::value(version));
    Ok((EditOutcome::Applied, doc.to_string()))
}

/// Add `feature` to the `features` of `[workspace.dependencies] krate` when that entry is
/// a table; a missing entry or one without a feature list is left alone.
pub fn ensure_workspace_feature(
    path: &str,
    text: &str,
    krate: &str,
    feature: &str,
) -> Result<(EditOutcome, String)> {
    let mut doc = parse(path, text)?;
    let features = doc
        .get_mut("workspace")
        .and_then(|w| w.get_mut("dependencies"))
        .and_then(|d| d.get_mut(krate))
        .and_then(|k| k.get_mut("features"))
        .and_then(Item::as_array_mut);
    let Some(features) = features else {
        return Ok((EditOutcome::AlreadyPresent, text.to_string()));
    };
    if features.iter().any(|f| f.as_str() == Some(feature)) {
        return Ok((EditOutcome::AlreadyPresent, text.to_string()));
    }
    features.push(feature);
    Ok((EditOutcome::Applied, doc.to_string()))
}

/// Make `[dev-dependencies] krate` have `feature`: added as `{ version, features }` when
/// missing, the feature added to an entry that lacks it (a plain version string becomes a
/// table with that version). The user's other settings of the entry are kept.
pub fn ensure_dev_dependency_feature(
    path: &str,
    text: &str,
    krate: &str,
    version: &str,
    feature: &str,
) -> Result<(EditOutcome, String)> {
    let mut doc = parse(path, text)?;
    let dev = table_mut(doc.as_table_mut(), "dev-dependencies", path)?;
    let entry = match dev.get(krate) {
        None => {
            let mut entry = InlineTable::new();
            entry.insert("version", version.into());
            entry
        }
        Some(item) => {
            if let Some(version) = item.as_str() {
                let mut entry = InlineTable::new();
                entry.insert("version", version.into());
                entry
            } else if let Some(table) = item.as_inline_table() {
                table.clone()
            } else {
                let has = item
                    .get("features")
                    .and_then(Item::as_array)
                    .is_some_and(|list| list.iter().any(|f| f.as_str() == Some(feature)));
                if has {
                    return Ok((EditOutcome::AlreadyPresent, text.to_string()));
                }
                return Err(Error::Project(format!(
                    "{path}: add \"{feature}\" to the features of [dev-dependencies.{krate}] by hand and run the command again"
                )));
            }
        }
    };
    let mut entry = entry;
    let features = entry
        .entry("features")
        .or_insert_with(|| Value::Array(Array::new()));
    let Some(list) = features.as_array_mut() else {
        return Err(Error::Project(format!(
            "{path}: `features` of the dev-dependency {krate} is not a list; fix it by hand"
        )));
    };
    if list.iter().any(|f| f.as_str() == Some(feature)) {
        return Ok((EditOutcome::AlreadyPresent, text.to_string()));
    }
    list.push(feature);
    dev.insert(krate, Item::Value(Value::InlineTable(entry)));
    Ok((EditOutcome::Applied, doc.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CARGO: &str = "# my workspace\n[workspace]\nmembers = [\"api\", # the types\n  \"b\"]\n\n[package]\nname = \"x\" # keep me\n";

    #[test]
    fn member_added_keeps_comments_and_sorting() {
        let (outcome, text) = ensure_workspace_member("Cargo.toml", CARGO, "aa").unwrap();
        assert_eq!(outcome, EditOutcome::Applied);
        assert!(text.contains("# the types"), "{text}");
        assert!(text.contains("name = \"x\" # keep me"), "{text}");
        assert!(text.starts_with("# my workspace\n"), "{text}");
        let members: Vec<_> = text.parse::<DocumentMut>().unwrap()["workspace"]["members"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        assert_eq!(members, ["aa", "api", "b"]);
    }

    #[test]
    fn member_edit_twice_equals_once() {
        let (_, once) = ensure_workspace_member("Cargo.toml", CARGO, "zz").unwrap();
        let (outcome, twice) = ensure_workspace_member("Cargo.toml", &once, "zz").unwrap();
        assert_eq!(outcome, EditOutcome::AlreadyPresent);
        assert_eq!(once, twice);
    }

    #[test]
    fn patch_path_is_upserted_and_other_config_kept() {
        let config = "[build]\njobs = 2 # mine\n";
        let (outcome, text) =
            ensure_patch_path(".cargo/config.toml", config, "rt", "/a/rt").unwrap();
        assert_eq!(outcome, EditOutcome::Applied);
        assert!(text.contains("jobs = 2 # mine"));
        assert!(
            text.contains("[patch.crates-io]\nrt = { path = \"/a/rt\" }"),
            "{text}"
        );
        let (outcome, again) =
            ensure_patch_path(".cargo/config.toml", &text, "rt", "/a/rt").unwrap();
        assert_eq!(
            (outcome, again.as_str()),
            (EditOutcome::AlreadyPresent, text.as_str())
        );
        let (_, moved) = ensure_patch_path(".cargo/config.toml", &text, "rt", "/b/rt").unwrap();
        assert!(moved.contains("rt = { path = \"/b/rt\" }") && !moved.contains("/a/rt"));
    }

    #[test]
    fn invalid_toml_names_the_file() {
        let err = ensure_workspace_member("Cargo.toml", "[workspace\n", "a").unwrap_err();
        assert!(
            err.to_string().starts_with("Cargo.toml: not valid TOML"),
            "{err}"
        );
    }

    #[test]
    fn dependency_and_feature_are_added_once() {
        let cargo = "[workspace.dependencies]\nkube = { version = \"5\", features = [\"client\"] } # mine\n\n[dependencies]\nanyhow = \"1\"\n";
        let (outcome, once) = ensure_dependency("Cargo.toml", cargo, "json-patch", "4").unwrap();
        assert_eq!(outcome, EditOutcome::Applied);
        assert!(
            once.contains("anyhow = \"1\"\njson-patch = \"4\"\n"),
            "{once}"
        );
        let (outcome, twice) = ensure_dependency("Cargo.toml", &once, "json-patch", "4").unwrap();
        assert_eq!((outcome, &twice), (EditOutcome::AlreadyPresent, &once));
        let (outcome, once) =
            ensure_workspace_feature("Cargo.toml", &twice, "kube", "admission").unwrap();
        assert_eq!(outcome, EditOutcome::Applied);
        assert!(
            once.contains("features = [\"client\", \"admission\"] } # mine"),
            "{once}"
        );
        let (outcome, _) =
            ensure_workspace_feature("Cargo.toml", &once, "kube", "admission").unwrap();
        assert_eq!(outcome, EditOutcome::AlreadyPresent);
    }
    #[test]
    fn dev_dependency_gets_its_feature_once() {
        let cargo = "[dependencies]\nrt = \"1\"\n\n[dev-dependencies]\nhttp = \"1\" # mine\n";
        let (outcome, once) =
            ensure_dev_dependency_feature("Cargo.toml", cargo, "rt", "1", "envtest").unwrap();
        assert_eq!(outcome, EditOutcome::Applied);
        assert!(
            once.ends_with(
                "http = \"1\" # mine\nrt = { version = \"1\", features = [\"envtest\"] }\n"
            ),
            "{once}"
        );
        assert!(once.starts_with("[dependencies]\nrt = \"1\"\n"), "{once}");
        let (outcome, twice) =
            ensure_dev_dependency_feature("Cargo.toml", &once, "rt", "1", "envtest").unwrap();
        assert_eq!((outcome, &twice), (EditOutcome::AlreadyPresent, &once));
        let plain = "[dev-dependencies]\nrt = \"0.9\"\n";
        let (_, table) =
            ensure_dev_dependency_feature("Cargo.toml", plain, "rt", "1", "envtest").unwrap();
        assert!(
            table.contains("rt = { version = \"0.9\", features = [\"envtest\"] }"),
            "{table}"
        );
        let other = "[dev-dependencies]\nrt = { path = \"../rt\", features = [\"a\"] }\n";
        let (_, added) =
            ensure_dev_dependency_feature("Cargo.toml", other, "rt", "1", "envtest").unwrap();
        assert!(
            added.contains("rt = { path = \"../rt\", features = [\"a\", \"envtest\"] }"),
            "{added}"
        );
    }
}
