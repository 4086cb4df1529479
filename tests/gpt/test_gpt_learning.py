"""The GPT says whether it learned: the validation loss measured while training, the model kept
where it is lowest, the verdict against the bigram baseline; each model saved under the name of
its data; sampling at any temperature; a text file in another Unicode encoding named as such.
"""
import importlib
import math
import random
import re
import warnings

import numpy as np
import pytest

from tests.gpt.examples import WORDS, example

pytestmark = pytest.mark.same_on_every_python  # seeded trainings, the same on every Python: CI runs them on one

plan = example('plan')
validation = example('validation')
verdict = example('verdict')
checkpoint = example('checkpoint')
data = example('data')
tensor_gpt = example('tensor_gpt')
scalar_gpt = example('scalar_gpt')
sample = example('sample')
options = example('options')
training = example('training')

SMALL = ['--n-embd', '32', '--n-head', '4', '--n-layer', '1', '--block-size', '16']


def random_letters(path, n=2000, seed=1, lengths='any'):
    """Lines of random letters, each drawn uniformly: with lengths='any', after each letter the line ends
    with probability 0.2 wherever it is (no typical length: nothing to learn beyond letter frequencies);
    with lengths='3 to 12', a line has 3 to 12 letters (where it ends is all there is to learn)."""
    rng, lines = random.Random(seed), []
    while len(lines) < n:
        if lengths == 'any':
            line = rng.choice('abcdefghijklmnopqrstuvwxyz')
            while rng.random() > 0.2:
                line += rng.choice('abcdefghijklmnopqrstuvwxyz')
        else:
            line = ''.join(rng.choice('abcdefghijklmnopqrstuvwxyz') for _ in range(rng.randint(3, 12)))
        if len(line) <= 15:
            lines.append(line)
    path.write_text('\n'.join(lines) + '\n', encoding='utf-8')
    return path


# --- the verdict ---

@pytest.mark.parametrize('val, bigram, uniform, train, expected', [
    (1.92, 2.35, 3.30, 1.63, "learned: validation loss 1.92, below the bigram baseline's 2.35"),
    (2.34, 2.35, 3.30, 2.30, "did not learn: validation loss 2.34 is not below the bigram baseline's 2.35 by more "
                             "than 0.05; it predicts its training documents no better"),
    (4.88, 2.17, 3.00, 0.68, "did not learn: validation loss 4.88 is not below the bigram baseline's 2.17; it fits "
                             "its training documents (train loss 0.68) but not unseen ones: more text, fewer steps"),
    (3.25, 3.35, 3.30, 3.25, "did not learn: validation loss 3.25 is not below a uniform guess's 3.30 by more"),
    (float('nan'), 2.35, 3.30, float('nan'), "did not learn: validation loss nan is not below the bigram baseline's "
                                             "2.35; training diverged: try a smaller --lr"),
    # random characters: counting pairs is no better than a uniform guess, so memorizing is all a model can do
    (3.45, 3.39, 3.43, 2.90, "did not learn: validation loss 3.45 is not below the bigram baseline's 3.39; there is "
                             "nothing to learn: counting which character follows which (the bigram baseline, 3.39) "
                             "does not beat a uniform guess (3.43) by more than 0.05, as for characters drawn at "
                             "random"),
])
def test_the_verdict_compares_the_validation_loss_with_the_baselines(val, bigram, uniform, train, expected):
    assert verdict.verdict(val, bigram, uniform, train).startswith(expected)


def test_a_model_that_only_learned_how_long_lines_are_did_not_learn():
    """Lines of random letters of 3 to 12: a GPT learns where lines end, and so does counting the tokens at
    each position; beating the bigram model by that is not learning the text."""
    assert verdict.verdict(3.16, 3.24, 3.30, 3.12, by_position=3.15).startswith(
        "did not learn: validation loss 3.16 is not below the position baseline's 3.15 (counting which token comes "
        "at each position; the bigram baseline: 3.24)")
    assert verdict.verdict(1.46, 2.17, 3.00, 1.2, by_position=2.04).startswith("learned: validation loss 1.46")


