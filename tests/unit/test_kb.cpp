// Unit tests for the knowledge base (kb/kb.h): loading the compiled-in entries, lookup, the Markdown
// renderer behind `cudnnlint explain`, the SARIF short description, and the content of the batch-norm
// epsilon entries that the research corrected.
#include "kb/kb.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

using cudnnlint::kb::Entry;
using cudnnlint::kb::Lang;
using nlohmann::json;
namespace kb = cudnnlint::kb;

const char* const kTooSmall = "cuda/cudnn-bn-epsilon-too-small";
const char* const kNegative = "cuda/cudnn-bn-epsilon-negative";
const char* const kZero = "cuda/cudnn-bn-epsilon-zero";
const char* const kClamped = "tensorflow/fused-bn-epsilon-clamped";

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

const Entry& must_find(const char* id) {
  const Entry* e = kb::find(id);
  if (e == nullptr) throw std::runtime_error(std::string("KB entry missing: ") + id);
  return *e;
}

// Problems a rendered page must never have, whatever the entry holds.
void expect_clean_markdown(const std::string& md, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_FALSE(contains(md, "****")) << md;
  EXPECT_FALSE(contains(md, "null")) << md;
  EXPECT_FALSE(std::regex_search(md, std::regex(R"((^|\n)- \*\*\s*\*\*)"))) << md;  // "- ** **" / "- ****"
  // An empty (unescaped) table cell; only table rows count (a code block may hold `a || b`).
  EXPECT_FALSE(std::regex_search(md, std::regex(R"((^|\n)\|[^\n]*?[^\\]\| *\|)"))) << md;
  EXPECT_FALSE(contains(md, "\n\n\n")) << md;      // stray blank lines from empty parts
  EXPECT_EQ(md.rfind("# ", 0), 0u) << md;          // starts with the title
  ASSERT_FALSE(md.empty());
  EXPECT_EQ(md.back(), '\n');
  // No heading directly followed by another heading (an empty section).
  EXPECT_FALSE(std::regex_search(md, std::regex("\n## [^\n]*\n\n## "))) << md;
  EXPECT_FALSE(std::regex_search(md, std::regex("\n## [^\n]*\n*$"))) << md;
  // No empty bullets or list items.
  EXPECT_FALSE(std::regex_search(md, std::regex("\n- *\n"))) << md;
  EXPECT_FALSE(std::regex_search(md, std::regex("\n[0-9]+\\. *\n"))) << md;
}

bool valid_utf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xE ? 2 : (c >> 3) == 0x1E ? 3 : 99;
    if (n == 99 || i + n >= s.size() + (n ? 0 : 1)) return false;
    for (size_t k = 1; k <= n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n + 1;
  }
  return true;
}

// An entry in the seed's shape with every optional part empty, the way the seed's dead ends were.
json sparse_entry() {
  return json::parse(R"json({
    "id": "cuda/sparse-test",
    "signature": "RuntimeError: something failed",
    "signature_zh": "",
    "regex": "",
    "domain": "cuda",
    "category": "runtime_error",
    "subcategory": null,
    "root_cause": "Sparse root cause text.",
    "root_cause_type": "generic",
    "root_cause_zh": null,
    "versions": [],
    "os_specific": {},
    "dead_ends": [
      {"action": "", "why_fails": "A large epsilon hurts accuracy.", "fail_rate": 0.3, "condition": "", "sources": []},
      {"action": "", "why_fails": "", "fail_rate": null, "condition": "", "sources": []},
      {"action": "Ignore the error", "why_fails": "", "fail_rate": 1.0, "condition": null, "sources": null}
    ],
    "workarounds": [
      {"action": "Set eps to 1e-5.", "success_rate": 0.95, "how": "Set eps to 1e-5.", "condition": "", "sources": []},
      {"action": "", "success_rate": null, "how": "", "condition": "", "sources": []},
      {"action": "Patch the layer", "success_rate": 0.5, "how": "layer.eps = 1e-5\nlayer.reset()", "condition": null, "sources": [null, ""]}
    ],
    "workarounds_zh": [],
    "transition_graph": {"leads_to": [], "preceded_by": [], "frequently_confused_with": []},
    "official_doc_url": null,
    "official_doc_section": null,
    "error_code": null,
    "verification_tier": "ai_generated",
    "confidence": null,
    "fix_success_rate": 0.92,
    "resolvable": "true",
    "first_seen": null,
    "last_confirmed": null,
    "last_updated": null,
    "evidence_count": null,
    "tags": [],
    "locale": "en",
    "aliases": [],
    "sources": []
  })json");
}

