"""Validation of a TEI file: the official ``tei_all`` schema plus the project's own rules.

Project rules:

* every ``xml:id`` is unique;
* the reader of :mod:`.read` reads it (what ``show``, ``search`` and ``export`` need);
* every pointer to ``#id`` (``@target``, ``@targetEnd``, ``@corresp``, ``@wit``, ``@ref``,
  ``@resp``, ``@source``, ``@facs``) resolves to an ``xml:id`` of the file;
* every section holds its 经 or 记 (a paragraph with an ``ab`` of type jing or ji and clauses);
* the declared ``citeStructure`` resolves every section and paragraph, each to exactly one element
  (evaluated as generic XPath, with the TEI namespace as default namespace). The XPath comes from
  the file, so only a small, cheap subset is evaluated (location paths of child steps, ``//`` in
  the top ``@match`` only, predicates on attributes and positions; ``@use`` yields attribute
  values), under a bound on the number of nodes; anything else (``for``, ranges, ``doc()`` …) is
  refused as a problem naming the expression;
* every source pointer ``corpus/FILE#char=A,B`` (``corpus``: the folder the header records in
  ``publicationStmt//p/ref[@type='corpus']``) quotes its file exactly: a 注, note or 疏 part is
  that slice; a clause is its slices (one per unit of the base witness it takes), once the
  apparatus entries are given the base witness's reading; a
  witness's ``idno`` sha256 matches its file; a pointer to a file outside the corpus folder is a
  problem (never skipped). The corpus folder is the recorded one beside ``tei/``, or
  the one named (``--corpus DIR``); if there is none, that is said (the check could not run),
  unless the source check is skipped (``--no-sources``). A pointer resolves strictly inside the
  corpus folder: an absolute path, ``..``, a symlink leading out, a missing or not regular file
  is a problem at the element's line, and such a file is never read.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import elementpath
from elementpath import XPath2Parser, XPathContext
from lxml import etree

from ..errors import DataError, UsageError
from ..files import read_bounded
from ..layers import TEXT_KEYS
from ..tables import MAX_CORPUS_FILE
from ..text.normalise import without_layout
from . import read as tei_read
from .core import KAOZHENG, TEI_NS, XML_ID
from .read import parse_tei
from .schema import load_schema

POINTER_ATTRS = ("target", "targetEnd", "corresp", "wit", "ref", "resp", "source", "facs")
CHAR_RE = re.compile(r"^([^#\s]+)#char=(\d+),(\d+)$")
#: The corpus folder of a TEI whose header does not record one (``corpus/FILE``).
CORPUS_PREFIX = "corpus/"


def corpus_folder(root: etree._Element) -> str:
    """The corpus folder the header records (``publicationStmt//p/ref[@type='corpus']``): the
    source pointers are ``FOLDER/FILE#char=A,B``. Without one, ``corpus``."""
    t = f"{{{TEI_NS}}}"
    ref = root.find(f"{t}teiHeader/{t}fileDesc/{t}publicationStmt//{t}p/{t}ref[@type='corpus']")
    folder = (ref.get("target", "") if ref is not None else "").strip().rstrip("/")
    return folder or CORPUS_PREFIX.rstrip("/")

#: The longest ``citeStructure`` XPath evaluated (characters). A real one is about 30
#: (``//body/div[@type='section']``); the cap keeps parsing and checking it trivially bounded.
MAX_XPATH_CHARS = 256
#: The deepest nesting of ``citeStructure`` followed. TEI cites a handful of levels (book,
#: chapter, section, paragraph, sentence …); the chapter uses two.
MAX_CITE_DEPTH = 8
#: The most ``citeStructure`` elements in a document: each is evaluated for every node its parent
#: level resolves, so their number multiplies the work. The chapter has 2.
MAX_CITE_STRUCTURES = 32
#: The largest document (in nodes) whose ``citeStructure`` is evaluated: elementpath builds its
#: own tree of the document, about 420 bytes a node beside lxml's 340, and the worst expression
#: takes some 10 s and 440 MB at 900,000 nodes; half that here. The chapter has about 3,200
#: nodes; the whole 仪礼 would have under 100,000.
MAX_CITE_DOC_ELEMENTS = 500_000
#: The most evaluations and nodes the ``citeStructure`` may cost in all (each expression evaluated,
#: each element matched, each citation made); about 3 s of elementpath at the worst.
#: The whole chapter has about 3,200 elements; a document at the reader's size limit has far
#: fewer than this many citable ones, while an expression that multiplies nodes stops here.
MAX_CITE_NODES = 100_000
#: Functions a ``citeStructure`` expression may call: none reaches outside the document or
#: builds sequences (``doc``, ``unparsed-text``, ``environment-variable``, ``for``, ``to`` are out).
XPATH_FUNCTIONS = frozenset({"not", "position", "last", "string", "normalize-space", "true", "false"})
#: Comparison operators allowed in a predicate (between an attribute, a literal or a position).
XPATH_COMPARISONS = frozenset({"=", "!=", "<", "<=", ">", ">=", "eq", "ne", "lt", "le", "gt", "ge"})


@dataclass
class Problem:
    """One problem found, with its place. ``kind`` is ``"problem"`` (the file is not valid) or
    ``"unchecked"`` (a check could not run: the file may be valid, but it was not shown)."""

    file: str
    line: int | None
    message: str
    kind: str = "problem"

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}" if self.line else f"{self.file}: {self.message}"


