#!/usr/bin/env python3
# The `tandem` executable as a user meets it, checked with references that share no code with
# it: `run --format json` must be one JSON document that Python's json module parses, holding
# exactly the stream and summary the text format prints; `version` must print the version
# CMakeLists.txt's project() declares. Never trusts the CLI's own formatting code: the
# summary is checked against the canonical dump (world::dump) too.
#   cli_process_test.py json|version PATH/TO/tandem   (CTest runs it from the source root)
import json
import re
import shlex
import subprocess
import sys


def run(cli, *args):
    r = subprocess.run([cli, *args], capture_output=True, text=True, check=False)
    if r.returncode != 0:
        sys.exit(f"FAIL: {' '.join(args)} exited {r.returncode}: {r.stderr}")
    return r.stdout


def text_stream_and_summary(out):
    stream, summary = [], None
    for line in out.splitlines():
        if line.startswith("summary "):
            # key=value pairs, the fingerprint double-quoted: shell-like words.
            summary = dict(word.split("=", 1) for word in shlex.split(line)[1:])
        else:
            tick, digest = line.split(" ")
            stream.append({"tick": int(tick), "digest": digest})
    return stream, summary


def check(condition, what):
    if not condition:
        sys.exit(f"FAIL: {what}")
    print(f"ok   {what}")


def check_json(cli):
    for args in (["--scenario", "chaos", "--ticks", "7", "--every", "3"],
                 ["--scenario", "trig", "--ticks", "0"],
                 ["--scenario", "orbits", "--ticks", "2", "--every", "1"]):
        text = run(cli, "run", *args)
        raw = run(cli, "run", *args, "--format", "json")
        try:
            doc = json.loads(raw)  # one document: a second one is "Extra data"
        except json.JSONDecodeError as e:
            sys.exit(f"FAIL: run {' '.join(args)} --format json is not one JSON document: {e}\n{raw}")
        what = f"run {' '.join(args)}"
        check(isinstance(doc, dict) and sorted(doc) == ["scenario", "stream", "summary"],
              f"{what}: one object with exactly scenario, stream, summary")
        stream, summary = text_stream_and_summary(text)
        check(doc["scenario"] == args[1], f"{what}: scenario is {args[1]!r}")
        check(doc["stream"] == stream, f"{what}: the stream equals the text format's {len(stream)} points")
        check(all(isinstance(p["tick"], int) and re.fullmatch(r"[0-9a-f]{16}", p["digest"]) for p in doc["stream"]),
              f"{what}: ticks are numbers, digests 16 lowercase hex digits")
        expected = {k: (int(v) if re.fullmatch(r"[0-9]+", v) and k != "digest" else v) for k, v in summary.items()}
        check(doc["summary"] == expected, f"{what}: the summary equals the text summary {expected}")
        check(doc["summary"]["ticks"] == stream[-1]["tick"] and doc["summary"]["digest"] == stream[-1]["digest"],
              f"{what}: the summary's tick and digest are the stream's last")
        # The canonical dump at the last tick (world::dump, not the CLI's summary code).
        dump = dict(line.split(" ", 1) for line in run(cli, "dump", "--scenario", args[1], "--tick",
                                                          str(stream[-1]["tick"])).splitlines())
        from_dump = {"captures": int(dump["captures"]), "wells": int(dump["wells.count"]),
                     "pellets": int(dump["pellets.count"]), "digest": dump["digest"]}
        check({k: doc["summary"][k] for k in from_dump} == from_dump,
              f"{what}: the summary's captures, wells, pellets and digest are the dump's {from_dump}")
        fingerprint = re.search(r"^fingerprint (.*)$", run(cli, "version"), re.M).group(1)
        check(doc["summary"]["fingerprint"] == fingerprint, f"{what}: the summary's fingerprint is 'tandem version's")


def check_version(cli):
    with open("CMakeLists.txt", encoding="utf-8") as f:
        declared = re.search(r"project\(tandem VERSION ([0-9.]+)", f.read()).group(1)
    out = run(cli, "version")
    first = out.splitlines()[0]
    check(first == f"tandem {declared}", f"'tandem version' prints project()'s version {declared} (got {first!r})")
    with open("bindings/package.json", encoding="utf-8") as f:
        package = json.load(f)["version"]
    check(package == declared, f"bindings/package.json's version {package} is project()'s too")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("json", "version"):
        sys.exit("usage: cli_process_test.py json|version PATH/TO/tandem")
    {"json": check_json, "version": check_version}[sys.argv[1]](sys.argv[2])
