#!/usr/bin/env python3
"""tests/support/s3_fault_proxy.py - an HTTP proxy between weir and s3rver
that injects the faults of a server going down at chosen requests, so the
object-storage tests reach those paths every time instead of by chance.

    s3_fault_proxy.py UPSTREAM_PORT DATA_DIR PORT_FILE LOG_FILE RULE...

It listens on a free port of 127.0.0.1 (written to PORT_FILE once it
listens) and forwards every request to s3rver on UPSTREAM_PORT, one
connection per request, unchanged (the signed headers, Host included, go
through as they came). RULE is one of:

  refuse-start=N     answers the first N CreateMultipartUpload requests
                     (POST ?uploads) with 503, as a server that is down
                     when a part file opens
  short-complete=N   answers the first N CompleteMultipartUpload requests
                     (POST ?uploadId=) with 503 without passing them on,
                     after leaving an empty object at the key in DATA_DIR
                     (s3rver's folder), as a server that dies while it
                     writes the completed object into place: the upload
                     stays, the object is short
  deny-part=N        answers the first N UploadPart requests (PUT
                     ?partNumber=&uploadId=) with 403 AccessDenied, as a
                     server whose credentials or policy changed
  timeout-part=N     answers the first N UploadPart requests with S3's
                     transient 400 RequestTimeout (retried by the client)
  bad-part=N         answers the first N UploadPart requests with a 400
                     InvalidArgument whose message names RequestTimeout
                     (a refusal: the words in a message are not the code)
  refuse-sweep=N     answers the first N ListMultipartUploads requests
                     (GET ?uploads) made after a CompleteMultipartUpload
                     went through with 503, as a server that goes down
                     just after the sink's first commit

Each injected fault is a line "<rule> <method> <path>" in LOG_FILE.
"""
import os
import socket
import socketserver
import sys
import threading
import urllib.parse

UPSTREAM = int(sys.argv[1])
DATA = sys.argv[2]
PORT_FILE, LOG_FILE = sys.argv[3], sys.argv[4]
left = {}
for r in sys.argv[5:]:
    name, n = r.split("=")
    assert name in ("refuse-start", "short-complete", "deny-part", "timeout-part", "bad-part",
                    "refuse-sweep"), r
    left[name] = int(n)
mu = threading.Lock()
committed = threading.Event()  # a CompleteMultipartUpload went through


def take(rule):
    """Whether rule injects its fault into this request (and log it)."""
    with mu:
        if left.get(rule, 0) <= 0:
            return False
        left[rule] -= 1
        return True


def note(rule, method, target):
    with mu, open(LOG_FILE, "a") as f:
        f.write(f"{rule} {method} {target}\n")


def read_request(f):
    """(request line, header lines, body) or None at the end."""
    line = f.readline()
    if not line:
        return None
    headers = []
    length = 0
    while True:
        h = f.readline()
        if h in (b"\r\n", b"\n", b""):
            break
        name, _, value = h.decode("latin-1").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
        if name.strip().lower() == "transfer-encoding":
            raise ValueError("chunked requests are not handled")
        headers.append(h)
    body = f.read(length) if length else b""
    return line, headers, body


def reply(w, status, text, code="ServiceUnavailable"):
    body = (f"<?xml version=\"1.0\"?><Error><Code>{code}</Code>"
            f"<Message>{text}</Message></Error>").encode()
    w.write(f"HTTP/1.1 {status}\r\nContent-Type: application/xml\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
            + body)


def leave_short_object(target):
    """An empty object at the key of the request's path (/bucket/key)."""
    path = urllib.parse.unquote(target.split("?", 1)[0]).lstrip("/")
    os.makedirs(os.path.dirname(f"{DATA}/{path}"), exist_ok=True)
    with open(f"{DATA}/{path}._S3rver_object", "wb"):
        pass


class Handler(socketserver.StreamRequestHandler):
    def handle(self):
        req = read_request(self.rfile)
        if req is None:
            return
        line, headers, body = req
        method, target, _ = line.decode("latin-1").split(" ", 2)
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(target).query,
                                      keep_blank_values=True)
        if method == "POST" and "uploads" in query and take("refuse-start"):
            note("refuse-start", method, target)
            reply(self.wfile, "503 Service Unavailable", "refused by the proxy")
            return
        if method == "POST" and "uploadId" in query and take("short-complete"):
            leave_short_object(target)
            note("short-complete", method, target)
            reply(self.wfile, "503 Service Unavailable", "died while writing")
            return
        if (method == "GET" and "uploads" in query and committed.is_set()
                and take("refuse-sweep")):
            note("refuse-sweep", method, target)
            reply(self.wfile, "503 Service Unavailable", "refused by the proxy")
            return
        if method == "PUT" and "partNumber" in query and take("deny-part"):
            note("deny-part", method, target)
            reply(self.wfile, "403 Forbidden", "denied by the proxy", "AccessDenied")
            return
        if method == "PUT" and "partNumber" in query and take("bad-part"):
            note("bad-part", method, target)
            reply(self.wfile, "400 Bad Request", "Part size not allowed here (this is no "
                  "RequestTimeout and no Throttling)", "InvalidArgument")
            return
        if method == "PUT" and "partNumber" in query and take("timeout-part"):
            # S3's transient "retry me", which comes as a 400
            note("timeout-part", method, target)
            reply(self.wfile, "400 Bad Request", "Your socket connection to the server was "
                  "not read from or written to within the timeout period.", "RequestTimeout")
            return
        # One upstream connection per request, closed after the reply, which
        # goes back whole; this connection closes too.
        out = [line] + [h for h in headers
                        if not h.lower().startswith(b"connection:")]
        out.append(b"Connection: close\r\n\r\n")
        with socket.create_connection(("127.0.0.1", UPSTREAM)) as up:
            up.sendall(b"".join(out) + body)
            resp = b""
            while True:
                chunk = up.recv(65536)
                if not chunk:
                    break
                resp += chunk
        head, sep, rest = resp.partition(b"\r\n\r\n")
        if method == "POST" and "uploadId" in query and head.startswith(b"HTTP/1.1 200"):
            committed.set()
        lines = [h for h in head.split(b"\r\n")
                 if not h.lower().startswith((b"connection:", b"keep-alive:"))]
        self.wfile.write(b"\r\n".join(lines + [b"Connection: close"]) + sep
                         + rest)


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


with Server(("127.0.0.1", 0), Handler) as srv:
    with open(PORT_FILE + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(PORT_FILE + ".tmp", PORT_FILE)
    srv.serve_forever()
