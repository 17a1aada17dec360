"""values.schema.json checked against its draft's metaschema (`schema/meta-*` cases).

Helm's validator refuses a schema that is not valid against its draft's metaschema
before it looks at the values. The cases: valid schemas mutated one keyword at a time
(wrong types, unknown type names, bad regular expressions, negative counts, empty or
repeated lists, ...) at several places of the schema, for every draft Helm knows and for
a schema without `$schema`; `$schema` spellings; subcharts. Each mutation makes at most
one error, as Helm lists several errors of one object in Go's random map order.
"""
import json

DRAFTS = {
    "d4": "http://json-schema.org/draft-04/schema#",
    "d6": "http://json-schema.org/draft-06/schema#",
    "d7": "http://json-schema.org/draft-07/schema#",
    "d2019": "https://json-schema.org/draft/2019-09/schema",
    "d2020": "https://json-schema.org/draft/2020-12/schema",
    "none": None,
}
ORDER = {"d4": 4, "d6": 6, "d7": 7, "d2019": 2019, "d2020": 2020, "none": 2020}

# (name, keyword, value, first draft it applies to): one keyword set in a subschema.
# Drafts before `since` carry the keyword as an unknown one (accepted as it is).
MUTATIONS = [
    ("required-bool", "required", True, 4), ("required-string", "required", "x", 4),
    ("required-number-item", "required", [1], 4), ("required-empty", "required", [], 4),
    ("required-repeated", "required", ["a", "a"], 4),
    ("type-unknown", "type", "foo", 4), ("type-number", "type", 5, 4),
    ("type-list-unknown", "type", ["string", "foo"], 4), ("type-empty-list", "type", [], 4),
    ("type-repeated", "type", ["string", "string"], 4), ("type-int", "type", "int", 4),
    ("enum-empty", "enum", [], 4), ("enum-scalar", "enum", 5, 4), ("enum-repeated", "enum", [1, 1], 4),
    ("pattern-bad", "pattern", "(a", 4), ("pattern-number", "pattern", 5, 4),
    ("pattern-lookahead", "pattern", "(?=a)", 4), ("pattern-ok", "pattern", "^[\\w-\\.]+$", 4),
    ("pattern-repeat", "pattern", "a{1001}", 4), ("pattern-backref", "pattern", "(a)\\1", 4),
    ("pattern-properties-bad", "patternProperties", {"(a": {}}, 4),
    ("pattern-properties-value", "patternProperties", {"^a": 5}, 4),
    ("min-length-negative", "minLength", -1, 4), ("min-length-float", "minLength", 1.5, 4),
    ("min-length-string", "minLength", "1", 4), ("min-length-whole-float", "minLength", 2.0, 4),
    ("max-length-negative", "maxLength", -1, 4), ("min-items-negative", "minItems", -1, 4),
    ("max-items-string", "maxItems", "x", 4), ("min-properties-negative", "minProperties", -1, 4),
    ("max-properties-null", "maxProperties", None, 4),
    ("multiple-of-zero", "multipleOf", 0, 4), ("multiple-of-negative", "multipleOf", -1, 4),
    ("multiple-of-string", "multipleOf", "2", 4),
    ("minimum-string", "minimum", "x", 4), ("maximum-bool", "maximum", True, 4),
    ("exclusive-minimum-bool", "exclusiveMinimum", True, 4),
    ("exclusive-maximum-string", "exclusiveMaximum", "x", 4),
    ("items-number", "items", 5, 4), ("items-list-number", "items", [5], 4),
    ("items-empty-list", "items", [], 4),
    ("additional-items-number", "additionalItems", 5, 4),
    ("additional-properties-number", "additionalProperties", 5, 4),
    ("additional-properties-string", "additionalProperties", "no", 4),
    ("properties-number", "properties", 5, 4), ("properties-value", "properties", {"b": 5}, 4),
    ("properties-list", "properties", [], 4),
    ("definitions-value", "definitions", {"x": 5}, 4),
    ("dependencies-value", "dependencies", {"b": 5}, 4),
    ("dependencies-number-item", "dependencies", {"b": [1]}, 4),
    ("all-of-empty", "allOf", [], 4), ("all-of-number", "allOf", 5, 4),
    ("any-of-item", "anyOf", [5], 4), ("one-of-object", "oneOf", {}, 4), ("not-number", "not", 5, 4),
    ("unique-items-string", "uniqueItems", "yes", 4), ("format-number", "format", 5, 4),
    ("title-number", "title", 5, 4), ("description-list", "description", [], 4),
    ("ref-number", "$ref", 5, 4), ("schema-number", "$schema", 5, 4),
    ("id-number", "id", 5, 4), ("nullable-string", "nullable", "x", 4),
    ("const-anything", "const", {"a": [1]}, 6), ("property-names-number", "propertyNames", 5, 6),
    ("contains-string", "contains", "x", 6), ("examples-number", "examples", 5, 6),
    ("dollar-id-number", "$id", 5, 6), ("dollar-id-fragment", "$id", "#foo", 6),
    ("dollar-id-bad-uri", "$id", "http://a b", 6),
    ("if-number", "if", 5, 7), ("then-string", "then", "x", 7), ("else-list", "else", [], 7),
    ("read-only-string", "readOnly", "x", 7), ("comment-number", "$comment", 5, 7),
    ("content-media-type-number", "contentMediaType", 5, 7),
    ("defs-value", "$defs", {"x": 5}, 2019), ("dependent-required-item", "dependentRequired", {"b": [1]}, 2019),
    ("dependent-schemas-value", "dependentSchemas", {"b": 5}, 2019),
    ("min-contains-negative", "minContains", -1, 2019), ("anchor-bad", "$anchor", "1x", 2019),
    ("anchor-number", "$anchor", 5, 2019), ("unevaluated-properties-number", "unevaluatedProperties", 5, 2019),
    ("vocabulary-number", "$vocabulary", 5, 2019), ("deprecated-string", "deprecated", "x", 2019),
    ("recursive-ref-number", "$recursiveRef", 5, 2019), ("recursive-anchor-string", "$recursiveAnchor", "x", 2019),
    ("prefix-items-empty", "prefixItems", [], 2020), ("prefix-items-number", "prefixItems", [5], 2020),
    ("dynamic-ref-number", "$dynamicRef", 5, 2020), ("dynamic-anchor-bad", "$dynamicAnchor", "1x", 2020),
]

