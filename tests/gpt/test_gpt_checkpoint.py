"""A trained GPT in one file: saved, reloaded, resumed, and every file it is not refused.

The file (examples/gpt/checkpoint.py) holds the weights under microgpt's names, the
vocabulary, the config, the loss of every step and Adam's moments, in an .npz read with
allow_pickle=False.
"""
import subprocess
import sys

import numpy as np
import pytest

from tests.gpt.examples import GPT_DIR, WORDS, example

checkpoint = example('checkpoint')
plan = example('plan')
data = example('data')
tensor_gpt = example('tensor_gpt')
scalar_gpt = example('scalar_gpt')
options = example('options')
training = example('training')

CONFIG = {'n_embd': 16, 'n_head': 4, 'n_layer': 1, 'block_size': 12}
SMALL = ['--n-embd', '16', '--n-head', '4', '--n-layer', '1', '--block-size', '12']


def settings(engine='tensor', **changes):
    """A plan's settings: the command line's defaults for a run on the census names, with changes."""
    return options.settings(engine, steps=40) | changes


@pytest.fixture(scope='module')
def corpus():
    return data.load_corpus(str(WORDS), 'lines', block_size=12, seed=42)


@pytest.fixture(scope='module')
def saved(tmp_path_factory, corpus):
    """A tensor GPT trained 40 steps on the made-up words, saved with its optimizer."""
    path = tmp_path_factory.mktemp('gpt') / 'words.npz'
    run = plan.Plan('tensor', dict(CONFIG), settings(data=str(WORDS), steps=40, batch_size=32), path)
    model = tensor_gpt.GPT(corpus.tokenizer.vocab_size, **CONFIG)
    optimizer = training.adam(model, run.settings['lr'])
    losses = training.train(model, corpus.train, run.settings, tensor_gpt.batches, optimizer, log_every=0)
    run.save(corpus.tokenizer, 40, losses, model.microgpt_state(), *tensor_gpt.adam_state(model, optimizer))
    return path, model, losses


def arrays_of(path):
    with np.load(path, allow_pickle=False) as npz:
        return {key: npz[key] for key in npz.files}


def rewrite(path, target, **changes):
    """A copy of the file at target with some arrays changed (None: left out)."""
    arrays = arrays_of(path)
    for key, value in changes.items():
        if value is None:
            del arrays[key]
        else:
            arrays[key] = value
    np.savez(target, **arrays)
    return target


# --- what the file holds ---

def test_the_file_holds_the_weights_vocabulary_config_losses_and_adam_state_without_pickles(saved, corpus):
    path, model, losses = saved
    arrays = arrays_of(path)  # allow_pickle=False: every entry is a plain array
    assert str(arrays['format']) == 'micrograd-gpt' and int(arrays['version']) == 1
    assert list(arrays['vocab']) == corpus.tokenizer.chars
    ck = checkpoint.load(path)
    assert ck.config == dict(CONFIG, vocab_size=corpus.tokenizer.vocab_size, split='lines')
    assert ck.step == 40 and ck.training['engine'] == 'tensor' and ck.training['data'] == str(WORDS)
    np.testing.assert_array_equal(ck.losses, losses)
    assert ck.adam_t == 40
    for name, weight in model.microgpt_names().items():
        stored = ck.weights[name]
        np.testing.assert_array_equal(stored, weight.data if name in ('wte', 'wpe') else weight.data.T)
        assert ck.adam_m[name].shape == stored.shape and np.abs(ck.adam_v[name]).sum() > 0


def test_a_reloaded_model_makes_up_the_same_samples_with_the_same_seed(saved):
    path, model, _ = saved
    ck = checkpoint.load(path)
    again = tensor_gpt.from_checkpoint(ck)
    bos = len(ck.chars)
    assert again.sample(10, bos, np.random.default_rng(0)) == model.sample(10, bos, np.random.default_rng(0))


def test_sample_py_generates_from_the_file_without_training(saved):
    path, model, _ = saved
    out = subprocess.run([sys.executable, str(GPT_DIR / 'sample.py'), str(path), '--n', '5', '--temperature', '0.5',
                          '--seed', '0'], capture_output=True, text=True, check=True, timeout=120).stdout
    tokenizer = data.Tokenizer(chars=checkpoint.load(path).chars)
    expected = [tokenizer.decode(ids) for ids in model.sample(5, tokenizer.bos, np.random.default_rng(0))]
    assert out.split('(temperature 0.5) ---\n')[1].split('\n')[:5] == expected
    assert 'trained 40 steps by the tensor engine' in out


def test_either_engine_runs_either_engines_file_and_computes_the_same_loss(saved, corpus):
    path, model, _ = saved
    scalar = scalar_gpt.from_checkpoint(checkpoint.load(path))
    tokens = corpus.val[0]
    expected = model.loss(*tensor_gpt.batch([tokens], model.block_size)).item()
    assert abs(scalar.loss(tokens).data - expected) < 1e-9


