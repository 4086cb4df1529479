"""Every workload of the bench, one record each: what run.py measures and tabulates, what compare.py times,
and what the tests expect in the table. A workload is a task of an engine (a method of ScalarEngine or
TensorEngine that takes `steps` and returns timed(...)), asked of our engine and of a peer's, each in a
worker process of its own, in interleaved rounds; its row is our figure over the peer's, and its checks say
whether the two computed the same numbers. Adding one: its task, and its record in workloads() below.
"""
from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from scalar_workloads import GPT_EXAMPLE, make_moons, make_weights


@dataclass(frozen=True)
class Config:
    """The sizes of a run: the full bench (FULL) or the smoke run (QUICK: tiny sizes, one step a round)."""
    rounds: int  # interleaved rounds after a warm-up round
    moons: int  # points of the two moons (Karpathy's demo: 100)
    max_name: int  # microgpt trains on the census names up to this length
    batches: tuple[int, ...]  # the tensor GPT's batch sizes
    quick: bool = False

    def steps(self, side: Side) -> int:
        """A side's steps per round: its own in the full bench, 1 in the quick run."""
        return 1 if self.quick else side.steps


FULL = Config(rounds=7, moons=100, max_name=15, batches=(32, 128))
QUICK = Config(rounds=1, moons=8, max_name=3, batches=(4,), quick=True)


@dataclass(frozen=True)
class Side:
    """One engine of a workload: its worker's kind (ours, karpathy or microgpt: scalar_workloads.py;
    tensor-ours or tensor-torch: tensor_workloads.py), its task's steps per round in the full bench
    (so that a round of each takes a second or so), and its own setup arguments. setup and task:
    its own methods, where they are not the workload's."""
    kind: str
    steps: int = 1
    args: dict[str, Any] = field(default_factory=dict)
    setup: str | None = None
    task: str | None = None


@dataclass(frozen=True)
class Workload:
    """One workload: one row of run.py's table (row None: compare.py only), our figure over the peer's."""
    key: str  # its name: of its cell in the report, and of compare.py's benchmark (spaces as '-')
    row: str | None  # its row in the table
    task: str  # the engines' method timed in the rounds: task(steps) -> timed(...), or, memory: task() -> bytes
    ours: Side
    peer: Side | None = None  # None: compare.py only
    setup: str | None = None  # the engines' method asked once first, with inputs(config) and the side's args
    inputs: Callable[[Config], dict[str, Any]] | None = None  # what the driver makes once and sends every engine
    # What must agree, to `limit` (relative to the largest value): 'steps', what every step returned; or an
    # engines' method giving {'values', 'weights'} at the engine's weights or at given ones, asked before the
    # rounds and after them, at our weights (the two may take different numbers of steps)
    agree: str = 'steps'
    checked: str = 'the loss'  # what the values are, for the check's line
    limit: float = 1e-9
    start_limit: float | None = None  # the setup's returned loss agrees to this, if it returns one
    floor_row: str | None = None  # the row of the time above the step's matrix-product floor (the task's floor_seconds)
    memory: bool = False  # the task measures one step's graph memory, once, instead of time in rounds
    compare: bool = False  # compare.py times our side's task, one step per call

    @property
    def tensor(self) -> bool:
        """A tensor workload: run where PyTorch is installed, one thread each, no collector share shown."""
        return self.ours.kind.startswith('tensor-')


def moons_inputs(cfg: Config) -> dict[str, Any]:
    """The two moons and the MLP's weights, made once by the driver: every engine gets the very same floats."""
    X, Y = make_moons(cfg.moons)
    return {'X': X, 'Y': Y, 'weights': make_weights()}


def names_inputs(cfg: Config) -> dict[str, Any]:
    """The census names up to cfg.max_name letters (the driver's `names` package; no worker needs it)."""
    if str(GPT_EXAMPLE) not in sys.path:
        sys.path.insert(0, str(GPT_EXAMPLE))  # the example's modules are scripts, not a package
    from data import load_names
    return {'docs': [name for name in load_names() if len(name) <= cfg.max_name]}


