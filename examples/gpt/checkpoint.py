"""One file holds a trained GPT: its weights, its tokenizer, its config, and where training stopped.

The file is an .npz (NumPy's zip of arrays), written with np.savez and read back with
allow_pickle=False, so loading one runs no code from it. It holds:

    format, version     'micrograd-gpt' and 1: what the file is, and which layout of it
    config              JSON text: vocab_size, n_embd, n_head, n_layer, block_size, and split
                        ('lines' or 'blocks': how the training text was cut into documents)
    vocab               the characters, one per entry, in token-id order (BOS is the next id)
    weight.<name>       every weight matrix under microgpt's name, in microgpt's layout (nout, nin):
                        wte, wpe, lm_head, layer0.attn_wq, ... as scalar_gpt.GPT.state_dict has them
    training            JSON text: the engine that trained it, the steps done and planned, the batch
                        size, the learning rate, the seed, and the data file
    losses              the training loss of every step done, so that a resumed run continues the curve
    adam.m.<name>, adam.v.<name>, adam.t
                        Adam's running means of each weight's gradient and squared gradient, and its
                        step count: without them a resumed run would restart Adam from zero

Both engines read and write the same file: either can sample from a model the other trained.
Anything else is refused with a CheckpointError saying what is wrong: a file that is not an
.npz or was cut short, an .npz of something else, another version, a weight of the wrong shape
or with NaNs, a vocabulary that does not match the config.
"""
from __future__ import annotations

import json
import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from data import SPLITS  # data.py sits beside this file

FORMAT, VERSION = 'micrograd-gpt', 1
MODEL_KEYS = ('vocab_size', 'n_embd', 'n_head', 'n_layer', 'block_size')


class CheckpointError(ValueError):
    """A file that is not a GPT this code can load; the message says what is wrong with it."""


def weight_shapes(config: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """microgpt's weight matrices for a config, name -> (nout, nin), in microgpt's order."""
    V, C, T = config['vocab_size'], config['n_embd'], config['block_size']
    shapes = {'wte': (V, C), 'wpe': (T, C), 'lm_head': (V, C)}
    for i in range(config['n_layer']):
        for name in ('attn_wq', 'attn_wk', 'attn_wv', 'attn_wo'):
            shapes[f'layer{i}.{name}'] = (C, C)
        shapes[f'layer{i}.mlp_fc1'] = (4 * C, C)
        shapes[f'layer{i}.mlp_fc2'] = (C, 4 * C)
    return shapes


@dataclass
class Checkpoint:
    """What a GPT file holds. `config` is the model's (MODEL_KEYS) plus 'split'; `weights` and the
    Adam moments are in microgpt's names and layout; `losses` has one entry per step done."""
    config: dict[str, Any]
    chars: list[str]
    weights: dict[str, np.ndarray]
    training: dict[str, Any] = field(default_factory=dict)
    losses: np.ndarray = field(default_factory=lambda: np.zeros(0))
    adam_m: dict[str, np.ndarray] | None = None
    adam_v: dict[str, np.ndarray] | None = None
    adam_t: int = 0

    @property
    def step(self) -> int:
        """How many training steps the weights have taken."""
        return int(self.training.get('step', 0))

    def check_config(self, path: str | Path = 'the file', **wanted: Any) -> None:
        """Refuse a model config (or split) other than the file's: name every setting that differs."""
        differ = [f"{key}={self.config[key]!r} (asked for {value!r})"
                  for key, value in wanted.items() if value is not None and self.config.get(key) != value]
        if differ:
            raise CheckpointError(f"{path} holds a model with another config: {', '.join(differ)}; "
                                  f"leave those options out to use the file's, or train a new model")


def save(path: str | Path, checkpoint: Checkpoint) -> None:
    """Write the checkpoint to path (an .npz), through a temporary file: an interrupted save
    leaves the previous file whole."""
    path = Path(path)
    config, weights = checkpoint.config, checkpoint.weights
    _check_model_config(config, path)
    shapes = weight_shapes(config)
    if set(weights) != set(shapes):
        raise CheckpointError(f"save: the weights {sorted(weights)} are not the config's {sorted(shapes)}")
    arrays: dict[str, np.ndarray] = {
        'format': np.array(FORMAT), 'version': np.array(VERSION),
        'config': np.array(json.dumps(config)), 'vocab': np.array(checkpoint.chars, dtype='U1'),
        'training': np.array(json.dumps(checkpoint.training)),
        'losses': np.asarray(checkpoint.losses, dtype=np.float64),
    }
    for name, w in weights.items():
        arrays[f'weight.{name}'] = np.asarray(w, dtype=np.float64)
    if checkpoint.adam_m is not None and checkpoint.adam_v is not None:
        arrays['adam.t'] = np.array(checkpoint.adam_t)
        for name in shapes:
            arrays[f'adam.m.{name}'] = np.asarray(checkpoint.adam_m[name], dtype=np.float64)
            arrays[f'adam.v.{name}'] = np.asarray(checkpoint.adam_v[name], dtype=np.float64)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + '.partial')
    with open(partial, 'wb') as f:
        np.savez(f, **arrays)
    os.replace(partial, path)


