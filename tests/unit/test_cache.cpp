// The cache's parts: the index's and the pack's formats, stat records and their racy window, saves that merge
// what another run wrote, the size budget, and the codec of entries.
#include "cache/codec.h"
#include "cache/folder.h"
#include "cache/msgpack_bounds.h"
#include "cache/hash.h"
#include "cache/store.h"
#include "engine/analysis.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cudnnlint::cache {
namespace {

namespace fs = std::filesystem;

class CacheStore : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cudnnlint-cache-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    // The cache's key lives in the user's cache home: a private one for the tests.
    key_home_ = dir_.string() + "-home";
    ::setenv("XDG_CACHE_HOME", key_home_.c_str(), 1);
  }
  void TearDown() override {
    fs::remove_all(dir_);
    fs::remove_all(key_home_);
  }
  std::string key_home_;
  std::unique_ptr<Store> open(std::uint64_t max_bytes = 64u << 20) {
    std::string problem;
    auto store = Store::open(dir_, max_bytes, problem);
    EXPECT_TRUE(store) << problem;
    return store;
  }
  fs::path dir_;
};

// A stat from long ago: outside the racy window.
FileStat old_stat(std::uint64_t size) {
  FileStat stat;
  stat.size = size;
  stat.mtime_ns = 1'000'000'000'000'000'000;  // 2001
  stat.ctime_ns = stat.mtime_ns;
  stat.inode = 42;
  stat.device = 7;
  return stat;
}

TEST(CacheHash, KeysAreLengthPrefixedAndHexIs32Digits) {
  EXPECT_NE(KeyBuilder().add("ab").add("c").key(), KeyBuilder().add("a").add("bc").key());
  EXPECT_EQ(KeyBuilder().add("ab").add("c").key(), KeyBuilder().add("ab").add("c").key());
  EXPECT_EQ(hash_bytes("x").hex().size(), 32u);
  EXPECT_NE(hash_bytes("x"), hash_bytes("y"));
}

TEST(CachePack, IndexAndPackRoundTripAndRefuseDamage) {
  std::unordered_map<std::string, Store::Record> records{{"/a.py", {old_stat(3), hash_bytes("abc"), 17}}};
  std::unordered_map<Hash128, Store::Entry, Hash128Hasher> entries{{hash_bytes("k"), {std::string("v\0w", 3), 18}}};
  const std::string index = encode_index(records);
  const std::string pack = encode_pack(entries);
  std::unordered_map<std::string, Store::Record> records_back;
  std::unordered_map<Hash128, Store::Entry, Hash128Hasher> entries_back;
  decode_index(index, records_back);
  decode_pack(pack, entries_back);
  ASSERT_EQ(records_back.size(), 1u);
  EXPECT_EQ(records_back.at("/a.py").stat, old_stat(3));
  EXPECT_EQ(records_back.at("/a.py").hash, hash_bytes("abc"));
  EXPECT_EQ(records_back.at("/a.py").used, 17u);
  ASSERT_EQ(entries_back.size(), 1u);
  EXPECT_EQ(entries_back.at(hash_bytes("k")).bytes, std::string("v\0w", 3));
  EXPECT_EQ(entries_back.at(hash_bytes("k")).used, 18u);

  std::string damaged = pack;
  damaged[damaged.size() / 2] ^= 0x40;
  EXPECT_THROW(decode_pack(damaged, entries_back), std::runtime_error);
  EXPECT_THROW(decode_pack(pack.substr(0, 30), entries_back), std::runtime_error);
  EXPECT_THROW(decode_pack(index, entries_back), std::runtime_error);  // an index is not a pack
  EXPECT_THROW(decode_index("cudnnlint cache index 0\n", records_back), std::runtime_error);
}

TEST_F(CacheStore, StatRecordsHoldWhileTheStatIsUnchangedAndNotForFreshFiles) {
  auto store = open();
  store->remember("/old.py", old_stat(10), hash_bytes("old"));
  EXPECT_EQ(store->known_hash("/old.py", old_stat(10)), hash_bytes("old"));
  EXPECT_FALSE(store->known_hash("/old.py", old_stat(11)));  // another size
  FileStat touched = old_stat(10);
  touched.ctime_ns += 1;
  EXPECT_FALSE(store->known_hash("/old.py", touched));
  // A file changed just now could change again within the same timestamp: not recorded.
  const fs::path fresh = dir_ / "fresh.py";
  std::ofstream(fresh) << "x = 1\n";
  const auto now = stat_file(fresh.string());
  ASSERT_TRUE(now);
  store->remember(fresh.string(), *now, hash_bytes("x = 1\n"));
  EXPECT_FALSE(store->known_hash(fresh.string(), *now));
  EXPECT_FALSE(stat_file((dir_ / "missing.py").string()));
  EXPECT_FALSE(stat_file(dir_.string()));  // a folder is not a file
}

