#!/usr/bin/env python3
"""Generate the cases of the differential test as JSON on stdout.

Output: {"base": {path in chart: text}, "cases": [{"id", "files", "values"}]}. A case's
chart is the base chart (Chart.yaml, values.yaml, helpers, files/) plus its own files,
which replace base files of the same path; a file given as a list of numbers is raw
bytes (a BOM, invalid UTF-8). Hand-picked cases come from cases_hand.py; random ones are composed from small
expression and statement grammars with a fixed seed, so a run is reproducible.

    python gen_cases.py [--random N] [--seed S] > cases.json
"""
import argparse
import json
import random
import re
import sys

from cases_hand import ALL
from cases_meta import meta_cases
from cases_uneval import uneval_cases

CHART_YAML = """apiVersion: v2
name: c
version: 0.1.0
appVersion: "1.16.0"
description: differential test chart
keywords: [a, b]
annotations:
  text: hello
  other: "x y"
"""

VALUES_YAML = """str: hello
int: 1
float: 3.5
bigFloat: 1000000.0
hugeInt: 100000000000000000000
int53: 9007199254740993
maxInt: 9223372036854775807
nullv: null
list: [1, 2, 3, 4]
strList: [a, "b c"]
emptyList: []
emptyMap: {}
map: {a: x, b: 2}
nested: {l1: {l2: deep, n: 1.5}, "10": ten, "2": two}
listOfMaps: [{k: v}, {k: w}]
tplStr: "{{ .Release.Name }}-{{ .Values.str }}"
unicode: "héllo 日本 🎉"
multiline: "a\\nb\\n"
"""

HELPERS = """{{- define "h.name" -}}{{ .Chart.Name }}-{{ .Release.Name }}{{- end -}}
{{- define "h.labels" -}}
app: {{ include "h.name" . }}
chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}
{{- define "h.fail" -}}
{{ .Values.missing.deeper }}
{{- end -}}
{{- define "h.rec" -}}{{ include "h.rec" . }}{{- end -}}
{{- define "h.tname" -}}{{ .Template.Name }}{{- end -}}
{{- define "h.setter" -}}{{ $_ := set .Values "fromHelper" "set" }}{{- end -}}
"""

BASE = {
    "Chart.yaml": CHART_YAML,
    "values.yaml": VALUES_YAML,
    "templates/_helpers.tpl": HELPERS,
    "files/a.txt": "line one\nline two\n\nlast",
    "files/b.json": '{"k": 1}\n',
    "files/t.tpl": "name={{ .Release.Name }} v={{ .Values.str }}\n",
}

USER_VALUES = [
    {},
    {"str": "user", "int": 2, "map": {"a": None, "c": [1, {"d": 2}]}},
    {"int": 9007199254740993, "float": 1e20, "list": [], "str": ""},
    {"nested": {"l1": {"l2": {"deeper": {"deepest": [1, 2.5, "x", None, True]}}}}},
    {"str": "日本語 é 🎉 \"quote\" 'single' \\ back", "map": {}},
    {"list": [3, 2, 1], "float": 0.1, "int": -5, "nullv": "now-set"},
]


def case(cid, templates, values=None, files=None):
    """A case stores only the files it adds to or changes in BASE."""
    f = dict(files or {})
    for name, text in templates.items():
        if text is not None:
            f[f"templates/{name}"] = text
    return {"id": cid, "files": f, "values": values or {}}


def hand_cases():
    out = []
    for name, text in ALL:
        out.append(case(f"hand/{name}", {"t.yaml": text}))
    # The same snippets under other user values, for the ones that read .Values.
    for i, uv in enumerate(USER_VALUES[1:], 1):
        for name, text in ALL:
            if ".Values" in text:
                out.append(case(f"hand-v{i}/{name}", {"t.yaml": text}, uv))
    return out


