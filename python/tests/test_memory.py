"""tensorplay.memory from Python: torch.cuda's memory instruments for the CPU allocator, in
torch's formats (checked with torch 1.13's own memory_summary and torch.cuda._memory_viz on our
output), memory history with Python frames, torch's pickled snapshot, and the leak finder
proving that loops of common operations leak nothing."""
import os
import pickle
import tempfile
import unittest

import tensorplay as tp

try:
    import torch
    import torch.cuda._memory_viz as memory_viz
    import torch.cuda.memory as torch_memory
except ImportError:  # pragma: no cover - torch is installed where these tests run
    torch = None


def block_total(nbytes):
    """The CPU allocator's block size for a request (64-byte header, 64-byte rounding)."""
    return (nbytes + 64 + 63) // 64 * 64


def _identity(lines):
    return lines


class MemoryStatsTest(unittest.TestCase):
    def test_keys_and_identities(self):
        s = tp.memory.memory_stats()
        self.assertEqual(s, tp.memory.memory_stats("cpu"))
        self.assertEqual(s.keys(), tp.memory.memory_stats(tp.device("cpu")).keys())
        for name in ("allocation", "segment", "active", "inactive_split", "allocated_bytes",
                     "reserved_bytes", "active_bytes", "inactive_split_bytes"):
            p = name + ".all."
            self.assertEqual(s[p + "current"], s[p + "allocated"] - s[p + "freed"], p)
            self.assertGreaterEqual(s[p + "peak"], s[p + "current"], p)
        self.assertNotIn("allocation.small_pool.current", s)
        self.assertIn("num_alloc_retries", s)
        self.assertIn("num_ooms", s)

    def test_a_tensor_moves_the_counters(self):
        before = tp.memory.memory_allocated()
        t = tp.empty(1000, dtype=tp.float32)
        self.assertEqual(tp.memory.memory_allocated() - before, block_total(4000))
        self.assertGreaterEqual(tp.memory.max_memory_allocated(), tp.memory.memory_allocated())
        self.assertGreaterEqual(tp.memory.memory_reserved(), tp.memory.memory_allocated())
        del t
        self.assertEqual(tp.memory.memory_allocated(), before)
        tp.memory.reset_peak_memory_stats()
        self.assertEqual(tp.memory.max_memory_allocated(), tp.memory.memory_allocated())
        self.assertEqual(tp.memory.max_memory_reserved(), tp.memory.memory_reserved())

    def test_bad_devices(self):
        with self.assertRaisesRegex(RuntimeError, "Expected one of cpu, cuda, vulkan device type "
                                    "at start of device string: tpu"):
            tp.memory.memory_stats("tpu")
        with self.assertRaises(NotImplementedError):
            tp.memory.memory_stats("vulkan")
        with self.assertRaises(TypeError):
            tp.memory.memory_allocated(1.5)
        if not tp.cuda.is_available():
            with self.assertRaises((RuntimeError, NotImplementedError)):
                tp.memory.memory_stats(0)  # an int is a CUDA index, as in torch
            with self.assertRaisesRegex(RuntimeError, "CUDA"):
                tp.cuda.memory_summary()
            with self.assertRaisesRegex(RuntimeError, "CUDA"):
                tp.cuda.memory_snapshot()


@unittest.skipIf(torch is None, "torch is not installed")
class TorchReadsOursTest(unittest.TestCase):
    def test_summary_is_torchs_table(self):
        keep = tp.ones(300, 300)  # noqa: F841 - something live in the table
        stats = tp.memory.memory_stats()
        saved = torch_memory.memory_stats
        try:
            torch_memory.memory_stats = lambda device=None: stats
            theirs = torch_memory.memory_summary(0, abbreviated=True)
        finally:
            torch_memory.memory_stats = saved
        # The same numbers: only the labels differ (see include/tensorplay/memory/summary.hpp).
        theirs = (theirs
                  .replace("PyTorch CUDA memory summary, device ID 0                 ",
                           "TensorPlay CPU memory summary, device ID 0               ")
                  .replace("CUDA OOMs: " + str(stats["num_ooms"]) + " ",
                           "CPU OOMs: " + str(stats["num_ooms"]) + "  ")
                  .replace("cudaMalloc retries: " + str(stats["num_alloc_retries"]) + "    ",
                           "malloc retries: " + str(stats["num_alloc_retries"]) + "        ")
                  .replace("GPU", "CPU"))
        ours = tp.memory.memory_summary("cpu", abbreviated=True)
        self.assertEqual(ours, theirs)
        del keep

    def test_memory_viz_reads_our_snapshot(self):
        keep = [tp.ones(100), tp.zeros(50, 50)]
        freed = tp.ones(1000)
        del freed  # an inactive (cached) block
        snapshot = tp.memory.memory_snapshot()
        summary = memory_viz.stats(snapshot)  # asserts blocks sum to each segment
        self.assertEqual(summary["segments"], len(snapshot))
        self.assertEqual(summary["segments"], tp.memory.memory_stats()["segment.all.current"])
        self.assertEqual(summary["total_size"].value, tp.memory.memory_reserved())
        self.assertEqual(summary["active_allocated"].value, tp.memory.memory_allocated())
        self.assertGreater(summary["inactive"].value, 0)
        lines = memory_viz.segments(snapshot, format_flamegraph=_identity)
        self.assertEqual(len(lines.splitlines()), len(snapshot))
        self.assertTrue(all(line.startswith("stream_0;seg_") for line in lines.splitlines()))
        total = sum(int(line.rsplit(" ", 1)[1]) for line in lines.splitlines())
        self.assertEqual(total, tp.memory.memory_reserved())
        del keep


