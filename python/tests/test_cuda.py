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

    @unittest.skipIf(tp.cuda.is_available(), "a CUDA device is present")
    def test_without_a_device_pinned_memory_raises(self):
        a = tp.arange(4.0)
        self.assertFalse(a.is_pinned())
        with self.assertRaisesRegex(RuntimeError, "CUDA|NVIDIA|pinned"):
            a.pin_memory()
        self.assertFalse(a.is_pinned())

    @unittest.skipIf(tp.cuda.is_available(), "a CUDA device is present")
    def test_without_a_device_the_memory_functions_raise(self):
        for fn in (tp.cuda.memory_allocated, tp.cuda.max_memory_allocated,
                   tp.cuda.memory_reserved, tp.cuda.max_memory_reserved, tp.cuda.memory_stats,
                   tp.cuda.reset_peak_memory_stats, tp.cuda.synchronize,
                   tp.cuda.current_device):
            with self.assertRaisesRegex(RuntimeError, "CUDA|NVIDIA"):
                fn()

    def test_device_arguments_are_checked(self):
        with self.assertRaisesRegex(ValueError, "Expected a cuda device, but got: cpu"):
            tp.cuda._device_index("cpu")
        self.assertEqual(tp.cuda._device_index(None), -1)
        self.assertEqual(tp.cuda._device_index(1), 1)
        self.assertEqual(tp.cuda._device_index("cuda:2"), 2)
        self.assertEqual(tp.cuda._device_index(tp.device("cuda")), -1)


@unittest.skipUnless(tp.cuda.is_available(), "no CUDA device: the device tests are skipped")
class CudaDeviceTest(unittest.TestCase):
    def test_memory_functions_follow_allocations(self):
        before = tp.cuda.memory_allocated()
        x = tp.empty(1000, device="cuda")
        self.assertTrue(x.is_cuda)
        self.assertEqual(tp.cuda.memory_allocated(), before + 4096)
        self.assertGreaterEqual(tp.cuda.max_memory_allocated(), before + 4096)
        self.assertGreaterEqual(tp.cuda.memory_reserved(), tp.cuda.memory_allocated())
        del x
        self.assertEqual(tp.cuda.memory_allocated(), before)
        tp.cuda.empty_cache()
        tp.cuda.synchronize()


if __name__ == "__main__":
    unittest.main()
