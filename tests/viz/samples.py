"""What several drawing tests share: the graph they draw (f, its numbers checked by hand) and how a PNG begins."""
from micrograd import Value

PNG_SIGNATURE = b'\x89PNG\r\n\x1a\n'


def labelled_f():
    """f = (a*b + c)**2 at a=2, b=-3, c=10: e = a*b = -6, d = e + c = 4, f = 16."""
    a, b, c = Value(2.0, label='a'), Value(-3.0, label='b'), Value(10.0, label='c')
    e = a * b
    e.label = 'e'
    d = e + c
    d.label = 'd'
    f = d ** 2
    f.label = 'f'
    return f
