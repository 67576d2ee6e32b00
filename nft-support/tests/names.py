#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Hostile cgroup names for the output tests, and real parsers for each of
nft-cgroupd's outputs (Debian's python3-prometheus-client, python3's json).

  names.py make DIR             make the names below DIR
  names.py prom FILE PREFIX DIR the metrics file names exactly DIR's cgroups
  names.py json FILE PREFIX DIR the --stats --json output does
  names.py table FILE PREFIX DIR the --stats, --list or --check output does

PREFIX is the path of DIR below the cgroup root ("/hx/all"). Every output
must be valid UTF-8 without a raw control byte (but the line ends of text),
and its names, read back (\\xHH a byte, \\\\ a backslash), must be the
directory's names, each once.
"""
import json
import os
import re
import sys

SPECIAL = [
    b"\xc0\xaf", b"\xe0\x80\xaf", b"\xf0\x80\x80\xaf",  # overlong '/'
    b"\xed\xa0\x80", b"\xed\xbf\xbf",                    # surrogates
    b"\xf4\x90\x80\x80", b"\xf8\x88\x80\x80\x80",        # above U+10FFFF
    b"\xc2\x9b[2J", b"\xc2\xa0nbsp",                     # C1 CSI, U+00A0
    "é€😀".encode(), b"\\xff", b"a\\b", b"\\", b'"q"',
    b"\x1b[31mred", b"x\rFAKE LINE", b"tab\there", b"del\x7f",
    b"sp ace", b"a #b", b"}", b"{x=\"y\"}",
]


def names():
    out = {bytes(b for b in range(1, 256) if b not in (0x2f, 0x0a))}
    out |= {bytes([b]) for b in range(1, 256) if b not in (0x2f, 0x0a, 0x2e)}
    out |= set(SPECIAL)
    return out


def unescape(text):
    """The bytes of a name shown as text: \\xHH a byte, \\\\ a backslash."""
    out, i = bytearray(), 0
    while i < len(text):
        if text[i] == "\\":
            if text[i + 1] == "\\":
                out += b"\\"
                i += 2
            elif text[i + 1] == "x" and re.fullmatch(r"[0-9a-f]{2}", text[i + 2:i + 4]):
                out.append(int(text[i + 2:i + 4], 16))
                i += 4
            else:
                raise ValueError(f"bad escape at {i} in {text!r}")
        else:
            out += text[i].encode()
            i += 1
    return bytes(out)


def read_text(path):
    """The file as str: strict UTF-8, no control character but '\\n'."""
    raw = open(path, "rb").read()
    text = raw.decode("utf-8")      # strict: raises on invalid UTF-8
    bad = [c for c in text if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) < 0xa0]
    if bad:
        raise ValueError(f"raw control characters in {path}: {sorted(set(bad))!r}")
    return text


def compare(got, prefix, d):
    d = d.encode()
    want = {prefix.encode() + b"/" + n for n in os.listdir(d)
            if os.path.isdir(d + b"/" + n)}
    dup = len(got) - len(set(got))
    got = {g for g in got if g.startswith(prefix.encode() + b"/")}
    missing, extra = want - got, got - want
    if dup or missing or extra:
        print(f"{dup} duplicates; missing {sorted(missing)[:5]!r} "
              f"({len(missing)}); extra {sorted(extra)[:5]!r} ({len(extra)})")
        return 1
    print(f"ok: {len(want)} names")
    return 0


def main():
    cmd = sys.argv[1]
    if cmd == "make":
        for n in names():
            os.mkdir(sys.argv[2].encode() + b"/" + n)
        return 0
    f, prefix, d = sys.argv[2:5]
    text = read_text(f)
    if cmd == "prom":
        from prometheus_client.parser import text_string_to_metric_families
        got = []
        for fam in text_string_to_metric_families(text):
            if fam.name == "nft_cgroupd_live":
                got += [unescape(s.labels["path"]) for s in fam.samples]
    elif cmd == "json":
        got = [unescape(r["path"]) for r in json.loads(text)]
    elif cmd == "table":
        # --stats: SET ID PACKETS BYTES RESTARTS  /PATH; --list: ID PATH;
        # --check: "  + ID /PATH"; --list adds the counter of a counted set
        row = re.compile(r"^(?:\S+ +\S+ +\d+ +\d+ +\d+  |\d+ |  [+-] \d+ )"
                         r"(/.*?)(?: packets \d+ bytes \d+)?$")
        got = [unescape(m.group(1)) for m in map(row.match, text.splitlines()) if m]
    else:
        raise SystemExit(f"names.py: unknown command {cmd}")
    return compare(got, prefix, d)


if __name__ == "__main__":
    sys.exit(main())