// ---------------------------------------------------------------------------------------------

TEST(Kb, AllEntriesLoad) {
  const auto& all = kb::entries();
  ASSERT_GE(all.size(), 4u);
  for (const auto& e : all) {
    SCOPED_TRACE(e.id);
    EXPECT_FALSE(e.id.empty());
    EXPECT_FALSE(e.signature.empty());
    EXPECT_FALSE(e.root_cause.empty());
    EXPECT_FALSE(e.verification_tier.empty());
    ASSERT_TRUE(e.data);
    EXPECT_TRUE(e.data->is_object());
    EXPECT_EQ(e.data->at("id").get<std::string>(), e.id);
  }
  for (const char* id : {kTooSmall, kNegative, kZero, kClamped}) EXPECT_NE(kb::find(id), nullptr) << id;
}

TEST(Kb, IdsAreUniqueAndSorted) {
  const auto& all = kb::entries();
  for (size_t i = 1; i < all.size(); ++i) EXPECT_LT(all[i - 1].id, all[i].id);
  std::set<std::string> ids;
  for (const auto& e : all) EXPECT_TRUE(ids.insert(e.id).second) << e.id;
}

TEST(Kb, EntriesAreParsedOnce) {
  EXPECT_EQ(&kb::entries(), &kb::entries());
  EXPECT_EQ(kb::find(kTooSmall), kb::find(kTooSmall));
}

#ifdef CUDNNLINT_SOURCE_DIR
TEST(Kb, EveryEntryOnDiskIsCompiledIn) {
  namespace fs = std::filesystem;
  const fs::path kb_dir = fs::path(CUDNNLINT_SOURCE_DIR) / "kb";
  std::set<std::string> on_disk;
  for (const auto& domain : fs::directory_iterator(kb_dir)) {
    if (!domain.is_directory()) continue;
    for (const auto& f : fs::directory_iterator(domain.path()))
      if (f.path().extension() == ".json")
        on_disk.insert(domain.path().filename().string() + "/" + f.path().stem().string());
  }
  std::set<std::string> compiled;
  for (const auto& e : kb::entries()) compiled.insert(e.id);
  EXPECT_EQ(on_disk, compiled);
}
#endif

TEST(Kb, FindWorks) {
  for (const auto& e : kb::entries()) {
    const Entry* found = kb::find(e.id);
    ASSERT_NE(found, nullptr) << e.id;
    EXPECT_EQ(found, &e);
  }
  EXPECT_EQ(kb::find("cuda/no-such-entry"), nullptr);
  EXPECT_EQ(kb::find(""), nullptr);
  EXPECT_EQ(kb::find("cuda/cudnn-bn-epsilon"), nullptr);  // prefix of real ids
  EXPECT_EQ(kb::find("CUDA/cudnn-bn-epsilon-zero"), nullptr);
}

TEST(Kb, TransitionGraphTargetsExist) {
  for (const auto& e : kb::entries()) {
    const auto& graph = e.data->at("transition_graph");
    for (const char* edge : {"leads_to", "preceded_by", "frequently_confused_with"})
      for (const auto& target : graph.at(edge)) {
        EXPECT_NE(kb::find(target.get<std::string>()), nullptr) << e.id << " -> " << target;
        EXPECT_NE(target.get<std::string>(), e.id);
      }
  }
  // The four batch-norm epsilon entries are linked to each other.
  const auto& too_small = must_find(kTooSmall).data->at("transition_graph");
  EXPECT_NE(too_small.dump().find(kZero), std::string::npos);
  EXPECT_NE(too_small.dump().find(kNegative), std::string::npos);
  EXPECT_NE(too_small.dump().find(kClamped), std::string::npos);
}

