"""tensorplay.cuda from Python, with torch.cuda's names. Where there is no CUDA device (a module
built without the CUDA backend, or a machine without a driver or a GPU, as in CI),
is_available() is False, device_count() is 0, neither raises, and moving a tensor to CUDA raises
a RuntimeError that names CUDA instead of touching memory."""
import unittest

import tensorplay as tp


class CudaQueriesTest(unittest.TestCase):
    def test_queries_never_raise(self):
        self.assertIsInstance(tp.cuda.is_available(), bool)
        self.assertIsInstance(tp.cuda.device_count(), int)
        self.assertEqual(tp.cuda.is_available(), tp.cuda.device_count() > 0)

    @unittest.skipIf(tp.cuda.is_available(), "a CUDA device is present")
    def test_without_a_device_moving_to_cuda_raises(self):
        a = tp.ones(3)
        for move in (lambda: a.cuda(), lambda: a.to("cuda"), lambda: tp.zeros(2, device="cuda")):
            with self.assertRaisesRegex(RuntimeError, "CUDA|NVIDIA"):
                move()
        self.assertFalse(a.is_cuda)


if __name__ == "__main__":
    unittest.main()