def _text(e: etree._Element, base_wit: str | None = None, glyphs: dict[str, str] | None = None) -> str:
    """The text of an element; with ``base_wit``, an app is read as that witness's reading; with
    ``glyphs``, a ``<g>`` is read as the code points its declaration says the witness wrote
    (an export writes the character a reader reads inside it)."""
    out = [e.text or ""]
    for c in e:
        name = etree.QName(c).localname
        if name == "app" and base_wit:
            rdg = next((r for r in c.findall(f"{{{TEI_NS}}}rdg") if r.get("wit") == "#" + base_wit), None)
            out.append(_text(rdg, None, glyphs) if rdg is not None else "")
        elif name == "gap":
            pass
        elif name == "g" and glyphs is not None and (c.get("ref") or "").lstrip("#") in glyphs:
            out.append(glyphs[(c.get("ref") or "").lstrip("#")])
        else:
            out.append(_text(c, base_wit, glyphs))
        out.append(c.tail or "")
    return "".join(out)


def _quote(expr: str, limit: int = 60) -> str:
    return repr(expr[:limit] + "…") if len(expr) > limit else repr(expr)


class CiteStructureError(DataError):
    """A ``citeStructure`` that is refused or cannot be evaluated (names its line)."""

    def __init__(self, reason: str, line: int | None, path: str = "<tei>") -> None:
        reason = " ".join(reason.split())  # one line, whatever the XPath library said
        super().__init__(reason, path, line)
        self.reason = reason


