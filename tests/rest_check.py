#!/usr/bin/python3
"""tests/rest_check.py - the HTTP checks of tests/test_rest_http.sh.

    rest_check.py api URL TOKEN_FILE      endpoints, watermark report, metrics
    rest_check.py actions URL TOKEN_FILE  token checks, savepoint
    rest_check.py stop URL TOKEN_FILE     stop with a savepoint
    rest_check.py ui URL DOM_FILE         the UI's rendered DOM against the API

/metrics is read with prometheus_client's own text parser (Debian's
python3-prometheus-client), so the exposition must be valid Prometheus text.
Every wait polls with a bound; nothing sleeps to let a window pass.
"""
import json
import os
import re
import sys
import time
import urllib.error
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

GUARD_S = 60


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def http(url, method="GET", body=None, token=None):
    req = urllib.request.Request(url, method=method, data=body)
    if token is not None:
        req.add_header("Authorization", "Bearer " + token)
    if body is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()


def get_json(url):
    status, headers, text = http(url)
    if status != 200:
        fail("GET %s: %d %s" % (url, status, text))
    if not headers.get("Content-Type", "").startswith("application/json"):
        fail("GET %s: Content-Type %s" % (url, headers.get("Content-Type")))
    return json.loads(text)


def poll(what, fn):
    deadline = time.time() + GUARD_S
    last = None
    while time.time() < deadline:
        ok, last = fn()
        if ok:
            return last
        time.sleep(0.1)
    fail("%s: still not so after %d s; last seen: %s" % (what, GUARD_S, json.dumps(last)[:2000]))


def job_id(base):
    jobs = get_json(base + "jobs/overview")["jobs"]
    if len(jobs) != 1 or not re.fullmatch(r"[0-9a-f]{32}", jobs[0]["jid"]):
        fail("overview: %s" % jobs)
    return jobs[0]["jid"]


EXPECTED_VERTICES = ["Source: clicks", "Source: views", "Union", "tumbling window"]


