"""The loopback servers of remote_servers.py against the curl command (the
libcurl the loader reads remote shards with): nginx serves ranges over HTTP
and HTTPS; the fault proxy forwards ranges exactly and injects each fault as
a client sees it; the S3 endpoint accepts what curl signs with --aws-sigv4,
path-style and virtual-hosted, with and without a session token, and refuses
a wrong secret, key, region or token, an unsigned request and a signed
request replayed with a header changed; it answers 404, 412 and 416 as S3
does, and keeps connections alive through errors."""

import hashlib
import http.client
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.dont_write_bytecode = True  # No __pycache__ in the source tree.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import remote_servers as rs  # noqa: E402

EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
SIGNED = ["-H", f"x-amz-content-sha256: {EMPTY_SHA256}"]


class Answer:
    """A curl run: exit code, status, headers (lower-case names), body."""

    def __init__(self, run):
        self.rc = run.returncode
        self.stderr = run.stderr.decode(errors="replace")
        head, _, self.body = run.stdout.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split()
        self.status = int(parts[1]) if len(parts) > 1 else None
        self.headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            self.headers[name.strip().lower()] = value.strip()

    def __repr__(self):
        return f"rc {self.rc} status {self.status} {self.stderr}{self.body!r}"


def curl(*args):
    """curl's answer to a request (no curlrc, no proxy from the
    environment)."""
    run = subprocess.run(["curl", "-q", "--noproxy", "*", "-sS", "-i",
                          *args], capture_output=True, timeout=20)
    return Answer(run)


def signed(url, *args, key="AKIDTEST:SECRETTEST", region="us-east-1"):
    """A request signed by curl."""
    return curl("--aws-sigv4", f"aws:amz:{region}:s3", "--user", key,
                *SIGNED, *args, url)


def connects(*args):
    """The number of connections curl opened for each URL of args."""
    run = subprocess.run(["curl", "-q", "--noproxy", "*", "-sS",
                          "-o", "/dev/null", "-o", "/dev/null",
                          "-w", "%{num_connects}\n", *args],
                         capture_output=True, timeout=20, check=True)
    return [int(n) for n in run.stdout.split()]


