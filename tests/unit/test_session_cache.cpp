// The language server's in-memory cache (engine/session_cache.h): entries found by key, one per
// slot (a document edited many times keeps its latest result only), bounded.
#include "engine/session_cache.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

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

namespace fs = std::filesystem;

void write_file(const fs::path& path, std::string_view text) {
  std::ofstream(path, std::ios::binary) << text;
}

// An imported module whose stat is unchanged is answered before it is read (its hash known from
// the last read); a changed one, a file changed in the last two seconds (its stat cannot vouch for
// its bytes) and an open document are read.
TEST(SessionFirstPass, AnUnchangedFileIsAnsweredByItsStatAndAChangedOneIsRead) {
  const fs::path dir = fs::temp_directory_path() / ("cudnnlint-session-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string layers = (dir / "layers.py").string(), open = (dir / "model.py").string();
  write_file(layers, "EPS = 1e-5\n");
  write_file(open, "import layers\n");
  const std::vector<std::string> files{layers, open};
  const ModuleIndex modules(files);
  ParsedPythonFiles open_documents;
  open_documents[open] = nullptr;
  SessionCache session;
  auto first_pass = [&] { return SessionFirstPass(session, files, modules, "options", &open_documents); };

  {  // Written just now: read, and its hash not trusted to its stat.
    SessionFirstPass pass = first_pass();
    EXPECT_FALSE(pass.before_read(0));
    EXPECT_FALSE(pass.after_read(0, "EPS = 1e-5\n"));
    pass.store(0, result_with(11));
  }
  EXPECT_FALSE(first_pass().before_read(0));

  // Two seconds later the stat vouches for the bytes read after it.
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  {
    SessionFirstPass pass = first_pass();
    EXPECT_FALSE(pass.before_read(0));  // the hash is first remembered by this read
    ASSERT_TRUE(pass.after_read(0, "EPS = 1e-5\n"));
  }
  {
    SessionFirstPass pass = first_pass();
    const auto answered = pass.before_read(0);
    ASSERT_TRUE(answered);
    EXPECT_EQ(answered->bytes_parsed, 11u);
    EXPECT_FALSE(pass.before_read(1));  // the open document: its buffer is read
  }
  write_file(layers, "EPS = 0.0\n");  // changed: its stat with it
  EXPECT_FALSE(first_pass().before_read(0));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cudnnlint
