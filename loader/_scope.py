"""Where compile-time findings go: the shared context of one load and a per-document scope."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from toolcat.catalog.common import bare_references, check_env_syntax

from ._diagnostics import Diagnostic
from ._lint import Finding
from ._schemas import SchemaChecker
from ._shape import Locator
from ._templates import TemplateChecker

__all__ = ["CompileContext", "Scope"]


@dataclass
class CompileContext:
    """Shared state of one load: caches and the diagnostics collected so far."""

    schemas: SchemaChecker = field(default_factory=SchemaChecker)
    templates: TemplateChecker = field(default_factory=TemplateChecker)
    diagnostics: list[Diagnostic] = field(default_factory=list)


class Scope:
    """Adds diagnostics about one document, placed through its locator."""

    def __init__(
        self,
        ctx: CompileContext,
        file: str,
        base: tuple[str | int, ...],
        locate: Locator,
        label: str,
        errors_only: bool = False,
    ) -> None:
        self.ctx, self.file, self.base, self.locate, self.label = ctx, file, base, locate, label
        self.errors = 0
        self.errors_only = errors_only

    def add(
        self,
        code: str,
        message: str,
        path: Sequence[str | int] = (),
        *,
        key: bool = False,
        line_offset: int | None = None,
    ) -> None:
        if line_offset is not None:  # a line of a template (a block scalar starts below '|')
            line, col = self.locate.string((*self.base, *path), 0)
            line, col = line + line_offset, col if line_offset == 0 else 1
        else:
            line, col = self.locate((*self.base, *path), key)
        diag = Diagnostic.make(
            code, f"{self.label}: {message}", self.file, line, col, (*self.base, *path)
        )
        if diag.severity == "error":
            self.errors += 1
        elif self.errors_only:
            return
        self.ctx.diagnostics.append(diag)

    def report(self, findings: Iterable[Finding], at: Sequence[str | int] = ()) -> None:
        """Add what a lint rule found, each finding's path below ``at``."""
        for f in findings:
            self.add(f.code, f.message, (*at, *f.path), key=f.key)

    def env(self, path: Sequence[str | int], text: str) -> None:
        bad = check_env_syntax(text)
        if bad is None:
            self._bare(path, text)
            return
        full = (*self.base, *path)
        line, col = self.locate.string(full, bad.offset)
        self.ctx.diagnostics.append(
            Diagnostic.make("TC009", f"{self.label}: {bad}", self.file, line, col, full)
        )
        self.errors += 1

    def _bare(self, path: Sequence[str | int], text: str) -> None:
        """TC115: ``$NAME`` or ``%NAME%`` where only ``${NAME}`` is expanded."""
        if self.errors_only:
            return
        full = (*self.base, *path)
        for offset, written in bare_references(text):
            name = written.strip("$%")
            line, col = self.locate.string(full, offset)
            self.ctx.diagnostics.append(
                Diagnostic.make(
                    "TC115",
                    f"{self.label}: {written} is sent as it is written: toolcat expands only "
                    f"${{{name}}} (write that, or $$ for a literal $)",
                    self.file,
                    line,
                    col,
                    full,
                )
            )
