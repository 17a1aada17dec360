//! End-to-end checks: templates rendered through our engine with these functions, with
//! the output Go's sprig (through Helm v4.2.3's engine) gives for the same template.
use gotemplate::{MissingKey, Templates, Value};

use super::funcs;

pub(crate) fn render(src: &str, data: &Value) -> Result<String, String> {
    let mut set = Templates::new("gotpl");
    set.funcs(&funcs()).missing_key(MissingKey::Zero);
    crate::funcs::declare_signatures(&mut set);
    let parsed = set.parse("t", src).map_err(|e| e.to_string())?;
    set.execute_parsed(&parsed, data)
        // Helm's engine blanks Go's "<no value>" (a nil result).
        .map(|out| out.replace("<no value>", ""))
        .map_err(|e| e.to_string())
}

pub(crate) fn r(src: &str) -> String {
    render(src, &values()).unwrap_or_else(|e| panic!("{src}: {e}"))
}

/// Values as Helm hands them to templates: numbers are float64.
pub(crate) fn values() -> Value {
    crate::gojson::decode(
        r#"{"n": 3, "big": 1000000, "f": 1.5, "s": "hello", "list": ["a", "b", "a"],
            "map": {"x": 1, "y": {"z": "deep"}}, "empty": "", "nil": null, "t": true}"#,
    )
    .unwrap_or(Value::Nil)
}

/// sprig v3.3.0's genericMap, which Helm takes minus `env` and `expandenv`.
const SPRIG_NAMES: &[&str] = &[
    "abbrev",
    "abbrevboth",
    "add",
    "add1",
    "add1f",
    "addf",
    "adler32sum",
    "ago",
    "all",
    "any",
    "append",
    "atoi",
    "b32dec",
    "b32enc",
    "b64dec",
    "b64enc",
    "base",
    "bcrypt",
    "biggest",
    "buildCustomCert",
    "camelcase",
    "cat",
    "ceil",
    "chunk",
    "clean",
    "coalesce",
    "compact",
    "concat",
    "contains",
    "date",
    "dateInZone",
    "dateModify",
    "date_in_zone",
    "date_modify",
    "decryptAES",
    "deepCopy",
    "deepEqual",
    "default",
    "derivePassword",
    "dict",
    "dig",
    "dir",
    "div",
    "divf",
    "duration",
    "durationRound",
    "empty",
    "encryptAES",
    "ext",
    "fail",
    "first",
    "float64",
    "floor",
    "fromJson",
    "genCA",
    "genCAWithKey",
    "genPrivateKey",
    "genSelfSignedCert",
    "genSelfSignedCertWithKey",
    "genSignedCert",
    "genSignedCertWithKey",
    "get",
    "getHostByName",
    "has",
    "hasKey",
    "hasPrefix",
    "hasSuffix",
    "hello",
    "htmlDate",
    "htmlDateInZone",
    "htpasswd",
    "indent",
    "initial",
    "initials",
    "int",
    "int64",
    "isAbs",
    "join",
    "kebabcase",
    "keys",
    "kindIs",
    "kindOf",
    "last",
    "list",
    "lower",
    "max",
    "maxf",
    "merge",
    "mergeOverwrite",
    "min",
    "minf",
    "mod",
    "mul",
    "mulf",
    "mustAppend",
    "mustChunk",
    "mustCompact",
    "mustDateModify",
    "mustDeepCopy",
    "mustFirst",
    "mustFromJson",
    "mustHas",
    "mustInitial",
    "mustLast",
    "mustMerge",
    "mustMergeOverwrite",
    "mustPrepend",
    "mustPush",
    "mustRegexFind",
    "mustRegexFindAll",
    "mustRegexMatch",
    "mustRegexReplaceAll",
    "mustRegexReplaceAllLiteral",
    "mustRegexSplit",
    "mustRest",
    "mustReverse",
    "mustSlice",
    "mustToDate",
    "mustToJson",
    "mustToPrettyJson",
    "mustToRawJson",
    "mustUniq",
    "mustWithout",
    "must_date_modify",
    "nindent",
    "nospace",
    "now",
    "omit",
    "osBase",
    "osClean",
    "osDir",
    "osExt",
    "osIsAbs",
    "pick",
    "pluck",
    "plural",
    "prepend",
    "push",
    "quote",
    "randAlpha",
    "randAlphaNum",
    "randAscii",
    "randBytes",
    "randInt",
    "randNumeric",
    "regexFind",
    "regexFindAll",
    "regexMatch",
    "regexQuoteMeta",
    "regexReplaceAll",
    "regexReplaceAllLiteral",
    "regexSplit",
    "repeat",
    "replace",
    "rest",
    "reverse",
    "round",
    "semver",
    "semverCompare",
    "seq",
    "set",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "shuffle",
    "slice",
    "snakecase",
    "sortAlpha",
    "split",
    "splitList",
    "splitn",
    "squote",
    "sub",
    "subf",
    "substr",
    "swapcase",
    "ternary",
    "title",
    "toDate",
    "toDecimal",
    "toJson",
    "toPrettyJson",
    "toRawJson",
    "toString",
    "toStrings",
    "trim",
    "trimAll",
    "trimPrefix",
    "trimSuffix",
    "trimall",
    "trunc",
    "tuple",
    "typeIs",
    "typeIsLike",
    "typeOf",
    "uniq",
    "unixEpoch",
    "unset",
    "until",
    "untilStep",
    "untitle",
    "upper",
    "urlJoin",
    "urlParse",
    "uuidv4",
    "values",
    "without",
    "wrap",
    "wrapWith",
];

