"""Benchmark of ``yili serve`` (issue 16): a section page p50 ≤ 50 ms, and 50 clients at once.

    python benchmarks/bench_serve.py [--rounds 3] [--clients 50]

Starts the real command (``yili serve --port 0``, a process of its own, the cache folder a fresh
temporary one unless ``--warm-cache``) and measures over HTTP from this process:

* first page: seconds from the start of the process to the answer of ``/xiangsheli/16`` (the
  chapter's index is built or opened then);
* section pages: every section of 乡射礼 (``/xiangsheli/N``) in turn, ``--rounds`` times, in
  simplified and traditional script: p50/p95/max wall per page (the first round fills the page
  cache; the later ones read it) — the target is p50 ≤ 50 ms;
* cold sections of other chapters: the first page of each of the other 16 chapters (its index
  opened or built, its section rendered), p50/max;
* DTS: the entry point, a chapter's navigation with ``down=-1``, a section's Document;
* search: ``/search?q=釋獲`` across the work;
* 50 clients at once: ``--clients`` threads each asking for a different section page (and the
  DTS navigation of it) at the same moment, three times: every answer 200, and the p50/p95/max
  wall of an answer under that load and the time for all of them.

Each figure is printed, then the targets and whether they are met.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_P50_MS = 50.0


def get(url: str) -> tuple[int, float, int]:
    """(status, wall ms, bytes) of one GET."""
    t = time.perf_counter()
    try:
        with urllib.request.urlopen(url, timeout=300) as r:
            body = r.read()
            status = r.status
    except urllib.error.HTTPError as e:
        body, status = e.read(), e.code
    return status, (time.perf_counter() - t) * 1000, len(body)


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def line(name: str, ms: list[float]) -> str:
    return (f"{name:<44} n={len(ms):<4} p50 {statistics.median(ms):7.1f} ms   p95 {pct(ms, .95):7.1f} ms"
            f"   max {max(ms):7.1f} ms")


def start(env: dict[str, str]) -> tuple[subprocess.Popen[str], str, float]:
    t0 = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-m", "yili_corpus.cli", "serve", "--port", "0"], cwd=ROOT,
                         env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    assert p.stderr is not None
    first = p.stderr.readline()
    m = re.search(r"at (http://127\.0\.0\.1:\d+/) ", first)
    if not m:
        p.kill()
        sys.exit(f"bench_serve: the server did not start: {first.strip()}")
    return p, m.group(1), t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--warm-cache", action="store_true", help="use the user's cache folder as it is")
    a = ap.parse_args()

    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    tmp = None
    if not a.warm_cache:
        tmp = tempfile.TemporaryDirectory(prefix="yili-bench-serve-")
        env["YILI_CACHE_DIR"] = tmp.name
    p, url, t0 = start(env)
    try:
        s, ms, _ = get(url + "xiangsheli/16")
        print(f"first page /xiangsheli/16: {time.perf_counter() - t0:.2f} s from the start ({s}, {ms:.0f} ms itself)")
        sys.path.insert(0, str(ROOT / "src"))
        from yili_corpus.api import load_work

        work = load_work()
        sections = sorted(work.corpus("xiangsheli").index.sections)
        others = [c for c in work.ids if c != "xiangsheli"]

        results: dict[str, list[float]] = {}
        for r in range(a.rounds):
            for script in ("", "?script=hant"):
                key = f"section pages, round {r + 1}{' hant' if script else ''}"
                for n in sections:
                    s, ms, _ = get(f"{url}xiangsheli/{n}{script}")
                    assert s == 200, (n, s)
                    results.setdefault(key, []).append(ms)
        for k, v in results.items():
            print(line(k, v))
        warm = [ms for k, v in results.items() if not k.startswith("section pages, round 1") for ms in v]
        cold_round = [ms for k, v in results.items() if k.startswith("section pages, round 1") for ms in v]
        allp = cold_round + warm
        print(line("section pages, all rounds", allp))

        cold = []
        for c in others:
            s, ms, _ = get(f"{url}{c}/1")
            assert s == 200, (c, s)
            cold.append(ms)
        print(line("first page of each other chapter", cold))

        for name, path in [("DTS entry", "api/dts/"),
                           ("DTS navigation down=-1 (乡射礼)", "api/dts/navigation/?resource=xiangsheli&down=-1"),
                           ("DTS document ref=16", "api/dts/document/?resource=xiangsheli&ref=16"),
                           ("search 釋獲 (the work)", "search?q=%E9%87%8B%E7%8D%B2")]:
            ms_all = []
            for _ in range(5):
                s, ms, n = get(url + path)
                assert s == 200, (path, s)
                ms_all.append(ms)
            print(line(name, ms_all) + f"   {n} bytes")

        burst: list[float] = []
        walls = []
        ok = 0
        for rnd in range(3):
            urls = []
            for i in range(a.clients):
                n = sections[(i + rnd * 7) % len(sections)]
                urls.append(f"{url}xiangsheli/{n}" if i % 2 == 0 else
                            f"{url}api/dts/navigation/?resource=xiangsheli&ref={n}&down=1")
            t = time.perf_counter()
            with ThreadPoolExecutor(max_workers=a.clients) as pool:
                got = list(pool.map(get, urls))
            walls.append((time.perf_counter() - t) * 1000)
            bad = [s for s, _, _ in got if s != 200]
            if bad:
                print(f"{a.clients} clients at once: {len(bad)} answers not 200: {sorted(set(bad))}")
            burst += [ms for _, ms, _ in got]
            ok += sum(s == 200 for s, _, _ in got)
        print(line(f"{a.clients} clients at once (3 bursts)", burst)
              + f"   all answered in {statistics.median(walls):.0f} ms (median burst)")

        p50 = statistics.median(allp)
        print()
        print(f"target: section page p50 ≤ {TARGET_P50_MS:.0f} ms: {p50:.1f} ms "
              f"(ratio {p50 / TARGET_P50_MS:.2f}) — {'met' if p50 <= TARGET_P50_MS else 'NOT met'}")
        print(f"target: {a.clients} clients at once all answered: "
              f"{ok}/{3 * a.clients} — {'met' if ok == 3 * a.clients else 'NOT met'}")
    finally:
        p.terminate()
        p.wait(timeout=30)
        if tmp:
            tmp.cleanup()


if __name__ == "__main__":
    main()