def test_a_model_that_only_learned_how_often_each_letter_comes_did_not_learn():
    """Random letters: the bigram (3.16) and position (3.14) baselines pay for counting what does not matter;
    counting the letters alone (3.12) is the bar, and there is nothing more to learn."""
    said = verdict.verdict(3.08, 3.16, 3.30, 3.0, by_position=3.14, unigram=3.12)
    assert said.startswith("did not learn: validation loss 3.08 is not below the unigram baseline's 3.12 by more than "
                           "0.05 (counting how often each token comes; the bigram baseline: 3.16); there is nothing "
                           "to learn: counting which character follows which (the bigram baseline, 3.16) or which "
                           "comes at each position (3.14) does not beat counting how often each comes (3.12) by more "
                           "than 0.05")
    assert 'more text may' not in said and 'may help' not in said


def test_the_unigram_baseline_counts_how_often_each_token_comes():
    tokenizer = data.Tokenizer(['ab'])
    docs = [tokenizer.encode('ab'), tokenizer.encode('ba')]  # targets a, b, end, b, a, end: each a third
    assert data.unigram_loss(docs, docs, tokenizer.vocab_size, smoothing=0) == pytest.approx(math.log(3))


def test_the_position_baseline_counts_which_token_comes_at_each_position():
    tokenizer = data.Tokenizer(['ab'])
    docs = [tokenizer.encode('ab'), tokenizer.encode('ba')]  # position 0: a or b; 1: b or a; 2: the end
    expected = (math.log(2) * 4 + 0 * 2) / 6  # smoothing 0: p = 1/2 at positions 0 and 1, 1 at the end
    assert data.position_loss(docs, docs, tokenizer.vocab_size, smoothing=0) == pytest.approx(expected)


def test_validation_keeps_the_model_where_the_loss_is_lowest():
    losses = iter([3.0, 2.0, 1.5, 1.7, 2.5])
    state = iter(range(100))
    measured = validation.Validation(10, lambda: next(losses), lambda: ({'w': next(state)}, {}, {}, 0))
    measured.measure(0)
    for step in range(1, 41):
        measured(step)
    measured.measure(40)  # measured at 40 already: not again
    assert measured.points == [(0, 3.0), (10, 2.0), (20, 1.5), (30, 1.7), (40, 2.5)]
    assert (measured.kept.step, measured.kept.val_loss, measured.kept.weights) == (20, 1.5, {'w': 2})


@pytest.mark.parametrize('patience, losses, stops_at', [
    (3, [3.0, 2.0, 2.5, 2.4, 1.9, 2.0, 2.1, 2.2, 2.3], 70),  # 1.9 at step 40, then three measurements above it
    (3, [3.0, 2.0, 2.5, 2.4, 1.9, 2.0, 1.8, 2.2, 2.3], None),  # a new lowest at step 60 starts the count again
    (0, [3.0, 2.0, 2.5, 2.6, 2.7, 2.8, 2.9, 3.0, 3.1], None),  # patience 0: never stops early
])
def test_training_stops_once_the_validation_loss_has_not_improved_for_patience_measurements(
        patience, losses, stops_at):
    loss_of = iter(losses)
    measured = validation.Validation(10, lambda: next(loss_of), lambda: ({}, {}, {}, 0), patience=patience)
    measured.measure(0)
    stopped = None
    for step in range(1, 81):
        measured(step)
        if measured.stop(step) and stopped is None:
            stopped = step
    assert stopped == stops_at == measured.stopped_early_at
    assert measured.kept.val_loss == min(losses)  # the model kept is the best one measured, stopped or not
    assert bool(measured.why_stopped(80)) == (stops_at is not None)


