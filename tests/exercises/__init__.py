"""The exercises: the library's own code passes every one, and the mutation tests (exercises_mutants.py,
exercises_tensor_mutants.py) plant the slips learners make and the right answers written otherwise."""
