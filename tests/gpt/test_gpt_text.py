"""The GPT examples on a text of your own: reading it, cutting it into documents, refusing what
cannot be learned from, and learning more than letter pairs from it.

tests/gpt/data/made_up_words.txt holds 400 made-up words whose vowels and endings depend on the
start of the word (tests/gpt/data/make_words.py writes it): a GPT that reads the whole word beats
the bigram model there within seconds.
"""
import argparse
import importlib
import math
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.gpt.examples import GPT_DIR, WORDS, example

data = example('data')
options = example('options')
tensor_gpt = example('tensor_gpt')
scalar_gpt = example('scalar_gpt')

SMALL = ['--n-embd', '32', '--n-head', '4', '--n-layer', '1', '--block-size', '12']  # a model that trains in a second


def write(tmp_path, content, name='text.txt'):
    path = tmp_path / name
    (path.write_bytes if isinstance(content, bytes) else lambda c: path.write_text(c, encoding='utf-8'))(content)
    return path


# --- reading a file ---

def test_the_test_words_are_the_ones_their_script_writes():
    make_words = importlib.import_module('tests.gpt.data.make_words')
    assert WORDS.read_text(encoding='utf-8').split() == make_words.words()


def test_a_text_file_is_read_as_utf8_without_a_byte_order_mark_or_windows_line_ends(tmp_path):
    path = write(tmp_path, '\ufeffzoë\r\nana\r\n'.encode())
    assert data.read_text(path) == 'zoë\nana\n'


@pytest.mark.parametrize('content, message', [
    (b'', 'is empty'),
    (b' \n\n\t\n', 'holds only whitespace'),
    (b'\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR', 'not a text file: it has NUL bytes'),
    ('café\n'.encode('latin-1'), r'not UTF-8 text: the bytes at 3'),
])
def test_a_file_that_cannot_be_learned_from_is_refused_saying_why(tmp_path, content, message):
    with pytest.raises(data.DataError, match=message):
        data.read_text(write(tmp_path, content))


@pytest.mark.parametrize('line_end', ['\n', '\r\n', '\r'], ids=['unix', 'windows', 'old-mac'])
def test_every_kind_of_line_end_ends_a_line(tmp_path, line_end):
    path = write(tmp_path, line_end.join(['anna', 'bob', 'clara', '']).encode())
    assert data.read_text(path) == 'anna\nbob\nclara\n'
    assert data.load_corpus(str(path), 'lines', block_size=8, seed=42).tokenizer.chars == sorted(set('annabobclara'))


def test_a_file_with_old_mac_line_ends_is_not_one_long_line(tmp_path):
    """Read as one line, 400 words would be refused as too long for the context, and --block-size 3000 then
    as a single document, nothing to validate on."""
    path = write(tmp_path, WORDS.read_text(encoding='utf-8').replace('\n', '\r').encode())
    corpus = data.load_corpus(str(path), 'lines', block_size=12, seed=42)
    assert (len(corpus.train), len(corpus.val)) == (360, 40)


def pipe_of(text):
    """A pipe with text in it, as the shell's <(...) gives one: /dev/fd/N, written to by a thread."""
    read, write_end = os.pipe()

    def feed():
        with os.fdopen(write_end, 'wb') as f:
            f.write(text.encode())
    threading.Thread(target=feed, daemon=True).start()
    return read, f'/dev/fd/{read}'


@pytest.mark.skipif(not Path('/dev/fd').is_dir(), reason="needs /dev/fd, as the shell's <(...) does")
def test_a_pipe_is_read_as_a_file_as_the_shells_process_substitution_gives_one(tmp_path, capsys):
    read, path = pipe_of(WORDS.read_text(encoding='utf-8'))
    try:
        assert options.existing_file(path) == path
        out = run(tensor_gpt.main, ['--data', path, *SMALL, '--steps', '2', '--samples', '0',
                                    '--out', str(tmp_path / 'p.npz')], capsys)
    finally:
        os.close(read)
    assert '360 training lines, 40 validation lines' in out
    assert example('checkpoint').load(tmp_path / 'p.npz').training['data'] == path  # as named