def test_a_run_that_stops_improving_stops_early_says_so_and_saves_its_best_model(tmp_path, capsys):
    """200 made-up words: the validation loss is lowest within a few passes, then rises as the model memorizes."""
    words = tmp_path / 'words.txt'
    words.write_text('\n'.join(WORDS.read_text(encoding='utf-8').split()[:200]) + '\n', encoding='utf-8')
    tensor_gpt.main(['--data', str(words), *SMALL, '--steps', '250', '--samples', '0', '--patience', '3',
                     '--out', str(tmp_path / 'w.npz')])
    out = capsys.readouterr().out
    stopped, best = map(int, re.search(r"\nstopped early at step (\d+) of 250: the validation loss has not improved "
                                       r"on its lowest \([\d.]+, at step (\d+)\) in the 3 measurements since "
                                       r"\(--patience 3; --patience 0 trains to the last step\)\n", out).groups())
    assert best < stopped < 250 and f"step {stopped + 1:5d} /" not in out  # no step after the stop
    assert re.search(rf"after step {best} to .*w\.npz, where the validation loss was lowest \([\d.]+; training "
                     rf"went on to step {stopped}\)\n", out)
    assert '--resume' not in out  # stopping early is not an interruption to come back to
    ck = checkpoint.load(tmp_path / 'w.npz')
    points = ck.training['val_losses']
    assert ck.step == best and points[-1][0] == best and min(v for _, v in points) == points[-1][1]


def test_overfitting_is_said_and_the_model_with_the_lowest_validation_loss_is_the_one_saved(tmp_path, capsys):
    """200 made-up words: a GPT memorizes them within a few passes, and its validation loss rises."""
    words = tmp_path / 'words.txt'
    words.write_text('\n'.join(WORDS.read_text(encoding='utf-8').split()[:200]) + '\n', encoding='utf-8')
    tensor_gpt.main(['--data', str(words), *SMALL, '--steps', '250', '--samples', '0', '--patience', '0',
                     '--out', str(tmp_path / 'w.npz')])
    out = capsys.readouterr().out
    kept = int(re.search(r"after step (\d+) to .*w\.npz, where the validation loss was lowest \([\d.]+; training "
                         r"went on to step 250\)", out).group(1))
    assert 'measured every 5 steps' in out  # once per pass over 180 words in batches of 32
    assert re.search(rf"overfitting: the validation loss was lowest at step {kept} \([\d.]+\) and rose to [\d.]+ "
                     rf"by step 250: .* To stop sooner: --steps {kept}", out)
    assert re.search(r"\nlearned: validation loss [\d.]+, below the bigram baseline's 2\.17\n", out)
    ck = checkpoint.load(tmp_path / 'w.npz')
    assert ck.step == kept < 250 and len(ck.losses) == kept and ck.adam_t == kept
    points = ck.training['val_losses']
    assert points[0][0] == 0 and points[-1][0] == kept and min(v for _, v in points) == points[-1][1]
    val_printed = float(re.search(r'\| val loss ([\d.]+) \|', out).group(1))
    assert val_printed == pytest.approx(tensor_gpt.evaluate(tensor_gpt.from_checkpoint(ck), data.load_corpus(
        str(words), 'lines', 16, seed=42).val), abs=1e-4)


@pytest.mark.parametrize('main, lengths', [(tensor_gpt.main, 'any'), (tensor_gpt.main, '3 to 12'),
                                           pytest.param(scalar_gpt.main, 'any', marks=pytest.mark.slow)],  # 15 s
                         ids=['tensor', 'tensor-lines-of-3-to-12', 'scalar'])
