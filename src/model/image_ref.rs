//! Container image references as the distribution project's grammar has them
//! (`[host[:port]/]path[:tag][@digest]`): anything else would be written into
//! manager.yaml and the controller only to fail at pull time with `InvalidImageName`.

/// Why `image` is not an image reference, or `None` when it is one.
pub fn problem(image: &str) -> Option<&'static str> {
    if image.is_empty() {
        return Some("it is empty");
    }
    let (rest, digest) = match image.split_once('@') {
        Some((rest, digest)) => (rest, Some(digest)),
        None => (image, None),
    };
    if digest.is_some_and(|d| !is_digest(d)) {
        return Some("the part after '@' must be a digest such as sha256:<64 hex digits>");
    }
    // A tag is after the last ':' that follows the last '/' (a ':' before is a port).
    let slash = rest.rfind('/').map_or(0, |at| at + 1);
    let (name, tag) = match rest[slash..].rfind(':') {
        Some(at) => (&rest[..slash + at], Some(&rest[slash + at + 1..])),
        None => (rest, None),
    };
    if tag.is_some_and(|t| !is_tag(t)) {
        return Some(
            "a tag has at most 128 letters, digits, '_', '.' and '-', not starting with '.' or '-'",
        );
    }
    if name.len() > 255 {
        return Some("the name (without tag) is longer than 255 characters");
    }
    let mut parts: Vec<&str> = name.split('/').collect();
    let first = parts[0];
    let is_host = parts.len() > 1
        && (first.contains(['.', ':'])
            || first == "localhost"
            || first.chars().any(|c| c.is_ascii_uppercase()));
    if is_host {
        if !is_host_port(first) {
            return Some("the registry host is not a host name with an optional :port");
        }
        parts.remove(0);
    }
    if !parts.iter().all(|p| is_path_component(p)) {
        return Some(
            "the repository path has lower-case letters and digits, separated by '.', '_', '__' or dashes, in parts separated by '/'",
        );
    }
    None
}

fn is_digest(d: &str) -> bool {
    let Some((algorithm, hex)) = d.split_once(':') else {
        return false;
    };
    !algorithm.is_empty()
        && algorithm.starts_with(|c: char| c.is_ascii_alphabetic())
        && algorithm
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_+.".contains(c))
        && hex.len() >= 32
        && hex.chars().all(|c| c.is_ascii_hexdigit())
}

fn is_tag(t: &str) -> bool {
    !t.is_empty()
        && t.len() <= 128
        && !t.starts_with(['.', '-'])
        && t.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
}

fn is_host_port(host: &str) -> bool {
    let (name, port) = match host.rsplit_once(':') {
        Some((name, port)) => (name, Some(port)),
        None => (host, None),
    };
    let port_ok =
        port.is_none_or(|p| !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()));
    port_ok
        && !name.is_empty()
        && name.split('.').all(|label| {
            !label.is_empty()
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
}

/// `[a-z0-9]+` runs joined by `.`, `_`, `__` or any number of `-`.
fn is_path_component(p: &str) -> bool {
    let bytes = p.as_bytes();
    let alnum = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    if bytes.is_empty() || !alnum(bytes[0]) || !alnum(bytes[bytes.len() - 1]) {
        return false;
    }
    let mut i = 0;
    while i < bytes.len() {
        if alnum(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && !alnum(bytes[i]) {
            i += 1;
        }
        let separator = &p[start..i];
        let dashes = separator.bytes().all(|b| b == b'-');
        if !(dashes || matches!(separator, "." | "_" | "__")) {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_docker_takes_and_ones_it_does_not() {
        for ok in [
            "memcached:1.6.26-alpine",
            "registry.example.com:5000/team/app_x:v1.0",
            "localhost/app",
            "ghcr.io/a/b--c@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "1234",
            "a__b-c/e.f",
        ] {
            assert_eq!(problem(ok), None, "{ok}");
        }
        for bad in [
            "a/Case",
            "App",
            "a//b",
            "a:",
            "a:-x",
            "a@sha256:xyz",
            "host:port99/a",
            "a/_b",
            "a/b_",
            "a...b",
            "*alias",
        ] {
            assert!(problem(bad).is_some(), "{bad}");
        }
    }
}
