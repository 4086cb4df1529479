"""The documents stay true: README's examples run as printed, every path and command they cite exists, and the
demo notebook runs and says what the code does."""
