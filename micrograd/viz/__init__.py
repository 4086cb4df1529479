"""Drawing the graph a Value was made from, and watching backward() fill in its gradients.

    from micrograd.viz import draw_backward, draw_dot
    draw_dot(loss)                    # in Jupyter: shows the graph inline
    draw_dot(loss).render('loss')     # writes loss.svg
    print(draw_dot(loss).source)      # the DOT text, no renderer needed
    draw_backward(loss)               # in Jupyter: a player stepping through loss.backward(), node by node
    draw_backward(loss).save('loss.gif')  # or 'loss.html', a page that plays it in any browser

One idea per module:
    drawing.py         drawing a graph: trace, draw_dot, the boxes and their colours
    renderer.py        finding a program that lays graphs out (Graphviz's `dot`, or graphviz-pure from pip)
    which_op.py        which of the engine's ops made a Value: its record in micrograd.ops, if its own backward runs
    backward_steps.py  stepping through backward(): draw_backward, its steps and their captions
    player.py          the HTML player of a backward pass (its script is player.js, beside it)
    gif.py             the GIF writer

Nothing in micrograd imports this package: `import micrograd` never needs graphviz.
"""
from micrograd.viz.backward_steps import BackwardPass, GradChange, Step, draw_backward
from micrograd.viz.drawing import HIGHLIGHT, MAX_NODES, draw_dot, trace
from micrograd.viz.renderer import RendererNotFound

__all__ = ['trace', 'draw_dot', 'draw_backward', 'BackwardPass', 'Step', 'GradChange', 'RendererNotFound',
           'MAX_NODES', 'HIGHLIGHT']
