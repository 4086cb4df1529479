"""Make up text with a saved GPT, without training it again, and look inside it.

    python examples/gpt/sample.py build/gpt-names.npz --n 20 --temperature 0.5 --seed 0
    python examples/gpt/sample.py --data cities.txt       # the model trained on cities.txt
    python examples/gpt/sample.py --show emma             # the names model, build/gpt-names.npz
    make sample                                           # the same; make sample DATA=cities.txt, MODEL=file.npz

The file is what tensor_gpt.py or scalar_gpt.py saved: weights, vocabulary and config (see
checkpoint.py). Either engine can run either engine's file: --engine scalar samples one
document at a time on Values, as microgpt does. With the seed training used (the
default) and --n 20, the tensor engine makes up the very names training printed.
"""
from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import checkpoint
import options
from data import NAMES, Tokenizer
from look_inside import check_word, print_samples, show
from plan import model_path


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line, every option checked: a bad one exits with one line on stderr, before any work."""
    p = options.parser('sample', "Make up text with a GPT saved by tensor_gpt.py or scalar_gpt.py, and look "
                       "inside it.")
    args = options.parse(p, 'sample', argv)
    if args.model is not None and args.trained_on is not None:
        p.error(f"argument --data: give the model file ({args.model}) or --data, not both")
    if args.trained_on is not None and not args.trained_on:
        p.error("argument --data: needs a file name, got ''")
    if args.model is None:
        args.model = model_path('gpt', args.trained_on)
        if not Path(args.model).is_file():
            p.error(f"argument --data: no model trained on {args.trained_on}: {args.model} does not exist (train "
                    f"it first: make gpt DATA={args.trained_on})" if args.trained_on else
                    f"no model at {args.model}: train one first (make gpt), or name one (sample.py FILE.npz)")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    with options.errors_reported('sample.py'):
        try:
            ck = checkpoint.load(args.model)
        except checkpoint.CheckpointError as e:
            raise options.UsageError(f"argument FILE.npz: {e}") from None
        tokenizer = Tokenizer(chars=ck.chars)
        split = ck.config['split']
        if args.show is not None:
            check_word(args.show, tokenizer, ck.config['block_size'])
        settings = ', '.join(f"{key}={ck.config[key]}" for key in ('n_embd', 'n_head', 'n_layer', 'block_size'))
        print(f"sampling {args.model}: a GPT ({settings}) trained {ck.step} steps by the "
              f"{ck.training.get('engine')} engine on {ck.training.get('data') or NAMES} ({split}), {tokenizer}")
        if args.engine == 'tensor':
            import tensor_gpt as gpt
        else:
            import scalar_gpt as gpt  # type: ignore[no-redef]
        model = gpt.from_checkpoint(ck)
        samples = gpt.make_up(model, args.samples, tokenizer.bos, args.seed, args.temperature)  # type: ignore[arg-type]
        kind = 'names' if ck.training.get('data') is None and split == 'lines' else split
        print_samples([tokenizer.decode(ids) for ids in samples], kind, args.temperature)
        if args.show:
            show(args.show, tokenizer, split, ck.config['block_size'], model.look_inside, Path(args.model))


if __name__ == '__main__':
    main()