def test_a_scalar_file_reloads_into_both_engines(tmp_path, corpus):
    model = scalar_gpt.GPT(corpus.tokenizer.vocab_size, n_embd=8, n_head=2, block_size=12, seed=42)
    run = plan.Plan('scalar', {'n_embd': 8, 'n_head': 2, 'n_layer': 1, 'block_size': 12},
                    settings('scalar', steps=5), tmp_path / 's.npz')
    optimizer = training.adam(model, run.settings['lr'])
    losses = training.train(model, corpus.train, run.settings, scalar_gpt.batches, optimizer, log_every=0)
    run.save(corpus.tokenizer, 5, losses, model.microgpt_state(), *scalar_gpt.adam_state(model, optimizer))
    ck = checkpoint.load(tmp_path / 's.npz')
    assert scalar_gpt.from_checkpoint(ck).microgpt_state() == model.microgpt_state()
    tensor = tensor_gpt.from_checkpoint(ck)
    tokens = corpus.val[1]
    assert abs(tensor.loss(*tensor_gpt.batch([tokens], 12)).item() - model.loss(tokens).data) < 1e-9


# --- resuming ---

@pytest.mark.parametrize('engine', ['tensor', 'scalar'])
def test_a_resumed_run_takes_the_very_steps_the_uninterrupted_run_takes(tmp_path, corpus, engine):
    """Weights, Adam's moments and the step count come back from the file, and a step's batch
    depends only on the seed and the step: stopping halfway and resuming changes nothing."""
    gpt, config = (tensor_gpt, CONFIG) if engine == 'tensor' else (scalar_gpt, dict(CONFIG, n_embd=8, n_head=2))
    extra = {'batch_size': 16} if engine == 'tensor' else {}
    run = plan.Plan(engine, config, settings(engine, steps=30 if engine == 'tensor' else 12, **extra),
                    tmp_path / 'half.npz')

    def fresh():
        model = gpt.GPT(corpus.tokenizer.vocab_size, **config, seed=42)
        return model, training.adam(model, run.settings['lr'])
    args = (corpus.train, run.settings, gpt.batches)

    model, optimizer = fresh()
    straight = training.train(model, *args, optimizer, log_every=0)

    model, optimizer = fresh()
    half = run.num_steps // 2
    first = training.train(model, *args, optimizer, log_every=0, stop=lambda step: step >= half)
    assert len(first) == half
    state = model.microgpt_state()
    run.save(corpus.tokenizer, half, first, state, *gpt.adam_state(model, optimizer))

    ck = checkpoint.load(tmp_path / 'half.npz')
    model, optimizer = fresh()
    model.load_microgpt(ck.weights)
    gpt.load_adam_state(model, optimizer, ck.adam_m, ck.adam_v, ck.adam_t)
    second = training.train(model, *args, optimizer, ck.step, log_every=0)
    np.testing.assert_allclose(first + second, straight, rtol=0, atol=1e-12)


def test_resuming_from_the_command_line_continues_the_step_numbers_and_the_loss_curve(tmp_path, capsys):
    path = tmp_path / 'gpt.npz'
    # (the validation loss measured at steps 60 and 120 only: the model kept is the last one, still improving)
    tensor_gpt.main(['--data', str(WORDS), *SMALL, '--steps', '60', '--out', str(path), '--samples', '0',
                     '--eval-every', '60'])
    before = checkpoint.load(path)
    capsys.readouterr()
    tensor_gpt.main(['--resume', str(path), '--steps', '120', '--samples', '0', '--eval-every', '60'])
    out = capsys.readouterr().out
    assert f'resuming {path} at step 61' in out
    assert 'step    61 / 120' in out and 'step   120 / 120' in out and 'step     1 /' not in out
    after = checkpoint.load(path)
    assert after.step == 120 and len(after.losses) == 120 and after.training['resumed_at'] == [60]
    np.testing.assert_array_equal(after.losses[:60], before.losses)
    # the curve goes on from where it stopped: no jump back to an untrained model's loss (log 20 = 3.0)
    assert abs(after.losses[60] - before.losses[50:60].mean()) < 0.3
    assert after.losses[60] < 2.0
    assert (tmp_path / 'gpt-loss.png').is_file()


def test_a_finished_model_needs_more_steps_to_resume(saved, capsys):
    with pytest.raises(SystemExit):
        tensor_gpt.main(['--resume', str(saved[0]), '--out', str(saved[0].with_name('other.npz'))])
    assert 'has taken 40 steps already; pass --steps N with N > 40' in capsys.readouterr().err


@pytest.mark.parametrize('option, message', [
    (['--n-embd', '32'], r'another config: n_embd=16 \(asked for 32\)'),
    (['--block-size', '16', '--n-layer', '2'], r'n_layer=1 \(asked for 2\), block_size=12 \(asked for 16\)'),
    (['--split', 'blocks'], r"split='lines' \(asked for 'blocks'\)"),
])
def test_resuming_with_another_config_is_refused_naming_what_differs(saved, capsys, option, message):
    import re
    with pytest.raises(SystemExit):
        tensor_gpt.main(['--resume', str(saved[0]), '--steps', '80', *option])
    assert re.search(message, capsys.readouterr().err)


