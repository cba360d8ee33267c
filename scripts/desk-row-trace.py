#!/usr/bin/env python3
"""What the rows on screen at a scroll's end waited for, from `scripts/desk-vs-peers --trace DIR` (issue 37).

    scripts/desk-row-trace.py DIR [--run NAME] [--rows]

Per traced lanes-desk launch (NAME.rows.jsonl from LANES_DESK_TRACE_ROWS, NAME.threads.jsonl from /proc, NAME.run.json
with the launch's times): the rows on screen when the last wheel click ended that had no image yet, each with when
its load was asked for and at what priority, when it was shown, and the pipeline items of its file (queue, when each
started and ended, the thread it ran on, that thread's nice value, CPU against wall time); then the app's threads
over the settle (state, nice, CPU ticks) and the main thread's longest frame gap.
"""
import argparse
import glob
import json
import os
import re
import sys

ROW_FILE = re.compile(r"photo-(\d+)\.")


def read_lines(path):
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError:
                    pass
    return out


def analyse(prefix, show_rows):
    run = json.load(open(prefix + ".run.json"))
    events = read_lines(prefix + ".rows.jsonl")
    samples = read_lines(prefix + ".threads.jsonl") if os.path.exists(prefix + ".threads.jsonl") else []
    figures = json.load(open(prefix + ".figures.json")) if os.path.exists(prefix + ".figures.json") else {}
    name = os.path.basename(prefix)
    if run.get("click_end") is None:
        print(f"## {name}: no scroll")
        return None
    end_mono = run["start"] + run["click_end"]      # the last wheel click, CLOCK_MONOTONIC seconds
    end = int(end_mono * 1e9)
    frames = [e for e in events if e["e"] == "frame"]
    # The grid's last move (its offset changing), in the app's own clock.
    last_move = None
    for a, b in zip(frames, frames[1:]):
        if b["offset"] != a["offset"]:
            last_move = b["t"]
    # Rows' states at the scroll's end: the last load event at or before it; shown times.
    load = {}
    history = {}
    shown = {}
    for e in events:
        if e["e"] == "load":
            history.setdefault(e["row"], []).append(e)
        elif e["e"] == "shown":
            shown.setdefault(e["row"], []).append(e["t"])
    items = {}
    for e in events:
        if e["e"] in ("started", "finished", "cancelled"):
            m = ROW_FILE.search(e["label"])
            if m:
                items.setdefault(int(m.group(1)), []).append(e)
    anchor = max(end, last_move or 0)
    binds = {}
    for e in events:
        if e["e"] == "bind" and e["t"] <= anchor:
            binds[e["row"]] = e["t"]
    waiting = []
    for row, hist in history.items():
        before = [h for h in hist if h["t"] <= anchor]
        if not before or not before[-1]["screen"]:
            continue
        bound = binds.get(row, 0)
        # Shown since its cell was last bound, before the end: not waiting.
        if any(bound <= t <= anchor for t in shown.get(row, [])):
            continue
        later = [t for t in shown.get(row, []) if t > anchor]
        waiting.append((row, hist, later[0] if later else None))
    waits = [(s - anchor) / 1e6 for _, _, s in waiting if s is not None]
    print(f"## {name}: settle {figures.get('settle_ms')} ms (screenshots), last move {((last_move or end) - end) / 1e6:+.0f} ms "
          f"from the last click; {len(waiting)} rows on screen without an image at the end; "
          f"longest wait {max(waits) if waits else 0:.0f} ms" + ("; never shown: " + str(sum(1 for w in waiting if w[2] is None)) if any(w[2] is None for w in waiting) else ""))
    summary = {"name": name, "settle_ms": figures.get("settle_ms"), "waiting": len(waiting),
               "longest_ms": max(waits) if waits else 0, "rows": []}
    for row, hist, shown_at in sorted(waiting, key=lambda w: -(w[2] or 1e30)):
        wait = (shown_at - anchor) / 1e6 if shown_at else None
        prio = " ".join(f"{(h['t'] - anchor) / 1e6:+.0f}:{h['p']}{'' if h['screen'] else '(off)'}" for h in hist[-4:])
        runs = []
        by_id = {}
        for e in items.get(row, []):
            by_id.setdefault(e["id"], []).append(e)
        for item_id, evs in by_id.items():
            start = next((e for e in evs if e["e"] == "started"), None)
            stop = next((e for e in evs if e["e"] in ("finished", "cancelled")), None)
            if start is None:
                continue
            cpu = (stop["cpu"] - start["cpu"]) / 1e6 if stop and stop["tid"] == start["tid"] else None
            wall = (stop["t"] - start["t"]) / 1e6 if stop else None
            runs.append({"label": start["label"], "q": start["q"], "start": (start["t"] - anchor) / 1e6,
                         "end": (stop["t"] - anchor) / 1e6 if stop else None, "tid": start["tid"],
                         "nice": start["nice"], "cpu_ms": cpu, "wall_ms": wall,
                         "how": stop["e"] if stop else "running"})
        summary["rows"].append({"row": row, "wait_ms": wait, "loads": hist[-4:], "runs": runs})
        if show_rows or (wait or 1e9) > 1500:
            print(f"  row {row}: shown {'never' if wait is None else f'{wait:+.0f} ms'}; loads {prio}")
            for r in sorted(runs, key=lambda r: r["start"]):
                end_text = "running" if r["end"] is None else f"{r['end']:+.0f}"
                cpu = "?" if r["cpu_ms"] is None else f"{r['cpu_ms']:.0f}"
                wall = "?" if r["wall_ms"] is None else f"{r['wall_ms']:.0f}"
                print(f"    {r['q']:<18} {r['label']:<28} {r['start']:+7.0f} .. {end_text:>7} ms  tid {r['tid']} "
                      f"nice {r['nice']:>2}  cpu {cpu} / wall {wall} ms  {r['how']}")
    # Threads over the settle: from the last click to 3 s after.
    window = [s for s in samples if end_mono <= s["t"] <= end_mono + 3]
    if len(window) >= 2:
        ticks = run.get("clock_ticks", 100)
        first = {t[0]: t for t in window[0]["threads"]}
        last = {t[0]: t for t in window[-1]["threads"]}
        span = window[-1]["t"] - window[0]["t"]
        print(f"  threads over the {span:.1f} s after the last click (CPU share, nice, states seen):")
        for tid, t in sorted(last.items(), key=lambda kv: -(kv[1][4] - first.get(kv[0], kv[1])[4])):
            used = (t[4] - first.get(tid, t)[4]) / ticks
            states = "".join(sorted({s2[2] for s in window for s2 in s["threads"] if s2[0] == tid}))
            if used > 0.01 or tid == min(last):
                print(f"    {tid:>7} {t[1]:<16} nice {t[3]:>3}  cpu {used:.2f} s ({used / span:.0%})  states {states}")
    gaps = [(b["t"] - a["t"]) / 1e6 for a, b in zip(frames, frames[1:]) if end - 1e9 <= a["t"] <= end + 3e9]
    if gaps:
        print(f"  main thread: {len(gaps)} frames from 1 s before to 3 s after the last click, longest gap "
              f"{max(gaps):.0f} ms, {sum(g > 25 for g in gaps)} over 25 ms")
    return summary


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dir")
    parser.add_argument("--run", help="one launch's name (e.g. large-lanes-desk-1-cold)")
    parser.add_argument("--rows", action="store_true", help="every waiting row, not only those over 1.5 s")
    parser.add_argument("--json", help="write the summaries here")
    arguments = parser.parse_args()
    prefixes = sorted(p[: -len(".run.json")] for p in glob.glob(os.path.join(arguments.dir, "*.run.json")))
    if arguments.run:
        prefixes = [p for p in prefixes if os.path.basename(p) == arguments.run]
    summaries = [s for s in (analyse(p, arguments.rows) for p in prefixes) if s]
    if arguments.json:
        json.dump(summaries, open(arguments.json, "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
