//! Go signatures of every function a chart template can call, as Go's reflection
//! sees them: sprig v3.3.0's functions (Helm v4 removes `env` and `expandenv`) and
//! Helm's own. The engine checks arguments against them before a call, in Go's
//! order and with Go's messages, and types results by them (`add` gives an `int64`,
//! `splitList` a `[]string`).

/// `(name, Go function type)`, sorted by name, of the functions whose family has no
/// table of its own yet (`sprig::TABLES`).
pub(crate) const SIGNATURES: &[(&str, &str)] = &[
    ("fromJson", "func(string) map[string]interface {}"),
    ("fromJsonArray", "func(string) []interface {}"),
    ("fromToml", "func(string) map[string]interface {}"),
    ("fromYaml", "func(string) map[string]interface {}"),
    ("fromYamlArray", "func(string) []interface {}"),
    ("include", "func(string, interface {}) (string, error)"),
    (
        "lookup",
        "func(string, string, string, string) (map[string]interface {}, error)",
    ),
    ("mustToJson", "func(interface {}) string"),
    ("mustToToml", "func(interface {}) string"),
    ("mustToYaml", "func(interface {}) string"),
    (
        "required",
        "func(string, interface {}) (interface {}, error)",
    ),
    ("toToml", "func(interface {}) string"),
    ("toYaml", "func(interface {}) string"),
    ("toYamlPretty", "func(interface {}) string"),
    ("tpl", "func(string, interface {}) (string, error)"),
];
