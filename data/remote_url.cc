// Remote URLs (remote_url.h): the environment's settings, S3 paths as
// request URLs, and URLs as messages show them.
#include "data/remote_url.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/memory.h"
#include "core/status.h"

namespace fusednorm {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

// Schemes compare without case (RFC 3986), so that HTTP://... is a URL and
// its credentials are hidden like any URL's.
bool IsHttp(absl::string_view s) {
  return absl::StartsWithIgnoreCase(s, "http://") ||
         absl::StartsWithIgnoreCase(s, "https://");
}

// Where the host starts and ends in an http(s) URL ("" host: malformed).
absl::string_view Authority(absl::string_view url) {
  url.remove_prefix(url.find("://") + 3);
  return url.substr(0, url.find_first_of("/?#"));
}

// Whether `authority`'s port, where it has one, is a number. A password
// with '/', '?' or '#' unescaped ends the authority early and leaves
// "user:pass..." to read as a host and a port.
bool PortIsNumber(absl::string_view authority) {
  absl::string_view host = authority.substr(authority.rfind('@') + 1);
  host.remove_prefix(host.rfind(']') + 1);  // past an IPv6 address
  const size_t colon = host.find(':');
  return colon == absl::string_view::npos ||
         std::all_of(host.begin() + colon + 1, host.end(), absl::ascii_isdigit);
}

// S3's key as a SigV4 canonical path: bytes other than A-Z a-z 0-9 - . _ ~
// and '/' as %XX, so the path sent is the path signed.
std::string EncodeKey(absl::string_view key) {
  std::string out;
  for (unsigned char c : key) {
    if (absl::ascii_isalnum(c) || c == '-' || c == '.' || c == '_' ||
        c == '~' || c == '/') {
      out.push_back(static_cast<char>(c));
    } else {
      absl::StrAppend(
          &out, "%",
          absl::AsciiStrToUpper(absl::StrCat(absl::Hex(c, absl::kZeroPad2))));
    }
  }
  return out;
}

// A bucket name S3 allows: 3..63 of a-z 0-9 . -, starting and ending with
// a letter or digit.
bool ValidBucket(absl::string_view b) {
  if (b.size() < 3 || b.size() > 63) return false;
  for (char c : b) {
    if (!absl::ascii_islower(c) && !absl::ascii_isdigit(c) && c != '.' &&
        c != '-') {
      return false;
    }
  }
  return absl::ascii_isalnum(b.front()) && absl::ascii_isalnum(b.back());
}

// A region as SigV4's scope and a host name can hold it (S3-compatible
// stores name theirs freely, so not only AWS's).
bool ValidRegion(absl::string_view r) {
  if (r.empty() || r.size() > 64) return false;
  for (char c : r) {
    if (!absl::ascii_isalnum(c) && c != '.' && c != '_' && c != '-')
      return false;
  }
  return true;
}

// The most FUSEDNORM_HTTP_INDEX_MB takes: 16 TiB.
constexpr int kMaxIndexMb = 1 << 24;

// Half the memory this process may use; 1 GiB when nothing says.
uint64_t HalfTheMemory() {
  const uint64_t memory = MemoryLimitBytes();
  return memory == 0 ? uint64_t{1} << 30 : memory / 2;
}

// An integer variable in lo..hi, written in digits, into *value (left as it
// is when unset).
absl::Status EnvInt(const char* name, int lo, int hi, int* value) {
  const std::string v = Env(name);
  if (v.empty()) return absl::OkStatus();
  // Digits only: SimpleAtoi would also take " 5" and "+5".
  if (!std::all_of(v.begin(), v.end(), absl::ascii_isdigit) ||
      !absl::SimpleAtoi(v, value) || *value < lo || *value > hi) {
    return InvalidArgumentCat(name, " = \"", ShownText(v), "\": must be in ",
                              lo, "..", hi);
  }
  return absl::OkStatus();
}

absl::Status ReadNumbers(RemoteSettings* s) {
  if (const std::string t = Env("FUSEDNORM_HTTP_TIMEOUT"); !t.empty()) {
    // libcurl counts in milliseconds, and 0 ms would mean no timeout.
    if (!absl::SimpleAtod(t, &s->timeout_seconds) ||
        !(s->timeout_seconds >= 0.001 && s->timeout_seconds <= 3600)) {
      return InvalidArgumentCat("FUSEDNORM_HTTP_TIMEOUT = \"", ShownText(t),
                                "\": must be seconds in [0.001, 3600]");
    }
  }
  FUSEDNORM_RETURN_IF_ERROR(
      EnvInt("FUSEDNORM_HTTP_RETRIES", 0, 100, &s->retries));
  FUSEDNORM_RETURN_IF_ERROR(
      EnvInt("FUSEDNORM_HTTP_REQUESTS", 1, 1024, &s->requests));
  int ahead_mb = static_cast<int>(s->ahead_bytes >> 20);
  FUSEDNORM_RETURN_IF_ERROR(
      EnvInt("FUSEDNORM_HTTP_AHEAD_MB", 1, 65536, &ahead_mb));
  s->ahead_bytes = static_cast<uint64_t>(ahead_mb) << 20;
  int index_mb = static_cast<int>(
      std::clamp<uint64_t>(HalfTheMemory() >> 20, 1, kMaxIndexMb));
  FUSEDNORM_RETURN_IF_ERROR(
      EnvInt("FUSEDNORM_HTTP_INDEX_MB", 1, kMaxIndexMb, &index_mb));
  s->index_bytes = static_cast<uint64_t>(index_mb) << 20;
  return absl::OkStatus();
}

// A control character or a byte past ASCII, which messages show as %XX.
bool Unprintable(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u >= 0x7f;
}

// A byte an http(s) URL may not hold as it is: those and a space.
bool NotInUrl(char c) { return c == ' ' || Unprintable(c); }

}  // namespace

