"""Saving and loading from Python, against the real producers in the same process: torch 1.13's
torch.save / torch.load both ways (state dicts, views sharing storage, strides, offsets, 0-d
tensors, every dtype both libraries have, containers), tensorplay.safetensors (round trips,
zero-copy read-only mapping, safe_open, safetensors.torch's refusals), tp.from_file against
torch.from_file, and hostile files refused with typed errors. Skipped without torch."""
import collections
import io
import os
import pickle
import tempfile
import unittest
import zipfile

import tensorplay as tp
import tensorplay.safetensors as st

try:
    import torch
except ImportError:
    torch = None

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64"]


def tp_from_torch(t):
    return tp.tensor(t.tolist(), dtype=getattr(tp, str(t.dtype).split(".")[1]))


@unittest.skipIf(torch is None, "torch is not importable")
class TorchZipTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "f.pt")

    def tearDown(self):
        self.dir.cleanup()

    def assertSame(self, a, b):
        # a tensorplay tensor against a torch tensor: dtype, geometry and values.
        self.assertEqual(str(a.dtype).split(".")[1], str(b.dtype).split(".")[1])
        self.assertEqual(tuple(a.shape), tuple(b.shape))
        self.assertEqual(tuple(a.stride()), tuple(b.stride()))
        self.assertEqual(a.storage_offset(), b.storage_offset())
        self.assertEqual(a.float().tolist(), b.float().tolist())

    def test_torch_state_dict_loads(self):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
        sd = model.state_dict()
        torch.save(sd, self.path)
        back = tp.load(self.path)
        self.assertIsInstance(back, collections.OrderedDict)
        self.assertEqual(list(back), list(sd))
        for k in sd:
            self.assertSame(back[k], sd[k])

    def test_torch_views_stay_views(self):
        x = torch.arange(12.0).reshape(3, 4)
        torch.save({"x": x, "t": x.t(), "s": x[1:, 2:], "z": torch.tensor(7)}, self.path)
        back = tp.load(self.path)
        for k, v in {"x": x, "t": x.t(), "s": x[1:, 2:]}.items():
            self.assertSame(back[k], v)
        self.assertTrue(back["t"]._is_view() or back["t"].data_ptr() == back["x"].data_ptr())
        self.assertEqual(back["s"].data_ptr() - back["x"].data_ptr(), 6 * 4)
        back["x"][1, 2] = 100.0  # one storage: the write shows through the other views
        self.assertEqual(back["s"][0, 0].item(), 100.0)
        self.assertEqual(back["z"].dim(), 0)
        self.assertEqual(back["z"].item(), 7)

    def test_every_dtype_both_ways(self):
        for name in DTYPES:
            src = torch.tensor([[1, 0, 3], [2, 5, 1]]).to(getattr(torch, name))
            torch.save({"a": src, "at": src.t()}, self.path)
            back = tp.load(self.path)
            self.assertSame(back["a"], src)
            self.assertSame(back["at"], src.t())
            mine = tp_from_torch(src)
            tp.save([mine, mine.t(), mine[1]], self.path)
            theirs = torch.load(self.path)
            self.assertSame(mine, theirs[0])
            self.assertSame(mine.t(), theirs[1])
            self.assertSame(mine[1], theirs[2])
            self.assertEqual(theirs[0].data_ptr(), theirs[1].data_ptr())

    def test_mmap_load(self):
        x = torch.arange(12.0).reshape(3, 4)
        torch.save({"x": x, "s": x[1:, 2:]}, self.path)
        with open(self.path, "rb") as f:
            before = f.read()
        back = tp.load(self.path, mmap=True)
        self.assertEqual(back["s"].tolist(), [[6.0, 7.0], [10.0, 11.0]])
        back["x"].add_(1)  # copy-on-write: the tensors change, the file does not
        self.assertEqual(back["s"].tolist(), [[7.0, 8.0], [11.0, 12.0]])
        with open(self.path, "rb") as f:
            self.assertEqual(f.read(), before)
        with self.assertRaisesRegex(ValueError, "mmap"):
            tp.load(io.BytesIO(before), mmap=True)

    def test_containers_and_leaves(self):
        obj = {"l": [1, -2**62, 2.5, True, None, "héllo", (3, (4,))],
               "o": collections.OrderedDict(b=tp.ones(2), a=tp.zeros(1, dtype=tp.int64)),
               7: "int key"}
        buf = io.BytesIO()
        tp.save(obj, buf)
        buf.seek(0)
        theirs = torch.load(io.BytesIO(buf.getvalue()))
        self.assertEqual(theirs["l"], obj["l"])
        self.assertIsInstance(theirs["o"], collections.OrderedDict)
        self.assertEqual(list(theirs["o"]), ["b", "a"])
        self.assertEqual(theirs[7], "int key")
        mine = tp.load(buf)
        self.assertEqual(mine["l"], obj["l"])
        self.assertEqual(list(mine["o"]), ["b", "a"])
        self.assertIsInstance(mine["o"], collections.OrderedDict)

    def test_requires_grad_round_trips(self):
        w = tp.ones(3).requires_grad_()
        tp.save({"w": w}, self.path)
        self.assertTrue(torch.load(self.path)["w"].requires_grad)
        torch.save({"p": torch.nn.Parameter(torch.ones(2))}, self.path)
        self.assertTrue(tp.load(self.path)["p"].requires_grad)

    def test_unsupported_objects_and_arguments(self):
        with self.assertRaises(TypeError):
            tp.save({"f": object()}, self.path)
        with self.assertRaises(ValueError):
            tp.save(2**70, self.path)
        with self.assertRaises(ValueError):
            tp.save(1, self.path, pickle_protocol=4)
        with self.assertRaises(TypeError):
            tp.load(self.path, map_location=lambda s, loc: s)

    def test_code_is_never_run(self):
        class Evil:
            def __reduce__(self):
                return (os.system, ("echo pwned",))
        # A torch.save archive whose data.pkl calls os.system.
        with zipfile.ZipFile(self.path, "w") as z:
            z.writestr("archive/data.pkl", pickle.dumps(Evil(), protocol=2))
            z.writestr("archive/version", "3\n")
        with self.assertRaisesRegex(RuntimeError, "Unsupported global: GLOBAL posix.system"):
            tp.load(self.path)
        with open(self.path, "wb") as f:
            f.write(b"PK\x03\x04 truncated")
        with self.assertRaisesRegex(RuntimeError, "PytorchStreamReader failed"):
            tp.load(self.path)


