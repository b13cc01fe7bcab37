// Remote shard locations: http://, https:// and s3:// URLs, resolved to the
// URL a request asks for, and the settings requests take from the
// environment (S3's credentials, region and endpoint; TLS's CA store; the
// timeout and retry bound). Messages show a URL without its user, password
// or query string (ShownUrl), so credentials and pre-signed signatures never
// reach an error, a log, a report or a repr.
//
// s3://BUCKET/KEY is asked at the endpoint AWS_ENDPOINT_URL_S3 or
// AWS_ENDPOINT_URL (S3-compatible stores: MinIO, Ceph, GCS's XML API), else
// https://s3.REGION.amazonaws.com, REGION being AWS_REGION or
// AWS_DEFAULT_REGION or us-east-1. Addressing is virtual-hosted
// (BUCKET.host/KEY) at AWS and path-style (host/BUCKET/KEY) at another
// endpoint, unless FUSEDNORM_S3_ADDRESSING says `path` or `virtual`.
// Requests are signed with SigV4 (libcurl's signer) when AWS_ACCESS_KEY_ID
// and AWS_SECRET_ACCESS_KEY are set (with AWS_SESSION_TOKEN when set), and
// unsigned, as for a public bucket, when neither is.
#ifndef FUSEDNORM_DATA_REMOTE_URL_H_
#define FUSEDNORM_DATA_REMOTE_URL_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fusednorm {

struct RemoteSettings {
  // S3's signing: both empty means unsigned requests.
  std::string access_key, secret_key, session_token;
  std::string region = "us-east-1";
  std::string endpoint;             // "" : AWS's, for the region
  std::string addressing = "auto";  // auto, path, virtual
  std::string ca_file, ca_dir;      // SSL_CERT_FILE, SSL_CERT_DIR
  // FUSEDNORM_HTTP_TIMEOUT: seconds to connect, or without a byte arriving.
  double timeout_seconds = 30;
  // FUSEDNORM_HTTP_RETRIES: retries of a failed request before it fails.
  int retries = 6;
  // FUSEDNORM_HTTP_REQUESTS: requests in flight at once, 1..1024. 64: at
  // two threads, 32 left the workers waiting for bytes through a 10 ms
  // proxy (docs/benchmarks.md).
  int requests = 64;
  // FUSEDNORM_HTTP_AHEAD_MB: bytes fetched ahead and not yet read, in MiB.
  uint64_t ahead_bytes = uint64_t{256} << 20;
  // FUSEDNORM_HTTP_INDEX_MB: the memory the shards' indexes may take at
  // open, in MiB (default: half the machine's memory, or of its cgroup's
  // limit where lower); a server's indexes cannot make an open allocate
  // more.
  uint64_t index_bytes = 0;

  // The settings the environment gives; InvalidArgument naming the
  // variable and its value when one is malformed (a timeout that is not a
  // number in (0, 3600], retries outside 0..100, requests outside
  // 1..1024, read-ahead outside 1..65536 MiB, index memory outside
  // 1..16777216 MiB, an unknown addressing, one
  // of the two keys without the other, an endpoint that is not http(s)://).
  static absl::StatusOr<RemoteSettings> FromEnvironment();
};

// A remote object and how to ask for it.
struct RemoteUrl {
  std::string url;         // requested, with any credentials it holds
  std::string shown;       // for messages: ShownUrl(url), or s3://BUCKET/KEY
  bool signed_s3 = false;  // SigV4-signed (RemoteSettings' keys)
  // An s3:// object: its key goes as it is, dot segments too.
  bool s3 = false;
};

// True for http://, https:// and s3:// paths, the scheme in any case.
bool IsRemotePath(absl::string_view path);
// Whether `text` starts SCHEME:// (a letter, then letters, digits, + . -),
// as a URL of any scheme does: "file:///x", "ftp://h/x".
bool HasUrlScheme(absl::string_view text);

// `url` for messages: without "user:password@" (when the port is not a
// number, as in "user:pa/ss@host", without all before a later '@', or
// without the authority), with "?<query hidden>" for a query, and a remote
// URL's text as ShownText shows it.
std::string ShownUrl(absl::string_view url);

// Text from a server or the environment as messages show it: control
// characters and bytes past ASCII as %XX, so that it cannot break a line or
// drive a terminal.
std::string ShownText(absl::string_view text);
// Whether ShownText leaves `text` as it is (printable ASCII only).
bool IsPrintable(absl::string_view text);

// A --data text (a comma list) with every URL in it as ShownUrl shows it.
std::string ShownData(absl::string_view data);

// The request URL of a remote path (its scheme in lower case);
// InvalidArgument naming the path for a malformed one: no host; an http(s)
// URL with a #fragment, a space, a control character, a byte past ASCII or
// a port that is not a number; an S3 path without bucket or key, or with a
// bucket name S3 does not allow.
absl::StatusOr<RemoteUrl> ResolveRemote(const std::string& path,
                                        const RemoteSettings& settings);

// The URL of the index beside a remote shard (SHARD.fnidx; before any
// query string).
RemoteUrl RemoteIndexUrl(const RemoteUrl& shard);

}  // namespace fusednorm

#endif  // FUSEDNORM_DATA_REMOTE_URL_H_
