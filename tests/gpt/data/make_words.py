"""Writes made_up_words.txt: 400 made-up words with rules a letter-pair (bigram) model cannot see.

A word is 2 to 4 consonant-vowel syllables and an ending. Its vowels are all front (e, i) or
all back (a, o, u), and its first consonant picks its ending (b d g k: -on, l m n p: -ia,
r s t v z: -ex). Predicting a vowel or the ending needs the start of the word, not just
the letter before: a GPT that reads the whole word should beat the bigram model. Run it
from the repository root to write the file again (the seed makes it the same file):

    python tests/gpt/data/make_words.py
"""
import random
from pathlib import Path

CONSONANTS = 'bdgklmnprstvz'
VOWELS = ('ei', 'aou')
ENDINGS = {**dict.fromkeys('bdgk', 'on'), **dict.fromkeys('lmnp', 'ia'), **dict.fromkeys('rstvz', 'ex')}


def word(rng: random.Random) -> str:
    vowels = rng.choice(VOWELS)
    syllables = [rng.choice(CONSONANTS) + rng.choice(vowels) for _ in range(rng.randint(2, 4))]
    return ''.join(syllables) + ENDINGS[syllables[0][0]]


def words(n: int = 400, seed: int = 19) -> list[str]:
    rng, unique = random.Random(seed), {}
    while len(unique) < n:
        unique.setdefault(word(rng), None)
    return list(unique)


if __name__ == '__main__':
    path = Path(__file__).with_name('made_up_words.txt')
    path.write_text('\n'.join(words()) + '\n', encoding='utf-8')
    print(f"wrote {path}")
