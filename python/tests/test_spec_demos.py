"""The two Python demos of the design text (tensorplay-memory-stack.txt), run verbatim: their
printed output and the error must be exactly what the text shows."""
import contextlib
import io
import unittest

VERSION_GUARD_DEMO = '''
import tensorplay as tp

x = tp.Tensor([1.0, 2.0], requires_grad=True)
h = x.exp()         # backward needs h's forward output again
print(h._version)   # 0
h.add_(1.0)         # in place: version 0 -> 1
y = h.sum()
y.backward()
'''

VIEW_CLONE_DEMO = '''
import tensorplay as tp

a = tp.Tensor([[1., 2., 3.], [4., 5., 6.]])
v = a[0]                                # a view
print(a.data_ptr() == v.data_ptr())     # True: the same storage
c = a.clone()                           # a clone
print(a.data_ptr() == c.data_ptr())     # False: new storage
v[0] = 99.0                             # writing the view changes a
c[0] = -1.0                             # writing the clone does not
print(a)
'''


def run(source):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "<demo>", "exec"), {})
    return out.getvalue()


class SpecDemos(unittest.TestCase):
    def test_version_guard(self):
        out = io.StringIO()
        with self.assertRaises(RuntimeError) as cm, contextlib.redirect_stdout(out):
            exec(compile(VERSION_GUARD_DEMO, "<demo>", "exec"), {})
        self.assertEqual(out.getvalue(), "0\n")
        self.assertTrue(str(cm.exception).startswith(
            "one of the variables needed for gradient computation has been modified by an "
            "inplace operation"), str(cm.exception))
        # The rest of PyTorch's message: which tensor, which node, which versions.
        self.assertIn("[tensorplay.FloatTensor [2]], which is output 0 of ExpBackward0, is at "
                      "version 1; expected version 0 instead.", str(cm.exception))

    def test_view_and_clone(self):
        self.assertEqual(run(VIEW_CLONE_DEMO),
                         "True\nFalse\n"
                         "tensor([[99.,  2.,  3.],\n"
                         "        [ 4.,  5.,  6.]])\n")


if __name__ == "__main__":
    unittest.main()
