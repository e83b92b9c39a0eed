"""Identifiers for generated code: a catalog's names made legal, never a keyword, never twice."""

from __future__ import annotations

import keyword

#: Words neither language lets a function, type or module be called, and the builtin
#: names the generated code uses (all in one list: a name means the same in the Python
#: and the TypeScript package).
RESERVED = frozenset(keyword.kwlist) | frozenset(
    # ECMAScript reserved words, strict-mode and TypeScript type names
    "abstract any arguments as async await boolean break case catch class const constructor "
    "continue debugger declare default delete do else enum eval export extends false finally "
    "for from function get if implements import in infer instanceof interface is keyof let "
    "module namespace never new null number object of package private protected public "
    "readonly require return set static string super switch symbol this throw true try type "
    "typeof undefined unique unknown var void while with yield".split()
    # the names the generated modules use: a function called list would hide list[str]
    + "str int float bool list dict Promise".split()
)


def identifier(name: str, fallback: str = "tool") -> str:
    """``get-item`` -> ``get_item``, ``2fa`` -> ``t_2fa``, ``class`` -> ``class_``.

    The result never starts with an underscore: those names belong to the generated
    package itself (``_client``, ``_t``).
    """
    text = "".join(c if (c.isascii() and c.isalnum()) or c == "_" else "_" for c in name)
    text = text.strip("_") or fallback
    if text[0].isdigit():
        text = f"t_{text}"
    return f"{text}_" if text in RESERVED or text.lower() in RESERVED else text


class Namer:
    """Hands out identifiers that are unique in one scope: the second ``get_item`` (from
    ``get-item``) is ``get_item_2``. ``taken`` are names the scope already uses."""

    def __init__(self, taken: frozenset[str] = frozenset()) -> None:
        self._used = {n.lower() for n in taken}  # case-blind: modules are files on any disk

    def claim(self, name: str, fallback: str = "tool") -> str:
        base = identifier(name, fallback)
        found, n = base, 1
        while found.lower() in self._used:
            n += 1
            found = f"{base}_{n}"
        self._used.add(found.lower())
        return found


#: what a package's top level (``__init__.py``, ``index.ts``) defines besides its modules
TOP_LEVEL = frozenset(
    "index call close connect search MODULES FUNCTIONS FoundTool SearchResult ToolCallError".split()
)
