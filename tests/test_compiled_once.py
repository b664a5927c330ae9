"""The test modules' rewritten asserts are kept where every worker reads them, even where the
environment forbids Python to write bytecode (``compiled_once``)."""

from __future__ import annotations

from pathlib import Path

from _pytest.assertion import rewrite


def test_this_module_was_read_from_pytests_cache_of_rewritten_modules() -> None:
    source = Path(__file__)
    cached = rewrite.get_cache_dir(source) / (source.name[:-3] + rewrite.PYC_TAIL)
    code = rewrite._read_pyc(source, cached)
    assert code is not None, f"no current {cached}: each worker rewrote the test modules itself"
    assert "@pytest_ar" in code.co_names, "the cached code has pytest's asserts"


def test_an_installed_plugins_rewritten_modules_are_kept_too() -> None:
    # pytest rewrites every module of a plugin's distribution: Hypothesis's core among them
    import hypothesis.core

    source = Path(hypothesis.core.__file__)
    assert isinstance(hypothesis.core.__loader__, rewrite.AssertionRewritingHook), "not rewritten?"
    cached = rewrite.get_cache_dir(source) / (source.name[:-3] + rewrite.PYC_TAIL)
    assert rewrite._read_pyc(source, cached) is not None, f"no current {cached}: each worker rewrote it"
