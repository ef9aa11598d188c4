// The language server's in-memory cache (engine/session_cache.h): entries found by key, one per
// slot (a document edited many times keeps its latest result only), bounded.
#include "engine/session_cache.h"

#include <gtest/gtest.h>

namespace cudnnlint {
namespace {

cache::Hash128 key_of(std::string_view text) { return cache::hash_bytes(text); }

PythonFileResult result_with(std::size_t bytes_parsed) {
  PythonFileResult result;
  result.facts = FileFacts{};
  result.bytes_parsed = bytes_parsed;
  return result;
}

TEST(SessionCache, ASlotKeepsOnlyItsLatestEntry) {
  SessionCache session;
  const auto model = key_of("model.py first pass"), layers = key_of("layers.py first pass");
  session.put(key_of("v1"), model, result_with(1));
  session.put(key_of("layers v1"), layers, result_with(10));
  ASSERT_TRUE(session.find(key_of("v1")));
  session.put(key_of("v2"), model, result_with(2));  // the document edited
  EXPECT_FALSE(session.find(key_of("v1")));
  ASSERT_TRUE(session.find(key_of("v2")));
  EXPECT_EQ(session.find(key_of("v2"))->bytes_parsed, 2u);
  EXPECT_EQ(session.find(key_of("layers v1"))->bytes_parsed, 10u);  // another slot: untouched
  EXPECT_EQ(session.size(), 2u);
  for (int edit = 3; edit < 1000; ++edit) session.put(key_of(std::string("v").append(std::to_string(edit))), model, result_with(edit));
  EXPECT_EQ(session.size(), 2u);
  EXPECT_EQ(session.hits(), 4u);
}

TEST(SessionCache, TheOldestEntriesGoWhenFull) {
  SessionCache session(3);
  for (int file = 0; file < 5; ++file)
    session.put(key_of(std::string("entry ").append(std::to_string(file))), key_of(std::string("slot ").append(std::to_string(file))), result_with(file));
  EXPECT_EQ(session.size(), 3u);
  EXPECT_FALSE(session.find(key_of("entry 0")));
  EXPECT_FALSE(session.find(key_of("entry 1")));
  EXPECT_TRUE(session.find(key_of("entry 4")));
}

TEST(SessionCache, ExportsFollowTheSameSlots) {
  SessionCache session;
  auto first = std::make_shared<const python::ModuleExports>();
  auto second = std::make_shared<const python::ModuleExports>();
  session.put_exports(key_of("a"), key_of("constants.py"), first);
  EXPECT_EQ(session.find_exports(key_of("a")), first);
  session.put_exports(key_of("b"), key_of("constants.py"), second);
  EXPECT_EQ(session.find_exports(key_of("a")), nullptr);
  EXPECT_EQ(session.find_exports(key_of("b")), second);
}

}  // namespace
}  // namespace cudnnlint
