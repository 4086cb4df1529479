"""Every option of every GPT script, checked before any work starts.

One table row per option of tensor_gpt.py, scalar_gpt.py and sample.py; every bad value (negative,
zero, NaN, inf, a fraction, a word, an empty string, a folder, a path that does not exist, and
the row's own: too large, ...) is tried on every row. Each is either refused, with exactly one
line on stderr naming the option and a non-zero exit, before the data is read or a step taken;
or it is a value the row accepts (a seed of 0, a file name '-1' for --out), listed in the row.
The table runs in-process; a few real runs prove the one-line contract from the shell.
"""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.gpt.examples import GPT_DIR, WORDS, example

options = example('options')
plan = example('plan')
training = example('training')
validation = example('validation')
checkpoint = example('checkpoint')
data = example('data')
tensor_gpt = example('tensor_gpt')
scalar_gpt = example('scalar_gpt')
sample = example('sample')

SCRIPTS = {'tensor_gpt.py': tensor_gpt, 'scalar_gpt.py': scalar_gpt, 'sample.py': sample}

# The bad values every row gets; '{folder}', '{missing}' and '{file}' are filled in per test.
BAD = {'negative': '-1', 'zero': '0', 'nan': 'nan', 'inf': 'inf', 'minus inf': '-inf', 'fraction': '1.5',
       'word': 'x', 'empty': '', 'folder': '{folder}', 'missing path': '{missing}'}
NUMBERS = frozenset()  # a number option accepts none of BAD


class Row:
    """An option, the bad values it accepts anyway (of BAD), and its own bad values (name -> value)."""

    def __init__(self, option, accepts=NUMBERS, own=None, needs_data=False):
        self.option, self.accepts, self.own, self.needs_data = option, frozenset(accepts), own or {}, needs_data


NAMES_OF_FILES = {'negative', 'zero', 'nan', 'inf', 'minus inf', 'fraction', 'word', 'missing path'}  # new files
TRAINING = [
    Row('--n-embd', own={'too large': '100000', 'not a multiple of --n-head': '9'}),
    Row('--n-head', own={'too large': '1000', 'does not divide --n-embd': '5'}),
    Row('--n-layer', own={'too large': '100000'}),
    Row('--block-size', own={'too large': '5000'}),
    Row('--steps'),
    Row('--lr', own={'too large': '2'}),
    Row('--seed', accepts={'zero'}, own={'far below 0': '-99999999999999999999'}),
    Row('--eval-every'),
    Row('--patience', accepts={'zero'}),  # 0: never stop early
    Row('--samples', accepts={'zero'}, own={'too large': '10001'}),
    Row('--temperature', accepts={'fraction'}),
    Row('--data', own={'a file with no text': '{empty_file}'}, needs_data=True),
    Row('--split', own={'another way': 'words'}),
    Row('--out', accepts=NAMES_OF_FILES, own={'folder/': '{folder}/', 'inside a file': '{file}/model.npz'}),
    Row('--resume', own={'not a saved model': '{file}'}),
    Row('--show', accepts={'nan', 'inf', 'word'}, own={'too long': 'a' * 16, 'not in the names': 'Zoë'},
        needs_data=True),
]
ROWS = {
    'tensor_gpt.py': TRAINING + [Row('--batch-size')],
    'scalar_gpt.py': TRAINING,
    'sample.py': [
        Row('FILE.npz', own={'not a saved model': '{file}'}),
        Row('--data', accepts={'word', 'missing path'}, own={'both a model and --data': '{model} --data x'}),
        Row('--n', accepts={'zero'}, own={'too large': '10001'}),
        Row('--temperature', accepts={'fraction'}),
        Row('--seed', accepts={'zero'}),
        Row('--engine', own={'another engine': 'gpu'}),
        Row('--show', accepts={'nan', 'inf', 'word'}, own={'not in the names': 'Zoë'}),
    ],
}
CASES = [pytest.param(script, row, kind, value, id=f"{script}-{row.option}-{kind}")
         for script, rows in ROWS.items() for row in rows
         for kind, value in list(BAD.items()) + list(row.own.items())]


