"""unevaluatedProperties and unevaluatedItems in values.schema.json (`schema/uneval-*`).

The keywords (2019-09 on, and in a schema without `$schema`) see what adjacent keywords
and successful in-place subschemas evaluated. Mutations: one evaluating subschema placed
beside the keyword, in allOf/anyOf/oneOf/if-then-else/not/$ref/dependentSchemas, at the
root or one object down, for each draft and keyword value. Each case makes at most one
unevaluated error, as Helm lists several in Go's random map order.
"""
import json

from cases_meta import DRAFTS, one

ARRAY_TUPLE = {"d7": "items", "d2019": "items", "d2020": "prefixItems", "none": "prefixItems"}

# (name, wrap): where the evaluating subschema `e` goes, beside `unevaluated*`.
PLACES = [
    ("adjacent", lambda e: dict(e)),
    ("all-of", lambda e: {"allOf": [{"required": []}, e]}),
    ("any-of", lambda e: {"anyOf": [{"required": ["zz"]}, e]}),
    ("any-of-both", lambda e: {"anyOf": [{}, e]}),
    ("one-of", lambda e: {"oneOf": [{"required": ["zz"]}, e]}),
    ("if-then", lambda e: {"if": {"required": []}, "then": e}),
    ("if-else", lambda e: {"if": {"type": "string"}, "else": e}),
    ("if-itself", lambda e: {"if": e}),
    # `defs` go to the root's `$defs`, where the pointers look.
    ("ref", lambda e: {"defs": {"e": e}, "$ref": "#/$defs/e"}),
    ("ref-nested", lambda e: {"defs": {"e": {"allOf": [e]}, "f": {"$ref": "#/$defs/e"}},
                              "$ref": "#/$defs/f"}),
    ("not-not", lambda e: {"not": {"not": e}}),
    ("failed-all-of", lambda e: {"anyOf": [{"allOf": [e, {"required": ["zz"]}]}, {}]}),
]

# Places that evaluate nothing: the first value set would give two errors there.
NOTHING = {"not-not", "failed-all-of"}

VALUES = [False, {"type": "string"}, {"type": "integer"}]


def wrap_at(depth, schema):
    return schema if depth == 0 else {"properties": {"o": schema}}


def values_at(depth, text):
    if depth == 0:
        return text
    return "o:\n" + "".join(f"  {line}\n" for line in text.splitlines())


def generated():
    out = []
    for draft in ARRAY_TUPLE:
        # Draft 7 does not know the keywords: two places suffice.
        for place, wrap in PLACES if draft != "d7" else PLACES[:2]:
            for n, u in enumerate(VALUES):
                for depth in (0, 1) if n == 0 else (0,):
                    props = wrap({"properties": {"a": {"type": "integer"}}})
                    props["unevaluatedProperties"] = u
                    tup = ARRAY_TUPLE[draft]
                    items = wrap({tup: [{"type": "integer"}]})
                    items["unevaluatedItems"] = u
                    defs = {"props": props.pop("defs", {}), "items": items.pop("defs", {})}
                    for kind, schema, values in [
                        ("props", props, ["a: 1\nb: x\n", "a: 1\n", "a: x\n"]),
                        ("items", items, ["[1, x]\n", "[1]\n", "[]\n"]),
                    ]:
                        for k, text in enumerate(values):
                            if place in NOTHING and k == 0:
                                continue
                            if kind == "items":
                                text = "l: " + text
                                schema_k = {"properties": {"l": schema}}
                            else:
                                schema_k = schema
                            body = wrap_at(depth, schema_k)
                            if defs[kind]:
                                body = {**body, "$defs": defs[kind]}
                            if DRAFTS[draft]:
                                body = {"$schema": DRAFTS[draft], **body}
                            cid = f"schema/uneval-{draft}-{place}-{kind}-u{n}-d{depth}-v{k}"
                            out.append(one(cid, json.dumps(body), values=values_at(depth, text)))
    return out


