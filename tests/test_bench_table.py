"""The performance table (docs/performance.md) is what the committed benchmark results say, so a figure no
longer produced by the code cannot stay in the docs: re-run `make bench` after a change that
could move one."""

import importlib.util
import json

from tests.conftest import ROOT

spec = importlib.util.spec_from_file_location("bench_table", ROOT / "bench" / "table.py")
bench_table = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench_table)


def test_the_docs_table_is_the_committed_results():
    readme = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    shown = readme.split(bench_table.BEGIN, 1)[1].split(bench_table.END, 1)[0].strip()
    assert shown == bench_table.table(bench_table.load()), (
        "run `make bench` (or bench/table.py --write docs/performance.md)"
    )


def test_every_benchmark_of_make_bench_has_its_results_with_where_they_came_from():
    makefile = (ROOT / "Makefile").read_text()
    for name in bench_table.ORDER:
        assert f"bench/{name}.py" in makefile
        result = json.loads((ROOT / "bench" / "results" / f"{name}.json").read_text(encoding="utf-8"))
        assert result["bench"] == name and result["figures"] and result["revision"] != "unknown"
        assert result["machine"]["cores"] >= 1 and result["machine"]["cpu"]
        assert all(f["text"] for f in result["figures"])
