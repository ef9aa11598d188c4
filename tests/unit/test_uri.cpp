// The one percent-encoder and decoder (core/uri.h) that SARIF's locations and the language server's
// share.
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

TEST(Uri, DecodingUndoesEncodingAndLeavesStrayPercentSignsAlone) {
  const std::string name = "/tmp/\xe9\x9b\xb6 #1%.py";
  EXPECT_EQ(percent_decode(percent_encode_path(name)), name);
  EXPECT_EQ(percent_decode("a%2fb%2Fc"), "a/b/c");  // either case of hex
  EXPECT_EQ(percent_decode("100%"), "100%");
  EXPECT_EQ(percent_decode("%4"), "%4");
  EXPECT_EQ(percent_decode("%zz%41"), "%zzA");
}

}  // namespace
}  // namespace cudnnlint