@pytest.fixture(scope='module')
def places(tmp_path_factory):
    """A folder, a path that does not exist, a plain text file, an empty file and a saved model (one
    trained on the census names' alphabet, built without training: sample.py only needs the file)."""
    root = tmp_path_factory.mktemp('options')
    (root / 'a folder').mkdir()
    (root / 'notes.txt').write_text('not a model\n', encoding='utf-8')
    (root / 'empty.txt').write_bytes(b'')
    model = root / 'build' / 'gpt-x.npz'  # sample.py --data x looks for build/gpt-x.npz: there is one
    tokenizer = data.Tokenizer(['abcdefghijklmnopqrstuvwxyz'])
    config = {'n_embd': 16, 'n_head': 4, 'n_layer': 1, 'block_size': 16}
    gpt = tensor_gpt.GPT(tokenizer.vocab_size, **config)
    run = plan.Plan('tensor', config, {'data': None, 'split': 'lines', 'steps': 10, 'batch_size': 4, 'lr': 0.01,
                                      'seed': 42}, model)
    m = {name: np.zeros_like(w) for name, w in gpt.microgpt_state().items()}
    run.save(tokenizer, 0, [], gpt.microgpt_state(), m, m, 0)
    return {'folder': str(root / 'a folder'), 'missing': str(root / 'nowhere' / 'x.npz'),
            'file': str(root / 'notes.txt'), 'empty_file': str(root / 'empty.txt'), 'model': str(model),
            'root': root}


def argv_for(script, row, value, places):
    value = value.format(**places)
    if script == 'sample.py':
        if row.option == 'FILE.npz':
            return ['--', value]  # ('-inf' alone would read as an option)
        if ' --data ' in value:  # the row's own case: a model file and --data
            model, rest = value.split(' --data ')
            return [model, '--data', rest]
        base = [] if row.option == '--data' else [places['model']]
        return base + [f'{row.option}={value}']
    out = [] if row.option == '--out' else ['--out', str(places['root'] / 'out' / 'm.npz')]
    return out + [f'{row.option}={value}']  # --opt=value: a value starting with '-' is the option's, as typed


class WorkStarted(Exception):
    """Raised where the scripts' real work begins: reading the data, training, sampling."""


def run(script, argv, monkeypatch, capsys, allow_data=False):
    """Run a script's main in-process, stopping it where work would begin. Returns (exit code or None
    if it got as far as the work, stderr)."""
    def stop(*args, **kwargs):
        raise WorkStarted
    real_load = training.load_corpus

    def load(*args, **kwargs):  # reading the data is allowed only where the check needs it (the vocabulary)
        if not allow_data:
            raise WorkStarted
        return real_load(*args, **kwargs)
    monkeypatch.setattr(training, 'load_corpus', load)
    monkeypatch.setattr(validation.Validation, 'measure', stop)  # the first validation loss, before the first step
    monkeypatch.setattr(training, 'train', stop)
    monkeypatch.setattr(tensor_gpt.GPT, 'sample', stop)
    monkeypatch.setattr(scalar_gpt.GPT, 'sample', stop)
    code = None
    try:
        SCRIPTS[script].main(argv)
    except WorkStarted:
        pass
    except SystemExit as e:
        code = e.code
    captured = capsys.readouterr()
    return code, captured.err


@pytest.mark.parametrize('script, row, kind, value', CASES)
def test_every_bad_value_of_every_option_is_refused_on_one_line_before_any_work(
        script, row, kind, value, places, monkeypatch, capsys):
    monkeypatch.chdir(places['root'])  # sample.py --data x finds build/gpt-x.npz here; nothing lands in the repo
    argv = argv_for(script, row, value, places)
    code, err = run(script, argv, monkeypatch, capsys, allow_data=row.needs_data)
    if kind in row.accepts:
        assert code is None and err == '', f"{argv} should be accepted: {err}"
        return
    assert code not in (None, 0), f"{argv} was not refused"
    assert len(err.splitlines()) == 1 and err.endswith('\n'), f"{argv}: not one line: {err!r}"
    assert err.startswith(f"{script}: error: ") and 'Traceback' not in err
    named = err.split(': error: argument ')[-1].split(': ')[0]  # 'argument --n-embd/--n-layer: ...' names two
    assert row.option in named.split('/') or (row.option == '--n-embd' and named == '--n-head'), f"{argv}: {err}"
    assert not (places['root'] / 'out').exists()  # nothing written


@pytest.mark.parametrize('script', list(SCRIPTS))
def test_every_option_of_every_script_has_a_row_in_the_table(script, capsys):
    with pytest.raises(SystemExit):
        SCRIPTS[script].main(['--help'])
    help_lines = capsys.readouterr().out.splitlines()
    options = {line.split()[0].rstrip(',:') for line in help_lines if line.strip().startswith('--')}
    assert options - {'--help'} == {row.option for row in ROWS[script]} - {'FILE.npz'}


# --- options checked together: one place (options.TOGETHER), run on a fresh run and on --resume alike ---