def _xpath_refusal(tok, role: str, top: bool = False) -> str | None:  # type: ignore[no-untyped-def]
    """Why a parsed ``citeStructure`` expression is outside the safe subset (None if it is in).

    ``role`` is ``"match"`` (a path to elements: child steps, ``//`` only at the top of the
    outermost ``@match``, predicates) or ``"use"`` (attribute values: ``@n``, ``head/@n``,
    ``string(@n)`` …). Every construct is cheap: no step visits more than the children (or, at
    the top, the descendants) of its context, no predicate compares element texts."""
    sym, label = tok.symbol, tok.label

    def path(t, top_: bool) -> str | None:  # type: ignore[no-untyped-def]
        s, lab = t.symbol, t.label
        if s == "(name)" or (s == "*" and "wildcard" in lab) or s == ":":
            return None
        if s == "child" and lab == "axis":
            return path(t[0], False)
        if s in ("/", "//"):
            if s == "//" and (not top_ or len(t) != 1):  # one scan of the document, not one per node
                return "'//' (descendants) is allowed only at the start of the outermost @match"
            if len(t) == 0:
                return "'/' alone (the document node) is not an element"
            if len(t) == 1:
                if not top_:
                    return "an absolute path is allowed only in the outermost @match"
                return path(t[0], False)
            return path(t[0], top_) or path(t[1], False)
        if s == "[":
            return path(t[0], top_) or next((r for r in (predicate(x) for x in t[1:]) if r), None)
        return f"{s!r} is not allowed in a citeStructure path"

    def attribute(t) -> str | None:  # type: ignore[no-untyped-def]
        if t.symbol == "@":
            return None
        if t.symbol == "/" and len(t) == 2:
            return path(t[0], False) or attribute(t[1])
        return "not an attribute"

    def operand(t) -> str | None:  # type: ignore[no-untyped-def]
        if t.symbol in ("(string)", "(integer)", "(decimal)"):
            return None
        if t.label == "function" and t.symbol in ("position", "last") and len(t) == 0:
            return None
        if attribute(t) is None:
            return None
        return f"{t.symbol!r} cannot be compared here (compare an attribute, a literal or position())"

    def predicate(t) -> str | None:  # type: ignore[no-untyped-def]
        s, lab = t.symbol, t.label
        if s in ("and", "or"):
            return next((r for r in (predicate(x) for x in t) if r), None)
        if s in XPATH_COMPARISONS and len(t) == 2:
            return operand(t[0]) or operand(t[1])
        if s == "(integer)" or (s in ("position", "last", "true", "false") and lab == "function" and len(t) == 0):
            return None
        if s == "not" and lab == "function" and len(t) == 1:
            return predicate(t[0])
        if s == "@" or attribute(t) is None:
            return None
        return path(t, False)

    def function(t) -> str | None:  # type: ignore[no-untyped-def]
        return None if t.symbol in XPATH_FUNCTIONS else f"the function {t.symbol}() is not allowed"

    if "function" in label and function(tok):
        return function(tok)
    if role == "match":
        return path(tok, top)
    if sym in ("string", "normalize-space") and "function" in label and len(tok) == 1:
        return attribute(tok[0]) and "@use must give attribute values (such as @n)"
    if attribute(tok) is None:
        return None
    return "@use must give attribute values (such as @n or head/@n)"


def _walk_refusals(tok) -> str | None:  # type: ignore[no-untyped-def]
    """A refusal for any function or construct anywhere in the tree that no rule above names
    (a belt to the braces of :func:`_xpath_refusal`)."""
    if "function" in tok.label and tok.symbol not in XPATH_FUNCTIONS:
        return f"the function {tok.symbol}() is not allowed"
    if tok.symbol in ("for", "some", "every", "to", "$", "if", "let", "=>", "!", "||", "instance", "treat",
                      "castable", "cast", "(", "{", "#", "union", "|", "intersect", "except"):
        return f"{tok.symbol!r} is not allowed in a citeStructure expression"
    return next((r for r in (_walk_refusals(c) for c in tok) if r), None)


#: The words of XPath that build or loop over sequences, or branch; a citeStructure needs none.
_XPATH_KEYWORDS = frozenset({"for", "some", "every", "to", "return", "let", "satisfies", "in", "if", "then", "else",
                             "instance", "treat", "cast", "castable", "union", "intersect", "except", "map", "array"})
_XPATH_LEX = re.compile(r"""'[^']*'|"[^"]*"|\d+(?:\.\d*)?|\.\d+|[A-Za-z_][\w.\-]*(?::[A-Za-z_][\w.\-]*)?|!=|\S""")


