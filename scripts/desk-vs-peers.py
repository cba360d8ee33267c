#!/usr/bin/env python3
"""lanes-desk beside gThumb and geeqie, from outside: screenshots every 100 ms under Xvfb (issue 37).

Run through scripts/desk-vs-peers, which installs the apps and tools and generates the folders. Per app and folder,
cold (fresh HOME and XDG_CACHE_HOME) then warm (a second launch on the same cache), alternating apps, N runs:

- first_screen_ms: from the launch to the screenshot from which the photo area stays filled (>= 95% of its settled
  share of photo tiles);
- blank: screenshots from the first wheel click on with at least a quarter of the photo area missing (share of
  photo tiles below 75% of the settled share after the scroll); missing_mean: the mean missing share over them;
- settle_ms: from the last click to the screenshot from which the photo area stays filled;
- rss_peak_mb: the process's VmHWM at the end; cpu_s: its user + system time.

Deciding "filled" from a screenshot: the screen is cut into 8x8 tiles; a tile shows a photo when it has texture
(luma standard deviation above 4) or a colour far (> 24) from the app's empty colours (the flat colours that cover
at least 5% of the photo area in the app's first screenshot after its window appears, before any thumbnail, plus
black). The photo area is calibrated per run: the rectangle of rows and columns where tiles changed densely between
the first screenshot and the settled first screen, or between the settled screens before and after the scroll
(toolbars, side panes and status bars change little and fall outside it).
"""
import argparse
import json
import os
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

WIDTH, HEIGHT, TILE = 1024, 768, 8
INTERVAL = 0.1
CLICKS = 40
CLICK_DELAY_MS = 50
# Where the wheel turns: inside each app's photo grid at 1024x768 with its default layout.
SCROLL_POINT = {"lanes-desk": (512, 400), "gthumb": (640, 420), "geeqie": (380, 500)}


def log(message):
    print(f"desk-vs-peers: {message}", file=sys.stderr, flush=True)


last_screen = None  # the latest screenshot's pixels, for --keep-screens


def grab(display):
    """One screenshot of the whole screen as tile statistics: (mean RGB per tile, luma deviation per tile)."""
    data = subprocess.run(["xwd", "-root", "-silent", "-display", display], capture_output=True, timeout=10,
                          check=True).stdout
    fields = struct.unpack(">25I", data[:100])
    header_size, byte_order, bits_per_pixel, bytes_per_line = fields[0], fields[7], fields[11], fields[12]
    width, height, colours = fields[4], fields[5], fields[19]
    start = header_size + colours * 12
    raw = np.frombuffer(data, dtype=np.uint8, count=bytes_per_line * height, offset=start).reshape(height, -1)
    if bits_per_pixel == 32:
        pixels = raw.reshape(height, bytes_per_line // 4, 4)[:, :width]
        rgb = pixels[:, :, [2, 1, 0]] if byte_order == 0 else pixels[:, :, [1, 2, 3]]
    elif bits_per_pixel == 24:
        pixels = raw[:, : width * 3].reshape(height, width, 3)
        rgb = pixels[:, :, [2, 1, 0]] if byte_order == 0 else pixels
    else:
        raise RuntimeError(f"xwd: {bits_per_pixel} bits per pixel (Xvfb should run at depth 24)")
    global last_screen
    last_screen = rgb
    rgb = rgb[: height - height % TILE, : width - width % TILE].astype(np.float32)
    tiles = rgb.reshape(height // TILE, TILE, width // TILE, TILE, 3)
    mean = tiles.mean(axis=(1, 3))
    luma = tiles.mean(axis=4)
    return mean.astype(np.float16), luma.std(axis=(1, 3)).astype(np.float16)


def start_xvfb():
    """An Xvfb at WIDTHxHEIGHT on a display number it picks itself, and that number once it accepts connections.
    `-displayfd` rather than a number found free beforehand: with other Xvfbs starting at the same moment (another
    engineer's runs), a number free when looked at was taken when used, and the app failed on a server that went."""
    read_end, write_end = os.pipe()
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write_end), "-screen", "0", f"{WIDTH}x{HEIGHT}x24",
                             "-nolisten", "tcp", "-br"], pass_fds=(write_end,), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    os.close(write_end)
    said = b""
    deadline = time.monotonic() + 20
    try:
        while not said.endswith(b"\n"):
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([read_end], [], [], remaining)[0]:
                stop(xvfb)
                raise RuntimeError("timed out after 20 s waiting for Xvfb")
            chunk = os.read(read_end, 16)
            if not chunk:
                stop(xvfb)
                raise RuntimeError("Xvfb exited at start")
            said += chunk
    finally:
        os.close(read_end)
    return xvfb, int(said)


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.02)


