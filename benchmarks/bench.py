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
* cold `yili search`: a fresh process, end to end (at 1×), beside a bare ``python -c pass``
  timed in the same run (the ratio is the target's);
* peak memory (max RSS) of a process that loads the TEI, builds the index and searches, and of
  the worker processes that index a large TEI (query/index.py: PARALLEL_BYTES).

``--copies tei`` makes the N× TEI from the chapter's TEI instead (its sections repeated with
their ids renamed: the same text, no build), for measuring the read side without the N builds.
The 100× TEI (≈ 115 MB) is over the reader's size limit for one file (tei/read.py: MAX_BYTES,
64 MB, a guard against hostile files); the measuring process raises it for the benchmark.

The whole work: ``--work DIR`` (default ``tei/``, or e.g. the stand-ins in /tmp/tei15) indexes
every ``yili-*.xml`` there — one index per chapter, in one process, and two chapters at a time —
and searches the query set in every chapter through ``api.Work.search`` (what ``api.load()``
gives in the project: p50/p95 wall, p50 CPU), with `grep -c` over all the files and a cold
``yili search`` of one chapter and (for ``tei/``) of the whole work. ``--build-work`` also times
``yili build -j 2`` of every chapter (into a folder of its own: tei/ is not touched). The script
ends with the figures against the targets of issue 15.

    python benchmarks/bench.py --sizes 1,10,100 --copies tei --build-work
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


def synthesize(tei: Path, n: int, dest: Path) -> None:
    """The N× TEI from one chapter's TEI: its sections repeated, ids renamed (``xiangsheli.`` to
    ``xiangsheliK.``), section numbers moved by 100 a copy (as :func:`merge` numbers them)."""
    import re

    src = tei.read_bytes()
    a = src.index(b'<div type="section"')
    b = src.rindex(b"</div>", 0, src.index(b"</body>")) + len(b"</div>")
    secs = [x for x in re.split(rb'(?=<div type="section")', src[a:b]) if x.strip()]
    chapter = re.search(rb'xml:id="yili\.(\w+)"', src).group(1)  # type: ignore[union-attr]
    with dest.open("wb") as f:
        f.write(src[:a])
        for k in range(1, n + 1):
            for x in secs:
                x = x.replace(chapter + b".", chapter + str(k).encode() + b".")
                f.write(re.sub(rb'^(<div type="section" subtype="\w+" n=")(\d+)',
                               lambda m, k=k: m.group(1) + str(k * 100 + int(m.group(2))).encode(), x))
        f.write(src[b:])


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
        f"import yili_corpus.tei.read as r; r.MAX_BYTES = 1 << 30; "\
        f"from yili_corpus.tei.read import read_tei; read_tei({str(tei)!r}); print(time.perf_counter() - t)"
    load = float(subprocess.run([sys.executable, "-c", load_code], capture_output=True, text=True, env=env0,
                                check=True).stdout)
    code = f"""
import json, resource, statistics, sys, time
sys.path.insert(0, {str(ROOT / 'src')!r})
from pathlib import Path
load = {load!r}
import yili_corpus.tei.read as r; r.MAX_BYTES = 1 << 30  # the 100× TEI is over the guard's 64 MB
from yili_corpus.api import Corpus
c = Corpus(Path({str(tei)!r}))
t = time.perf_counter(); c0 = time.process_time(); c.index; index = time.perf_counter() - t
index_cpu = time.process_time() - c0 + resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
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
kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps(dict(load=load, index=index, index_cpu=index_cpu, search=lat, full=full, show=show, cite=cite,
                      rss_mb=rss, workers_mb=kids)))
"""
    env = dict(os.environ, YILI_CACHE_DIR=str(cache))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise SystemExit(f"the measure at {tei.name} failed:\n{out.stderr[-2000:]}")
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


def cold_search(args: list[str], cache: Path, env_tei: Path | None = None, runs: int = 7,
                bytecode: bool = True, cwd: Path | None = None) -> tuple[float, float, float, float]:
    """Medians of a fresh ``yili ARGS`` process and of a bare ``python -c pass``, run in turns
    (each pair under the same load): wall seconds of each, then CPU seconds of each. ``bytecode``: the modules' compiled code
    kept (in a folder of the benchmark's, PYTHONPYCACHEPREFIX), as an installed package has it;
    else every module compiled at every run (PYTHONDONTWRITEBYTECODE, as this machine's
    environment sets it for a source checkout)."""
    env = dict(os.environ, YILI_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT / "src"))
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(cache.parent / "pycache")
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    if env_tei is not None:
        env["YILI_TEI"] = str(env_tei)
    cmd = [sys.executable, "-m", "yili_corpus.cli", *args]
    subprocess.run(cmd, capture_output=True, env=env, cwd=cwd)  # the index built
    yili, bare = [], []
    for _ in range(runs):
        for c, out in ((cmd, yili), ([sys.executable, "-c", "pass"], bare)):
            t, u = time.perf_counter(), _child_cpu()
            subprocess.run(c, capture_output=True, env=env, check=True, cwd=cwd)
            out.append((time.perf_counter() - t, _child_cpu() - u))
    return (statistics.median(x for x, _ in yili), statistics.median(x for x, _ in bare),
            statistics.median(x for _, x in yili), statistics.median(x for _, x in bare))