def _lexical_refusal(expr: str) -> str | None:
    """Refuse, before the XPath parser sees it, what could build a large sequence or reach out:
    elementpath evaluates constant parts while parsing (``(1 to 100000000)`` would be built
    then), so loops, ranges, sequences and calls to unlisted functions are refused on the
    words alone."""
    toks = _XPATH_LEX.findall(expr)
    for i, tok in enumerate(toks):
        nxt = toks[i + 1] if i + 1 < len(toks) else ""
        prev = toks[i - 1] if i else ""
        if tok[0].isalpha() or tok[0] == "_":
            if prev in ("@", "::") or (prev == "/" and nxt != "("):
                continue  # an attribute or a step's name, whatever its spelling
            if tok in _XPATH_KEYWORDS:
                return f"{tok!r} is not allowed in a citeStructure expression"
            if nxt == "(" and tok not in XPATH_FUNCTIONS:
                return f"the function {tok}() is not allowed"
        elif tok == "(" and not (prev[:1].isalpha() and prev not in _XPATH_KEYWORDS):
            return "parentheses other than a function call are not allowed"
        elif tok in ("$", ",", "{", "}", "#", "|", "!", "?", "%"):
            return f"{tok!r} is not allowed in a citeStructure expression"
    return None


def _compile(cs: etree._Element, attr: str, parser: XPath2Parser, top: bool, path: str):  # type: ignore[no-untyped-def]
    """The parsed ``@attr`` of a ``citeStructure``, refused unless in the safe subset."""
    expr = cs.get(attr)
    if expr is None or not expr.strip():
        raise CiteStructureError(f"<citeStructure> has no @{attr}", cs.sourceline, path)
    if len(expr) > MAX_XPATH_CHARS:
        raise CiteStructureError(f"citeStructure @{attr} is {len(expr)} characters, more than the "
                                 f"{MAX_XPATH_CHARS} allowed", cs.sourceline, path)
    why = _lexical_refusal(expr)
    if why:
        raise CiteStructureError(f"citeStructure @{attr}={_quote(expr)} is refused: {why}", cs.sourceline, path)
    try:
        tok = parser.parse(expr)
    except (elementpath.ElementPathError, RecursionError, ValueError, TypeError) as exc:
        raise CiteStructureError(f"citeStructure @{attr}={_quote(expr)} is not XPath: {exc}", cs.sourceline,
                                 path) from None
    why = _walk_refusals(tok) or _xpath_refusal(tok, attr, top)
    if why:
        raise CiteStructureError(f"citeStructure @{attr}={_quote(expr)} is refused: {why}", cs.sourceline, path)
    return tok