def stop(process, grace=5):
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def proc_figures(pid):
    """(VmHWM in MB, user + system CPU seconds) of a live process, or (None, None)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            hwm = next((int(line.split()[1]) / 1024 for line in status if line.startswith("VmHWM:")), None)
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return hwm, cpu
    except (OSError, StopIteration, IndexError, ValueError):
        return None, None


def command_for(app, folder):
    if app == "lanes-desk":
        return [os.environ["LANES_DESK_BINARY"], "--folder", folder, "--grid", "--size", f"{WIDTH}x{HEIGHT}"]
    return [app, folder]


def prepare_home(app, home):
    for sub in (".cache", ".config", ".local/share", "run"):
        os.makedirs(os.path.join(home, sub), exist_ok=True)
    os.chmod(os.path.join(home, "run"), 0o700)
    if app == "geeqie":
        # Thumbnails in an icon grid (geeqie's default is a list), as in the other two apps.
        config = os.path.join(home, ".config", "geeqie")
        os.makedirs(config, exist_ok=True)
        with open(os.path.join(config, "geeqierc.xml"), "w") as rc:
            rc.write('<gq>\n<global\n  thumbnails.enable_caching = "true"\n  thumbnails.spec_standard = "true"\n/>\n'
                     '<layout id = "_current_"\n  file_view_type = "1"\n  show_thumbnails = "true"\n'
                     '  main_window.hdivider_pos = "760"\n/>\n</gq>\n')


def window_of(pid, env):
    result = subprocess.run(["xdotool", "search", "--onlyvisible", "--pid", str(pid)], capture_output=True,
                            text=True, env=env)
    ids = result.stdout.split()
    return ids[-1] if ids else None


def sample_threads(pid, t, out):
    """One line of OUT: every thread of PID as [tid, name, state, nice, utime + stime ticks] at T (monotonic s)."""
    threads = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as stat:
                text = stat.read()
        except OSError:
            continue
        name = text[text.index("(") + 1: text.rindex(")")]
        fields = text.rsplit(")", 1)[1].split()
        threads.append([int(tid), name, fields[0], int(fields[16]), int(fields[11]) + int(fields[12])])
    out.write(json.dumps({"t": t, "threads": threads}) + "\n")


def launch(app, folder, home, keep=None, trace=None, trace_screens=False):
    """One launch of APP on FOLDER with HOME: the screenshots' tile statistics and the process's figures. TRACE (a
    path prefix, lanes-desk only): the app's row trace (LANES_DESK_TRACE_ROWS) to TRACE.rows.jsonl, its threads
    sampled from /proc at every screenshot to TRACE.threads.jsonl, and the run's times to TRACE.run.json; TRACE_SCREENS:
    the screenshots that changed after the first click as well."""
    xvfb, number = start_xvfb()
    display = f":{number}"
    bus = app_process = scroller = None
    try:
        wait_for(lambda: subprocess.run(["xwd", "-root", "-silent", "-display", display], capture_output=True)
                 .returncode == 0 or xvfb.poll() is not None, 20, "Xvfb to answer")
        if xvfb.poll() is not None:
            raise RuntimeError(f"Xvfb on {display} exited at start")
        prepare_home(app, home)
        env = dict(os.environ, DISPLAY=display, HOME=home, XDG_CACHE_HOME=os.path.join(home, ".cache"),
                   XDG_CONFIG_HOME=os.path.join(home, ".config"), XDG_DATA_HOME=os.path.join(home, ".local/share"),
                   XDG_RUNTIME_DIR=os.path.join(home, "run"), GDK_BACKEND="x11",
                   GSK_RENDERER=os.environ.get("GSK_RENDERER", "cairo"), GTK_A11Y="none", NO_AT_BRIDGE="1")
        bus = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, env=env)
        env["DBUS_SESSION_BUS_ADDRESS"] = bus.stdout.readline().strip()
        shots = []  # (seconds since launch, mean, deviation)
        start = time.monotonic()
        errors = open(os.path.join(home, "stderr.txt"), "w+")
        threads_out = None
        if trace and app == "lanes-desk":
            env["LANES_DESK_TRACE_ROWS"] = trace + ".rows.jsonl"
            threads_out = open(trace + ".threads.jsonl", "w")
        app_process = subprocess.Popen(command_for(app, folder), env=env, stdout=subprocess.DEVNULL,
                                       stderr=errors, start_new_session=True)
        mapped_at = click_start = click_end = None
        window = None
        stable_since = None
        phase = "first-screen"
        next_shot = start
        while True:
            now = time.monotonic()
            if now < next_shot:
                time.sleep(next_shot - now)
            next_shot = max(next_shot + INTERVAL, time.monotonic())
            if app_process.poll() is not None:
                errors.seek(0)
                said = [line.strip() for line in errors if line.strip()]
                raise RuntimeError(f"{app} exited with status {app_process.returncode}"
                                   + (f": {said[-1][:200]}" if said else ""))
            mean, deviation = grab(display)
            t = time.monotonic() - start
            if threads_out:
                sample_threads(app_process.pid, time.monotonic(), threads_out)
                # With --trace-screens, from the first click on, each screenshot that differs from the one before, as
                # TRACE-screen-MS.png (writing them slows the screenshot loop on a busy machine: diagnosis only).
                if trace_screens and click_start is not None and shots and changed_share(shots[-1][1], mean) > 0.001:
                    save_screen(trace, f"screen-{round((time.monotonic() - start) * 1000)}")
            if window is None:
                window = window_of(app_process.pid, env)
                if window is None:
                    if t > 30:
                        raise RuntimeError(f"{app}: no window after 30 s")
                    continue
                subprocess.run(["xdotool", "windowmove", window, "0", "0", "windowsize", window, str(WIDTH),
                                str(HEIGHT)], env=env, capture_output=True)
                continue  # the next screenshot shows the window at its place and size
            if mapped_at is None:
                mapped_at = t
            changed = bool(shots) and changed_share(shots[-1][1], mean) > 0.01
            shots.append((t, mean, deviation))
            if changed or stable_since is None:
                stable_since = t
            if phase == "first-screen":
                if (t - stable_since >= 1.5 and t - mapped_at >= 1.0) or t - mapped_at > 30:
                    save_screen(keep, "first-screen")
                    x, y = SCROLL_POINT[app]
                    click_start = t
                    scroller = subprocess.Popen(["xdotool", "mousemove", str(x), str(y), "click", "--repeat",
                                                 str(CLICKS), "--delay", str(CLICK_DELAY_MS), "5"], env=env)
                    phase = "scroll"
            elif phase == "scroll":
                if scroller.poll() is not None:
                    save_screen(keep, "last-click")
                    click_end = t
                    phase = "settle"
            elif (t - max(stable_since, click_end) >= 2.0) or t - click_end > 20:
                break
        save_screen(keep, "settled")
        hwm, cpu = proc_figures(app_process.pid)
        if threads_out:
            threads_out.close()
            with open(trace + ".run.json", "w") as out:
                json.dump({"start": start, "mapped_at": mapped_at, "click_start": click_start, "click_end": click_end,
                           "clock_ticks": os.sysconf("SC_CLK_TCK"),
                           "shots": [[shot[0], share_hint(shot)] for shot in shots]}, out)
        return {"shots": shots, "mapped_at": mapped_at, "click_start": click_start, "click_end": click_end,
                "rss_peak_mb": hwm, "cpu_s": cpu}
    finally:
        if app_process is not None and app_process.poll() is None:
            try:
                os.killpg(app_process.pid, signal.SIGTERM)
                app_process.wait(5)
            except (subprocess.TimeoutExpired, ProcessLookupError):
                try:
                    os.killpg(app_process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                app_process.wait()
        stop(scroller)
        stop(bus)
        stop(xvfb)


def share_hint(shot):
    """A rough filled share of a screenshot (textured tiles), for the trace's timeline."""
    return round(float((shot[2].astype(np.float32) > 4).mean()), 3)