class HistoryTest(unittest.TestCase):
    def tearDown(self):
        tp.memory._record_memory_history(False)

    def allocate_here(self):
        return tp.empty(12345, dtype=tp.uint8)

    def test_python_frames(self):
        tp.memory._record_memory_history(True, max_entries=1000, stacks="python")
        t = self.allocate_here()
        snap = tp.memory._snapshot()
        self.assertEqual(set(snap), {"segments", "device_traces"})
        allocs = [e for e in snap["device_traces"][0]
                  if e["action"] == "alloc" and e["requested_size"] == 12345]
        self.assertEqual(len(allocs), 1)
        frames = allocs[0]["frames"]
        self.assertEqual(frames[0]["name"], "allocate_here")
        self.assertTrue(frames[0]["filename"].endswith("test_memory.py"))
        self.assertEqual(frames[1]["name"], "test_python_frames")
        self.assertEqual(allocs[0]["stream"], 0)
        self.assertEqual(allocs[0]["size"], block_total(12345))
        # The live block keeps its allocation site, in torch 2.x's and 1.13's spellings.
        blocks = [b for s in snap["segments"] for b in s["blocks"]
                  if b["state"] == "active_allocated" and b["requested_size"] == 12345]
        self.assertEqual(len(blocks), 1)
        self.assertEqual(blocks[0]["frames"][0]["name"], "allocate_here")
        self.assertEqual(blocks[0]["history"][0]["real_size"], 12345)
        del t

    def test_all_stacks_put_cpp_frames_first(self):
        tp.memory._record_memory_history(True, stacks="all")
        t = self.allocate_here()
        trace = tp.memory._snapshot()["device_traces"][0]
        frames = [e for e in trace if e["action"] == "alloc" and e["requested_size"] == 12345][0][
            "frames"]
        names = [f["name"] for f in frames]
        self.assertIn("allocate_here", names)
        self.assertNotEqual(names[0], "allocate_here")  # C++ frames are the inner ones
        del t
        trace = tp.memory._snapshot()["device_traces"][0]
        self.assertEqual([e["action"] for e in trace[-2:]], ["free_requested", "free_completed"])

    def test_ring_and_errors(self):
        tp.memory._record_memory_history(True, max_entries=4, stacks="cpp")
        for _ in range(5):
            tp.empty(100)
        self.assertEqual(len(tp.memory._snapshot()["device_traces"][0]), 4)
        with self.assertRaisesRegex(ValueError, "stacks"):
            tp.memory._record_memory_history(True, stacks="java")
        with self.assertRaises(ValueError):
            tp.memory._record_memory_history(True, max_entries=0)
        with self.assertRaises(TypeError):
            tp.memory._record_memory_history(True, max_entries="many")

    def test_dump_snapshot_is_torchs_pickle(self):
        tp.memory._record_memory_history(True)
        t = tp.ones(77)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "snapshot.pickle")
            tp.memory._dump_snapshot(path)
            with open(path, "rb") as f:
                loaded = pickle.load(f)
        self.assertEqual(set(loaded), {"segments", "device_traces"})
        for seg in loaded["segments"]:
            self.assertEqual(sum(b["size"] for b in seg["blocks"]), seg["total_size"])
            for key in ("address", "total_size", "allocated_size", "active_size", "stream",
                        "segment_type", "blocks"):
                self.assertIn(key, seg)
        for e in loaded["device_traces"][0]:
            self.assertEqual(set(e) >= {"action", "addr", "size", "stream", "frames"}, True)
        with self.assertRaises(OSError):
            tp.memory._dump_snapshot(os.path.join(tempfile.gettempdir(), "no", "such", "dir.p"))
        del t


def leaky(store):
    store.append(tp.empty(256))


def common_ops():
    x = tp.randn(16, 16, requires_grad=True)
    y = (x @ x.t()).relu().sum()
    y.backward()
    z = x.detach().clone().view(-1)[::3].contiguous()
    w = tp.cat([z, z]).reshape(2, -1).mean(0)
    idx = tp.arange(5)
    v = tp.zeros(20).index_add(0, idx, tp.ones(5))
    return float(w.sum() + v.sum() + y)