absl::StatusOr<RemoteSettings> RemoteSettings::FromEnvironment() {
  RemoteSettings s;
  s.access_key = Env("AWS_ACCESS_KEY_ID");
  s.secret_key = Env("AWS_SECRET_ACCESS_KEY");
  s.session_token = Env("AWS_SESSION_TOKEN");
  // A credential goes into a header: a line break would end it there
  // (a token file saved with CRLF). Named, never shown.
  for (const char* name :
       {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"}) {
    const std::string v = Env(name);
    if (std::any_of(v.begin(), v.end(), NotInUrl)) {
      return InvalidArgumentCat(name,
                                " holds a space, a control character or a "
                                "byte past ASCII (a line ending from a file?)");
    }
  }
  if (s.access_key.empty() != s.secret_key.empty()) {
    return InvalidArgumentCat(
        s.access_key.empty() ? "AWS_SECRET_ACCESS_KEY" : "AWS_ACCESS_KEY_ID",
        " is set but ",
        s.access_key.empty() ? "AWS_ACCESS_KEY_ID" : "AWS_SECRET_ACCESS_KEY",
        " is not: S3 requests need both (or neither, unsigned)");
  }
  for (const char* name : {"AWS_REGION", "AWS_DEFAULT_REGION"}) {
    if (const std::string r = Env(name); !r.empty()) {
      if (!ValidRegion(r)) {
        return InvalidArgumentCat(name, " = \"", ShownText(r),
                                  "\": must be 1 to 64 characters A-Z a-z "
                                  "0-9 . _ - (such as us-east-1)");
      }
      s.region = r;
      break;
    }
  }
  for (const char* name : {"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"}) {
    if (const std::string e = Env(name); !e.empty()) {
      if (!IsHttp(e) || Authority(e).empty() ||
          e.find_first_of("?#") != std::string::npos ||
          std::any_of(e.begin(), e.end(), NotInUrl)) {
        return InvalidArgumentCat(name, " = \"", ShownUrl(e),
                                  "\": must be http://HOST[:PORT] or https:// "
                                  "(a path may follow; no query or fragment)");
      }
      s.endpoint = e;
      while (absl::EndsWith(s.endpoint, "/")) s.endpoint.pop_back();
      break;
    }
  }
  if (const std::string a = Env("FUSEDNORM_S3_ADDRESSING"); !a.empty()) {
    if (a != "path" && a != "virtual") {
      return InvalidArgumentCat("FUSEDNORM_S3_ADDRESSING = \"", ShownText(a),
                                "\": must be path or virtual");
    }
    s.addressing = a;
  }
  s.ca_file = Env("SSL_CERT_FILE");
  s.ca_dir = Env("SSL_CERT_DIR");
  FUSEDNORM_RETURN_IF_ERROR(ReadNumbers(&s));
  return s;
}

bool IsRemotePath(absl::string_view path) {
  return IsHttp(path) || absl::StartsWithIgnoreCase(path, "s3://");
}

bool HasUrlScheme(absl::string_view text) {
  const size_t colon = text.find("://");
  if (colon == absl::string_view::npos || colon == 0 ||
      !absl::ascii_isalpha(text[0]))
    return false;
  return std::all_of(text.begin(), text.begin() + colon, [](char c) {
    return absl::ascii_isalnum(c) || c == '+' || c == '.' || c == '-';
  });
}

bool IsPrintable(absl::string_view text) {
  return std::none_of(text.begin(), text.end(), Unprintable);
}

std::string ShownText(absl::string_view text) {
  std::string out;
  for (char c : text) {
    if (Unprintable(c)) {
      absl::StrAppendFormat(&out, "%%%02X", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out;
}

std::string ShownUrl(absl::string_view url) {
  // An s3:// key is all path: '?' and '#' are its own characters.
  if (absl::StartsWithIgnoreCase(url, "s3://")) return ShownText(url);
  const size_t scheme = url.find("://");
  if (scheme == absl::string_view::npos) return std::string(url);
  const size_t host = scheme + 3;
  const size_t end = url.find_first_of("/?#", host);
  const absl::string_view authority = url.substr(host, end - host);
  const size_t at = authority.rfind('@');
  absl::string_view shown =
      at == absl::string_view::npos ? authority : authority.substr(at + 1);
  if (!PortIsNumber(authority)) {
    // "user:pa/ss@host": all before that '@' may be the password; without
    // one ("user:pa,ss@host" cut at the comma), all of the authority.
    const size_t late_at = url.find('@', end == url.npos ? url.size() : end);
    if (late_at != absl::string_view::npos) {
      return ShownUrl(
          absl::StrCat(url.substr(0, host), url.substr(late_at + 1)));
    }
    shown = "<hidden: its port is not a number>";
  }
  std::string out = absl::StrCat(url.substr(0, host), shown);
  if (end == absl::string_view::npos) return ShownText(out);
  absl::string_view rest = url.substr(end);
  rest = rest.substr(0, rest.find('#'));
  const size_t query = rest.find('?');
  out = ShownText(absl::StrCat(out, rest.substr(0, query)));
  if (query != absl::string_view::npos)
    absl::StrAppend(&out, "?<query hidden>");
  return out;
}

std::string ShownData(absl::string_view data) {
  std::vector<std::string> items = absl::StrSplit(data, ',');
  for (std::string& item : items) item = ShownUrl(item);
  return absl::StrJoin(items, ",");
}

absl::StatusOr<RemoteUrl> ResolveRemote(const std::string& path,
                                        const RemoteSettings& settings) {
  RemoteUrl r;
  if (IsHttp(path)) {
    if (Authority(path).empty() || Authority(path).back() == '@')
      return InvalidArgumentCat("\"", ShownUrl(path),
                                "\": the URL has no host");
    if (std::any_of(path.begin(), path.end(), NotInUrl)) {
      return InvalidArgumentCat("\"", ShownUrl(path),
                                "\": the URL holds a space, a control "
                                "character or a byte past ASCII; write it "
                                "as %XX (and a host's in punycode)");
    }
    if (!PortIsNumber(Authority(path))) {
      return InvalidArgumentCat("\"", ShownUrl(path),
                                "\": the URL's port is not a number (write "
                                "/ ? # @ in a user name or password as %2F "
                                "%3F %23 %40)");
    }
    // A fragment never reaches the server, and SHARD.fnidx would be
    // appended to it.
    if (path.find('#') != std::string::npos) {
      return InvalidArgumentCat("\"", ShownUrl(path),
                                "\": the URL has a fragment (#...), which is "
                                "not sent to the server; write # in a name "
                                "as %23");
    }
    const size_t scheme = path.find("://");
    r.url = absl::StrCat(absl::AsciiStrToLower(path.substr(0, scheme)),
                         path.substr(scheme));
    r.shown = ShownUrl(r.url);
    return r;
  }
  if (!absl::StartsWithIgnoreCase(path, "s3://")) {
    return InvalidArgumentCat("\"", ShownUrl(path),
                              "\" is not an http://, https:// or s3:// URL");
  }
  const absl::string_view rest = absl::string_view(path).substr(5);
  const size_t slash = rest.find('/');
  const absl::string_view bucket = rest.substr(0, slash);
  const absl::string_view key =
      slash == absl::string_view::npos ? "" : rest.substr(slash + 1);
  if (!ValidBucket(bucket) || key.empty()) {
    return InvalidArgumentCat(
        "\"", ShownUrl(path),
        "\" is not s3://BUCKET/KEY with a bucket of 3 to 63 characters "
        "a-z 0-9 . - (starting and ending with a letter or digit)");
  }
  const std::string endpoint =
      settings.endpoint.empty()
          ? absl::StrCat("https://s3.", settings.region, ".amazonaws.com")
          : settings.endpoint;
  const bool path_style =
      settings.addressing == "path" ||
      (settings.addressing == "auto" && !settings.endpoint.empty());
  const size_t host = endpoint.find("://") + 3;
  r.url = path_style ? absl::StrCat(endpoint, "/", bucket, "/", EncodeKey(key))
                     : absl::StrCat(endpoint.substr(0, host), bucket, ".",
                                    endpoint.substr(host), "/", EncodeKey(key));
  r.shown = ShownUrl(path);
  r.signed_s3 = !settings.access_key.empty();
  r.s3 = true;
  return r;
}

RemoteUrl RemoteIndexUrl(const RemoteUrl& shard) {
  RemoteUrl index = shard;
  const size_t query = shard.url.find('?');
  index.url = query == std::string::npos
                  ? shard.url + ".fnidx"
                  : absl::StrCat(shard.url.substr(0, query), ".fnidx",
                                 shard.url.substr(query));
  const size_t shown_query =
      shard.s3 ? std::string::npos : shard.shown.find('?');
  index.shown = shown_query == std::string::npos
                    ? shard.shown + ".fnidx"
                    : absl::StrCat(shard.shown.substr(0, shown_query), ".fnidx",
                                   shard.shown.substr(shown_query));
  return index;
}

}  // namespace fusednorm