TEST_F(CacheStore, TheFolderIsTaggedAndSavesMergeWhatAnotherRunWrote) {
  auto first = open();
  auto second = open();
  EXPECT_TRUE(fs::is_regular_file(dir_ / "CACHEDIR.TAG"));
  EXPECT_TRUE(fs::is_regular_file(dir_ / ".gitignore"));
  first->put(hash_bytes("one"), "1");
  first->remember("/one.py", old_stat(1), hash_bytes("1"));
  second->put(hash_bytes("two"), "2");
  EXPECT_TRUE(first->save().empty());
  EXPECT_TRUE(second->save().empty());  // loaded before the first saved: merges, does not overwrite
  auto third = open();
  EXPECT_EQ(third->entry(hash_bytes("one")), "1");
  EXPECT_EQ(third->entry(hash_bytes("two")), "2");
  EXPECT_EQ(third->known_hash("/one.py", old_stat(1)), hash_bytes("1"));
  EXPECT_FALSE(third->entry(hash_bytes("three")));
  EXPECT_EQ(third->counters().entry_hits, 2u);
  EXPECT_EQ(third->counters().entry_misses, 1u);
}

TEST_F(CacheStore, ADamagedPackIsSaidAndReplaced) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "pack") << "cudnnlint cache pack 1\nnot what a save writes";
  auto store = open();
  EXPECT_TRUE(store->load_problems().empty());  // the pack is read when an entry is needed
  EXPECT_FALSE(store->entry(hash_bytes("k")));
  ASSERT_EQ(store->load_problems().size(), 1u);
  EXPECT_NE(store->load_problems()[0].find("does not verify"), std::string::npos) << store->load_problems()[0];
  store->put(hash_bytes("k"), "v");
  EXPECT_TRUE(store->save().empty());
  auto again = open();
  EXPECT_EQ(again->entry(hash_bytes("k")), "v");
  EXPECT_TRUE(again->load_problems().empty());
}

