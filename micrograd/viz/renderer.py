"""Finding a program that lays graphs out, and the Digraph that uses it to draw.

The graphviz package only writes DOT text; a picture takes a Graphviz `dot` program. The system's
`dot` is used when it is on PATH, otherwise the `graphviz-pure` command that pip installs (part of
`pip install graphviz-pure`, part of the viz extra), which writes SVG and PNG but not PDF.
"""
from __future__ import annotations

import functools
import html
import os
import re
import shutil
import subprocess
import sysconfig
from pathlib import Path
from typing import Any, cast

try:
    import graphviz  # type: ignore[import-untyped]
    from graphviz.backend import dot_command  # type: ignore[import-untyped]
except ImportError as e:
    raise ImportError('micrograd.viz draws graphs with the graphviz package: pip install graphviz graphviz-pure '
                      '(or, in the clone\'s folder, pip install -e ".[viz]")') from e

__all__ = ['Digraph', 'RendererNotFound', 'renderer_formats', 'literal', 'shown']


def shown(text: object) -> str:
    """What a drawing shows of a user's text: str() of anything that is no string (a label of 3, an op of None
    shows nothing), tabs as spaces, and other control characters, which no font draws, as Python writes them
    (\\x07). Line breaks stay line breaks."""
    text = '' if text is None else text if isinstance(text, str) else str(text)
    text = text.replace('\r\n', '\n').replace('\r', '\n').replace('\t', ' ')
    return re.sub(r'[\x00-\x08\x0b-\x1f\x7f]', lambda m: repr(m.group())[1:-1], text)


def literal(text: object) -> str:
    """text to be shown as written in a DOT label (see shown()): a backslash, or <...> (which DOT reads as HTML),
    mean nothing; a line break is one."""
    lines = [cast(str, graphviz.escape(line)) for line in shown(text).split('\n')]
    return cast(str, graphviz.nohtml('\\n'.join(lines)))


class RendererNotFound(graphviz.ExecutableNotFound):  # type: ignore[misc]  # graphviz has no types
    """Neither Graphviz's `dot` nor graphviz-pure is installed, so a graph can be described but not drawn."""

    def __init__(self) -> None:
        # ExecutableNotFound.__init__ words its message around a command line; this one names the remedies.
        RuntimeError.__init__(
            self,
            'micrograd.viz: no program found to lay out the graph. Either `pip install graphviz-pure` '
            '(part of the viz extra: `pip install -e ".[viz]"` in the clone\'s folder), or install Graphviz from '
            'https://graphviz.org/download/ so that its `dot` command is on PATH. '
            '(`.source` gives the DOT text without either.)')


def _script_dirs() -> list[str]:
    """Where pip puts commands for this Python: not on PATH in a venv used without activating it
    (a Jupyter kernel started from .venv/bin/python), nor always for `pip install --user`."""
    dirs = [sysconfig.get_path('scripts'), sysconfig.get_path('scripts', sysconfig.get_preferred_scheme('user'))]
    return [d for d in dirs if d]


def _find_renderer() -> Path | None:
    """The program that lays out graphs: the system `dot` if on PATH, else graphviz-pure, else None."""
    if shutil.which('dot'):
        return Path('dot')  # exactly what the graphviz package runs by default
    pure = shutil.which('graphviz-pure') or shutil.which('graphviz-pure', path=os.pathsep.join(_script_dirs()))
    return Path(pure).absolute() if pure else None  # absolute: render() runs it from the output folder


def _use_renderer() -> Path:
    """Point the graphviz package at the renderer found, unless the user chose one themselves; returns it.

    The graphviz package runs `graphviz.backend.dot_command.DOT_BINARY` for every render, pipe and
    Jupyter display, so this is the one setting to change. It only ever replaces a `dot` that is
    not there (which would fail anyway), so other graphviz users in the same process only gain.
    """
    current = Path(dot_command.DOT_BINARY)
    if current != Path('dot') and current.stem != 'graphviz-pure':
        return current  # set by the user: respect it
    renderer = _find_renderer()
    if renderer is None:
        raise RendererNotFound()
    dot_command.DOT_BINARY = renderer
    return renderer


