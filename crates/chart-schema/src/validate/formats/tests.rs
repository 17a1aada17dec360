//! `format`: asserted before draft 2019-09 only, on strings only, in Helm's words
//! (each message checked with Helm's engine).
use super::super::*;
use super::check;
use serde_json::json;

fn errors(draft: &str, format: &str, value: &Value) -> Result<(), Vec<String>> {
    let mut schema = json!({"properties": {"u": {"format": format}}});
    if !draft.is_empty() {
        schema["$schema"] = json!(draft);
    }
    validate_json_schema(&json!({ "u": value }), &schema)
}

const D7: &str = "http://json-schema.org/draft-07/schema#";

#[test]
fn format_is_asserted_for_drafts_before_2019_only() {
    let bad = |draft| errors(draft, "uri", &json!("not a uri"));
    for draft in [
        D7,
        "http://json-schema.org/draft-04/schema#",
        "http://json-schema.org/draft-06/schema#",
    ] {
        assert_eq!(
            bad(draft).unwrap_err(),
            ["at '/u': 'not a uri' is not valid uri: relative url"]
        );
    }
    for draft in [
        "",
        "https://json-schema.org/draft/2019-09/schema",
        "https://json-schema.org/draft/2020-12/schema",
    ] {
        assert!(bad(draft).is_ok());
    }
    // Other values than strings, and unknown formats, pass.
    assert!(errors(D7, "uri", &json!(5)).is_ok());
    assert!(errors(D7, "foo", &json!("x")).is_ok());
}

#[test]
fn format_fails_before_the_other_keywords() {
    let schema = json!({"$schema": D7, "properties": {"u": {"format": "email", "minLength": 5}}});
    assert_eq!(
        validate_json_schema(&json!({"u": "x"}), &schema).unwrap_err(),
        ["at '/u': 'x' is not valid email: missing @"]
    );
}

#[test]
fn formats_explain_failures_like_helm() {
    for (format, text, why) in [
        (
            "ipv4",
            "1.2.3.x",
            "strconv.Atoi: parsing \"x\": invalid syntax",
        ),
        (
            "ipv6",
            "1::2::3",
            "ParseAddr(\"1::2::3\"): multiple :: in address (at \":3\")",
        ),
        (
            "ipv6",
            "::ffff:1.2.3",
            "ParseAddr(\"::ffff:1.2.3\"): IPv4 address too short",
        ),
        ("hostname", "a_b", "invalid character '_'"),
        ("email", "a@-b", "invalid domain: label starts with hyphen"),
        (
            "date",
            "2023-1-01",
            "parsing time \"2023-1-01\" as \"2006-01-02\": cannot parse \"1-01\" as \"01\"",
        ),
        (
            "date",
            "2023-02-29",
            "parsing time \"2023-02-29\": day out of range",
        ),
        (
            "date-time",
            "2024-01-01T00:00:61Z",
            "invalid time element: hour/min/sec out of range",
        ),
        ("time", "12:00:60Z", "invalid leap second"),
        ("duration", "P1D1Y", "unit 'Y' out of order"),
        (
            "uri",
            "http://[::zz]/",
            "parse \"http://[::zz]/\": invalid host: ParseAddr(\"::zz\"): each colon-separated field must have at least one digit (at \"zz\")",
        ),
        (
            "uri",
            "http://::1/",
            "parse \"http://::1/\": invalid port \"::1\" after host",
        ),
        (
            "uri-reference",
            "1a:b",
            "parse \"1a:b\": first path segment in URL cannot contain colon",
        ),
        ("uri-template", "http://x/{a", "no matching closing brace"),
        ("uuid", "123", "must have 5 elements"),
        (
            "semver",
            "1.2.3-01",
            "pre-release numeric identifier starts with zero",
        ),
        (
            "regex",
            "(a",
            "error parsing regexp: missing closing ): `(a`",
        ),
        ("json-pointer", "/a~2", "~ must be followed by 0 or 1"),
        ("relative-json-pointer", "01/a", "starts with zero"),
        ("period", "x", "missing slash"),
    ] {
        assert_eq!(
            check(format, text),
            Some(Err(why.to_string())),
            "{format} {text}"
        );
    }
    for (format, text) in [
        ("ipv4", "1.2.3.+1"),
        ("ipv6", "::ffff:1.2.3.4"),
        ("email", "a@[IPv6:::1]"),
        ("hostname", "a.b."),
        ("date", "2024-02-29"),
        ("time", "15:59:60-08:00"),
        ("uri", "http://[::1]:80"),
        ("uri-reference", "c:d:e"),
        ("iri", "mailto:x"),
        ("duration", "P1W"),
        ("period", "2024-01-01T00:00:00Z/P1D"),
        ("semver", "1.2.3-rc.1+b.2"),
    ] {
        assert_eq!(check(format, text), Some(Ok(())), "{format} {text}");
    }
}