def build_work(dest: Path) -> tuple[float, float]:
    """Wall and CPU seconds of ``yili build -j 2`` of the project's corpus/ (every chapter), its
    TEIs and reports written under ``dest`` (tei/ is not touched)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    cmd = [sys.executable, "-m", "yili_corpus.cli", "build", "-j", "2", "-q", "--corpus", str(ROOT / "corpus"),
           "--tei-dir", str(dest / "tei"), "--report-dir", str(dest / "build")]
    t, u = time.perf_counter(), _child_cpu()
    subprocess.run(cmd, capture_output=True, env=env, check=True, cwd=ROOT)
    return time.perf_counter() - t, _child_cpu() - u


def _child_cpu() -> float:
    """CPU seconds (user and system) of the finished child processes so far: a process's CPU time
    is about its time on a quiet machine, where wall time on a loaded one is not."""
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


WORK = r"""
import json, resource, statistics, sys, time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
sys.path.insert(0, SRC)
teis = sorted(Path(FOLDER).glob("yili-*.xml"))

def one(p):
    from yili_corpus.query.index import Index
    t = time.perf_counter(); Index.open(Path(p)).close(); return time.perf_counter() - t

if __name__ == "__main__":
    from yili_corpus.query.index import Index
    t, u = time.perf_counter(), time.process_time()
    per = [one(p) for p in teis]  # one process, one chapter after another
    serial, serial_cpu = time.perf_counter() - t, time.process_time() - u
    rss_build = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    # the same, two chapters at a time (a fresh cache folder)
    import os
    os.environ["YILI_CACHE_DIR"] = os.environ["YILI_CACHE_DIR"] + "-2"
    t = time.perf_counter()
    with ProcessPoolExecutor(2) as ex:
        list(ex.map(one, [str(p) for p in teis]))
    two = time.perf_counter() - t
    # the work as api.load() gives it in the project (api.Work: one Corpus per chapter, each
    # index opened once and kept open), with no overlays
    import tempfile
    from yili_corpus.api import Work
    work = Work({p.stem.removeprefix("yili-"): p for p in teis}, Path(tempfile.mkdtemp()))
    via = "api.Work.search"
    for cid in work.ids:
        work.corpus(cid).index
    lat = []
    cpu = []
    hits = {}
    for _ in range(3):
        for q in QUERIES:
            for lay in (None, ["jing"], ["zhu"], ["shu"]):
                t, u = time.perf_counter(), time.thread_time()
                r = work.search(q, layers=lay, limit=20)
                lat.append(time.perf_counter() - t)
                cpu.append(time.thread_time() - u)
                if lay is None:
                    hits[q] = r["total"]
    rss = [int(x.split()[1]) for x in open("/proc/self/status") if x.startswith("VmHWM")][0] / 1024
    print(json.dumps(dict(chapters=len(teis), bytes=sum(p.stat().st_size for p in teis), serial=serial, serial_cpu=serial_cpu, two=two,
                          slowest=max(per), search=lat, search_cpu=cpu, rss_build=rss_build, rss_mb=rss, via=via, hits=hits)))
