"""The performance table of docs/performance.md, made from ``bench/results/*.json``.

python bench/table.py                # print the table
python bench/table.py --write docs/performance.md   # replace the table between its markers
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
BEGIN, END = "<!-- bench-table:begin -->", "<!-- bench-table:end -->"
ORDER = (
    "serial_to_sse_latency",
    "replay_throughput",
    "firmware_in_the_loop",
    "vision_accuracy_speed",
    "measure_snapshot",
    "pi_budget",
    "club_network",
    "tournament_load",
    "tournament_subscriber",
)


def load(folder: Path = RESULTS) -> list[dict]:
    found = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in folder.glob("*.json")}
    return [found[n] for n in ORDER if n in found] + [found[n] for n in sorted(found) if n not in ORDER]


def table(results: list[dict]) -> str:
    lines = [
        "| benchmark | figure | result | same run, for comparison | target | measured |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        for k, f in enumerate(r["figures"]):
            first = k == 0
            bench = f"`bench/{r['bench']}.py`: {r['what']}" if first else ""
            when = f"{r['date']}, {r['revision']}, {r['machine']['cores']} cores" if first else ""
            lines.append(
                f"| {bench} | {f['label']} | **{f['text']}** | {f['baseline'] or '–'} | {r['target'] if first else ''} | {when} |"
            )
    return "\n".join(lines)


def write(readme: Path, text: str) -> None:
    content = readme.read_text(encoding="utf-8")
    if BEGIN not in content or END not in content:
        sys.exit(f"{readme} has no {BEGIN} … {END} markers")
    head, rest = content.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    readme.write_text(f"{head}{BEGIN}\n{text}\n{END}{tail}", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", type=Path, help="Put the table into this file, between its markers.")
    args = parser.parse_args()
    text = table(load())
    if args.write:
        write(args.write, text)
    print(text)


if __name__ == "__main__":
    main()