class Files(unittest.TestCase):
    """A directory with a random shard at the top and in bucket `bkt`."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="remote-servers-")
        cls.data = random.Random(7).randbytes(100_000)
        os.mkdir(os.path.join(cls.dir, "bkt"))
        for name in ("shard.tar", "bkt/shard.tar"):
            with open(os.path.join(cls.dir, name), "wb") as f:
                f.write(cls.data)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def assert_range(self, answer, first, last):
        self.assertEqual((answer.rc, answer.status), (0, 206), answer)
        self.assertEqual(answer.headers["content-range"],
                         f"bytes {first}-{last}/{len(self.data)}")
        self.assertEqual(answer.body, self.data[first:last + 1])


class NginxTest(Files):

    def test_http_range(self):
        with rs.Nginx(self.dir) as n:
            self.assertIsNone(n.ca_file)
            self.assertTrue(n.url.startswith("http://127.0.0.1:"))
            self.assert_range(curl("-r", "2-5", n.url + "/shard.tar"), 2, 5)
            self.assertEqual(connects(n.url + "/shard.tar",
                                      n.url + "/shard.tar"), [1, 0])
            self.assertEqual(n.requests(), 3)

    def test_https_range(self):
        with rs.Nginx(self.dir, tls=True) as n:
            self.assertTrue(n.url.startswith("https://127.0.0.1:"))
            self.assert_range(curl("--cacert", n.ca_file, "-r", "100-99999",
                                   n.url + "/shard.tar"), 100, 99999)
            self.assertEqual(curl(n.url + "/shard.tar").rc, 60)  # Unknown CA.

    def test_pids_are_master_and_worker(self):
        with rs.Nginx(self.dir) as n:
            pids = n.pids()
            self.assertEqual(len(pids), 2)  # worker_processes 1
            for pid in pids:
                with open(f"/proc/{pid}/comm") as f:
                    self.assertEqual(f.read().strip(), "nginx")

    def test_stops_and_cleans_up(self):
        with rs.Nginx(self.dir, tls=True) as n:
            directory = os.path.dirname(n.access_log)
            port = int(n.url.rsplit(":", 1)[1])
        self.assertFalse(os.path.exists(directory))
        self.assertFalse(rs.accepts(port))


class DelayProxyTest(Files):

    def test_forwards_after_the_delay(self):
        with rs.Nginx(self.dir) as n, rs.DelayProxy(n.url, delay_ms=50) as p:
            start = time.monotonic()
            self.assert_range(curl("-r", "2-5", p.url + "/shard.tar"), 2, 5)
            self.assertGreaterEqual(time.monotonic() - start, 0.05)
            whole = curl(p.url + "/shard.tar")
            self.assertEqual((whole.status, whole.body), (200, self.data))
            pid = p.pid
        self.assertEqual(p.requests, 2)
        with self.assertRaises(OSError):
            os.kill(pid, 0)  # it exited with the block

    def test_a_slow_client_gets_every_byte(self):
        # More than the sockets hold: the proxy's pipe fills and it must
        # wait for the client before it reads upstream again.
        big = random.Random(8).randbytes(24 << 20)
        path = os.path.join(self.dir, "big.bin")
        with open(path, "wb") as f:
            f.write(big)
        try:
            with rs.Nginx(self.dir) as n, rs.DelayProxy(n.url, 1) as p:
                answer = curl("--limit-rate", "48M", p.url + "/big.bin")
        finally:
            os.remove(path)
        self.assertEqual(answer.status, 200)
        self.assertTrue(answer.body == big, len(answer.body))


class FaultProxyTest(Files):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.nginx = rs.Nginx(cls.dir).__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.nginx.__exit__(None, None, None)
        super().tearDownClass()

    def test_forwards_ranges_on_one_connection(self):
        with rs.FaultProxy(self.nginx.url) as p:
            self.assert_range(curl("-r", "2-5", p.url + "/shard.tar"), 2, 5)
            whole = curl(p.url + "/shard.tar")
            self.assertEqual((whole.status, whole.body), (200, self.data))
            self.assertIn("etag", whole.headers)
            self.assertEqual(curl("-I", p.url + "/shard.tar").headers[
                "content-length"], str(len(self.data)))
            self.assertEqual(curl(p.url + "/none").status, 404)
            etag = whole.headers["etag"]
            self.assertEqual(curl("-H", "If-Match: \"x\"", "-r", "0-1",
                                  p.url + "/shard.tar").status, 412)
            self.assertEqual(curl("-H", f"If-None-Match: {etag}",
                                  p.url + "/shard.tar").status, 304)
            self.assertEqual(connects(p.url + "/shard.tar",
                                      p.url + "/shard.tar"), [1, 0])
            self.assertEqual(p.requests, 8)
            self.assertEqual(sum(p.faults.values()), 0)

    def test_each_fault(self):
        with rs.FaultProxy(self.nginx.url, every=1, stall_s=2,
                           retry_after="7") as p:
            url = p.url + "/shard.tar"
            self.assertIn(curl(url).rc, (52, 56))  # reset
            self.assertEqual(curl(url).status, 500)
            self.assertEqual(curl(url).status, 503)
            too_many = curl(url)
            self.assertEqual(too_many.status, 429)
            self.assertEqual(too_many.headers["retry-after"], "7")
            self.assertEqual(curl("--max-time", "1", url).rc, 28)  # stall
            truncated = curl(url)
            self.assertEqual((truncated.rc, truncated.status), (18, 200))
            self.assertEqual(truncated.headers["content-length"],
                             str(len(self.data)))
            self.assertEqual(truncated.body, self.data[:len(self.data) // 2])
            self.assertIn(curl(url).rc, (52, 56))  # reset again
            self.assertEqual(p.faults, {"reset": 2, "500": 1, "503": 1,
                                        "429": 1, "stall": 1, "truncate": 1})

    def test_every_nth_and_delay(self):
        with rs.FaultProxy(self.nginx.url, every=2, faults=("503",),
                           delay_ms=50) as p:
            url = p.url + "/shard.tar"
            start = time.monotonic()
            statuses = [curl(url).status for _ in range(4)]
            self.assertGreaterEqual(time.monotonic() - start, 0.2)
            self.assertEqual(statuses, [200, 503, 200, 503])
            p.set_fault_every(0)
            self.assertEqual([curl(url).status for _ in range(2)], [200, 200])
            self.assertEqual((p.requests, p.faults), (6, {"503": 2}))
            # An injected status keeps the connection.
            p.set_fault_every(1)
            self.assertEqual(connects(url, url), [1, 0])


class S3Test(Files):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.etag = f'"{hashlib.md5(cls.data).hexdigest()}"'

    def assert_refused(self, s3, answer, code, reason):
        self.assertEqual(answer.status, 403, answer)
        self.assertIn(f"<Code>{code}</Code>".encode(), answer.body)
        self.assertEqual(s3.rejected[-1:], [reason])

    def test_path_style_and_virtual_hosted(self):
        with rs.S3Server(self.dir) as s3:
            for url in (s3.url + "/bkt/shard.tar",
                        s3.virtual_host_url("bkt") + "/shard.tar"):
                answer = signed(url, "-H", "Range: bytes=2-5")
                self.assert_range(answer, 2, 5)
                self.assertEqual(answer.headers["etag"], self.etag)
            whole = signed(s3.url + "/bkt/shard.tar")
            self.assertEqual((whole.status, whole.body), (200, self.data))
            self.assertEqual((s3.requests, s3.rejected), (3, []))

    def test_head(self):
        with rs.S3Server(self.dir) as s3:
            answer = signed(s3.url + "/bkt/shard.tar", "-I")
            self.assertEqual(answer.status, 200, answer)
            self.assertEqual(answer.headers["content-length"],
                             str(len(self.data)))
            self.assertEqual(answer.headers["etag"], self.etag)
            self.assertEqual(answer.headers["accept-ranges"], "bytes")
            self.assertIn("GMT", answer.headers["last-modified"])

    def test_session_token(self):
        with rs.S3Server(self.dir, session_token="TOKEN") as s3:
            for url in (s3.url + "/bkt/shard.tar",
                        s3.virtual_host_url("bkt") + "/shard.tar"):
                self.assert_range(signed(url, "-H", "Range: bytes=0-9", "-H",
                                         "x-amz-security-token: TOKEN"), 0, 9)
            url = s3.url + "/bkt/shard.tar"
            self.assert_refused(s3, signed(url), "InvalidToken",
                                "session token")
            self.assert_refused(
                s3, signed(url, "-H", "x-amz-security-token: OTHER"),
                "InvalidToken", "session token")
        with rs.S3Server(self.dir) as s3:
            self.assert_refused(
                s3, signed(s3.url + "/bkt/shard.tar", "-H",
                           "x-amz-security-token: TOKEN"),
                "InvalidToken", "unexpected session token")

    def test_refuses_wrong_credentials(self):
        with rs.S3Server(self.dir) as s3:
            url = s3.url + "/bkt/shard.tar"
            self.assert_refused(s3, signed(url, key="AKIDTEST:WRONG"),
                                "SignatureDoesNotMatch", "signature")
            self.assert_refused(s3, signed(url, key="AKIDOTHER:SECRETTEST"),
                                "InvalidAccessKeyId",
                                "access key 'AKIDOTHER'")
            self.assert_refused(s3, signed(url, region="eu-west-1"),
                                "SignatureDoesNotMatch",
                                "scope eu-west-1/s3/aws4_request")
            self.assert_refused(s3, curl(url), "AccessDenied", "unsigned")
            self.assertEqual(len(s3.rejected), 4)

    def test_refuses_a_replay_with_a_header_changed(self):
        """The exact headers curl signed pass; the same with another Range,
        or for another key, fail: the signature covers them."""
        with rs.S3Server(self.dir) as s3:
            answer = signed(s3.url + "/bkt/shard.tar", "-v",
                            "-H", "Range: bytes=2-5")
            self.assert_range(answer, 2, 5)
            sent = {}
            for line in answer.stderr.splitlines():
                name, _, value = line[2:].partition(": ")
                if line.startswith("> ") and value:
                    sent[name] = value
            signed_part = {name: sent[name] for name in
                           ("Host", "Authorization", "X-Amz-Date",
                            "x-amz-content-sha256")}
            self.assertEqual(self.replay(s3, "/bkt/shard.tar", signed_part,
                                         "bytes=2-5"), (206, self.data[2:6]))
            status, body = self.replay(s3, "/bkt/shard.tar", signed_part,
                                       "bytes=0-5")
            self.assertEqual(status, 403)
            self.assertIn(b"<Code>SignatureDoesNotMatch</Code>", body)
            self.assertEqual(s3.rejected, ["signature"])
            os.link(os.path.join(self.dir, "bkt", "shard.tar"),
                    os.path.join(self.dir, "bkt", "copy.tar"))
            try:
                self.assertEqual(self.replay(s3, "/bkt/copy.tar",
                                             signed_part, "bytes=2-5")[0], 403)
            finally:
                os.remove(os.path.join(self.dir, "bkt", "copy.tar"))
            self.assertEqual(s3.rejected, ["signature", "signature"])

    @staticmethod
    def replay(s3, path, headers, byte_range):
        connection = http.client.HTTPConnection("127.0.0.1", s3.port,
                                                timeout=10)
        try:
            connection.request("GET", path,
                               headers={**headers, "Range": byte_range})
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def test_errors(self):
        with rs.S3Server(self.dir) as s3:
            no_key = signed(s3.url + "/bkt/none.tar")
            self.assertEqual(no_key.status, 404)
            self.assertIn(b"<Code>NoSuchKey</Code>", no_key.body)
            no_bucket = signed(s3.virtual_host_url("none") + "/shard.tar")
            self.assertEqual(no_bucket.status, 404)
            self.assertIn(b"<Code>NoSuchBucket</Code>", no_bucket.body)
            outside = signed(s3.url + "/bkt/..%2Fshard.tar")
            self.assertEqual(outside.status, 404, outside)
            url = s3.url + "/bkt/shard.tar"
            mismatch = signed(url, "-H", 'If-Match: "0123"')
            self.assertEqual(mismatch.status, 412)
            self.assertIn(b"<Code>PreconditionFailed</Code>", mismatch.body)
            self.assert_range(signed(url, "-H", f"If-Match: {self.etag}",
                                     "-H", "Range: bytes=99990-"),
                              99990, 99999)
            self.assertEqual(signed(url, "-H", "Range: bytes=100000-").status,
                             416)
            self.assertEqual(s3.rejected, [])

    def test_keeps_connections_through_errors(self):
        with rs.S3Server(self.dir) as s3:
            self.assertEqual(connects(
                "--aws-sigv4", "aws:amz:us-east-1:s3",
                "--user", "AKIDTEST:SECRETTEST", *SIGNED,
                s3.url + "/bkt/none.tar", s3.url + "/bkt/shard.tar"), [1, 0])
            self.assertEqual(connects(s3.url + "/bkt/shard.tar",
                                      s3.url + "/bkt/shard.tar"), [1, 0])
            self.assertEqual(len(s3.rejected), 2)


if __name__ == "__main__":
    unittest.main()
