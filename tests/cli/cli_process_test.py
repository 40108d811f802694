#!/usr/bin/env python3
# The `tandem` executable as a user meets it, checked with references that share no code with
# it: `run --format json` must be one JSON document that Python's json module parses, holding
# exactly the stream and summary the text format prints; `version` must print the version
# CMakeLists.txt's project() declares. Never trusts the CLI's own formatting code: the
# summary is checked against the canonical dump (world::dump) too.
# `replay` must agree with `dump` at every tick it is asked for, and name the tick (and section)
# of a replay damaged here byte by byte from the documented layout (include/tandem/net/replay.hpp),
# and the tick, section and field of a recording whose state make_replay damaged, for the arena
# or, with GAME, another game (`replay --game GAME`).
#   cli_process_test.py json|version PATH/TO/tandem   (CTest runs it from the source root)
#   cli_process_test.py replay PATH/TO/tandem PATH/TO/make_replay [GAME]
import glob
import json
import os
import re
import shlex
import struct
import subprocess
import sys
import tempfile


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
    # A game's package takes its version from project() when it is configured: the template
    # must not hold a version of its own, and a package already built says project()'s.
    with open("bindings/package.json.in", encoding="utf-8") as f:
        template = json.load(f)["version"]
    check(template == "@TANDEM_PACKAGE_VERSION@", f"bindings/package.json.in leaves the version to project() (got {template!r})")
    for built in sorted(glob.glob("build/wasm/packages/*/package.json")):
        with open(built, encoding="utf-8") as f:
            package = json.load(f)["version"]
        check(package == declared, f"{built}'s version {package} is project()'s too")


def run_status(cli, *args):
    r = subprocess.run([cli, *args], capture_output=True, text=True, check=False)
    return r.returncode, r.stdout, r.stderr


def replay_records(data):
    """(offset of the message, message bytes) of each record after the 16-byte header."""
    records, at = [], 16
    while at + 4 <= len(data):
        (length,) = struct.unpack_from("<I", data, at)
        if length == 0:
            break  # the end marker
        records.append((at + 4, data[at + 4:at + 4 + length]))
        at += 4 + length
    return records


# Per game: its second section (a Sections record's second digest, after the config's) and the
# field make_replay --damage-at changes, with the change (the replay's value minus this build's).
# Both games have a scenario named chaos.
replay_games = {
    "arena": {"second_section": "wells", "damaged_field": r"wells\[\d+\]\.pos\.x", "damage": 1},
    "ships": {"second_section": "ships", "damaged_field": r"ships\[\d+\]\.deaths", "damage": 1000},
}