@unittest.skipIf(torch is None, "torch is not importable")
class SafetensorsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "f.safetensors")

    def tearDown(self):
        self.dir.cleanup()

    def test_round_trip_every_dtype(self):
        tensors = {name: tp_from_torch(torch.tensor([[1, 0, 3], [2, 5, 1]]).to(getattr(torch, name)))
                   for name in DTYPES}
        tensors["scalar"] = tp.tensor(2.5)
        tensors["empty"] = tp.zeros(0, 3)
        st.save_file(tensors, self.path, metadata={"format": "pt"})
        back = st.load_file(self.path)
        self.assertEqual(sorted(back), sorted(tensors))
        for k, v in tensors.items():
            self.assertEqual(back[k].dtype, v.dtype)
            self.assertEqual(back[k].shape, v.shape)
            self.assertTrue(tp.equal(back[k], v))
        self.assertEqual(st.load(st.save(tensors))["float32"].tolist(), tensors["float32"].tolist())
        with st.safe_open(self.path, framework="pt") as f:
            self.assertEqual(f.keys(), sorted(tensors))
            self.assertEqual(f.metadata(), {"format": "pt"})
            self.assertTrue(tp.equal(f.get_tensor("int64"), tensors["int64"]))
            part = f.get_slice("float32")
            self.assertEqual((part.get_shape(), part.get_dtype()), ([2, 3], "F32"))
            self.assertEqual(f.get_slice("bfloat16").get_dtype(), "BF16")
            row = part[1, 1:]
            self.assertEqual(row.tolist(), [5.0, 1.0])
            row.add_(1)  # a tensor of its own, writable
            self.assertEqual(f.get_tensor("float32")[1, 1:].tolist(), [5.0, 1.0])

    def test_mapped_tensors_are_read_only(self):
        st.save_file({"w": tp.arange(6.0)}, self.path)
        w = st.load_file(self.path)["w"]
        with self.assertRaisesRegex(RuntimeError, "read-only"):
            w.add_(1)
        with self.assertRaisesRegex(RuntimeError, "read-only"):
            w[2:] = 0
        c = w.clone()
        c.add_(1)
        self.assertEqual(c.tolist(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        self.assertEqual(w.tolist(), [0.0, 1.0, 2.0, 3.0, 4.0, 5.0])

    def test_safetensors_torch_refusals(self):
        x = tp.arange(6.0)
        with self.assertRaisesRegex(ValueError, "non contiguous tensor"):
            st.save_file({"t": x.reshape(2, 3).t()}, self.path)
        with self.assertRaisesRegex(RuntimeError, "share memory"):
            st.save_file({"a": x, "b": x[1:]}, self.path)
        with self.assertRaises(ValueError):
            st.save_file([x], self.path)
        with self.assertRaises(ValueError):
            st.safe_open(self.path, framework="np")
        with open(self.path, "wb") as f:
            f.write(b"\x10\x00\x00\x00\x00\x00\x00\x00{}")
        with self.assertRaises(ValueError):
            st.load_file(self.path)
        st.save_file({"a": x}, self.path)
        with st.safe_open(self.path) as f:
            with self.assertRaises(LookupError):
                f.get_tensor("missing")
            self.assertIsNone(f.metadata())


@unittest.skipIf(torch is None, "torch is not importable")
class FromFileTest(unittest.TestCase):
    def test_from_file_matches_torch(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "raw.bin")
            with open(path, "wb") as f:
                f.write(bytes(range(16)))
            mine = tp.from_file(path, size=4, dtype=tp.int32)
            theirs = torch.from_file(path, size=4, dtype=torch.int32)
            self.assertEqual(mine.tolist(), theirs.tolist())
            mine.add_(1)  # shared=False: private copy-on-write, the file does not change
            with open(path, "rb") as f:
                self.assertEqual(f.read(), bytes(range(16)))
            shared = tp.from_file(path, shared=True, size=16, dtype=tp.uint8)
            shared.fill_(7)
            del shared
            with open(path, "rb") as f:
                self.assertEqual(f.read(), bytes([7] * 16))
            with self.assertRaises(RuntimeError):
                tp.from_file(path, size=100, dtype=tp.int32)


if __name__ == "__main__":
    unittest.main()
