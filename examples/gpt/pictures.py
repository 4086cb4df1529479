"""The look inside, as pictures: attention maps, next-token probabilities, the loss curve.

Each function returns a matplotlib Figure (made without pyplot, so nothing opens a window and
no global state is touched); `save(figure, path)` writes it as a PNG.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

try:
    from matplotlib import colormaps
    from matplotlib.figure import Figure
except ImportError:  # pragma: no cover - the gpt extra installs it
    raise ImportError("the GPT's pictures need matplotlib: pip install matplotlib "
                      "(or, in the clone's folder, pip install -e '.[gpt]')") from None


def attention_figure(maps: np.ndarray, labels: Sequence[str], title: str = '') -> Figure:
    """One heatmap per head (columns) and layer (rows): row t is how much position t attends to
    each position s <= t; the later positions, which t cannot see, are grey. maps has shape
    (n_layer, n_head, T, T); labels names the T positions."""
    n_layer, n_head, T, _ = maps.shape
    size = 1.1 + 0.28 * T  # inches per map: room for T characters on each axis
    fig = Figure(figsize=(size * n_head + 0.9, size * n_layer + 0.7), layout='constrained')
    axes = fig.subplots(n_layer, n_head, squeeze=False)
    cmap = colormaps['Blues'].with_extremes(bad='0.88')
    image: Any = None
    for layer in range(n_layer):
        for head in range(n_head):
            ax = axes[layer][head]
            weights = maps[layer, head]
            future = np.triu(np.ones((T, T), dtype=bool), k=1)  # positions t cannot see: grey, not "weight 0"
            image = ax.imshow(np.ma.masked_array(weights, future), cmap=cmap, vmin=0.0, vmax=1.0)
            ax.set_xticks(range(T), labels, fontsize=9)
            ax.set_yticks(range(T), labels, fontsize=9)
            ax.tick_params(length=0)
            ax.set_title(f"layer {layer}, head {head}", fontsize=10)
            if layer == n_layer - 1:
                ax.set_xlabel("attends to")
            if head == 0:
                ax.set_ylabel("reading")
            if T <= 10:  # few enough cells to print each weight in its cell (leaving out the ones below .01)
                for t in range(T):
                    for s in range(t + 1):
                        text = f"{weights[t, s]:.2f}"
                        if text != '0.00':
                            ax.text(s, t, '1' if text == '1.00' else text[1:], ha='center', va='center', fontsize=7,
                                    color='white' if weights[t, s] > 0.6 else 'black')
    fig.colorbar(image, ax=axes, shrink=0.6, label="attention weight")
    if title:
        fig.suptitle(title)
    return fig


def next_token_figure(probs: np.ndarray, labels: Sequence[str], vocab: Sequence[str],
                      targets: Sequence[int | None], title: str = '', max_columns: int = 40) -> Figure:
    """probs (T, vocab_size): at each position, the model's probability of every next token.
    A box marks the token that does come next (targets[t], None where nothing does).

    A vocabulary of more than max_columns tokens is narrowed to the ones that matter here:
    those with probability 0.01 or more somewhere, and the boxed ones.
    """
    T, V = probs.shape
    note = ''
    if V > max_columns:
        keep = sorted(set(np.flatnonzero((probs >= 0.01).any(axis=0)).tolist()) | {t for t in targets if t is not None})
        note = f" ({len(keep)} of {V} tokens: the others stay below 0.01)"
        position = {token: column for column, token in enumerate(keep)}
        probs, vocab = probs[:, keep], [vocab[i] for i in keep]
        targets = [None if t is None else position[t] for t in targets]
        T, V = probs.shape
    fig = Figure(figsize=(1.5 + 0.26 * V, 1.2 + 0.32 * T), layout='constrained')
    ax = fig.subplots()
    image = ax.imshow(probs, cmap='Greens', vmin=0.0, vmax=max(float(probs.max()), 1e-9), aspect='auto')
    ax.set_xticks(range(V), vocab, fontsize=9)
    ax.set_yticks(range(T), labels, fontsize=9)
    ax.tick_params(length=0)
    ax.set_xlabel("next token")
    ax.set_ylabel("reading")
    for t, target in enumerate(targets):
        if target is not None:
            ax.add_patch(_box(target, t))
    fig.colorbar(image, ax=ax, label="probability", shrink=0.8)
    ax.set_title((title or "next-token probabilities (box: what comes next)") + note, fontsize=10)
    return fig


def _box(x: int, y: int) -> Any:
    from matplotlib.patches import Rectangle
    return Rectangle((x - 0.5, y - 0.5), 1, 1, fill=False, edgecolor='crimson', linewidth=1.5)


def loss_figure(losses: Sequence[float], uniform: float, bigram: float, val_loss: float | None = None,
                resumed_at: Sequence[int] = (), title: str = '', val_points: Sequence[tuple[int, float]] = (),
                kept_step: int | None = None) -> Figure:
    """The training loss of every step (faint), its running mean over 50 steps, and the two
    baselines as lines: a uniform guess (log vocab_size) and the bigram model. The validation
    loss measured during training (val_points: (step, loss)) is drawn as points joined by a line,
    the step whose model was kept is ringed; without points, val_loss is one dot at the end.
    Dotted verticals mark where training was resumed from a saved file. The y-axis reaches
    every point drawn: a validation loss far above the training loss (overfitting) stays in view."""
    losses = np.asarray(losses, dtype=np.float64)
    steps = np.arange(1, len(losses) + 1)
    fig = Figure(figsize=(7.5, 4.2), layout='constrained')
    ax = fig.subplots()
    ax.plot(steps, losses, color='tab:blue', alpha=0.25, linewidth=0.8, label="training loss (each step)")
    window = min(50, len(losses))
    if window > 1:
        running = np.convolve(losses, np.ones(window) / window, mode='valid')
        ax.plot(steps[window - 1:], running, color='tab:blue', linewidth=2, label=f"mean of the last {window} steps")
    ax.axhline(uniform, color='tab:gray', linestyle='--', label=f"uniform guess: {uniform:.3f}")
    ax.axhline(bigram, color='tab:orange', linestyle='--', label=f"bigram baseline (validation): {bigram:.3f}")
    shown = [float(v) for _, v in val_points if np.isfinite(v)]
    if val_points:
        ax.plot([s for s, _ in val_points], [v for _, v in val_points], color='tab:red', marker='o', markersize=3.5,
                linewidth=1, label="validation loss")
        kept = [(s, v) for s, v in val_points if s == kept_step]
        if kept:
            ax.plot([kept[0][0]], [kept[0][1]], marker='o', markersize=11, markerfacecolor='none',
                    markeredgecolor='black', linestyle='none', label=f"kept: step {kept[0][0]}, {kept[0][1]:.3f}")
    elif val_loss is not None:
        ax.plot([len(losses)], [val_loss], marker='o', color='tab:red', linestyle='none',
                label=f"validation loss at the end: {val_loss:.3f}")
        shown += [val_loss] if np.isfinite(val_loss) else []
    for i, step in enumerate(resumed_at):
        ax.axvline(step + 0.5, color='black', linestyle=':', linewidth=1, label="resumed" if i == 0 else None)
    finite = losses[np.isfinite(losses)]
    top = max([uniform, bigram, *shown] + ([float(np.percentile(finite, 99))] if len(finite) else []))
    ax.set_ylim(0, top * 1.08)
    last = max([len(losses)] + [s for s, _ in val_points])
    ax.set_xlim(0, max(last, 1) * 1.03 + 1)
    ax.set_xlabel("step")
    ax.set_ylabel("cross-entropy per token")
    ax.set_title(title or "training loss and its baselines", fontsize=10)
    ax.legend(fontsize=8, loc='best')  # where it hides the fewest points
    ax.grid(alpha=0.3)
    return fig


def save(figure: Figure, path: str | Path) -> Path:
    """Write the figure as a PNG (making the folder if needed); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    return path
