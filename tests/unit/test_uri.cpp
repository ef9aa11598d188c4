// The one percent-encoder (core/uri.h) that SARIF's locations and the language server's share.
#include "core/uri.h"

#include <gtest/gtest.h>

namespace cudnnlint {
namespace {

TEST(Uri, UnreservedBytesAndSlashesStayAsTheyAre) {
  EXPECT_EQ(percent_encode_path("src/Model-v2_final.py~"), "src/Model-v2_final.py~");
  EXPECT_EQ(percent_encode_path(""), "");
}

TEST(Uri, EveryOtherByteIsWrittenAsUpperCaseHex) {
  EXPECT_EQ(percent_encode_path("a b#c%d?e"), "a%20b%23c%25d%3Fe");
  EXPECT_EQ(percent_encode_path("\xc3\xa9"), "%C3%A9");  // "é", byte by byte
  EXPECT_EQ(percent_encode_path(std::string_view("\0\x7f", 2)), "%00%7F");
}

TEST(Uri, AFileUriIsTheSchemeBeforeTheEncodedAbsolutePath) {
  EXPECT_EQ(file_uri("/home/a b/m.py"), "file:///home/a%20b/m.py");
}

}  // namespace
}  // namespace cudnnlint
