#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Validate what ppwatch wrote against its JSON Schemas (docs/schema/).

  validate.py [--schemas DIR] [--or-error] SCHEMA FILE...
      every document in each FILE (one JSON document, or JSON Lines) against
      SCHEMA (pools, top, holders, pages, blocks, stacks, watch, check,
      postmortem, error); --or-error: a document may be the error object
  validate.py [--schemas DIR] --recording FILE...
      every line of each recording FILE against the schema of its "type"
      (docs/schema/recording/TYPE.json); a type with no schema fails

Prints one JSON object: the documents (or records by type) validated.
Exit 0 when every one is valid, 1 with each failure on stderr, 2 on usage.
Works with Debian 12's python3-jsonschema (4.10, RefResolver) and with
the newer ones (4.18+, referencing).
"""
import argparse
import json
import os
import sys
import warnings

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMAS = os.path.join(HERE, "..", "..", "docs", "schema")


def load_store(root):
    """every schema below root, by its $id"""
    store = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            if f.endswith(".json"):
                with open(os.path.join(dirpath, f)) as fh:
                    s = json.load(fh)
                store[s["$id"]] = s
    return store


def validator(store, schema):
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    try:
        from referencing import Registry, Resource

        reg = Registry().with_resources(
            (uri, Resource.from_contents(s)) for uri, s in store.items()
        )
        return cls(schema, registry=reg, format_checker=cls.FORMAT_CHECKER)
    except ImportError:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            res = jsonschema.RefResolver(schema["$id"], schema, store=store)
        return cls(schema, resolver=res)


def documents(path):
    """(where, document) of a file: one document, or one per line"""
    with open(path, "rb") as fh:
        text = fh.read().decode("utf-8")
    try:
        yield path, json.loads(text)
        return
    except ValueError:
        pass
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            yield "%s:%d" % (path, n), json.loads(line)
        except ValueError as e:
            yield "%s:%d" % (path, n), ValueError("not JSON: %s" % e)


def where(err):
    return "/".join(str(p) for p in err.absolute_path) or "(top)"


def report(name, doc, v, bad):
    if isinstance(doc, ValueError):
        print("%s: %s" % (name, doc), file=sys.stderr)
        return False
    errs = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
    for e in errs[:5]:
        print("%s: at %s: %s" % (name, where(e), e.message[:300]), file=sys.stderr)
    if len(errs) > 5:
        print("%s: and %d more" % (name, len(errs) - 5), file=sys.stderr)
    return not errs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--schemas", default=SCHEMAS)
    ap.add_argument("--recording", action="store_true")
    ap.add_argument("--or-error", action="store_true")
    ap.add_argument("args", nargs="+")
    a = ap.parse_args()
    store = load_store(a.schemas)
    base = "https://ppwatch.invalid/schema/"
    seen, ok = {}, True
    if a.recording:
        vs = {}
        for path in a.args:
            for name, doc in documents(path):
                t = doc.get("type") if isinstance(doc, dict) else None
                uri = base + "recording/%s.json" % t
                if uri not in store:
                    print("%s: a record of type %r: no schema (docs/schema/recording/)" % (name, t),
                          file=sys.stderr)
                    ok = False
                    continue
                if t not in vs:
                    vs[t] = validator(store, store[uri])
                ok &= report(name, doc, vs[t], ok)
                seen[t] = seen.get(t, 0) + 1
    else:
        uri = base + a.args[0] + ".json"
        if uri not in store:
            print("no schema %s in %s" % (a.args[0], a.schemas), file=sys.stderr)
            return 2
        v = validator(store, store[uri])
        ve = validator(store, store[base + "error.json"])
        for path in a.args[1:]:
            for name, doc in documents(path):
                kind = a.args[0]
                if a.or_error and isinstance(doc, dict) and "error" in doc:
                    ok &= report(name, doc, ve, ok)
                    kind = "error"
                else:
                    ok &= report(name, doc, v, ok)
                seen[kind] = seen.get(kind, 0) + 1
    print(json.dumps(seen, sort_keys=True))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
