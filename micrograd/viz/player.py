"""The player: frames and their captions as one self-contained piece of HTML that steps through them.

The page holds every frame as an image (a data: URL) and player.js, which this package ships beside
this file; nothing is fetched from anywhere. Styles are attributes on the elements, not a stylesheet:
JupyterLab strips <style> and <script> from notebooks it does not trust but keeps these elements and
attributes, so there the frames still stand one under the other, each with its caption.
"""
from __future__ import annotations

import base64
import html
import itertools
import json
import re
from collections.abc import Sequence
from importlib import resources

from micrograd.viz.drawing import HIGHLIGHT, TEXT_POINTS

__all__ = ['player_html', 'page_html', 'FIT_LEAST_SCALE']

# A drawing wider than the player opens scaled down to its width when the boxes' text stays at least 9 pixels
# high: in Chromium at 1280 pixels the lecture's neuron, fitted, shows its boxes' text at 9.7 pixels, every
# digit and minus sign clear; at 8.3 pixels the digits still read but the ops' names (a point smaller) blur.
READABLE_PX = 9
FIT_LEAST_SCALE = READABLE_PX / (TEXT_POINTS * 96 / 72)  # 0.61: a point is 96/72 CSS pixels at 1:1

_player_numbers = itertools.count()  # ids unique on a page, and the same each time a notebook is run


def player_html(svgs: Sequence[str], captions: Sequence[Sequence[str]], descriptions: Sequence[str]) -> str:
    """HTML that shows svgs[i] above the lines of captions[i], one frame at a time once player.js runs.

    descriptions[i]: frame i in words, the alt text of its picture.

    A drawing wider than the player is shown in one of two ways, picked with two buttons beside the
    others: 'fit width', the whole drawing scaled down to the player's width, or '1:1', at its own size
    (its boxes' text TEXT_POINTS, as Graphviz sets it), panned at every step so that what the step
    highlights (the node, its op and the parents its gradient flows to) is in view, and dragged sideways
    with the mouse. Until the reader picks, it fits when the boxes' text stays readable, at least
    READABLE_PX high (a scale of FIT_LEAST_SCALE): at 1280 pixels f = (a*b + c)**2 and the lecture's tanh
    neuron are shown whole; at 800 pixels, where the neuron's text would be under 6 pixels, at 1:1. A
    drawing that fits at its own size is never enlarged and shows no buttons.
    """
    player_id = f'micrograd-backward-{next(_player_numbers)}'
    figures = []
    for i, (svg, lines, description) in enumerate(zip(svgs, captions, descriptions)):
        text = ''.join(f'<div>{_count_apart(html.escape(line)) if j == 0 else html.escape(line)}</div>'
                       for j, line in enumerate(lines))
        span = _highlighted_span(svg)
        focus = f' data-focus="{span[0]:.4f} {span[1]:.4f}"' if span else ''
        figures.append(
            f'<figure class="mg-frame" data-frame="{i}"{focus} style="margin: 0 0 14px 0; min-width: 0">\n'
            f'{_svg_image(svg, description)}\n'
            f'<figcaption style="font: 13px/1.5 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; '
            f'color: #222; margin-top: 4px">{text}</figcaption>\n</figure>')
    script = resources.files('micrograd.viz').joinpath('player.js').read_text(encoding='utf-8')
    return f"""<div id="{player_id}" class="micrograd-backward" tabindex="0" style="outline: none"
 data-fit-least-scale="{FIT_LEAST_SCALE:.4f}">
<div class="mg-controls" hidden
 style="display: none; flex-wrap: wrap; gap: 8px; align-items: center; margin: 4px 0 8px; font: 13px sans-serif">
<button type="button" data-go="prev">&#9664; previous</button>
<button type="button" data-go="play">&#9654; play</button>
<button type="button" data-go="next">next &#9654;</button>
<input type="range" min="0" max="{len(figures) - 1}" value="0" step="1" aria-label="step"
 style="flex: 1; max-width: 360px">
<span class="mg-counter" style="font: 13px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace"></span>
<span class="mg-zoom" role="group" aria-label="zoom" style="display: none">
<button type="button" data-zoom="fit" aria-pressed="false" title="the whole drawing, scaled down">fit width</button>
<button type="button" data-zoom="1:1" aria-pressed="false" title="at its own size, panned to each step">1:1</button>
</span>
<span class="mg-hint" hidden style="color: #666">wider than the page: drag the drawing sideways</span>
</div>
<div class="mg-frames">
{chr(10).join(figures)}
</div>
<script>
(function () {{
{script}
startPlayer(document.getElementById({json.dumps(player_id)}));
}})();
</script>
</div>"""


def _highlighted_span(svg: str) -> tuple[float, float] | None:
    """Where a frame's highlighted shapes lie across its drawing, from its left edge (0) to its right (1),
    read from Graphviz's SVG: the x coordinates of every outline, arrow and oval drawn in HIGHLIGHT."""
    view = re.search(r'viewBox="[-\d.]+ [-\d.]+ ([\d.]+) [\d.]+"', svg)
    shift = re.search(r'<g\b[^>]*transform="[^"]*translate\((-?[\d.]+)[ ,]', svg)
    if not view or not shift or not float(view.group(1)):
        return None
    xs: list[float] = []
    for shape in re.finditer(rf'<(polygon|polyline|path|ellipse)\b[^>]*stroke="{HIGHLIGHT}"[^>]*>', svg):
        if shape.group(1) == 'ellipse':
            attributes = dict(re.findall(r' (\w+)="([^"]*)"', shape.group()))
            cx, rx = float(attributes['cx']), float(attributes['rx'])
            xs += [cx - rx, cx + rx]
        else:
            xs += [float(x) for x in re.findall(r'(-?[\d.]+),-?[\d.]+', shape.group())]
    if not xs:
        return None
    width, left = float(view.group(1)), float(shift.group(1))
    return max(0.0, (min(xs) + left) / width), min(1.0, (max(xs) + left) / width)


def _count_apart(line: str) -> str:
    """A caption's step count ('step 2/3 · ...') in a span of its own: once the script runs, the count shows
    beside the buttons instead, so that the player shows one count."""
    return re.sub(r'^(step \d+/\d+) · ', r'<span class="mg-count">\1 · </span>', line)


def page_html(title: str, body: str) -> str:
    """A standalone HTML page around body, for saving a player to a file."""
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>{html.escape(title)}</title>\n'
            f'</head>\n<body style="margin: 16px">\n{body}\n</body>\n</html>\n')


def _svg_image(svg: str, description: str) -> str:
    """An SVG drawing as an image inside the page itself (a data: URL), drawn at its own size, so that its
    text is as large as Graphviz set it (TEXT_POINTS), in a box that scrolls sideways when the drawing is wider
    than the page. player.js may scale it down to fit instead (see player_html); without the script, in a
    notebook JupyterLab does not trust, it stays at its own size.

    An <img> rather than an inline <svg>: JupyterLab strips <svg> elements from the outputs of notebooks
    it does not trust, but keeps images, so the frames still show there.
    """
    # Comments, titles (tooltips, which an <img> never shows) and ids are a tenth of Graphviz's SVG.
    svg = re.sub(r'<!--.*?-->\n|<title>.*?</title>\n| id="[^"]*"', '', svg, flags=re.DOTALL)
    data = base64.b64encode(svg.encode('utf-8')).decode('ascii')
    return (f'<div class="mg-drawing" style="overflow-x: auto; max-width: 100%">'
            f'<img src="data:image/svg+xml;base64,{data}" alt="{html.escape(description)}" draggable="false" '
            f'style="display: block; max-width: none; height: auto"></div>')