#[test]
fn function_set_is_helms() {
    let f = funcs();
    for name in ["env", "expandenv"] {
        assert!(!f.contains_key(name), "{name} must not be offered");
    }
    let missing: Vec<&str> = SPRIG_NAMES
        .iter()
        .copied()
        .filter(|n| !f.contains_key(*n))
        .collect();
    assert!(missing.is_empty(), "missing sprig functions: {missing:?}");
    let extra: Vec<&String> = f
        .keys()
        .filter(|n| !SPRIG_NAMES.contains(&n.as_str()))
        .collect();
    assert!(extra.is_empty(), "functions sprig does not have: {extra:?}");
}

/// Template data for the oracle cases: the values plus Helm's default Capabilities.
fn oracle_data(values: &serde_json::Value) -> Value {
    let data = serde_json::json!({
        "Values": values,
        "Capabilities": {"KubeVersion": {"GitVersion": "v1.36.0", "Version": "v1.36.0"}},
    });
    crate::gojson::decode(&data.to_string()).unwrap_or(Value::Nil)
}

#[test]
fn matches_helm_on_oracle_cases() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let read = |name: &str| -> serde_json::Value {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        serde_json::from_str(&text).unwrap()
    };
    let (spec, expected) = (read("sprig-cases.json"), read("sprig-expected.json"));
    let mut failures = Vec::new();
    let sets = spec["sets"].as_array().unwrap();
    for (set, expected) in sets.iter().zip(expected["sets"].as_array().unwrap()) {
        let data = oracle_data(&set["values"]);
        for (name, template) in set["cases"].as_object().unwrap() {
            let ours = render(template.as_str().unwrap(), &data);
            match (&expected[name], ours) {
                (serde_json::Value::String(want), Ok(got)) if *want == got => {}
                (serde_json::Value::Object(e), Err(_)) if e.contains_key("error") => {}
                (want, got) => failures.push(format!("{name}:\n  helm: {want}\n  ours: {got:?}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn go_type_rules_for_parameters() {
    // A float64 from values.yaml is refused where Go wants an int...
    let err = render("{{ trunc .n \"hello\" }}", &values()).unwrap_err();
    assert!(err.contains("expected int; got float64"), "{err}");
    // ...and a number where Go wants a string.
    let err = render("{{ upper .n }}", &values()).unwrap_err();
    assert!(err.contains("expected string; got float64"), "{err}");
    // The nil constant is an empty map for map parameters, as in Go...
    assert_eq!(
        r("{{ hasKey nil \"a\" }}|{{ get nil \"a\" }}|{{ keys nil }}"),
        "false||[]"
    );
    // ...but a null value is a nil interface, which Go refuses before the call.
    let err = render("{{ hasKey .nil \"a\" }}", &values()).unwrap_err();
    assert!(
        err.contains(
            "at <.nil>: wrong type for value; expected map[string]interface {}; got interface {}"
        ),
        "{err}"
    );
    // Arity is checked before any argument is evaluated.
    let err = render("{{ trunc (fail \"not reached\") }}", &values()).unwrap_err();
    assert!(
        err.contains("wrong number of args for trunc: want 2 got 1"),
        "{err}"
    );
    // Interface parameters take anything; integer conversion truncates float64.
    assert_eq!(
        r("{{ int .f }}|{{ add .f .n }}|{{ toString .big }}"),
        "1|4|1e+06"
    );
}

#[test]
fn list_functions_fail_like_go_on_non_lists() {
    let err = render("{{ first .s }}", &values()).unwrap_err();
    assert!(err.contains("Cannot find first on type string"), "{err}");
    let err = render("{{ concat .list .s }}", &values()).unwrap_err();
    assert!(err.contains("Cannot concat type string as list"), "{err}");
    assert_eq!(r("{{ has \"a\" .nil }}"), "false");
    let err = render("{{ div 1 0 }}", &values()).unwrap_err();
    assert!(err.contains("integer divide by zero"), "{err}");
}

#[test]
fn dict_functions_return_the_changed_map() {
    assert_eq!(r("{{ set .map \"x\" 2 }}"), "map[x:2 y:map[z:deep]]");
    assert_eq!(r("{{ unset .map \"y\" }}"), "map[x:1]");
    assert_eq!(
        r("{{ $d := dict \"a\" 1 }}{{ $d = set $d \"b\" 2 }}{{ $d }}"),
        "map[a:1 b:2]"
    );
    let err = render("{{ set nil \"a\" 1 }}", &values()).unwrap_err();
    assert!(err.contains("assignment to entry in nil map"), "{err}");
    let err = render("{{ dig \"s\" \"x\" \"d\" . }}", &values()).unwrap_err();
    assert!(err.contains("not map[string]interface {}"), "{err}");
}

#[test]
fn regex_errors_name_the_pattern() {
    let err = render("{{ regexFind \"(\" \"x\" }}", &values()).unwrap_err();
    assert!(err.contains("error parsing regexp"), "{err}");
    assert_eq!(r("{{ regexMatch \"(\" \"x\" }}"), "false");
}

#[test]
fn certificates_come_as_pem_in_cert_and_key() {
    let out = r(
        "{{ $ca := genCA \"ca\" 365 }}{{ $c := genSignedCert \"svc\" (list \"10.0.0.1\") (list \"svc.local\") 30 $ca }}{{ $c.Cert | b64enc | b64dec }}{{ $c.Key }}",
    );
    assert!(out.starts_with("-----BEGIN CERTIFICATE-----\n"), "{out}");
    assert!(out.contains("-----BEGIN RSA PRIVATE KEY-----\n"), "{out}");
    let err = render("{{ genSignedCert \"svc\" nil nil 30 .map }}", &values()).unwrap_err();
    assert!(err.contains("sprig.certificate"), "{err}");
    let htpasswd = r("{{ htpasswd \"admin\" \"secret\" }}");
    assert!(
        htpasswd.starts_with("admin:$2a$10$") && htpasswd.len() == 66,
        "{htpasswd}"
    );
    assert_eq!(
        r("{{ randAlphaNum 12 | len }}|{{ randNumeric 4 | regexMatch \"^[0-9]{4}$\" }}"),
        "12|true"
    );
    assert!(r("{{ uuidv4 }}").len() == 36);
}

/// Every function, called with every combination of up to three awkward arguments,
/// returns a value or an error, and never panics.
#[test]
fn no_function_panics_on_odd_arguments() {
    let samples = [
        Value::Nil,
        Value::Int(-1),
        Value::Int(3),
        Value::Float(1.5),
        Value::from(""),
        Value::from("a-B_c 1.2"),
        Value::from(vec![Value::Int(1), Value::from("a"), Value::Nil]),
        crate::gojson::decode(r#"{"a": {"b": 1}, "Cert": "x", "Key": "y"}"#).unwrap_or(Value::Nil),
    ];
    let mut panics = Vec::new();
    for (name, f) in funcs() {
        for arity in 0..=3u32 {
            for combo in 0..samples.len().pow(arity) {
                // Fresh copies: `set`/`merge` change maps in place, as in Go, and a map
                // that came to contain itself would recurse forever in later calls.
                let args: Vec<Value> = (0..arity)
                    .map(|i| {
                        super::dicts::deep_copy(
                            &samples[combo / samples.len().pow(i) % samples.len()],
                        )
                    })
                    .collect();
                let call = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&args)));
                if call.is_err() {
                    panics.push(format!("{name}{args:?}"));
                }
            }
        }
    }
    assert!(panics.is_empty(), "panicked: {panics:?}");
}

/// Sprig's `nospace` (goutils.DeleteWhiteSpace) walks bytes, not characters: Helm turns
/// "héllo 日本" into Latin-1 mojibake and keeps a no-break space (upstream
/// Masterminds/goutils#29, open since 2020). We delete Unicode white space from
/// characters, as the function means to; ASCII input gives Helm's result.
#[test]
fn nospace_deletes_white_space_from_characters_not_bytes() {
    assert_eq!(r(r#"{{ nospace "héllo 日本 🎉" }}"#), "héllo日本🎉");
    assert_eq!(r("{{ nospace \"a\u{a0}b\u{3000}c\" }}"), "abc");
    assert_eq!(r(r#"{{ nospace " a\tb\nc " }}"#), "abc");
}