"""


def whole_work(folder: Path, cache: Path) -> dict:
    """Index every chapter of ``folder`` and search them all, in a fresh process (see module doc)."""
    code = WORK.replace("SRC", repr(str(ROOT / "src"))).replace("FOLDER", repr(str(folder))) \
        .replace("QUERIES", repr(QUERIES))
    script = cache.parent / "work_bench.py"
    script.write_text(code, encoding="utf-8")
    env = dict(os.environ, YILI_CACHE_DIR=str(cache))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout)


def grep_files(files: list[Path]) -> float:
    """Milliseconds per query of `grep -c` over these files (the TEIs themselves)."""
    tool = shutil.which("rg") or shutil.which("grep") or "grep"
    t = time.perf_counter()
    for q in QUERIES:
        subprocess.run([tool, "-c", q, *map(str, files)], capture_output=True)
    return (time.perf_counter() - t) / len(QUERIES) * 1000


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1,10,100", help="N× sizes, comma-separated ('' for none)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--copies", choices=["build", "tei"], default="build",
                    help="make the N× TEI by N real builds (default) or from the chapter's TEI (see module doc)")
    ap.add_argument("--work", default=str(ROOT / "tei"), help="a folder of chapter TEIs (yili-*.xml): the whole work")
    ap.add_argument("--build-work", action="store_true", help="also time `yili build -j 2` of every chapter")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",") if x]
    work = Path(tempfile.mkdtemp(prefix="yili-bench-"))
    print(f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}; load average {load_average()}; "
          f"work folder {work}")
    print(f"{'size':>5} {'build s':>8} {'s/copy':>7} {'load s':>7} {'index s':>8} {'cpu s':>6} {'page p50/p95 ms':>18} "
          f"{'all p50/p95 ms':>18} "
          f"{'grep ms':>8} {'ratio':>6} {'show p50 ms':>11} {'cite p50 ms':>11} {'peak MB':>8} {'workers MB':>10}")
    rows = []
    for n in sizes:
        tei = work / f"x{n}" / f"yili-bench-{n}.xml"
        tei.parent.mkdir(parents=True, exist_ok=True)
        build = per_copy = float("nan")
        if args.copies == "tei":
            synthesize(ROOT / "tei" / "yili-xiangsheli.xml", n, tei)
        else:
            copies = [str(make_copy(k, work / f"x{n}")) for k in range(1, n + 1)]
            t = time.perf_counter()
            with ProcessPoolExecutor(args.workers) as ex:
                built = list(ex.map(build_one, copies))
            build = time.perf_counter() - t
            per_copy = statistics.mean(b[1] for b in built)
            # merge in a process of its own, so that this one stays small
            with ProcessPoolExecutor(1) as ex:
                ex.submit(merge, [b[0] for b in built], tei).result()
        m = measure(tei, work / f"cache{n}")
        tool, gms = grep_ratio(tei, 0)
        s50, s95 = pct(m["search"], 0.5) * 1000, pct(m["search"], 0.95) * 1000
        f50, f95 = pct(m["full"], 0.5) * 1000, pct(m["full"], 0.95) * 1000
        row = dict(size=n, build=build, per_copy=per_copy, load=m["load"], index=m["index"], index_cpu=m["index_cpu"],
                   search_p50=s50, search_p95=s95, full_p50=f50, full_p95=f95, grep_ms=gms, grep_tool=tool,
                   ratio=s50 / gms if gms else 0, bytes=tei.stat().st_size,
                   show_p50=pct(m["show"], 0.5) * 1000, cite_p50=pct(m["cite"], 0.5) * 1000, rss_mb=m["rss_mb"],
                   workers_mb=m["workers_mb"])
        rows.append(row)
        print(f"{n:>4}× {build:>8.2f} {per_copy:>7.2f} {m['load']:>7.2f} {m['index']:>8.2f} {m['index_cpu']:>6.1f} "
              f"{s50:>8.2f}/{s95:<8.2f} {f50:>8.2f}/{f95:<8.2f} {gms:>8.2f} {row['ratio']:>6.2f} {row['show_p50']:>11.1f} "
              f"{row['cite_p50']:>11.1f} {m['rss_mb']:>8.0f} {m['workers_mb']:>10.0f}", flush=True)
        if n == 1:
            cs, bare, csc, barec = cold_search(["search", "获者", "--json"], work / "cache1", tei)
            cs0, bare0, csc0, barec0 = cold_search(["search", "获者", "--json"], work / "cache1", tei, bytecode=False)
            print(f"      cold `yili search 获者 --json` at 1× (medians of 7, in turns with `python -c pass`): "
                  f"compiled modules kept: {cs * 1000:.0f} ms vs {bare * 1000:.0f} ms wall ({cs / bare:.1f}×), "
                  f"{csc * 1000:.0f} vs {barec * 1000:.0f} ms CPU ({csc / barec:.1f}×); every module compiled at every "
                  f"run: {cs0 * 1000:.0f} vs {bare0 * 1000:.0f} ms wall ({cs0 / bare0:.1f}×), "
                  f"{csc0 * 1000:.0f} vs {barec0 * 1000:.0f} ms CPU ({csc0 / barec0:.1f}×)")
            row.update(cold_search_ms=cs * 1000, bare_ms=bare * 1000, cold_cpu_ms=csc * 1000, bare_cpu_ms=barec * 1000,
                       cold_nopyc_ms=cs0 * 1000, bare_nopyc_ms=bare0 * 1000, cold_nopyc_cpu_ms=csc0 * 1000,
                       bare_nopyc_cpu_ms=barec0 * 1000)
    folder = Path(args.work)
    teis = sorted(folder.glob("yili-*.xml"))
    res: dict = {"sizes": rows}
    if args.build_work:
        b_wall, b_cpu = build_work(work / "build-work")
        print(f"whole work's build: `yili build -j 2` of corpus/ (every chapter) into a folder of the benchmark's: "
              f"{b_wall:.2f} s wall, {b_cpu:.1f} CPU-seconds", flush=True)
        res["build_work"] = dict(wall=b_wall, cpu=b_cpu)
    if teis:
        w = whole_work(folder, work / "cache-work")
        gw = grep_files(teis)
        w50, w95 = pct(w["search"], 0.5) * 1000, pct(w["search"], 0.95) * 1000
        c50 = pct(w["search_cpu"], 0.5) * 1000
        cs, bare, _c, _b = cold_search(["--tei", str(teis[0]), "search", "获者", "--json"], work / "cache-work")
        # the whole work: `yili search` in the project folder reads every tei/yili-*.xml
        wcs, wbare, wcsc, wbarec = (cold_search(["search", "获者", "--json"], work / "cache-work", cwd=ROOT)
                                    if folder.resolve() == (ROOT / "tei").resolve() else (0.0, 1.0, 0.0, 1.0))
        print(f"whole work: {w['chapters']} chapters in {folder} ({w['bytes'] / 1e6:.1f} MB of TEI); indexes "
              f"{w['serial']:.2f} s one after another ({w['serial_cpu']:.1f} CPU-seconds; slowest {w['slowest']:.2f} s), {w['two']:.2f} s two at a time; "
              f"search ({w['via']}, {len(w['search'])} searches) page p50/p95 {w50:.2f}/{w95:.2f} ms wall, "
              f"p50 {c50:.2f} ms CPU, across all chapters; grep -c over the "
              f"{len(teis)} files {gw:.2f} ms a query (ratio {w50 / gw:.2f}); peak {w['rss_mb']:.0f} MB; "
              f"cold search of one chapter {cs * 1000:.0f} ms vs bare {bare * 1000:.0f} ms ({cs / bare:.1f}×); "
              f"of the whole work {wcs * 1000:.0f} ms vs {wbare * 1000:.0f} ms wall ({wcs / wbare:.1f}×), "
              f"{wcsc * 1000:.0f} vs {wbarec * 1000:.0f} ms CPU ({wcsc / wbarec:.1f}×)")
        print(f"      hits by query across the work: {w['hits']}")
        res["work"] = dict(w, search_p50=w50, search_p95=w95, search_cpu_p50=c50, grep_ms=gw, cold_ms=cs * 1000,
                           bare_ms=bare * 1000, cold_work_ms=wcs * 1000, bare_work_ms=wbare * 1000,
                           cold_work_cpu_ms=wcsc * 1000, bare_work_cpu_ms=wbarec * 1000)
    print("against the targets (issue 15):")
    by = {r["size"]: r for r in rows}
    checks = []
    if "work" in res:
        wk = res["work"]
        checks += [("whole work's index ≤ 15 s", wk["two"], 15, "s (two at a time)"),
                   ("search p50 across all chapters ≤ 5 ms", wk["search_p50"], 5, "ms"),
                   ("  the same in CPU time", wk["search_cpu_p50"], 5, "ms CPU"),
                   ("peak memory ≤ 300 MB (whole work)", wk["rss_mb"], 300, "MB")]
        if wk["cold_work_ms"]:
            checks.append(("cold yili search (whole work) ≤ 8× pass", wk["cold_work_ms"] / wk["bare_work_ms"], 8,
                           "× wall"))
    if "build_work" in res:
        checks.append(("whole work's build ≤ 60 s", res["build_work"]["wall"], 60, "s (2 jobs)"))
    if 1 in by and "cold_search_ms" in by[1]:
        checks.append(("cold yili search ≤ 8× python -c pass", by[1]["cold_search_ms"] / by[1]["bare_ms"], 8, "× wall"))
        checks.append(("  the same in CPU time", by[1]["cold_cpu_ms"] / by[1]["bare_cpu_ms"], 8, "× CPU"))
        checks.append(("  the same, no compiled modules kept", by[1]["cold_nopyc_cpu_ms"] / by[1]["bare_nopyc_cpu_ms"],
                       8, "× CPU"))
    if 100 in by:
        checks += [("100× index ≤ 30 s", by[100]["index"], 30, "s"),
                   ("peak memory ≤ 300 MB (100×)", max(by[100]["rss_mb"], by[100]["workers_mb"]), 300, "MB")]
    for name, got, limit, unit in checks:
        print(f"  {name:<42} {got:>8.2f} {unit:<18} {'met' if got <= limit else 'NOT met'} ({got / limit:.2f} of it)")
    print(f"load average at the end: {load_average()}")
    (work / "results.json").write_text(json.dumps(res, indent=2), encoding="utf-8")
    tool = rows[0]["grep_tool"] if rows else "grep"
    print(f"grep tool: {tool}; ratio = yili search p50 / grep -c per query; results in {work / 'results.json'}")


if __name__ == "__main__":
    main()
