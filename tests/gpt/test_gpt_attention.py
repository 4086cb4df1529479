"""The look inside: the attention weights --show draws are the ones the forward pass used.

Each row of a head's map is a softmax over the positions so far: it sums to 1, and every
later position has weight exactly 0. The tensor GPT records the weights it multiplies the
values by and still computes the fused op's logits; the scalar GPT records them from its
key/value cache; from the same weights both record the same maps.
"""
import re

import numpy as np
import pytest

from tests.gpt.examples import example

look_inside = example('look_inside')
options = example('options')
data = example('data')
tensor_gpt = example('tensor_gpt')
scalar_gpt = example('scalar_gpt')

TOKENIZER = data.Tokenizer(['abcdefghijklmnopqrstuvwxyz'])
WORDS = ['emma', 'christopher', 'a']


def tokens_of(word):
    return TOKENIZER.encode(word, end=False)  # [BOS, letters...]: what --show reads


def assert_causal_attention(maps, T, n_layer, n_head):
    maps = np.asarray(maps)
    assert maps.shape == (n_layer, n_head, T, T)
    np.testing.assert_allclose(maps.sum(axis=-1), 1.0, rtol=0, atol=1e-12)  # each row: a probability distribution
    assert (maps[..., np.triu_indices(T, k=1)[0], np.triu_indices(T, k=1)[1]] == 0).all()  # the future: exactly 0
    assert (maps >= 0).all()


@pytest.mark.parametrize('word', WORDS)
def test_every_tensor_head_spreads_each_position_over_itself_and_the_past(word):
    model = tensor_gpt.GPT(TOKENIZER.vocab_size, n_embd=16, n_head=4, n_layer=2, seed=1)
    maps, probs = model.look_inside(tokens_of(word))
    assert_causal_attention(maps, len(word) + 1, n_layer=2, n_head=4)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert probs.shape == (len(word) + 1, TOKENIZER.vocab_size)


@pytest.mark.parametrize('word', WORDS)
def test_every_scalar_head_spreads_each_position_over_itself_and_the_past(word):
    model = scalar_gpt.GPT(TOKENIZER.vocab_size, n_embd=8, n_head=2, n_layer=2, seed=1)
    maps, probs = model.look_inside(tokens_of(word))
    assert_causal_attention(maps, len(word) + 1, n_layer=2, n_head=2)
    np.testing.assert_allclose(np.sum(probs, axis=1), 1.0, rtol=0, atol=1e-12)


def test_the_recorded_weights_are_the_ones_the_forward_pass_multiplies_the_values_by():
    """With a list to record into, attention runs step by step and keeps its weights; the logits
    are the fused scaled_dot_product_attention's, so the weights are those of the real forward pass."""
    model = tensor_gpt.GPT(TOKENIZER.vocab_size, n_embd=16, n_head=4, n_layer=2, seed=3)
    idx = np.array([tokens_of('emma') + [0] * 2, tokens_of('christ')])
    recorded = []
    with tensor_gpt.no_grad():
        fused = model(idx).data
        spelled_out = model.forward(idx, attention=recorded).data
    np.testing.assert_allclose(spelled_out, fused, rtol=0, atol=1e-12)
    assert [w.shape for w in recorded] == [(2, 4, 7, 7)] * 2  # one (batch, head, T, T) array per layer

    # And the first layer's output is those weights times the values, head by head.
    block, x = model.blocks[0], model.norm(model.wte(idx) + model.wpe(np.arange(7)))
    a, h = block.attn, block.attn_norm(x)
    v = a.v(h).data.reshape(2, 7, 4, 4).swapaxes(1, 2)  # (B, head, T, head_dim)
    by_hand = a.o((recorded[0] @ v).swapaxes(1, 2).reshape(2, 7, 16)).data
    np.testing.assert_allclose(by_hand, a(h).data, rtol=0, atol=1e-12)