def load(path: str | Path) -> Checkpoint:
    """Read and check a GPT file; a CheckpointError says what is wrong with a file that does not pass."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"{path}: no such file (train one first: make gpt, or tensor_gpt.py --out {path})")
    if path.stat().st_size == 0:
        raise CheckpointError(f"{path} is empty (0 bytes): a save that never finished?")
    with open(path, 'rb') as f:
        start = f.read(6)
    if not start.startswith(b'PK'):  # every zip file, so every .npz, starts with "PK"
        what = 'a single NumPy array (.npy)' if start == b'\x93NUMPY' else f'it starts with {start!r}'
        raise CheckpointError(f"{path} is not a readable .npz file ({what}): not a saved GPT")
    try:
        with np.load(path, allow_pickle=False) as npz:
            arrays = {key: npz[key] for key in npz.files}  # read every array now: a damaged one fails here
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, KeyError) as e:
        reason = str(e) or type(e).__name__
        if 'allow_pickle' in reason:
            raise CheckpointError(f"{path} holds pickled Python objects, which this loader never runs: "
                                  f"not a micrograd GPT file") from None
        raise CheckpointError(f"{path} is not a readable .npz file, or it is damaged or cut short "
                              f"({type(e).__name__}: {reason})") from None
    if 'format' not in arrays:
        held = ', '.join(sorted(arrays)[:8])
        raise CheckpointError(f"{path} is an .npz file but not a micrograd GPT: it has no 'format' entry "
                              f"(it holds {held or 'nothing'})")
    if _text(arrays, 'format', path) != FORMAT:
        raise CheckpointError(f"{path} is a {_text(arrays, 'format', path)!r} file, not a {FORMAT!r} one")
    version = _integer(arrays, 'version', path)
    if version != VERSION:
        raise CheckpointError(f"{path} is in format version {version}; this code reads version {VERSION}")

    config = _json(arrays, 'config', path)
    _check_model_config(config, path)
    vocab = arrays.get('vocab')
    if vocab is None or vocab.dtype.kind != 'U' or vocab.ndim != 1:
        raise CheckpointError(f"{path} is damaged: its vocabulary is not a list of characters")
    chars = [str(ch) for ch in vocab]
    if any(len(ch) != 1 for ch in chars) or len(set(chars)) != len(chars):
        raise CheckpointError(f"{path} is damaged: its vocabulary is not a list of distinct single characters")
    if len(chars) + 1 != config['vocab_size']:
        raise CheckpointError(f"{path} is damaged: {len(chars)} characters + BOS do not make its vocab_size "
                              f"{config['vocab_size']}")

    shapes = weight_shapes(config)
    weights = {name: _matrix(arrays, f'weight.{name}', shape, path) for name, shape in shapes.items()}
    training = _json(arrays, 'training', path)
    losses = arrays.get('losses', np.zeros(0))
    step = training.get('step', 0)
    if not isinstance(step, int) or step < 0 or losses.shape != (step,):
        raise CheckpointError(f"{path} is damaged: {step!r} steps done, but {losses.shape} losses")
    checkpoint = Checkpoint(config, chars, weights, training, losses.astype(np.float64))
    if 'adam.t' in arrays:
        checkpoint.adam_t = _integer(arrays, 'adam.t', path)
        checkpoint.adam_m = {name: _matrix(arrays, f'adam.m.{name}', shape, path) for name, shape in shapes.items()}
        checkpoint.adam_v = {name: _matrix(arrays, f'adam.v.{name}', shape, path) for name, shape in shapes.items()}
    return checkpoint


def _check_model_config(config: object, path: Path) -> None:
    if not isinstance(config, dict):
        raise CheckpointError(f"{path} is damaged: its config is not a JSON object")
    bad = [key for key in MODEL_KEYS if not (isinstance(config.get(key), int) and config[key] > 0)]
    if bad:
        raise CheckpointError(f"{path}: the config needs positive whole numbers for {', '.join(bad)}, "
                              f"got {config}")
    if config['n_embd'] % config['n_head']:
        raise CheckpointError(f"{path}: n_embd={config['n_embd']} does not split into n_head={config['n_head']} "
                              f"heads")
    if config.get('split') not in SPLITS:
        raise CheckpointError(f"{path}: split must be one of {SPLITS}, got {config.get('split')!r}")


def _text(arrays: dict[str, np.ndarray], key: str, path: Path) -> str:
    a = arrays.get(key)
    if a is None or a.dtype.kind != 'U' or a.ndim != 0:
        raise CheckpointError(f"{path} is damaged: {key!r} is missing or is not a text")
    return str(a)


def _integer(arrays: dict[str, np.ndarray], key: str, path: Path) -> int:
    a = arrays.get(key)
    if a is None or a.dtype.kind not in 'iu' or a.ndim != 0:
        raise CheckpointError(f"{path} is damaged: {key!r} is missing or is not a whole number")
    return int(a)


def _json(arrays: dict[str, np.ndarray], key: str, path: Path) -> dict[str, Any]:
    try:
        value = json.loads(_text(arrays, key, path))
    except json.JSONDecodeError as e:
        raise CheckpointError(f"{path} is damaged: {key!r} is not valid JSON ({e})") from None
    if not isinstance(value, dict):
        raise CheckpointError(f"{path} is damaged: {key!r} is not a JSON object")
    return value


def _matrix(arrays: dict[str, np.ndarray], key: str, shape: tuple[int, int], path: Path) -> np.ndarray:
    a = arrays.get(key)
    if a is None:
        raise CheckpointError(f"{path} is damaged or from another model: it has no {key!r}")
    if a.shape != shape:
        raise CheckpointError(f"{path} is damaged or from another model: {key!r} has shape {a.shape}, "
                              f"its config needs {shape}")
    if a.dtype.kind != 'f':
        raise CheckpointError(f"{path} is damaged: {key!r} holds {a.dtype} values, not floating-point numbers")
    if not np.isfinite(a).all():
        raise CheckpointError(f"{path} is damaged: {key!r} has {int((~np.isfinite(a)).sum())} NaN or "
                              f"infinite values (did training diverge?)")
    return a.astype(np.float64)