TEST(Kb, RegexCompilesAndMatchesSignature) {
  for (const auto& e : kb::entries()) {
    const std::string re = e.data->at("regex").get<std::string>();
    if (re.empty()) continue;
    SCOPED_TRACE(e.id);
    std::regex compiled;
    ASSERT_NO_THROW(compiled = std::regex(re, std::regex::ECMAScript));
    EXPECT_TRUE(std::regex_search(e.signature, compiled)) << re;
  }
  // Real messages the error entries must recognise.
  const std::regex too_small(must_find(kTooSmall).data->at("regex").get<std::string>());
  EXPECT_TRUE(std::regex_search("RuntimeError: cuDNN error: CUDNN_STATUS_BAD_PARAM (batch_norm)", too_small));
  EXPECT_TRUE(std::regex_search("RuntimeError('cuDNN does not allow an eps value less than 1e-5.')", too_small));
  EXPECT_FALSE(std::regex_search("CUDNN_STATUS_BAD_PARAM in cudnnConvolutionForward", too_small));
  const std::regex negative(must_find(kNegative).data->at("regex").get<std::string>());
  EXPECT_TRUE(std::regex_search(
      "{{function_node __wrapped__FusedBatchNormGradV3_device_/job:localhost/replica:0/task:0/device:GPU:0}} "
      "cuDNN launch failure : input shape ([4,10,10,2]) [Op:FusedBatchNormGradV3] name:",
      negative));
}

TEST(Kb, RenderMarkdownEnglish) {
  const Entry& e = must_find(kTooSmall);
  const std::string md = kb::render_markdown(e, Lang::En);
  expect_clean_markdown(md, e.id);
  EXPECT_EQ(md.rfind("# " + e.signature + "\n", 0), 0u);
  for (const char* heading : {"## Root Cause", "## Version Compatibility", "## Workarounds", "## Dead Ends",
                              "## Related Entries", "## Sources"})
    EXPECT_TRUE(contains(md, std::string("\n") + heading + "\n")) << heading;
  EXPECT_TRUE(contains(md, "- **ID:** `cuda/cudnn-bn-epsilon-too-small`"));
  EXPECT_TRUE(contains(md, "- **Error Code:** `CUDNN_STATUS_BAD_PARAM`"));
  EXPECT_TRUE(contains(md, "- **Verification:** source_verified"));
  // The authors' confidence and fix-rate estimates cite nothing a reader can check: not shown.
  EXPECT_FALSE(contains(md, "Confidence"));
  EXPECT_FALSE(contains(md, "Fix Rate"));
  EXPECT_TRUE(contains(md, "| Version | Status | Introduced | Deprecated |"));
  EXPECT_TRUE(contains(md, "| cuDNN 4.x – 7.4.x | affected |"));
  EXPECT_TRUE(contains(md, "1. **Use cuDNN 7.5.0 or later"));
  EXPECT_TRUE(contains(md, "(95% success)"));
  EXPECT_TRUE(contains(md, "   ```\n"));  // `how` differs from `action`: fenced, indented under the item
  EXPECT_TRUE(contains(md, "- **Set epsilon to exactly 1e-5, the documented minimum** — "));
  EXPECT_TRUE(contains(md, "(70% fail)"));
  EXPECT_TRUE(contains(md, "- **Frequently confused with:** `cuda/cudnn-bn-epsilon-negative`"));
  EXPECT_TRUE(contains(md, "[tensorflow/tensorflow#37768"));
  EXPECT_TRUE(contains(md, e.root_cause.substr(0, 60)));
  EXPECT_FALSE(contains(md, "根本原因"));
}

TEST(Kb, RenderMarkdownChinese) {
  const Entry& e = must_find(kTooSmall);
  const std::string md = kb::render_markdown(e, Lang::Zh);
  expect_clean_markdown(md, e.id);
  const std::string title = e.data->at("signature_zh").get<std::string>();
  EXPECT_EQ(md.rfind("# " + title + "\n", 0), 0u);
  for (const char* heading : {"## 根本原因", "## 版本兼容性", "## 解决方法", "## 无效尝试", "## 相关条目", "## 参考来源"})
    EXPECT_TRUE(contains(md, std::string("\n") + heading + "\n")) << heading;
  EXPECT_TRUE(contains(md, "| 版本 | 状态 | 引入 | 弃用 |"));
  EXPECT_TRUE(contains(md, "受影响"));
  EXPECT_TRUE(contains(md, "（成功率 95%）"));
  EXPECT_TRUE(contains(md, "（失败率 70%）"));
  EXPECT_TRUE(contains(md, e.data->at("root_cause_zh").get<std::string>().substr(0, 60)));
  EXPECT_TRUE(contains(md, e.data->at("workarounds_zh")[0].get<std::string>()));
  EXPECT_TRUE(contains(md, e.data->at("dead_ends_zh")[0].get<std::string>().substr(0, 30)));
  EXPECT_FALSE(contains(md, "## Root Cause"));
  EXPECT_FALSE(contains(md, e.root_cause.substr(0, 60)));  // the English text is replaced, not added
}