# Where the mutated keyword goes: a function of the subschema, and the values that
# satisfy the schema around it when the keyword is harmless.
PLACES = [
    ("root", lambda sub: sub),
    ("property", lambda sub: {"type": "object", "properties": {"a": sub}}),
    ("deep", lambda sub: {"properties": {"a": {"properties": {"b": {"items": sub}}}}}),
    ("all-of", lambda sub: {"allOf": [{"type": "object"}, sub]}),
    ("definitions", lambda sub: {"definitions": {"d": {"not": sub}}}),
]


def schema_file(draft, schema):
    if DRAFTS[draft] and isinstance(schema, dict):
        schema = {"$schema": DRAFTS[draft], **schema}
    return json.dumps(schema)


def one(cid, schema_text, values="a: x\n", files=None, user=None):
    f = {"templates/t.yaml": "ok", "values.yaml": values, "values.schema.json": schema_text}
    f.update(files or {})
    return {"id": cid, "files": f, "values": user or {}}


def mutation_cases():
    out = []
    for draft in DRAFTS:
        for name, keyword, value, since in MUTATIONS:
            # Keywords of later drafts are unknown (accepted) ones: one place suffices.
            places = PLACES if ORDER[draft] >= since else PLACES[1:2]
            for place, wrap in places:
                if keyword == "$schema" and place == "root":
                    continue
                schema = wrap({keyword: value})
                out.append(one(f"schema/meta-{draft}-{place}-{name}", schema_file(draft, schema)))
    return out


SCHEMA_URLS = [
    ("no-hash", "http://json-schema.org/draft-07/schema"),
    ("https-d7", "https://json-schema.org/draft-07/schema#"),
    ("latest", "http://json-schema.org/schema"),
    ("fragment-d7", "http://json-schema.org/draft-07/schema#/definitions"),
    ("fragment-d4", "http://json-schema.org/draft-04/schema#/x"),
    ("hash-d2020", "https://json-schema.org/draft/2020-12/schema#"),
    ("http-d2019", "http://json-schema.org/draft/2019-09/schema"),
]


