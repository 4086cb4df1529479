"""What the READMEs cite exists: every repository path, every `make` target, every option of our scripts.

The READMEs (README.md, examples/gpt/README.md, bench/README.md) and CONTRIBUTING.md are read as a new
user reads them: a link or a path in code (`examples/gpt/cli.py`, [bench/README.md](bench/README.md)) must
name a file or folder of the repository; `make X` in code must be a target of the Makefile; an option
given to one of our scripts (`python examples/gpt/sample.py ... --engine scalar`,
`GPT_ARGS='--split blocks'`, or in examples/gpt/README.md any `--option` in code) must be one
that script takes.
"""
import re
import subprocess
import sys

import pytest

from tests import ROOT

DOCS = ['README.md', 'examples/gpt/README.md', 'bench/README.md', 'CONTRIBUTING.md']

# Names in the READMEs that stand for the reader's own files or for files the tools write, not for
# files of the repository: the text given to make gpt DATA=..., the exercises' workspace, a pyperf result.
READERS_FILES = {'cities.txt', 'my.txt', 'book.txt', 'file.txt', 'FILE', 'FILE.npz', 'file.npz', 'FILE.txt',
                 'in.txt', 'out.txt', 'new.json', 'old.json', 'before.json', 'after.json', 'my_engine.py', 'my_nn.py',
                 'my_tensor.py', 'your.txt', 'words.txt', 'my-workspace', 'exercises-workspace', 'f.gif', 'f.html',
                 'f.png', 'f.svg', 'trace_graph.ipynb'}  # (the last: Karpathy's notebook, in his repository)
WRITTEN = ('build/', '.venv', 'bench/.peers', 'my-workspace/', 'exercises-workspace/')  # made by running things
PATH_LIKE = re.compile(r"(?<![\w./-])((?:\.{0,2}/)?[\w.-]+(?:/[\w.-]+)*/?)")
FILE_EXTENSIONS = ('.py', '.md', '.ipynb', '.txt', '.svg', '.gif', '.png', '.html', '.j2', '.json', '.toml',
                   '.cfg', '.npz', '.js', '.yml', '.yaml')
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
INLINE = re.compile(r"`([^`\n]+)`")

# Our scripts, how the READMEs call them, and how to ask each for its options.
SCRIPTS = {
    'tensor_gpt.py': [sys.executable, 'examples/gpt/tensor_gpt.py', '--help'],
    'scalar_gpt.py': [sys.executable, 'examples/gpt/scalar_gpt.py', '--help'],
    'sample.py': [sys.executable, 'examples/gpt/sample.py', '--help'],
    'bench/run.py': [sys.executable, 'bench/run.py', '--help'],
}
MAKE_ARGS = {'GPT_ARGS': 'tensor_gpt.py', 'SAMPLE_ARGS': 'sample.py'}  # make gpt GPT_ARGS='...' passes them on


def code_of(doc):
    """The README's code: its fenced blocks, line by line, and its inline `code` spans."""
    text = (ROOT / doc).read_text(encoding='utf-8')
    blocks = [line for block in FENCE.findall(text) for line in block.splitlines()[1:-1]]
    prose = FENCE.sub('', text)
    return text, blocks, INLINE.findall(prose)


def cited_paths(doc):
    """(path, how it is resolved) for every link and every path-like word in the README's code."""
    text, lines, spans = code_of(doc)
    found = {link.split('#')[0] for link in LINK.findall(text)
             if not link.startswith(('http://', 'https://', '#', 'mailto:'))}
    for piece in lines + spans:
        if '://' in piece:
            continue
        for word in PATH_LIKE.findall(piece):
            word = word.rstrip('.')
            first = word.split('/')[0]
            in_tree = first not in ('', '.', '..') and ((ROOT / first).exists() or (ROOT / doc).parent.joinpath(
                first).exists())  # '1/3' or 'sum/mean/max' is not a path; 'bench/x.py' is, 'x/y.py' too
            named_file = word.endswith(FILE_EXTENSIONS) and not word.startswith('.')
            if ('/' in word and in_tree) or named_file:
                found.add(word)
    return sorted(path for path in found if path and not is_readers(path))


def is_readers(path):
    name = path.rstrip('/').split('/')[-1]
    return (path.startswith(WRITTEN) or name in READERS_FILES or path.startswith('/path/')
            or re.fullmatch(r'[\w.-]+\.(py|txt)', path) is not None and path.startswith(('python', 'pip')))


def exists(doc, path):
    """A path cited in doc: relative to its folder, to the repository's root, or (a bare file name, as a
    README's table of files gives them) anywhere in the repository."""
    here = (ROOT / doc).parent
    if (here / path).exists() or (ROOT / path).exists():
        return True
    if '/' not in path.rstrip('/'):
        return any(p for p in ROOT.rglob(path) if '.venv' not in p.parts and 'node_modules' not in p.parts)
    return False


