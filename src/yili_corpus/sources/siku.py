"""Parser for the 四库 《儀禮注疏》 layout (Kanripo ``KR1d0028``, mandoku text, one 卷 a file).

The layout as found in ``KR1d0028_005.txt`` (see docs/sources.md, "The 四库 《儀禮注疏》"):

* ``#`` lines are the mandoku header; ``<pb:KR1d0028_WYG_005-12b>`` is a page break (葉12b of
  卷五); every physical line ends with ``¶``;
* lines indented with ``　`` (and ``欽定四庫全書``) are headings: edition, 卷, authors, chapter title
  (``heading`` units, :data:`HEADING_ROLES`);
* 经 and 记 run full size over the lines; ``注`` opens 郑注, also full size, which often runs straight
  on into the next 经 words with no mark — so a ``zhu_run`` is everything from ``注`` to the next mark
  (``注``, ``音義(``, ``疏(``, a heading), and where the 注 ends inside it is left to the collation;
* ``音義( … )`` and ``疏( … )`` are small double-column print, ``/`` the column break; a block
  running over several lines has each line wrapped in ``( … )`` (a line that starts with ``(`` right
  after a block closed at the end of the previous line continues that block);
* a bare ``( … )`` inside the 经 is small print within the text (``與升射者(目/木)左交``);
* a 疏 block is one or more parts, each opened by ``釋曰`` (on the 经), ``注釋曰`` (on the 注) or
  ``傳釋曰`` (on the 传, 卷十一); ``自此至X論…`` / ``自此盡X論…`` names the 经 span of a section;
* the ``儀禮注疏卷N考證`` section at the end: one entry per line that starts at column 0, its
  continuation lines indented with ``　``; lemma before the first ``○``, note after.

Units are exact slices of the file (``text == file[offset:end]``) and may run over several lines:
``line``/``col`` is where the slice starts, ``end_col`` the column where it ends on
``meta["line_end"]``. ``meta["text"]`` is the reading without marks, wrapping parentheses, ``/``,
``¶`` and page breaks; ``meta["page"]`` is the page where the unit starts (``"005-12b"``) and
``meta["page_end"]`` the page where it ends, when that differs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..model import Noise, ParsedSource, SourceUnit
from .reader import LineText

PB_RE = re.compile(r"<pb:(?:[^>_]*_)*([^>_]*)>")
JUAN_PROP_RE = re.compile(r"^#\+PROPERTY:\s*JUAN\s+(卷[一二三四五六七八九十]+(?:考證)?\s*$)?(.*)")
KAOZHENG_RE = re.compile(r"^\s*儀禮注[疏䟽][卷巻][一二三四五六七八九十]+考證\s*$")
JUAN_RE = re.compile(r"^\s*儀禮注[疏䟽][卷巻][一二三四五六七八九十]+\s*$")
TITLE_RE = re.compile(r"第[一二三四五六七八九十]+\s*$")
PART_RE = re.compile(r"(注|傳)?釋[曰日]")
SPAN_RE = re.compile(r"自此(至|盡)(.{1,20}?)論")
EDITOR_RE = re.compile(r"\(臣([^()/]+)/?\)")
#: The marks that open a small-print block: 音義, 疏 (also written 䟽, 卷十五 passim).
MARKS = {"音義(": "yinyi", "疏(": "shu", "䟽(": "shu"}
INDENT = "　"
#: The headings of a 卷 (``heading`` units, ``meta["role"]``): the edition's name (欽定四庫全書), the
#: 卷 title (儀禮注疏卷三, at the head of the 卷 and again at its end), the byline (漢鄭氏注 唐陸德明音義
#: 賈公彦疏), the chapter title (士相見禮第三), the 考證 title (at its head and its end), any other
#: indented line before the text.
HEADING_ROLES = ("edition", "juan", "byline", "chapter", "kaozheng-title", "other")


@dataclass
class _Span:
    """A unit being read: its kind, where it starts, where its last character ends, its reading."""

    kind: str
    line: int
    col: int
    page: str | None
    end_line: int = 0
    end_col: int = 0
    buf: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    pending: bool = False  # a block closed at the end of a line: the next line may continue it
    resume: str = "("  # what the next line starts with when it continues a pending block

    def take(self, lineno: int, col: int, ch: str) -> None:
        self.buf.append(ch)
        self.end_line, self.end_col = lineno, col + 1


class _Parser:
    def __init__(self, source_id: str, text: str, path: str) -> None:
        self.lt = LineText(source_id, text, path)
        self.units: list[SourceUnit] = []
        self.noise: list[Noise] = []
        self.page: str | None = None
        self.run: _Span | None = None  # a text or zhu_run unit being read
        self.block: _Span | None = None  # a yinyi or shu block being read
        self.entry: _Span | None = None  # a 考證 entry being read
        self.kaozheng = False
        self.other = ""  # the name of a section after the 考證 (``卷十七跋語``)
        self.shu_no = 0
        self.pages: dict[int, str | None] = {}  # the page of each line read

    # -- building units --------------------------------------------------------------------------

    def _unit(self, s: _Span, text: str, **meta: Any) -> SourceUnit:
        lt = self.lt
        _, off1, _ = lt.lines[s.line - 1]
        _, off2, _ = lt.lines[s.end_line - 1]
        m: dict[str, Any] = {"line_end": s.end_line, "page": s.page}
        end_page = self._page_at(s.end_line)
        if end_page != s.page:
            m["page_end"] = end_page
        m["text"] = text
        m.update(s.meta)
        m.update(meta)
        return SourceUnit(
            source=lt.source, kind=s.kind, text=lt.text[off1 + s.col:off2 + s.end_col], line=s.line,
            col=s.col, end_col=s.end_col, offset=off1 + s.col, end=off2 + s.end_col, meta=m,
        )

    def _page_at(self, lineno: int) -> str | None:
        return self.pages.get(lineno, self.page)

    def close_run(self) -> None:
        s, self.run = self.run, None
        if s is None or not s.end_line:
            return
        text = "".join(s.buf).strip()
        meta: dict[str, Any] = {"zhu_end": "unknown"} if s.kind == "zhu_run" else {}
        bare = [m.start() for m in re.finditer("疏", text)]
        if bare:  # the word 疏 of the 经, or a 注 mark the copy wrote as 疏 (005, line 245)
            meta["bare_shu"] = bare
        self.units.append(self._unit(s, text, **meta))

    def close_block(self) -> None:
        s, self.block = self.block, None
        if s is None:
            return
        text = "".join(s.buf)
        if s.kind == "shu":
            self.shu_no += 1
            self.units.append(self._unit(s, text, n=self.shu_no, parts=shu_parts(text)))
        else:
            self.units.append(self._unit(s, text))

    def close_entry(self) -> None:
        s, self.entry = self.entry, None
        if s is None:
            return
        text = "".join(s.buf).strip()
        if s.kind == "other":
            self.units.append(self._unit(s, text))
            return
        lemma, circle, note = text.partition("○")
        meta: dict[str, Any] = {"lemma": lemma, "note": note} if circle else {"lemma": "", "note": text}
        meta["editors"] = EDITOR_RE.findall(text)
        self.units.append(self._unit(s, text, **meta))

    # -- reading ---------------------------------------------------------------------------------

    def parse(self) -> ParsedSource:
        lt = self.lt
        for lineno, _off, ln in lt:
            if ln.startswith("#"):
                if ln.strip():
                    self.noise.append(lt.noise(lineno, 0, len(ln), "mandoku header line"))
                pm = JUAN_PROP_RE.match(ln)
                if pm and not pm.group(1):  # a section that is neither the 卷 nor its 考證 (跋語)
                    self.close_block()
                    self.close_run()
                    self.close_entry()
                    self.kaozheng, self.other = False, pm.group(2).strip("[] ")
                continue
            body = ln[:-1] if ln.endswith("¶") else ln
            m = PB_RE.search(body)
            while m:  # page breaks: noise, and the page of what follows
                self.noise.append(lt.noise(lineno, m.start(), m.end(), "page break"))
                self.page = m.group(1)
                body = body[:m.start()] + " " * (m.end() - m.start()) + body[m.end():]
                m = PB_RE.search(body)
            self.pages[lineno] = self.page
            if not body.strip():
                continue
            if self.other:
                self.other_line(lineno, body)
            elif self.kaozheng:
                self.kaozheng_line(lineno, body)
            else:
                self.body_line(lineno, body)
        if self.block is not None and not self.block.pending:
            raise lt.error(f"a {'疏' if self.block.kind == 'shu' else '音義'} block opened here is never closed "
                           "(no ')' before the end of the file)", self.block.line)
        self.close_block()
        self.close_run()
        self.close_entry()
        if not any(u.kind == "text" for u in self.units):
            raise lt.error("no 经 text found: is this a 四库 《儀禮注疏》 file?", 1)
        return ParsedSource(lt.source, lt.path, lt.text, self.units, self.noise)

    def heading(self, lineno: int, body: str) -> bool:
        """A heading line: noise with its reason; ``True`` if it was one."""
        s = body.strip()
        if KAOZHENG_RE.match(s):
            role = "kaozheng-title"
            self.close_entry()
            self.kaozheng = True
        elif self.kaozheng:
            return False
        elif s == "欽定四庫全書":
            role = "edition"
        elif not body.startswith(INDENT):  # headings are indented; the 经 never is
            return False
        elif JUAN_RE.match(s):
            role = "juan"
        elif TITLE_RE.search(s):
            role = "chapter"
        else:
            role = "byline" if "注" in s and "疏" in s else "other"
        if self.block is not None:
            if not self.block.pending:
                raise self.lt.error("a heading inside an open 疏 or 音義 block", lineno)
            self.close_block()
        self.close_run()
        a, b = len(body) - len(body.lstrip()), len(body.rstrip())
        # the edition's own text: a ``heading`` unit (its role: HEADING_ROLES), placed in the TEI's
        # <front> (the 卷's title page) or <back> (the 卷's closing title, the 考證 headings)
        span = _Span("heading", lineno, a, self.page, end_line=lineno, end_col=b, meta={"role": role})
        self.units.append(self._unit(span, "".join(ch for ch in body[a:b] if not ch.isspace())))
        return True

    def kaozheng_line(self, lineno: int, body: str) -> None:
        if self.heading(lineno, body):
            return
        a = len(body) - len(body.lstrip())
        if a == 0:  # a new entry starts at column 0; continuation lines are indented
            self.close_entry()
            self.entry = _Span("kaozheng", lineno, 0, self.page)
        elif self.entry is None:
            raise self.lt.error("an indented 考證 line with no entry before it", lineno)
        b = len(body.rstrip())
        for i in range(a, b):
            if body[i] != "/":
                self.entry.take(lineno, i, body[i])
            else:
                self.entry.end_line, self.entry.end_col = lineno, i + 1

    def next_body(self, lineno: int) -> str:
        """The next line after ``lineno`` that is neither a header line nor a page break alone."""
        for _, _, ln in self.lt.lines[lineno:]:
            body = PB_RE.sub("", ln).rstrip("¶").strip()
            if body and not ln.startswith("#"):
                return ln
        return ""

    def other_line(self, lineno: int, body: str) -> None:
        """A line of a section after the 考證 (the 跋語 of 卷十七): one ``other`` unit for it all."""
        a, b = len(body) - len(body.lstrip()), len(body.rstrip())
        if self.entry is None:
            self.entry = _Span("other", lineno, a, self.page, meta={"section": self.other})
        for i in range(a, b):
            if body[i] != "/" and not body[i].isspace():
                self.entry.take(lineno, i, body[i])

    def body_line(self, lineno: int, body: str) -> None:
        lt = self.lt
        i = 0
        blk = self.block
        if blk is not None and blk.pending:
            if body.startswith(blk.resume):  # the wrapping parenthesis of the next line of the block
                blk.pending = False
                i = len(blk.resume)
                blk.resume = "("
            else:
                self.close_block()
        if self.block is None and self.heading(lineno, body):
            return
        n = len(body)
        while i < n:
            ch = body[i]
            blk = self.block
            if ch == "[":  # a character described by its parts, ``[孑*(焉-正+?)]``: one token
                j = body.find("]", i)
                if j < 0:
                    raise lt.error(f"'[' at column {i} is not closed on its line", lineno)
                tgt = blk if blk is not None else self.run
                if tgt is None:
                    tgt = self.run = _Span("text", lineno, i, self.page)
                tgt.buf.append(body[i:j + 1])
                tgt.end_line, tgt.end_col = lineno, j + 1
                i = j + 1
                continue
            if blk is not None:
                if ch == ")":
                    blk.end_line, blk.end_col = lineno, i + 1
                    if not body[i + 1:].strip():
                        blk.pending = True
                    else:
                        self.close_block()
                elif ch == "(":
                    raise lt.error(f"unbalanced parentheses: '(' at column {i} inside the block opened at "
                                   f"line {blk.line}", lineno)
                elif ch != "/" and not ch.isspace():
                    blk.take(lineno, i, ch)
                i += 1
                continue
            mark = next((k for k in MARKS if body.startswith(k, i)), None)
            if mark:
                self.close_run()
                self.block = _Span(MARKS[mark], lineno, i, self.page)
                i += len(mark)
                continue
            word = body[i:].rstrip()
            split = next((k for k in MARKS if word and k.startswith(word) and k != word), None)
            if split and self.next_body(lineno).startswith(split[len(word):]):
                # a mark broken by the line end: ``…疏¶`` or ``…音¶`` then ``(…)¶`` or ``義(…)¶``
                self.close_run()
                self.block = _Span(MARKS[split], lineno, i, self.page, pending=True, resume=split[len(word):])
                self.block.end_line, self.block.end_col = lineno, i + len(word)
                return
            if ch == ")":
                raise lt.error(f"unbalanced parentheses: ')' at column {i} closes nothing", lineno)
            if ch == "注":
                self.close_run()
                self.run = _Span("zhu_run", lineno, i, self.page)
                self.run.end_line, self.run.end_col = lineno, i + 1
                i += 1
                continue
            if ch.isspace():
                i += 1
                continue
            if self.run is None:
                self.run = _Span("text", lineno, i, self.page)
            if ch == "(":  # small print inside the text, on one line
                j = body.find(")", i)
                if j < 0 or "(" in body[i + 1:j]:
                    raise lt.error(f"unbalanced parentheses: '(' at column {i} is not closed on its line", lineno)
                small = body[i + 1:j].replace("/", "")
                self.run.meta.setdefault("small", []).append(small)
                self.run.buf.append(f"({small})")
                self.run.end_line, self.run.end_col = lineno, j + 1
                i = j + 1
                continue
            self.run.take(lineno, i, ch)
            i += 1


def shu_parts(text: str) -> list[dict[str, Any]]:
    """The parts of a 疏 block's reading: kind (``jing`` for 釋曰, ``zhu`` for 注釋曰, ``zhuan`` for
    傳釋曰, ``unmarked`` for text before the first mark), start and end in ``text``, and the
    自此至X / 自此盡X span words where the part names them."""
    starts: list[tuple[int, str]] = []
    for m in PART_RE.finditer(text):
        if m.group(1):
            starts.append((m.start(), "zhu" if m.group(1) == "注" else "zhuan"))
        elif m.start() == 0 or (m.group(0) == "釋曰" and not starts):
            starts.append((m.start(), "jing"))
    if not starts or starts[0][0] > 0:
        starts.insert(0, (0, "unmarked"))
    parts = []
    for k, (a, kind) in enumerate(starts):
        b = starts[k + 1][0] if k + 1 < len(starts) else len(text)
        part: dict[str, Any] = {"kind": kind, "start": a, "end": b}
        sm = SPAN_RE.search(text, a, min(b, a + 12 + 20))
        if sm and sm.start() - a <= 6:
            part["span"] = {"verb": sm.group(1), "to": sm.group(2)}
        parts.append(part)
    return parts


def parse(source_id: str, text: str, path: str, **options: object) -> ParsedSource:
    """Parse a 四库 《儀禮注疏》 卷 into ``text``, ``zhu_run``, ``yinyi``, ``shu``, ``kaozheng`` and
    ``heading`` units."""
    return _Parser(source_id, text, path).parse()
