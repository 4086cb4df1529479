"""The demo notebook's text stays true to the code, without running it (fast; tests/docs/test_demo.py runs it).

A quote of our code in the notebook's text is a ```python block whose first line names its file,
`# micrograd/engine.py`; the lines after it are that file's, in order and together, indented as they
like (a line `...` skips some). Every path the text names exists, and every picture has alt text.
"""
import re
import textwrap

import nbformat
import pytest

from tests import ROOT

NOTEBOOK = nbformat.read(ROOT / 'demo.ipynb', as_version=4)
MARKDOWN = [cell.source for cell in NOTEBOOK.cells if cell.cell_type == 'markdown']
FENCE = re.compile(r'^```(\w*)\n(.*?)^```', re.MULTILINE | re.DOTALL)
SOURCE = re.compile(r'# ((?:micrograd|examples)/[\w/]+\.py)\n')


def quotes():
    """(file, quoted lines) for every code block of the notebook's text."""
    for text in MARKDOWN:
        for _language, code in FENCE.findall(text):
            named = SOURCE.match(code)
            yield (named.group(1) if named else None), code[named.end() if named else 0:]


def fragments(quote):
    """The quote's runs of lines between `...` lines, each without its common indentation."""
    parts = re.split(r'^[ \t]*\.\.\.[ \t]*\n', quote, flags=re.MULTILINE)
    return [textwrap.dedent(part).splitlines() for part in parts if part.strip()]


def where(fragment, lines, start):
    """The first line index >= start at which fragment sits in lines, at one indentation for all its lines."""
    for i in range(start, len(lines) - len(fragment) + 1):
        indent = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
        if all((indent + f if f else '') == lines[i + k].rstrip() for k, f in enumerate(fragment)):
            return i
    return None


def missing_lines(file, quote):
    """The quoted lines that are not in file as quoted ([] if all are); the first miss and what follows."""
    lines = (ROOT / file).read_text(encoding='utf-8').splitlines()
    start = 0
    for fragment in fragments(quote):
        found = where(fragment, lines, start)
        if found is None:
            present = {line.strip() for line in lines}
            absent = [f for f in fragment if f.strip() not in present]
            return absent or [f'(all lines exist, but not together and in this order): {fragment[0].strip()} ...']
        start = found + len(fragment)
    return []


QUOTES = list(quotes())


def test_the_notebook_quotes_our_code():
    assert [file for file, _ in QUOTES] == ['micrograd/engine.py', 'micrograd/tensor/tensor.py']


@pytest.mark.parametrize('file, quote', QUOTES, ids=[file or 'unnamed' for file, _ in QUOTES])
def test_every_quoted_line_is_in_the_file_it_names(file, quote):
    assert file is not None, 'a code block in the text must start with the file it quotes, e.g. # micrograd/engine.py'
    assert (ROOT / file).is_file(), f'{file} does not exist'
    assert missing_lines(file, quote) == [], f'the quote from {file} no longer matches the code: re-quote it'


def test_the_quote_checker_catches_a_changed_line():
    engine = (ROOT / 'micrograd/engine.py').read_text(encoding='utf-8').splitlines()
    line = next(line for line in engine if 'def __mul__' in line)
    assert missing_lines('micrograd/engine.py', line.strip() + '\n') == []
    assert missing_lines('micrograd/engine.py', line.strip().replace('other', 'y') + '\n') != []
    assert missing_lines('micrograd/engine.py', '    return 0\n...\n' + line.strip() + '\n') != []


def test_every_path_the_text_names_exists():
    named = {path.rstrip('/.') for text in MARKDOWN for path in re.findall(r'`((?:micrograd|tests|examples)/[\w/.]*)`',
                                                                        text)}
    assert named and sorted(p for p in named if not (ROOT / p).exists()) == []


def test_the_text_has_no_tex_formulas():
    """The exported page loads no MathJax (it works offline), so formulas are Unicode: x², ∂f/∂a, Σ, ·."""
    assert [text[:60] for text in MARKDOWN if re.search(r'\$[^$\s][^$]*\$|\\\(|\\\[', text)] == []


def test_every_cell_that_plots_describes_its_picture():
    """The page `make demo` writes gives each picture alt text; a plot's comes from its cell's metadata."""
    plotting = [cell for cell in NOTEBOOK.cells if cell.cell_type == 'code' and 'plt.show()' in cell.source]
    assert len(plotting) >= 6
    assert [cell.source.splitlines()[-2] for cell in plotting if len(cell.metadata.get('alt', '')) < 40] == []