TEST(Kb, EveryEntryRendersCleanlyInBothLanguages) {
  for (const auto& e : kb::entries()) {
    for (Lang lang : {Lang::En, Lang::Zh}) {
      const std::string md = kb::render_markdown(e, lang);
      expect_clean_markdown(md, e.id + (lang == Lang::Zh ? " zh" : " en"));
      EXPECT_TRUE(contains(md, e.id));
      EXPECT_TRUE(valid_utf8(md)) << e.id;
    }
  }
}

TEST(Kb, SparseEntryRendersWithoutEmptyMarkup) {
  const Entry e = kb::make_entry(sparse_entry());
  EXPECT_EQ(e.id, "cuda/sparse-test");
  EXPECT_EQ(e.error_code, "");  // null reads as empty
  EXPECT_EQ(e.official_doc_url, "");

  const std::string md = kb::render_markdown(e, Lang::En);
  expect_clean_markdown(md, "sparse en");
  EXPECT_TRUE(contains(md, "# RuntimeError: something failed\n"));
  // Rates are shown only where the item cites its sources (none here).
  EXPECT_TRUE(contains(md, "- A large epsilon hurts accuracy.\n"));
  EXPECT_TRUE(contains(md, "- **Ignore the error**\n"));
  EXPECT_TRUE(contains(md, "1. **Set eps to 1e-5.**\n"));
  EXPECT_FALSE(contains(md, "% success") || contains(md, "% fail"));
  EXPECT_TRUE(contains(md, "2. **Patch the layer**\n   ```\n   layer.eps = 1e-5\n   layer.reset()\n   ```\n"));
  EXPECT_FALSE(contains(md, "   Set eps to 1e-5.\n"));  // how == action: no fenced copy
  EXPECT_FALSE(contains(md, "3."));                     // the empty workaround is dropped
  EXPECT_FALSE(contains(md, "Version Compatibility"));
  EXPECT_FALSE(contains(md, "Related Entries"));
  EXPECT_FALSE(contains(md, "## Sources"));
  EXPECT_FALSE(contains(md, "Error Code"));
  EXPECT_FALSE(contains(md, "Confidence"));
  EXPECT_FALSE(contains(md, "Official docs"));
  EXPECT_FALSE(contains(md, "Fix Rate"));
  EXPECT_TRUE(contains(md, "- **Category:** runtime_error\n"));

  const std::string zh = kb::render_markdown(e, Lang::Zh);
  expect_clean_markdown(zh, "sparse zh");
  EXPECT_TRUE(contains(zh, "# RuntimeError: something failed\n"));  // empty signature_zh falls back
  EXPECT_TRUE(contains(zh, "## 根本原因\n\nSparse root cause text.\n"));
  EXPECT_TRUE(contains(zh, "1. **Set eps to 1e-5.**\n"));
  EXPECT_TRUE(contains(zh, "- A large epsilon hurts accuracy.\n"));
}

TEST(Kb, SeedShapedEntryNeverRendersEmptyBold) {
  // The seed's own dead ends (empty actions) must not reproduce its "- **** — ..." lines.
  json seed = sparse_entry();
  seed["dead_ends"] = json::parse(R"([
    {"action": "", "why_fails": "While it avoids the BAD_PARAM error, a large epsilon reduces accuracy.", "fail_rate": 0.3, "condition": "", "sources": []},
    {"action": "", "why_fails": "The error halts execution immediately.", "fail_rate": 1.0, "condition": "", "sources": []}
  ])");
  const std::string md = kb::render_markdown(kb::make_entry(seed), Lang::En);
  EXPECT_FALSE(contains(md, "****"));
  EXPECT_TRUE(contains(md, "- While it avoids the BAD_PARAM error, a large epsilon reduces accuracy.\n"));
  EXPECT_TRUE(contains(md, "- The error halts execution immediately.\n"));
  // With a source, the rate is shown.
  seed["dead_ends"][0]["sources"] = json::parse(R"([{"title": "a measurement", "url": null}])");
  const std::string cited = kb::render_markdown(kb::make_entry(seed), Lang::En);
  EXPECT_TRUE(contains(cited, "- While it avoids the BAD_PARAM error, a large epsilon reduces accuracy. (30% fail)\n")) << cited;
}