def test_resuming_with_the_other_engine_is_refused(saved, capsys):
    with pytest.raises(SystemExit):
        scalar_gpt.main(['--resume', str(saved[0]), '--steps', '80'])
    assert 'trained by the tensor engine; resume it with tensor_gpt.py' in capsys.readouterr().err


def test_loading_weights_of_another_config_into_a_model_is_refused(saved):
    ck = checkpoint.load(saved[0])
    with pytest.raises(ValueError, match=r"'wte' has shape \(20, 16\), this model's is \(20, 32\)"):
        tensor_gpt.GPT(20, n_embd=32).load_microgpt(ck.weights)
    with pytest.raises(ValueError, match=r"'wpe' has shape \(12, 16\), this model's is \(16, 16\)"):
        scalar_gpt.GPT(20, seed=42).load_microgpt(ck.weights)


# --- files that are refused ---

def damaged(path, tmp_path):
    """Every way a file can be wrong, with the words the refusal must use."""
    good = path.read_bytes()
    (tmp_path / 'empty.npz').write_bytes(b'')
    (tmp_path / 'text.npz').write_text('this is not a zip file\n')
    (tmp_path / 'cut.npz').write_bytes(good[:len(good) // 2])
    flipped = bytearray(good)
    start = good.index(b'weight.wte.npy') + 200  # inside that member's numbers
    flipped[start:start + 16] = bytes(16)
    (tmp_path / 'flipped.npz').write_bytes(bytes(flipped))
    np.savez(tmp_path / 'foreign.npz', x=np.arange(3), y=np.ones(2))
    np.savez(tmp_path / 'pickled.npz', format=np.array([{'evil': 1}], dtype=object))
    vocab = arrays_of(path)['vocab']
    return [
        ('missing.npz', 'no such file'),
        ('empty.npz', r'is empty \(0 bytes\)'),
        ('text.npz', 'not a readable .npz file'),
        ('cut.npz', 'damaged or cut short'),
        ('flipped.npz', 'damaged or cut short'),
        ('foreign.npz', r"not a micrograd GPT: it has no 'format' entry \(it holds x, y\)"),
        ('pickled.npz', 'pickled Python objects'),
        (rewrite(path, tmp_path / 'other.npz', format=np.array('something-else')).name, "'something-else' file"),
        (rewrite(path, tmp_path / 'v2.npz', version=np.array(2)).name, 'format version 2; this code reads version 1'),
        (rewrite(path, tmp_path / 'noweight.npz', **{'weight.lm_head': None}).name, "no 'weight.lm_head'"),
        (rewrite(path, tmp_path / 'shape.npz', **{'weight.wpe': np.zeros((16, 16))}).name,
         r"'weight.wpe' has shape \(16, 16\), its config needs \(12, 16\)"),
        (rewrite(path, tmp_path / 'nan.npz', **{'weight.wte': np.full((20, 16), np.nan)}).name,
         "'weight.wte' has 320 NaN or infinite values"),
        (rewrite(path, tmp_path / 'vocab.npz', vocab=vocab[:-1]).name,
         r'18 characters \+ BOS do not make its vocab_size 20'),
        (rewrite(path, tmp_path / 'json.npz', config=np.array('{"n_embd": ')).name, "'config' is not valid JSON"),
        (rewrite(path, tmp_path / 'config.npz', config=np.array('{"n_embd": 16}')).name,
         'needs positive whole numbers for vocab_size, n_head, n_layer, block_size'),
        (rewrite(path, tmp_path / 'losses.npz', losses=np.zeros(3)).name, r'40 steps done, but \(3,\) losses'),
    ]


def test_every_damaged_or_foreign_file_is_refused_saying_what_is_wrong(saved, tmp_path):
    path = saved[0]
    for name, message in damaged(path, tmp_path):
        with pytest.raises(checkpoint.CheckpointError, match=message):
            checkpoint.load(tmp_path / name)


def test_sample_py_refuses_a_damaged_file_with_one_line_and_exit_status_1(saved, tmp_path):
    cut = tmp_path / 'cut.npz'
    cut.write_bytes(saved[0].read_bytes()[:1000])
    result = subprocess.run([sys.executable, str(GPT_DIR / 'sample.py'), str(cut)], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 1 and result.stdout == ''
    assert result.stderr.startswith('sample.py: error:') and 'damaged or cut short' in result.stderr
    assert 'Traceback' not in result.stderr


def test_an_interrupted_save_leaves_the_previous_file_whole(saved, tmp_path, monkeypatch):
    path = tmp_path / 'gpt.npz'
    path.write_bytes(saved[0].read_bytes())
    ck = checkpoint.load(path)

    def crash(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(np, 'savez', crash)
    with pytest.raises(KeyboardInterrupt):
        checkpoint.save(path, ck)
    assert checkpoint.load(path).step == 40
