"""Validation of a TEI file: the official ``tei_all`` schema plus the project's own rules.

Project rules:

* every ``xml:id`` is unique;
* every pointer to ``#id`` (``@target``, ``@targetEnd``, ``@corresp``, ``@wit``, ``@ref``,
  ``@resp``, ``@source``) resolves to an ``xml:id`` of the file;
* every section holds its 经 or 记 (a paragraph with an ``ab`` of type jing or ji and clauses);
* the declared ``citeStructure`` resolves every section and paragraph, each to exactly one element
  (evaluated as generic XPath, with the TEI namespace as default namespace);
* when the corpus files are at hand (``corpus/`` beside ``tei/``), every source pointer
  ``corpus/FILE#char=A,B`` quotes its file exactly: a 注, note or 疏 part is that slice; a clause is
  it, once the apparatus entries are given the base witness's reading; a witness's ``idno``
  sha256 matches its file.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import elementpath
from lxml import etree

from ..errors import DataError
from .read import parse_tei
from .schema import load_schema
from .write import TEI_NS, XML_ID

POINTER_ATTRS = ("target", "targetEnd", "corresp", "wit", "ref", "resp", "source")
CHAR_RE = re.compile(r"^(corpus/[^#\s]+)#char=(\d+),(\d+)$")


@dataclass
class Problem:
    """One problem found, with its place."""

    file: str
    line: int | None
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}" if self.line else f"{self.file}: {self.message}"


def _text(e: etree._Element, base_wit: str | None = None) -> str:
    """The text of an element; with ``base_wit``, an app is read as that witness's reading."""
    out = [e.text or ""]
    for c in e:
        name = etree.QName(c).localname
        if name == "app" and base_wit:
            rdg = next((r for r in c.findall(f"{{{TEI_NS}}}rdg") if r.get("wit") == "#" + base_wit), None)
            out.append(_text(rdg) if rdg is not None else "")
        elif name == "gap":
            pass
        else:
            out.append(_text(c, base_wit))
        out.append(c.tail or "")
    return "".join(out)


def cite_index(root: etree._Element) -> dict[str, list[etree._Element]]:
    """Every citation the document's ``citeStructure`` defines, with the elements it resolves
    to: generic XPath (elementpath, the TEI namespace as default namespace) for each level's
    ``@match`` and ``@use``, joined by each level's ``@delim``."""
    ns = {"": TEI_NS}
    top = root.find(f".//{{{TEI_NS}}}refsDecl/{{{TEI_NS}}}citeStructure")
    out: dict[str, list[etree._Element]] = {}

    def walk(cs: etree._Element, ctx: etree._Element, prefix: str) -> None:
        match, use, delim = cs.get("match", ""), cs.get("use", ""), cs.get("delim", "")
        for el in elementpath.select(ctx, match, namespaces=ns):
            for v in elementpath.select(el, use, namespaces=ns):
                ref = f"{prefix}{delim if prefix else ''}{v}"
                out.setdefault(ref, []).append(el)
                for sub in cs.findall(f"{{{TEI_NS}}}citeStructure"):
                    walk(sub, el, ref)

    if top is not None:
        walk(top, root, "")
    return out


def cite_resolve(root: etree._Element, ref: str) -> list[etree._Element]:
    """Resolve a citation such as ``16`` or ``16.1`` through the ``citeStructure``."""
    return cite_index(root).get(ref, [])