def check_api(base):
    jid = job_id(base)
    job = get_json(base + "jobs/" + jid)
    if job["state"] != "RUNNING" or job["name"] != "job":
        fail("job: %s" % job)
    names = [v["name"] for v in job["vertices"]]
    if names != EXPECTED_VERTICES:
        fail("vertices %s, expected %s" % (names, EXPECTED_VERTICES))
    plan = get_json(base + "jobs/%s/plan" % jid)["plan"]
    window = plan["nodes"][3]
    if [(i["id"], i["ship_strategy"]) for i in window["inputs"]] != [(2, "HASH")]:
        fail("the window's input is the union through a keyed exchange: %s" % window)
    union = plan["nodes"][2]
    if sorted(i["id"] for i in union["inputs"]) != [0, 1]:
        fail("the union reads both sources: %s" % union)
    if window["operators"][-1]["name"] != "blackhole" or not window["operators"][-1]["sink"]:
        fail("the window's chain ends in the sink: %s" % window)

    # Who holds the watermark back: the folder source, whose one file is
    # read, holds every operator behind it; the datagen split does not.
    def held():
        w = get_json(base + "jobs/%s/watermarks" % jid)
        text = w["vertices"][3]["subtasks"][0]["held-by"]["text"] or ""
        return ("tumbling window[0] watermark held by views[0]: no open split" in text
                and "no record for" in text
                and "table.exec.source.idle-timeout is not set" in text), w
    w = poll("the window's watermark held by the silent source", held)
    src = w["vertices"][0]["subtasks"][0]
    if [s["id"] for s in src["splits"]] != ["datagen-0-of-1"] or src["splits"][0]["status"] != "ACTIVE":
        fail("clicks' split: %s" % src)
    views = w["vertices"][1]["subtasks"][0]["splits"]
    if len(views) != 1 or views[0]["status"] != "FINISHED" or views[0]["watermark"] != 2000:
        fail("views' split: %s" % views)
    union = w["vertices"][2]["subtasks"][0]
    ins = sorted(union["inputs"], key=lambda i: i["from-vertex"])
    if ins[1]["watermark"] != 2000 or not (ins[0]["watermark"] > 2000):
        fail("union inputs: %s" % ins)
    h = union["held-by"]
    if h["from-vertex"] != 1 or not h["behind-others-ms"] > 0:
        fail("the union is held by its input from views, behind the other by the gap: %s" % union)

    v = get_json(base + "jobs/%s/vertices/3" % jid)
    ops = [o["name"] for o in v["subtasks"][0]["operators"]]
    if ops[0] != "tumbling window" or ops[-1] != "blackhole":
        fail("vertex 3 operators: %s" % ops)
    bp = get_json(base + "jobs/%s/vertices/0/backpressure" % jid)
    if bp["backpressure-level"] not in ("ok", "low", "high") or not 0 <= bp["subtasks"][0]["ratio"] <= 1:
        fail("backpressure: %s" % bp)
    ex = get_json(base + "jobs/%s/exceptions" % jid)
    if ex["root-exception"] is not None:
        fail("exceptions: %s" % ex)

    def ckpt():
        c = get_json(base + "jobs/%s/checkpoints" % jid)
        return c["counts"]["completed"] >= 1 and len(c["history"]) >= 1, c
    c = poll("a completed checkpoint", ckpt)
    h = c["history"][0]
    if not (h["state_size"] > 0 and h["end_to_end_duration"] >= 0 and h["id"] >= 1):
        fail("checkpoint history: %s" % c)
    for path in ["nope", "jobs/" + "0" * 32, "jobs/%s/vertices/9" % jid, "jobs/%s/nothing" % jid]:
        status, _, _ = http(base + path)
        if status != 404:
            fail("GET %s: %d, expected 404" % (path, status))

    # /metrics through a real parser. Counters read before the REST figures
    # can only be smaller or equal.
    status, headers, text = http(base + "metrics")
    if status != 200 or not headers["Content-Type"].startswith("text/plain; version=0.0.4"):
        fail("metrics: %d %s" % (status, headers))
    fams = {f.name: f for f in text_string_to_metric_families(text)}
    after = get_json(base + "jobs/" + jid)
    need = ["weir_job_task_operator_numRecordsIn", "weir_job_task_operator_numRecordsOut",
            "weir_job_task_operator_numRecordsInPerSecond", "weir_job_task_operator_numRecordsOutPerSecond",
            "weir_job_task_operator_currentInputWatermark", "weir_job_task_operator_currentOutputWatermark",
            "weir_job_task_operator_watermarkLag", "weir_job_task_operator_numLateRecordsDropped",
            "weir_job_task_busyTimeMsPerSecond", "weir_job_task_backPressuredTimeMsPerSecond",
            "weir_job_task_idleTimeMsPerSecond", "weir_job_numberOfCompletedCheckpoints",
            "weir_job_lastCheckpointDuration", "weir_job_lastCheckpointSize", "weir_job_lastCheckpointFullSize",
            "weir_job_lastCompletedCheckpointId", "weir_job_task_operator_split_currentWatermark",
            "weir_job_task_watermarkStalledTimeMs", "weir_job_uptime"]
    for n in need:
        if n not in fams:
            fail("metric %s missing; have %s" % (n, sorted(fams)))
    seen = set()
    for f in fams.values():
        for s in f.samples:
            key = (s.name, tuple(sorted(s.labels.items())))
            if key in seen:
                fail("duplicate series %s" % (key,))
            seen.add(key)
            if s.labels.get("job") != "job" or s.labels.get("job_id") != jid:
                fail("labels of %s: %s" % (s.name, s.labels))

    def sample(fam, **labels):
        out = [s for s in fams[fam].samples if all(s.labels.get(k) == v for k, v in labels.items())]
        if len(out) != 1:
            fail("%s%s: %d samples" % (fam, labels, len(out)))
        return out[0].value

    src_out = sample("weir_job_task_operator_numRecordsOut", task="Source: clicks", operator="datagen")
    if not 0 < src_out <= after["vertices"][0]["metrics"]["read-records"]:
        fail("clicks numRecordsOut %s vs REST %s" % (src_out, after["vertices"][0]["metrics"]))
    win_in = sample("weir_job_task_operator_numRecordsIn", task="tumbling window", operator="tumbling window")
    if not 0 < win_in <= after["vertices"][3]["metrics"]["read-records"]:
        fail("window numRecordsIn %s" % win_in)
    if sample("weir_job_task_operator_currentInputWatermark", operator="tumbling window") != 2000:
        fail("the window's input watermark is views' 2000")
    for s in fams["weir_job_task_busyTimeMsPerSecond"].samples:
        if not 0 <= s.value <= 1000:
            fail("busy time %s" % s)
    if sample("weir_job_numberOfCompletedCheckpoints") < 1:
        fail("no completed checkpoint in metrics")
    if sample("weir_job_task_operator_split_currentWatermark", split="datagen-0-of-1") <= 2000:
        fail("clicks' split runs ahead")
    if sample("weir_job_task_watermarkStalledTimeMs", task="tumbling window") <= 0:
        fail("the window's watermark does not move")
    print("api ok: %d metric families, %d series" % (len(fams), len(seen)))