def hand_meta_cases():
    bad = {"type": "object", "properties": {"a": {"required": True}}}
    out = [one(f"schema/meta-url-{name}", json.dumps({"$schema": url, **bad}))
           for name, url in SCHEMA_URLS]
    out += [
        one("schema/meta-not-object", "5"), one("schema/meta-string", '"x"'),
        one("schema/meta-true", "true"), one("schema/meta-false", "false"),
        one("schema/meta-null", "null"), one("schema/meta-list", "[]"),
        one("schema/meta-valid-d7-values-bad", json.dumps(
            {"$schema": DRAFTS["d7"], "properties": {"a": {"type": "integer"}}})),
        one("schema/meta-ref-to-invalid", json.dumps(
            {"definitions": {"x": {"minLength": -1}}, "properties": {"a": {"$ref": "#/definitions/x"}}})),
        one("schema/meta-deep-nesting", json.dumps(nested(40, {"minLength": -1}))),
        one("schema/meta-deep-nesting-valid", json.dumps(nested(40, {"minLength": 1}))),
        one("schema/meta-two-levels-d2020", json.dumps(
            {"properties": {"a": {"properties": {"b": {"pattern": "(a"}}}}})),
        one("schema/meta-ref-sibling-d7", json.dumps(
            {"$schema": DRAFTS["d7"], "definitions": {"p": {}}, "properties": {"a": {"$ref": "#/definitions/p", "minLength": -1}}})),
        one("schema/meta-items-tuple-d2019", json.dumps(
            {"$schema": DRAFTS["d2019"], "properties": {"a": {"items": [{"type": "string"}, {"minItems": -1}]}}})),
        one("schema/meta-dependencies-d2020", json.dumps(
            {"dependencies": {"a": {"minLength": -1}}})),
        one("schema/meta-enum-repeated-late-d7", json.dumps(
            {"$schema": DRAFTS["d7"], "properties": {"a": {"enum": list(range(40)) + [39, 2]}}})),
        one("schema/meta-enum-large", json.dumps({"properties": {"a": {"enum": list(range(50000))}}}),
            values="a: 49999\n"),
        one("schema/meta-nested-id-d7", json.dumps(
            {"$schema": DRAFTS["d7"], "properties": {"a": {"$id": "http://example.invalid/a", "minLength": -1}}})),
    ]
    return out + ref_cases() + subchart_meta_cases()


def ref_cases():
    """`$ref`s to a part of the file no keyword keeps a schema in (checked against the
    metaschema on its own), and to the metaschemas themselves (which Helm holds)."""
    d2020 = "https://json-schema.org/draft/2020-12/schema"
    to = lambda ref: json.dumps({"type": "object", "properties": {"a": {"$ref": ref}}})
    return [
        one("schema/meta-ref-to-examples", json.dumps(
            {"examples": [{"minLength": -1}], "properties": {"a": {"$ref": "#/examples/0"}}})),
        one("schema/meta-ref-to-examples-d7", json.dumps(
            {"$schema": DRAFTS["d7"], "examples": [{"type": "foo"}], "properties": {"a": {"$ref": "#/examples/0"}}})),
        one("schema/meta-ref-to-examples-valid", json.dumps(
            {"examples": [{"minLength": 2}], "properties": {"a": {"$ref": "#/examples/0"}}})),
        one("schema/meta-ref-to-examples-unreferenced", json.dumps(
            {"examples": [{"minLength": -1}], "properties": {"a": {}}})),
        one("schema/meta-ref-into-metaschema-d7", to(DRAFTS["d7"])),
        one("schema/meta-ref-into-metaschema-d7-format", to(DRAFTS["d7"]), values="a: {pattern: '(a'}\n"),
        one("schema/meta-ref-into-metaschema-d2020-format", to(d2020), values="a: {pattern: '(a'}\n"),
        one("schema/meta-ref-into-metaschema-d2020", to(d2020), values="a: {properties: {b: {type: foo}}}\n"),
        one("schema/meta-ref-into-metaschema-d2020-ok", to(d2020), values="a: {type: string}\n"),
        one("schema/meta-ref-into-metaschema-d2019", to(DRAFTS["d2019"]), values="a: {items: {minItems: -1}}\n"),
        one("schema/meta-ref-into-vocabulary", to("https://json-schema.org/draft/2020-12/meta/validation#/$defs/simpleTypes"),
            values="a: foo\n"),
    ]


def nested(depth, leaf):
    for _ in range(depth):
        leaf = {"type": "object", "properties": {"n": leaf}}
    return leaf