def test_the_scalar_and_tensor_gpts_record_the_same_maps_from_the_same_weights():
    scalar = scalar_gpt.GPT(TOKENIZER.vocab_size, n_embd=8, n_head=2, n_layer=2, seed=5)
    tensor = tensor_gpt.GPT(TOKENIZER.vocab_size, n_embd=8, n_head=2, n_layer=2)
    tensor.load_microgpt(scalar.state_dict)
    for word in WORDS:
        scalar_maps, scalar_probs = scalar.look_inside(tokens_of(word))
        tensor_maps, tensor_probs = tensor.look_inside(tokens_of(word))
        np.testing.assert_allclose(scalar_maps, tensor_maps, rtol=0, atol=1e-12)
        np.testing.assert_allclose(scalar_probs, tensor_probs, rtol=0, atol=1e-12)


def test_the_scalar_gpt_refuses_to_look_at_more_than_its_context():
    with pytest.raises(ValueError, match='17 tokens are more than the block size 16'):
        scalar_gpt.GPT(TOKENIZER.vocab_size, seed=42).look_inside([26] * 17)


# --- what --show prints and draws ---

def test_show_prints_each_positions_next_token_probability_and_draws_two_pngs(tmp_path, capsys):
    model = tensor_gpt.GPT(TOKENIZER.vocab_size, n_embd=16, n_head=4, n_layer=2)
    paths = look_inside.show('emma', TOKENIZER, 'lines', 16, model.look_inside, tmp_path / 'gpt.npz')
    assert [p.name for p in paths] == ['gpt-attention-emma.png', 'gpt-next-emma.png']
    for path in paths:
        assert path.read_bytes()[:8] == b'\x89PNG\r\n\x1a\n' and path.stat().st_size > 10_000
    lines = capsys.readouterr().out.splitlines()
    _, probs = model.look_inside(tokens_of('emma'))
    rows = [line.split() for line in lines[2:7]]
    assert [row[:2] for row in rows] == [['BOS', 'e'], ['e', 'm'], ['m', 'm'], ['m', 'a'], ['a', 'end']]
    expected = [probs[0, 4], probs[1, 12], probs[2, 12], probs[3, 0], probs[4, TOKENIZER.bos]]
    assert [float(row[2]) for row in rows] == [round(p, 3) for p in expected]


@pytest.mark.parametrize('word, message', [
    ('Emma', r"no token for \['E'\]"),
    ('', 'at least one character'),
    ('a' * 16, '16 characters do not fit the context'),
])
def test_show_refuses_a_word_the_model_cannot_read(tmp_path, word, message):
    model = tensor_gpt.GPT(TOKENIZER.vocab_size)
    with pytest.raises(options.UsageError, match=message):
        look_inside.show(word, TOKENIZER, 'lines', 16, model.look_inside, tmp_path / 'gpt.npz')


def test_the_loss_curve_draws_the_losses_with_both_baselines(tmp_path):
    pictures = example('pictures')
    losses = 3.0 * np.exp(-np.arange(200) / 80) + 1.2
    figure = pictures.loss_figure(losses, uniform=3.3, bigram=2.4, val_loss=1.9, resumed_at=[100])
    ax = figure.axes[0]
    labels = [line.get_label() for line in ax.get_lines()]
    assert any(re.match(r'uniform guess: 3\.300', label) for label in labels)
    assert any(re.match(r'bigram baseline .*: 2\.400', label) for label in labels)
    assert 'resumed' in labels
    assert pictures.save(figure, tmp_path / 'loss.png').read_bytes()[:4] == b'\x89PNG'


def test_a_large_vocabulary_is_narrowed_to_the_tokens_that_matter_in_the_next_token_picture():
    pictures = example('pictures')
    probs = np.full((3, 60), 0.001)
    probs[:, 5] = probs[0, 7] = 0.3  # two tokens that matter, and target 50 which the model missed
    figure = pictures.next_token_figure(probs / probs.sum(axis=1, keepdims=True), ['BOS', 'x', 'y'],
                                        [f"t{i}" for i in range(60)], [50, None, 5])
    ax = figure.axes[0]
    assert [label.get_text() for label in ax.get_xticklabels()] == ['t5', 't7', 't50']
    assert '3 of 60 tokens' in ax.get_title()
