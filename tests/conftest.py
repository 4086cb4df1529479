import os

from hypothesis import settings

# In CI, the same examples every run: a failure there is reproducible, never a fluke of the draw.
settings.register_profile('ci', derandomize=True, print_blob=True)
if os.environ.get('CI'):
    settings.load_profile('ci')