TEST(Kb, MalformedEntriesDoNotCrashTheRenderer) {
  Entry no_data;
  no_data.id = "cuda/no-data";
  const std::string md = kb::render_markdown(no_data, Lang::En);
  EXPECT_EQ(md, "# cuda/no-data\n\n- **ID:** `cuda/no-data`\n");

  Entry nothing;
  expect_clean_markdown(kb::render_markdown(nothing, Lang::En), "empty Entry");
  expect_clean_markdown(kb::render_markdown(nothing, Lang::Zh), "empty Entry zh");

  const Entry wrong_types = kb::make_entry(json::parse(R"({
    "id": "cuda/wrong-types", "signature": 42, "versions": "cuDNN 9", "dead_ends": 5,
    "workarounds": {"action": "x"}, "workarounds_zh": "x", "transition_graph": [], "sources": [1, null, {}],
    "tags": [null, "ok"], "confidence": "high", "os_specific": {"linux": null, "windows": "Use WSL."}
  })"));
  const std::string w = kb::render_markdown(wrong_types, Lang::En);
  expect_clean_markdown(w, "wrong types");
  EXPECT_TRUE(contains(w, "- **windows:** Use WSL."));
  EXPECT_TRUE(contains(w, "`ok`"));
}

TEST(Kb, ShortDescription) {
  for (const auto& e : kb::entries()) {
    const std::string s = kb::short_description(e);
    EXPECT_FALSE(s.empty()) << e.id;
    EXPECT_LE(s.size(), 1000u) << e.id;
    EXPECT_EQ(s.find('\n'), std::string::npos) << e.id;
    EXPECT_TRUE(valid_utf8(s)) << e.id;
  }
  EXPECT_EQ(kb::short_description(must_find(kTooSmall)), must_find(kTooSmall).signature);

  // Long multi-byte text is cut on a character boundary.
  json long_entry = sparse_entry();
  std::string sig = "x";
  for (int i = 0; i < 1500; ++i) sig += "é";  // 2 bytes each, odd offset
  long_entry["signature"] = sig + "\nsecond line";
  const std::string s = kb::short_description(kb::make_entry(long_entry));
  EXPECT_LE(s.size(), 1000u);
  EXPECT_GT(s.size(), 900u);
  EXPECT_TRUE(valid_utf8(s));
  EXPECT_EQ(s.find('\n'), std::string::npos);

  // Falls back when there is no signature.
  json no_sig = sparse_entry();
  no_sig["signature"] = "";
  EXPECT_EQ(kb::short_description(kb::make_entry(no_sig)), "Sparse root cause text.");
  Entry bare;
  bare.id = "cuda/bare";
  EXPECT_EQ(kb::short_description(bare), "cuda/bare");
}

TEST(Kb, ParseLang) {
  EXPECT_EQ(kb::parse_lang("en"), Lang::En);
  EXPECT_EQ(kb::parse_lang("zh"), Lang::Zh);
  EXPECT_EQ(kb::parse_lang("EN"), Lang::En);
  EXPECT_EQ(kb::parse_lang("zh-CN"), Lang::Zh);
  EXPECT_EQ(kb::parse_lang("zh_Hans"), Lang::Zh);
  EXPECT_EQ(kb::parse_lang("en-US"), Lang::En);
  EXPECT_EQ(kb::parse_lang(""), std::nullopt);
  EXPECT_EQ(kb::parse_lang("fr"), std::nullopt);
  EXPECT_EQ(kb::parse_lang("english"), std::nullopt);
  EXPECT_EQ(kb::parse_lang("zh-"), std::nullopt);
  EXPECT_EQ(kb::parse_lang("e"), std::nullopt);
}

