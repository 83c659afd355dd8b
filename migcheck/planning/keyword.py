"""`-k EXPR`: pytest-style selection of items by words in their id and tags. Pure."""
from __future__ import annotations

import ast
import re
from typing import Callable, List

_KEYWORD_NODES = (ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.Subscript,
                  ast.Name, ast.Load, ast.Constant)
_TOKEN = re.compile(r"\s*(\(|\)|[^\s()]+)")


def keyword_matcher(expr: str) -> Callable[[str], bool]:
    """pytest-style -k: words match as substrings of the item's text; 'and', 'or', 'not', parentheses."""
    tokens = _TOKEN.findall(expr)
    if not tokens:
        raise ValueError("empty -k expression")
    words: List[str] = []
    parts = []
    for tok in tokens:
        if tok in ("and", "or", "not", "(", ")"):
            parts.append(tok)
        else:
            parts.append(f"_w[{len(words)}]")
            words.append(tok.lower())
    source = " ".join(parts)
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError:
        raise ValueError(f"cannot parse -k expression {expr!r}") from None
    # Only and/or/not over words: 'conv (graph)' parses as a call, '()' as a tuple; both are errors.
    if not all(isinstance(node, _KEYWORD_NODES) for node in ast.walk(tree)):
        raise ValueError(f"cannot parse -k expression {expr!r}")
    code = compile(tree, "<-k>", "eval")

    def match(text: str) -> bool:
        text = text.lower()
        return bool(eval(code, {"__builtins__": {}}, {"_w": [w in text for w in words]}))

    return match
