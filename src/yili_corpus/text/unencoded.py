"""Unencoded characters: the private-use code points a witness wrote where its character set had
no character, and what each stands for.

A sequence (one private-use code point, or one followed by a component, U+E4B6 付 = 弣) is
resolved, in this order, by

1. the collation of the 经/记 (:meth:`~yili_corpus.text.collate.Collator.run` learns U+E270 = 搢
   where the other witnesses read 搢 at the same place),
2. the collation of the 注 (:func:`~yili_corpus.align.commentary.collate_zhu` learns U+E07D = 算
   where the other witness's 注 reads 算 at the same place), in the form that witness writes,
3. the table ``corpus/pua.tsv`` (``[tables] pua``), for what no collation can learn (the 疏 has
   one witness in the TEI): each row names the line of the witness that has the sequence and the
   line of another witness that reads the same words with a real character, and the build checks
   both lines and that the two readings have the same key.

What none of them resolves stays unresolved: the TEI declares it without a standard mapping, every
reader-facing output prints 〓 (U+3013) for it, and the build report lists it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import DataError, shown
from ..model import GETA, ParsedSource, codepoints, is_private_use, parse_codepoints
from ..tables import read_table
from .normalise import Normaliser, without_layout

#: The header of ``corpus/pua.tsv``.
PUA_HEADER = ["witness", "codepoints", "character", "line", "context", "against", "reading", "note"]

#: The mark every reader-facing output prints for an unresolved sequence.
UNRESOLVED_MARK = GETA


@dataclass
class Unencoded:
    """A sequence one witness wrote for a character it could not encode, and its resolution.

    ``how`` is ``collation of the 经``, ``collation of the 注``, ``table`` or ``""`` (unresolved);
    ``evidence`` says where the character was read; ``places`` are the ``line:col`` of every
    occurrence in the units of the witness the build takes.
    """

    witness: str
    sequence: str
    character: str | None
    how: str = ""
    evidence: str = ""
    places: list[str] = field(default_factory=list)

    @property
    def codepoints(self) -> str:
        return codepoints(self.sequence)

    @property
    def note(self) -> str:
        """The note of the TEI ``<char>``: how it was resolved and the evidence, or why not."""
        if self.character is None:
            return ("not identified: no collation reads it and the private-use table ([tables] pua) has no row for it; "
                    f"shown as {UNRESOLVED_MARK}")
        return f"{self.how}: {self.evidence}"

    def to_dict(self) -> dict[str, Any]:
        return {"witness": self.witness, "codepoints": self.codepoints, "character": self.character,
                "how": self.how or "unresolved", "evidence": self.evidence, "count": len(self.places),
                "places": self.places}


@dataclass
class PuaRow:
    """A row of ``corpus/pua.tsv``, checked against the files it names."""

    witness: str
    sequence: str
    character: str
    line: int
    context: str
    against: str
    against_line: int
    reading: str
    note: str
    table_line: int
    #: the table as the corpus folder names it (``corpus/pua.tsv``)
    table: str = "corpus/pua.tsv"

    @property
    def evidence(self) -> str:
        ctx = self.context
        return (f"{self.table} line {self.table_line}: {self.witness} line {self.line} {ctx} against "
                f"{self.against} line {self.against_line} {self.reading}" + (f" ({self.note})" if self.note else ""))


def load_pua_table(path: Path | str, texts: dict[str, str], norm: Normaliser) -> list[PuaRow]:
    """Read ``corpus/pua.tsv`` and check every row against the witness files (``texts``: the text
    of each witness's file by id): the witness's line holds ``context`` with 〓 standing for the
    sequence, the other witness's line holds ``reading``, and ``context`` with 〓 read as the
    character has the same key as ``reading``. A row that fails is damaged data naming its line."""
    p = Path(path)
    rows: list[PuaRow] = []
    seen: dict[tuple[str, str], PuaRow] = {}
    for i, cells in read_table(p, PUA_HEADER, "private-use table"):
        cells = [c.strip() for c in cells] + [""] * len(PUA_HEADER)
        wit, cps, ch, line, ctx, against, reading, note = cells[: len(PUA_HEADER)]

        def bad(why: str, i: int = i) -> DataError:
            return DataError(f"private-use row: {why}", str(p), i)

        seq = parse_codepoints(cps)
        if seq is None:
            raise bad(f"code points {shown(cps)} must be U+XXXX tokens (or single characters), a private-use one first")
        if len(ch) != 1 or is_private_use(ch) or ch == UNRESOLVED_MARK:
            raise bad(f"character {shown(ch)} must be one encoded character")
        m = re.match(r"^(\w+):(\d+)$", against)
        if not line.isdigit() or m is None:
            raise bad("line must be a line number and against WITNESS:LINE (w005:504)")
        for w in (wit, m.group(1)):
            if w not in texts:
                raise bad(f"no witness {shown(w)} in the manifest")
        if ctx.count(UNRESOLVED_MARK) != 1:
            raise bad(f"context {shown(ctx)} must hold {UNRESOLVED_MARK} once, where the sequence stands")
        row = PuaRow(wit, seq, ch, int(line), ctx, m.group(1), int(m.group(2)), reading, note, i,
                     f"{p.resolve().parent.name}/{p.name}")
        here = _line(texts[wit], row.line)
        if here is None or ctx.replace(UNRESOLVED_MARK, seq) not in here:
            raise bad(f"{wit} line {row.line} does not hold {shown(ctx)} with {cps} for {UNRESOLVED_MARK}")
        there = _line(texts[row.against], row.against_line)
        if there is None or not reading or reading not in without_layout(there):
            raise bad(f"{row.against} line {row.against_line} does not hold {shown(reading)}")
        if norm.key(ctx.replace(UNRESOLVED_MARK, ch)) != norm.key(reading):
            raise bad(f"{shown(ctx)} read with {ch} is not the same text as {shown(reading)}")
        prev = seen.get((wit, seq))
        if prev is not None and norm.key(prev.character) != norm.key(ch):
            raise bad(f"{cps} of {wit} is {prev.character} on line {prev.table_line} and {ch} here")
        seen.setdefault((wit, seq), row)
        rows.append(row)
    return rows


def _line(text: str, n: int) -> str | None:
    lines = text.split("\n")
    return lines[n - 1] if 1 <= n <= len(lines) else None


def sequences(text: str, known: list[str]) -> Iterator[tuple[int, str]]:
    """The unencoded sequences of ``text``, as (offset, sequence): a known sequence where one
    starts (``known`` longest first), else a single private-use code point."""
    i = 0
    n = len(text)
    while i < n:
        if not is_private_use(text[i]):
            i += 1
            continue
        seq = next((s for s in known if text.startswith(s, i)), text[i])
        yield i, seq
        i += len(seq)


def resolve_unencoded(
    parsed: dict[str, ParsedSource],
    from_jing: dict[str, dict[str, object]],
    from_zhu: dict[tuple[str, str], dict[str, object]],
    table: list[PuaRow],
    norm: Normaliser,
) -> dict[tuple[str, str], Unencoded]:
    """Every unencoded sequence in the units of every witness, with its resolution (the 经
    collation's ``Collation.pua``, the 注 collation's where the 经's has none, then the table)
    and its places. A table row for a sequence a collation learned must agree with it (same
    key): else damaged data."""
    out: dict[tuple[str, str], Unencoded] = {}
    for v in from_jing.values():
        seq = str(v["sequence"])
        if not any(is_private_use(c) for c in seq):
            continue  # a placeholder such as 〓 is not a code point of the witness
        wit = str(v["witness"])
        where = ", ".join(str(x) for x in v.get("where", []))  # type: ignore[attr-defined]
        out[(wit, seq)] = Unencoded(
            wit, seq, str(v["character"]), "collation of the 经",
            f"{v['count']} place(s) where the other witnesses read {v['character']} ({wit} line:col {where})")
    for (wit, seq), v in from_zhu.items():
        if (wit, seq) not in out:
            out[(wit, seq)] = Unencoded(wit, seq, str(v["character"]), "collation of the 注", str(v["evidence"]))
    for row in table:
        got = out.get((row.witness, row.sequence))
        if got is None:
            out[(row.witness, row.sequence)] = Unencoded(row.witness, row.sequence, row.character, "table", row.evidence)
        elif norm.key(got.character or "") != norm.key(row.character):
            raise DataError(f"private-use row: {codepoints(row.sequence)} is {row.character} here but the "
                            f"{got.how} reads {got.character}", row.table, row.table_line)
    known: dict[str, list[str]] = {}
    for wit, seq in out:
        known.setdefault(wit, []).append(seq)
    for lst in known.values():
        lst.sort(key=lambda s: -len(s))
    for wit, p in parsed.items():
        for u in p.units:
            for off, seq in sequences(u.text, known.get(wit, [])):
                ent = out.get((wit, seq))
                if ent is None:
                    ent = out[(wit, seq)] = Unencoded(wit, seq, None)
                before = u.text[:off]
                nl = before.count("\n")
                col = u.col + off if nl == 0 else off - before.rfind("\n") - 1
                ent.places.append(f"{u.line + nl}:{col}")
    return dict(sorted(out.items()))

