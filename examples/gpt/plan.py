"""What a training run will do, and where its files go: a new model, or a saved one to resume.

plan(args, ...) turns the options into a Plan: the model's config, the settings the model's file
keeps (each option of options.py with `saved_as`), the step to start from and the file to write.
With --resume, the file's config and settings come back, and an option that contradicts the file
is refused. Plan.save writes the file (checkpoint.py's format).
"""
from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import checkpoint
import numpy as np
from checkpoint import MODEL_KEYS, Checkpoint, CheckpointError
from data import Tokenizer
from options import MODEL_OPTIONS, OPTIONS, UsageError, check_together, settings


def model_path(prefix: str, data: str | None) -> str:
    """Where a model is saved unless --out says otherwise: named after its data, so that training on
    another text never overwrites the names model. build/gpt-names.npz for the census names,
    build/gpt-cities.npz for cities.txt (a file called names.txt: build/gpt-names_txt.npz)."""
    if data is None:
        name = 'names'
    else:
        name = _safe(Path(data).stem) or 'data'
        if name == 'names':  # the census names' model keeps its name
            name = _safe(Path(data).name)
    return f"build/{prefix}-{name}.npz"


def picture_path(model_path: Path, what: str) -> Path:
    """build/gpt.npz -> build/gpt-loss.png, build/gpt-attention-emma.png, ..."""
    return model_path.with_name(f"{model_path.stem}-{_safe(what)}.png")


def _safe(text: str) -> str:
    """text with every character but letters, digits, '-' and '_' replaced by '_' (a file name part)."""
    return ''.join(ch if ch.isalnum() or ch in '-_' else '_' for ch in text)


@dataclass
class Plan:
    """What a training run will do: the model's config, the settings, and the steps from start_step
    to settings['steps']. settings holds every option the model's file keeps (options.py's rows
    with saved_as: data, split, steps, batch_size, lr, seed)."""
    engine: str
    config: dict[str, int]
    settings: dict[str, Any]
    out: Path
    checkpoint: Checkpoint | None = None
    start_step: int = 0
    losses: list[float] = field(default_factory=list)  # of the steps before start_step
    resumed_at: list[int] = field(default_factory=list)
    val_points: list[tuple[int, float]] = field(default_factory=list)  # (step, validation loss) before start_step

    @property
    def num_steps(self) -> int:
        return int(self.settings['steps'])

    @property
    def batch_size(self) -> int:
        return int(self.settings.get('batch_size', 1))  # the scalar engine reads one document per step

    @property
    def data(self) -> str | None:
        return self.settings.get('data')

    @property
    def split(self) -> str:
        return str(self.settings['split'])

    def training(self, step: int, losses: Sequence[float],
                 val_points: Sequence[tuple[int, float]] = ()) -> dict[str, Any]:
        """The 'training' record of a file saved after `step` steps."""
        record = {'engine': self.engine, 'step': step, 'batch_size': self.batch_size}
        for option in OPTIONS:
            if option.saved_as and option.name in self.settings:
                record[option.saved_as] = self.settings[option.name]
        data = self.data
        if data is not None and Path(data).is_file():  # found again from anywhere (a pipe is kept as named)
            record['data'] = str(Path(data).resolve())
        return record | {'resumed_at': self.resumed_at,
                         'val_losses': [[s, v] for s, v in val_points if s <= step]}  # (step, validation loss)

    def save(self, tokenizer: Tokenizer, step: int, losses: Sequence[float], weights: dict[str, np.ndarray],
             adam_m: dict[str, np.ndarray], adam_v: dict[str, np.ndarray], adam_t: int,
             val_points: Sequence[tuple[int, float]] = ()) -> Path:
        """Write the model, its tokenizer, config, losses and Adam's state to the plan's --out file."""
        config = dict(self.config, vocab_size=tokenizer.vocab_size, split=self.split)
        ck = Checkpoint({key: config[key] for key in MODEL_KEYS + ('split',)}, tokenizer.chars, weights,
                        self.training(step, losses, val_points), np.asarray(losses, dtype=np.float64),
                        adam_m, adam_v, adam_t)
        checkpoint.save(self.out, ck)
        return self.out


def plan(args: argparse.Namespace, engine: str, prefix: str) -> Plan:
    """The run the options ask for; with --resume, the saved file's config, data and settings (each
    unless given again), refusing options that contradict the file. Then, on either path, the checks
    of options taken together (options.TOGETHER) on the run's values."""
    if args.resume is None:
        run = Plan(engine, {name: getattr(args, name) for name in MODEL_OPTIONS},
                   {name: getattr(args, name) for name in settings(engine)},
                   out=Path(args.out or model_path(prefix, args.data)))
    else:
        run = resumed(args, engine)
    check_together({**run.config, **run.settings, 'show': getattr(args, 'show', None)}, engine)
    return run


def resumed(args: argparse.Namespace, engine: str) -> Plan:
    """The run --resume asks for: the saved file's config, data and settings, each unless given again."""
    kept = list(settings(engine))
    asked = {name: getattr(args, name) for name in MODEL_OPTIONS + ['split']}
    try:
        ck = checkpoint.load(args.resume)
        ck.check_config(args.resume, **asked)
    except CheckpointError as e:
        raise UsageError(f"argument --resume: {e}") from None
    trained_by = ck.training.get('engine')
    if trained_by != engine:
        raise UsageError(f"argument --resume: {args.resume} was trained by the {trained_by} engine; resume it with "
                         f"{trained_by}_gpt.py (either engine can sample from it: sample.py --engine {engine})")
    if ck.adam_m is None:
        raise UsageError(f"argument --resume: {args.resume} has no optimizer state (Adam's moments) to resume from")
    saved = dict(ck.training, split=ck.config['split'])
    values = {}
    for option in OPTIONS:
        if option.name in kept:
            given = getattr(args, option.name)
            values[option.name] = given if given is not None else saved.get(option.saved_as or option.name,
                                                                             option.default_for(engine))
    if int(values['steps']) <= ck.step:
        raise UsageError(f"argument --steps: the model in {args.resume} has taken {ck.step} steps already; pass "
                         f"--steps N with N > {ck.step} to train it further")
    saved_points = saved.get('val_losses', [])
    return Plan(engine, {name: ck.config[name] for name in MODEL_OPTIONS}, values, out=Path(args.out or args.resume),
                checkpoint=ck, start_step=ck.step, losses=ck.losses.tolist(),
                resumed_at=list(saved.get('resumed_at', [])) + [ck.step],
                val_points=[(int(s), float(v)) for s, v in saved_points])
