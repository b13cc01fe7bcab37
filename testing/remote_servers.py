"""Loopback servers for the tests of remote shards: nginx serving a directory
over HTTP or HTTPS (a self-signed certificate), a proxy that injects faults
(resets, 5xx, 429, stalls, short bodies) in front of any HTTP server, one
that adds latency (delay_proxy.cc), and an S3 endpoint that serves GetObject and HeadObject from a
directory and checks every request's Signature Version 4 with botocore's
signer.

Each server binds 127.0.0.1 on a free port, keeps its files in a temporary
directory of its own and is a context manager:

    with Nginx(root) as n, FaultProxy(n.url, every=3) as p:
        ...  # read p.url + "/shard-000.tar"
"""

import calendar
import email.utils
import hashlib
import hmac
import http.client
import http.server
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import xml.sax.saxutils

import botocore.auth
import botocore.awsrequest
import botocore.credentials

# FUSEDNORM_NGINX: another nginx (a bundle carries its own to a machine
# without one).
NGINX = os.environ.get("FUSEDNORM_NGINX", "/usr/sbin/nginx")
START_TIMEOUT_S = 10.0
LOG_SETTLE_S = 0.05
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD"
CHUNK = 1 << 20
UNSATISFIABLE = "unsatisfiable"
MAX_CLOCK_SKEW_S = 15 * 60


def free_port():
    """A port of 127.0.0.1 that nothing listened on a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def accepts(port):
    """Whether 127.0.0.1:port accepts a connection."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        return True
    except OSError:
        return False


def read_text(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def copy_body(src, dst, n=None):
    """Copies n bytes of src (all of it when n is None) to dst."""
    while n is None or n > 0:
        data = src.read(CHUNK if n is None else min(CHUNK, n))
        if not data:
            return
        dst.write(data)
        if n is not None:
            n -= len(data)


def self_signed_certificate(directory):
    """Writes cert.pem and key.pem for localhost and 127.0.0.1; returns
    their paths."""
    cert = os.path.join(directory, "cert.pem")
    key = os.path.join(directory, "key.pem")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
         "-days", "2", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
         "-keyout", key, "-out", cert],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env=plain_environment())
    return cert, key