#[test]
fn a_trailing_backslash_loses_its_escape_in_messages() {
    // The validator unescapes `\"` over the whole Go literal, closing quote included.
    assert_eq!(
        errors(D7, "uri-reference", &json!("a\\")).unwrap_err(),
        ["at '/u': 'a\\' is not valid uri-reference: contains \\"]
    );
    assert_eq!(
        errors(D7, "email", &json!("\\a@b")).unwrap_err(),
        ["at '/u': '\\\\a@b' is not valid email: invalid character '\\\\'"]
    );
    assert_eq!(
        errors(D7, "uri", &json!("http://a[b/")).unwrap_err(),
        ["at '/u': 'http://a[b/' is not valid uri: parse \"http://a[b/\": invalid IP-literal"]
    );
}

#[test]
fn before_2019_a_ref_hides_the_format_and_type_beside_it() {
    let schema = json!({"$schema": D7, "definitions": {"p": {"type": "integer"}},
        "properties": {"u": {"$ref": "#/definitions/p", "format": "email", "type": "string"}}});
    assert!(validate_json_schema(&json!({"u": 5}), &schema).is_ok());
    assert_eq!(
        validate_json_schema(&json!({"u": "x"}), &schema).unwrap_err(),
        ["at '/u': got string, want integer"]
    );
}

/// Every format answers (valid or a reason) for any string a values file can hold: cut
/// multi-byte characters, stray escapes and brackets, empty and long input; no panic.
#[test]
fn every_format_answers_any_string_without_panicking() {
    const FORMATS: [&str; 19] = [
        "json-pointer",
        "relative-json-pointer",
        "uuid",
        "duration",
        "period",
        "ipv4",
        "ipv6",
        "hostname",
        "email",
        "date",
        "time",
        "date-time",
        "uri",
        "uri-reference",
        "uri-template",
        "semver",
        "regex",
        "iri",
        "iri-reference",
    ];
    let pieces = [
        "",
        "é",
        "日本",
        "%",
        "%2",
        "%e9",
        "%25",
        "[",
        "]",
        "[::1",
        "::",
        ":",
        "@",
        "/",
        "#",
        "?",
        "{",
        "}",
        "+",
        "-",
        ".",
        "0",
        "1",
        "255",
        "256",
        "T",
        "Z",
        "P",
        "\\",
        "a",
        "\u{0}",
        "\u{10FFFF}",
        "~1",
        "1:2:3:4:5:6:7:8",
        "2024-02-30",
        "23:59:60",
    ];
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        usize::try_from(seed % n as u64).unwrap()
    };
    for _ in 0..20_000 {
        let text: String = (0..next(8)).map(|_| pieces[next(pieces.len())]).collect();
        for format in FORMATS {
            assert!(check(format, &text).is_some(), "{format}");
        }
    }
    let long = "a.".repeat(100_000);
    for format in FORMATS {
        assert!(check(format, &long).is_some(), "{format}");
    }
}