def cite_index(root: etree._Element, path: str = "<tei>") -> dict[str, list[etree._Element]]:
    """Every citation the document's ``citeStructure`` defines, with the elements it resolves
    to: XPath (elementpath, the TEI namespace as default namespace) for each level's ``@match``
    and ``@use``, joined by each level's ``@delim``. The expressions come from the document, so
    only a safe subset is evaluated (see :func:`_xpath_refusal`), at most :data:`MAX_CITE_DEPTH`
    levels deep and :data:`MAX_CITE_NODES` nodes in all; anything else raises
    :class:`CiteStructureError` naming the expression and its line."""
    ns = {"": TEI_NS}
    top = root.find(f".//{{{TEI_NS}}}refsDecl/{{{TEI_NS}}}citeStructure")
    out: dict[str, list[etree._Element]] = {}
    if top is None:
        return out
    structures = list(top.iter(f"{{{TEI_NS}}}citeStructure"))
    if len(structures) > MAX_CITE_STRUCTURES:
        raise CiteStructureError(f"there are {len(structures)} citeStructure elements, more than the "
                                 f"{MAX_CITE_STRUCTURES} allowed; refused", top.sourceline, path)
    for cs in structures:
        depth = sum(1 for a in cs.iterancestors(f"{{{TEI_NS}}}citeStructure")) + 1
        if depth > MAX_CITE_DEPTH:
            raise CiteStructureError(f"citeStructure is nested {depth} levels deep, more than the "
                                     f"{MAX_CITE_DEPTH} allowed; refused", cs.sourceline, path)
    size = sum(1 for _ in root.iter())
    if size > MAX_CITE_DOC_ELEMENTS:
        raise CiteStructureError(f"the document has {size} nodes, more than the {MAX_CITE_DOC_ELEMENTS} "
                                 f"whose citeStructure is evaluated; not checked", top.sourceline, path)
    parser = XPath2Parser(namespaces=ns)
    compiled = {cs: (_compile(cs, "match", parser, cs is top, path), _compile(cs, "use", parser, False, path))
                for cs in structures}  # each expression parsed and checked once
    document = XPathContext(root.getroottree(), namespaces=ns).root  # the node tree, built once
    budget = [MAX_CITE_NODES]

    def spend(cs: etree._Element, n: int) -> None:
        budget[0] -= n
        if budget[0] < 0:
            raise CiteStructureError(f"the citeStructure resolves more than {MAX_CITE_NODES} nodes; refused",
                                     cs.sourceline, path)

    def evaluate(tok, cs: etree._Element, el: etree._Element | None, attr: str) -> list:  # type: ignore[no-untyped-def, type-arg]
        item = document.get_element_node(el) if el is not None else None
        try:
            got = tok.get_results(XPathContext(document, namespaces=ns, item=item))
        except (elementpath.ElementPathError, RecursionError, ValueError, TypeError, ArithmeticError) as exc:
            raise CiteStructureError(f"citeStructure @{attr}={_quote(cs.get(attr, ''))} failed: {exc}",
                                     cs.sourceline, path) from None
        got = got if isinstance(got, list) else [got]
        spend(cs, 1 + len(got))
        return got

    def walk(cs: etree._Element, ctx: etree._Element | None, prefix: str) -> None:
        match, use = compiled[cs]
        delim = cs.get("delim", "")
        subs = cs.findall(f"{{{TEI_NS}}}citeStructure")
        for el in evaluate(match, cs, ctx, "match"):
            if not isinstance(el, etree._Element) or not isinstance(el.tag, str):
                raise CiteStructureError(f"citeStructure @match={_quote(cs.get('match', ''))} selects "
                                         f"something that is not an element", cs.sourceline, path)
            for v in evaluate(use, cs, el, "use"):
                ref = f"{prefix}{delim if prefix else ''}{v}"
                out.setdefault(ref, []).append(el)
                spend(cs, 1)
                for sub in subs:
                    walk(sub, el, ref)

    walk(top, None, "")
    return out


def cite_resolve(root: etree._Element, ref: str) -> list[etree._Element]:
    """Resolve a citation such as ``16`` or ``16.1`` through the ``citeStructure``."""
    return cite_index(root).get(ref, [])


def project_problems(tree: etree._ElementTree, path: str, corpus_root: Path | None,
                     corpus_dir: Path | None = None) -> list[Problem]:
    """The project's own rules (see module doc). The source pointers are checked against
    ``corpus_dir`` (the corpus folder), else ``corpus_root / FOLDER`` (the folder the header
    records); with neither, not at all."""
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
    # the front matter's TEI (tei/front.xml: its sourceDesc has bibl type=front) has parts, not sections
    front = root.find(f"{t}teiHeader/{t}fileDesc/{t}sourceDesc/{t}bibl[@type='front']") is not None
    if not sections and not front:
        probs.append(Problem(path, None, "no div type=section in the body"))
    try:
        index: dict[str, list[etree._Element]] | None = cite_index(root, path)
    except CiteStructureError as exc:
        probs.append(Problem(path, exc.line, exc.reason))
        index = None  # one problem, not one per section
    for s in sections:
        n = s.get("n", "")
        has_text = any(
            ab.get("type") in TEXT_KEYS and len(ab)
            for ab in s.findall(f"{t}div[@type='paragraph']/{t}ab")
        )
        if not has_text:
            probs.append(Problem(path, s.sourceline, f"section {n} has no 经 or 记"))
        if index is None:
            continue
        got = index.get(n, [])
        if got != [s]:
            probs.append(Problem(path, s.sourceline, f"citeStructure resolves section {n} to {len(got)} elements"))
        for p in s.findall(f"{t}div[@type='paragraph']"):
            ref = f"{n}.{p.get('n')}"
            got = index.get(ref, [])
            if got != [p]:
                probs.append(Problem(path, p.sourceline, f"citeStructure resolves {ref} to {len(got)} elements"))
    if corpus_dir is None and corpus_root is not None:
        corpus_dir = corpus_root / corpus_folder(root)
    if corpus_dir is not None:
        probs.extend(_source_problems(root, path, corpus_dir))
    return probs