HAND = [
    ("issue", {"properties": {"a": {}}, "unevaluatedProperties": False}, "b: 2\n"),
    ("pattern", {"patternProperties": {"^x": {}}, "unevaluatedProperties": False}, "xa: 1\nb: 2\n"),
    ("additional", {"additionalProperties": {"type": "integer"}, "unevaluatedProperties": False}, "b: 2\n"),
    ("additional-in-all-of", {"allOf": [{"additionalProperties": True}], "unevaluatedProperties": False}, "b: 2\n"),
    ("dependent-schemas", {"dependentSchemas": {"a": {"properties": {"b": {}}}}, "unevaluatedProperties": False}, "a: 1\nb: 2\n"),
    ("dependent-schemas-absent", {"dependentSchemas": {"c": {"properties": {"b": {}}}}, "properties": {"a": {}}, "unevaluatedProperties": False}, "a: 1\nb: 2\n"),
    ("nested-uneval-evaluates-all", {"allOf": [{"unevaluatedProperties": True}], "unevaluatedProperties": False}, "b: 2\n"),
    ("nested-object-separate", {"properties": {"o": {"properties": {"x": {}}}}, "unevaluatedProperties": False}, "o: {y: 1}\n"),
    ("nested-object-uneval", {"properties": {"o": {"properties": {"x": {}}, "unevaluatedProperties": False}}}, "o: {y: 1}\n"),
    ("one-of-two", {"oneOf": [{"properties": {"a": {}}}, {"properties": {"b": {}}}], "unevaluatedProperties": False}, "a: 1\n"),
    ("schema-value-error", {"properties": {"a": {}}, "unevaluatedProperties": {"minimum": 5}}, "a: 1\nb: 2\n"),
    ("with-other-error", {"required": ["z"], "properties": {"a": {}}, "unevaluatedProperties": False}, "a: 1\nb: 2\n"),
    ("type-fails-first", {"type": "array", "unevaluatedProperties": False}, "b: 2\n"),
    ("contains-2020", {"properties": {"l": {"contains": {"type": "string"}, "unevaluatedItems": False}}}, "l: [x, 1]\n"),
    ("contains-2019", {"$schema": DRAFTS["d2019"], "properties": {"l": {"contains": {"type": "string"}, "unevaluatedItems": False}}}, "l: [x]\n"),
    ("items-2020-all", {"properties": {"l": {"items": {}, "unevaluatedItems": False}}}, "l: [x, 1]\n"),
    ("items-2019-schema", {"$schema": DRAFTS["d2019"], "properties": {"l": {"items": {}, "unevaluatedItems": False}}}, "l: [x, 1]\n"),
    ("additional-items-2019", {"$schema": DRAFTS["d2019"], "properties": {"l": {"items": [{}], "additionalItems": {"type": "integer"}, "unevaluatedItems": False}}}, "l: [x, 1]\n"),
    ("items-in-all-of", {"properties": {"l": {"allOf": [{"prefixItems": [{}, {}]}], "unevaluatedItems": {"type": "integer"}}}}, "l: [x, y, z]\n"),
    ("items-any-of-longest", {"properties": {"l": {"anyOf": [{"prefixItems": [{}]}, {"prefixItems": [{}, {}]}], "unevaluatedItems": False}}}, "l: [1, 2]\n"),
    ("items-on-object", {"unevaluatedItems": False}, "b: 2\n"),
    ("props-on-array", {"properties": {"l": {"unevaluatedProperties": False}}}, "l: [1]\n"),
    ("ref-d2019-defs", {"$schema": DRAFTS["d2019"], "$defs": {"p": {"properties": {"a": {}}}}, "$ref": "#/$defs/p", "properties": {"b": {}}, "unevaluatedProperties": False}, "a: 1\nb: 1\nc: 1\n"),
    ("one-of-both-match", {"oneOf": [{"properties": {"a": {}}}, {"properties": {"b": {}}}], "unevaluatedProperties": False}, "c: 1\n"),
    ("additional-items-alone-2019", {"$schema": DRAFTS["d2019"], "properties": {"l": {"additionalItems": False, "unevaluatedItems": False}}}, "l: [1]\n"),
    ("recursive-ref-2019", {"$schema": DRAFTS["d2019"], "$recursiveAnchor": True, "properties": {"a": {}, "o": {"$recursiveRef": "#"}}, "unevaluatedProperties": False}, "o: {b: 1}\n"),
    ("dynamic-ref-2020", {"$dynamicAnchor": "m", "properties": {"a": {}, "o": {"$dynamicRef": "#m"}}, "unevaluatedProperties": False}, "o: {b: 1}\n"),
    ("dynamic-ref-evaluates", {"$defs": {"p": {"$dynamicAnchor": "p", "properties": {"a": {}}}}, "$dynamicRef": "#/$defs/p", "unevaluatedProperties": False}, "a: 1\n"),
    ("deep-all-of", {"allOf": [{"allOf": [{"anyOf": [{"oneOf": [{"properties": {"a": {}}}]}]}]}], "unevaluatedProperties": False}, "a: 1\nb: 1\n"),
    ("if-fails-then-absent", {"if": {"properties": {"a": {"const": 2}}}, "unevaluatedProperties": False}, "a: 1\n"),
    ("false-uneval-empty", {"unevaluatedProperties": False}, "{}\n"),
    ("array-prefix-plus-uneval-schema", {"properties": {"l": {"prefixItems": [{"type": "string"}], "unevaluatedItems": {"type": "integer"}}}}, "l: [x, 1, y]\n"),
    ("items-2019-uneval-schema", {"$schema": DRAFTS["d2019"], "properties": {"l": {"items": [{"type": "string"}], "unevaluatedItems": {"type": "integer"}}}}, "l: [x, 1, y]\n"),
    ("d7-ignored", {"$schema": DRAFTS["d7"], "properties": {"a": {}}, "unevaluatedProperties": False}, "b: 2\n"),
]


def uneval_cases():
    hand = [one(f"schema/uneval-hand-{name}", json.dumps(schema), values=values)
            for name, schema, values in HAND]
    return hand + generated()