TEST_F(CacheStore, ThePackStaysWithinItsBudget) {
  auto store = open(400'000);  // 11/16 for the pack: 275,000 bytes
  for (int i = 0; i < 100; ++i) store->put(hash_bytes(std::to_string(i)), std::string(10'000, 'x'));
  EXPECT_TRUE(store->save().empty());
  const auto size = fs::file_size(dir_ / "pack");
  EXPECT_LE(size, 275'000u);
  EXPECT_GE(size, 225'000u);  // it keeps what fits
}

TEST_F(CacheStore, RunEntriesAreCheckedAndTrimmedToTheNewest) {
  auto store = open();
  store->put_run(hash_bytes("run"), "findings");
  EXPECT_EQ(store->run_entry(hash_bytes("run")), "findings");
  EXPECT_FALSE(store->run_entry(hash_bytes("other")));
  std::ofstream(dir_ / "runs" / hash_bytes("run").hex()) << "findings, damaged";
  EXPECT_FALSE(store->run_entry(hash_bytes("run")));
  for (int i = 0; i < 70; ++i) store->put_run(hash_bytes("run" + std::to_string(i)), "x");
  EXPECT_TRUE(store->save().empty());
  std::size_t runs = 0;
  for ([[maybe_unused]] const auto& f : fs::directory_iterator(dir_ / "runs")) ++runs;
  EXPECT_EQ(runs, 64u);
}

// ---- A hostile tree owns the cache folder when it lies in the tree (the default).

TEST_F(CacheStore, AFolderOrRunsFolderThatIsALinkIsRefused) {
  const fs::path elsewhere = dir_.string() + "-elsewhere";
  fs::create_directories(elsewhere);
  fs::create_directories(dir_.parent_path());
  fs::create_symlink(elsewhere, dir_);
  std::string problem;
  EXPECT_FALSE(Store::open(dir_, 1u << 20, problem));
  EXPECT_NE(problem.find("symbolic link"), std::string::npos) << problem;
  fs::remove(dir_);
  fs::create_directories(dir_);
  fs::create_directory_symlink(elsewhere, dir_ / "runs");
  problem.clear();
  EXPECT_FALSE(Store::open(dir_, 1u << 20, problem));
  EXPECT_NE(problem.find("runs"), std::string::npos) << problem;
  EXPECT_TRUE(fs::is_empty(elsewhere));
  fs::remove_all(elsewhere);
}

TEST_F(CacheStore, TrimmingRemovesOnlyTheRunEntriesOwnNames) {
  auto store = open();
  const fs::path outside = dir_.string() + "-outside.txt";
  std::ofstream(outside) << "keep\n";
  std::ofstream(dir_ / "runs" / "notes.txt") << "not a run\n";
  fs::create_symlink(outside, dir_ / "runs" / std::string(32, 'a'));  // a run's name, but a link
  for (int i = 0; i < 70; ++i) store->put_run(hash_bytes("run" + std::to_string(i)), "x");
  EXPECT_TRUE(store->save().empty());
  EXPECT_TRUE(fs::exists(dir_ / "runs" / "notes.txt"));
  EXPECT_TRUE(fs::is_symlink(dir_ / "runs" / std::string(32, 'a')));
  EXPECT_TRUE(fs::exists(outside));
  fs::remove(outside);
}

TEST_F(CacheStore, AnEntryWithoutThisUsersTagIsAMissAndAFifoDoesNotBlock) {
  auto store = open();
  store->put_run(hash_bytes("run"), "findings");
  EXPECT_EQ(store->run_entry(hash_bytes("run")), "findings");
  // The same bytes sealed with another key: what a tree can commit at best.
  Authenticator other(Authenticator::Key{1, 2, 3});
  const std::string name = hash_bytes("run").hex();
  std::ofstream(dir_ / "runs" / name, std::ios::binary | std::ios::trunc) << other.seal(name, "forged findings");
  EXPECT_FALSE(store->run_entry(hash_bytes("run")));
  fs::remove(dir_ / "runs" / name);
  ASSERT_EQ(::mkfifo((dir_ / "runs" / name).c_str(), 0644), 0);
  EXPECT_FALSE(store->run_entry(hash_bytes("run")));  // returns at once: a FIFO is not read
  // A pack that is not this user's: a load problem, and the pack is rebuilt.
  store->put(hash_bytes("e"), "entry");
  EXPECT_TRUE(store->save().empty());
  std::ofstream(dir_ / "pack", std::ios::binary | std::ios::trunc) << other.seal("pack", encode_pack({}));
  auto again = open();
  EXPECT_FALSE(again->entry(hash_bytes("e")));
  ASSERT_EQ(again->load_problems().size(), 1u);
  EXPECT_NE(again->load_problems()[0].find("does not verify"), std::string::npos) << again->load_problems()[0];
}

TEST_F(CacheStore, AbandonedTemporariesGoAtTheNextSaveAndALiveOneStays) {
  auto store = open();
  const fs::path abandoned = dir_ / ".pack.0123456789abcdef.tmp";
  const fs::path live = dir_ / ".index.0123456789abcdef.tmp";
  const fs::path foreign = dir_ / ".notes.0123456789abcdef.tmp";
  // A writer's fresh temporary, created and not locked yet, so still empty: a concurrent save must
  // leave it (removing it made the writer's rename fail with ENOENT under CI's load).
  const fs::path fresh = dir_ / ".pack.fedcba9876543210.tmp";
  for (const auto& p : {abandoned, live, foreign}) std::ofstream(p) << std::string(1000, 'x');
  std::ofstream(fresh).flush();
  // An empty one a minute old is a run killed between creating and locking it.
  const fs::path stale_empty = dir_ / ".index.fedcba9876543210.tmp";
  std::ofstream(stale_empty).flush();
  fs::last_write_time(stale_empty, fs::file_time_type::clock::now() - std::chrono::minutes(2));
  const int held = ::open(live.c_str(), O_RDONLY);
  ASSERT_EQ(::flock(held, LOCK_EX), 0);  // a run still writing it
  store->put(hash_bytes("e"), "entry");
  EXPECT_TRUE(store->save().empty());
  EXPECT_FALSE(fs::exists(abandoned));
  EXPECT_TRUE(fs::exists(fresh));
  EXPECT_FALSE(fs::exists(stale_empty));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_TRUE(fs::exists(foreign));  // not a name the cache writes
  ::close(held);
  EXPECT_TRUE(is_cache_temporary_name(".0123456789abcdef0123456789abcdef.0123456789abcdef.tmp"));
  EXPECT_FALSE(is_cache_temporary_name(".0123456789abcdef.tmp"));
  EXPECT_FALSE(is_cache_temporary_name(".pack.0123.tmp"));
}

TEST(CacheMsgpackBounds, DepthCountsAndLengthsAreChecked) {
  EXPECT_EQ(check_msgpack_bounds("\x92\x01\xc0", 4), "");                     // [1, nil]
  EXPECT_EQ(check_msgpack_bounds("\x81\xa1k\x91\x05", 4), "");               // {"k": [5]}
  EXPECT_NE(check_msgpack_bounds(std::string(10, '\x91') + "\xc0", 4), "");    // 10 deep
  EXPECT_EQ(check_msgpack_bounds(std::string(10, '\x91') + "\xc0", 16), "");
  EXPECT_NE(check_msgpack_bounds(std::string("\xdd\xff\xff\xff\xff\xc0", 6), 4), "");  // 4G items, 1 byte
  EXPECT_NE(check_msgpack_bounds(std::string("\xdb\x00\x00\x10\x00" "ab", 7), 4), "");  // a string past the end
  EXPECT_NE(check_msgpack_bounds("\x92\x01", 4), "");                           // truncated
  EXPECT_NE(check_msgpack_bounds("\x01\x02", 4), "");                           // trailing bytes
  EXPECT_NE(check_msgpack_bounds("\xc1", 4), "");                                // never used
  EXPECT_NE(check_msgpack_bounds("", 4), "");
  // The codec refuses a deep entry instead of recursing into it.
  EXPECT_FALSE(decode_run(std::string(2'000'000, '\x91') + "\xc0"));
}

TEST(CacheCodec, EntriesRoundTrip) {
  PythonEntry python;
  python.facts = FileFacts{};
  python.facts->path = "m.py";
  NormalizationFact bn;
  bn.api = "torch.nn.BatchNorm2d";
  bn.eps.value = ConstantValue{1e-9, "1e-9", {ProvenanceStep{Location{"c.py", {{3, 5, 5, 40}, {3, 9, 9, 44}}}, "EPS"}}};
  bn.eps.ref = ValueRef{};
  bn.eps.ref->default_value.push_back(Value{});
  bn.literal_args["fused"] = LiteralArg{"False", std::nullopt, false, std::nullopt};
  python.facts->normalizations.push_back(bn);
  python.identifiers = {1, 0, ~0ull};
  python.diagnostics.push_back({FileDiagnostic::Severity::Error, "m.py", Position{1, 2, 2, 1}, "bad"});
  python.bytes_read = 99;
  const auto back = decode_python(encode(python));
  ASSERT_TRUE(back);
  ASSERT_TRUE(back->facts);
  EXPECT_EQ(encode(*back), encode(python));
  EXPECT_EQ(back->identifiers, python.identifiers);
  EXPECT_EQ(back->facts->normalizations[0].eps.value->provenance[0].where.range.end.byte_offset, 44u);
  EXPECT_EQ(back->facts->normalizations[0].literal_args.at("fused").boolean, false);
  EXPECT_EQ(back->diagnostics[0].position->column, 2u);

  RunEntry run;
  Finding finding;
  finding.rule_id = "bn-eps-zero";
  finding.level = Level::Error;
  finding.fix = Fix{"set eps=1e-05", false, {TextEdit{{{1, 1, 1, 0}, {1, 4, 4, 3}}, "1e-5", "0.0", false}}, ""};
  finding.replay.epsilon = 0.0;
  finding.notebook = NotebookPlace{5, 2, 3, 40, 41};  // a finding in a notebook keeps its cell
  finding.related.emplace_back(Location{"nb.ipynb", {}}, "defined here");
  finding.related.back().notebook = NotebookPlace{4, 1, 1, 30, 30};
  run.findings.push_back(finding);
  run.dependencies.emplace_back("/usr/include/cudnn.h", hash_bytes("h").hex());
  const auto run_back = decode_run(encode(run));
  ASSERT_TRUE(run_back);
  EXPECT_EQ(encode(*run_back), encode(run));
  EXPECT_EQ(run_back->findings[0].fix->edits[0].replacement, "1e-5");
  EXPECT_EQ(run_back->findings[0].level, Level::Error);
  ASSERT_TRUE(run_back->findings[0].notebook);
  EXPECT_EQ(run_back->findings[0].notebook->cell, 5u);
  EXPECT_EQ(run_back->findings[0].notebook->file_end_line, 41u);
  ASSERT_TRUE(run_back->findings[0].related.at(0).notebook);
  EXPECT_EQ(run_back->findings[0].related[0].notebook->file_line, 30u);

  EXPECT_FALSE(decode_python("not msgpack"));
  EXPECT_FALSE(decode_run(encode(python)));  // another kind of entry
}

TEST(CacheCodec, EqualTargetsHaveEqualTextsAndOthersDiffer) {
  Target a, b;
  a.cudnn = Version{8, 9, 0};
  b.cudnn = Version{8, 9, 0};
  EXPECT_EQ(canonical_text(a), canonical_text(b));
  b.frameworks["torch"] = Version{2, 1, 0};
  EXPECT_NE(canonical_text(a), canonical_text(b));
}

}  // namespace
}  // namespace cudnnlint::cache
