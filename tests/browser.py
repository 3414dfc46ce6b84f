"""Debian's Chromium, headless, as the tests open the reports with it: the DOM it built, or a screenshot."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
MISSING = "needs Debian's chromium (apt-get install chromium)"
# a fresh machine lacks Chromium; .ci/run installs it, so CI never skips
needs_chromium = pytest.mark.skipif(CHROMIUM is None and not os.environ.get("CI"), reason=MISSING)


def require() -> None:
    """For a check inside a longer test: skip it with the reason where Chromium is missing — never pass without
    having looked — and fail in CI, which installs it."""
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("Chromium is missing in CI (.ci/run installs it)")
        pytest.skip(MISSING)


def _flags(profile: Path) -> list[str]:
    # no background networking: this machine's closed network refuses Chromium's own connections
    return ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run",
            "--disable-component-update", "--disable-sync", f"--user-data-dir={profile}"]


def dom(page: Path, profile: Path, budget_ms: int = 0, window: tuple[int, int] | None = None) -> str:
    """The DOM after Chromium loaded `page` (and, with a budget, ran its scripts for that long), in a window of
    `window` (width, height) pixels where given."""
    budget = [f"--virtual-time-budget={budget_ms}"] if budget_ms else []
    size = [f"--window-size={window[0]},{window[1]}"] if window else []
    result = subprocess.run([CHROMIUM, *_flags(profile), *budget, *size, "--dump-dom", page.resolve().as_uri()],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def screenshot(page: Path, shot: Path, profile: Path) -> Path:
    result = subprocess.run([CHROMIUM, *_flags(profile), "--window-size=1200,2400", f"--screenshot={shot}",
                             page.resolve().as_uri()], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and shot.exists(), result.stderr[-2000:]
    return shot
