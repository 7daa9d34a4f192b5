"""The first JSON-schema violation of a settings file, in words: the key, the value and what
the schema accepts there. Scenario files and testbed inventories report errors this way."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from emusim.core import yaml_text


def read_mapping(path: Path, error: type[Exception], what: str = "") -> dict:
    """A settings file's top-level mapping; `error` names the file (and `what` it is, for a
    missing one) if it is missing, not YAML or not a mapping."""
    try:
        data = yaml_text.safe_load(path.read_text())
    except FileNotFoundError:
        raise error(f"{path}: no such file{what and f' ({what})'}") from None
    except yaml.YAMLError as err:
        raise error(f"{path}: not valid YAML: {err}") from None
    if not isinstance(data, dict):
        raise error(f"{path}: must be a mapping of keys, found {type(data).__name__}")
    return data


def key(path: Sequence[Any]) -> str:
    """A dotted key path (``hosts.router.ssh``), or ``(top level)``."""
    return ".".join(str(p) for p in path) or "(top level)"


def describe(error: jsonschema.ValidationError) -> str:
    """What the schema accepts where `error` happened, in words."""
    schema = error.schema
    if "enum" in schema:
        return "one of " + ", ".join(repr(v) for v in schema["enum"])
    if "const" in schema:
        return repr(schema["const"])
    if error.validator in ("additionalProperties", "required"):
        allowed = sorted(error.schema.get("properties", {}))
        return "keys " + ", ".join(allowed) if allowed else "no other keys"
    if error.validator == "oneOf":
        alts = []
        for alt in schema["oneOf"]:
            if "const" in alt:
                alts.append(repr(alt["const"]))
            elif "properties" in alt and "kind" in alt["properties"]:
                alts.append(f"kind {alt['properties']['kind'].get('const')!r}")
            else:
                alts.append(alt.get("type", "a value") + _bounds(alt))
        return " or ".join(alts)
    if "pattern" in schema:
        return f"a string matching {schema['pattern']}"
    return schema.get("type", "a valid value") + _bounds(schema)


def _bounds(schema: dict) -> str:
    parts = [
        f"{word} {schema[k]}"
        for k, word in (
            ("minimum", ">="),
            ("exclusiveMinimum", ">"),
            ("maximum", "<="),
            ("minItems", "with at least"),
        )
        if k in schema
    ]
    return (" " + " ".join(parts)) if parts else ""


def _in_branch(error: jsonschema.ValidationError) -> jsonschema.ValidationError:
    """For a `oneOf` of alternatives told apart by their `kind` (a workload's), the error inside
    the alternative the value names: "key 'workload.writes' has value -5", not "key 'workload'
    is none of tcp-blast, udp-blast, ..." when the kind is right and one key is wrong."""
    if error.validator != "oneOf" or not isinstance(error.instance, dict):
        return error
    for i, alt in enumerate(error.schema["oneOf"]):
        kind = alt.get("properties", {}).get("kind", {}).get("const")
        if kind is not None and error.instance.get("kind") == kind:
            inner = [e for e in error.context if e.relative_schema_path[0] == i]
            if inner:
                return _in_branch(min(inner, key=lambda e: len(e.absolute_path)))
    return error


def first_error(data: Any, schema: dict) -> str | None:
    """The first violation (shallowest key first) as a message without the file, or None."""
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(data), key=lambda e: (len(e.path), list(e.path)))
    if not errors:
        return None
    err = _in_branch(errors[0])
    where = list(err.absolute_path)
    if err.validator == "additionalProperties":
        extra = sorted(set(err.instance) - set(err.schema.get("properties", {})))
        return f"unknown key {key([*where, *extra[:1]])!r}; accepted here: {describe(err)}"
    if err.validator == "required":
        return f"key {key(where)!r}: {err.message}"
    return f"key {key(where)!r} has value {err.instance!r}; accepted: {describe(err)}"