def test_a_text_of_random_letters_ends_with_did_not_learn(main, lengths, tmp_path, capsys):
    text = random_letters(tmp_path / 'random.txt', n=600 if main is scalar_gpt.main else 2000, lengths=lengths)
    steps = ['--steps', '300'] if main is scalar_gpt.main else ['--steps', '150']
    main(['--data', str(text), '--n-embd', '16', '--n-layer', '1', *steps, '--samples', '0',
          '--out', str(tmp_path / 'r.npz')])
    out = capsys.readouterr().out
    assert re.search(r"\ndid not learn: validation loss [\d.]+ is not below (the bigram|the position|the unigram) "
                     r"baseline's", out), out
    assert 'learned:' not in out.replace('did not learn:', '')
    # letters drawn at random, each on its own: nothing to learn, and no advice to find more text; lines of 3 to 12
    # letters have one thing to learn, where a line ends, which the position baseline counts
    assert ('there is nothing to learn' in out) == (lengths == 'any') and 'overfitting' not in out


def test_the_scalar_gpt_ends_with_a_verdict_too(tmp_path, capsys):
    scalar_gpt.main(['--data', str(WORDS), '--n-embd', '8', '--n-head', '2', '--block-size', '12', '--steps', '30',
                     '--eval-every', '10', '--samples', '0', '--out', str(tmp_path / 's.npz')])
    out = capsys.readouterr().out
    assert 'the validation loss measured every 10 steps' in out
    assert re.search(r"\n(learned|did not learn): validation loss [\d.]+", out)
    assert len(checkpoint.load(tmp_path / 's.npz').training['val_losses']) >= 1


def test_the_loss_curve_shows_every_validation_point_however_high(tmp_path):
    pictures = example('pictures')
    losses = 3.0 * np.exp(-np.arange(300) / 40) + 0.5
    points = [(0, 3.0), (50, 1.5), (100, 2.5), (300, 4.9)]  # rising far above the training loss and the baselines
    figure = pictures.loss_figure(losses, uniform=3.0, bigram=2.17, val_points=points, kept_step=50)
    ax = figure.axes[0]
    bottom, top = ax.get_ylim()
    assert bottom <= min(v for _, v in points) and top > 4.9
    labels = [line.get_label() for line in ax.get_lines()]
    assert 'validation loss' in labels and 'kept: step 50, 1.500' in labels


def test_a_diverging_run_stops_before_its_weights_become_nan(capsys):
    tokenizer = data.Tokenizer(['ab'])
    model = tensor_gpt.GPT(tokenizer.vocab_size, n_embd=8, n_head=2)
    model.lm_head.weight.data[0, 0] = np.nan
    losses = training.train(model, [tokenizer.encode('ab'), tokenizer.encode('ba')],
                            options.settings('tensor', steps=10, batch_size=2), tensor_gpt.batches, log_every=0)
    assert losses == [] and 'training diverged' in capsys.readouterr().out


# --- each model under the name of its data ---

@pytest.mark.parametrize('prefix, data_file, expected', [
    ('gpt', None, 'build/gpt-names.npz'),
    ('gpt', 'cities.txt', 'build/gpt-cities.npz'),
    ('gpt', 'some/where/my cities.v2.txt', 'build/gpt-my_cities_v2.npz'),
    ('gpt', 'names.txt', 'build/gpt-names_txt.npz'),  # not the census names' model
    ('scalar_gpt', None, 'build/scalar_gpt-names.npz'),
    ('scalar_gpt', 'book', 'build/scalar_gpt-book.npz'),
])
def test_a_model_is_saved_under_the_name_of_its_data(prefix, data_file, expected):
    assert plan.model_path(prefix, data_file) == expected


