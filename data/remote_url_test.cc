#include "data/remote_url.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

namespace fusednorm {
namespace {

TEST(ShownUrlTest, HidesCredentialsAndQueries) {
  EXPECT_EQ(ShownUrl("https://user:secret@host:8443/a/b.tar?X-Amz-Signature=1"),
            "https://host:8443/a/b.tar?<query hidden>");
  EXPECT_EQ(ShownUrl("http://host/a.tar#frag"), "http://host/a.tar");
  EXPECT_EQ(ShownUrl("http://u:p@host"), "http://host");
  EXPECT_EQ(ShownUrl("http://host?sig=2"), "http://host?<query hidden>");
  EXPECT_EQ(ShownUrl("s3://bucket/key.tar"), "s3://bucket/key.tar");
  // An s3:// key's '?' and '#' are characters of the key, shown.
  EXPECT_EQ(ShownUrl("s3://bucket/k?1.tar"), "s3://bucket/k?1.tar");
  EXPECT_EQ(ShownUrl("s3://bucket/a#b.tar"), "s3://bucket/a#b.tar");
  EXPECT_EQ(ShownUrl("local/path.tar"), "local/path.tar");
}

TEST(ShownUrlTest, HidesPasswordsThatEndTheAuthorityEarly) {
  EXPECT_EQ(ShownUrl("http://u:pa/ss@h/x.tar"), "http://h/x.tar");
  EXPECT_EQ(ShownUrl("http://u:pa?ss@h/x.tar"), "http://h/x.tar");
  EXPECT_EQ(ShownUrl("https://u:pa#ss@h:81/x.tar?q"),
            "https://h:81/x.tar?<query hidden>");
  // Cut at a comma (a --data list) before its '@': the authority hidden.
  EXPECT_EQ(ShownUrl("http://u:SECRET"),
            "http://<hidden: its port is not a number>");
  EXPECT_EQ(ShownUrl("http://u:p{a"),
            "http://<hidden: its port is not a number>");
  EXPECT_EQ(ShownUrl("http://u:pw/x.tar"),
            "http://<hidden: its port is not a number>/x.tar");
  // A port that is a number: an '@' later is the path's.
  EXPECT_EQ(ShownUrl("http://h:8080/a@b.tar"), "http://h:8080/a@b.tar");
  EXPECT_EQ(ShownUrl("http://[::1]:80/a@b.tar"), "http://[::1]:80/a@b.tar");
  EXPECT_EQ(ShownUrl("http://h/a@b.tar"), "http://h/a@b.tar");
  RemoteSettings s;
  for (const char* path :
       {"http://u:pw/SECRET@h/x.tar", "http://u:pw?SECRET@h/x"}) {
    absl::StatusOr<RemoteUrl> r = ResolveRemote(path, s);
    ASSERT_FALSE(r.ok()) << path;
    const std::string m(r.status().message());
    EXPECT_NE(m.find("port is not a number"), std::string::npos) << m;
    EXPECT_EQ(m.find("pw"), std::string::npos) << m;
    EXPECT_EQ(m.find("SECRET"), std::string::npos) << m;
  }
  EXPECT_TRUE(ResolveRemote("http://[::1]:8080/a@b.tar", s).ok());
  EXPECT_TRUE(ResolveRemote("http://h:/a.tar", s).ok());
}

TEST(ShownUrlTest, KeepsAMessageOneLine) {
  EXPECT_EQ(ShownUrl("http://h/a\nfusednorm: fake b.tar?q=1 2"),
            "http://h/a%0Afusednorm: fake b.tar?<query hidden>");
  EXPECT_EQ(ShownUrl("s3://bucket/my key\t\xc3\xa9.tar"),
            "s3://bucket/my key%09%C3%A9.tar");
  EXPECT_EQ(ShownUrl("http://h\r\nX/y z"), "http://h%0D%0AX/y z");
}

TEST(RemoteUrlTest, SpacesAndControlCharactersAreRefusedInHttpUrls) {
  RemoteSettings s;
  for (const char* path :
       {"http://host/a b.tar", "https://host/a\nb.tar", "http://host/a\x7f.tar",
        "http://host/\xc3\xa9.tar", "http://ho\rst/a.tar"}) {
    absl::StatusOr<RemoteUrl> r = ResolveRemote(path, s);
    ASSERT_FALSE(r.ok()) << path;
    const std::string m(r.status().message());
    EXPECT_NE(m.find("write it as %XX"), std::string::npos) << m;
    EXPECT_NE(m.find(ShownUrl(path)), std::string::npos) << m;
    EXPECT_EQ(m.find_first_of("\n\r\x7f"), std::string::npos) << m;
  }
  // An S3 key may hold them: it is sent %-encoded.
  EXPECT_EQ(ResolveRemote("s3://bucket/a b\n.tar", s)->url,
            "https://bucket.s3.us-east-1.amazonaws.com/a%20b%0A.tar");
}

TEST(RemoteUrlTest, HttpIsAskedAsGiven) {
  RemoteSettings s;
  absl::StatusOr<RemoteUrl> r =
      ResolveRemote("https://k:v@host/x.tar?sig=1", s);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->url, "https://k:v@host/x.tar?sig=1");
  EXPECT_EQ(r->shown, "https://host/x.tar?<query hidden>");
  EXPECT_FALSE(r->signed_s3);
  EXPECT_EQ(RemoteIndexUrl(*r).url, "https://k:v@host/x.tar.fnidx?sig=1");
  EXPECT_EQ(RemoteIndexUrl(*r).shown,
            "https://host/x.tar.fnidx?<query hidden>");
  EXPECT_FALSE(ResolveRemote("http:///x.tar", s).ok());
  EXPECT_FALSE(ResolveRemote("http://user@/x.tar", s).ok());
}

TEST(RemoteUrlTest, SchemesInAnyCaseAreUrlsWithCredentialsHidden) {
  RemoteSettings s;
  for (const char* path :
       {"HTTP://u:pw@host/x.tar?sig=1", "Https://u:pw@host/x.tar?sig=1",
        "S3://bucket/k", "s3://bucket/k", "hTtP://host/x"}) {
    EXPECT_TRUE(IsRemotePath(path)) << path;
  }
  EXPECT_FALSE(IsRemotePath("http:/host/x.tar"));
  EXPECT_FALSE(IsRemotePath("local/HTTP://x"));
  absl::StatusOr<RemoteUrl> r = ResolveRemote("HTTPS://u:pw@host/x.tar?s=1", s);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->url, "https://u:pw@host/x.tar?s=1");
  EXPECT_EQ(r->shown, "https://host/x.tar?<query hidden>");
  EXPECT_EQ(ShownData("HTTP://u:pw@h/a.tar,/local/b.tar"),
            "HTTP://h/a.tar,/local/b.tar");
  EXPECT_EQ(ResolveRemote("S3://bucket/k.tar", s)->url,
            "https://bucket.s3.us-east-1.amazonaws.com/k.tar");
  // An s3:// key goes as it is (dot segments too: requests keep the path),
  // and its index is KEY.fnidx, shown whole.
  const RemoteUrl q = *ResolveRemote("s3://bucket/a/../k?1.tar", s);
  EXPECT_TRUE(q.s3);
  EXPECT_FALSE(r->s3);
  EXPECT_EQ(q.url, "https://bucket.s3.us-east-1.amazonaws.com/a/../k%3F1.tar");
  EXPECT_EQ(RemoteIndexUrl(q).url,
            "https://bucket.s3.us-east-1.amazonaws.com/a/../k%3F1.tar.fnidx");
  EXPECT_EQ(RemoteIndexUrl(q).shown, "s3://bucket/a/../k?1.tar.fnidx");
}

