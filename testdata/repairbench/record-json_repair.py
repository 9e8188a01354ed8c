"""Record Python json_repair's reading of each corpus document.

Usage: PYTHONPATH=<json_repair checkout>/src python3 record-json_repair.py \
    ../../parse/testdata/repaircorpus.jsonl > json_repair-py-VERSION.jsonl

json_repair never raises: where it finds no value it returns "". That is
recorded as a refusal, as the JavaScript library's exceptions are.
"""
import json
import sys

import json_repair

with open(sys.argv[1], encoding="utf-8") as corpus:
    for line in corpus:
        if not line.strip():
            continue
        doc = json.loads(line)
        try:
            out = json_repair.repair_json(doc["in"])
        except Exception as e:  # noqa: BLE001 - any failure is a refusal
            rec = {"in": doc["in"], "error": f"{type(e).__name__}: {e}"}
        else:
            if out == "":
                rec = {"in": doc["in"], "error": "returned no value"}
            else:
                rec = {"in": doc["in"], "out": out}
        sys.stdout.write(json.dumps(rec, ensure_ascii=False) + "\n")
