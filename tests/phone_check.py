"""What every page must be on a phone (issue: game night from the referee's phone): nothing scrolls
sideways, every control is at least 44×44 px, and a Russian page has no English words but names
(of units, models, cards and players, from the army files) and a few codes the rulebooks print.

``problems(page, lang, names)`` looks at the page as it is now and lists what is wrong, each
naming the element, so a failing test says where to look."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path

TARGET_PX = 44
# Latin words a Russian page may show: units and codes printed as they are in the rulebooks and
# on Alpha Strike cards, file formats, the project's own names, and the smart dice's makes.
CODES = {
    "mm", "cm", "MUL", "JSON", "PDF", "QR", "BattleTech", "Alpha", "Strike", "FT", "Mark", "Wi", "Fi", "ChArUco", "USB",
    "Bluetooth", "Pixels", "GoDice",
}  # fmt: skip

SCAN = """([minimum, lang]) => {
  const out = { overflow: null, small: [], english: [] };
  const width = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > width + 1) {
    const wide = [...document.querySelectorAll('body *')].filter((e) => {
      const r = e.getBoundingClientRect(); return r.width && r.right > width + 1 && getComputedStyle(e).position !== 'fixed';
    }).slice(0, 5).map((e) => `${e.tagName.toLowerCase()}#${e.id}.${e.className}`);
    out.overflow = [document.documentElement.scrollWidth, width, wide];
  }
  const visible = (e) => { const r = e.getBoundingClientRect(); const s = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && !e.closest('[hidden]'); };
  const name = (e) => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}${e.className && typeof e.className === 'string' ? '.' + e.className.split(' ').join('.') : ''} "${(e.textContent || e.value || e.getAttribute('aria-label') || '').trim().slice(0, 30)}"`;
  for (const e of document.querySelectorAll('a[href], button, input, select, textarea, summary')) {
    if (!visible(e) || e.type === 'hidden') continue;
    const r = e.getBoundingClientRect();  // a checkbox too: its own box, not only its label's
    if (r.height < minimum - 0.5 || r.width < minimum - 0.5) out.small.push(`${name(e)} ${Math.round(r.width)}×${Math.round(r.height)}`);
  }
  if (lang === 'ru') {
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || !visible(parent) || parent.closest('script, style, code, pre, noscript, [translate=no]')) continue;
      for (const word of node.textContent.match(/[A-Za-z]{2,}/g) || []) out.english.push([word, name(parent)]);
    }
    for (const e of document.querySelectorAll('[placeholder], [aria-label], [title]')) {
      if (!visible(e)) continue;
      for (const attr of ['placeholder', 'aria-label']) {
        for (const word of (e.getAttribute(attr) || '').match(/[A-Za-z]{2,}/g) || []) out.english.push([word, `${name(e)}[${attr}]`]);
      }
    }
  }
  return out;
}"""


NAMED_BY = {"name", "id", "player", "card", "faction", "specials"}  # what a file names, not says


def army_names(paths: Iterable[Path]) -> set[str]:
    """The Latin words of the names in army and card files (units, models, cards, players): those
    are the players' own words.  Their descriptions are not names, and are not taken."""
    words: set[str] = set()

    def walk(value: object, named: bool = False) -> None:
        if isinstance(value, str) and named:
            words.update(re.findall(r"[A-Za-z]{2,}", value))
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(item, key in NAMED_BY)
        elif isinstance(value, list):
            for item in value:
                walk(item, named)

    for path in paths:
        walk(json.loads(Path(path).read_text(encoding="utf-8")))
    return words


def accessibility(page) -> list[str]:
    """axe-core's serious and critical violations on the page as it is now.  axe-core comes
    bundled in the axe-playwright-python wheel (a test extra), so the scan needs no network and
    no npm step in ``make test``."""
    from importlib.resources import files

    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate((files("axe_playwright_python") / "axe.min.js").read_text(encoding="utf-8"))
    found = page.evaluate("axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)")
    return [
        f"{v['impact']}: {v['id']} ({v['help']}) at {[n['target'] for n in v['nodes'][:3]]}"
        for v in found
        if v["impact"] in ("serious", "critical")
    ]


def problems(page, lang: str, names: set[str]) -> list[str]:
    found = page.evaluate(SCAN, [TARGET_PX, lang])
    said = []
    if found["overflow"]:
        said.append(f"scrolls sideways: {found['overflow']}")
    said += [f"smaller than {TARGET_PX} px: {s}" for s in found["small"]]
    english = sorted({f"{word} in {where}" for word, where in found["english"] if word not in names | CODES})
    said += [f"English on a Russian page: {e}" for e in english]
    return said
