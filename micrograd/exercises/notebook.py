"""What both tracks' notebooks share: their cells in order, and Markdown that keeps formulas."""
from __future__ import annotations

import importlib
import re
from typing import Any


def markdown(text: str) -> str:
    """text for a Markdown cell: `code` spans kept, and outside them the characters Markdown would take for
    emphasis escaped (x ** k would turn bold and lose its exponent; w_i italic)."""
    parts = re.split(r'(`[^`]*`)', text)
    return ''.join(part if part.startswith('`') else re.sub(r'([*_\\])', r'\\\1', part) for part in parts)


def notebook(intro: list[str], setup: str, exercises: list[tuple[str, str]], check: str, finale: str,
             finale_code: str) -> Any:
    """The notebook, as an nbformat node, validated: the introduction, the setup cell, then per exercise its
    Markdown, its code and the check, then the finale; each cell with a stable id."""
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
