"""The GIF writer: frames with their captions beneath, as one animated image for slides and READMEs."""
from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ['write_gif']

TEXT_COLOR = (34, 34, 34)
MARGIN, LINE_HEIGHT, FONT_SIZE = 16, 22, 15  # pixels


def write_gif(path: Path, pngs: Sequence[bytes], captions: Sequence[Sequence[str]], seconds_per_frame: float) -> None:
    """An animated GIF of the pictures (PNG bytes), each with the lines of its caption beneath, all the same size.

    The last frame stays twice as long, so the finished gradients linger before the animation starts over.
    """
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as e:
        raise ImportError('writing a GIF takes Pillow: pip install pillow '
                          '(or, in the clone\'s folder, pip install -e ".[viz]")') from e
    pictures = [Image.open(io.BytesIO(png)).convert('RGB') for png in pngs]
    try:  # a monospaced font with an arrow, as on most systems; Pillow's own font has no arrow
        font: Any = ImageFont.truetype('DejaVuSansMono.ttf', FONT_SIZE)
    except OSError:
        font = ImageFont.load_default(size=FONT_SIZE)
        captions = [[line.replace('→', '->') for line in lines] for lines in captions]
    width = max(p.width for p in pictures) + 2 * MARGIN
    wrapped = [_wrap(lines, font, width - 2 * MARGIN) for lines in captions]
    top = max(p.height for p in pictures) + 2 * MARGIN
    height = top + max(len(lines) for lines in wrapped) * LINE_HEIGHT + MARGIN
    images = []
    for picture, lines in zip(pictures, wrapped):
        canvas = Image.new('RGB', (width, height), 'white')
        canvas.paste(picture, ((width - picture.width) // 2, MARGIN))
        draw = ImageDraw.Draw(canvas)
        for i, line in enumerate(lines):
            draw.text((MARGIN, top + i * LINE_HEIGHT), line, fill=TEXT_COLOR, font=font)
        images.append(canvas.convert('P', palette=Image.Palette.ADAPTIVE, colors=64))
    milliseconds = [round(1000 * seconds_per_frame)] * len(images)
    milliseconds[-1] *= 2
    images[0].save(path, save_all=True, append_images=images[1:], duration=milliseconds, loop=0, optimize=True)


def _wrap(lines: Sequence[str], font: Any, width: float) -> list[str]:
    """Lines broken at spaces so that each fits in width pixels; a continued line is indented."""
    wrapped = []
    for line in lines:
        current = ''
        for word in line.split(' '):
            candidate = f'{current} {word}' if current else word
            if current and font.getlength(candidate) > width:
                wrapped.append(current)
                candidate = '    ' + word
            current = candidate
        wrapped.append(current)
    return wrapped