def subchart_meta_cases():
    dep = ("apiVersion: v2\nname: c\nversion: 0.1.0\n"
           "dependencies:\n- name: s\n  version: 0.1.0\n")
    bad = json.dumps({"properties": {"x": {"type": "foo"}}})
    good = json.dumps({"properties": {"x": {"type": "integer"}}})
    sub = {"Chart.yaml": dep, "charts/s/Chart.yaml": "apiVersion: v2\nname: s\nversion: 0.1.0\n",
           "charts/s/values.yaml": "x: 1\n", "charts/s/templates/s.yaml": "{{ .Values.x }}"}
    return [
        one("schema/meta-subchart-bad", good, values="a: 1\n",
            files=dict(sub, **{"charts/s/values.schema.json": bad})),
        one("schema/meta-subchart-and-parent-bad", bad, values="a: 1\n",
            files=dict(sub, **{"charts/s/values.schema.json": bad})),
        one("schema/meta-subchart-bad-parent-values-bad", json.dumps({"required": ["zz"]}),
            values="a: 1\n", files=dict(sub, **{"charts/s/values.schema.json": bad})),
        one("schema/meta-subchart-bad-section-null", good, values="a: 1\n",
            files=dict(sub, **{"charts/s/values.schema.json": bad}), user={"s": None}),
        one("schema/meta-subchart-good-parent-bad", bad, values="a: 1\n",
            files=dict(sub, **{"charts/s/values.schema.json": good})),
    ]


# Keywords of later drafts are not keywords in earlier ones (values validation):
# (id, draft, subschema of l or o, values).
DRAFT_KEYWORDS = [
    ("dependent-required-d7", "d7", {"dependentRequired": {"a": ["b"]}}, "o: {a: 1}\n"),
    ("dependent-required-d2019", "d2019", {"dependentRequired": {"a": ["b"]}}, "o: {a: 1}\n"),
    ("dependent-schemas-d7", "d7", {"dependentSchemas": {"a": {"required": ["b"]}}}, "o: {a: 1}\n"),
    ("dependent-schemas-d2020", "d2020", {"dependentSchemas": {"a": {"required": ["b"]}}}, "o: {a: 1}\n"),
    ("contains-d4", "d4", {"contains": {"const": 5}}, "l: [1]\n"),
    ("contains-d6", "d6", {"contains": {"const": 5}}, "l: [1]\n"),
    ("min-contains-zero-d7", "d7", {"contains": {"const": 5}, "minContains": 0}, "l: [1]\n"),
    ("min-contains-zero-d2020", "d2020", {"contains": {"const": 5}, "minContains": 0}, "l: [1]\n"),
    ("min-contains-none-d2020", "d2020", {"contains": {"const": 5}, "minContains": 2}, "l: [1]\n"),
    ("min-contains-some-d2019", "d2019", {"contains": {"const": 5}, "minContains": 3}, "l: [5, 1, 5]\n"),
    ("max-contains-d2020", "d2020", {"contains": {"const": 5}, "maxContains": 1}, "l: [5, 1, 5]\n"),
    ("max-contains-d7", "d7", {"contains": {"const": 5}, "maxContains": 1}, "l: [5, 1, 5]\n"),
    ("if-d6", "d6", {"if": {"const": 1}, "then": {"const": 2}}, "l: 1\n"),
    ("if-d7", "d7", {"if": {"const": 1}, "then": {"const": 2}}, "l: 1\n"),
    ("const-d4", "d4", {"const": 2}, "l: 1\n"),
    ("property-names-nested", "d7", {"propertyNames": {"maxLength": 1}}, "o: {ab: 1}\n"),
    ("min-length-float", "d2020", {"minLength": 2.0}, "l: x\n"),
    # The pair Helm names: the first item equal to an earlier one.
    ("unique-items-order", "d2020", {"uniqueItems": True}, "l: [1, 2, 2, 1]\n"),
    ("unique-items-objects", "d7", {"uniqueItems": True}, "l: [{a: 1, b: [2]}, {b: [2.0], a: 1.0}]\n"),
    ("unique-items-many", "d2020", {"uniqueItems": True},
     "l: [" + ", ".join(str(i) for i in range(30)) + ", 7, 3]\n"),
]


def draft_keyword_cases():
    out = []
    for name, draft, sub, values in DRAFT_KEYWORDS:
        key = "o" if values.startswith("o") else "l"
        schema = schema_file(draft, {"properties": {key: sub}})
        out.append(one(f"schema/meta-keyword-{name}", schema, values=values))
    return out


def meta_cases():
    return hand_meta_cases() + draft_keyword_cases() + mutation_cases()