def check_actions(base, token):
    jid = job_id(base)
    url = base + "jobs/%s/savepoints" % jid
    body = b'{"cancel-job": false}'
    status, headers, text = http(url, "POST", body)
    if status != 401 or "Bearer" not in headers.get("WWW-Authenticate", ""):
        fail("savepoint without a token: %d %s %s" % (status, headers, text))
    status, _, text = http(url, "POST", body, token="0" * 64)
    if status != 403:
        fail("savepoint with a wrong token: %d %s" % (status, text))
    status, _, text = http(url, "POST", body, token=token[:-1])
    if status != 403:
        fail("savepoint with a token one character short: %d %s" % (status, text))
    for m, path in [("PATCH", "jobs/%s?mode=cancel" % jid), ("POST", "jobs/%s/stop" % jid)]:
        status, _, _ = http(base + path, m, b"{}")
        if status != 401:
            fail("%s %s without a token: %d" % (m, path, status))
    status, _, _ = http(base + "jobs/%s/savepoints" % ("f" * 32), "POST", body, token=token)
    if status != 404:
        fail("savepoint of another job: %d" % status)
    if get_json(base + "jobs/" + jid)["state"] != "RUNNING":
        fail("refused actions must leave the job running")
    status, _, text = http(url, "POST", body, token=token)
    if status != 202:
        fail("savepoint with the token: %d %s" % (status, text))
    rid = json.loads(text)["request-id"]

    def done():
        s = get_json(url + "/" + rid)
        return s["status"]["id"] == "COMPLETED", s
    s = poll("the savepoint", done)
    loc = s["operation"].get("location")
    if not loc or not os.path.isdir(loc):
        fail("savepoint location: %s" % s)
    print("actions ok: savepoint at %s" % loc)


def check_stop(base, token):
    jid = job_id(base)
    status, _, text = http(base + "jobs/%s/stop" % jid, "POST", b'{"drain": false}', token=token)
    if status != 202:
        fail("stop: %d %s" % (status, text))
    rid = json.loads(text)["request-id"]
    try:
        s = get_json(base + "jobs/%s/savepoints/%s" % (jid, rid))
        print("stop: %s" % s["status"]["id"])
    except (urllib.error.URLError, ConnectionError):
        print("stop: the process is already gone")


def check_ui(base, dom_file):
    """The page as headless Chromium rendered it, against the API."""
    dom = open(dom_file).read()
    jid = job_id(base)
    job = get_json(base + "jobs/" + jid)
    if 'data-loaded="true"' not in dom:
        fail("the page never loaded its data")
    names = re.findall(r'<g class="vertex" data-id="(\d+)" data-name="([^"]*)" data-parallelism="(\d+)"', dom)
    want = [(str(v["id"]), v["name"], str(v["parallelism"])) for v in job["vertices"]]
    if names != want:
        fail("graph vertices %s, API %s" % (names, want))
    edges = sorted(re.findall(r'<path class="edge" data-from="(\d+)" data-to="(\d+)"', dom))
    plan = get_json(base + "jobs/%s/plan" % jid)["plan"]
    want_edges = sorted((str(i["id"]), str(n["id"])) for n in plan["nodes"] for i in n["inputs"])
    if edges != want_edges:
        fail("graph edges %s, API %s" % (edges, want_edges))
    if "HASH" not in dom:
        fail("the keyed exchange is not labelled")
    # Counters only grow: what the page showed is at most what the API says now.
    for vid, rr in re.findall(r'data-id="(\d+)" data-name="[^"]*" data-parallelism="\d+" data-read-records="(\d+)"', dom):
        if not int(rr) <= job["vertices"][int(vid)]["metrics"]["read-records"]:
            fail("vertex %s read-records %s > API" % (vid, rr))
    held = re.search(r'<tr data-vertex="3" data-subtask="0">.*?<td class="held">([^<]*)</td>', dom)
    if not held or "tumbling window[0] watermark held by views[0]: no open split" not in held.group(1):
        fail("the watermarks table does not say who holds the window: %s" % (held and held.group(1)))
    if not re.search(r'<tr data-split="datagen-0-of-1" data-status="ACTIVE">', dom) or \
            not re.search(r'<tr data-split="[^"]*a\.csv" data-status="FINISHED">', dom):
        fail("the splits table lacks the two splits")
    print("ui ok: %d vertices, %d edges" % (len(names), len(edges)))


def check_idle(base):
    """With an idle timeout the read-out folder stops holding the window."""
    jid = job_id(base)

    def moved():
        w = get_json(base + "jobs/%s/watermarks" % jid)
        win = w["vertices"][3]["subtasks"][0]
        wm = win["currentInputWatermark"]
        return isinstance(wm, int) and wm > 2000 and win["held-by"]["by"].startswith("clicks[0]"), w
    poll("the window's watermark past the idle folder source", moved)
    print("idle ok")


def main():
    cmd, base = sys.argv[1], sys.argv[2]
    if cmd == "api":
        check_api(base)
    elif cmd == "actions":
        check_actions(base, open(sys.argv[3]).read().strip())
    elif cmd == "stop":
        check_stop(base, open(sys.argv[3]).read().strip())
    elif cmd == "idle":
        check_idle(base)
    elif cmd == "ui":
        check_ui(base, sys.argv[3])
    else:
        fail("unknown command " + cmd)


if __name__ == "__main__":
    main()