def chart_cases():
    """Cases about the chart files themselves rather than one template."""
    bom = "\ufeff" + VALUES_YAML
    t = {"t.yaml": "{{ .Values.str }} {{ .Chart.Annotations | toJson }}"}
    return [
        case("chart/values-bom", t, files={"values.yaml": bom}),
        case("chart/chart-bom", t, files={"Chart.yaml": "\ufeff" + CHART_YAML}),
        case("chart/values-empty", {"t.yaml": "{{ .Values | toJson }}"}, files={"values.yaml": ""}),
        case("chart/values-null", {"t.yaml": "{{ .Values | toJson }}"}, files={"values.yaml": "~\n"}),
        case("chart/values-list", {"t.yaml": "{{ .Values | toJson }}"}, files={"values.yaml": "- 1\n"}),
        case("chart/values-dup-key", {"t.yaml": "{{ .Values | toJson }}"}, files={"values.yaml": "a: 1\na: 2\n"}),
        case("chart/values-anchor", {"t.yaml": "{{ .Values | toJson }}"}, files={"values.yaml": "a: &x {b: 1}\nc: *x\n"}),
        case("chart/values-merge-key", {"t.yaml": "{{ .Values | toJson }}"}, files={"values.yaml": "a: &x {b: 1}\nc: {<<: *x, d: 2}\n"}),
        case("chart/values-yaml11", {"t.yaml": "{{ .Values | toJson }}"}, files={"values.yaml": "a: yes\nb: on\nc: 0o17\nd: 017\ne: 1_000\nf: .inf\ng: 0x1F\nh: 1e3\ni: 2001-01-01\n"}),
        case("chart/values-null-override", {"t.yaml": "{{ .Values | toJson }}"}, {"map": None, "str": None}),
        case("chart/values-null-nested", {"t.yaml": "{{ .Values.map | toJson }}"}, {"map": {"a": None}}),
        case("chart/no-appversion", {"t.yaml": "[{{ .Chart.AppVersion }}]"}, files={"Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0.0\n"}),
        case("chart/ann-bool", {"t.yaml": "{{ .Chart.Annotations | toJson }}"}, files={"Chart.yaml": CHART_YAML + "  flag: true\n"}),
        case("chart/ann-int", {"t.yaml": "{{ .Chart.Annotations | toJson }}"}, files={"Chart.yaml": CHART_YAML + "  count: 3\n"}),
        case("chart/ann-quoted", {"t.yaml": "{{ .Chart.Annotations | toJson }}"}, files={"Chart.yaml": CHART_YAML + "  \"q\": 'x'\n  n: ~\n  f: 1.50\n"}),
        case("chart/notes", {"NOTES.txt": "notes {{ .Release.Name }}", "t.yaml": "x"}),
        case("chart/empty-template", {"t.yaml": "", "u.yaml": "   \n"}),
        case("chart/two-templates-order", {"a.yaml": "{{ $_ := set .Values \"k\" \"from-a\" }}a", "b.yaml": "{{ .Values.k }}"}),
        case("chart/subdir", {"sub/x.yaml": "{{ .Template.Name }} {{ .Template.BasePath }}"}),
        case("chart/helper-error-line", {"t.yaml": "line1\n{{ include \"h.fail\" . }}"}),
        case("chart/define-in-template", {"a.yaml": "{{ define \"shared\" }}S{{ end }}", "b.yaml": "{{ include \"shared\" . }}"}),
        case("chart/define-conflict", {"a.yaml": "{{ define \"dup\" }}A{{ end }}", "b.yaml": "{{ define \"dup\" }}B{{ end }}{{ include \"dup\" . }}"}),
        case("chart/invalid-utf8-template", {"t.yaml": None}, files={"templates/t.yaml": [97, 0xff, 98, 123, 123, 32, 49, 32, 125, 125]}),
        case("chart/invalid-utf8-values", {"t.yaml": "{{ .Values.s }}"}, files={"values.yaml": [115, 58, 32, 97, 0xfe, 98, 10]}),
    ] + subchart_section_cases() + typed_map_cases()


def typed_map_cases():
    """`.Chart.Annotations` and `split`'s result are map[string]string, which sprig's dict
    functions (typed map[string]interface {}) refuse."""
    snippets = {
        "type": "{{ typeOf .Chart.Annotations }} {{ printf \"%T\" .Chart.Annotations }}",
        "haskey": "{{ hasKey .Chart.Annotations \"text\" }}",
        "keys": "{{ keys .Chart.Annotations | sortAlpha }}",
        "dig": "{{ dig \"text\" \"x\" .Chart.Annotations }}",
        "read": "{{ .Chart.Annotations.text }} {{ index .Chart.Annotations \"other\" }} {{ .Chart.Annotations | toJson }}",
        "range": "{{ range $k, $v := .Chart.Annotations }}{{ $k }}={{ $v }};{{ end }}",
        "split-haskey": "{{ hasKey (split \",\" \"a,b\") \"_0\" }}",
        "split-get": "{{ get (split \",\" \"a,b\") \"_0\" }}",
        "split-read": "{{ (split \",\" \"a,b\")._1 }} {{ split \",\" \"a,b\" | toJson }}",
    }
    out = [case(f"chart/typed-map-{name}", {"t.yaml": text}) for name, text in snippets.items()]
    # Without annotations in Chart.yaml the map is nil: JSON and YAML print null.
    nil_ann = ("{{ .Chart.Annotations | toYaml }}|{{ .Chart.Annotations | toJson }}|"
               "{{ len .Chart.Annotations }}|{{ with .Chart.Annotations }}x{{ end }}|"
               "{{ .Chart.Annotations }}|{{ empty .Chart.Annotations }}|"
               "{{ dict \"a\" .Chart.Annotations | toYaml }}|{{ list .Chart.Annotations | toJson }}|"
               "{{ deepCopy .Chart.Annotations | toJson }}|"
               "{{ printf \"%v %#v\" .Chart.Annotations .Chart.Annotations }}|{{ .Chart | toJson }}")
    plain = "apiVersion: v2\nname: c\nversion: 0.1.0\n"
    out.append(case("chart/typed-map-nil-annotations", {"t.yaml": nil_ann}, files={"Chart.yaml": plain}))
    out.append(case("chart/typed-map-null-annotations", {"t.yaml": nil_ann},
                    files={"Chart.yaml": plain + "annotations:\n"}))
    out.append(case("chart/typed-map-empty-annotations", {"t.yaml": nil_ann},
                    files={"Chart.yaml": plain + "annotations: {}\n"}))
    # Go structs marshal to JSON in field order, not sorted.
    out.append(case("chart/struct-json-field-order", {"t.yaml": (
        "{{ .Capabilities.KubeVersion | toJson }} {{ .Capabilities.HelmVersion | toJson }} "
        "{{ .Capabilities.KubeVersion | toPrettyJson }} {{ .Capabilities.KubeVersion | toYaml }} "
        "{{ dict \"k\" .Capabilities.KubeVersion | toJson }} {{ .Capabilities | toJson | trunc 80 }}")}))
    return out


