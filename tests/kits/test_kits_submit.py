"""Every starter kit goes the author's way to the ladder: `kingmaker init`, then `kingmaker submit`
of the folder as it is (TypeScript's packages fetched first, as its README says): the server
builds it in its jail, offline, from the kit's manifest, and it passes validation against the
random bot. (kit_submissions.py makes the submission, once a run; test_kits_play.py plays the
folder the server built, in every game, managed and remote.)"""

from __future__ import annotations

import os
import subprocess

import pytest
from kit_submissions import KITS, Submission, submitted

from kingmaker.server.building.toolchain_caches import SEEDS

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]


@pytest.mark.parametrize("lang", KITS)
def test_a_kit_is_submitted_as_written_built_offline_and_validated(
    kit_submissions: dict[str, Submission], tmp_path_factory: pytest.TempPathFactory, lang: str
) -> None:
    submission = submitted(kit_submissions, tmp_path_factory, lang)
    assert submission.exit_code == 0, submission.output
    assert f"kit-{lang} version 1 is active" in submission.output
    record = submission.record
    assert record is not None
    assert record.source == "submission" and record.status == "active"
    assert all(match["passed"] for match in record.validation)
    assert submission.active_version == 1
    if lang in SEEDS:  # (built from the cache its kit prepared, in this run or an earlier one)
        assert f"starts from the server's prepared {lang} toolchain cache" in record.build_log
    if lang == "rust":  # its libraries came out of the prepared target folder: only its crate compiled
        compiled = [line.split()[1] for line in record.build_log.splitlines() if "Compiling " in line]
        assert len(compiled) == 1 and not {"rand", "serde", "serde_json"} & set(compiled), compiled
    if lang == "cpp":  # the generated gRPC code came out of the prepared ccache, not the compiler
        assert submission.built is not None
        stats = subprocess.run(
            ["ccache", "--print-stats"],
            env={**os.environ, "CCACHE_DIR": str(submission.built / ".ccache")},
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        hits = dict(line.split("\t") for line in stats.splitlines())
        generated = list(submission.built.glob("gen/**/*.pb.o"))
        assert generated and int(hits["direct_cache_hit"]) >= len(generated), stats