TEST(RemoteUrlTest, AFragmentIsRefusedNamingTheUrlWithoutSecrets) {
  RemoteSettings s;
  for (const char* path :
       {"http://u:pw@host/x.tar#frag", "https://host/x.tar?sig=SECRET#f",
        "http://host/#"}) {
    absl::StatusOr<RemoteUrl> r = ResolveRemote(path, s);
    ASSERT_FALSE(r.ok()) << path;
    const std::string m(r.status().message());
    EXPECT_NE(m.find("fragment"), std::string::npos) << m;
    EXPECT_NE(m.find(ShownUrl(path)), std::string::npos) << m;
    EXPECT_EQ(m.find("pw"), std::string::npos) << m;
    EXPECT_EQ(m.find("SECRET"), std::string::npos) << m;
  }
  // An S3 key may hold '#': it is sent %-encoded.
  EXPECT_EQ(ResolveRemote("s3://bucket/a#b.tar", s)->url,
            "https://bucket.s3.us-east-1.amazonaws.com/a%23b.tar");
}

TEST(RemoteUrlTest, S3Addressing) {
  RemoteSettings s;
  s.region = "eu-west-1";
  s.access_key = "AK";
  s.secret_key = "SK";
  absl::StatusOr<RemoteUrl> aws = ResolveRemote("s3://my-bucket/d/a b+.tar", s);
  ASSERT_TRUE(aws.ok()) << aws.status();
  EXPECT_EQ(aws->url,
            "https://my-bucket.s3.eu-west-1.amazonaws.com/d/a%20b%2B.tar");
  EXPECT_EQ(aws->shown, "s3://my-bucket/d/a b+.tar");
  EXPECT_TRUE(aws->signed_s3);

  s.endpoint = "http://127.0.0.1:9000";
  EXPECT_EQ(ResolveRemote("s3://my-bucket/k.tar", s)->url,
            "http://127.0.0.1:9000/my-bucket/k.tar");
  s.addressing = "virtual";
  EXPECT_EQ(ResolveRemote("s3://my-bucket/k.tar", s)->url,
            "http://my-bucket.127.0.0.1:9000/k.tar");
  s.endpoint = "";
  s.addressing = "path";
  EXPECT_EQ(ResolveRemote("s3://my-bucket/k.tar", s)->url,
            "https://s3.eu-west-1.amazonaws.com/my-bucket/k.tar");
  s.access_key = s.secret_key = "";
  EXPECT_FALSE(ResolveRemote("s3://my-bucket/k.tar", s)->signed_s3);
}