def _corpus_file(base: Path, ptr_file: str, prefix: str = CORPUS_PREFIX) -> tuple[bytes | None, str]:
    """The bytes of the file a pointer ``FOLDER/NAME`` names (``prefix``: ``FOLDER/``), strictly
    inside the corpus folder ``base`` (already resolved); else ``(None, why)``. A refused file is
    never opened."""
    rel = ptr_file[len(prefix):] if ptr_file.startswith(prefix) else ptr_file
    steps = rel.split("/")
    if not rel or rel.startswith("/") or "\\" in rel or "\x00" in rel or any(x in ("", ".", "..") for x in steps):
        return None, "refused: a pointer must name a file inside the corpus folder (no absolute path, '..' or empty step)"
    try:
        real = (base / rel).resolve()
    except (OSError, RuntimeError, ValueError):
        return None, "refused: the path cannot be resolved"
    if not real.is_relative_to(base):
        return None, "refused: it leads out of the corpus folder (a symbolic link)"
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return None, f"no such file in the corpus folder {base}"
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"
    if not stat.S_ISREG(st.st_mode):
        return None, "refused: not a regular file"
    try:
        return read_bounded(real, MAX_CORPUS_FILE, "corpus file"), ""  # the build's bound
    except UsageError as exc:
        return None, str(exc)


def _has_source_pointers(root: etree._Element) -> bool:
    """Whether the document points into a corpus folder, or to any file (so that a source check
    has work)."""
    t = f"{{{TEI_NS}}}"
    if any(r.get("target", "") for r in root.iterfind(f".//{t}listWit/{t}witness/{t}ref")):
        return True
    return any(isinstance(e.tag, str) and any(not x.startswith("#") for x in e.get("source", "").split())
               for e in root.iter())