def check_replay(cli, make_replay, game="arena"):
    if game not in replay_games:
        sys.exit(f"FAIL: no replay checks for game '{game}' (known: {', '.join(replay_games)})")
    spec = replay_games[game]
    as_game = ["--game", game]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "chaos.replay")
        subprocess.run([make_replay, *as_game, "chaos", "30", path], check=True)
        with open(path, "rb") as f:
            good = f.read()
        check(good[:8] == b"TNDR\x02\x00\x05\x00", "the replay starts TNDR, format 2, protocol 5")

        status, out, err = run_status(cli, "replay", *as_game, path)
        check(status == 0 and out.startswith(f"replay of {game}, ") and "30 frames" in out
              and out.rstrip().endswith("ok: every digest agrees with this build"),
              f"replay of a recorded {game} match exits 0 and checks 30 frames (got {status}: {out}{err})")
        # The header's fingerprint names the game: without --game the replay is read as its own.
        status, out, err = run_status(cli, "replay", path)
        check(status == 0 and out.startswith(f"replay of {game}, "), f"replay without --game reads a {game} replay (got {status}: {out}{err})")
        other = next(g for g in replay_games if g != game)
        status, out, err = run_status(cli, "replay", "--game", other, path)
        check(status == 1 and f"is a match of {game}, not of {other}" in err,
              f"replay --game {other} of a {game} replay exits 1 naming both (got {status}: {err})")

        for tick in (0, 17, 30):
            status, out, err = run_status(cli, "replay", *as_game, path, "--dump-at", str(tick))
            dump = run(cli, "dump", *as_game, "--scenario", "chaos", "--tick", str(tick))
            check(status == 0 and "scenario chaos\n" + out == dump,
                  f"replay --dump-at {tick} prints what dump --game {game} --scenario chaos --tick {tick} prints")

        def write(data):
            bad = os.path.join(tmp, "bad.replay")
            with open(bad, "wb") as f:
                f.write(data)
            return bad

        def frame_at(data, tick):
            for offset, body in replay_records(data):
                if body[0] == 0x82 and struct.unpack_from("<Q", body, 1)[0] == tick:
                    return offset
            sys.exit(f"FAIL: no frame of tick {tick}")

        def sections_at(data, tick):
            for offset, body in replay_records(data):
                if body[0] == 0x85 and struct.unpack_from("<Q", body, 1)[0] == tick:
                    return offset
            sys.exit(f"FAIL: no sections of tick {tick}")

        # The frame's digest (after the type and the tick) flipped at tick 12.
        data = bytearray(good)
        data[frame_at(data, 12) + 9] ^= 1
        status, out, err = run_status(cli, "replay", *as_game, write(data))
        check(status == 1 and "mismatch at tick 12:" in out and "sections: none differ" in out
              and "fields: unknown (the replay holds no state at or after tick 12)" in out,
              f"a flipped frame digest exits 1 naming tick 12 (got {status}: {out})")

        # The room's second section's digest at tick 12 (type, tick, held, count, the config's
        # digest, then that section's) too.
        data[sections_at(data, 12) + 1 + 8 + 1 + 1 + 8] ^= 1
        status, out, err = run_status(cli, "replay", *as_game, write(data))
        check(status == 1 and "mismatch at tick 12:" in out and f"sections: {spec['second_section']}\n" in out,
              f"with the room's {spec['second_section']} digest changed there too, it names that section (got {out})")

        # A recording whose state was damaged right after tick 12, with a baseline of the damaged
        # state at tick 20: the tick is named, and the field, with the replay's value and this
        # build's, the latter read from `dump` (which shares nothing with the replay checker).
        damaged = os.path.join(tmp, "damaged.replay")
        subprocess.run([make_replay, *as_game, "chaos", "30", damaged, "--damage-at", "12", "--baseline-at", "20"], check=True)
        status, out, err = run_status(cli, "replay", *as_game, damaged)
        dump20 = run(cli, "dump", *as_game, "--scenario", "chaos", "--tick", "20")
        field = re.search(rf"^({spec['damaged_field']}) (-?\d+)$", dump20, re.M)
        check(field is not None, f"dump --tick 20 prints a {spec['damaged_field']} line")
        name, undamaged = field.group(1), int(field.group(2))
        check(status == 1 and "mismatch at tick 12:" in out and "ticks 0 to 12" in out,
              f"a damaged recording exits 1 naming tick 12 (got {status}: {out}{err})")
        check(re.search(r"^fields at tick 20 \(the replay's state there against this build's; \d+ differ\):$", out, re.M),
              f"it diffs the fields at the baseline of tick 20 (got {out})")
        expected = f"  {name} {undamaged + spec['damage']} {undamaged} ("
        check(any(line.startswith(expected) for line in out.splitlines()),
              f"it names the damaged field '{expected}...' (got {out})")

        for cut, what in ((len(good) - 3, "inside the end marker"), (10, "inside the header")):
            status, out, err = run_status(cli, "replay", *as_game, write(good[:cut]))
            check(status == 1 and "truncated" in err, f"a replay cut {what} exits 1 as truncated (got {status}: {err})")

        # The end marker: a u32 zero after the last record. A file without it is truncated,
        # exit 1, naming the last tick it covers; --allow-truncated checks what it holds.
        check(good[-4:] == b"\0\0\0\0", "a finished replay ends with the end marker, a u32 zero")
        status, out, err = run_status(cli, "replay", *as_game, write(good[:-4]))
        check(status == 1 and out == "" and "truncated: no end marker (cut after its last whole record); the last tick it covers is 30 (ticks 0 to 30)" in err
              and "--allow-truncated" in err,
              f"a replay without its end marker exits 1 as truncated at tick 30 (got {status}: {out}{err})")
        inside = frame_at(good, 20) + 3  # three bytes into tick 20's frame
        status, out, err = run_status(cli, "replay", *as_game, write(good[:inside]))
        check(status == 1 and "truncated: no end marker (cut inside record" in err and "the last tick it covers is 19 (ticks 0 to 19)" in err,
              f"a replay cut inside tick 20's frame exits 1 as truncated at tick 19 (got {status}: {out}{err})")
        status, out, err = run_status(cli, "replay", *as_game, write(good[:inside]), "--allow-truncated")
        check(status == 0 and out.startswith("truncated: no end marker (cut inside record") and "the last tick it covers is 19" in out
              and "ticks 0 to 19: 19 frames" in out and out.rstrip().endswith("ok: every digest agrees with this build"),
              f"--allow-truncated checks the 19 ticks it holds, says truncated, exits 0 (got {status}: {out}{err})")
        status, out, err = run_status(cli, "replay", *as_game, "--allow-truncated", path)
        check(status == 0 and "truncated" not in out and "30 frames" in out, f"--allow-truncated on a whole file checks it all (got {status}: {out}{err})")
        data = bytearray(good[:-4])
        data[frame_at(data, 12) + 9] ^= 1
        status, out, err = run_status(cli, "replay", *as_game, write(data), "--allow-truncated")
        check(status == 1 and out.startswith("truncated:") and "mismatch at tick 12:" in out,
              f"--allow-truncated still names a mismatch, exit 1 (got {status}: {out}{err})")
        welcome_only = replay_records(good)[1][0] - 4  # the baseline record's first byte
        for extra in ([], ["--allow-truncated"]):
            status, out, err = run_status(cli, "replay", *as_game, write(good[:welcome_only]), *extra)
            check(status == 1 and "truncated" in err and "covers no tick" in err,
                  f"a replay cut before its baseline exits 1 as truncated {extra} (got {status}: {out}{err})")
        status, out, err = run_status(cli, "replay", *as_game, write(good[:-4]), "--dump-at", "17")
        check(status == 1 and "truncated" in err, f"--dump-at of a truncated file exits 1 without --allow-truncated (got {status}: {err})")
        status, out, err = run_status(cli, "replay", *as_game, write(good[:-4]), "--dump-at", "17", "--allow-truncated")
        dump = run(cli, "dump", *as_game, "--scenario", "chaos", "--tick", "17")
        check(status == 0 and "scenario chaos\n" + out == dump and "truncated" in err,
              f"--dump-at with --allow-truncated prints the state, the truncation on stderr (got {status}: {err})")
        status, out, err = run_status(cli, "replay", path, "--allow-truncated=yes")
        check(status == 2 and "--allow-truncated takes no value" in err, f"--allow-truncated=VALUE exits 2 (got {status}: {err})")
        status, out, err = run_status(cli, "replay", write(b"XNDR" + good[4:]))
        check(status == 1 and "bad_magic" in err, f"another file exits 1 as bad_magic (got {status}: {err})")

        status, out, err = run_status(cli, "replay", *as_game, path, "--dump-at", "31")
        check(status == 2 and "covers ticks 0 to 30" in err, f"--dump-at past the end exits 2 naming the ticks (got {status}: {err})")
        status, out, err = run_status(cli, "replay")
        check(status == 2 and "needs FILE" in err, f"replay without FILE exits 2 (got {status}: {err})")
        status, out, err = run_status(cli, "replay", path, "--tick", "3")
        check(status == 2 and "accepted: one FILE, --game, --dump-at, --allow-truncated, --help" in err, f"an unknown flag exits 2 listing the accepted (got {err})")


if __name__ == "__main__":
    checks = {"json": check_json, "version": check_version, "replay": check_replay}
    arity = (4, 5) if len(sys.argv) > 1 and sys.argv[1] == "replay" else (3,)
    if len(sys.argv) < 3 or sys.argv[1] not in checks or len(sys.argv) not in arity:
        sys.exit("usage: cli_process_test.py json|version PATH/TO/tandem | replay PATH/TO/tandem PATH/TO/make_replay [GAME]")
    checks[sys.argv[1]](*sys.argv[2:])
