// The cache's parts: the index's and the pack's formats, stat records and their racy window, saves that merge
// what another run wrote, the size budget, and the codec of entries.
#include "cache/codec.h"
#include "cache/hash.h"
#include "cache/store.h"
#include "engine/analysis.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace cudnnlint::cache {
namespace {

namespace fs = std::filesystem;

class CacheFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cudnnlint-cache-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
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

TEST_F(CacheFolder, StatRecordsHoldWhileTheStatIsUnchangedAndNotForFreshFiles) {
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

TEST_F(CacheFolder, TheFolderIsTaggedAndSavesMergeWhatAnotherRunWrote) {
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

TEST_F(CacheFolder, ADamagedPackIsSaidAndReplaced) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "pack") << "cudnnlint cache pack 1\nnot what a save writes";
  auto store = open();
  EXPECT_TRUE(store->load_problems().empty());  // the pack is read when an entry is needed
  EXPECT_FALSE(store->entry(hash_bytes("k")));
  ASSERT_EQ(store->load_problems().size(), 1u);
  EXPECT_NE(store->load_problems()[0].find("checksum mismatch"), std::string::npos) << store->load_problems()[0];
  store->put(hash_bytes("k"), "v");
  EXPECT_TRUE(store->save().empty());
  auto again = open();
  EXPECT_EQ(again->entry(hash_bytes("k")), "v");
  EXPECT_TRUE(again->load_problems().empty());
}

TEST_F(CacheFolder, ThePackStaysWithinItsBudget) {
  auto store = open(400'000);  // 11/16 for the pack: 275,000 bytes
  for (int i = 0; i < 100; ++i) store->put(hash_bytes(std::to_string(i)), std::string(10'000, 'x'));
  EXPECT_TRUE(store->save().empty());
  const auto size = fs::file_size(dir_ / "pack");
  EXPECT_LE(size, 275'000u);
  EXPECT_GE(size, 225'000u);  // it keeps what fits
}

TEST_F(CacheFolder, RunEntriesAreCheckedAndTrimmedToTheNewest) {
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

TEST(CacheCodec, EntriesRoundTrip) {
  PythonEntry python;
  python.facts = FileFacts{};
  python.facts->path = "m.py";
  NormalizationFact bn;
  bn.api = "torch.nn.BatchNorm2d";
  bn.eps = ConstantValue{1e-9, "1e-9", {ProvenanceStep{Location{"c.py", {{3, 5, 5, 40}, {3, 9, 9, 44}}}, "EPS"}}};
  bn.eps_ref = ValueRef{};
  bn.eps_ref->default_value.push_back(Value{});
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
  EXPECT_EQ(back->facts->normalizations[0].eps->provenance[0].where.range.end.byte_offset, 44u);
  EXPECT_EQ(back->facts->normalizations[0].literal_args.at("fused").boolean, false);
  EXPECT_EQ(back->diagnostics[0].position->column, 2u);

  RunEntry run;
  Finding finding;
  finding.rule_id = "bn-eps-zero";
  finding.level = Level::Error;
  finding.fix = Fix{"set eps=1e-05", false, {TextEdit{{{1, 1, 1, 0}, {1, 4, 4, 3}}, "1e-5", "0.0", false}}};
  finding.replay.epsilon = 0.0;
  run.findings.push_back(finding);
  run.dependencies.emplace_back("/usr/include/cudnn.h", hash_bytes("h").hex());
  const auto run_back = decode_run(encode(run));
  ASSERT_TRUE(run_back);
  EXPECT_EQ(encode(*run_back), encode(run));
  EXPECT_EQ(run_back->findings[0].fix->edits[0].replacement, "1e-5");
  EXPECT_EQ(run_back->findings[0].level, Level::Error);

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