def save_screen(prefix, name):
    if prefix:
        from PIL import Image
        Image.fromarray(np.ascontiguousarray(last_screen)).save(f"{prefix}-{name}.png")


def changed_share(a, b):
    return float((np.abs(a.astype(np.float32) - b.astype(np.float32)).max(axis=2) > 12).mean())


def dense_rect(changed):
    """The rectangle (rows, columns as slices) where changed tiles are dense, or None."""
    columns = np.where(changed.mean(axis=0) >= 0.25)[0]
    if len(columns) == 0:
        return None
    rows = np.where(changed[:, columns.min(): columns.max() + 1].mean(axis=1) >= 0.25)[0]
    if len(rows) == 0:
        return None
    return (int(rows.min()), int(rows.max()) + 1, int(columns.min()), int(columns.max()) + 1)


def analyse(run, calibration):
    """The run's figures from its screenshots; CALIBRATION (per app and folder) keeps the photo area and the empty
    colours seen in a cold run, for warm runs that never show an empty cell."""
    shots = run["shots"]
    if not shots or run["click_start"] is None:
        return {"error": "no screenshots"}
    before = [s for s in shots if s[0] < run["click_start"]]
    pre, post, first = before[-1], shots[-1], shots[0]

    def difference(a, b):
        return np.abs(a[1].astype(np.float32) - b[1].astype(np.float32)).max(axis=2) > 12

    changed = difference(first, pre) | difference(pre, post)
    rect = dense_rect(changed)
    if rect is not None and (rect[1] - rect[0]) * (rect[3] - rect[2]) < 0.1 * changed.size:
        rect = None
    if rect is None:
        rect = calibration.get("rect")
    elif calibration.get("rect") is None:
        calibration["rect"] = rect
    if rect is None:
        return {"error": "no photo area (nothing changed on screen)"}
    r0, r1, c0, c1 = rect
    if "empty" not in calibration:
        area = first[1][r0:r1, c0:c1].astype(np.float32).reshape(-1, 3)
        flat = area[first[2][r0:r1, c0:c1].astype(np.float32).reshape(-1) <= 4]
        colours, counts = np.unique(np.round(flat / 8) * 8, axis=0, return_counts=True)
        empty = [c for c, n in zip(colours, counts) if n >= 0.05 * len(area)]
        calibration["empty"] = [list(map(float, c)) for c in empty] + [[0.0, 0.0, 0.0]]
    empty = np.array(calibration["empty"], dtype=np.float32)

    def share(shot):
        mean = shot[1][r0:r1, c0:c1].astype(np.float32)
        textured = shot[2][r0:r1, c0:c1].astype(np.float32) > 4
        distance = np.abs(mean[:, :, None, :] - empty[None, None, :, :]).max(axis=3).min(axis=2)
        return float((textured | (distance > 24)).mean())

    shares = [(s[0], share(s)) for s in shots]
    reference_first = shares[len(before) - 1][1]
    reference_scroll = shares[-1][1]

    def filled_from(samples, reference):
        """The time from which every sample stays at >= 95% of REFERENCE."""
        since = None
        for t, value in samples:
            if value >= 0.95 * reference:
                since = t if since is None else since
            else:
                since = None
        return since

    first_screen = filled_from([x for x in shares[: len(before)]], reference_first)
    scroll = [x for x in shares if x[0] >= run["click_start"]]
    blank = [x for x in scroll if x[1] < 0.75 * reference_scroll]
    settled = filled_from([x for x in shares if x[0] >= run["click_end"]], reference_scroll)
    return {
        "first_screen_ms": round(first_screen * 1000) if first_screen is not None else None,
        "blank": len(blank),
        "missing_mean": round(statistics.fmean(max(0.0, 1 - v / reference_scroll) for _, v in scroll), 3)
        if scroll and reference_scroll > 0 else None,
        "settle_ms": round(max(0.0, settled - run["click_end"]) * 1000) if settled is not None else None,
        "rss_peak_mb": round(run["rss_peak_mb"]) if run["rss_peak_mb"] is not None else None,
        "cpu_s": round(run["cpu_s"], 2) if run["cpu_s"] is not None else None,
        "screenshots": len(shots),
        "photo_share": round(reference_scroll, 3),
        "photo_area_tiles": [r0, r1, c0, c1],
    }


