"""Benchmarks at 1×, 10× and 100× the chapter (issue #6).

    python benchmarks/bench.py [--sizes 1,10,100] [--out DIR]

For each size N the script copies corpus/ N times with distinct chapter ids (xiangsheli1 …),
runs the real build on each copy (two at a time), merges the N TEI documents into one TEI with
distinct section numbers, and measures on it, each figure printed:

* build: seconds to build the N copies through the real build (and per copy);
* TEI load: seconds to read the merged TEI into a Document;
* index: seconds to build the search index from the TEI (first use);
* search: p50/p95 latency in process over a fixed query set (1-, 2-, 4-, 8-character queries,
  each in every layer): for the first page (``limit=20``: whole counts, 20 hits built) and for all
  hits; and, side by side, `grep -c` (ripgrep if installed) for the same queries on the plain text
  of the TEI, with the ratio page p50 / grep;
* show / cite: p50/p95 latency in process;
* cold `yili search`: a fresh process, end to end (at 1×);
* peak memory (max RSS) of a process that loads the TEI, builds the index and searches.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

QUERIES = ["觯", "楅", "获者", "司射", "释获者坐", "主人阼阶", "司马命张侯弟子", "宾西阶上北面荅拜"]


def make_copy(k: int, base: Path) -> Path:
    dst = base / f"corpus{k}"
    shutil.copytree(ROOT / "corpus", dst)
    # the copy's default chapter is 乡射礼 under another id (the chapter manifest's name is its id)
    w = (dst / "manifest.toml").read_text(encoding="utf-8")
    w = w.replace('"chapters/xiangsheli.toml"', f'"chapters/xiangsheli{k}.toml"').replace(
        'default = "xiangsheli"', f'default = "xiangsheli{k}"')
    (dst / "manifest.toml").write_text(w, encoding="utf-8")
    c = dst / "chapters" / "xiangsheli.toml"
    (dst / "chapters" / f"xiangsheli{k}.toml").write_text(
        c.read_text(encoding="utf-8").replace('id = "xiangsheli"', f'id = "xiangsheli{k}"', 1), encoding="utf-8")
    c.unlink()
    return dst


def build_one(path: str) -> tuple[str, float]:
    from yili_corpus.build import run_build, tei_bytes

    t = time.perf_counter()
    r = run_build(path)
    data = tei_bytes(r)
    out = Path(path) / "out.xml"
    out.write_bytes(data)
    return str(out), time.perf_counter() - t


def merge(teis: list[str], dest: Path) -> None:
    from yili_corpus.tei.read import read_tei
    from yili_corpus.tei.write import to_bytes

    docs = [read_tei(p) for p in teis]
    base = docs[0]
    sections = []
    for k, d in enumerate(docs):
        for s in d.sections:
            s.n = k * 100 + s.n
            sections.append(s)
    base.sections = sections
    base.chars = list({c.id: c for d in docs for c in d.chars}.values())
    dest.write_bytes(to_bytes(base))


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p * (len(xs) - 1))))]


def measure(tei: Path, cache: Path) -> dict:
    """Runs in a fresh process: load, index, search, show, cite; peak memory."""
    env0 = dict(os.environ)
    load_code = f"import sys, time; sys.path.insert(0, {str(ROOT / 'src')!r}); t = time.perf_counter(); "\
        f"from yili_corpus.tei.read import read_tei; read_tei({str(tei)!r}); print(time.perf_counter() - t)"
    load = float(subprocess.run([sys.executable, "-c", load_code], capture_output=True, text=True, env=env0,
                                check=True).stdout)
    code = f"""
import json, resource, statistics, sys, time
sys.path.insert(0, {str(ROOT / 'src')!r})
from pathlib import Path
load = {load!r}
from yili_corpus.api import Corpus
c = Corpus(Path({str(tei)!r}))
t = time.perf_counter(); c.index; index = time.perf_counter() - t
lat = []
full = []
for q in {QUERIES!r}:
    for lay in (None, ["jing"], ["ji"], ["zhu"], ["shu"], ["note"], ["trans"]):
        t = time.perf_counter(); r = c.search(q, layers=lay, limit=20); lat.append(time.perf_counter() - t)
        t = time.perf_counter(); r = c.search(q, layers=lay); full.append(time.perf_counter() - t)
