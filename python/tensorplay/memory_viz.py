"""Plots of a memory snapshot (``tensorplay.memory._dump_snapshot``'s pickle, or the JSON the
C++ ``tensorplay::memory::_dump_snapshot`` writes; torch 2.x's ``_snapshot()`` dict either way):

    python -m tensorplay.memory_viz snapshot.pickle -o out.png|out.svg|out.html [--top N]

Two panels: the active-memory timeline (the trace replayed event by event: the bytes alive,
stacked by allocation site, the ``--top`` sites by peak coloured and the rest grouped; blocks
alive before recording started form the bottom band) and the segment map (every segment along
the address order, its width its size, coloured by its blocks' states). ``.html`` embeds the
SVG with a table of the totals. Needs matplotlib (Debian's python3-matplotlib).

``render(snapshot, path)`` does the same from Python and returns the totals it drew:
``segments``, ``reserved`` (bytes in segments), ``active`` (bytes in active blocks),
``events`` and ``peak_active`` (the timeline's highest point).
"""
import argparse
import html
import io
import json
import os
import pickle
import sys


def load(path):
    """A snapshot dict from a pickle (Python) or JSON (C++) file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:1] in (b"{", b"["):
        snapshot = json.loads(data.decode("utf-8"))
    else:
        snapshot = pickle.loads(data)
    if isinstance(snapshot, list):  # memory_snapshot()'s list: no trace
        snapshot = {"segments": snapshot, "device_traces": [[]]}
    if not isinstance(snapshot, dict) or "segments" not in snapshot:
        raise ValueError(f"{path}: not a memory snapshot (expected a dict with 'segments')")
    return snapshot


def _common_prefix(trace):
    """How many innermost frames every allocation shares (the allocator's own frames)."""
    stacks = [e.get("frames") or [] for e in trace if e["action"] == "alloc"]
    stacks = [st for st in stacks if st]
    if not stacks:
        return 0
    n = min(len(st) for st in stacks)
    for i in range(n):
        key = (stacks[0][i].get("filename"), stacks[0][i].get("name"))
        if any((st[i].get("filename"), st[i].get("name")) != key for st in stacks):
            return i
    return max(n - 1, 0)


def _site(frames, skip=0):
    """A short label for an allocation site: the innermost Python frame, else the first two C++
    frames below the ones every allocation shares (``skip``)."""
    if not frames:
        return "<no stack>"
    for f in frames:
        if f.get("filename", "").endswith(".py"):
            return f"{os.path.basename(f['filename'])}:{f['line']} {f['name']}"
    return " < ".join(f.get("name", "?")[:40] for f in frames[skip:skip + 2]) or "<allocator>"


def timeline(snapshot):
    """Replays the trace: (series {site: [bytes alive after each event]}, base [bytes alive
    from before the trace], number of events)."""
    trace = snapshot.get("device_traces", [[]])
    trace = trace[0] if trace else []
    # Alive before recording started: blocks freed in the trace before any alloc of their
    # address in it, and active blocks of the snapshot whose address the trace never allocated.
    allocated_in_trace = set()
    base_bytes = 0
    for e in trace:
        if e["action"] == "alloc":
            allocated_in_trace.add(e["addr"])
        elif e["action"] == "free_completed" and e["addr"] not in allocated_in_trace:
            base_bytes += e["size"]
    for seg in snapshot["segments"]:
        for b in seg["blocks"]:
            address = b.get("address", seg["address"])
            if b["state"].startswith("active") and address not in allocated_in_trace:
                base_bytes += b["size"]
    live = {}  # addr -> (size, site)
    skip = _common_prefix(trace)
    seen = set()
    series = {}
    base = []
    alive_base = base_bytes
    for i, e in enumerate(trace):
        if e["action"] == "alloc":
            site = _site(e.get("frames"), skip)
            live[e["addr"]] = (e["size"], site)
            seen.add(e["addr"])
            series.setdefault(site, [0] * len(trace))
        elif e["action"] == "free_completed":
            if e["addr"] in live:
                del live[e["addr"]]
            elif e["addr"] not in seen:
                alive_base -= e["size"]
        for site in series:
            series[site][i] = 0
        for size, site in live.values():
            series[site][i] += size
        base.append(alive_base)
    return series, base, len(trace)


def totals(snapshot):
    segments = snapshot["segments"]
    return {
        "segments": len(segments),
        "reserved": sum(s["total_size"] for s in segments),
        "active": sum(b["size"] for s in segments for b in s["blocks"]
                      if b["state"].startswith("active")),
    }


def render(snapshot, path, top=8):
    """Draws the two panels into ``path`` (.png, .svg or .html); returns the totals."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ext = os.path.splitext(path)[1].lower()
    if ext not in (".png", ".svg", ".html"):
        raise ValueError(f"memory_viz: the output must end in .png, .svg or .html, not {path!r}")
    result = totals(snapshot)
    series, base, events = timeline(snapshot)
    result["events"] = events

    fig, (ax_time, ax_seg) = plt.subplots(2, 1, figsize=(12, 8),
                                          gridspec_kw={"height_ratios": [3, 1]})
    # Timeline: the top sites by peak, the rest as "other".
    ranked = sorted(series, key=lambda s: -max(series[s]) if series[s] else 0)
    shown = ranked[:top]
    other = [sum(series[s][i] for s in ranked[top:]) for i in range(events)]
    ys = [base] + [series[s] for s in shown] + ([other] if ranked[top:] else [])
    labels = ["<allocated before recording>"] + shown + (["<other sites>"] if ranked[top:]
                                                          else [])
    peak = max((sum(col) for col in zip(*ys)), default=0) if events else 0
    result["peak_active"] = peak
    if events:
        mib = 1 << 20
        ax_time.stackplot(range(events), [[v / mib for v in y] for y in ys], labels=labels)
        ax_time.legend(loc="upper left", fontsize=7)
    else:
        ax_time.text(0.5, 0.5, "no trace: record with tensorplay.memory._record_memory_history",
                     ha="center", va="center", transform=ax_time.transAxes)
    ax_time.set_title(f"Active memory over {events} events (peak {peak / (1 << 20):.2f} MiB)")
    ax_time.set_xlabel("event")
    ax_time.set_ylabel("MiB")

    # Segment map: segments in address order, side by side, each block coloured by state.
    colours = {"active_allocated": "tab:red", "active_pending_free": "tab:orange",
               "inactive": "tab:gray"}
    x = 0
    for seg in sorted(snapshot["segments"], key=lambda s: s["address"]):
        offset = x
        for b in seg["blocks"]:
            ax_seg.barh(0, b["size"], left=offset, height=0.8,
                        color=colours.get(b["state"], "tab:blue"), edgecolor="white",
                        linewidth=0.2)
            offset += b["size"]
        x += seg["total_size"]
    ax_seg.set_yticks([])
    ax_seg.set_xlim(0, max(x, 1))
    ax_seg.set_xlabel("bytes (segments in address order)")
    ax_seg.set_title(f"{result['segments']} segments, {result['reserved']} bytes reserved, "
                     f"{result['active']} active (red: active, grey: inactive)")
    fig.tight_layout()

    if ext == ".html":
        buf = io.StringIO()
        fig.savefig(buf, format="svg")
        rows = "".join(f"<tr><td>{html.escape(k)}</td><td>{v}</td></tr>"
                       for k, v in result.items())
        with open(path, "w", encoding="utf-8") as f:
            f.write("<!DOCTYPE html><html><head><meta charset='utf-8'>"
                    "<title>TensorPlay memory snapshot</title></head><body>"
                    f"<table>{rows}</table>{buf.getvalue()}</body></html>")
    else:
        fig.savefig(path)
    plt.close(fig)
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tensorplay.memory_viz",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("snapshot", help="a _dump_snapshot file (pickle or JSON)")
    parser.add_argument("-o", "--output", required=True, help="out.png, out.svg or out.html")
    parser.add_argument("--top", type=int, default=8, help="allocation sites coloured (8)")
    args = parser.parse_args(argv)
    result = render(load(args.snapshot), args.output, top=args.top)
    print(" ".join(f"{k}={v}" for k, v in result.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
