"""Reports sized by what a person reads (issue 26): a deep failing port's report is smaller, and the pages
rendered back from it (summary.json + a compressed cell record) show every table and plot the run's own
pages showed. Real frameworks, a tiny 18-block MLP in PYNATIVE (about 5 s)."""
from __future__ import annotations

import gzip
import json
import re
import textwrap

import pytest

from migcheck.cli import EXIT_OK, main
from migcheck.report import jsonfile, render_report
from migcheck.report.condense import FOLD_FROM, Fold, folded_rows, pair_groups

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]

CASES = textwrap.dedent('''
    from migcheck import PairedCase, uniform

    DEPTH = 18


    def torch_deep():
        import torch.nn as nn
        return nn.Sequential(*[m for _ in range(DEPTH) for m in (nn.Linear(3, 3), nn.Tanh())])


    def ms_deep(bad=True):
        import mindspore.nn as mnn
        layers = [m for _ in range(DEPTH) for m in (mnn.Dense(3, 3), mnn.Tanh())]
        if bad:
            layers[9] = mnn.Sigmoid()  # planted: block 4's Tanh ported as Sigmoid
        return mnn.SequentialCell(layers)


    deep = PairedCase(torch=torch_deep, mindspore=ms_deep, inputs={"x": uniform(2, 3)},
                      checks=("forward", "backward"), expect="fail", fails_with="value")
''')


@pytest.fixture(scope="module")
def deep_report(tmp_path_factory):
    root = tmp_path_factory.mktemp("sized")
    (root / "deep_cases.py").write_text(CASES)
    report = root / "report"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(jsonfile, "COMPRESS_OVER", 10_000)  # this small net's record (~55 kB) is compressed too
        mp.setenv("MIGCHECK_CACHE_DIR", str(root / "cache"))
        code = main(["compare", str(root / "deep_cases.py"), "--mode", "pynative", "--report", str(report), "-q",
                     "--no-torch-cache"])
    assert code == EXIT_OK
    return report


def test_a_big_cell_record_is_compressed_and_reads_back_whole(deep_report):
    cells = deep_report / "cells"
    assert (cells / "deep.json.gz").is_file() and not (cells / "deep.json").exists()
    summary = json.loads((deep_report / "summary.json").read_text())
    assert {v["cell"] for v in summary["verdicts"]} == {"cells/deep.json.gz"}
    # summary.json leaves every bulky part to the cell: tensors, mapping, sub-cell rows, defects, findings
    assert all(not v["tensors"] and not v["localization"]["rows"] and not v["localization"]["defects"]
               and not v["localization"]["findings"] for v in summary["verdicts"])
    record = json.loads(gzip.decompress((cells / "deep.json.gz").read_bytes()))
    assert record["case"] == "deep" and len(record["verdicts"]) == 2
    run = jsonfile.read_run(deep_report)
    backward = next(v for v in run.verdicts if v.check == "backward")
    entry = next(v for v in summary["verdicts"] if v["check"] == "backward")
    assert len(backward.tensors) == entry["tensor_counts"]["compared"] == 37  # the gradients of x and of 36 parameters
    assert len(backward.localization.rows) >= 36 and backward.localization.findings
    # a paired row's message is shown nowhere and not kept; an unpaired row's (why it is unpaired) would be
    assert all(r.message == "" for r in backward.localization.rows if r.ms_kind)


def test_the_summary_says_what_the_report_weighs(deep_report):
    from migcheck.report.size import by_kind

    size = json.loads((deep_report / "summary.json").read_text())["size"]
    now = by_kind(deep_report)
    assert {k for k in size if k != "total"} == set(now) >= {"cell pages", "cell records", "cell markdown", "index.html"}
    assert all(size[k] == now[k] for k in now if k != "summary.json")  # summary.json grew by this very field
    assert size["total"] == sum(v for k, v in size.items() if k != "total")