FIGURES = ["first_screen_ms", "blank", "missing_mean", "settle_ms", "rss_peak_mb", "cpu_s"]


def median_of(runs, key):
    values = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(values) if values else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--folders", required=True, help="where scripts/desk-vs-peers generated the folders")
    parser.add_argument("--folder", choices=["large", "small", "both"], default="both")
    parser.add_argument("--runs", type=int, default=3)
    # geeqie 2.0.1 (Debian 12) showed only its placeholder icons in its icon view under Xvfb in every try (its
    # thumbnail loader never ran, no cache entry written), so its figures would measure nothing: it runs on request.
    parser.add_argument("--apps", default="lanes-desk,gthumb", help="comma-separated: lanes-desk, gthumb, geeqie")
    parser.add_argument("--busy", type=int, default=0, help="N busy processes (nice 0) beside the apps")
    parser.add_argument("--json", help="write every run and the medians to this file")
    parser.add_argument("--trace", metavar="DIR", help="lanes-desk's row trace and a /proc sample of its threads per "
                        "screenshot, per launch, into DIR (read them with scripts/desk-row-trace.py DIR)")
    parser.add_argument("--trace-screens", action="store_true", help="with --trace: also keep each screenshot that "
                        "changed after the first click (slows the screenshot loop: for diagnosis, not figures)")
    parser.add_argument("--keep-screens", metavar="DIR", help="save each launch's settled first screen, its screen at the last click and its last screen as PNGs")
    arguments = parser.parse_args()
    apps = arguments.apps.split(",")
    for app in apps:
        if app not in SCROLL_POINT:
            parser.error(f"unknown app {app!r} (lanes-desk, gthumb, geeqie)")
    folders = ["large", "small"] if arguments.folder == "both" else [arguments.folder]
    busy = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(arguments.busy)]
    load_start = os.getloadavg()
    began = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    results = []
    scratch = tempfile.mkdtemp(prefix="desk-vs-peers-")
    keep = arguments.keep_screens
    if keep:
        os.makedirs(keep, exist_ok=True)
    if arguments.trace:
        os.makedirs(arguments.trace, exist_ok=True)
    try:
        for folder in folders:
            path = os.path.join(arguments.folders, folder)
            calibrations = {app: {} for app in apps}
            for run in range(arguments.runs):
                for app in apps:
                    home = os.path.join(scratch, f"{folder}-{app}-{run}")
                    for mode in ("cold", "warm"):
                        try:
                            name = f"{folder}-{app}-{run + 1}-{mode}"
                            trace = arguments.trace and os.path.join(arguments.trace, name)
                            figures = analyse(launch(app, path, home, keep and f"{keep}/{name}", trace, arguments.trace_screens),
                                              calibrations[app])
                            if trace and os.path.exists(trace + ".run.json"):
                                with open(trace + ".figures.json", "w") as out:
                                    json.dump(figures, out)
                        except (RuntimeError, subprocess.SubprocessError, OSError) as error:
                            figures = {"error": str(error)}
                            said = os.path.join(home, "stderr.txt")
                            if keep and os.path.exists(said):  # what the app said before it failed (a backtrace)
                                shutil.copy(said, f"{keep}/{folder}-{app}-{run + 1}-{mode}-stderr.txt")
                        figures.update(app=app, folder=folder, mode=mode, run=run + 1)
                        log(json.dumps(figures))
                        results.append(figures)
                    shutil.rmtree(home, ignore_errors=True)
    finally:
        for process in busy:
            stop(process, grace=1)
        shutil.rmtree(scratch, ignore_errors=True)
    load_end = os.getloadavg()
    medians = []
    for folder in folders:
        for mode in ("cold", "warm"):
            for app in apps:
                runs = [r for r in results if (r["app"], r["folder"], r["mode"]) == (app, folder, mode)
                        and "error" not in r]
                medians.append(dict({key: median_of(runs, key) for key in FIGURES}, app=app, folder=folder,
                                    mode=mode, runs=len(runs)))
    print(f"desk-vs-peers {began}, {arguments.runs} run(s), busy {arguments.busy}, "
          f"load {load_start[0]:.2f} at start, {load_end[0]:.2f} at end (medians)")
    print("| folder | mode | app | first screen (ms) | blank | missing | settle (ms) | peak RSS (MB) | CPU (s) | runs |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for m in medians:
        cells = ["-" if m[key] is None else f"{m[key]:g}" for key in FIGURES]
        print(f"| {m['folder']} | {m['mode']} | {m['app']} | " + " | ".join(cells) + f" | {m['runs']} |")
    if arguments.json:
        with open(arguments.json, "w") as out:
            json.dump({"began": began, "runs": arguments.runs, "busy": arguments.busy, "load_start": load_start,
                       "load_end": load_end, "medians": medians, "all": results}, out, indent=1)
    return 0 if all("error" not in r for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
