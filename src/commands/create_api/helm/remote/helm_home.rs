//! The local Helm configuration `repo/name` charts are resolved with: repositories.yaml
//! (what `helm repo add` wrote) and the cached repository indexes (what `helm repo update`
//! downloaded). Locations follow Helm's own rules, including its environment variables.
use std::path::PathBuf;

use serde::Deserialize;

use crate::error::{Error, Result};

#[derive(Deserialize)]
struct RepositoryFile {
    #[serde(default)]
    repositories: Vec<RepositoryEntry>,
}

/// One repository of repositories.yaml.
#[derive(Deserialize)]
pub struct RepositoryEntry {
    name: String,
    url: String,
    #[serde(default)]
    username: String,
    #[serde(default)]
    password: String,
}

impl RepositoryEntry {
    pub fn url(&self) -> &str {
        self.url.trim_end_matches('/')
    }

    /// The Authorization header for a repository added with --username/--password.
    pub fn basic_auth(&self) -> Vec<super::Header> {
        if self.username.is_empty() {
            return Vec::new();
        }
        let token = base64(format!("{}:{}", self.username, self.password).as_bytes());
        vec![("Authorization", format!("Basic {token}"))]
    }
}

/// The repository `helm repo add` registered as `name`.
pub fn repository(name: &str) -> Result<RepositoryEntry> {
    let path = repository_config();
    let text = match crate::scaffold::input::read_text(
        &path,
        crate::scaffold::input::PROJECT_FILE_LIMIT,
    ) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(no_repository(name, &path));
        }
        Err(e) => return Err(Error::io(path, e)),
    };
    let file: RepositoryFile = serde_yaml::from_str(&text).map_err(|e| {
        Error::invalid(format!(
            "{}: not a valid Helm repositories file ({e}); fix it or re-add the repository with `helm repo add`",
            path.display()
        ))
    })?;
    file.repositories
        .into_iter()
        .find(|r| r.name == name)
        .ok_or_else(|| no_repository(name, &path))
}

fn no_repository(name: &str, config: &std::path::Path) -> Error {
    Error::invalid(format!(
        "chart not found: {name}/... is not a local path, and there is no Helm repository named {name:?} in {}; add it with `helm repo add {name} <URL>`, or pass --helm-chart-repo <URL>",
        config.display()
    ))
}

/// The index `helm repo update` cached for `name`, if any.
pub fn cached_index(name: &str) -> Option<Vec<u8>> {
    let path = repository_cache().join(format!("{name}-index.yaml"));
    crate::scaffold::input::read_file(&path, crate::scaffold::input::PROJECT_FILE_LIMIT).ok()
}

/// `$HELM_REPOSITORY_CONFIG`, else `<helm config home>/repositories.yaml`.
fn repository_config() -> PathBuf {
    env_path("HELM_REPOSITORY_CONFIG").unwrap_or_else(|| {
        helm_home("HELM_CONFIG_HOME", "XDG_CONFIG_HOME", CONFIG_DEFAULT).join("repositories.yaml")
    })
}

/// `$HELM_REPOSITORY_CACHE`, else `<helm cache home>/repository`.
fn repository_cache() -> PathBuf {
    env_path("HELM_REPOSITORY_CACHE").unwrap_or_else(|| {
        helm_home("HELM_CACHE_HOME", "XDG_CACHE_HOME", CACHE_DEFAULT).join("repository")
    })
}

#[cfg(target_os = "macos")]
const CONFIG_DEFAULT: &str = "Library/Preferences";
#[cfg(not(target_os = "macos"))]
const CONFIG_DEFAULT: &str = ".config";
#[cfg(target_os = "macos")]
const CACHE_DEFAULT: &str = "Library/Caches";
#[cfg(not(target_os = "macos"))]
const CACHE_DEFAULT: &str = ".cache";

fn helm_home(helm_var: &str, xdg_var: &str, default_under_home: &str) -> PathBuf {
    if let Some(dir) = env_path(helm_var) {
        return dir;
    }
    let base = env_path(xdg_var).unwrap_or_else(|| {
        env_path("HOME")
            .unwrap_or_default()
            .join(default_under_home)
    });
    base.join("helm")
}

fn env_path(var: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"user:pass"), "dXNlcjpwYXNz");
    }
}