# Stale text found in files owned elsewhere: (doc, cited) -> why. Each case is a strict xfail, so
# that fixing the text makes the test fail until the mark is removed.
STALE: dict[tuple[str, str], str] = {}


def case(doc, cited):
    marks = [pytest.mark.xfail(strict=True, reason=STALE[doc, cited])] if (doc, cited) in STALE else []
    return pytest.param(doc, cited, id=f"{doc}:{cited}", marks=marks)


@pytest.mark.parametrize('doc, path', [case(doc, path) for doc in DOCS for path in cited_paths(doc)])
def test_every_path_a_readme_cites_exists(doc, path):
    assert exists(doc, path), f"{doc} cites {path}, which is not in the repository"


# What the GPT scripts write: build/gpt-DATA.npz (tensor_gpt.py) or build/scalar_gpt-DATA.npz, named after
# the data (names: the census names), and the pictures beside it.
GPT_OUTPUT = re.compile(r'build/(gpt|scalar_gpt)-[\w.-]+?(-loss|-attention-[\w-]+|-next-[\w-]+)?\.(npz|png)')


def cited_gpt_outputs(doc):
    _, lines, spans = code_of(doc)
    return sorted({m for piece in lines + spans for m in re.findall(r'build/(?:gpt|scalar_gpt)[\w.-]*', piece)})


@pytest.mark.parametrize('doc, path', [case(doc, path) for doc in DOCS for path in cited_gpt_outputs(doc)])
def test_every_gpt_file_a_readme_cites_is_named_as_the_scripts_name_it(doc, path):
    assert GPT_OUTPUT.fullmatch(path) and path != 'build/gpt-names_txt.npz', (
        f"{doc} cites {path}; the GPT scripts write build/gpt-DATA.npz (build/gpt-names.npz for the census names), "
        f"build/scalar_gpt-DATA.npz, and their pictures beside them")


def make_targets():
    return set(re.findall(r'^([\w-]+):', (ROOT / 'Makefile').read_text(encoding='utf-8'), re.M))


def cited_targets(doc):
    _, lines, spans = code_of(doc)
    return sorted({target for piece in lines + spans for target in re.findall(r'(?<![\w-])make ([a-z][\w-]*)', piece)})


@pytest.mark.parametrize('doc, target', [case(doc, f'make {target}') for doc in DOCS for target in cited_targets(doc)])
def test_every_make_target_a_readme_cites_is_in_the_makefile(doc, target):
    target = target.removeprefix('make ')
    assert target in make_targets(), f"{doc} cites `make {target}`, which the Makefile does not have"


_HELP = {}


def options_of(script):
    if script not in _HELP:
        result = subprocess.run(SCRIPTS[script], capture_output=True, text=True, cwd=ROOT, timeout=60)
        if result.returncode != 0:
            pytest.skip(f"{script} --help: {result.stderr.strip()[-200:]}")
        _HELP[script] = set(re.findall(r'(?<![\w-])(--[a-z][\w-]*)', result.stdout))
    return _HELP[script]


def cited_options(doc):
    """(script, option) for each option the README's code passes to one of our scripts."""
    _, lines, spans = code_of(doc)
    cited = set()
    for piece in lines + spans:
        piece = piece.split('#')[0]  # a shell comment is prose
        for variable, script in MAKE_ARGS.items():
            for value in re.findall(rf"{variable}='([^']*)'", piece):
                cited |= {(script, option) for option in re.findall(r'(?<![\w-])(--[a-z][\w-]*)', value)}
        calls = [(m.end(), script) for script in SCRIPTS for m in re.finditer(re.escape(script) + r'(?![\w])', piece)]
        for end, script in calls:
            rest = re.split(r'\b\w+_ARGS=', piece[end:])[0]
            cited |= {(script, option) for option in re.findall(r'(?<![\w-])(--[a-z][\w-]*)', rest)}
    if doc == 'examples/gpt/README.md':  # its prose speaks of the three GPT scripts' options by name
        for span in spans:
            for option in re.findall(r'^(--[a-z][\w-]*)', span):
                cited.add(('any GPT script', option))
    return sorted(cited)


@pytest.mark.parametrize('doc, cited', [case(doc, f'{script} {option}') for doc in DOCS
                                        for script, option in cited_options(doc)])
def test_every_option_a_readme_gives_a_script_is_one_it_takes(doc, cited):
    script, option = cited.rsplit(' ', 1)
    scripts = ['tensor_gpt.py', 'scalar_gpt.py', 'sample.py'] if script == 'any GPT script' else [script]
    assert any(option in options_of(s) for s in scripts), f"{doc} gives {option} to {script}, which does not take it"