def plain_environment():
    """The environment for programs other than ours: without the sanitizer
    runtime a test under ASan preloads for its instrumented extension."""
    return {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


class Nginx:
    """nginx serving the files under `root` on 127.0.0.1, over TLS with a
    self-signed certificate when `tls` (its path is `ca_file`). Ranges,
    ETags, sendfile and long keep-alive are on; every request is a line of
    `access_log` (`requests()` counts them)."""

    def __init__(self, root, tls=False):
        self.root = os.path.abspath(root)
        self.tls = tls
        self.url = None
        self.ca_file = None
        self.access_log = None
        self._dir = None
        self._process = None

    def __enter__(self):
        self._dir = tempfile.mkdtemp(prefix="nginx-",
                                     dir=os.environ.get("TEST_TMPDIR"))
        try:
            self._start()
        except BaseException:
            self._stop()
            raise
        return self

    def __exit__(self, *exc):
        self._stop()

    def pids(self):
        """nginx's master process and its workers."""
        master = self._process.pid
        with open(f"/proc/{master}/task/{master}/children") as f:
            return [master] + [int(p) for p in f.read().split()]

    def requests(self):
        """The number of requests nginx has logged. nginx logs a request
        just after answering it: this waits until the count holds still for
        LOG_SETTLE_S (2 s at most)."""
        deadline = time.monotonic() + 2
        count = self._logged()
        while True:
            time.sleep(LOG_SETTLE_S)
            again = self._logged()
            if again == count or time.monotonic() > deadline:
                return again
            count = again

    def _logged(self):
        with open(self.access_log, "rb") as f:
            return sum(1 for _ in f)

    def _path(self, name):
        return os.path.join(self._dir, name)

    def _start(self):
        self.access_log = self._path("access.log")
        key = None
        if self.tls:
            self.ca_file, key = self_signed_certificate(self._dir)
        for _ in range(5):
            port = free_port()
            self._write_config(port, key)
            if self._launch(port):
                scheme = "https" if self.tls else "http"
                self.url = f"{scheme}://127.0.0.1:{port}"
                return
        raise RuntimeError("nginx found no free port:\n" + self._errors())

    def _write_config(self, port, key):
        listen = f"127.0.0.1:{port}" + (" ssl" if self.tls else "")
        tls = (f"ssl_certificate {self.ca_file};\n"
               f"    ssl_certificate_key {key};\n") if self.tls else ""
        # As root, nginx's workers would run as nobody, who may not read
        # `root`.
        user = "user root;\n" if os.geteuid() == 0 else ""
        temp = "".join(f"{kind}_temp_path {self._path(kind)};\n  "
                       for kind in ("client_body", "proxy", "fastcgi",
                                    "uwsgi", "scgi"))
        with open(self._path("nginx.conf"), "w") as f:
            f.write(f"""{user}worker_processes 1;
pid {self._path("nginx.pid")};
lock_file {self._path("nginx.lock")};
error_log {self._path("error.log")} warn;
events {{ worker_connections 1024; }}
http {{
  {temp}access_log {self.access_log};
  default_type application/octet-stream;
  sendfile on;
  keepalive_requests 100000;
  keepalive_timeout 300s;
  server {{
    listen {listen};
    server_name localhost;
    root {self.root};
    {tls}  }}
}}
""")

    def _launch(self, port):
        """Starts nginx; True once it accepts connections, False when it
        could not bind `port`."""
        open(self._path("error.log"), "w").close()
        with open(self._path("stderr.log"), "wb") as out:
            self._process = subprocess.Popen(
                [NGINX, "-p", self._dir, "-c", self._path("nginx.conf"),
                 "-e", self._path("error.log"),
                 "-g", "daemon off; master_process on;"],
                stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                env=plain_environment())
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                if "Address already in use" in self._errors():
                    self._process = None
                    return False
                break
            if accepts(port):
                return True
            time.sleep(0.02)
        raise RuntimeError("nginx did not start:\n" + self._errors())

    def _errors(self):
        return (read_text(self._path("error.log")) +
                read_text(self._path("stderr.log")))

    def _stop(self):
        if self._process is not None:
            if self._process.poll() is None:
                self._process.send_signal(signal.SIGTERM)
                try:
                    self._process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self._process.kill()
                    self._process.wait()
            self._process = None
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def handle_error(self, request, client_address):
        """Quiet when a client goes away: the tests' clients give up on
        stalls and faults on purpose."""
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 120  # An idle keep-alive connection's thread ends after it.

    @property
    def owner(self):
        return self.server.owner

    def log_message(self, *args):
        pass

    def answer(self, status, headers=(), body=b"", reason=None):
        """Sends a whole answer (no body for HEAD) and keeps the connection
        open."""
        self.send_response(status, reason)
        for name, value in headers:
            self.send_header(name, value)
        if not any(name.lower() == "content-length" for name, _ in headers):
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


class _ThreadedServer:
    """Runs `handler` on a _Server in a thread between __enter__ and
    __exit__."""

    handler = None

    def __init__(self):
        self.url = None
        self.port = None
        self._server = None
        self._thread = None
        self._lock = threading.Lock()

    def __enter__(self):
        self._server = _Server(("127.0.0.1", 0), self.handler)
        self._server.owner = self
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        args=(0.05,), daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


FORWARDED_REQUEST_HEADERS = ("Range", "If-Match", "If-None-Match")
FORWARDED_ANSWER_HEADERS = ("Content-Type", "Content-Range", "ETag",
                            "Last-Modified", "Accept-Ranges", "Retry-After")


def origin_form(target):
    """The path and query of a request target, which a client that takes
    the proxy for a proxy sends as an absolute URL."""
    if not target.startswith("http://"):
        return target
    parts = urllib.parse.urlsplit(target)
    return (parts.path or "/") + ("?" + parts.query if parts.query else "")


class _ProxyHandler(_Handler):

    def setup(self):
        super().setup()
        self.upstream = None  # This connection's to the upstream.

    def finish(self):
        if self.upstream is not None:
            self.upstream.close()
        super().finish()

    def do_GET(self):
        time.sleep(self.owner.delay_ms / 1000)
        fault = self.owner._next_fault()
        if self.command == "GET" and self.owner.refuses(self.headers["Range"]):
            fault = "500"
        if self.command == "GET" and self.owner.stalls(self.headers["Range"]):
            fault = "stall"
        if fault == "reset":
            self.reset()
        elif fault == "stall":
            time.sleep(self.owner.stall_s)
            self.close_connection = True
        elif fault in ("500", "503"):
            self.answer(int(fault), [("Content-Type", "text/plain")],
                        f"injected {fault}\n".encode())
        elif fault == "429":
            self.answer(429, [("Retry-After", self.owner.retry_after),
                              ("Content-Type", "text/plain")],
                        b"injected 429\n")
        else:
            self.forward(truncate=fault == "truncate")

    do_HEAD = do_GET

    def reset(self):
        """Closes the connection with a TCP RST and no answer."""
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                   struct.pack("ii", 1, 0))
        self.rfile.close()  # The socket's only other reference.
        self.connection.close()
        self.close_connection = True

    def fetch(self):
        """The upstream's answer to this request, on this thread's
        persistent connection (reopened once if the upstream closed it)."""
        headers = {name: self.headers[name]
                   for name in FORWARDED_REQUEST_HEADERS if name in self.headers}
        if self.upstream is not None:
            try:
                return self.request_upstream(headers)
            except (http.client.HTTPException, OSError):
                self.upstream.close()
        self.upstream = http.client.HTTPConnection(
            *self.owner.upstream_address, timeout=30)
        return self.request_upstream(headers)

    def request_upstream(self, headers):
        self.upstream.request(self.command, origin_form(self.path),
                              headers=headers)
        return self.upstream.getresponse()

    def forward(self, truncate):
        """Relays the upstream's answer; with `truncate`, only half its body,
        then closes."""
        try:
            response = self.fetch()
        except (http.client.HTTPException, OSError) as e:
            self.answer(502, [("Content-Type", "text/plain")],
                        f"upstream: {e}\n".encode())
            return
        length = response.getheader("Content-Length")
        body = None
        if length is None:  # Chunked: measure it.
            body = response.read()
            length = str(len(body))
        self.send_response(response.status, response.reason)
        for name in FORWARDED_ANSWER_HEADERS:
            if response.getheader(name) is not None:
                self.send_header(name, response.getheader(name))
        if response.status not in (204, 304):
            self.send_header("Content-Length", length)
        self.end_headers()
        n = int(length) // 2 if truncate else None
        if body is not None:
            self.wfile.write(body[:n])
        elif self.command != "HEAD":
            copy_body(response, self.wfile, n)
        if truncate:
            self.close_connection = True
            self.upstream.close()
            self.upstream = None
        else:
            response.read()


