"""The GPT examples (examples/gpt): the model on both engines, its options, training, checkpoints and notebook."""