TEST(Kb, EntryPathFilter) {
  EXPECT_TRUE(kb::is_entry_path("kb/cuda/cudnn-bn-epsilon-zero.json"));
  EXPECT_FALSE(kb::is_entry_path("kb/schema.json"));
  EXPECT_FALSE(kb::is_entry_path("rules/api_table.json"));
  EXPECT_FALSE(kb::is_entry_path("kb/cuda/deeper/x.json"));
  EXPECT_FALSE(kb::is_entry_path("kb/cuda/.json"));
  EXPECT_FALSE(kb::is_entry_path("kb//x.json"));
  EXPECT_FALSE(kb::is_entry_path("kb/cuda/x.json.bak"));
}

TEST(Kb, LoadEntriesReportsTheBrokenPath) {
  const cudnnlint::EmbeddedFile broken[] = {
      {"rules/api_table.json", "this is not json and is skipped"},
      {"kb/schema.json", "{ also skipped"},
      {"kb/cuda/good.json", R"({"id": "cuda/good", "signature": "s"})"},
      {"kb/cuda/broken.json", R"({"id": "cuda/broken", )"},
  };
  try {
    kb::load_entries(broken);
    ADD_FAILURE() << "expected std::runtime_error";
  } catch (const std::runtime_error& ex) {
    EXPECT_TRUE(contains(ex.what(), "kb/cuda/broken.json")) << ex.what();
  }

  const cudnnlint::EmbeddedFile no_id[] = {{"kb/cuda/x.json", R"({"signature": "s"})"}};
  EXPECT_THROW(kb::load_entries(no_id), std::runtime_error);

  const cudnnlint::EmbeddedFile duplicate[] = {{"kb/cuda/a.json", R"({"id": "cuda/a"})"},
                                               {"kb/cuda/b.json", R"({"id": "cuda/a"})"}};
  try {
    kb::load_entries(duplicate);
    ADD_FAILURE() << "expected std::runtime_error";
  } catch (const std::runtime_error& ex) {
    EXPECT_TRUE(contains(ex.what(), "kb/cuda/a.json") && contains(ex.what(), "kb/cuda/b.json")) << ex.what();
  }

  const cudnnlint::EmbeddedFile ok[] = {{"rules/api_table.json", "not json"},
                                        {"kb/tensorflow/z.json", R"({"id": "tensorflow/z"})"},
                                        {"kb/cuda/a.json", R"({"id": "cuda/a", "signature": "sig"})"}};
  const auto loaded = kb::load_entries(ok);
  ASSERT_EQ(loaded.size(), 2u);
  EXPECT_EQ(loaded[0].id, "cuda/a");
  EXPECT_EQ(loaded[0].signature, "sig");
  EXPECT_EQ(loaded[1].id, "tensorflow/z");
}

// ---------------------------------------------------------------------------------------------
// Content: the corrections the research made to the seed must hold.

TEST(KbContent, TooSmallStatesCudnn75AndNoBadParamOnCudnn9) {
  const Entry& e = must_find(kTooSmall);
  EXPECT_EQ(e.error_code, "CUDNN_STATUS_BAD_PARAM");
  EXPECT_EQ(e.verification_tier, "source_verified");
  EXPECT_TRUE(contains(e.root_cause, "7.5.0"));
  EXPECT_TRUE(contains(e.root_cause, "0.0"));
  EXPECT_TRUE(contains(e.root_cause, "falls back"));         // PyTorch native fallback
  EXPECT_TRUE(contains(e.root_cause, "9.99999974e-06"));     // the float32(1e-5) trap
  EXPECT_FALSE(contains(e.root_cause, "requires epsilon to be at least 1e-5"));  // the seed's claim
  EXPECT_TRUE(contains(e.signature, "7.5"));

  bool old_cudnn_affected = false, new_cudnn_listed = false;
  for (const auto& v : e.data->at("versions")) {
    const std::string version = v.at("version").get<std::string>();
    const std::string status = v.at("status").is_string() ? v.at("status").get<std::string>() : "";
    const bool is_cudnn = version.rfind("cuDNN ", 0) == 0;
    if (is_cudnn && contains(version, "7.4")) {
      EXPECT_EQ(status, "affected") << version;
      old_cudnn_affected = true;
    }
    if (is_cudnn && (contains(version, "7.5") || contains(version, "8.") || contains(version, "9."))) {
      EXPECT_EQ(status, "not_affected") << version;
      new_cudnn_listed = true;
    }
    // No row claims the failure on cuDNN 8 or 9.
    if (status == "affected" || status == "active") {
      EXPECT_FALSE(contains(version, "cuDNN 8")) << version;
      EXPECT_FALSE(contains(version, "cuDNN 9")) << version;
      EXPECT_FALSE(contains(version, "cuDNN >= 7.5")) << version;
    }
  }
  EXPECT_TRUE(old_cudnn_affected);
  EXPECT_TRUE(new_cudnn_listed);

  const std::string md = kb::render_markdown(e, Lang::En);
  EXPECT_TRUE(contains(md, "| cuDNN 9.x (headers: 9.19.0; measured: 9.14.0, 9.19.0 on H100) | not affected |"));
}