def test_training_on_a_text_leaves_the_names_model_alone_and_make_sample_says_which_it_samples(
        tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    cities = tmp_path / 'cities.txt'
    cities.write_text('paris\nlyon\nnice\nlille\nnantes\nreims\nbrest\nmetz\n', encoding='utf-8')
    with pytest.raises(SystemExit):
        sample.main([])  # no names model yet: said on one line
    assert capsys.readouterr().err == ("sample.py: error: no model at build/gpt-names.npz: train one first (make "
                                       "gpt), or name one (sample.py FILE.npz) (see --help)\n")
    tensor_gpt.main(['--data', 'cities.txt', '--n-embd', '8', '--n-head', '2', '--steps', '3', '--samples', '0'])
    assert sorted(p.name for p in (tmp_path / 'build').iterdir()) == ['gpt-cities-loss.png', 'gpt-cities.npz']
    capsys.readouterr()
    sample.main(['--data', 'cities.txt', '--n', '2'])
    out = capsys.readouterr().out
    assert out.startswith(f"sampling build/gpt-cities.npz: a GPT (n_embd=8, n_head=2, n_layer=2, block_size=16) "
                          f"trained 3 steps by the tensor engine on {cities} (lines)")
    with pytest.raises(SystemExit):
        sample.main(['--data', 'towns.txt'])
    assert 'no model trained on towns.txt: build/gpt-towns.npz does not exist' in capsys.readouterr().err


# --- sampling at any temperature ---

@pytest.mark.parametrize('temperature', [1e-310, 1e-300, 5e-324, 1e-30])
def test_a_tiny_temperature_puts_all_the_probability_on_the_largest_logit_in_both_engines(temperature):
    logits = [0.3, 2.5, -1.0, 2.5 - 1e-9]
    Value = importlib.import_module('micrograd.engine').Value
    with warnings.catch_warnings():
        warnings.simplefilter('error')  # no overflow warning either
        tensor = tensor_gpt.probabilities(np.array([logits]), temperature)[0]
        scalar = scalar_gpt.probabilities([Value(x) for x in logits], temperature)
    assert tensor.tolist() == scalar == [0.0, 1.0, 0.0, 0.0]


@pytest.mark.parametrize('temperature', [0.5, 1.0, 3.0, 1e300])
def test_both_engines_compute_the_same_probabilities_at_ordinary_temperatures(temperature):
    logits = [0.3, 2.5, -1.0, 1.7]
    Value = importlib.import_module('micrograd.engine').Value
    expected = np.exp(np.array(logits) / temperature)
    expected /= expected.sum()
    np.testing.assert_allclose(tensor_gpt.probabilities(np.array([logits]), temperature)[0], expected, rtol=1e-12)
    np.testing.assert_allclose(scalar_gpt.probabilities([Value(x) for x in logits], temperature), expected,
                               rtol=1e-12)


def test_at_a_tiny_temperature_both_engines_make_up_the_same_greedy_names_from_the_same_weights():
    tokenizer = data.Tokenizer(['abcdefghijklmnopqrstuvwxyz'])
    scalar = scalar_gpt.GPT(tokenizer.vocab_size, n_embd=8, n_head=2, seed=3)
    tensor = tensor_gpt.GPT(tokenizer.vocab_size, n_embd=8, n_head=2)
    tensor.load_microgpt(scalar.state_dict)
    greedy = scalar.sample(tokenizer.bos, random.Random(0), temperature=1e-310)
    assert tensor.sample(3, tokenizer.bos, np.random.default_rng(0), temperature=1e-310) == [greedy] * 3


# --- a text file in UTF-16 or UTF-32 ---

@pytest.mark.parametrize('encoding, named', [
    ('utf-16', 'UTF-16'), ('utf-16-le', 'UTF-16LE'), ('utf-16-be', 'UTF-16BE'), ('utf-32', 'UTF-32'),
    ('utf-32-le', 'UTF-32LE'), ('utf-32-be', 'UTF-32BE'),
])
def test_a_utf16_or_utf32_file_is_named_with_how_to_convert_it(tmp_path, encoding, named):
    path = tmp_path / 'names.txt'
    path.write_bytes('anna\nbob\nzoë\n'.encode(encoding))
    with pytest.raises(data.DataError) as refused:
        data.read_text(path)
    message = str(refused.value)
    assert f"is {named} text, not UTF-8" in message and f"iconv -f {named} -t UTF-8 '{path}'" in message
    assert path.read_bytes().decode(named.lower()).lstrip('\ufeff') == 'anna\nbob\nzoë\n'  # the name is right
    assert 'NUL' not in message