@pytest.mark.skipif(sys.platform == 'win32', reason="/dev/stdin")
def test_the_training_script_reads_its_data_from_standard_input(tmp_path):
    script = GPT_DIR / 'tensor_gpt.py'
    argv = ['--data', '/dev/stdin', *SMALL, '--steps', '2', '--samples', '0', '--out', str(tmp_path / 's.npz')]
    result = subprocess.run([sys.executable, str(script), *argv], input=WORDS.read_text(encoding='utf-8'),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert '360 training lines, 40 validation lines (/dev/stdin)' in result.stdout


@pytest.mark.parametrize('make, message', [
    (lambda folder: folder / 'nowhere.txt', r'nowhere\.txt: no such file$'),
    (lambda folder: folder, r'is a folder, not a file$'),
    (lambda folder: _link(folder / 'link.txt', folder / 'gone.txt'), r'link\.txt: no such file \(it is a link to '
                                                                       r'.*gone\.txt, which does not exist\)$'),
])
def test_data_that_cannot_be_read_is_refused_saying_truly_why(tmp_path, make, message):
    with pytest.raises(argparse.ArgumentTypeError, match=message):
        options.existing_file(str(make(tmp_path)))


def _link(link, target):
    link.symlink_to(target)
    return link


def test_a_missing_file_is_refused_by_name(tmp_path):
    with pytest.raises(data.DataError, match=r'cannot read .*nowhere.txt'):
        data.read_text(tmp_path / 'nowhere.txt')


# --- lines and blocks ---

def test_lines_are_documents_without_blank_lines_or_the_spaces_around_them():
    assert data.lines_of('  anna \n\nbob\n   \nclara\n', block_size=16) == ['anna', 'bob', 'clara']


def test_a_line_longer_than_the_context_is_refused_naming_it_and_the_way_out():
    text = 'anna\nbartholomew\nbo\nmaximilianus\n'
    with pytest.raises(data.DataError) as refused:
        data.lines_of(text, block_size=8)
    message = str(refused.value)
    assert "line 2 ('bartholomew') has 11 characters" in message
    assert 'at most 7' in message and '2 line(s) are too long' in message
    assert '--block-size 13' in message and '--split blocks' in message


def test_a_line_of_block_size_minus_one_characters_fits():
    assert data.lines_of('abcdefg', block_size=8) == ['abcdefg']  # [BOS, a..g] predicts [a..g, BOS]: 8 positions


def test_blocks_cut_the_whole_text_newlines_included_into_pieces_of_block_size():
    assert data.blocks_of('one\ntwo\nthree\n', block_size=5) == ['one\nt', 'wo\nth', 'ree']


def test_a_block_is_encoded_without_an_end_token():
    tokenizer = data.Tokenizer(['ab\n'])
    assert tokenizer.encode('ab', end=False) == [3, 1, 2]
    assert tokenizer.encode('ab') == [3, 1, 2, 3]


def test_the_vocabulary_comes_from_the_data(tmp_path):
    corpus = data.load_corpus(str(write(tmp_path, 'über\nöl\nzebra\n')), 'lines', block_size=16, seed=42)
    assert corpus.tokenizer.chars == sorted(set('überölzebra'))
    assert corpus.tokenizer.vocab_size == len(set('überölzebra')) + 1


def test_one_line_is_too_little_to_split_into_training_and_validation(tmp_path):
    with pytest.raises(data.DataError, match='at least 2 documents'):
        data.load_corpus(str(write(tmp_path, 'lonely\n')), 'lines', block_size=16, seed=42)


def test_a_saved_models_tokenizer_refuses_data_with_characters_it_has_no_token_for(tmp_path):
    with pytest.raises(data.DataError, match=r"no token for: \['x'\]"):
        data.load_corpus(str(write(tmp_path, 'ab\nax\nba\n')), 'lines', 16, seed=42, tokenizer=data.Tokenizer(['ab']))


def test_the_bigram_baseline_counts_the_same_targets_as_the_model():
    """Documents [BOS, a, BOS] and [BOS, b, BOS]: every pair seen once; smoothing 0 gives exact probabilities."""
    tokenizer = data.Tokenizer(['a', 'b'])
    docs = [tokenizer.encode('a'), tokenizer.encode('b')]
    # P(a|BOS) = 1/2 (BOS is followed by a or b once each, BOS-as-end has no successor), P(BOS|a) = 1
    assert data.bigram_loss(docs, docs, tokenizer.vocab_size, smoothing=0) == pytest.approx(math.log(2) / 2)


# --- the command line ---

def run(main, argv, capsys):
    main(argv)
    return capsys.readouterr().out


def refused(main, argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 1
    return capsys.readouterr().err


@pytest.mark.parametrize('content, message', [
    (b'', 'is empty'),
    (b'\x00\x01\x02binary', 'not a text file'),
    (b'ok\nthis line is far too long for it\n', r"line 2 .* has 32 characters"),
])
def test_the_training_scripts_refuse_bad_data_with_one_line_and_exit_status_1(tmp_path, capsys, content, message):
    path = write(tmp_path, content)
    for main in (tensor_gpt.main, scalar_gpt.main):
        err = refused(main, ['--data', str(path), '--out', str(tmp_path / 'gpt.npz')], capsys)
        assert err.startswith(('tensor_gpt.py: error:', 'scalar_gpt.py: error:'))
        assert len(err.strip().splitlines()) == 1 and 'Traceback' not in err
        assert re.search(message, err)
    assert not (tmp_path / 'gpt.npz').exists()


def test_the_help_says_which_split_is_the_default_and_what_happens_to_long_lines(capsys):
    with pytest.raises(SystemExit):
        tensor_gpt.main(['--help'])
    text = ' '.join(capsys.readouterr().out.split())
    assert "'lines' (the default) reads one document per line" in text
    assert 'a line longer than the context (block size - 1 characters) is refused' in text
    assert "'blocks' reads the whole file as one text" in text


@pytest.mark.same_on_every_python  # a seeded training, the same on every Python
def test_the_tensor_gpt_learns_more_than_letter_pairs_from_a_small_text_file(tmp_path, capsys):
    out = run(tensor_gpt.main, ['--data', str(WORDS), *SMALL, '--steps', '300', '--out', str(tmp_path / 'w.npz'),
                                '--samples', '10'], capsys)
    assert '360 training lines, 40 validation lines' in out
    val, bigram = map(float, re.search(r'\| val loss ([\d.]+) \| bigram baseline val loss ([\d.]+)', out).groups())
    assert val < bigram - 0.3, out
    samples = out.split('(temperature 0.5) ---\n')[1].split()
    assert len(samples) == 10 and all(set(s) <= set('bdgklmnprstvzeiaouxn') for s in samples)
    assert (tmp_path / 'w.npz').is_file() and (tmp_path / 'w-loss.png').is_file()


@pytest.mark.same_on_every_python  # a seeded training, the same on every Python
def test_the_scalar_gpt_takes_the_same_option_and_writes_the_same_kind_of_file(tmp_path, capsys):
    out = run(scalar_gpt.main, ['--data', str(WORDS), '--n-embd', '8', '--n-head', '2', '--block-size', '12',
                                '--steps', '30', '--out', str(tmp_path / 's.npz'), '--samples', '3'], capsys)
    assert 'GPT on scalar Values' in out and '360 training lines' in out
    assert 'bigram baseline val loss' in out
    ck = example('checkpoint').load(tmp_path / 's.npz')
    assert ck.step == 30 and ck.training['engine'] == 'scalar' and ck.config['n_embd'] == 8


@pytest.mark.same_on_every_python  # a seeded training, the same on every Python
def test_blocks_train_on_the_whole_text_and_sample_blocks(tmp_path, capsys):
    text = write(tmp_path, 'the cat sat on the mat.\nthe dog sat on the log.\n' * 20)
    out = run(tensor_gpt.main, ['--data', str(text), '--split', 'blocks', *SMALL, '--steps', '60',
                                '--out', str(tmp_path / 'b.npz'), '--samples', '2'], capsys)
    assert 'training blocks' in out and '2 blocks of text the model made up' in out
    assert example('checkpoint').load(tmp_path / 'b.npz').config['split'] == 'blocks'
