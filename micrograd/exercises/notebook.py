"""What both tracks' notebooks share: their cells in order, Markdown that keeps formulas, a cell's free names."""
from __future__ import annotations

import ast
import builtins
import importlib
import re
from typing import Any


def markdown(text: str) -> str:
    """text for a Markdown cell: outside `code` spans, what Markdown takes for emphasis escaped (x ** k, w_i)."""
    parts = re.split(r'(`[^`]*`)', text)
    return ''.join(part if part.startswith('`') else re.sub(r'([*_\\])', r'\\\1', part) for part in parts)


def free_names(code: str, names: set[str]) -> list[str]:
    """The module-level names (of names) that code reads: the helpers an op calls, the names in its annotations."""
    tree = ast.parse(code)
    bound = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments)
              for a in [*n.posonlyargs, *n.args, *n.kwonlyargs, n.vararg, n.kwarg] if a is not None}
    read = [n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    return sorted({name for name in read if name in names and name not in bound and not hasattr(builtins, name)})


def notebook(intro: list[str], setup: str, exercises: list[tuple[str, str]], check: str, finale: str,
             finale_code: str) -> Any:
    """The notebook, validated: the introduction, the setup, per exercise its text, code and check, then the finale."""
    nbformat: Any = importlib.import_module('nbformat')  # in the demo extra; untyped
    code, text = nbformat.v4.new_code_cell, nbformat.v4.new_markdown_cell
    cells = [text(part) for part in intro] + [code(setup)]
    for about, cell in exercises:
        cells += [text(about), code(cell), code(check)]
    cells += [text(finale), code(finale_code)]
    for i, cell in enumerate(cells):
        cell['id'] = f'cell-{i}'
    nb = nbformat.v4.new_notebook(cells=cells, metadata={
        'kernelspec': {'display_name': 'Python 3', 'language': 'python', 'name': 'python3'},
        'language_info': {'name': 'python'}})
    nbformat.validate(nb)
    return nb
