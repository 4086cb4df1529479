"""Finding a program that lays graphs out, and asking it only for formats it writes."""
import shutil
import sys
import sysconfig
from pathlib import Path

import graphviz
import pytest
from graphviz.backend import dot_command

from micrograd.viz import RendererNotFound, draw_dot, renderer
from tests.viz.samples import PNG_SIGNATURE, labelled_f

pytestmark = pytest.mark.skipif(sys.platform == 'win32', reason='fake programs are shell scripts')


def fake_program(folder, name, formats='canon dot png svg'):
    """An executable standing in for a renderer on PATH: it lists its formats as dot does, and draws nothing."""
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(f'#!/bin/sh\necho \'Format: "?" not recognized. Use one of: {formats}\' >&2\nexit 1\n')
    path.chmod(0o755)
    return path


@pytest.fixture
def no_renderers(tmp_path, monkeypatch):
    """Neither `dot` on PATH nor graphviz-pure anywhere, and graphviz at its default `dot`."""
    monkeypatch.setenv('PATH', str(tmp_path / 'empty'))
    monkeypatch.setattr(renderer, '_script_dirs', lambda: [])
    monkeypatch.setattr(dot_command, 'DOT_BINARY', Path('dot'))
    return tmp_path


# --- what a user sees -------------------------------------------------------------

def test_without_any_renderer_drawing_fails_with_both_remedies(no_renderers):
    dot = draw_dot(labelled_f())
    assert dot.source  # describing the graph needs no renderer
    for draw in (dot.pipe, lambda: dot.render(no_renderers / 'f'), dot._repr_mimebundle_):
        with pytest.raises(RendererNotFound, match=r"pip install graphviz-pure.*viz extra.*Graphviz.*`dot`"
                           ) as info:
            draw()
        assert isinstance(info.value, graphviz.ExecutableNotFound)  # code that catches graphviz's error still does


@pytest.mark.skipif(shutil.which('dot') is not None, reason='a system Graphviz writes PDF')
def test_pdf_with_graphviz_pure_is_a_clear_error_naming_the_formats_that_work_and_writes_nothing(tmp_path):
    out = tmp_path / 'out'
    out.mkdir()
    dot = draw_dot(labelled_f())
    for draw in (lambda: dot.render(out / 'f', format='pdf'), lambda: dot.render(outfile=out / 'f.pdf'),
                 lambda: dot.pipe(format='pdf'), lambda: draw_dot(labelled_f(), format='pdf').render(out / 'f')):
        with pytest.raises(ValueError, match=r"graphviz-pure, the program that lays out graphs here, cannot write "
                                             r"'pdf'; it writes .*png.*svg.*install Graphviz") as info:
            draw()
        assert 'pdf' not in str(info.value).split('it writes ')[1].split('.')[0].split(', ')
        assert list(out.iterdir()) == []  # not even the DOT source that render() saves first
    assert Path(dot.render(out / 'f', format='png')).read_bytes()[:8] == PNG_SIGNATURE  # the formats it names work


def test_the_formats_checked_are_those_of_the_renderer_in_use(no_renderers, monkeypatch):
    # A system `dot` that writes PDF is asked for it as usual (this one then fails to draw: it is a fake).
    bin_dir = no_renderers / 'bin'
    fake_program(bin_dir, 'dot', formats='pdf png svg')
    monkeypatch.setenv('PATH', str(bin_dir))
    renderer.renderer_formats.cache_clear()
    try:
        with pytest.raises(graphviz.CalledProcessError):  # passed the check, ran the program
            draw_dot(labelled_f()).pipe(format='pdf')
        with pytest.raises(ValueError, match=r"dot, the program .* cannot write 'gif'; it writes pdf, png, svg\.$"):
            draw_dot(labelled_f()).pipe(format='gif')
    finally:
        renderer.renderer_formats.cache_clear()


@pytest.mark.skipif(shutil.which('dot') is None, reason='needs a system Graphviz')
def test_with_a_system_dot_pdf_works(tmp_path):
    assert Path(draw_dot(labelled_f()).render(tmp_path / 'f', format='pdf')).read_bytes()[:4] == b'%PDF'


# --- which program is used (internals) ---------------------------------------------

def test_system_dot_is_preferred_over_graphviz_pure(no_renderers, monkeypatch):
    bin_dir = no_renderers / 'bin'
    fake_program(bin_dir, 'dot')
    fake_program(bin_dir, 'graphviz-pure')
    monkeypatch.setenv('PATH', str(bin_dir))
    assert renderer._find_renderer() == Path('dot')


def test_graphviz_pure_is_found_next_to_python_when_that_folder_is_not_on_path(no_renderers, monkeypatch):
    # A venv used without activation (a Jupyter kernel started as .venv/bin/python) has
    # graphviz-pure in .venv/bin, which is not on PATH.
    scripts = fake_program(no_renderers / 'venv-bin', 'graphviz-pure').parent
    monkeypatch.setattr(renderer, '_script_dirs', lambda: [str(scripts)])
    renderer._use_renderer()
    assert dot_command.DOT_BINARY == scripts / 'graphviz-pure'


def test_the_scripts_folder_of_this_python_is_searched():
    assert sysconfig.get_path('scripts') in renderer._script_dirs()


def test_a_renderer_the_user_chose_is_left_alone(no_renderers, monkeypatch):
    monkeypatch.setattr(dot_command, 'DOT_BINARY', Path('/opt/graphviz/bin/dot'))
    renderer._use_renderer()
    assert dot_command.DOT_BINARY == Path('/opt/graphviz/bin/dot')


def test_a_renderer_that_does_not_list_its_formats_is_not_second_guessed(tmp_path):
    silent = tmp_path / 'silent'
    silent.write_text('#!/bin/sh\nexit 1\n')
    silent.chmod(0o755)
    assert renderer.renderer_formats(silent) is None
    renderer._check_format(silent, 'pdf')  # no list to check against: the program itself will answer


def test_graphviz_pure_lists_what_it_writes():
    pure = renderer._find_renderer()
    if pure is None or pure == Path('dot'):
        pytest.skip('graphviz-pure is not the renderer here')
    formats = renderer.renderer_formats(pure)
    assert {'svg', 'png'} <= set(formats) and 'pdf' not in formats
