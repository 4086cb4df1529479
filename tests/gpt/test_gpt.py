"""From a neuron to a GPT: the examples in examples/gpt, as a specification.

The scalar GPT (one name, one position at a time, on Value) and the tensor GPT (a batch of
names at once, on micrograd.tensor) are one model: from the same weights they compute the
same loss. The building blocks themselves (Embedding, RMSNorm, CausalSelfAttention,
cross_entropy) are tested with the tensor module; here, what the examples put together.
"""
import math
import random

import numpy as np
import pytest

from tests.gpt.examples import example

data = example('data')
scalar_gpt = example('scalar_gpt')
tensor_gpt = example('tensor_gpt')
options = example('options')
training = example('training')

EMBEDDINGS = ('wte', 'wpe')  # tables of rows in both models; every other matrix is stored transposed


@pytest.fixture(scope='module')
def names():
    return data.load_names()


@pytest.fixture(scope='module')
def tokenizer(names):
    return data.Tokenizer(names)


# --- the data ---

def test_the_census_names_are_about_5000_lower_case_names_without_duplicates(names):
    assert 5000 <= len(names) <= 5500
    assert len(set(names)) == len(names)
    assert all(name.isalpha() and name.islower() for name in names)
    assert {'mary', 'james', 'emma'} <= set(names)


def test_the_split_is_fixed_by_its_seed_and_the_two_sets_share_no_name(names):
    train, val = data.split(names, seed=42)
    assert (train, val) == data.split(names, seed=42)
    assert len(val) == round(len(names) * 0.1)
    assert not set(train) & set(val)
    assert sorted(train + val) == names


def test_a_name_is_encoded_between_two_bos_tokens(tokenizer):
    assert tokenizer.vocab_size == 27  # a-z and BOS
    assert tokenizer.encode('emma') == [26, 4, 12, 12, 0, 26]
    assert tokenizer.decode(tokenizer.encode('emma')) == 'emma'


def test_the_bigram_baseline_beats_a_uniform_guess(names, tokenizer):
    train, val = data.split(names, seed=42)
    train_tokens, val_tokens = [tokenizer.encode(n) for n in train], [tokenizer.encode(n) for n in val]
    assert 2.0 < data.bigram_loss(train_tokens, val_tokens, tokenizer.vocab_size) < math.log(tokenizer.vocab_size)


# --- two engines, one model ---

def _tensor_gpt_with_the_weights_of(scalar: 'scalar_gpt.GPT', **config):
    model = tensor_gpt.GPT(scalar.vocab_size, **config)
    model.load_microgpt(scalar.state_dict)
    return model


@pytest.mark.parametrize('name', ['emma', 'christopher', 'al'])
def test_the_scalar_and_tensor_gpts_compute_the_same_loss_and_gradients_from_the_same_weights(tokenizer, name):
    scalar = scalar_gpt.GPT(tokenizer.vocab_size, seed=42)
    tensor = _tensor_gpt_with_the_weights_of(scalar)
    tokens = tokenizer.encode(name)

    scalar_loss = scalar.loss(tokens)
    tensor_loss = tensor.loss(*tensor_gpt.batch([tokens], tensor.block_size))
    assert abs(scalar_loss.data - tensor_loss.item()) < 1e-9

    scalar_loss.backward()
    tensor_loss.backward()
    for key, weight in tensor.microgpt_names().items():
        grad = weight.grad if key in EMBEDDINGS else weight.grad.T
        expected = np.array([[w.grad for w in row] for row in scalar.state_dict[key]])
        np.testing.assert_allclose(grad, expected, rtol=0, atol=1e-9, err_msg=key)


def test_a_padded_batch_has_the_loss_of_its_names_one_at_a_time(tokenizer):
    """Padding after the final BOS changes nothing: the mask hides it, ignore_index drops its targets."""
    scalar = scalar_gpt.GPT(tokenizer.vocab_size, n_layer=2, seed=3)
    tensor = _tensor_gpt_with_the_weights_of(scalar, n_layer=2)
    token_lists = [tokenizer.encode(name) for name in ('bo', 'christopher', 'emma')]
    positions = [len(tokens) - 1 for tokens in token_lists]
    expected = sum(scalar.loss(tokens).data * n for tokens, n in zip(token_lists, positions)) / sum(positions)
    assert abs(tensor.loss(*tensor_gpt.batch(token_lists, tensor.block_size)).item() - expected) < 1e-9