TEST(RemoteUrlTest, BadS3PathsNameThemselves) {
  RemoteSettings s;
  for (const char* bad : {"s3://", "s3://bucket", "s3://bucket/", "s3://ab/k",
                          "s3://Upper/k", "s3://-bucket/k", "s3://b_ucket/k"}) {
    absl::StatusOr<RemoteUrl> r = ResolveRemote(bad, s);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find(bad), std::string::npos) << r.status();
  }
}

// Sets environment variables for one test and clears them after.
class EnvTest : public testing::Test {
 protected:
  void Set(const char* name, const char* value) {
    setenv(name, value, 1);
    names_.push_back(name);
  }
  void TearDown() override {
    for (const char* n : names_) unsetenv(n);
  }

 private:
  std::vector<const char*> names_;
};

TEST_F(EnvTest, SettingsFromEnvironment) {
  Set("AWS_ACCESS_KEY_ID", "AK");
  Set("AWS_SECRET_ACCESS_KEY", "SK");
  Set("AWS_SESSION_TOKEN", "TOK");
  Set("AWS_DEFAULT_REGION", "ap-south-1");
  Set("AWS_ENDPOINT_URL", "http://127.0.0.1:9000/");
  Set("FUSEDNORM_HTTP_TIMEOUT", "2.5");
  Set("FUSEDNORM_HTTP_RETRIES", "0");
  Set("FUSEDNORM_HTTP_REQUESTS", "4");
  Set("FUSEDNORM_HTTP_AHEAD_MB", "8");
  absl::StatusOr<RemoteSettings> s = RemoteSettings::FromEnvironment();
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->session_token, "TOK");
  EXPECT_EQ(s->region, "ap-south-1");
  EXPECT_EQ(s->endpoint, "http://127.0.0.1:9000");
  EXPECT_EQ(s->timeout_seconds, 2.5);
  EXPECT_EQ(s->retries, 0);
  EXPECT_EQ(s->requests, 4);
  EXPECT_EQ(s->ahead_bytes, uint64_t{8} << 20);
  // The indexes' memory: by default half the machine's or less (a
  // cgroup's limit), and at least 1 MiB.
  const uint64_t half = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                        static_cast<uint64_t>(sysconf(_SC_PAGESIZE)) / 2;
  EXPECT_LE(s->index_bytes, std::max<uint64_t>(half >> 20, 1) << 20);
  EXPECT_GE(s->index_bytes, uint64_t{1} << 20);
  EXPECT_EQ(s->index_bytes % (uint64_t{1} << 20), 0u);
  Set("FUSEDNORM_HTTP_INDEX_MB", "3");
  EXPECT_EQ(RemoteSettings::FromEnvironment()->index_bytes, uint64_t{3} << 20);
  Set("AWS_REGION", "us-west-2");  // before AWS_DEFAULT_REGION
  EXPECT_EQ(RemoteSettings::FromEnvironment()->region, "us-west-2");
  Set("AWS_REGION", "garage_1.local");  // S3-compatible stores' names
  EXPECT_EQ(RemoteSettings::FromEnvironment()->region, "garage_1.local");
  Set("FUSEDNORM_HTTP_TIMEOUT", "0.001");  // 1 ms, the least libcurl takes
  EXPECT_EQ(RemoteSettings::FromEnvironment()->timeout_seconds, 0.001);
}