class FaultProxy(_ThreadedServer):
    """An HTTP/1.1 proxy in front of the http:// server `upstream` that
    forwards GET and HEAD (path, query, Range and If-Match/If-None-Match;
    status, body and the entity headers back), keeping client connections
    alive. Every request first waits `delay_ms`; with `every` > 0, every
    every-th request (1-based, all connections together) gets the next kind
    of `faults`, in turn:

      reset     the connection closes with a TCP RST and no answer
      500, 503  that status, a short body
      429       429 with Retry-After: `retry_after`
      stall     no answer for `stall_s` seconds, then the connection closes
      truncate  the upstream's status and headers, half the body, then the
                connection closes

    With `refuse_ranges_from` > 0, a GET of a range of at least that many
    bytes gets 500 (a cache's copy of a shard fails, its samples' reads do
    not), counted in `refused`. With `stall_ranges`, every GET of a range
    stalls (the shards open, no sample comes); with `stall_ranges="repeats"`,
    every GET of a range asked for before (a sample's second epoch);
    `stalled` is set at the first. `requests` counts requests; `faults`
    counts the faults of each kind."""

    handler = _ProxyHandler

    def __init__(self, upstream, every=0,
                 faults=("reset", "500", "503", "429", "stall", "truncate"),
                 delay_ms=0, stall_s=3.0, retry_after="0",
                 refuse_ranges_from=0, stall_ranges=False):
        super().__init__()
        parts = urllib.parse.urlsplit(upstream)
        if parts.scheme != "http" or parts.port is None:
            raise ValueError(f"upstream must be http://HOST:PORT: {upstream}")
        self.upstream_address = (parts.hostname, parts.port)
        self.every = every
        self.fault_kinds = tuple(faults)
        self.delay_ms = delay_ms
        self.stall_s = stall_s
        self.retry_after = str(retry_after)
        self.requests = 0
        self.faults = {kind: 0 for kind in self.fault_kinds}
        self._fault_index = 0
        self.refuse_ranges_from = refuse_ranges_from
        self.refused = 0
        self.stall_ranges = stall_ranges
        self.stalled = threading.Event()
        self._ranges_seen = set()

    def refuses(self, range_header):
        """Whether a GET with this Range header gets 500 (and counts it)."""
        m = re.fullmatch(r"bytes=(\d+)-(\d+)", range_header or "")
        if (self.refuse_ranges_from <= 0 or m is None or
                int(m[2]) - int(m[1]) + 1 < self.refuse_ranges_from):
            return False
        with self._lock:
            self.refused += 1
        return True

    def stalls(self, range_header):
        """Whether a GET with this Range header stalls (stall_ranges)."""
        if range_header is None or not self.stall_ranges:
            return False
        stall = True
        if self.stall_ranges == "repeats":
            with self._lock:
                stall = range_header in self._ranges_seen
                self._ranges_seen.add(range_header)
        if stall:
            self.stalled.set()
        return stall

    def set_fault_every(self, n):
        """Makes every n-th request from now a fault (none when n is 0)."""
        with self._lock:
            self.every = n

    def _next_fault(self):
        """Counts a request; the kind of fault it gets, or None."""
        with self._lock:
            self.requests += 1
            if self.every <= 0 or self.requests % self.every:
                return None
            kind = self.fault_kinds[self._fault_index % len(self.fault_kinds)]
            self._fault_index += 1
            self.faults[kind] += 1
            return kind