def at_most_one_per_run(run, engine):
    """A check of the kind a new option brings (--warmup below --steps, say): --lr times --steps at most 1."""
    if run['lr'] * run['steps'] > 1:
        return f"argument --lr: {run['lr']} times --steps {run['steps']} is over 1"
    return None


@pytest.mark.parametrize('resumed', [False, True], ids=['fresh', 'resumed'])
def test_a_check_of_options_together_runs_on_a_fresh_run_and_on_resume(resumed, places, monkeypatch, capsys):
    """The check sees the run's settled values: with --resume, the file's --steps (10) taken back."""
    monkeypatch.setattr(options, 'TOGETHER', [*options.TOGETHER, at_most_one_per_run])
    where = ['--resume', places['model']] if resumed else ['--steps', '10']
    out = ['--out', str(places['root'] / 'out' / 'm.npz')]
    code, err = run('tensor_gpt.py', where + out + ['--lr', '0.5'], monkeypatch, capsys)
    assert code not in (None, 0) and err == "tensor_gpt.py: error: argument --lr: 0.5 times --steps 10 is over 1\n"
    code, err = run('tensor_gpt.py', where + out + ['--lr', '0.05'], monkeypatch, capsys)
    assert code is None and err == '', err  # within the limit: on to the work
    assert not (places['root'] / 'out').exists()


def test_a_shown_word_longer_than_a_resumed_models_context_is_refused_before_the_data_is_read(
        places, monkeypatch, capsys):
    code, err = run('tensor_gpt.py', ['--resume', places['model'], '--show', 'a' * 16, '--out',
                                      str(places['root'] / 'out' / 'm.npz')], monkeypatch, capsys)
    assert code not in (None, 0) and err.startswith("tensor_gpt.py: error: argument --show: 'aaaaaaaaaaaaaaaa' has 16 "
                                                    "characters, more than the context (block size 16)"), err


@pytest.mark.parametrize('script', ['tensor_gpt.py', 'scalar_gpt.py'])
def test_paths_with_spaces_are_accepted_wherever_a_path_goes(script, places, tmp_path, monkeypatch, capsys):
    folder = tmp_path / 'my texts'
    folder.mkdir()
    text = folder / 'my words.txt'
    text.write_text(WORDS.read_text(encoding='utf-8'), encoding='utf-8')
    for argv in (['--data', str(text), '--out', str(tmp_path / 'my models' / 'a model.npz')],
                 ['--data', str(text), '--show', 'lo', '--out', str(folder / 'm.npz')]):
        code, err = run(script, argv, monkeypatch, capsys, allow_data=True)
        assert code is None and err == '', err


def test_a_real_run_with_spaces_in_every_path_trains_saves_and_samples(tmp_path, capsys):
    folder = tmp_path / 'my texts'
    folder.mkdir()
    text = folder / 'my words.txt'
    text.write_text(WORDS.read_text(encoding='utf-8'), encoding='utf-8')
    model = tmp_path / 'my models' / 'a model.npz'
    tensor_gpt.main(['--data', str(text), '--n-embd', '16', '--n-layer', '1', '--steps', '5', '--samples', '2',
                     '--out', str(model)])
    assert model.is_file() and (tmp_path / 'my models' / 'a model-loss.png').is_file()
    capsys.readouterr()
    sample.main([str(model), '--n', '3'])
    out = capsys.readouterr().out
    assert out.startswith(f"sampling {model}:") and '3 lines the model made up' in out


# --- the contract from the shell: one line on stderr, a non-zero exit, in well under the time of a step ---

@pytest.mark.parametrize('script, argv, names', [
    ('tensor_gpt.py', ['--seed', '-1'], '--seed'),
    ('scalar_gpt.py', ['--n-embd', '9', '--n-head', '2'], '--n-head'),
    ('tensor_gpt.py', ['--n-embd', '9', '--n-head', '2'], '--n-head'),
    ('tensor_gpt.py', ['--out', '{folder}'], '--out'),
    ('sample.py', ['--temperature', 'nan'], '--temperature'),
    ('scalar_gpt.py', ['--split', 'words'], '--split'),
])
def test_a_bad_option_from_the_shell_prints_one_line_and_exits_non_zero(script, argv, names, places):
    argv = [a.format(**places) for a in argv]
    result = subprocess.run([sys.executable, str(GPT_DIR / script), *argv], capture_output=True, text=True,
                            cwd=places['root'], timeout=60)
    assert result.returncode != 0 and result.stdout == ''
    assert len(result.stderr.splitlines()) == 1 and names in result.stderr, result.stderr
    assert not list(Path(places['folder']).iterdir())  # --out a folder: nothing written into it, no .partial