@functools.cache
def renderer_formats(renderer: Path) -> tuple[str, ...] | None:
    """The output formats a renderer writes, as it lists them itself (None if it does not say).

    Both Graphviz's `dot` and graphviz-pure answer an unknown format with the list of those they know:
    `Format: "?" not recognized. Use one of: canon dot ... png svg ...`.
    """
    try:
        result = subprocess.run([str(renderer), '-T?'], capture_output=True, text=True, timeout=30,
                                stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    listed = re.search(r'Use one of:(.*)', result.stderr + result.stdout, re.DOTALL)
    return tuple(listed.group(1).split()) if listed else None


def _check_format(renderer: Path, format: str) -> None:
    """Refuse, before anything is run or written, a format the renderer in use cannot write."""
    formats = renderer_formats(renderer)
    wanted = format.split(':')[0].lower()  # 'png:cairo' is png through cairo
    if formats is None or wanted in formats:
        return
    hint = (' For PDF, install Graphviz (https://graphviz.org/download/) so that its `dot` is on PATH, '
            'or write SVG and convert it.') if wanted == 'pdf' else ''
    raise ValueError(f'micrograd.viz: {renderer.name}, the program that lays out graphs here, cannot write '
                     f'{wanted!r}; it writes {", ".join(formats)}.{hint}')


def _format_of(graph: graphviz.Digraph, format: str | None, outfile: str | os.PathLike[str] | None) -> str:
    """The format a render or pipe asks for, found as the graphviz package finds it."""
    if format:
        return format
    if outfile is not None and Path(outfile).suffix:
        return Path(outfile).suffix[1:]  # render(outfile='f.pdf') writes pdf
    return str(graph.format)


class Digraph(graphviz.Digraph):  # type: ignore[misc]  # graphviz has no types
    """A graphviz.Digraph that finds its renderer when it draws, checks the format first, and shows
    in a notebook scaled to fit the page.

    Jupyter display, .pipe() and .render() all go through pipe or render, so those are the two
    places that find the renderer. description: what the picture shows, for readers who cannot see it.
    """

    def __init__(self, description: str, values: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.description = description
        self.values = values  # how many Values the graph has

    def pipe(self, format: str | None = None, *args: Any, **kwargs: Any) -> bytes | str:
        _check_format(_use_renderer(), _format_of(self, format, None))
        output: bytes | str = super().pipe(format, *args, **kwargs)
        return output

    def render(self, *args: Any, **kwargs: Any) -> str:
        # format is render's fifth parameter (positional use of it is deprecated in graphviz)
        format = kwargs.get('format') or (args[4] if len(args) > 4 else None)
        _check_format(_use_renderer(), _format_of(self, format, kwargs.get('outfile')))
        path: str = super().render(*args, **kwargs)
        return path

    def _repr_image_svg_xml(self) -> str:
        """The SVG a notebook shows: scaled down to the width of the page when wider (never cut off),
        with its description as the title that screen readers and tooltips give."""
        return fit_to_page(self.svg(), self.description)

    def svg(self) -> str:
        """The picture as SVG text."""
        return cast(str, self.pipe(format='svg', encoding='utf-8'))  # text, since an encoding is given

    def png(self) -> bytes:
        """The picture as PNG bytes."""
        return cast(bytes, self.pipe(format='png'))

    def __repr__(self) -> str:  # no memory address: notebook outputs stay the same from run to run
        return f'<micrograd graph: {self.values} Values>'


def fit_to_page(svg: str, description: str) -> str:
    """Graphviz's SVG, shown at its own size where it fits and scaled down, keeping its shape, where not.

    max-width: 100% caps the width at the page's; height: auto then follows the viewBox's proportions.
    """
    start = re.search(r'<svg\b[^>]*>', svg)
    if start is None:
        return svg
    title = html.escape(description)
    fitted = f'<svg style="max-width: 100%; height: auto" role="img" aria-label="{title}"'
    tag = start.group().replace('<svg', fitted, 1)
    return f'{svg[:start.start()]}{tag}\n<title>{title}</title>{svg[start.end():]}'
