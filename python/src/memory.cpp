// tensorplay._C's memory instruments (include/tensorplay/memory/) behind tensorplay.memory
// (python/tensorplay/memory.py): statistics, the summary table, snapshots as torch's dicts and
// lists, and memory history. Python frames: while history records with stacks "python" or
// "all", every event made while this thread holds the GIL also keeps the Python stack
// (filename, line, function), captured by the provider installed here; events without the
// GIL (kernels run with it released) keep their C++ stack only.
#include <tensorplay/memory/history.hpp>
#include <tensorplay/memory/snapshot.hpp>
#include <tensorplay/memory/stats.hpp>
#include <tensorplay/memory/summary.hpp>

#include "bindings.hpp"

namespace tensorplay::python::bindings {
namespace {

namespace mem = tensorplay::memory;

py::list frames_to_list(const std::vector<mem::Frame>& frames) {
  py::list out;
  for (const mem::Frame& f : frames) {
    py::dict d;
    d["filename"] = f.filename;
    d["line"] = f.line;
    d["name"] = f.name;
    out.append(d);
  }
  return out;
}

// torch.cuda.memory_snapshot()'s list (see snapshot.hpp for the keys).
py::list segments_to_list(const std::vector<mem::Segment>& segments) {
  py::list out;
  for (const mem::Segment& s : segments) {
    py::list blocks;
    for (const mem::Block& b : s.blocks) {
      py::dict block;
      block["address"] = b.address;
      block["size"] = b.size;
      block["requested_size"] = b.requested_size;
      block["state"] = b.state;
      if (b.has_frames) {
        block["frames"] = frames_to_list(b.frames);
        py::dict h;
        h["addr"] = b.address;
        h["real_size"] = b.requested_size;
        h["frames"] = frames_to_list(b.frames);
        py::list history;
        history.append(h);
        block["history"] = history;
      }
      blocks.append(block);
    }
    py::dict seg;
    seg["device"] = s.device;
    seg["address"] = s.address;
    seg["total_size"] = s.total_size;
    seg["allocated_size"] = s.allocated_size;
    seg["active_size"] = s.active_size;
    seg["requested_size"] = s.requested_size;
    seg["stream"] = s.stream;
    seg["segment_type"] = s.segment_type;
    seg["blocks"] = blocks;
    out.append(seg);
  }
  return out;
}

// The frame provider (memory/history.hpp): this thread's Python stack, innermost first, when it
// holds the GIL. Leaves any pending Python exception as it was.
mem::detail::ExtraFrames python_frames() noexcept {
  if (!Py_IsInitialized() || _Py_IsFinalizing() || !PyGILState_Check()) return nullptr;
  PyObject *type = nullptr, *value = nullptr, *traceback = nullptr;
  PyErr_Fetch(&type, &value, &traceback);
  mem::detail::ExtraFrames out;
  try {
    auto frames = std::make_shared<std::vector<mem::Frame>>();
    PyFrameObject* f = PyEval_GetFrame();  // borrowed
    Py_XINCREF(f);
    while (f != nullptr) {
      PyCodeObject* code = PyFrame_GetCode(f);  // new reference
      const char* file = PyUnicode_AsUTF8(code->co_filename);
      const char* name = PyUnicode_AsUTF8(code->co_name);
      if (file == nullptr || name == nullptr) PyErr_Clear();
      frames->push_back(mem::Frame{file != nullptr ? file : "??", PyFrame_GetLineNumber(f),
                                   name != nullptr ? name : "??"});
      Py_DECREF(code);
      PyFrameObject* back = PyFrame_GetBack(f);  // new reference
      Py_DECREF(f);
      f = back;
    }
    out = std::move(frames);
  } catch (...) {
    // Out of memory: the event keeps its C++ frames only.
  }
  PyErr_Restore(type, value, traceback);
  return out;
}

}  // namespace

void register_memory(const Target& t) {
  py::module_ m = py::reinterpret_borrow<py::module_>(t.module);
  mem::detail::HistoryRecorder::instance().set_frame_provider(&python_frames);
  m.def("_memory_stats", [](const std::string& device) {
    py::dict d;
    for (const auto& [key, value] : mem::memory_stats(Device(device))) d[py::str(key)] = value;
    return d;
  });
  m.def("_memory_reset_peak_memory_stats",
        [](const std::string& device) { mem::reset_peak_memory_stats(Device(device)); });
  m.def("_memory_summary", [](const std::string& device, bool abbreviated) {
    return mem::memory_summary(Device(device), abbreviated);
  });
  m.def("_memory_snapshot", [](const std::string& device) {
    return segments_to_list(mem::memory_snapshot(Device(device)));
  });
  m.def("_memory_record_history", [](bool enabled, std::size_t max_entries,
                                     const std::string& stacks, const std::string& device) {
    mem::_record_memory_history(enabled, max_entries, stacks, Device(device));
  });
  // torch 2.x's _snapshot() dict; trace entries carry the C++ frames here and the Python frames
  // are attached by memory.py from its own per-event record (see there).
  m.def("_memory_snapshot_dict", [](const std::string& device) {
    const mem::Snapshot snap = mem::_snapshot(Device(device));
    py::list traces;
    for (const std::vector<mem::TraceEntry>& device_trace : snap.device_traces) {
      py::list entries;
      for (const mem::TraceEntry& e : device_trace) {
        py::dict d;
        d["action"] = e.action;
        d["addr"] = e.addr;
        d["size"] = e.size;
        d["requested_size"] = e.requested_size;
        d["stream"] = e.stream;
        d["time_us"] = e.time_us;
        d["frames"] = frames_to_list(e.frames);
        entries.append(d);
      }
      traces.append(entries);
    }
    py::dict out;
    out["segments"] = segments_to_list(snap.segments);
    out["device_traces"] = traces;
    return out;
  });
  m.def("_memory_snapshot_json", [](const std::string& device) {
    return mem::snapshot_json(mem::_snapshot(Device(device)));
  });
}

}  // namespace tensorplay::python::bindings
