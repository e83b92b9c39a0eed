"""Catalog paths as they were at a git revision (`toolcat diff --base REF`), in a temporary folder.

The revision's whole tree is written under a temporary folder through a temporary
index (``GIT_INDEX_FILE``): ``git read-tree REF`` then ``git checkout-index
--prefix``. Neither the user's working tree nor their index is touched, and a
catalog's relative references (an ``openapi:`` entry's ``../specs/x.yaml``) find
their files as they were at REF.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from toolcat._errors import ToolcatError

from ._app import CliError

__all__ = ["GIT_TIMEOUT", "RevisionTree", "tree_at"]

GIT_TIMEOUT = 120.0  # seconds for one git command (a large repository's checkout-index)


@dataclass(frozen=True)
class RevisionTree:
    """The paths at REF: ``paths`` (those that exist there), ``absent`` (those that do not)."""

    ref: str
    top: Path  # the repository's working tree
    root: Path  # the revision's tree, in the temporary folder
    paths: tuple[str, ...]
    absent: tuple[str, ...]

    def show(self, file: str) -> str:
        """``file`` as the user knows it: ``REF:repo/relative/path`` for one inside the tree."""
        try:
            rel = Path(file).resolve().relative_to(self.root.resolve())
        except (ValueError, OSError):
            return file
        return f"{self.ref}:{rel.as_posix()}"

    def show_text(self, text: str) -> str:
        """``text`` (a message) with each path inside the tree written ``REF:path``."""
        for root in dict.fromkeys((str(self.root), str(self.root.resolve()))):
            text = text.replace(root + os.sep, f"{self.ref}:").replace(root, f"{self.ref}:.")
        return text

    def only(self, paths: Sequence[str]) -> RevisionTree:
        """The same tree, for ``paths`` alone (some of those it was made for)."""
        present = tuple(self._at(p) for p in paths if p not in self.absent)
        absent = tuple(p for p in paths if p in self.absent)
        return dataclasses.replace(self, paths=present, absent=absent)

    def _at(self, path: str) -> str:
        return str(self.root / Path(path).resolve().relative_to(self.top))

    def name(self, path: str) -> str:
        """A working-tree ``path`` as git names it at the revision: ``REF:repo/relative``."""
        try:
            rel = Path(path).resolve().relative_to(self.top)
        except ValueError:
            return f"{self.ref}:{path}"
        return f"{self.ref}:{rel.as_posix()}"


def _git(args: Sequence[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    git = shutil.which("git")
    if git is None:
        raise CliError("--base needs git, which is not on PATH")
    try:
        done = subprocess.run(  # noqa: S603 (git from PATH, arguments as a list)
            [git, *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise CliError(f"git {args[0]} took over {GIT_TIMEOUT:.0f} s") from exc
    if done.returncode != 0:
        raise _GitFailed(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "failed")
    return done.stdout


class _GitFailed(ToolcatError):
    """A git command exited non-zero (turned into a one-line CliError by its caller)."""


def _toplevel(path: str) -> Path:
    here = Path(path).resolve()
    folder = here if here.is_dir() else here.parent
    while not folder.exists() and folder != folder.parent:  # a path gone from the tree
        folder = folder.parent
    try:
        return Path(_git(["rev-parse", "--show-toplevel"], folder).strip()).resolve()
    except _GitFailed as exc:
        raise CliError(f"--base: {path} is not inside a git repository") from exc


@contextmanager
def tree_at(ref: str, paths: Sequence[str]) -> Iterator[RevisionTree]:
    """The revision ``ref`` of the repository holding ``paths``, removed on exit."""
    if not ref or ref.startswith("-"):
        raise CliError(f"--base {ref!r}: not a revision")
    tops = {_toplevel(p) for p in paths}
    if len(tops) != 1:
        raise CliError("--base: the paths are in different git repositories")
    top = tops.pop()
    try:
        _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], top)
    except _GitFailed as exc:
        raise CliError(f"--base {ref}: unknown revision") from exc
    scratch = Path(tempfile.mkdtemp(prefix="toolcat-diff-"))
    try:
        root = scratch / "tree"
        env = {**os.environ, "GIT_INDEX_FILE": str(scratch / "index")}
        try:
            _git(["read-tree", f"{ref}^{{tree}}"], top, env)
            _git(["checkout-index", "--all", "--force", f"--prefix={root}{os.sep}"], top, env)
        except _GitFailed as exc:
            raise CliError(f"--base {ref}: cannot read the revision: {exc}") from exc
        root.mkdir(exist_ok=True)  # an empty revision writes nothing
        present: list[str] = []
        absent: list[str] = []
        for path in paths:
            try:
                there = root / Path(path).resolve().relative_to(top)
            except ValueError as exc:
                raise CliError(f"--base: {path} is outside the git repository") from exc
            if there.exists():
                present.append(str(there))
            else:
                absent.append(path)
        yield RevisionTree(ref, top, root, tuple(present), tuple(absent))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
