// SameVersion and ByDate: which answers may be the version an open saw, for
// every kind of ETag and date an open and an answer can carry.
#include "data/http_client.h"

#include <curl/curl.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace fusednorm {
namespace {

TEST(SameVersion, StrongETagsAreCheckedByIfMatchAndCompared) {
  const ObjectVersion open{100, "\"a\"", "Mon, 30 Nov 2026 10:00:00 GMT"};
  EXPECT_FALSE(ByDate(open));
  EXPECT_TRUE(SameVersion(open, {100, "\"a\"", ""}));
  // Without the ETag the date must come back: a server that ignores
  // If-Match may leave the ETag out of answers from another version.
  EXPECT_TRUE(SameVersion(open, {100, "", "Mon, 30 Nov 2026 10:00:00 GMT"}));
  EXPECT_FALSE(SameVersion(open, {100, "", ""}));
  EXPECT_FALSE(SameVersion(open, {100, "", "Tue, 01 Dec 2026 10:00:00 GMT"}));
  EXPECT_FALSE(SameVersion({100, "\"a\"", ""}, {100, "", ""}));
  // A date that differs does not matter: If-Match held, and the ETag
  // names the bytes.
  EXPECT_TRUE(SameVersion(open, {100, "\"a\"", "Tue, 01 Dec 2026"}));
  EXPECT_FALSE(SameVersion(open, {100, "\"b\"", ""}));
  EXPECT_FALSE(SameVersion(open, {100, "W/\"a\"", ""}));
  EXPECT_FALSE(SameVersion(open, {101, "\"a\"", ""}));
}

// Every combination of the open's ETag (none, weak, a digest of one too odd
// to send) and date (none, one) with the answer's ETag (none, the same,
// the same but strong, another) and date (none, the same, another).
TEST(SameVersion, WithoutAStrongETagTheAnswerMustCarryWhatTheOpenHad) {
  const std::string d0 = "Mon, 30 Nov 2026 10:00:00 GMT", d1 = "Tue";
  for (const std::string open_etag : {"", "W/\"a\"", "#0123456789abcdef"}) {
    for (const std::string open_date : {std::string(), d0}) {
      const ObjectVersion open{100, open_etag, open_date};
      EXPECT_TRUE(ByDate(open));
      const std::string strong_same =
          open_etag.rfind("W/", 0) == 0 ? open_etag.substr(2) : open_etag;
      for (const std::string now_etag :
           {std::string(), open_etag, strong_same, std::string("W/\"z\"")}) {
        for (const std::string now_date : {std::string(), d0, d1}) {
          const bool etags = !open_etag.empty() && !now_etag.empty();
          const bool dates = !open_date.empty() && !now_date.empty();
          const bool etag_differs = etags && now_etag == "W/\"z\"";
          const bool date_differs = dates && now_date != open_date;
          const bool nothing_open = open_etag.empty() && open_date.empty();
          const bool expected = !etag_differs && !date_differs &&
                                (etags || dates || nothing_open);
          EXPECT_EQ(SameVersion(open, {100, now_etag, now_date}), expected)
              << "open " << open_etag << " / " << open_date << "; now "
              << now_etag << " / " << now_date;
          EXPECT_FALSE(SameVersion(open, {99, now_etag, now_date}));
        }
      }
    }
  }
}

// A server may write the same Last-Modified in any of HTTP's date formats
// from one answer to the next: the same second is the same date, another
// second (or a text that is no date and differs) is not.
TEST(SameVersion, DatesCompareAsTimesInAnyFormat) {
  const std::string open_date = "Sun, 06 Nov 1994 08:49:37 GMT";
  const ObjectVersion open{100, "W/\"a\"", open_date};
  for (const std::string same :
       {"Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994", "Sun, 06 Nov 1994 08:49:37 +0000",
        "Sun, 06 Nov 1994 09:49:37 +0100"}) {
    EXPECT_TRUE(SameVersion(open, {100, "W/\"a\"", same})) << same;
  }
  for (const std::string other :
       {"Sun, 06 Nov 1994 08:49:38 GMT", "Sunday, 06-Nov-94 08:49:36 GMT",
        "Mon Nov  7 08:49:37 1994", "not a date", "#0123456789abcdef"}) {
    EXPECT_FALSE(SameVersion(open, {100, "W/\"a\"", other})) << other;
  }
  const ObjectVersion odd{100, "", "#0123456789abcdef"};
  EXPECT_TRUE(SameVersion(odd, {100, "", "#0123456789abcdef"}));
  EXPECT_FALSE(SameVersion(odd, {100, "", "#fedcba9876543210"}));
}

// Retry-After in seconds or as an HTTP date (RFC 9110): a date was read
// as no number and retried at once.
TEST(RetryAfter, SecondsOrADate) {
  const time_t now = curl_getdate("Sun, 06 Nov 1994 08:49:37 GMT", nullptr);
  EXPECT_EQ(RetryAfterSeconds("120", now), 120);
  EXPECT_EQ(RetryAfterSeconds("0.5", now), 0.5);
  EXPECT_EQ(RetryAfterSeconds("-3", now), 0);
  EXPECT_EQ(RetryAfterSeconds("Sun, 06 Nov 1994 08:50:07 GMT", now), 30);
  EXPECT_EQ(RetryAfterSeconds("Sunday, 06-Nov-94 08:49:47 GMT", now), 10);
  EXPECT_EQ(RetryAfterSeconds("Sun, 06 Nov 1994 08:49:00 GMT", now), 0);
  EXPECT_EQ(RetryAfterSeconds("soon", now), 0);
  EXPECT_EQ(RetryAfterSeconds("", now), 0);
}

}  // namespace
}  // namespace fusednorm