def subchart_section_cases():
    """A subchart's section of the values that is not a map: Helm refuses the chart."""
    dep = CHART_YAML + "dependencies:\n- name: s\n  version: 0.1.0\n"
    sub = {"charts/s/Chart.yaml": "apiVersion: v2\nname: s\nversion: 0.1.0\n",
           "charts/s/values.yaml": "x: 1\n", "charts/s/templates/s.yaml": "{{ .Values.x }}"}
    t = {"t.yaml": "{{ .Values.s | toJson }}"}
    nested = dict(sub, **{"charts/s/Chart.yaml": "apiVersion: v2\nname: s\nversion: 0.1.0\n"
                          "dependencies:\n- name: n\n  version: 0.1.0\n",
                          "charts/s/values.yaml": "n: [1, \"b\", true]\n",
                          "charts/s/charts/n/Chart.yaml": "apiVersion: v2\nname: n\nversion: 0.1.0\n"})
    return [
        case("chart/subchart-section-map", t, {"s": {"x": 2}}, files=dict(sub, **{"Chart.yaml": dep})),
        case("chart/subchart-section-user-string", t, {"s": "x"}, files=dict(sub, **{"Chart.yaml": dep})),
        case("chart/subchart-section-user-null", t, {"s": None}, files=dict(sub, **{"Chart.yaml": dep})),
        case("chart/subchart-section-user-null-over-default", t, {"s": None},
             files=dict(sub, **{"Chart.yaml": dep, "values.yaml": "s:\n  x: 3\n"})),
        case("chart/subchart-section-default-null", t, files=dict(sub, **{"Chart.yaml": dep, "values.yaml": "s: null\n"})),
        case("chart/subchart-section-default-bool", t, files=dict(sub, **{"Chart.yaml": dep, "values.yaml": "s: true\n"})),
        case("chart/subchart-section-undeclared-int", t, {"s": 7}, files=sub),
        case("chart/subchart-section-nested-list", t, files=dict(nested, **{"Chart.yaml": dep})),
        # Scalars where Chart.yaml wants strings become strings (YAML 1.1: y, on, yes).
        case("chart/dependency-scalar-fields",
             {"t.yaml": "{{ .Chart.Dependencies | toJson }}|{{ .Values.tags | toJson }}"},
             {"tags": {"true": True}},
             files=dict(sub, **{"Chart.yaml": CHART_YAML + "dependencies:\n- name: s\n  version: 0.1.0\n"
                                "  condition: yes\n  tags: [y, on, 1]\n"})),
    ]