sections = sorted(c.index.sections)
show = []
for n in sections[:: max(1, len(sections) // 20)]:
    t = time.perf_counter(); c.passage(str(n)); show.append(time.perf_counter() - t)
cite = []
for q in ["司正为司马", "司馬命張侯，弟子說東，遂繫右下綱", "主人坐取爵于上篚以降", "宾西阶上北面答拜"]:
    t = time.perf_counter(); c.cite(q); cite.append(time.perf_counter() - t)
# peak resident memory of this process (VmHWM: ru_maxrss would count the parent's at fork)
rss = [int(x.split()[1]) for x in open("/proc/self/status") if x.startswith("VmHWM")][0] / 1024
print(json.dumps(dict(load=load, index=index, search=lat, full=full, show=show, cite=cite, rss_mb=rss)))
"""
    env = dict(os.environ, YILI_CACHE_DIR=str(cache))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout)


def grep_ratio(tei: Path, per_query_ms: float) -> tuple[str, float]:
    """Time of `grep -c` (or `rg -c`) over the TEI's plain text for the query set."""
    tool = shutil.which("rg") or shutil.which("grep")
    name = Path(tool).name if tool else "none"
    text = tei.with_suffix(".txt")
    from lxml import etree

    text.write_text("".join(etree.parse(str(tei)).getroot().itertext()), encoding="utf-8")
    t = time.perf_counter()
    for q in QUERIES:
        subprocess.run([tool, "-c", q, str(text)], capture_output=True)
    per = (time.perf_counter() - t) / len(QUERIES) * 1000
    return name, per


def cold_search(tei: Path, cache: Path) -> float:
    env = dict(os.environ, YILI_CACHE_DIR=str(cache), YILI_TEI=str(tei))
    yili = shutil.which("yili") or ""
    cmd = [yili, "search", "获者", "--json"] if yili else [sys.executable, "-m", "yili_corpus.cli", "search", "获者", "--json"]
    subprocess.run(cmd, capture_output=True, env=env)  # index built
    times = []
    for _ in range(5):
        t = time.perf_counter()
        subprocess.run(cmd, capture_output=True, env=env, check=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1,10,100")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    work = Path(tempfile.mkdtemp(prefix="yili-bench-"))
    print(f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}; work folder {work}")
    print(f"{'size':>5} {'build s':>8} {'s/copy':>7} {'load s':>7} {'index s':>8} {'page p50/p95 ms':>18} "
          f"{'all p50/p95 ms':>18} "
          f"{'grep ms':>8} {'ratio':>6} {'show p50 ms':>11} {'cite p50 ms':>11} {'peak MB':>8}")
    rows = []
    for n in sizes:
        copies = [str(make_copy(k, work / f"x{n}")) for k in range(1, n + 1)]
        t = time.perf_counter()
        with ProcessPoolExecutor(args.workers) as ex:
            built = list(ex.map(build_one, copies))
        build = time.perf_counter() - t
        tei = work / f"x{n}" / f"yili-bench-{n}.xml"
        # merge in a process of its own, so that this one stays small
        with ProcessPoolExecutor(1) as ex:
            ex.submit(merge, [b[0] for b in built], tei).result()
        m = measure(tei, work / f"cache{n}")
        tool, gms = grep_ratio(tei, 0)
        s50, s95 = pct(m["search"], 0.5) * 1000, pct(m["search"], 0.95) * 1000
        f50, f95 = pct(m["full"], 0.5) * 1000, pct(m["full"], 0.95) * 1000
        row = dict(size=n, build=build, per_copy=statistics.mean(b[1] for b in built), load=m["load"], index=m["index"],
                   search_p50=s50, search_p95=s95, full_p50=f50, full_p95=f95, grep_ms=gms, grep_tool=tool,
                   ratio=s50 / gms if gms else 0,
                   show_p50=pct(m["show"], 0.5) * 1000, cite_p50=pct(m["cite"], 0.5) * 1000, rss_mb=m["rss_mb"])
        rows.append(row)
        print(f"{n:>4}× {build:>8.2f} {row['per_copy']:>7.2f} {m['load']:>7.2f} {m['index']:>8.2f} "
              f"{s50:>8.2f}/{s95:<8.2f} {f50:>8.2f}/{f95:<8.2f} {gms:>8.2f} {row['ratio']:>6.2f} {row['show_p50']:>11.1f} "
              f"{row['cite_p50']:>11.1f} {m['rss_mb']:>8.0f}", flush=True)
        if n == 1:
            cs = cold_search(tei, work / "cache1")
            print(f"      cold `yili search 获者 --json` at 1×: {cs * 1000:.0f} ms (median of 5, fresh process)")
            row["cold_search_ms"] = cs * 1000
    (work / "results.json").write_text(json.dumps(rows, indent=2), encoding="utf-8")
    print(f"grep tool: {rows[0]['grep_tool']}; ratio = yili search p50 / grep -c per query; results in {work / 'results.json'}")


if __name__ == "__main__":
    main()