TEST(KbContent, EpsilonEntriesAreSourcedAndTranslated) {
  for (const char* id : {kTooSmall, kNegative, kZero, kClamped}) {
    SCOPED_TRACE(id);
    const Entry& e = must_find(id);
    const json& d = *e.data;
    // The entries the execution tier measured on a GPU say so, the clamp's was measured on the
    // TensorFlow CPU wheels (tests/probes/tf_bn_clamp.py); the others rest on cited sources.
    const bool measured = std::string_view(id) == kNegative || std::string_view(id) == kZero;
    const bool framework_measured = std::string_view(id) == kClamped;
    EXPECT_EQ(e.verification_tier,
              measured ? "gpu_measured" : (framework_measured ? "framework_measured" : "source_verified"));
    if (measured) {
      EXPECT_TRUE(contains(d.at("sources").dump(), "H100")) << "a measurement names its device";
    }
    if (framework_measured) {
      EXPECT_TRUE(contains(e.root_cause, "tests/probes/tf_bn_clamp.py")) << "a measurement names its probe";
      EXPECT_TRUE(contains(e.root_cause, "2.11.1")) << "and the versions it ran";
    }
    EXPECT_GE(d.at("sources").size(), 5u);
    EXPECT_EQ(d.at("evidence_count").get<size_t>(), d.at("sources").size());
    EXPECT_FALSE(d.at("signature_zh").get<std::string>().empty());
    EXPECT_FALSE(d.at("root_cause_zh").get<std::string>().empty());
    EXPECT_EQ(d.at("workarounds_zh").size(), d.at("workarounds").size());
    EXPECT_EQ(d.at("dead_ends_zh").size(), d.at("dead_ends").size());
    EXPECT_FALSE(d.at("versions").empty());
    for (const auto& de : d.at("dead_ends")) EXPECT_FALSE(de.at("action").get<std::string>().empty());
  }
}

TEST(KbContent, NegativeZeroAndClampEntries) {
  const Entry& neg = must_find(kNegative);
  EXPECT_EQ(neg.error_code, "CUDNN_STATUS_BAD_PARAM");
  EXPECT_TRUE(contains(neg.root_cause, "every cuDNN"));
  EXPECT_TRUE(contains(neg.root_cause, "cuDNN launch failure"));
  EXPECT_TRUE(contains(neg.root_cause, "NaN"));

  const Entry& zero = must_find(kZero);
  EXPECT_EQ(zero.error_code, "NaN/Inf");
  // Measured on a GPU now: the entry says what cuDNN did, and on what, instead of UNCONFIRMED.
  EXPECT_FALSE(contains(zero.root_cause, "UNCONFIRMED"));
  EXPECT_TRUE(contains(zero.root_cause, "CUDNN_STATUS_SUCCESS and write NaN/Inf"));
  EXPECT_TRUE(contains(zero.root_cause, "9.19.0"));
  EXPECT_TRUE(contains(zero.root_cause, "batch_norm eps must be positive"));
  EXPECT_EQ(zero.verification_tier, "gpu_measured");
  EXPECT_EQ(neg.verification_tier, "gpu_measured");
  EXPECT_TRUE(contains(zero.root_cause, "1/sqrt(0)"));
  EXPECT_TRUE(contains(zero.root_cause, "guard"));
  EXPECT_FALSE(contains(zero.signature, "BAD_PARAM"));

  const Entry& clamp = must_find(kClamped);
  EXPECT_TRUE(contains(clamp.root_cause, "1.001e-5"));
  EXPECT_TRUE(contains(clamp.root_cause, "Keras 3"));
  EXPECT_TRUE(contains(clamp.data->dump(), "fused=False"));
  EXPECT_EQ(clamp.error_code, "");  // silent: no error code
}

}  // namespace
