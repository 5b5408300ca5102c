"""The apparatus as a reader reads it: each entry of the TEI's ``app`` (a place where witnesses
differ, a restored character, an emendation) as a dict for ``--json`` and a line for the terminal.

One reading of the entries for every command (``show``, the exports): the lemma as the text reads
it, each other witness's reading as that witness writes it (private-use sequences read as their
characters, 〓 where nothing resolves one), in the script asked for, with the rule that chose and
its evidence. A reading that differs from the lemma only in its code points reads the same and is
not listed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..document import HANT, App, CharDecl, in_script, readable

#: What a reading that has nothing at the place is shown as (an omission).
NOTHING = "（无）"
#: What :func:`entry_text` says after a reading that is not a witness's plain text (the Rdg
#: statuses of the TEI): a character the witness's file could not encode (read from the others or
#: from its description), a gap in the witness.
STATUS_TEXT = {"placeholder": "（未编码字）", "lacuna": "（阙）"}


def wit_text(text: str, wit: str, script: str, traditional: str | None) -> str:
    """A witness's reading in the script asked for: for ``hant`` the traditional witness's own
    forms and a simplified witness as it writes it; for ``hans`` every reading folded to
    simplified, character by character (w003 writes some characters traditional: 幹, 卻)."""
    if script == "hans":
        return in_script(text, HANT, "hans")
    return in_script(text, HANT if wit == traditional else "lzh", script)


def entry(a: App, own: str, chars: dict[str, CharDecl], script: str, traditional: str | None,
          ) -> dict[str, Any] | None:
    """One apparatus entry: ``{"type", "lemma", "wit", "readings": [{"wit", "text", "status"}],
    "rule"}`` (plus ``"sic"`` for an emendation and ``"evidence"`` where the TEI gives it), or None
    when no other witness reads otherwise. ``own`` is the witness of the text the entry is in,
    for an entry whose lemma names none."""
    wits = a.lem_wits or [own]
    lem = wit_text(a.lem, wits[0], script, traditional)
    rdgs = [{"wit": r.wit, "text": t, "status": r.status} for r in a.rdgs if r.wit not in wits
            for t in [wit_text(readable(r.content, chars), r.wit, script, traditional)]
            if t != lem or r.status != "reading"]
    if not rdgs:
        return None
    e: dict[str, Any] = {"type": a.type, "lemma": lem, "wit": wits, "readings": rdgs, "rule": a.rule}
    if a.sic is not None:
        e["sic"] = a.sic
    if a.evidence:
        e["evidence"] = a.evidence
    return e


def entries(apps: Iterable[tuple[str, App]], own: str, chars: dict[str, CharDecl], script: str,
            traditional: str | None, here: str = "") -> list[dict[str, Any]]:
    """The entries of ``(where, app)`` pairs; ``"where"`` is kept for those not ``here`` (the
    clause or 注 an entry stands in, when it is not the unit being shown)."""
    out = []
    for where, a in apps:
        e = entry(a, own, chars, script, traditional)
        if e is not None:
            if where != here:
                e["where"] = where
            out.append(e)
    return out


def in_content(content: Iterable[Any]) -> list[App]:
    """The apparatus entries of inline content (a clause's, a 注's, a part of a 疏)."""
    return [x for x in content if isinstance(x, App)]


def entry_text(e: dict[str, Any], at: str = "") -> str:
    """``便］w003 使`` (``at`` before it: a clause number, 注); a reading that is not plain text
    says so (:data:`STATUS_TEXT`), an emendation says what it replaced (``改，原作…``)."""
    rd = "，".join(f"{r['wit']} {r['text'] or NOTHING}{STATUS_TEXT.get(r['status'], '')}" for r in e["readings"])
    sic = f"（改，原作{e['sic'] or NOTHING}）" if "sic" in e else ""
    return f"{at}{e['lemma'] or NOTHING}{sic}］{rd}"