def test_pages_rendered_from_the_smaller_report_show_what_the_run_showed(deep_report):
    page = (deep_report / "cells" / "deep.html").read_text()
    md = (deep_report / "cells" / "deep.md").read_text()
    render_report(deep_report)  # index.html and the case page again, from summary.json and the compressed cell
    assert (deep_report / "cells" / "deep.html").read_text() == page
    run = jsonfile.read_run(deep_report)
    for v in run.verdicts:
        failing = [t for t in v.tensors if not t.ok]
        assert failing
        # every tensor has its metrics row, and every tensor whose detail was kept its plot
        for t in v.tensors:
            assert f"<td><code>{t.name}</code></td>" in page
        for t in failing:
            if t.error_sample is not None:
                assert f'<img class="errplot" data-tensor="{t.name}" src="data:image/png;base64,' in page
        # the sub-cell table: the first divergence row, and every row either shown or inside a folded line
        shown = folded_rows(v.localization)
        assert len(v.localization.rows) >= FOLD_FROM and any(isinstance(r, Fold) for r in shown)
        assert sum(len(r.rows) if isinstance(r, Fold) else 1 for r in shown) == len(v.localization.rows)
        assert f"{v.localization.first_divergence} (" in page and "first divergence" in page
    assert page.count('<tr class="fold">') >= 1 and "&ndash;" in page
    # the weight mapping: every pair in the table or in its rule's compact list, with its shape
    rows, groups = pair_groups(run.verdicts[0].mapping)
    assert len(rows) + sum(len(p) for _, p in groups) == len(run.verdicts[0].mapping) == 36
    assert groups and all(f"{p.torch_name} (3" in page for _, pairs in groups for p in pairs)
    assert re.search(r"same name</b>: \d+ more pairs", page)
    assert "36 more pairs" in md or "same name:" in md


def test_small_tables_are_shown_row_by_row(tmp_path):
    """Nothing folds below FOLD_FROM rows: a 3-block net's page lists every sub-cell and weight pair."""
    (tmp_path / "small_cases.py").write_text(CASES.replace("DEPTH = 18", "DEPTH = 3").replace("layers[9]", "layers[3]"))
    report = tmp_path / "report"
    assert main(["compare", str(tmp_path / "small_cases.py"), "--mode", "pynative", "--check", "forward",
                 "--report", str(report), "-q", "--no-torch-cache"]) == EXIT_OK
    page = (report / "cells" / "deep.html").read_text()
    assert (report / "cells" / "deep.json").is_file()  # small records stay plain JSON
    assert '<tr class="fold">' not in page and 'class="pair-group"' not in page
    assert page.count('<table class="sortable" id="mapping">') == 1 and page.count("<td>same name</td>") == 6


def test_compact_metrics_rows_keep_every_number_and_unshown_messages_are_dropped(deep_report):
    """A big metrics table's rows carry no per-cell classes and say a shared tolerance source once above the
    table; every number of every row is still on the page. The cell record keeps the message of a failing
    tensor only where a page shows it (the detailed, most telling ones)."""
    from migcheck.report.condense import detailed
    from migcheck.report.html import num, _least

    page = (deep_report / "cells" / "deep.html").read_text()
    run = jsonfile.read_run(deep_report)
    backward = next(v for v in run.verdicts if v.check == "backward")
    assert len(backward.tensors) >= FOLD_FROM
    [source] = {t.tolerance_source for t in backward.tensors}
    assert f'<p class="tolerance-all">Every tensor judged by {source.replace(chr(39), "&#39;")}.</p>' in page
    body = page.split('<div class="scroll"><table class="sortable metrics">')[2].split("</table>")[0]
    assert 'class="mono' not in body and "class=tol" not in body and "data-sort=\"" not in body.split("</thead>")[1].replace('data-sort="Infinity"', "")
    rows = {re.search(r"<code>([^<]+)</code>", r).group(1): r for r in body.split("<tr>")[2:]}
    assert set(rows) == {t.name for t in backward.tensors}
    for t in backward.tensors:
        row = rows[t.name]
        numbers = [num(t.max_abs_err), num(t.mean_abs_err), f"{t.mismatched}/{t.total}", num(t.cosine, 6),
                   _least(t.min_atol), f"{t.oracle_err_ms:g}", f"{t.oracle_err_pt:g}", f"{t.budget_limit:g}"]
        assert all(n in row for n in numbers), (t.name, numbers, row)
        assert source.replace("'", "&#39;") not in row  # said once, above the table
    shown, more = detailed(backward.tensors)
    assert more > 0
    record = json.loads(gzip.decompress((deep_report / "cells" / "deep.json.gz").read_bytes()))
    kept = {t["name"]: t.get("message", "") for v in record["verdicts"] if v["check"] == "backward" for t in v["tensors"]}
    for t in backward.tensors:
        if t.ok:
            continue
        if any(t is s for s in shown):
            assert kept[t.name] and t.message.replace("'", "&#39;") in page
        else:
            assert kept[t.name] == ""