class SignatureError(Exception):
    """A request S3 would refuse: its error code and a short reason."""

    def __init__(self, code, reason):
        super().__init__(reason)
        self.code = code
        self.reason = reason


def parse_authorization(value):
    """The Credential, SignedHeaders and Signature of an AWS4-HMAC-SHA256
    Authorization header."""
    algorithm, _, rest = value.partition(" ")
    if algorithm != "AWS4-HMAC-SHA256":
        raise SignatureError("SignatureDoesNotMatch",
                             f"algorithm {algorithm!r}")
    fields = {}
    for part in rest.split(","):
        name, _, field = part.strip().partition("=")
        fields[name] = field
    if not {"Credential", "SignedHeaders", "Signature"} <= fields.keys():
        raise SignatureError("SignatureDoesNotMatch", "malformed Authorization")
    return fields


def parse_range(value, size):
    """(first, last) of a single `bytes=` range of a size-byte object, None
    for the whole object (no range, several, or malformed: S3 ignores them),
    or UNSATISFIABLE."""
    match = re.fullmatch(r"bytes=(\d*)-(\d*)", (value or "").strip())
    if not match or match.groups() == ("", ""):
        return None
    first, last = match.groups()
    if not first:  # The last `last` bytes.
        n = int(last)
        return (max(size - n, 0), size - 1) if n and size else UNSATISFIABLE
    first = int(first)
    last = min(int(last), size - 1) if last else size - 1
    if first >= size:
        return UNSATISFIABLE
    return (first, last) if last >= first else None


def object_path(directory, key):
    """The file of `key` in a bucket's directory, or None when there is
    none (or the key leads out of the directory)."""
    path = os.path.realpath(os.path.join(directory, key))
    inside = path.startswith(directory + os.sep)
    return path if inside and os.path.isfile(path) else None


def etag_matches(condition, etag):
    return any(tag.strip() in ("*", etag) for tag in condition.split(","))


def check_date(amz_date, credential_date):
    """Raises SignatureError unless x-amz-date is now, give or take S3's
    15 minutes, on the credential's date."""
    try:
        when = calendar.timegm(time.strptime(amz_date, "%Y%m%dT%H%M%SZ"))
    except ValueError:
        raise SignatureError("AccessDenied", "x-amz-date malformed") from None
    if abs(time.time() - when) > MAX_CLOCK_SKEW_S:
        raise SignatureError("RequestTimeTooSkewed", "x-amz-date skewed")
    if amz_date[:8] != credential_date:
        raise SignatureError("SignatureDoesNotMatch",
                             "x-amz-date is not the credential's date")


