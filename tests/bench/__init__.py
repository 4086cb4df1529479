"""The benchmarks run (a quick smoke run) and check what they time, and importing them changes nothing."""
