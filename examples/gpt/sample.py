"""Make up text with a saved GPT, without training it again, and look inside it.

    python examples/gpt/sample.py build/gpt-names.npz --n 20 --temperature 0.5 --seed 0
    python examples/gpt/sample.py --data cities.txt       # the model trained on cities.txt
    python examples/gpt/sample.py --show emma             # the names model, build/gpt-names.npz
    make sample                                           # the same; make sample DATA=cities.txt, MODEL=file.npz

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


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line, every option checked: a bad one exits with one line on stderr, before any work."""
    p = cli.OptionParser(prog='sample.py', description="Make up text with a GPT saved by tensor_gpt.py or "
                         "scalar_gpt.py, and look inside it.")
    p.add_argument('model', nargs='?', type=cli.existing_file, metavar='FILE.npz',
                   help=f"the saved model (default: {cli.model_path('gpt', None)}, the census names model; "
                        "with --data FILE: the model make gpt DATA=FILE saved)")
    p.add_argument('--data', metavar='FILE', help="sample the model trained on FILE: build/gpt-NAME.npz, named "
                   "after FILE as tensor_gpt.py names it (the file itself is not read)")
    p.add_argument('--n', type=cli.whole(0, cli.MAX_SAMPLES), default=20,
                   help=f"how many samples, at most {cli.MAX_SAMPLES} (default: 20)")
    p.add_argument('--temperature', type=cli.positive_float, default=0.5, metavar='T',
                   help="below 1: safer samples, above 1: wilder, near 0: always the likeliest token (default: 0.5)")
    p.add_argument('--seed', type=cli.whole(0), default=42, help="the sampling seed, a whole number >= 0 "
                   "(default: 42, training's)")
    p.add_argument('--engine', choices=('tensor', 'scalar'), default='tensor',
                   help="run the model on micrograd.tensor (default) or on scalar Values")
    p.add_argument('--show', metavar='WORD', type=cli.word, help="draw the attention of each head at each "
                   "position of WORD and print the next-token probabilities (PNGs beside the model file)")
    args = p.parse_args(argv)
    if args.model is not None and args.data is not None:
        p.error(f"argument --data: give the model file ({args.model}) or --data, not both")
    if args.data is not None and not args.data:
        p.error("argument --data: needs a file name, got ''")
    if args.model is None:
        args.model = cli.model_path('gpt', args.data)
        if not Path(args.model).is_file():
            p.error(f"argument --data: no model trained on {args.data}: {args.model} does not exist (train it "
                    f"first: make gpt DATA={args.data})" if args.data else
                    f"no model at {args.model}: train one first (make gpt), or name one (sample.py FILE.npz)")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    with cli.errors_reported('sample.py'):
        try:
            ck = checkpoint.load(args.model)
        except checkpoint.CheckpointError as e:
            raise cli.UsageError(f"argument FILE.npz: {e}") from None
        tokenizer = Tokenizer(chars=ck.chars)
        split = ck.config['split']
        if args.show is not None:
            cli.check_word(args.show, tokenizer, ck.config['block_size'])
        settings = ', '.join(f"{key}={ck.config[key]}" for key in ('n_embd', 'n_head', 'n_layer', 'block_size'))
        print(f"sampling {args.model}: a GPT ({settings}) trained {ck.step} steps by the "
              f"{ck.training.get('engine')} engine on {ck.training.get('data') or cli.NAMES} ({split}), {tokenizer}")
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
