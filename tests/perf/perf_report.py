#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Gathers the files tests/perf/run_all.sh wrote into one JSON report and prints a table.

Usage: perf_report.py DIR REPORT.json [DOC.md] (and REPORT.md, the table in Markdown). Every figure carries the load
average seen while it was measured; a step whose program failed shows as missing, never as a number. With DOC.md
(docs/performance.md) the part between its two perf-table markers is replaced by the date, the machine and the table,
so the page is regenerated, never edited by hand.
"""
import glob
import json
import statistics
import sys
from pathlib import Path

BEGIN = "<!-- perf-table: written by tests/perf/perf_report.py (./packaging/dev.sh perf); edits here are overwritten -->"
END = "<!-- perf-table end -->"


def machine_line(info):
    """One sentence on the machine, from `ctxscope-cli sysinfo --json`."""
    if not info:
        return "an unknown machine"
    guest = f"a {info.get('hypervisor_vendor') or 'virtual machine'} guest with " if info.get("hypervisor") else ""
    return (f"{guest}{info.get('online_cpus', '?')} CPUs of an \"{info.get('cpu_model', '?')}\" at "
            f"{info.get('mhz', 0):.0f} MHz, SMT {info.get('smt_active', '?')}, governor "
            f"{info.get('governor') or 'unknown'}, kernel {info.get('kernel', '?')}, clocksource "
            f"{info.get('clocksource', '?')}, host {info.get('host_name', '?')}")


def rewrite_doc(doc, report, md_table):
    text = doc.read_text()
    if BEGIN not in text or END not in text:
        sys.exit(f"perf_report.py: {doc} has no perf-table markers; not rewritten")
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    body = (f"\nLast `./packaging/dev.sh perf`: {report['date']}, {report.get('build', 'unknown')} build, on "
            f"{machine_line(report['machine'])}. Load average (1 min) when each figure was measured: last column; "
            f"on this machine's few CPUs anything else running moves the figures.\n\n{md_table}\n")
    doc.write_text(head + BEGIN + body + END + tail)


def read(d, name):
    p = d / name
    return json.loads(p.read_text()) if p.exists() else None


def load_of(d, step):
    stamp = read(d, f"{step}.stamp.json")
    return stamp["load_start"] if stamp else None


def main():
    d, out = Path(sys.argv[1]), Path(sys.argv[2])
    doc = Path(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3] else None
    report = {
        "date": (d / "date.txt").read_text().strip(),
        "build": (d / "build.txt").read_text().strip() if (d / "build.txt").exists() else None,
        "machine": read(d, "sysinfo.json"),
        "machine_text": (d / "sysinfo.txt").read_text(),
        "harness": read(d, "harness.json"),
        "peers": read(d, "peers.json"),
        "peers_fifo": read(d, "peers-fifo.json"),
        "gui": read(d, "gui.json"),
    }
    rows = []  # (figure, value text, target text, met or None, load)

    def add(figure, value, fmt, target=None, met=None, load=None):
        rows.append((figure, "missing" if value is None else fmt.format(value), target or "", met, load))

    h = report["harness"] or {}
    hl = load_of(d, "harness")
    clock = h.get("clock", {})
    used = (clock.get("tsc") if clock.get("used") == "tsc" else clock.get("monotonic")) or {}
    add(f"clock read ({clock.get('used', '?')})", used.get("read_ns"), "{:.1f} ns", load=hl)
    add("clock resolution", used.get("resolution_ns"), "{:.1f} ns", load=hl)
    for bench, o in (h.get("overhead") or {}).items():
        goal = o.get("goal")
        add(f"harness overhead {bench} (K={o['ops_per_sample']})", o["overhead"] * 100, "{:+.1f}%",
            f"<= {goal * 100:.0f}%" if goal is not None else None,
            (o["overhead"] <= goal) if goal is not None else None, hl)
    add("per-sample cost (syscall)", h.get("per_sample_ns"), "{:.1f} ns", load=hl)

    spin = read(d, "spin.json")
    report["spin"] = spin
    add("spin round trip: runner p50 / bare loop", spin and spin["ratio"],
        "{:.3f}" + (f" ({spin['runner_p50_ns']:.1f} vs {spin['bare_ns']:.1f} ns)" if spin else ""), "0.9-1.1",
        (0.9 <= spin["ratio"] <= 1.1) if spin else None, load_of(d, "spin"))

    matrix = read(d, "matrix.json")
    report["matrix"] = matrix
    add("matrix spin --all-pairs: per pair x 8,128 pairs (128 PUs)", matrix and matrix["projected_8128_s"],
        "{:.0f} s" + (f" ({matrix['per_pair_ms']:.1f} ms a pair)" if matrix else ""), "<= 180 s",
        (matrix["projected_8128_s"] <= 180) if matrix else None, load_of(d, "matrix"))

    for policy, peers in (("OTHER", report["peers"]), ("FIFO", report["peers_fifo"])):
        for s in (peers or {}).get("summary", []):
            unit = "" if s["what"] == "switches/op" else " ns"
            add(f"peers {s['what']} ({policy}): ours/peer, means", s["ratio_mean"],
                "{:.3f}" + f" ({s['ours_mean']:.4g}{unit} vs {s['peer']:.4g}{unit})", "within ±10%",
                abs(s["ratio_mean"] - 1) <= 0.10, s["load"])

    rep = read(d, "repeat.json") or []
    if rep:
        p50s = [r["p50"] for r in rep]
        spread = (max(p50s) - min(p50s)) / statistics.median(p50s)
        report["repeatability"] = {"p50_ns": p50s, "spread": spread, "target": 0.05,
                                   "loads": [r["load"] for r in rep]}
        add(f"repeatability: spread of {len(p50s)} medians (futex same-pu)", spread * 100,
            "{:.1f}%" + f" (p50 {min(p50s) / 1000:.2f}-{max(p50s) / 1000:.2f} us)", "< 5%", spread < 0.05,
            max(r["load"] for r in rep))

    obs = read(d, "observer.json") or []
    if obs:
        cli = statistics.median(o["cli_p50"] for o in obs)
        gui = statistics.median(o["gui_p50"] for o in obs)
        report["observer"] = {"pairs": obs, "cli_median_p50_ns": cli, "gui_median_p50_ns": gui,
                              "ratio": gui / cli, "target": 1.10}
        add("observer effect: GUI/CLI median p50", gui / cli,
            "{:.3f}" + f" ({gui / 1000:.2f} vs {cli / 1000:.2f} us)", "<= 1.10", gui / cli <= 1.10,
            max(o["load"] for o in obs))

    g = report["gui"] or {}
    gl = load_of(d, "gui")
    for m in g.get("map", []):
        if "error" in m:
            continue
        target = "< 16 ms" if m["pus"] in (512, 1024) else None
        add(f"map layout + paint, {m['pus']} PUs", m["layout_paint_ms"], "{:.2f} ms", target,
            m["layout_paint_ms"] < 16 if target else None, gl)
    h = g.get("heatmap", {})
    if "set_and_draw_ms" in h:
        add(f"heatmap set + draw, {h['pus']} PUs all pairs", h["set_and_draw_ms"],
            "{:.1f} ms" + f" (redraw {h['redraw_ms']:.1f} ms)", "< 50 ms", h["set_and_draw_ms"] < 50, gl)
    for r in g.get("replot", []):
        target = ">= 30/s" if r["points"] == 100000 else None
        add(f"live plot replot, {r['points']:.0e} points", r["replots_per_s"],
            "{:.1f}/s" + f" ({r['replot_ms']:.1f} ms; {r['replot_ms_without_adaptive_sampling']:.0f} ms unsampled)",
            target, r["replots_per_s"] >= 30 if target else None, gl)
    if "stream" in g and "samples_per_s" in g["stream"]:
        add("stream worker -> GUI", g["stream"]["samples_per_s"], "{:.3g} samples/s", load=gl)
    t = g.get("timeline", {})
    if "worst_frame_ms" in t:
        frames = ", ".join(f"{f['zoom']} {f['frame_ms']:.1f}" for f in t["frames"])
        add(f"scheduler timeline, {t['events']:.0e} events on {t['lanes']} lanes, worst frame", t["worst_frame_ms"],
            "{:.1f} ms" + f" ({frames} ms)", "< 16 ms", t["worst_frame_ms"] < 16, gl)
    ssh = read(d, "ssh.json")
    report["ssh"] = ssh
    if ssh:
        sl = load_of(d, "ssh")
        o = ssh.get("observer", {})
        add("observer effect through ssh: ssh/local median p50", o.get("ratio"),
            "{:.3f}" + (f" ({o['ssh_median_p50'] / 1000:.2f} vs {o['local_median_p50'] / 1000:.2f} us)"
                        if "ratio" in o else ""), "<= 1.10", o["ratio"] <= 1.10 if "ratio" in o else None, sl)
        for key, what in (("stream", "stream through ssh -> GUI"), ("stream_parse_only", "stream through ssh, parsed")):
            rate = ssh.get(key, {}).get("samples_per_s")
            add(what, rate, "{:.3g} samples/s", ">= 1e6", rate >= 1e6 if rate else None, sl)
        t = ssh.get("traced", {})
        if "skipped" not in t:
            delivery = t.get("delivery_seconds")
            add("traced run through ssh: its events and segments after the traced run", delivery,
                "{:.2f} s" + (f" ({t['window_events']:,} events, after {t['traced_seconds']:.2f} s traced)"
                              if delivery is not None else ""),
                "<= 2 s", delivery <= 2 if delivery is not None else None, t.get("load", sl))
    ac = read(d, "app-cpu.json")
    report["app_cpu"] = ac
    for key, how, goal in (("live", "live plot", 0.05), ("quiet", "quiet stage", None)):
        f = ac and ac.get(key)
        ok = f and f["ok"] and f["run_seconds"] > 0
        add(f"the app's own CPU during {ac['runs'] if ac else '?'} futex runs on CPUs {ac['cpus'] if ac else '?'}, "
            f"{how}", ok and f["share"] * 100,
            "{:.2f}% of one CPU" + (f" ({f['app_cpu_seconds']:.2f} s in {f['run_seconds']:.1f} s of runs, "
                                    f"{ac['platform']})" if ok else ""),
            f"<= {goal * 100:.0f}%" if goal else None, (f["share"] <= goal) if ok and goal else None,
            f and f["load_end"])
    if "memory" in g:
        add("live plot memory per 1e6 samples", g["memory"]["live_plot_bytes_per_1e6_samples"] / 2**20,
            "{:.1f} MiB", load=gl)

    inter = read(d, "interference.json")
    report["interference"] = inter
    add("interference accounting: with/without, whole run (median of paired rounds)", inter and inter["wall_ratio"],
        "{:.3f}", "<= 1.02", inter["wall_ratio"] <= 1.02 if inter else None, inter and inter["load"])
    add("interference accounting: with/without, p50 per op", inter and inter["p50_ratio"], "{:.3f}", "<= 1.02",
        inter["p50_ratio"] <= 1.02 if inter else None, inter and inter["load"])

    for name, what, goal in (("watch", "sleeping", 0.05), ("watch-waking", "each waking every 0.1 s", None)):
        w = read(d, f"{name}.json")
        report[name.replace("-", "_")] = w
        add(f"watch /proc path in-process, 1,000 threads {what}, 2 Hz: the watching thread", w and w["share"] * 100,
            "{:.2f}% of one CPU" + (f" ({w['reading_cpu_ms']:.1f} ms a reading)" if w else ""),
            f"< {goal * 100:.0f}%" if goal else None, (w["share"] < goal) if w and goal else None, w and w["load"])

    for file, threads in (("watch-cli.json", "1,000"), ("watch-cli-10k.json", "10,000")):
        wc = read(d, file)
        report["watch_cli" if threads == "1,000" else "watch_cli_10k"] = wc
        if not wc:
            if threads == "1,000":
                add("ctxscope-cli watch, 1,000 threads waking every 0.1 s: whole process", None, "", "< 1%", None, None)
            continue
        wl = wc["load"]
        hz = 1 / wc.get("interval_s", 1)
        how = (f"{hz:g} Hz" + (", --json" if "JSON" in wc.get("output", "") else "")
               + (", at SCHED_FIFO 1" if wc.get("realtime") else ""))
        observers = wc.get("observers", {})
        bpf = observers.get("watch_bpf")
        for name, side in observers.items():
            goal = side.get("goal")
            if threads == "10,000" and name.startswith("watch_"):
                goal = 0.03 if name == "watch_bpf" else None  # the goal at 10,000 threads is the cheapest backend's
            peer = not name.startswith("watch_")
            what = (f"ctxscope-cli watch --backend {name[6:]}" if not peer else
                    {"pidstat": "peer pidstat -w -t -p PID 1", "runqlat": "peer runqlat -L -p PID 1",
                     "perf_sched": "peer perf sched record + timehist"}.get(name, name))
            ratio = (f" ({side['share'] / bpf['share']:.1f}x watch --backend bpf over as long)"
                     if peer and bpf and bpf["share"] > 0 else "")
            running = None if peer else side.get("running")
            if side.get("starved"):  # its 10 s took minutes: no share of it is what the watch costs
                add(f"{what}, {threads} threads waking every 0.1 s, {how}: whole process while it runs",
                    side["wall_s"], "starved of CPU: its " + f"{wc['seconds']:g}" + " s watch took {:.0f} s",
                    f"< {goal * 100:g}%" if goal else None, False if goal else None, wl)
            elif running:  # ours: the goal is on its share while it runs; its start and summary come once
                add(f"{what}, {threads} threads waking every 0.1 s, {how}: whole process while it runs",
                    running["share"] * 100,
                    "{:.2f}% of one CPU" + f" (its start and summary: {side['once_ms']['share']:.0f} ms of CPU once; "
                    f"over its {wc['seconds']:g} s, {side['share'] * 100:.2f}%)",
                    f"< {goal * 100:g}%" if goal else None, running["share"] < goal if goal else None, wl)
            else:
                add(f"{what}, {threads} threads waking every 0.1 s, {how if not peer else 'its own interval'}: "
                    "whole process", side["share"] * 100, "{:.2f}% of one CPU" + ratio,
                    f"< {goal * 100:g}%" if goal else None, side["share"] < goal if goal else None, wl)
            if not peer and name != "watch_proc":
                add(f"watch --backend {name[6:]}, {threads} threads: the probes' cost inside the watched program",
                    side["probe_share"] * 100,
                    "{:+.2f}% of one CPU" + " ("
                    + (f"{side['probe_ns_per_wake']:+.0f} ns a wake-up"
                       + (f" of {side['wakes_per_s']:,.0f} a second" if "wakes_per_s" in side else "") + "; "
                       if side.get("probe_ns_per_wake") is not None else "")
                    + "the program alone "
                    f"{wc['program_alone']['share'] * 100:.2f}%, watched {side['program']['share'] * 100:.2f}%)",
                    load=wl)

    ws = read(d, "watch-cli-10k-stopped.json")
    report["watch_cli_10k_stopped"] = ws
    side = ws and ws.get("observers", {}).get("watch_bpf")
    if side and side.get("running"):
        add("ctxscope-cli watch --backend bpf, the same 10,000 threads stopped (SIGSTOP), 2 Hz, --json: whole process "
            "while it runs (every thread still read and written; nothing competing for the CPUs)",
            side["running"]["share"] * 100,
            "{:.2f}% of one CPU" + f" (its start and summary: {side['once_ms']['share']:.0f} ms of CPU once)",
            load=ws["load"])

    ww = read(d, "worker-watch.json")
    report["worker_watch"] = ww
    if ww:
        for name, what in (("full", "every thread's whole line"), ("lean", "watch_delta, 40 rows in focus")):
            side = ww[name]
            add(f"the app's traced watch without widgets ({ww.get('backend', 'ftrace')}, the worker's choice), "
                f"1,000 threads, 2 Hz, {what}: worker + reader",
                side["share"] * 100,
                "{:.2f}% of one CPU" + f" ({side['worker_share'] * 100:.2f}% + {side['reader_share'] * 100:.2f}%; "
                f"{side['bytes_per_sample'] / 1e3:.0f} kB a sample)",
                "< 2%" if name == "lean" else None, side["share"] < ww["goal"] if name == "lean" else None, ww["load"])

    tl = load_of(d, "trace")
    report["trace"] = {}
    for label, cpus, backend in (("one PU", "same", "bpf"), ("one PU", "same", "ftrace"),
                                 ("across CPUs", "cross", "bpf"), ("across CPUs", "cross", "ftrace")):
        runs = []
        for f in sorted(glob.glob(str(d / "trace-*.json"))):
            parts = Path(f).name[len("trace-"):].split("-")[0].split(",")
            if (parts[0] == parts[1]) == (cpus == "same"):
                t = json.loads(Path(f).read_text())["benchmarks"][0].get("trace")
                if t and t.get("untraced_ns_per_op") and t.get("backend", "ftrace") == backend:
                    runs.append({"traced_ns": t["ns_per_op"], "untraced_ns": t["untraced_ns_per_op"],
                                 "cost": t["ns_per_op"] / t["untraced_ns_per_op"] - 1,
                                 "handovers_per_op": t["handovers"] / t["ops"] if t.get("ops") else 0,
                                 "lost_events": t.get("lost_events", 0)})
        report["trace"][f"{cpus}-{backend}"] = runs
        cost = statistics.median(r["cost"] for r in runs) if runs else None
        goal = backend == "bpf" and cpus == "same"  # the goal: a traced run on one PU within +30%
        add(f"tracing's cost, futex {label}, --trace-backend {backend}: traced/untraced mean - 1 "
            f"(median of {len(runs)})",
            cost and cost * 100, "{:+.1f}%" + (
                f" ({statistics.median(r['traced_ns'] for r in runs) / 1000:.2f} vs "
                f"{statistics.median(r['untraced_ns'] for r in runs) / 1000:.2f} us; "
                f"{statistics.median(r['handovers_per_op'] for r in runs):.2f} hand-overs cut per op)" if runs else ""),
            "<= +30%" if goal else None, (cost <= 0.30) if goal and cost is not None else None, tl)

    wprobe = read(d, "watch-probe.json")
    report["watch_probe"] = wprobe
    if wprobe:
        for b in wprobe["backends"]:
            add(f"a watch's probes in the watched program, --backend {b['backend']}: per scheduler event "
                "(pingpong on one CPU)", b["ns_per_event"],
                "{:.0f} ns" + (f" (+{b['added_ns_per_round_trip']:.0f} ns on a {b['alone_ns']:.0f} ns round trip, "
                               f"{b['events_per_round_trip']:.2f} events)" if b["ns_per_event"] is not None else ""),
                load=load_of(d, "watch-probe"))
        # Per wake-up, the figure issue 40 set its goal in: a round trip's cost over the wake-ups
        # the kernel counted in it (sched_waking), each with the switches it brings; goal half of
        # the ftrace watch's +808 ns.
        for b in wprobe["backends"]:
            added = b.get("added_ns_per_round_trip")
            woken = b.get("wakeups_per_round_trip")
            per = None if added is None or not woken else added / woken
            if b["backend"] == "bpf":
                add("a watch's probes in the watched program, --backend bpf: per wake-up (pingpong on one CPU)", per,
                    "{:.0f} ns" + (f" ({woken:.2f} wake-ups a round trip)" if per is not None else ""),
                    "<= 404 ns (half of the ftrace watch's 808)", None if per is None else per <= 404,
                    load=load_of(d, "watch-probe"))

    wprog = read(d, "watch-prog.json")
    report["watch_prog"] = wprog
    if wprog:
        for w in wprog["workloads"]:
            what = "pingpong on one CPU" if w["workload"] == "pingpong" else f"{wprog['threads']:,} sleepers"
            runs = w.get("ns_per_run") or {}
            each = ", ".join(f"{k} {runs[k]:.0f} ns" for k in ("waking", "wakeup", "switch") if runs.get(k) is not None)
            add(f"the BPF watch's programs by the kernel's count (bpf_stats), {what}: per wake-up",
                w.get("ns_per_wakeup"), "{:.0f} ns" + (f" (a run: {each})" if each else ""),
                load=load_of(d, "watch-prog"))

    probe = read(d, "event-cost.json")
    report["trace_probe"] = probe
    if probe:
        for g in probe["groups"]:
            per_event = g["ns_per_event"]
            add(f"tracing's cost per event, futex one PU, {g['group']} events: p50 per op with them - without",
                g["cost_ns_per_op"], "{:+.0f} ns" + (f" ({g['events_per_op']:.2f} events per op, "
                + (f"{per_event:.0f} ns an event)" if per_event is not None else "too few for a cost per event)")),
                load=load_of(d, "event-cost"))

    hooks = read(d, "bpf-hooks.json")
    report["bpf_hooks"] = hooks
    if hooks:
        for h in hooks["sets"]:
            per_event = h["ns_per_event"]
            add(f"BPF programs on a traced run's events, futex one PU, {h['set']}: p50 per op with them - without",
                h["cost_ns_per_op"],
                "{:+.0f} ns" + f" ({h['cost_share'] * 100:+.0f}% of {h['plain_p50_ns']:.0f} ns"
                + (f"; {per_event:.0f} ns an event, {hooks['events_per_op']:.2f} events per op)" if per_event else ")"),
                load=load_of(d, "bpf-hooks"))
        add("fentry and kprobe programs on __x64_sys_futex (hooks without the syscall tracepoints)",
            f"fentry {hooks['fentry']}; kprobe {hooks['kprobe']}", "{}", load=load_of(d, "bpf-hooks"))

    op = read(d, "open.json")
    report["open"] = op
    add(f"opening a {op['megabytes'] if op else '?'} MB session: GUI thread's longest wait",
        op and op["longest_wait_ms"], "{} ms" + (f" (open {op['open_ms'] / 1000:.1f} s)" if op else ""),
        "<= 100 ms", op["longest_wait_ms"] <= 100 if op else None, op and op["load"])

    report["sweep"] = [s for s in (read(d, "sweep1.json"), read(d, "sweep2.json")) if s]
    for s in report["sweep"]:
        s["load_start"] = load_of(d, f"sweep{s['points_per_octave']}")
        target = "<= 60 s" if s["points_per_octave"] == 1 else None
        add(f"sweep futex same-pu, {s['points_per_octave']} point(s)/octave, {s['points']} points", s["seconds"],
            "{:.0f} s" + f" ({s['seconds'] / s['points']:.1f} s per point)", target,
            s["seconds"] <= 60 if target else None, s["load_start"])

    sv = read(d, "survey.json")
    report["survey"] = sv
    add(f"survey, default budget ({sv['budget']:.0f} s): {sv['runs']} runs, {sv['skipped']} skipped" if sv
        else "survey, default budget", sv and sv["seconds"],
        "{:.1f} s wall" + (f" (its estimate {sv['estimate']:.1f} s)" if sv else ""), "<= 120 s",
        sv["seconds"] <= 120 if sv else None, load_of(d, "survey"))

    report["table"] = [{"figure": f, "value": v, "target": t, "met": m, "load": l} for f, v, t, m, l in rows]
    out.write_text(json.dumps(report, indent=2) + "\n")
    # The same table in Markdown, for docs/performance.md.
    md = ["| figure | value | target | met | load |", "|---|---|---|---|---|"]
    for f, v, t, m, l in rows:
        met = "" if m is None else ("yes" if m else "**no**")
        md.append(f"| {f} | {v} | {t} | {met} | {'' if l is None else f'{l:.2f}'} |")
    out.with_suffix(".md").write_text("\n".join(md) + "\n")
    if doc:
        rewrite_doc(doc, report, "\n".join(md))
    width = max(len(r[0]) for r in rows)
    print(f"\nctxscope performance, {report['date']} (report: {out})")
    print(f"{'figure':<{width}}  {'value':<44} {'target':<12} {'met':<4} load")
    for f, v, t, m, l in rows:
        met = "" if m is None else ("yes" if m else "NO")
        print(f"{f:<{width}}  {v:<44} {t:<12} {met:<4} {'' if l is None else f'{l:.2f}'}")


if __name__ == "__main__":
    main()
