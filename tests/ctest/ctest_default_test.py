#!/usr/bin/env python3
"""What a bare `ctest` runs in a build directory: the default run only. Lists the tests the
way `ctest -N` does (as JSON) and fails if any of them is a sweep or a long run (a name under
exhaustive/ or a label exhaustive, long or fuzz-long) that the configuration did not opt in
to, or if any test's command names a path inside the source tree's docs/ (no test may
rewrite a committed document; docs/accuracy.md is written by build-scripts/exhaustive only).

    ctest_default_test.py BUILD_DIR SOURCE_DIR [--ctest CTEST] [--allow LABEL]...
"""
import argparse
import json
import os
import subprocess
import sys

OPT_IN_LABELS = {"exhaustive", "long", "fuzz-long"}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir")
    parser.add_argument("source_dir")
    parser.add_argument("--ctest", default="ctest", help="the ctest executable (default: from PATH)")
    parser.add_argument("--allow", action="append", default=[],
                        help="an opt-in label this configuration registered on purpose")
    args = parser.parse_args()
    listing = subprocess.run([args.ctest, "-N", "--show-only=json-v1", "--test-dir", args.build_dir],
                             check=True, capture_output=True, text=True).stdout
    tests = json.loads(listing)["tests"]
    docs = os.path.realpath(os.path.join(args.source_dir, "docs")) + os.sep
    problems = []
    for test in tests:
        name = test["name"]
        props = {p["name"]: p["value"] for p in test.get("properties", [])}
        labels = set(props.get("LABELS", []))
        unwanted = (labels & OPT_IN_LABELS) - set(args.allow)
        if unwanted:
            problems.append(f"{name}: label {', '.join(sorted(unwanted))} in a bare ctest")
        if name.startswith("exhaustive/") and "exhaustive" not in args.allow:
            problems.append(f"{name}: an exhaustive sweep in a bare ctest")
        for word in test.get("command", []):
            for part in word.split("="):
                if os.path.isabs(part) and os.path.realpath(part).startswith(docs):
                    problems.append(f"{name}: its command names {part}, a committed document")
    for p in problems:
        print("FAIL " + p)
    print(f"{len(tests)} tests listed, {len(problems)} problems")
    return 1 if problems or not tests else 0


if __name__ == "__main__":
    sys.exit(main())
