"""Shards: `migcheck compare|list --shard I/N` and `pytest --migcheck-shard I/N` split the items by case name."""
from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter

import pytest

from migcheck.cli import EXIT_OK, EXIT_USAGE, main
from migcheck.planning.items import in_shard, parse_shard, shard_of

NAMES = [f"case_{i}" for i in range(300)] + ["conv_relu", "bn_momentum_complement", "ünïcode", "a[b]-c", ""]

FIRST = '''
alpha = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=FORWARD)
beta = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X)
gamma = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=("forward", "backward"))
'''
SECOND = '''
delta = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=FORWARD)
epsilon = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X)
zeta = PairedCase(torch=torch_layer_norm, mindspore=ms_layer_norm, inputs={"x": uniform(3, 4)})
eta = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=FORWARD)
'''
ADDED = '''
theta = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X)
iota = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=FORWARD)
'''


@pytest.mark.parametrize("count", [1, 2, 3, 4, 7])
def test_every_name_is_in_exactly_one_shard(count):
    owners = {name: [i for i in range(1, count + 1) if in_shard(name, (i, count))] for name in NAMES}
    assert all(len(shards) == 1 for shards in owners.values())
    assert {shards[0] for shards in owners.values()} == set(range(1, count + 1))
    sizes = Counter(shards[0] for shards in owners.values())
    assert min(sizes.values()) > len(NAMES) / count / 2  # a hash, so not exact, but no shard starves


def test_assignment_is_pinned_and_independent_of_the_interpreter():
    # sha256 of the name, never Python's salted hash(): the same on every machine and run.
    assert [shard_of(n, 4) for n in ("conv_relu", "case_0", "case_1", "bn_momentum_complement")] == [1, 2, 3, 1]
    assert [shard_of(n, 3) for n in ("conv_relu", "case_0", "case_1")] == [1, 2, 2]
    code = "from migcheck.planning.items import shard_of; print([shard_of(f'case_{i}', 5) for i in range(50)])"
    outputs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("0", "1", "12345")}
    assert outputs == {str([shard_of(f"case_{i}", 5) for i in range(50)]) + "\n"}


@pytest.mark.parametrize("text, shard", [("1/1", (1, 1)), ("2/4", (2, 4)), (" 3 / 3 ", (3, 3))])
def test_parse_shard(text, shard):
    assert parse_shard(text) == shard


@pytest.mark.parametrize("text", ["0/4", "5/4", "1/0", "a/b", "1", "", "-1/2"])
def test_parse_shard_refuses_what_is_not_i_of_n(text):
    with pytest.raises(ValueError, match="shard"):
        parse_shard(text)


def _ids(capsys, *argv):
    code = main(["list", *argv])
    out, err = capsys.readouterr()
    assert code == EXIT_OK, err
    return out.splitlines()


def _case(item_id: str) -> str:
    return item_id.partition("[")[0]


def test_list_shards_partition_the_items_and_keep_each_case_together(write_case_file, tmp_path, capsys):
    write_case_file("cases/first.py", FIRST)
    write_case_file("cases/second.py", SECOND)
    folder = str(tmp_path / "cases")
    everything = _ids(capsys, folder)
    for count in (2, 3):
        shards = [_ids(capsys, folder, "--shard", f"{i}/{count}") for i in range(1, count + 1)]
        flat = [item for shard in shards for item in shard]
        assert sorted(flat) == sorted(everything)  # complete and disjoint
        owner = {}
        for i, shard in enumerate(shards):
            for item in shard:
                assert owner.setdefault(_case(item), i) == i  # a case's items never straddle two shards
            assert shard == [item for item in everything if item in set(shard)]  # plan order kept


def test_adding_cases_elsewhere_moves_no_existing_case(write_case_file, tmp_path, capsys):
    write_case_file("cases/first.py", FIRST)
    write_case_file("cases/second.py", SECOND)
    folder = str(tmp_path / "cases")
    before = {i: _ids(capsys, folder, "--shard", f"{i}/3") for i in (1, 2, 3)}
    write_case_file("cases/added.py", ADDED)
    after = {i: _ids(capsys, folder, "--shard", f"{i}/3") for i in (1, 2, 3)}
    for i in (1, 2, 3):
        assert [item for item in after[i] if _case(item) not in ("theta", "iota")] == before[i]
    assert sorted(_case(x) for shard in after.values() for x in shard if _case(x) in ("theta", "iota")) == \
        ["iota"] * 2 + ["theta"] * 6


def test_a_bad_shard_is_a_usage_error(write_case_file, capsys):
    path = write_case_file("cases/first.py", FIRST)
    assert main(["list", str(path), "--shard", "3/2"]) == EXIT_USAGE
    assert "I must be between 1 and N" in capsys.readouterr().err


def test_pytest_shards_partition_case_items_and_plain_tests(pytester, case_text):
    cases = pytester.mkdir("cases")
    (cases / "first.py").write_text(case_text(FIRST))
    (cases / "second.py").write_text(case_text(SECOND))
    pytester.makepyfile(test_plain="def test_one():\n    pass\n\ndef test_two():\n    pass\n",
                        test_other="def test_three():\n    pass\n")
    common = ("-p", "migcheck.pytest_plugin", "--collect-only", "-q", "-p", "no:cacheprovider")

    def collected(*extra):
        result = pytester.runpytest_subprocess(*common, *extra)
        return [line for line in result.outlines if "::" in line]

    everything = collected()
    assert len(everything) == 2 * (1 + 3 + 2 + 1 + 3 + 3 + 1) + 3  # 7 cases' checks x 2 modes, and 3 plain tests
    shards = [collected("--migcheck-shard", f"{i}/2") for i in (1, 2)]
    assert sorted(shards[0] + shards[1]) == sorted(everything) and not set(shards[0]) & set(shards[1])
    for item in everything:  # the same key as the CLI's: the case name (plain tests: their file)
        key = _case(item.split("::")[1]) if item.startswith("cases/") else item.split("::")[0]
        assert item in shards[shard_of(key, 2) - 1]
    bad = pytester.runpytest_subprocess(*common, "--migcheck-shard", "0/2")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    assert "--migcheck-shard" in bad.stderr.str()