class _S3Handler(_Handler):

    def do_GET(self):
        self.owner._count()
        try:
            self.owner._check_signature(self.command, self.path, self.headers)
        except SignatureError as e:
            self.owner._reject(e.reason)
            self.error(403, e.code, e.reason)
            return
        bucket, key = self.bucket_and_key()
        directory = self.owner._bucket_directory(bucket)
        if directory is None:
            self.error(404, "NoSuchBucket", f"no bucket {bucket}")
            return
        path = object_path(directory, key)
        if path is None:
            self.error(404, "NoSuchKey", f"no key {key}")
        else:
            self.send_object(path)

    do_HEAD = do_GET

    def bucket_and_key(self):
        """Virtual-hosted (Host: BUCKET.localhost) or path-style
        (/BUCKET/KEY)."""
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0]
        path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
        if host.endswith(".localhost"):
            return host[:-len(".localhost")], path.lstrip("/")
        bucket, _, key = path.lstrip("/").partition("/")
        return bucket, key

    def error(self, status, code, message):
        """An S3 error document."""
        escape = xml.sax.saxutils.escape
        body = ('<?xml version="1.0" encoding="UTF-8"?>\n'
                f"<Error><Code>{code}</Code><Message>{escape(message)}"
                f"</Message><Resource>{escape(self.path)}</Resource></Error>\n")
        self.answer(status, [("Content-Type", "application/xml")],
                    body.encode("utf-8", "replace"))

    def send_object(self, path):
        stat = os.stat(path)
        etag = self.owner._etag(path, stat)
        headers = [("ETag", etag), ("Accept-Ranges", "bytes"),
                   ("Last-Modified", email.utils.formatdate(stat.st_mtime,
                                                            usegmt=True))]
        if_match = self.headers.get("If-Match")
        if if_match is not None and not etag_matches(if_match, etag):
            self.error(412, "PreconditionFailed", "If-Match")
            return
        if_none_match = self.headers.get("If-None-Match")
        if if_none_match is not None and etag_matches(if_none_match, etag):
            self.send_response(304)
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            return
        size = stat.st_size
        span = parse_range(self.headers.get("Range"), size)
        if span == UNSATISFIABLE:
            self.error(416, "InvalidRange", f"bytes */{size}")
            return
        status, (first, last) = (206, span) if span else (200, (0, size - 1))
        if span:
            headers.append(("Content-Range", f"bytes {first}-{last}/{size}"))
        headers += [("Content-Type", "application/octet-stream"),
                    ("Content-Length", str(last - first + 1))]
        self.answer(status, headers)
        if self.command == "GET" and last >= first:
            with open(path, "rb") as f:
                self.connection.sendfile(f, first, last - first + 1)