def _source_problems(root: etree._Element, path: str, corpus_dir: Path) -> list[Problem]:
    probs: list[Problem] = []
    base = corpus_dir.resolve()
    prefix = corpus_folder(root) + "/"
    raw: dict[str, bytes | None] = {}  # pointer file -> bytes (None: refused or missing, reported once)
    texts: dict[str, str | None] = {}

    def load(f: str, e: etree._Element, what: str) -> bytes | None:
        if f not in raw:
            data, why = _corpus_file(base, f, prefix)
            raw[f] = data
            if data is None:
                probs.append(Problem(path, e.sourceline, f"{what} {f}: {why}"))
        return raw[f]

    def text_of(f: str, e: etree._Element) -> str | None:
        if f not in texts:
            data = load(f, e, f"<{etree.QName(e).localname}> @source points to")
            texts[f] = None
            if data is not None:
                try:
                    texts[f] = data.decode("utf-8")
                except UnicodeDecodeError as exc:
                    probs.append(Problem(path, e.sourceline, f"{f} is not UTF-8 (byte {exc.start}); not checked"))
        return texts[f]

    def slice_of(ptr: str, e: etree._Element) -> str | None:
        m = CHAR_RE.match(ptr)
        if not m:
            load(ptr.split("#", 1)[0], e, f"<{etree.QName(e).localname}> @source points to")
            return None
        text = text_of(m.group(1), e)
        if text is None:
            return None
        a, b = int(m.group(2)), int(m.group(3))
        if a > b or b > len(text):
            probs.append(Problem(path, e.sourceline, f"{ptr} is outside {m.group(1)} ({len(text)} characters)"))
            return None
        return text[a:b]

    t = f"{{{TEI_NS}}}"
    glyphs = _declared_glyphs(root)
    for w in root.iterfind(f".//{t}listWit/{t}witness"):
        ref, idno = w.find(f"{t}ref"), w.findtext(f"{t}idno", "")
        if ref is None:
            continue
        target = ref.get("target", "")
        if not target.startswith(prefix):
            probs.append(Problem(path, ref.sourceline, f"witness {w.get(XML_ID)}: {target!r} is not a file of the "
                                 f"corpus folder ({prefix}NAME); it cannot be checked"))
            continue
        data = load(target, ref, f"witness {w.get(XML_ID)}: <ref> points to")
        if data is not None:
            got = hashlib.sha256(data).hexdigest()
            if got != idno:
                probs.append(Problem(path, w.sourceline, f"witness {w.get(XML_ID)}: {target} has sha256 {got[:12]}…, the header says {idno[:12]}…"))
    for e in root.iter():
        if not isinstance(e.tag, str):
            continue
        src = e.get("source", "").split()
        ptrs = [s for s in src if s.startswith(prefix)]
        for other in src:
            if not other.startswith(("#", prefix)):  # a file outside the corpus folder: never skipped
                probs.append(Problem(path, e.sourceline, f"<{etree.QName(e).localname}> @source points to {other}, "
                                     f"which is not a file of the corpus folder ({prefix}NAME); it cannot be checked"))
        if not ptrs:
            continue
        name = etree.QName(e).localname
        typ = e.get("type", "")
        if name == "rdg" or (name == "seg" and typ == "clause"):
            # a reading may quote several parts of its file (a 注 between them); a clause that
            # runs over a clause mark of the base witness quotes the characters either side
            parts = [slice_of(p, e) for p in ptrs]
            if any(x is None for x in parts):
                continue
            want = "".join(without_layout(x) for x in parts if x is not None)
        else:
            for extra in ptrs[1:]:
                slice_of(extra, e)  # resolved and refused like the first, not compared
            want = slice_of(ptrs[0], e)
            if want is None:
                continue
        if name == "seg" and typ == "clause":
            base_wit = src[0].lstrip("#") if src and src[0].startswith("#") else None
            got = _text(e, base_wit, glyphs)
        elif name == "ab" and typ == "trans":
            got = "".join(s.text or "" for s in e.findall(f"{t}seg"))
            want = "".join(want.split())
            got = "".join(got.split())
        elif name in ("note", "ab", "rdg", "quote", "titlePart", "byline", "docEdition", "head", "fw", "trailer"):
            if name == "note" and (typ == "shu" or typ == KAOZHENG):
                continue  # its parts carry their own pointers
            parent = e.getparent()
            if name == "ab" and parent is not None and parent.get("type") == KAOZHENG:
                want = re.sub("\n\u3000+", "\n", want)  # a 考證 entry's continuation lines are indented
            if name == "note" and typ == "yinyi":  # an entry may run over the block's lines, each in ( … )
                want = without_layout(want).replace("(", "").replace(")", "")
            # a note with an apparatus (a 注 of two witnesses) quotes its own witness's reading
            wit = (src[0].lstrip("#") if (name == "note" or (name == "ab" and e.getparent() is not None
                                                              and _in_shu(e))) and src
                   and src[0].startswith("#") else None)
            got = _text(e, wit, glyphs)
        else:
            continue
        if name in ("ab", "rdg", "quote") and got != without_layout(want) and _in_shu(e):
            # a 疏 part of the 四库 layout: small print, each line wrapped in ( … )
            want = without_layout(want).replace(")(", "")
        if got != want and got != without_layout(want):  # a unit over several lines of a mandoku file
            unit = f" {e.get(XML_ID)}" if e.get(XML_ID) else ""
            probs.append(Problem(path, e.sourceline, f"<{name} type={typ!r}>{unit} does not quote {ptrs[0]}: "
                                 f"{got[:16]!r} ≠ {want[:16]!r}"))
    return probs