TEST_F(EnvTest, BadValuesNameTheVariable) {
  const std::string long_region(65, 'a');
  const std::pair<const char*, const char*> bad[] = {
      {"FUSEDNORM_HTTP_TIMEOUT", "0"},
      {"FUSEDNORM_HTTP_TIMEOUT", "x"},
      {"FUSEDNORM_HTTP_TIMEOUT", "nan"},
      {"FUSEDNORM_HTTP_TIMEOUT", "3601"},
      {"FUSEDNORM_HTTP_RETRIES", "-1"},
      {"FUSEDNORM_HTTP_RETRIES", "101"},
      {"FUSEDNORM_HTTP_REQUESTS", "0"},
      {"FUSEDNORM_HTTP_AHEAD_MB", "0"},
      {"FUSEDNORM_S3_ADDRESSING", "both"},
      {"AWS_ENDPOINT_URL", "ftp://h"},
      {"AWS_ENDPOINT_URL", "http://h/?x=1"},
      {"AWS_ENDPOINT_URL_S3", "http://h#f"},
      {"AWS_ENDPOINT_URL", "http://h/\r\nX: 1"},
      {"AWS_ENDPOINT_URL", "http://h /x"},
      {"AWS_ACCESS_KEY_ID", "only-one"},
      {"FUSEDNORM_HTTP_TIMEOUT", "0.0009"},
      {"FUSEDNORM_HTTP_TIMEOUT", "1e-9"},
      {"AWS_REGION", "us-east-1:x"},
      {"AWS_REGION", "us east"},
      {"AWS_DEFAULT_REGION", "a/b"},
      {"AWS_REGION", long_region.c_str()},
      {"FUSEDNORM_HTTP_INDEX_MB", "0"},
      {"FUSEDNORM_HTTP_INDEX_MB", "-5"},
      {"FUSEDNORM_HTTP_INDEX_MB", "16777217"},
      {"FUSEDNORM_HTTP_INDEX_MB", " 5"},
      {"FUSEDNORM_HTTP_REQUESTS", "+3"},
      {"FUSEDNORM_HTTP_RETRIES", "5 "}};
  for (const auto& [name, value] : bad) {
    setenv(name, value, 1);
    absl::StatusOr<RemoteSettings> s = RemoteSettings::FromEnvironment();
    unsetenv(name);
    ASSERT_FALSE(s.ok()) << name << "=" << value;
    EXPECT_NE(s.status().message().find(name), std::string::npos) << s.status();
  }
  // A credential with a line break (or anything else a header cannot hold
  // as it is) is refused by name, its value never shown.
  Set("AWS_ACCESS_KEY_ID", "AK");
  Set("AWS_SECRET_ACCESS_KEY", "SK");
  for (const char* name :
       {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"}) {
    for (const char* value :
         {"zq9\r\nX-Evil: 1", "zq9\n", "zq 9", "zq\xc3\xa9T"}) {
      Set(name, value);
      absl::StatusOr<RemoteSettings> s = RemoteSettings::FromEnvironment();
      ASSERT_FALSE(s.ok()) << name << "=" << value;
      const std::string m(s.status().message());
      EXPECT_NE(m.find(name), std::string::npos) << m;
      EXPECT_EQ(m.find("zq"), std::string::npos) << m;
    }
    Set(name, name == std::string("AWS_SESSION_TOKEN") ? "" : "OK");
  }
  Set("AWS_ACCESS_KEY_ID", "");
  Set("AWS_SECRET_ACCESS_KEY", "");
  // A value's control characters are shown as %XX: one line.
  for (const char* name : {"FUSEDNORM_HTTP_INDEX_MB", "FUSEDNORM_HTTP_TIMEOUT",
                           "AWS_REGION", "FUSEDNORM_S3_ADDRESSING"}) {
    setenv(name, "2\nx\x1b[31m", 1);
    absl::StatusOr<RemoteSettings> s = RemoteSettings::FromEnvironment();
    unsetenv(name);
    ASSERT_FALSE(s.ok()) << name;
    const std::string m(s.status().message());
    EXPECT_NE(m.find("\"2%0Ax%1B[31m\""), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace fusednorm
