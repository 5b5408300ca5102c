"""How `yili import translation` scales with the size of the file (issue 10, finding 8).

    python benchmarks/bench_import.py [--sizes 10,40,100,400] [--src DIR] [--before DIR] [--timeout S]

The input is synthetic: the corpus's own translation (the ``trans`` layer of
tei/yili-xiangsheli.xml, about 19 KB) repeated and re-cut until it has the size asked for: each
copy has its sentences merged in ones, twos and threes and its long paragraphs cut in two, by a
seeded random generator, so no two copies are alike. Each size is imported in a fresh process
(``import_translation`` into a temporary overlay folder), and the script prints the seconds, the
peak memory of that process, the seconds per KB and the ratio of each time to the smallest size's
(linear growth gives a time ratio equal to the size ratio; quadratic growth its square).

``--before DIR`` also measures another source tree (a copy of ``src/`` from before a change) on
the same input and prints the speed-up; a size that runs over ``--timeout`` seconds is reported as
such and the larger sizes are skipped for that tree.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEI = ROOT / "tei" / "yili-xiangsheli.xml"


def translation_paragraphs() -> list[list[str]]:
    """The sentences of each paragraph of the corpus's own translation, from the TEI."""
    sys.path.insert(0, str(ROOT / "src"))
    from yili_corpus.tei.read import read_tei

    doc = read_tei(TEI)
    return [[s.text for s in u.sentences]
            for sec in doc.sections for p in sec.paragraphs for u in p.units if u.layer == "trans"]


def synthetic(size: int, seed: int = 17) -> str:
    """About ``size`` bytes of translation: re-cut copies of the corpus's own (see module doc)."""
    base = translation_paragraphs()
    rng = random.Random(seed)
    out: list[str] = []
    n = 0
    while n < size:
        for para in base:
            sents, i = [], 0
            while i < len(para):
                k = rng.choice([1, 1, 2, 3])
                group = para[i : i + k]
                sents.append("".join(x[:-1] + "，" if x.endswith("。") and j < len(group) - 1 else x
                                     for j, x in enumerate(group)))
                i += k
            cuts = [sents] if len(sents) < 6 else [sents[: len(sents) // 2], sents[len(sents) // 2 :]]
            for c in cuts:
                block = "".join(c)
                out.append(block)
                n += len(block.encode("utf-8")) + 2
                if n >= size:
                    break
            if n >= size:
                break
    return "\n\n".join(out) + "\n"


RUN = r"""
import inspect, json, resource, sys, time
from pathlib import Path
from yili_corpus.overlay import import_translation
from yili_corpus.tei.read import read_tei
doc = read_tei(Path(sys.argv[1]))
kw = {"force": True} if "force" in inspect.signature(import_translation).parameters else {}
t = time.perf_counter()
try:
    rep = import_translation(doc, Path(sys.argv[2]), "bench", "zh-Hans", Path(sys.argv[3]), **kw)
    out = {"ok": True, "paragraphs": len(rep["paragraphs"]), "coverage": rep["coverage"]}
except Exception as exc:  # a refusal is timed too
    out = {"ok": False, "error": str(exc)[:120]}
out["seconds"] = time.perf_counter() - t
out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def run(src: Path, text: str, timeout: float) -> dict:
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "t.txt"
        f.write_text(text, encoding="utf-8")
        env = dict(os.environ, PYTHONPATH=str(src), YILI_CACHE_DIR=str(Path(d) / "cache"))
        try:
            r = subprocess.run([sys.executable, "-c", RUN, str(TEI), str(f), str(Path(d) / "ov")],
                               capture_output=True, text=True, env=env, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"ok": False, "timeout": True, "seconds": timeout}
        if r.returncode != 0:
            return {"ok": False, "error": r.stderr.strip().splitlines()[-1:], "seconds": float("nan")}
        return json.loads(r.stdout.strip().splitlines()[-1])


def _row(r: dict) -> str:
    if r.get("timeout"):
        return "over the timeout"
    if r.get("ok"):
        return f"{r['paragraphs']} paragraphs placed, coverage {r['coverage']:.2f}"
    return f"refused: {str(r.get('error'))[:70]}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10,40,100,400", help="sizes in KB, comma-separated")
    ap.add_argument("--src", default=str(ROOT / "src"), help="the source tree to measure")
    ap.add_argument("--before", metavar="DIR", help="also measure this source tree (a copy of src/ from before "
                    "a change) and print the speed-up")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds allowed per size")
    a = ap.parse_args()
    sizes = [int(x) for x in a.sizes.split(",")]
    print(f"source: {a.src}" + (f"; before: {a.before}" if a.before else ""))
    head = f"{'KB':>6} {'bytes':>9} {'seconds':>9} {'s/KB':>7} {'MB RSS':>7} {'size ×':>7} {'time ×':>7}"
    print(head + (f" {'before s':>9} {'speed-up':>9}" if a.before else "") + "  result")
    first: tuple[int, float] | None = None
    before_done = False
    for kb in sizes:
        text = synthetic(kb * 1024)
        nbytes = len(text.encode("utf-8"))
        r = run(Path(a.src), text, a.timeout)
        if r.get("timeout"):
            print(f"{kb:>6} {nbytes:>9} {'>' + str(int(a.timeout)):>9}  over the timeout; larger sizes skipped")
            break
        secs = r["seconds"]
        if first is None:
            first = (nbytes, secs)
        line = (f"{kb:>6} {nbytes:>9} {secs:>9.2f} {secs / (nbytes / 1024):>7.3f} {r.get('rss_mb', 0):>7.0f} "
                f"{nbytes / first[0]:>7.1f} {secs / first[1] if first[1] else float('nan'):>7.1f}")
        if a.before:
            if before_done:
                line += f" {'(skipped)':>9} {'':>9}"
            else:
                b = run(Path(a.before), text, a.timeout)
                if b.get("timeout"):
                    before_done = True  # the larger sizes would only run over it too
                    line += f" {'>' + str(int(a.timeout)):>9} {'>' + format(a.timeout / secs, '.0f'):>9}"
                else:
                    line += f" {b['seconds']:>9.2f} {b['seconds'] / secs:>9.1f}"
                line += f"  before: {_row(b)}; now:"
        print(line + f"  {_row(r)}")


if __name__ == "__main__":
    main()
