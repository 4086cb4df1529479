"""Make up text with a saved GPT, without training it again, and look inside it.

    python examples/gpt/sample.py build/gpt.npz --n 20 --temperature 0.5 --seed 0
    python examples/gpt/sample.py build/gpt.npz --show emma
    make sample                                   # the same, on build/gpt.npz

The file is what tensor_gpt.py or scalar_gpt.py saved: weights, vocabulary and config (see
checkpoint.py). Either engine can run either engine's file: --engine scalar samples one
document at a time on Values, as microgpt does. With the seed training used (42, the
default) and --n 20, the tensor engine makes up the very names training printed.
"""
from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from pathlib import Path

import checkpoint
import cli
import numpy as np
from data import Tokenizer


def main(argv: Sequence[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog='sample.py', description="Make up text with a GPT saved by tensor_gpt.py or "
                                "scalar_gpt.py, and look inside it.")
    p.add_argument('model', nargs='?', default='build/gpt.npz', metavar='FILE.npz',
                   help="the saved model (default: build/gpt.npz)")
    p.add_argument('--n', type=int, default=20, help="how many samples (default: 20)")
    p.add_argument('--temperature', type=cli.positive_float, default=0.5, metavar='T',
                   help="below 1: safer samples, above 1: wilder (default: 0.5)")
    p.add_argument('--seed', type=int, default=42, help="the sampling seed (default: 42, training's)")
    p.add_argument('--engine', choices=('tensor', 'scalar'), default='tensor',
                   help="run the model on micrograd.tensor (default) or on scalar Values")
    p.add_argument('--show', metavar='WORD', help="draw the attention of each head at each position of WORD and "
                   "print the next-token probabilities (PNGs beside the model file)")
    args = p.parse_args(argv)
    if args.n < 0:
        p.error(f"--n must be >= 0, got {args.n}")
    with cli.errors_reported(p.prog):
        ck = checkpoint.load(args.model)
        tokenizer = Tokenizer(chars=ck.chars)
        split = ck.config['split']
        settings = ', '.join(f"{key}={ck.config[key]}" for key in ('n_embd', 'n_head', 'n_layer', 'block_size'))
        print(f"{args.model}: a GPT ({settings}) trained {ck.step} steps by the {ck.training.get('engine')} engine "
              f"on {ck.training.get('data') or cli.NAMES} ({split}), {tokenizer}")
        if args.engine == 'tensor':
            import tensor_gpt
            model = tensor_gpt.from_checkpoint(ck)
            samples = [tokenizer.decode(ids) for ids in
                       model.sample(args.n, tokenizer.bos, np.random.default_rng(args.seed), args.temperature)]
        else:
            import scalar_gpt
            model = scalar_gpt.from_checkpoint(ck)
            rng = random.Random(args.seed)
            samples = [tokenizer.decode(model.sample(tokenizer.bos, rng, args.temperature)) for _ in range(args.n)]
        kind = 'names' if ck.training.get('data') is None and split == 'lines' else split
        cli.print_samples(samples, kind, args.temperature)
        if args.show:
            cli.show(args.show, tokenizer, split, ck.config['block_size'], model.look_inside, Path(args.model))


if __name__ == '__main__':
    main()
