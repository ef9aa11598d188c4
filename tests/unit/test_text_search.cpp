// The one-pass identifier scan against a plain reference: the same answer on texts built to
// cross its 16- and 64-byte blocks, numbers, quotes and multi-byte characters.
#include "core/identifier.h"
#include "core/text_search.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace cudnnlint {
namespace {

bool identifier_byte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
}

// Every identifier of `text`, the plain way.
std::vector<std::pair<std::size_t, std::size_t>> reference_identifiers(std::string_view text) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (!identifier_byte(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < text.size() && identifier_byte(static_cast<unsigned char>(text[i]))) ++i;
    if (!(text[start] >= '0' && text[start] <= '9')) out.emplace_back(start, i);
  }
  return out;
}

// The one identifier predicate (core/identifier.h) that the scan, the lexers, the import reader,
// the module index, the config readers and the log scanner share, against the plain reference.
TEST(Identifier, TheSharedPredicateMatchesThePlainReference) {
  for (int c = 0; c < 256; ++c)
    EXPECT_EQ(is_identifier_char(static_cast<char>(c)), identifier_byte(static_cast<unsigned char>(c))) << c;
  EXPECT_TRUE(is_identifier("batch_size"));
  EXPECT_TRUE(is_identifier("_x1"));
  EXPECT_TRUE(is_identifier("\xc3\xa9t\xc3\xa9"));  // "été": Python 3 names may be non-ASCII
  EXPECT_FALSE(is_identifier(""));
  EXPECT_FALSE(is_identifier("1x"));
  EXPECT_FALSE(is_identifier("a.b"));
  EXPECT_FALSE(is_identifier("a-b"));
}

TEST(TextSearch, WordsAreFoundWholeAndNotInsideLongerNames) {
  const WordSet words({"BatchNorm2d", "batch_norm"}), quoted({"BN"}), none;
  EXPECT_TRUE(scan_identifiers("x = nn.BatchNorm2d(3)", words, none, false).names_a_word);
  EXPECT_FALSE(scan_identifiers("x = nn.BatchNorm2dAct(3)", words, none, false).names_a_word);
  EXPECT_FALSE(scan_identifiers("self.use_batch_norm = True", words, none, false).names_a_word);
  EXPECT_TRUE(scan_identifiers("F.batch_norm(x)", words, none, false).names_a_word);
  EXPECT_TRUE(scan_identifiers("norm_cfg = dict(type='BN')", words, quoted, false).names_a_word);
  EXPECT_FALSE(scan_identifiers("BN = 3", words, quoted, false).names_a_word);
  EXPECT_FALSE(scan_identifiers("x = 'BNX'", words, quoted, false).names_a_word);
  EXPECT_FALSE(scan_identifiers("", words, quoted, true).names_a_word);
}

TEST(TextSearch, MatchesTheReferenceOnRandomTexts) {
  std::mt19937 random(20261122);
  const std::vector<std::string> pieces{"BatchNorm2d", "batch_norm", "x", "eps", "1e-5", "0x1F", " ", "\n", "(", ".",
                                        "'", "\"", "'BN'", "_", "__init__", "\xc3\xa9t\xc3\xa9", "9a", "a9", "\t", "#"};
  for (int round = 0; round < 300; ++round) {
    std::string text;
    const int count = static_cast<int>(random() % 200);
    for (int k = 0; k < count; ++k) text += pieces[random() % pieces.size()];
    std::set<std::string> names;
    for (const auto& [begin, end] : reference_identifiers(text)) names.insert(text.substr(begin, end - begin));
    const WordSet words({"BatchNorm2d", "batch_norm"}), quoted({"BN"});
    const IdentifierScan scan = scan_identifiers(text, words, quoted, true);
    const bool expected = names.count("BatchNorm2d") || names.count("batch_norm") ||
                          text.find("'BN'") != std::string::npos || text.find("\"BN\"") != std::string::npos;
    EXPECT_EQ(scan.names_a_word, expected) << text;
    // No false negative in the filter, for every identifier the reference sees.
    for (const auto& name : names) EXPECT_TRUE(scan.filter.may_contain(name)) << name << " in " << text;
  }
}

TEST(TextSearch, TheFilterRejectsMostAbsentNames) {
  std::string text;
  for (int k = 0; k < 2000; ++k) text += "name" + std::to_string(k) + " = value" + std::to_string(k) + "\n";
  const IdentifierScan scan = scan_identifiers(text, WordSet{}, WordSet{}, true);
  EXPECT_TRUE(scan.filter.may_contain("name1999"));
  int false_positives = 0;
  for (int k = 0; k < 1000; ++k) false_positives += scan.filter.may_contain("absent" + std::to_string(k)) ? 1 : 0;
  EXPECT_LT(false_positives, 100);  // about 1 in 10 with 4000 names in the filter's 16384 bits
}

TEST(TextSearch, TheFilterRecordsTheDtypeFamilysShortNamesExactly) {
  // Most short lowercase names are not recorded ("may" always); half/long/byte/cast are, so that
  // the dtype family's pairs can ask for them in every file without reading it again.
  const WordSet none;
  const IdentifierScan with_half = scan_identifiers("y = x.half() + self.bias\n", none, none, true);
  EXPECT_TRUE(with_half.filter.may_contain("half"));
  EXPECT_TRUE(with_half.filter.may_contain("self"));  // not recorded: always "may"
  const IdentifierScan without = scan_identifiers("y = x.float() + self.bias  # behalf, longer\n", none, none, true);
  EXPECT_FALSE(without.filter.may_contain("half"));
  EXPECT_FALSE(without.filter.may_contain("long"));
  EXPECT_FALSE(without.filter.may_contain("cast"));
  EXPECT_TRUE(is_recorded_short("byte"));
  EXPECT_FALSE(is_recorded_short("self"));
}

}  // namespace
}  // namespace cudnnlint
