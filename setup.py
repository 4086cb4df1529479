import re
from pathlib import Path

from setuptools import find_packages, setup

HERE = Path(__file__).resolve().parent
# The version is written once, as micrograd.__version__; read here without importing the package.
VERSION = re.search(r"^__version__ = '([^']+)'$", (HERE / 'micrograd' / '__init__.py').read_text(encoding='utf-8'),
                    re.MULTILINE)
if VERSION is None:
    raise SystemExit("setup.py: no __version__ = '...' line in micrograd/__init__.py")

# graphviz-pure: a `dot` renderer that installs with pip; pillow: draw_backward's GIFs
viz = ['graphviz>=0.20', 'graphviz-pure>=0.2.2', 'pillow>=10.1']
tensor = ['numpy>=1.23']
plots = ['matplotlib>=3.7']
demo = viz + tensor + plots + ['scikit-learn>=1.3', 'nbclient>=0.9', 'nbconvert>=7', 'nbformat>=5.9', 'ipykernel>=6.25']
# names: the US census first names the GPT examples learn from; matplotlib: their attention maps and loss curve
gpt = tensor + plots + ['names>=0.3']
# pyperf: bench/compare.py times our engine across commits (the peers live in bench/'s own environments)
bench = demo + gpt + ['pyperf>=2.6']
# make check: the scalar engine's tests alone, quick to install and to run (NumPy: some feed it NumPy numbers;
# graphviz, without a renderer, and matplotlib: the lecture's notebook cells import them, and are replayed)
check = tensor + viz[:1] + plots + ['pytest>=7', 'hypothesis>=6.80']
# PyTorch is a test dependency too, installed by `make test` where its CPU build is at hand (the Makefile's
# TORCH, the one place its version is written).
# playwright drives the system's Chromium in the player tests; setuptools (with its own bdist_wheel, 70.1+)
# builds the wheel whose contents a test checks, on every Python (3.12's venv has no setuptools at all).
# pytest-xdist: make test runs the suite in two processes (much of it waits on subprocesses and notebooks).
test = bench + check + ['ruff>=0.5', 'mypy>=1.8', 'pytest-xdist>=3.5',
                'playwright>=1.40', 'setuptools>=70.1']

setup(
    # The import name is micrograd; the package index's `micrograd` is Karpathy's (0.1.0), hence a name of our own.
    name='micrograd-edu',
    version=VERSION.group(1),
    description='A tiny scalar autograd engine and neural-net library, fast and correct, with a NumPy tensor sequel.',
    long_description=(HERE / 'README.md').read_text(encoding='utf-8'),
    long_description_content_type='text/markdown',
    license='MIT',
    packages=find_packages(include=['micrograd', 'micrograd.*']),
    package_data={'micrograd': ['py.typed'], 'micrograd.viz': ['*.js']},  # the player's script, read at run time
    python_requires='>=3.10',
    install_requires=[],
    extras_require={'viz': viz, 'tensor': tensor, 'demo': demo, 'gpt': gpt, 'bench': bench, 'check': check,
                    'test': test},
    classifiers=[
        'Programming Language :: Python :: 3',
        'Operating System :: OS Independent',
        'Intended Audience :: Education',
    ],
)
