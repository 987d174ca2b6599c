"""The campaign's pipeline (campaign.run, judge.start): verify's workers judge one batch in a
thread while the next is drawn and built; the programs, their outcomes and the findings are
those of judging one batch after another."""

from __future__ import annotations

from onnx_seq_tests._fuzz import campaign
from onnx_seq_tests._fuzz.campaign import Options

SPEC = "faulty_backends:DropLast"


def _campaign(monkeypatch, pipeline: bool):
    monkeypatch.setattr(campaign, "BATCH", 4)  # several batches from a few programs
    batches = []
    stats = campaign.run(Options([SPEC], seed=2, max_examples=16, max_findings=1,
                                 shrink_budget=120.0, pipeline=pipeline),
                         lambda s, _: batches.append((s.generated, s.valid)))
    findings = [(f.signature, f.seed, f.nodes_before, f.nodes_after) for f in stats.findings]
    return stats.runs, findings, batches, stats


def test_a_pipelined_campaign_judges_what_one_batch_after_another_judges(monkeypatch):
    runs, findings, batches, stats = _campaign(monkeypatch, pipeline=True)
    assert _campaign(monkeypatch, pipeline=False)[:3] == (runs, findings, batches)
    assert findings and stats.valid == sum(sum(c.values()) for c in runs[SPEC].values()) / 2
    ends, k = [0], 0  # batches of campaign.batch_size, growing from 4
    while ends[-1] < stats.valid:
        ends.append(min(stats.valid, ends[-1] + campaign.batch_size([SPEC], k)))
        k += 1
    assert [valid for _, valid in batches] == ends[1:] and len(ends) > 3


def _built(count: int) -> list:
    from onnx_seq_tests._fuzz import judge
    from onnx_seq_tests._fuzz.programs import generate
    from onnx_seq_tests._fuzz.recipes import to_case

    return [judge.build(to_case(generate(f"3:{i}"), f"fuzz_{i}")) for i in range(count)]


def test_a_batch_is_started_once_its_first_folders_are_queued(tmp_path):
    """judge.start returns once the job has queued its first folders (the caller then draws
    the next batch: the two writing at once starved the writing of the GIL), not when the job
    ends; and a job that fails before queueing anything does not leave the caller waiting."""
    import threading

    import pytest

    from onnx_seq_tests._fuzz import judge

    events, release = [], threading.Event()

    def workers(built, specs, work, jobs, timeout, queued):
        events.append("written")
        queued()
        release.wait(30)
        events.append("ran")
        return {}

    judging = judge.start(_built(2), ["onnxruntime"], tmp_path, workers=workers)
    events.append("returned")
    release.set()
    judging.result()
    assert events == ["written", "returned", "ran"]

    def broken(built, specs, work, jobs, timeout, queued):
        raise OSError("no space left")

    with pytest.raises(OSError, match="no space left"):
        judge.start(_built(1), ["onnxruntime"], tmp_path, workers=broken).result()