def test_the_scalar_gpt_keeps_microgpts_parameter_layout():
    model = scalar_gpt.GPT(27, seed=42)
    assert list(model.state_dict) == ['wte', 'wpe', 'lm_head', 'layer0.attn_wq', 'layer0.attn_wk', 'layer0.attn_wv',
                                      'layer0.attn_wo', 'layer0.mlp_fc1', 'layer0.mlp_fc2']
    shapes = {key: (len(rows), len(rows[0])) for key, rows in model.state_dict.items()}
    assert shapes['wpe'] == (16, 16) and shapes['lm_head'] == (27, 16) and shapes['layer0.mlp_fc1'] == (64, 16)
    assert len(model.parameters()) == 4192  # microgpt's count for 27 tokens
    assert model.parameters()[0] is model.state_dict['wte'][0][0]
    rng = random.Random(42)
    assert model.parameters()[0].data == rng.gauss(0, 0.08)  # microgpt's first draw after random.seed(42)


# --- training and sampling ---

def test_a_few_scalar_steps_lower_the_loss_and_samples_use_the_training_alphabet(tokenizer):
    from micrograd.optim import Adam
    model = scalar_gpt.GPT(tokenizer.vocab_size, n_embd=8, n_head=2, block_size=8, seed=42)
    tokens = tokenizer.encode('anna')
    optimizer = Adam(model.parameters(), lr=0.01, betas=(0.85, 0.99))
    losses = []
    for _ in range(5):
        loss = model.loss(tokens)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.data)
    assert losses[-1] < losses[0]
    ids = model.sample(tokenizer.bos, random.Random(0), temperature=0.5)
    assert len(ids) <= 8 and set(tokenizer.decode(ids)) <= set(tokenizer.chars)


def test_a_few_tensor_steps_lower_the_loss_and_samples_are_strings_of_the_training_alphabet(names, tokenizer):
    token_lists = [tokenizer.encode(name) for name in names[:256]]
    model = tensor_gpt.GPT(tokenizer.vocab_size, n_embd=16, n_head=4, block_size=16)
    before = tensor_gpt.evaluate(model, token_lists)
    losses = training.train(model, token_lists, options.settings('tensor', steps=20, batch_size=32),
                            tensor_gpt.batches, log_every=0)
    assert len(losses) == 20
    assert tensor_gpt.evaluate(model, token_lists) < before - 0.2
    samples = [tokenizer.decode(ids) for ids in model.sample(20, tokenizer.bos, np.random.default_rng(0))]
    assert len(samples) == 20
    assert all(isinstance(s, str) and len(s) <= 16 and set(s) <= set(tokenizer.chars) for s in samples)


def test_sampling_is_reproducible_with_a_seed(tokenizer):
    model = tensor_gpt.GPT(tokenizer.vocab_size)
    first = model.sample(5, tokenizer.bos, np.random.default_rng(7))
    assert first == model.sample(5, tokenizer.bos, np.random.default_rng(7))


# --- bad input gets a clear error ---

def test_an_empty_name_list_is_refused_with_a_clear_error(tokenizer):
    with pytest.raises(ValueError, match='empty'):
        data.Tokenizer([])
    with pytest.raises(ValueError, match='empty'):
        data.split([], seed=42)
    with pytest.raises(ValueError, match='empty'):
        training.train(tensor_gpt.GPT(tokenizer.vocab_size), [], options.settings('tensor', steps=1, batch_size=4),
                       tensor_gpt.batches)


def test_a_sequence_longer_than_the_block_size_is_refused_by_both_models(tokenizer):
    tokens = tokenizer.encode('christopher')  # 12 positions
    with pytest.raises(ValueError, match='block size 8'):
        scalar_gpt.GPT(tokenizer.vocab_size, block_size=8, seed=42).loss(tokens)
    model = tensor_gpt.GPT(tokenizer.vocab_size, block_size=8)
    with pytest.raises(ValueError, match='block size 8'):
        model(np.zeros((1, 12), dtype=np.int64))
    with pytest.raises(ValueError, match='block size 8'):
        tensor_gpt.batch([tokens], model.block_size)


def test_a_token_outside_the_vocabulary_is_refused_by_both_models(tokenizer):
    with pytest.raises(IndexError, match='token id 27 is out of range'):
        scalar_gpt.GPT(tokenizer.vocab_size, seed=42).loss([26, 27, 26])
    with pytest.raises(IndexError, match='index 27 is out of range'):  # micrograd.tensor.Embedding's own error
        tensor_gpt.GPT(tokenizer.vocab_size)(np.array([[26, 27]]))


def test_a_character_outside_the_training_alphabet_is_refused_by_the_tokenizer(tokenizer):
    with pytest.raises(ValueError, match=r"outside the training alphabet: \['-'\]"):
        tokenizer.encode('mary-jane')