TENSOR_GPT_STEPS = 10  # the tensor GPT's steps per round (full bench)


def gpt_inputs(batch_size: int, dtype: str, cfg: Config) -> dict[str, Any]:
    """The tensor GPT's batch size and dtype, and how many batches the rounds will take."""
    return {'batch_size': batch_size, 'dtype': dtype,
            'steps': (cfg.rounds + 1) * cfg.steps(Side('tensor-ours', TENSOR_GPT_STEPS))}


NN, LECTURE = {'path': 'nn'}, {'path': 'lecture'}  # each engine's own MLP; the lecture's, in plain + and *
GRADIENTS = f"the loss and {len(make_weights())} gradients"


def workloads(cfg: Config) -> list[Workload]:
    """Every workload at the sizes of cfg, in the table's order."""
    tensor_gpt = [
        Workload(f'gpt {batch} {dtype}', f"tensor GPT step, batch {batch}, {dtype}: micrograd.tensor / PyTorch",
                 'gpt_steps', Side('tensor-ours', TENSOR_GPT_STEPS), Side('tensor-torch', TENSOR_GPT_STEPS),
                 setup='gpt_setup', inputs=partial(gpt_inputs, batch, dtype),
                 # in float32 the two trainings drift apart (rounding, amplified by Adam): about 1e-2 after 80
                 # steps at batch 128; a wrong float32 step would be off by far more than 3e-2
                 limit=1e-9 if dtype == 'float64' else 3e-2, start_limit=1e-12 if dtype == 'float64' else 1e-6,
                 floor_row=f"… its time above the matmul floor, batch {batch}, {dtype}")
        for batch in cfg.batches for dtype in ('float64', 'float32')]
    moons = partial(Workload, task='moons_steps', setup='moons_setup', inputs=moons_inputs, agree='moons_grads',
                    checked=GRADIENTS, limit=1e-12)
    return [
        moons('moons', "moons step, each engine's own MLP: ours (Value.dot) / Karpathy's micrograd 0.1.0 (plain + "
              "and *)", ours=Side('ours', 10, NN), peer=Side('karpathy', 1, NN), compare=True),
        moons('moons lecture', "moons step, the lecture's MLP in plain + and *: our Value / Karpathy's micrograd "
              "0.1.0", ours=Side('ours', 2, LECTURE), peer=Side('karpathy', 1, NN)),
        moons('moons lecture microgpt', "moons step, the lecture's MLP in plain + and *: our Value / microgpt's "
              "Value", ours=Side('ours', 2, LECTURE), peer=Side('microgpt', 2, LECTURE)),
        Workload('memory', "moons step's graph memory, each engine's own MLP: ours / Karpathy's", 'moons_memory',
                 Side('ours', args=NN), Side('karpathy', args=NN), setup='moons_setup', inputs=moons_inputs,
                 memory=True),
        Workload('microgpt', "microgpt's own training loop (plain ops): our Value / microgpt's Value",
                 'microgpt_steps', Side('ours', 3), Side('microgpt', 3), setup='microgpt_setup', inputs=names_inputs),
        Workload('one per call', "microgpt's loop, one step per call: our Value / microgpt's Value",
                 'microgpt_calls', Side('ours', 3), Side('microgpt', 3), setup='microgpt_setup', inputs=names_inputs),
        Workload('scalar gpt', "our scalar GPT (Value.dot, Adam) / microgpt's loop on its Value", 'gpt_steps',
                 Side('ours', 3), Side('microgpt', 3, setup='microgpt_setup', task='microgpt_steps'),
                 setup='gpt_setup', inputs=names_inputs, compare=True),
        Workload('deep chain', None, 'chain_steps', Side('ours'), compare=True),
        Workload('wide sum', None, 'sum_steps', Side('ours'), compare=True),
        Workload('digits', "digits epoch, float64: micrograd.tensor / PyTorch", 'digits_epochs',
                 Side('tensor-ours', 3), Side('tensor-torch', 3), setup='digits_setup',
                 inputs=lambda cfg: {'dtype': 'float64'}),
        *tensor_gpt,
    ]