class LeakFinderTest(unittest.TestCase):
    def tearDown(self):
        tp.memory._record_memory_history(False)

    def test_common_operations_leak_nothing(self):
        common_ops()  # warm-up: lazily built caches are not leaks
        tp.memory._record_memory_history(True, stacks="python")
        before = tp.memory.memory_snapshot()
        for _ in range(10):
            common_ops()
        after = tp.memory.memory_snapshot()
        self.assertEqual(tp.memory.compare(before, after), [])

    def test_a_leak_is_found_at_its_site(self):
        tp.memory._record_memory_history(True, stacks="python")
        store = []
        before = tp.memory._snapshot()
        for _ in range(3):
            leaky(store)
        diff = tp.memory.compare(before, tp.memory._snapshot())
        self.assertEqual(len(diff), 1)
        self.assertEqual(diff[0]["count"], 3)
        self.assertEqual(diff[0]["size"], 3 * block_total(256 * 4))
        self.assertEqual(diff[0]["frames"][0]["name"], "leaky")
        store.clear()
        self.assertEqual(tp.memory.compare(before, tp.memory._snapshot()), [])

    def test_compare_errors(self):
        with self.assertRaises(TypeError):
            tp.memory.compare(1, [])
        with self.assertRaisesRegex(ValueError, "segments"):
            tp.memory.compare({}, [])


try:
    import matplotlib  # noqa: F401
    HAVE_MATPLOTLIB = True
except ImportError:
    HAVE_MATPLOTLIB = False



def train_mlp_steps(steps):
    """examples/train_mlp's training (two spirals, 2 -> 64 -> 2, full-batch SGD), in Python."""
    tp.manual_seed(0)
    x = tp.randn(400, 2)
    y = (x[:, 0] * x[:, 1] > 0).to(tp.int64)
    onehot = tp.stack([y.eq(0), y.eq(1)], 1).to(tp.float32)
    params = [tp.randn(2, 64).requires_grad_(), tp.zeros(64, requires_grad=True),
              (tp.randn(64, 2) / 8).requires_grad_(), tp.zeros(2, requires_grad=True)]
    for _ in range(steps):
        w1, b1, w2, b2 = params
        logits = (x.mm(w1) + b1).relu().mm(w2) + b2
        loss = -(logits.log_softmax(1) * onehot).sum(1).mean()
        loss.backward()
        with tp.no_grad():
            for p in params:
                p.sub_(p.grad * 0.5)
                p.grad.zero_()
    return params


@unittest.skipUnless(HAVE_MATPLOTLIB, "matplotlib is not installed (Debian: python3-matplotlib)")
class MemoryVizTest(unittest.TestCase):
    def tearDown(self):
        tp.memory._record_memory_history(False)

    def run_viz(self, snapshot_path, out):
        import subprocess
        import sys
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        result = subprocess.run([sys.executable, "-m", "tensorplay.memory_viz", snapshot_path,
                                 "-o", out], capture_output=True, text=True, env=env)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertGreater(os.path.getsize(out), 1000)
        return dict(item.split("=") for item in result.stdout.split())

    def check_totals(self, printed, segments, reserved, active):
        self.assertEqual(int(printed["segments"]), segments)
        self.assertEqual(int(printed["reserved"]), reserved)
        self.assertEqual(int(printed["active"]), active)

    def test_plots_of_a_training_loop(self):
        params = train_mlp_steps(2)  # warm-up
        tp.memory._record_memory_history(True, stacks="python")
        params = train_mlp_steps(5)
        stats = tp.memory.memory_stats()
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "snapshot.pickle")
            tp.memory._dump_snapshot(path)
            for ext in (".png", ".svg", ".html"):
                printed = self.run_viz(path, os.path.join(d, "out" + ext))
                self.check_totals(printed, stats["segment.all.current"],
                                  stats["reserved_bytes.all.current"],
                                  stats["allocated_bytes.all.current"])
                self.assertGreater(int(printed["events"]), 0)
                self.assertLessEqual(int(printed["peak_active"]),
                                     stats["allocated_bytes.all.peak"])
            with open(os.path.join(d, "out.png"), "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
            with open(os.path.join(d, "out.html"), encoding="utf-8") as f:
                self.assertIn("<svg", f.read())
        del params

    @unittest.skipUnless(os.environ.get("TENSORPLAY_TRAIN_MLP"),
                         "set TENSORPLAY_TRAIN_MLP to the examples/train_mlp binary")
    def test_plots_of_examples_train_mlp(self):
        import subprocess
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "train_mlp.json")
            env = dict(os.environ, TENSORPLAY_MEMORY_SNAPSHOT=path)
            run = subprocess.run([os.environ["TENSORPLAY_TRAIN_MLP"]], capture_output=True,
                                 text=True, env=env)
            self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
            line = [ln for ln in run.stdout.splitlines() if ln.startswith("memory: ")][0].split()
            stats = dict(zip(line[1::2], map(int, line[2::2])))
            printed = self.run_viz(path, os.path.join(d, "out.png"))
            self.check_totals(printed, stats["segments"], stats["reserved"], stats["active"])

    def test_bad_output(self):
        from tensorplay import memory_viz
        with self.assertRaisesRegex(ValueError, "png"):
            memory_viz.render({"segments": [], "device_traces": [[]]}, "out.bmp")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "x.pickle")
            with open(path, "wb") as f:
                pickle.dump({"nope": 1}, f)
            with self.assertRaisesRegex(ValueError, "not a memory snapshot"):
                memory_viz.load(path)


if __name__ == "__main__":
    unittest.main()
