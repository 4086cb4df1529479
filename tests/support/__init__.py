"""What tests of several areas share: random scalar graphs built alike in micrograd and PyTorch (graphs.py),
the lecture's own Value class (lecture.py), and a real Chromium to look at pages with (browser.py: the viz
player and the demo page)."""