def _in_shu(e: etree._Element) -> bool:
    """Whether ``e`` is (in) a part of a 疏 note (or of a finding about it)."""
    p = e.getparent()
    while p is not None:
        if etree.QName(p).localname == "note" and p.get("type") != "quotation":
            return p.get("type") == "shu"
        p = p.getparent()
    return False


def _declared_glyphs(root: etree._Element) -> dict[str, str]:
    """The code points each ``<char>`` of the header says its witness wrote: its PUA mapping, or
    (in an export) its ``localProp name="codepoints"``."""
    from ..model import parse_codepoints

    t = f"{{{TEI_NS}}}"
    out: dict[str, str] = {}
    for c in root.iterfind(f".//{t}charDecl/{t}char"):
        seq = c.findtext(f"{t}mapping[@type='PUA']")
        if not seq:
            prop = c.find(f"{t}localProp[@name='codepoints']")
            seq = parse_codepoints(prop.get("value", "")) if prop is not None else None
        if seq:
            out[c.get(XML_ID, "")] = seq
    return out


def validate_file(path: Path | str, schema: str | Path | None = None, use_schema: bool = True,
                  corpus_root: Path | None = None, corpus_dir: Path | str | None = None,
                  sources: bool = True) -> list[Problem]:
    """All problems of a TEI file: schema errors first, then the project's rules.

    The source check uses ``corpus_dir`` (the corpus folder), else ``corpus_root / FOLDER``,
    else ``FOLDER`` beside the file's folder (``tei/``), FOLDER being the corpus folder the header
    records (``corpus``). If there is none and the file points
    into a corpus, an ``"unchecked"`` problem says so. ``sources=False`` skips the check."""
    p = Path(path)
    data = read_bounded(p, tei_read.MAX_BYTES, "TEI file")  # a FIFO, device or folder: UsageError
    tree = parse_tei(data, str(p))
    probs: list[Problem] = []
    if use_schema:
        rng = load_schema(schema)
        if not rng.validate(tree):
            for err in rng.error_log:
                probs.append(Problem(str(p), err.line, f"tei_all: {err.message}"))
    cdir: Path | None = None
    if sources:
        if corpus_dir is not None:
            cdir = Path(corpus_dir)
            if not cdir.is_dir():
                raise UsageError(f"corpus folder not found: {cdir}")
        elif corpus_root is not None:
            cdir = Path(corpus_root) / corpus_folder(tree.getroot())
        else:
            guess = p.resolve().parent.parent / corpus_folder(tree.getroot())
            if guess.is_dir():
                cdir = guess
            elif _has_source_pointers(tree.getroot()):
                probs.append(Problem(str(p), None, f"the source check could not run: no corpus folder beside this "
                                     f"file (looked for {guess}); pass --corpus DIR, or --no-sources to skip it",
                                     kind="unchecked"))
    probs.extend(project_problems(tree, str(p), None, cdir))
    try:
        tei_read.read_tree(tree, str(p))  # what show, search and export need of it
    except DataError as exc:
        where = f"{exc.path}:{exc.line}: " if exc.line is not None else f"{exc.path}: "
        probs.append(Problem(str(p), exc.line, f"unreadable for yili: {exc.message.removeprefix(where)}"))
    return probs
