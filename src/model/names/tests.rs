//! Tests of the validated names (`names.rs`).
use super::*;

#[test]
fn domains() {
    for ok in ["my.domain", "example.com", "a", "x-1.y2"] {
        assert!(Domain::parse(ok).is_ok(), "{ok}");
    }
    for bad in ["", "My.Domain", "-a.b", "a..b", "a_b", &"x".repeat(64)] {
        let err = Domain::parse(bad).unwrap_err().to_string();
        assert!(err.contains("--domain"), "{err}");
    }
    // The limit named is the one exceeded.
    let err = Domain::parse(&format!("x.{}", "y".repeat(70)))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("70 characters, more than the 63 a DNS label"),
        "{err}"
    );
    let err = Domain::parse(&["a"; 130].join("."))
        .unwrap_err()
        .to_string();
    assert!(err.contains("259 characters, more than the 253"), "{err}");
}

#[test]
fn versions() {
    for ok in ["v1", "v1alpha1", "v2beta3", "v10"] {
        assert!(Version::parse(ok).is_ok(), "{ok}");
    }
    for bad in [
        "1", "v", "v0", "v1alpha", "v1gamma1", "V1", "v01", "v1beta01",
    ] {
        assert!(Version::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn kinds_and_name_forms() {
    let k = Kind::parse("MemcachedBackup").unwrap();
    assert_eq!(k.lower(), "memcachedbackup");
    assert_eq!(k.snake(), "memcached_backup");
    assert_eq!(k.screaming(), "MEMCACHED_BACKUP");
    assert_eq!(k.plural(), "memcachedbackups");
    let err = Kind::parse("memcached").unwrap_err().to_string();
    assert!(
        err.contains("PascalCase") && err.contains("Memcached"),
        "{err}"
    );
    assert!(Kind::parse("Mem-cached").is_err());
    assert!(Kind::parse("Result").is_err());
    assert_eq!(Kind::from_chart_name("my-app").unwrap().as_str(), "MyApp");
}

#[test]
fn names_that_cannot_build_are_refused_with_the_reason() {
    for (bad, why) in [
        ("1operator", "cannot start with a digit"),
        ("fn", "Rust keyword"),
        ("kube", "depends on a crate of that name"),
        ("serde-json", "depends on a crate of that name"),
        ("json-patch", "depends on a crate of that name"),
        ("crdgen", "already has a binary crdgen"),
        ("a-project-name-of-29-letters1", "a project name at most 28"),
    ] {
        let err = ProjectName::parse(bad).unwrap_err().to_string();
        assert!(err.contains(why) && err.contains("--project-name"), "{err}");
    }
    for bad in ["123", "1cache"] {
        let err = Group::parse(bad).unwrap_err().to_string();
        assert!(err.contains("cannot start with a digit"), "{err}");
    }
    let long = "A".repeat(300);
    let err = Kind::parse(&long).unwrap_err().to_string();
    assert!(
        err.contains("at most 63 characters") && err.contains("(300 characters)"),
        "{err}"
    );
    assert!(err.len() < 200, "{err}");
    let err = Kind::parse("Mémcached").unwrap_err().to_string();
    assert!(
        err.contains("e.g. Mmcached") || err.contains("e.g. Memcached"),
        "{err}"
    );
    assert!(!err.contains("e.g. Mé"), "{err}");
    assert!(
        Kind::parse("élan")
            .unwrap_err()
            .to_string()
            .contains("e.g. Memcached")
    );
    let err = Domain::parse_from("Bad", "fix `domain` in PROJECT")
        .unwrap_err()
        .to_string();
    assert!(
        err.ends_with("fix `domain` in PROJECT") && !err.contains("--domain"),
        "{err}"
    );
}

#[test]
fn keywords_become_module_names_with_a_trailing_underscore() {
    for (group, module) in [
        ("fn", "fn_"),
        ("crate", "crate_"),
        ("self", "self_"),
        ("kube", "kube_"),
        ("web-apps", "web_apps"),
        ("main", "main_"),
        ("v1", "v1_"),
    ] {
        assert_eq!(Group::parse(group).unwrap().module(), module);
    }
    for (kind, module) in [
        ("Type", "type_"),
        ("Crate", "crate_"),
        ("Deployment", "deployment"),
        ("Std", "std_"),
        ("Controller", "controller_"),
        ("Webhook", "webhook_"),
        ("V1alpha1", "v1alpha1_"),
    ] {
        assert_eq!(Kind::parse(kind).unwrap().module(), module);
    }
}

#[test]
fn plurals_follow_english() {
    let plural = |k: &str| Kind::parse(k).unwrap().plural();
    assert_eq!(plural("Memcached"), "memcacheds");
    assert_eq!(plural("Policy"), "policies");
    assert_eq!(plural("Proxy"), "proxies");
    assert_eq!(plural("Ingress"), "ingresses");
    assert_eq!(plural("Class"), "classes");
    assert_eq!(plural("Gateway"), "gateways");
}

#[test]
fn groups_project_names_repos() {
    assert!(Group::parse("cache").is_ok());
    assert!(Group::parse("Cache").is_err());
    assert_eq!(Group::parse("web-apps").unwrap().module(), "web_apps");
    // kubebuilder's dotted groups: the module joins the parts with `_`.
    assert_eq!(Group::parse("foo.policy").unwrap().module(), "foo_policy");
    assert_eq!(Group::parse("example.com").unwrap().module(), "example_com");
    assert_eq!(Group::parse("a-b.c-d").unwrap().module(), "a_b_c_d");
    for bad in [
        "cache.",
        ".cache",
        "foo..policy",
        "Foo.policy",
        "foo_policy",
        "foo.-x",
    ] {
        let err = Group::parse(bad).unwrap_err().to_string();
        assert!(
            err.contains("DNS-1123 subdomain") && err.contains("--group"),
            "{err}"
        );
    }
    assert!(ProjectName::parse("memcached-operator").is_ok());
    assert!(ProjectName::parse("Memcached").is_err());
    assert_eq!(project_name_from_dir("My_Operator"), "my-operator");
    assert!(Repo::parse("github.com/example/memcached-operator").is_ok());
    assert!(Repo::parse("https://github.com/x").is_err());
    assert!(Repo::parse("has space/x").is_err());
    for bad in ["..", "../x", "a//b", "-x", "a/./b", "a/", &"r".repeat(513)] {
        let err = Repo::parse(bad).unwrap_err().to_string();
        assert!(err.contains("--repo"), "{bad}: {err}");
    }
    assert!(Repo::parse("github.com/a/b.git").is_ok());
    assert!(Repo::parse("example.com/~user/x_y").is_ok());
    assert_eq!(parse_plural("memcacheds").unwrap(), "memcacheds");
    assert_eq!(
        parse_project_dir("--output-dir", "out/b/").unwrap(),
        "out/b"
    );
    assert_eq!(parse_owner("Ünïcode Authors").unwrap(), "Ünïcode Authors");
    for bad in ["", "a\nb", "a\0b", &"o".repeat(201)] {
        assert!(
            parse_owner(bad)
                .unwrap_err()
                .to_string()
                .contains("--owner")
        );
    }
    for bad in ["", "/tmp/x", "../x", "a/../../b", "a//b", "."] {
        let err = parse_project_dir("--output-dir", bad)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("inside the project") && err.contains("--output-dir"),
            "{err}"
        );
    }
    assert!(parse_plural("Memcacheds").is_err());
    let err = parse_plural("1caches").unwrap_err().to_string();
    assert!(
        err.contains("starting with a letter") && err.contains("--plural"),
        "{err}"
    );
    let err = parse_plural(&"p".repeat(64)).unwrap_err().to_string();
    assert!(err.contains("64 characters, more than the 63"), "{err}");
}

#[test]
fn plugin_aliases() {
    use crate::model::{ApiPlugin, Layout};
    assert_eq!(
        Layout::parse("hybrid.helm.sdk.operatorframework.io").unwrap(),
        Layout::HybridHelm
    );
    assert_eq!(Layout::parse("hybrid.helm").unwrap(), Layout::HybridHelm);
    assert_eq!(
        Layout::parse("helm.sdk.operatorframework.io/v1").unwrap(),
        Layout::Helm
    );
    assert_eq!(Layout::parse("rust").unwrap(), Layout::Rust);
    assert!(
        Layout::parse("go/v4")
            .unwrap_err()
            .to_string()
            .contains("go/v4")
    );
    assert_eq!(
        ApiPlugin::parse("helm.sdk.operatorframework.io/v1").unwrap(),
        ApiPlugin::Helm
    );
    assert!(!Layout::Helm.allows(ApiPlugin::Rust));
    assert!(Layout::HybridHelm.allows(ApiPlugin::Rust));
}