class S3Server(_ThreadedServer):
    """S3 GetObject and HeadObject over the files under `root`: a bucket is
    a directory of `root`, a key a path under it. Requests are path-style
    (`url`/BUCKET/KEY) or virtual-hosted (`virtual_host_url(BUCKET)`/KEY,
    Host BUCKET.localhost). Every request must carry an AWS Signature
    Version 4 of the credentials and region given (and, with
    `session_token`, that token, signed); the signature is computed again
    with botocore's S3 signer from the headers the request signed. A request
    that fails the check gets 403 and its reason is appended to `rejected`.
    GET and HEAD honour a single byte range and If-Match/If-None-Match; the
    ETag is the quoted MD5 of the file. `requests` counts requests."""

    handler = _S3Handler

    def __init__(self, root, access_key="AKIDTEST", secret_key="SECRETTEST",
                 region="us-east-1", session_token=None):
        super().__init__()
        self.root = os.path.abspath(root)
        self.access_key = access_key
        self.region = region
        self.session_token = session_token
        self.requests = 0
        self.rejected = []
        self._signer = botocore.auth.S3SigV4Auth(
            botocore.credentials.Credentials(access_key, secret_key,
                                             session_token), "s3", region)
        self._etags = {}

    def virtual_host_url(self, bucket):
        """The base URL of `bucket` addressed virtual-hosted style."""
        return f"http://{bucket}.localhost:{self.port}"

    def _count(self):
        with self._lock:
            self.requests += 1

    def _reject(self, reason):
        with self._lock:
            self.rejected.append(reason)

    def _bucket_directory(self, bucket):
        """The directory of `bucket`, or None when there is none."""
        directory = os.path.join(self.root, bucket)
        if "/" in bucket or bucket in ("", ".", "..") or (
                not os.path.isdir(directory)):
            return None
        return os.path.realpath(directory)

    def _etag(self, path, stat):
        cache_key = (path, stat.st_mtime_ns, stat.st_size)
        with self._lock:
            etag = self._etags.get(cache_key)
        if etag is None:
            md5 = hashlib.md5()
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(CHUNK), b""):
                    md5.update(block)
            etag = f'"{md5.hexdigest()}"'
            with self._lock:
                self._etags[cache_key] = etag
        return etag

    def _check_signature(self, method, raw_path, headers):
        """Raises SignatureError unless the request is signed as S3 wants."""
        if "Authorization" not in headers:
            raise SignatureError("AccessDenied", "unsigned")
        fields = parse_authorization(headers["Authorization"])
        access_key, date, region, service, terminal = (
            fields["Credential"].split("/") + [""] * 5)[:5]
        if access_key != self.access_key:
            raise SignatureError("InvalidAccessKeyId",
                                 f"access key {access_key!r}")
        if (region, service, terminal) != (self.region, "s3", "aws4_request"):
            raise SignatureError("SignatureDoesNotMatch",
                                 f"scope {region}/{service}/{terminal}")
        signed = fields["SignedHeaders"].split(";")
        self._check_signed_headers(signed, headers, date)
        request = botocore.awsrequest.AWSRequest(
            method=method, url="http://" + headers["Host"] + raw_path)
        for name in signed:
            for value in headers.get_all(name):
                request.headers[name] = value
        request.context["timestamp"] = headers["X-Amz-Date"]
        signer = self._signer
        if signer.signed_headers(signer.headers_to_sign(request)) != (
                fields["SignedHeaders"]):
            raise SignatureError("SignatureDoesNotMatch",
                                 "SignedHeaders not canonical")
        canonical = signer.canonical_request(request)
        expected = signer.signature(
            signer.string_to_sign(request, canonical), request)
        if not hmac.compare_digest(expected, fields["Signature"]):
            raise SignatureError("SignatureDoesNotMatch", "signature")

    def _check_signed_headers(self, signed, headers, date):
        for name in signed:
            if name not in headers:
                raise SignatureError("SignatureDoesNotMatch",
                                     f"signed header {name} missing")
        for name in ("host", "x-amz-date", "x-amz-content-sha256"):
            if name not in signed:
                raise SignatureError("SignatureDoesNotMatch",
                                     f"{name} not signed")
        check_date(headers["X-Amz-Date"], date)
        if headers["X-Amz-Content-SHA256"] not in (EMPTY_SHA256,
                                                   UNSIGNED_PAYLOAD):
            raise SignatureError("XAmzContentSHA256Mismatch",
                                 "x-amz-content-sha256 of a body")
        token = headers.get("X-Amz-Security-Token")
        if self.session_token is None and token is not None:
            raise SignatureError("InvalidToken", "unexpected session token")
        if self.session_token is not None and (
                token != self.session_token or
                "x-amz-security-token" not in signed):
            raise SignatureError("InvalidToken", "session token")


class DelayProxy:
    """The latency benchmark's proxy: testing/delay_proxy (built beside
    this file) in a process of its own, relaying connections to `upstream`
    (an http:// base URL) and passing each request on `delay_ms` after it
    arrived; answers come back at once, spliced, so that the proxy costs
    the machine little beside the loader under test. `pid` is its process
    (for its CPU time); `requests` counts the requests it delayed, once it
    stopped."""

    def __init__(self, upstream, delay_ms=10):
        parts = urllib.parse.urlsplit(upstream)
        if parts.hostname != "127.0.0.1":
            raise ValueError(f"DelayProxy relays to 127.0.0.1 only, not "
                             f"{upstream}")
        self._args = [os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                   "delay_proxy"),
                      str(parts.port or 80), str(delay_ms)]
        self.requests = None
        self.url = None
        self._process = None

    def __enter__(self):
        self._process = subprocess.Popen(
            self._args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        port = self._process.stdout.readline().strip()
        if not port:
            self._process.wait(START_TIMEOUT_S)
            raise RuntimeError("DelayProxy did not start: "
                               + self._process.stderr.read())
        self.url = f"http://127.0.0.1:{port}"
        return self

    def __exit__(self, *exc):
        try:  # communicate closes stdin, and the proxy exits when it does
            _, err = self._process.communicate(timeout=START_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self._process.kill()
            _, err = self._process.communicate()
        match = re.search(r"requests (\d+)", err)
        self.requests = int(match.group(1)) if match else None

    @property
    def pid(self):
        return self._process.pid