# values.schema.json cases: (id, schema, values.yaml). Only cases whose message is the
# same on every run: Helm's validator visits a map's keys in Go's random order, so a
# case with two errors on one object would not be reproducible.
D7 = "http://json-schema.org/draft-07/schema#"
SCHEMA_CASES = [
    ("pattern", {"type": "object", "properties": {"s": {"type": "string", "pattern": "^[a-z]+$"}}}, "s: ABC\n"),
    ("pattern-re2-class", {"type": "object", "properties": {"s": {"pattern": "^[\\w-\\.]+$"}}}, "s: a-b.c\n"),
    ("pattern-trailing-backslash", {"type": "object", "properties": {"s": {"pattern": "^[a-z]+$"}}}, 's: "ab\\\\"\n'),
    ("format-beside-ref-d7", {"$schema": D7, "definitions": {"p": {"type": "integer"}}, "type": "object", "properties": {"u": {"$ref": "#/definitions/p", "format": "email"}}}, "u: x\n"),
    ("ref-sibling-type-ignored-d7", {"$schema": D7, "definitions": {"p": {"type": "integer"}}, "type": "object", "properties": {"num": {"$ref": "#/definitions/p", "type": "string"}}}, "num: 5\n"),
    ("format-in-ref-d7", {"$schema": D7, "definitions": {"p": {"format": "ipv4"}}, "type": "object", "properties": {"u": {"$ref": "#/definitions/p"}}}, "u: x\n"),
    ("format-after-enum-d7", {"$schema": D7, "type": "object", "properties": {"u": {"enum": ["a"], "format": "email"}}}, "u: x\n"),
    ("format-in-any-of-d7", {"$schema": D7, "type": "object", "properties": {"u": {"anyOf": [{"format": "ipv4"}, {"format": "ipv6"}]}}}, "u: x\n"),
    ("pattern-not-string", {"type": "object", "properties": {"s": {"pattern": "^a"}}}, "s: 5\n"),
    ("pattern-properties", {"type": "object", "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": False}, "x-a: s\n"),
    ("pattern-properties-bad", {"type": "object", "patternProperties": {"^x-": {"type": "string"}}}, "x-a: 1\n"),
    ("pattern-properties-additional", {"type": "object", "patternProperties": {"^x": {"type": "string"}}, "additionalProperties": {"type": "integer"}}, "xa: s\nb: 1\n"),
    ("if-then", {"type": "object", "if": {"properties": {"a": {"const": True}}}, "then": {"required": ["b"]}}, "a: true\n"),
    ("if-else", {"type": "object", "if": {"properties": {"a": {"const": True}}}, "then": {"required": ["b"]}, "else": {"required": ["c"]}}, "a: false\n"),
    ("not", {"type": "object", "properties": {"a": {"not": {"type": "string"}}}}, "a: x\n"),
    ("min-properties", {"type": "object", "properties": {"m": {"type": "object", "minProperties": 1}}}, "m: {}\n"),
    ("max-properties", {"type": "object", "properties": {"m": {"type": "object", "maxProperties": 1}}}, "m: {a: 1, b: 2}\n"),
    ("unique-items", {"type": "object", "properties": {"l": {"type": "array", "uniqueItems": True}}}, "l: [1, 2, 1.0]\n"),
    ("property-names", {"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}}, "A: 1\n"),
    ("dependencies-d7", {"$schema": D7, "type": "object", "dependencies": {"a": ["b"]}}, "a: 1\n"),
    ("dependent-required", {"type": "object", "dependentRequired": {"a": ["b", "c"]}}, "a: 1\n"),
    ("exclusive-minimum", {"type": "object", "properties": {"num": {"exclusiveMinimum": 1}}}, "num: 1\n"),
    ("exclusive-maximum-d4", {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object", "properties": {"num": {"maximum": 1, "exclusiveMaximum": True}}}, "num: 1\n"),
    ("multiple-of", {"type": "object", "properties": {"num": {"multipleOf": 2}}}, "num: 3\n"),
    ("multiple-of-float", {"type": "object", "properties": {"num": {"multipleOf": 0.1}}}, "num: 0.3\n"),
    ("contains", {"type": "object", "properties": {"l": {"contains": {"const": 5}}}}, "l: [1]\n"),
    ("items-tuple-d7", {"$schema": D7, "type": "object", "properties": {"l": {"items": [{"type": "string"}], "additionalItems": False}}}, "l: [a, b]\n"),
    ("prefix-items", {"type": "object", "properties": {"l": {"prefixItems": [{"type": "string"}], "items": False}}}, "l: [a, b]\n"),
    ("enum-number", {"type": "object", "properties": {"num": {"enum": [1]}}}, "num: 1.0\n"),
    ("enum-one", {"type": "object", "properties": {"b": {"enum": ["x"]}}}, "b: y\n"),
    ("one-of-none", {"type": "object", "properties": {"p": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}}, "p: true\n"),
    ("one-of-two", {"type": "object", "properties": {"p": {"oneOf": [{"type": "string"}, {"minLength": 1}]}}}, "p: ab\n"),
    ("any-of", {"type": "object", "properties": {"p": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}}, "p: true\n"),
    ("all-of", {"type": "object", "properties": {"p": {"allOf": [{"type": "string"}, {"minLength": 3}]}}}, "p: ab\n"),
    ("const-object", {"type": "object", "properties": {"o": {"const": {"a": 1}}}}, "o: {a: 2}\n"),
    ("type-list-order", {"type": "object", "properties": {"s": {"type": ["string", "integer"]}}}, "s: true\n"),
    ("ref-sibling-d7", {"$schema": D7, "definitions": {"p": {"type": "integer"}}, "type": "object", "properties": {"num": {"$ref": "#/definitions/p", "type": "string"}}}, "num: x\n"),
    ("required-two", {"type": "object", "required": ["z", "a"]}, "b: 1\n"),
    ("ref-by-own-id", {"$id": "https://example.invalid/s.json", "definitions": {"p": {"type": "integer"}}, "type": "object", "properties": {"num": {"$ref": "https://example.invalid/s.json#/definitions/p"}}}, "num: x\n"),
    ("ref-relative-to-id", {"$id": "https://example.invalid/dir/s.json", "definitions": {"p": {"type": "integer"}}, "type": "object", "properties": {"num": {"$ref": "s.json#/definitions/p"}}}, "num: x\n"),
    ("remote-ref-in-examples", {"type": "object", "examples": [{"$ref": "https://example.invalid/x.json"}], "properties": {"num": {"type": "integer"}}}, "num: 1\n"),
    ("remote-ref-never-referenced", {"type": "object", "definitions": {"x": {"$ref": "https://example.invalid/x.json"}}, "properties": {"num": {"type": "integer"}}}, "num: 1\n"),
    ("ref-missing-root", {"$ref": "#/definitions/nope"}, "num: 1\n"),
    ("ref-missing-unused-property", {"properties": {"zz": {"$ref": "#/$defs/x"}}}, "num: 1\n"),
    ("ref-missing-d7", {"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"num": {"$ref": "#/definitions/x"}}}, "num: 1\n"),
    ("ref-missing-with-id", {"$id": "https://example.invalid/s.json", "properties": {"num": {"$ref": "#/definitions/x"}}}, "num: 1\n"),
    ("ref-missing-unreached", {"$defs": {"x": {"$ref": "#/nope"}}, "properties": {"num": {"type": "integer"}}}, "num: 1\n"),
    ("ref-escaped-pointers", {"$defs": {"a b": {"type": "integer"}, "c/d": {"type": "integer"}}, "properties": {"num": {"$ref": "#/$defs/a%20b"}, "n2": {"$ref": "#/$defs/c~1d"}}}, "num: x\nn2: 1\n"),
    ("group-flattened", {"properties": {"num": {"multipleOf": 2, "exclusiveMinimum": 3}}}, "num: 3\n"),
    ("group-nested", {"required": ["zz"], "properties": {"num": {"multipleOf": 2, "exclusiveMinimum": 3}}}, "num: 3\n"),
]

# `format` cases: (id, draft, format, value of u). Helm's validator asserts `format` for
# drafts 4, 6 and 7 only; a value is a JSON scalar written into values.yaml.
DRAFTS = {"d4": "http://json-schema.org/draft-04/schema#", "d6": "http://json-schema.org/draft-06/schema#",
          "d7": D7, "d2019": "https://json-schema.org/draft/2019-09/schema",
          "d2020": "https://json-schema.org/draft/2020-12/schema", "none": None}
FORMAT_CASES = [
    ("uri-empty-d7", "d7", "uri", ""), ("uri-words-d7", "d7", "uri", "not a uri"),
    ("uri-d4", "d4", "uri", "x"), ("uri-d6", "d6", "uri", "x"), ("uri-d2019", "d2019", "uri", "x"),
    ("uri-d2020", "d2020", "uri", "x"), ("uri-no-schema", "none", "uri", "x"),
    ("uri-number", "d7", "uri", 5), ("uri-bool", "d7", "uri", True), ("unknown-format", "d7", "foo", "x"),
    ("uri-ok", "d7", "uri", "https://example.com/a?b#c"), ("uri-opaque", "d7", "uri", "mailto:x"),
    ("uri-space-host", "d7", "uri", "http://a b"), ("uri-ipv6-port", "d7", "uri", "http://[::1]:80"),
    ("uri-bare-ipv6", "d7", "uri", "http://::1/"), ("uri-bad-ipv6", "d7", "uri", "http://[::zz]/"),
    ("uri-bad-escape", "d7", "uri", "%zz"), ("uri-escape-end", "d7", "uri", "http://a/%"),
    ("uri-no-scheme", "d7", "uri", ":a"), ("uri-colon-segment", "d7", "uri", "1a:b"),
    ("uri-bad-port", "d7", "uri", "http://a:x/"), ("uri-fragment-escape", "d7", "uri", "http://a/#%zz"),
    ("uri-control", "d7", "uri", "http://a/\u0001"), ("uri-userinfo", "d7", "uri", "http://a b@c/"),
    ("uri-host-escape", "d7", "uri", "http://%41/"), ("uri-ipv4-literal", "d7", "uri", "http://[1.2.3.4]/"),
    ("uri-no-bracket", "d7", "uri", "http://[::1/"),
    ("uri-reference-rel", "d7", "uri-reference", "a/b"), ("uri-reference-backslash", "d7", "uri-reference", "a\\b"),
    ("uri-reference-colon", "d7", "uri-reference", "c:d:e"), ("uri-reference-bad", "d7", "uri-reference", "1a:b"),
    ("iri", "d7", "iri", "http://\u00e9.com"), ("iri-relative", "d7", "iri", "\u00e9"),
    ("iri-reference", "d7", "iri-reference", "\u00e9"),
    ("uri-template-ok", "d7", "uri-template", "http://x/{a}"), ("uri-template-open", "d7", "uri-template", "http://x/{a"),
    ("uri-template-nested", "d7", "uri-template", "http://x/{{a}}"),
    ("email-ok", "d7", "email", "a@b"), ("email-no-at", "d7", "email", "x"), ("email-dot", "d7", "email", ".a@b"),
    ("email-end-dot", "d7", "email", "a.@b"), ("email-dots", "d7", "email", "a..b@c"),
    ("email-space", "d7", "email", "a b@c"), ("email-domain", "d7", "email", "a@-b"),
    ("email-ipv4", "d7", "email", "a@[1.2.3]"), ("email-ipv6", "d7", "email", "a@[IPv6:zz]"),
    ("email-ipv6-ok", "d7", "email", "a@[IPv6:::1]"), ("email-empty-domain", "d7", "email", "a@"),
    ("email-quoted", "d7", "email", "\"a\\b\"@c"), ("email-long-local", "d7", "email", "a" * 65 + "@b"),
    ("hostname-empty", "d7", "hostname", ""), ("hostname-dots", "d7", "hostname", "a..b"),
    ("hostname-hyphen", "d7", "hostname", "-a"), ("hostname-end-hyphen", "d7", "hostname", "a-"),
    ("hostname-underscore", "d7", "hostname", "a_b"), ("hostname-trailing-dot", "d7", "hostname", "a.b."),
    ("hostname-unicode", "d7", "hostname", "\u00e9"), ("hostname-long-label", "d7", "hostname", "a" * 64),
    ("ipv4-short", "d7", "ipv4", "1.2.3"), ("ipv4-zero", "d7", "ipv4", "1.2.3.04"),
    ("ipv4-letter", "d7", "ipv4", "1.2.3.x"), ("ipv4-big", "d7", "ipv4", "1.2.3.256"),
    ("ipv4-negative", "d7", "ipv4", "1.2.3.-1"), ("ipv4-plus", "d7", "ipv4", "1.2.3.+1"),
    ("ipv4-empty-field", "d7", "ipv4", "1.2..3"), ("ipv4-huge", "d7", "ipv4", "1.2.3.99999999999999999999"),
    ("ipv6-ok", "d7", "ipv6", "::1"), ("ipv6-no-colon", "d7", "ipv6", "x"), ("ipv6-zone", "d7", "ipv6", "::1%eth0"),
    ("ipv6-two-ellipses", "d7", "ipv6", "1::2::3"), ("ipv6-colons", "d7", "ipv6", ":::"),
    ("ipv6-nine", "d7", "ipv6", "1:2:3:4:5:6:7:8:9"), ("ipv6-five-digits", "d7", "ipv6", "12345::"),
    ("ipv6-mapped", "d7", "ipv6", "::ffff:1.2.3.4"), ("ipv6-mapped-short", "d7", "ipv6", "::ffff:1.2.3"),
    ("ipv6-letter", "d7", "ipv6", "g::"), ("ipv6-short", "d7", "ipv6", "1:2"), ("ipv6-trailing", "d7", "ipv6", "1::2:"),
    ("ipv6-empty-zone", "d7", "ipv6", "fe80::1%"), ("ipv6-full-ellipsis", "d7", "ipv6", "1:2:3:4:5:6:7::8"),
    ("ipv6-v4-first", "d7", "ipv6", "1.2.3.4:5"), ("ipv6-v4-misplaced", "d7", "ipv6", "1:1.2.3.4"),
    ("ipv6-v4-zero", "d7", "ipv6", "::01.2.3.4"),
    ("date-ok", "d7", "date", "2024-02-29"), ("date-leap", "d7", "date", "2023-02-29"),
    ("date-month", "d7", "date", "2023-13-01"), ("date-short", "d7", "date", "2023-1-01"),
    ("date-extra", "d7", "date", "2023-01-011"), ("date-word", "d7", "date", "x"), ("date-slash", "d7", "date", "2023/01/01"),
    ("date-day-zero", "d7", "date", "2023-01-00"),
    ("time-ok", "d7", "time", "12:00:00Z"), ("time-offset", "d7", "time", "12:00:00.5+01:00"),
    ("time-short", "d7", "time", "12:00"), ("time-colon", "d7", "time", "1200:00:00"),
    ("time-range", "d7", "time", "24:00:00Z"), ("time-frac", "d7", "time", "12:00:00.Z"),
    ("time-offset-len", "d7", "time", "12:00:00+1:00"), ("time-offset-sign", "d7", "time", "12:00:00x01:00"),
    ("time-leap", "d7", "time", "12:00:60Z"), ("time-leap-ok", "d7", "time", "23:59:60Z"),
    ("time-leap-offset", "d7", "time", "15:59:60-08:00"), ("time-letters", "d7", "time", "aa:00:00Z"),
    ("time-negative", "d7", "time", "-1:00:00Z"), ("time-offset-range", "d7", "time", "12:00:00+24:00"),
    ("date-time-ok", "d7", "date-time", "2024-01-01T00:00:00Z"), ("date-time-short", "d7", "date-time", "2024-01-01"),
    ("date-time-t", "d7", "date-time", "2024-01-01 00:00:00Z"), ("date-time-date", "d7", "date-time", "2024-02-30T00:00:00Z"),
    ("date-time-time", "d7", "date-time", "2024-01-01T00:00:61Z"),
    ("duration-ok", "d7", "duration", "P1Y2M3DT4H5M6S"), ("duration-no-p", "d7", "duration", "1D"),
    ("duration-empty", "d7", "duration", "P"), ("duration-week", "d7", "duration", "P1W"),
    ("duration-week-bad", "d7", "duration", "PxW"), ("duration-week-empty", "d7", "duration", "PW"),
    ("duration-no-time", "d7", "duration", "P1DT"), ("duration-two-t", "d7", "duration", "PT1HT1M"),
    ("duration-no-number", "d7", "duration", "PD"), ("duration-no-unit", "d7", "duration", "P1"),
    ("duration-order", "d7", "duration", "P1D1Y"), ("duration-unit", "d7", "duration", "P1X"),
    ("duration-time-unit", "d7", "duration", "P1H"),
    ("period-ok", "d7", "period", "2024-01-01T00:00:00Z/P1D"), ("period-no-slash", "d7", "period", "x"),
    ("period-start", "d7", "period", "P1X/2024-01-01T00:00:00Z"), ("period-end", "d7", "period", "2024-01-01T00:00:00Z/x"),
    ("json-pointer-ok", "d7", "json-pointer", "/a~0b/c~1d"), ("json-pointer-empty", "d7", "json-pointer", ""),
    ("json-pointer-relative", "d7", "json-pointer", "a"), ("json-pointer-tilde", "d7", "json-pointer", "/a~2"),
    ("json-pointer-tilde-end", "d7", "json-pointer", "/a~"),
    ("relative-json-pointer-ok", "d7", "relative-json-pointer", "1/a"), ("relative-json-pointer-hash", "d7", "relative-json-pointer", "0#"),
    ("relative-json-pointer-none", "d7", "relative-json-pointer", "/a"), ("relative-json-pointer-zero", "d7", "relative-json-pointer", "01/a"),
    ("relative-json-pointer-bad", "d7", "relative-json-pointer", "1a"),
    ("uuid-ok", "d7", "uuid", "123e4567-e89b-12d3-a456-426614174000"), ("uuid-groups", "d7", "uuid", "123"),
    ("uuid-length", "d7", "uuid", "123e4567-e89b-12d3-a456-42661417400"), ("uuid-hex", "d7", "uuid", "123e4567-e89b-12d3-a456-42661417400g"),
    ("regex-ok", "d7", "regex", "^a+$"), ("regex-bad", "d7", "regex", "(a"), ("regex-lookahead", "d7", "regex", "(?=a)"),
    ("semver-ok", "d7", "semver", "1.2.3-rc.1+b.2"), ("semver-two", "d7", "semver", "1.2"),
    ("semver-zero", "d7", "semver", "01.2.3"), ("semver-empty-build", "d7", "semver", "1.2.3+"),
    ("semver-pre-zero", "d7", "semver", "1.2.3-01"), ("semver-pre-char", "d7", "semver", "1.2.3-a_b"),
    ("semver-letter", "d7", "semver", "1.x.3"), ("semver-empty-minor", "d7", "semver", "1..3"),
    ("email-d2020", "d2020", "email", "x"), ("date-d4", "d4", "date", "x"), ("date-d6", "d6", "date", "x"),
    ("date-no-schema", "none", "date", "x"),
    ("uri-bracket-inside", "d7", "uri", "http://a[b/"), ("uri-zone", "d7", "uri", "http://[fe80::1%25eth0]/"),
    ("uri-ipv4-mapped", "d7", "uri", "http://[::ffff:1.2.3.4]/"), ("email-backslash", "d7", "email", "\\a@b"),
    ("uri-reference-trailing-backslash", "d7", "uri-reference", "a\\"),
]


def format_cases():
    """`format` assertions: drafts, non-strings, each known format's errors."""
    import json as _json
    out = []
    for name, draft, fmt, value in FORMAT_CASES:
        schema = {"type": "object", "properties": {"u": {"format": fmt}}}
        if DRAFTS[draft]:
            schema = {"$schema": DRAFTS[draft], **schema}
        out.append(case(f"schema/format-{name}", {"t.yaml": "ok"},
                        files={"values.yaml": f"u: {_json.dumps(value)}\n",
                               "values.schema.json": _json.dumps(schema)}))
    return out


def schema_cases():
    """values.schema.json keywords, each case one violation (or none)."""
    import json as _json
    return [
        case(f"schema/{name}", {"t.yaml": "ok"},
             files={"values.yaml": values, "values.schema.json": _json.dumps(schema)})
        for name, schema, values in SCHEMA_CASES
    ] + format_cases() + meta_cases() + uneval_cases()

# Random composition: expressions typed loosely, so that some fail on purpose.
PATHS = [".Values.str", ".Values.int", ".Values.float", ".Values.list", ".Values.map",
         ".Values.missing", ".Values.nullv", ".Values.nested", ".Values.emptyList",
         ".Values.emptyMap", ".Values.hugeInt", ".Values.int53", ".Values.unicode",
         ".Values.map.a", ".Values.nested.l1", ".Release.Name", ".Chart.Name", "$"]
LITERALS = ['"abc"', '""', "0", "1", "-3", "2.5", "1e6", "true", "false", "nil", "'x'",
            "0x10", '"é日"', '"a,b"', "(list 1 2)", "(dict \"k\" 1)", "(list)", "(dict)"]
FUNCS1 = ["upper", "lower", "quote", "squote", "toString", "toJson", "toYaml", "len",
          "typeOf", "kindOf", "empty", "not", "first", "last", "b64enc", "sha256sum",
          "int", "int64", "float64", "title", "trim", "keys", "toStrings", "print",
          "html", "js", "urlquery", "nospace", "compact", "uniq", "reverse", "deepCopy",
          "sortAlpha", "add1", "ceil", "floor", "toPrettyJson", "semver", "fromYaml", "fromJson"]
FORMATS = ["%v", "%s|%d", "%q", "%T %v", "%5.2f", "%x", "%v %v %v"]
FUNCS2 = ["add", "sub", "mul", "div", "mod", "max", "min", "addf", "mulf", "eq", "ne",
          "lt", "le", "gt", "ge", "default", "coalesce", "and", "or", "index", "has",
          "append", "hasKey", "get", "cat", "list", "trunc", "repeat", "indent", "nindent",
          "contains", "hasPrefix", "split", "join", "printf", "ternary", "without", "pluck",
          "kindIs", "typeIs", "replace", "trimPrefix", "regexMatch", "splitList", "until", "seq"]


# Typed productions: (type) -> list of templates whose {T} holes take an expression of
# type T (s string, n number, l list, m map, b bool, a anything).
TYPED = {
    "s": ['"abc"', '""', '"é日"', '"a,b"', ".Values.str", ".Values.unicode", ".Values.map.a",
          ".Release.Name", "(upper {s})", "(lower {s})", "(quote {a})", "(toString {a})",
          "(trunc {n} {s})", "(repeat 2 {s})", '(replace "a" "b" {s})', '(printf "%v-%d" {a} {n})',
          '(join "," {l})', "(toJson {a})", "(toYaml {a})", "(b64enc {s})", "(default {s} {a})",
          "(cat {a} {a})", "(nindent 2 {s})", "(title {s})", "(substr 1 3 {s})",
          '(include "h.name" $)', "({s} | trim)", "(sha256sum {s} | trunc 7)", "(typeOf {a})",
          "(kindOf {a})", '(ternary {s} {s} {b})', "(print {a})", "(js {s})", "(html {s})",
          '(regexReplaceAll "[aeiou]" {s} "_")', "(snakecase {s})", "(squote {a})"],
    "n": ["0", "1", "-3", "2.5", "1e6", "0x10", ".Values.int", ".Values.float", ".Values.int53",
          "(add {n} {n})", "(sub {n} {n})", "(mul {n} {n})", "(len {l})", "(len {s})",
          "(max {n} {n})", "(addf {n} {n})", "(int {n})", "(float64 {n})", "(div {n} 2)",
          "(mod {n} 3)", "(add1 {n})", "(round {n} 1)", "(floor {n})", "(int64 {s})",
          "(atoi {s})", "(divf {n} 4)"],
    "l": [".Values.list", ".Values.strList", ".Values.emptyList", "(list {a} {a})",
          "(append {l} {a})", '(splitList "," {s})', "(keys {m} | sortAlpha)", "(until 3)",
          "(seq 3)", "(rest {l})", "(uniq {l})", "(sortAlpha {l})", "(reverse {l})",
          "(compact {l})", '(pluck "a" {m} {m})', "(concat {l} {l})", "(without {l} 1)",
          "(toStrings {l})", "(slice {l} 0 1)", "(regexFindAll \"[a-z]+\" {s} -1)"],
    "m": [".Values.map", ".Values.nested", ".Values.emptyMap", "(dict {s} {a})",
          "(merge (dict) {m} {m})", "(deepCopy {m})", '(pick {m} "a")', '(omit {m} "a")',
          '(fromYaml "a: 1\\nb: [x]")', '(fromJson "{\\"k\\": 1.5}")', ".Values.AsMap",
          '(set (dict) "k" {a})', "(mergeOverwrite (dict) {m} {m})", '(dict "n" {n} "l" {l})'],
    "b": ["true", "false", "(eq {a} {a})", "(eq {n} {n})", "(ne {s} {s})", "(lt {n} {n})",
          "(ge {n} {n})", "(and {a} {a})", "(or {a} {a})", "(not {a})", "(empty {a})",
          '(hasKey {m} "a")', "(contains {s} {s})", '(regexMatch "^[\\\\w-\\\\.]+$" {s})',
          '(kindIs "map" {a})', "(has 1 {l})", '(hasPrefix "a" {s})',
          '(.Capabilities.APIVersions.Has "apps/v1")', '(semverCompare ">=1.2" "1.10.0")'],
    "a": [".Values.missing", ".Values.nullv", "nil", ".Values.hugeInt", ".Values.listOfMaps",
          "{s}", "{n}", "{l}", "{m}", "{b}", "{s}", "{n}", "{m}", "{l}", "(index {m} \"a\")",
          "(get {m} \"b\")", "(first {l})", "(coalesce {a} {a})", '(dig "l1" "l2" "d" {m})'],
}


def typed(r, t, depth=0):
    """An expression of type t; past depth 3 only leaves (templates without holes)."""
    options = TYPED[t] if depth < 3 else [x for x in TYPED[t] if "{" not in x] or ['"x"']
    text = r.choice(options)
    out, i = "", 0
    while i < len(text):
        if text[i] == "{" and text[i + 2:i + 3] == "}" and text[i + 1] in TYPED:
            out += typed(r, text[i + 1], depth + 1)
            i += 3
        else:
            out += text[i]
            i += 1
    return out


def wild(r, depth=0):
    """An untyped expression: mostly type errors, on purpose."""
    roll = r.random()
    if depth > 2 or roll < 0.35:
        return r.choice(PATHS + LITERALS)
    if roll < 0.6:
        return f"({r.choice(FUNCS1)} {wild(r, depth + 1)})"
    if roll < 0.85:
        return f"({r.choice(FUNCS2)} {wild(r, depth + 1)} {wild(r, depth + 1)})"
    return f"({wild(r, depth + 1)} | {r.choice(FUNCS1)})"


def rexpr(r):
    return wild(r) if r.random() < 0.15 else typed(r, r.choice("snlmba"))


ROOTED = re.compile(r"(?<![\w$)\]])\.(Values|Release|Chart|Capabilities)\b")


def rstmt(r, depth=0):
    e = rexpr(r)
    kind = r.randrange(9)
    lt, rt = r.choice(["{{", "{{- "]), r.choice(["}}", " -}}"])
    body = lambda: rstmt(r, depth + 1) if depth < 2 else "x"
    # Inside with/range the dot is rebound: reach the root through $ there, mostly.
    rooted = lambda: ROOTED.sub(r"$.\1", body()) if r.random() < 0.9 else body()
    if kind < 3:
        return f"{lt}{e[1:-1] if e.startswith('(') else e}{rt}"
    if kind == 3:
        return f"{lt}if {e}{rt}{body()}{{{{ else }}}}{body()}{{{{ end }}}}"
    if kind == 4:
        return f"{lt}with {e}{rt}{rooted()}{{{{ else }}}}{body()}{{{{ end }}}}"
    if kind == 5:
        return f"{lt}range $i, $v := {e}{rt}[{{{{ $i }}}}={{{{ $v }}}}]{rooted()}{{{{ end }}}}"
    if kind == 6:
        return f"{{{{ $x := {e} }}}}{{{{ $x = {rexpr(r)} }}}}{{{{ $x }}}}"
    if kind == 7:
        fmt = r.choice(FORMATS)
        return f'{{{{ printf "{fmt}" {e} {rexpr(r)} }}}}'
    return f"{lt}include \"h.name\" {r.choice(['$', '.', '$', e])}{rt}"


def random_cases(n, seed):
    r = random.Random(seed)
    out = []
    for i in range(n):
        text = "\n".join(f"k{j}: {rstmt(r)}" for j in range(r.randrange(1, 4)))
        out.append(case(f"rand/{seed}-{i}", {"t.yaml": text}, r.choice(USER_VALUES)))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--random", type=int, default=3000, help="number of random cases")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    cases = hand_cases() + chart_cases() + schema_cases() + random_cases(a.random, a.seed)
    json.dump({"base": BASE, "cases": cases}, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