def project_problems(tree: etree._ElementTree, path: str, corpus_root: Path | None) -> list[Problem]:
    """The project's own rules (see module doc)."""
    root = tree.getroot()
    probs: list[Problem] = []
    ids = Counter(e.get(XML_ID) for e in root.iter() if isinstance(e.tag, str) and e.get(XML_ID))
    for i, n in ids.items():
        if n > 1:
            probs.append(Problem(path, None, f"xml:id {i!r} is used {n} times"))
    idset = set(ids)
    for e in root.iter():
        if not isinstance(e.tag, str):
            continue
        for a in POINTER_ATTRS:
            for v in (e.get(a) or "").split():
                if v.startswith("#") and v[1:] not in idset:
                    probs.append(Problem(path, e.sourceline, f"@{a} points to #{v[1:]}, which is not an xml:id here"))
    t = f"{{{TEI_NS}}}"
    sections = root.findall(f".//{t}body/{t}div[@type='section']")
    if not sections:
        probs.append(Problem(path, None, "no div type=section in the body"))
    index = cite_index(root)
    for s in sections:
        n = s.get("n", "")
        has_text = any(
            ab.get("type") in ("jing", "ji") and len(ab)
            for ab in s.findall(f"{t}div[@type='paragraph']/{t}ab")
        )
        if not has_text:
            probs.append(Problem(path, s.sourceline, f"section {n} has no 经 or 记"))
        got = index.get(n, [])
        if got != [s]:
            probs.append(Problem(path, s.sourceline, f"citeStructure resolves section {n} to {len(got)} elements"))
        for p in s.findall(f"{t}div[@type='paragraph']"):
            ref = f"{n}.{p.get('n')}"
            got = index.get(ref, [])
            if got != [p]:
                probs.append(Problem(path, p.sourceline, f"citeStructure resolves {ref} to {len(got)} elements"))
    if corpus_root is not None:
        probs.extend(_source_problems(root, path, corpus_root))
    return probs


def _source_problems(root: etree._Element, path: str, corpus_root: Path) -> list[Problem]:
    probs: list[Problem] = []
    cache: dict[str, str | None] = {}

    def slice_of(ptr: str) -> str | None:
        m = CHAR_RE.match(ptr)
        if not m:
            return None
        f = m.group(1)
        if f not in cache:
            p = corpus_root / f
            cache[f] = p.read_text(encoding="utf-8") if p.is_file() else None
        text = cache[f]
        if text is None:
            return None
        return text[int(m.group(2)) : int(m.group(3))]

    t = f"{{{TEI_NS}}}"
    for w in root.iterfind(f".//{t}listWit/{t}witness"):
        ref, idno = w.find(f"{t}ref"), w.findtext(f"{t}idno", "")
        if ref is not None and (corpus_root / ref.get("target", "")).is_file():
            got = hashlib.sha256((corpus_root / ref.get("target", "")).read_bytes()).hexdigest()
            if got != idno:
                probs.append(Problem(path, w.sourceline, f"witness {w.get(XML_ID)}: {ref.get('target')} has sha256 {got[:12]}…, the header says {idno[:12]}…"))
    for e in root.iter():
        if not isinstance(e.tag, str):
            continue
        src = e.get("source", "").split()
        ptrs = [s for s in src if s.startswith("corpus/")]
        if not ptrs:
            continue
        name = etree.QName(e).localname
        typ = e.get("type", "")
        want = slice_of(ptrs[0])
        if want is None:
            continue
        if name == "seg" and typ == "clause":
            base = src[0].lstrip("#") if src and src[0].startswith("#") else None
            got = _text(e, base)
        elif name == "ab" and typ == "trans":
            got = "".join(s.text or "" for s in e.findall(f"{t}seg"))
            want = "".join(want.split())
            got = "".join(got.split())
        elif name in ("note", "ab", "rdg"):
            if name == "note" and typ == "shu":
                continue  # its parts carry their own pointers
            got = _text(e)
        else:
            continue
        if got != want:
            probs.append(Problem(path, e.sourceline, f"<{name} type={typ!r}> does not quote {ptrs[0]}: {got[:16]!r} ≠ {want[:16]!r}"))
    return probs


def validate_file(path: Path | str, schema: str | Path | None = None, use_schema: bool = True,
                  corpus_root: Path | None = None) -> list[Problem]:
    """All problems of a TEI file: schema errors first, then the project's rules."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise DataError(f"cannot read: {exc.strerror}", str(p)) from None
    tree = parse_tei(data, str(p))
    probs: list[Problem] = []
    if use_schema:
        rng = load_schema(schema)
        if not rng.validate(tree):
            for err in rng.error_log:
                probs.append(Problem(str(p), err.line, f"tei_all: {err.message}"))
    if corpus_root is None:
        guess = p.resolve().parent.parent
        corpus_root = guess if (guess / "corpus").is_dir() else None
    probs.extend(project_problems(tree, str(p), corpus_root))
    return probs
