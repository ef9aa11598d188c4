// Config files as code reads them: key paths with positions, both number readings (PyYAML's
// YAML 1.1 and literal_eval/OmegaConf's), interpolations, Hydra targets, and errors as values.
#include "config/config_file.h"

#include <gtest/gtest.h>

#include <cmath>

namespace cudnnlint::config {
namespace {

ConfigDocument parse_ok(const std::string& path, const std::string& text) {
  auto parsed = ConfigDocument::parse(SourceFile(path, text));
  if (auto* diag = std::get_if<FileDiagnostic>(&parsed)) ADD_FAILURE() << diag->message;
  return std::get<ConfigDocument>(std::move(parsed));
}

TEST(ConfigNumbers, YamlOneOneAgainstLiteralEval) {
  // Measured with PyYAML 6.0.2 and OmegaConf 2.3.0.
  EXPECT_FALSE(yaml11_number("1e-6").has_value());  // a string to PyYAML
  EXPECT_DOUBLE_EQ(*python_literal_number("1e-6"), 1e-6);
  EXPECT_DOUBLE_EQ(*yaml11_number("1.0e-6"), 1e-6);
  EXPECT_FALSE(yaml11_number("1.0e6").has_value());  // YAML 1.1 wants the exponent's sign
  EXPECT_DOUBLE_EQ(*yaml11_number(".5"), 0.5);
  EXPECT_DOUBLE_EQ(*yaml11_number("0x10"), 16.0);
  EXPECT_DOUBLE_EQ(*yaml11_number("1_000"), 1000.0);
  EXPECT_DOUBLE_EQ(*yaml11_number("-1.0e-3"), -1e-3);
  EXPECT_DOUBLE_EQ(*python_literal_number("-1e-3"), -1e-3);
  EXPECT_FALSE(python_literal_number("abc").has_value());
  EXPECT_FALSE(yaml11_number("").has_value());
}

TEST(ConfigNumbers, InfinityAndNaNAsEachReaderSpellsThem) {
  // PyYAML 6.0.3: .inf, +.inf, -.Inf, .INF and .NaN are floats; -.nan and inf are strings.
  EXPECT_EQ(*yaml11_number(".inf"), HUGE_VAL);
  EXPECT_EQ(*yaml11_number("+.Inf"), HUGE_VAL);
  EXPECT_EQ(*yaml11_number("-.INF"), -HUGE_VAL);
  EXPECT_TRUE(std::isnan(*yaml11_number(".NaN")));
  EXPECT_FALSE(yaml11_number("-.nan").has_value());
  EXPECT_FALSE(yaml11_number("inf").has_value());
  EXPECT_FALSE(yaml11_number(".Nan").has_value());
  // Python's json module: NaN, Infinity, -Infinity.
  EXPECT_TRUE(std::isnan(*json_number("NaN")));
  EXPECT_EQ(*json_number("-Infinity"), -HUGE_VAL);
  EXPECT_FALSE(json_number("nan").has_value());
  const auto doc = parse_ok("c.json", R"({"model": {"bn_eps": NaN}})");
  ASSERT_NE(doc.find("model.bn_eps"), nullptr);
  EXPECT_TRUE(std::isnan(*doc.find("model.bn_eps")->yaml_number));
}

TEST(ConfigNumbers, AMegabyteScalarIsMatchedWithoutRecursion) {
  // Issue 33: std::regex recursed once per character and overflowed the stack on such a scalar.
  const std::string digits(3'000'000, '1');
  EXPECT_FALSE(yaml11_number(digits).has_value());  // a number, but too large for a double
  EXPECT_DOUBLE_EQ(*python_literal_number("0." + std::string(3'000'000, '0')), 0.0);
  EXPECT_FALSE(python_literal_number(digits + "x").has_value());
}

TEST(ConfigDocument, KeyPathsPositionsAndSequences) {
  const auto doc = parse_ok("c.yaml", "model:\n  bn_eps: 1.0e-5\n  layers:\n    - eps: 0.0\n    - eps: '0.1'\n");
  const ConfigScalar* eps = doc.find("model.bn_eps");
  ASSERT_NE(eps, nullptr);
  EXPECT_DOUBLE_EQ(*eps->yaml_number, 1e-5);
  EXPECT_EQ(eps->where.range.begin.line, 2u);
  EXPECT_EQ(eps->where.range.begin.column, 11u);
  EXPECT_EQ(eps->key_where.range.begin.column, 3u);
  ASSERT_NE(doc.find("model.layers.0.eps"), nullptr);
  const ConfigScalar* quoted = doc.find("model.layers.1.eps");
  ASSERT_NE(quoted, nullptr);
  EXPECT_TRUE(quoted->quoted);
  EXPECT_FALSE(quoted->yaml_number.has_value());
  EXPECT_EQ(doc.find("model.missing"), nullptr);
}

TEST(ConfigDocument, JsonNumbersAreNumbers) {
  const auto doc = parse_ok("config.json", "{\"batch_norm_eps\": 1e-6, \"name\": \"1e-6\"}");
  EXPECT_DOUBLE_EQ(*doc.find("batch_norm_eps")->yaml_number, 1e-6);
  EXPECT_FALSE(doc.find("name")->yaml_number.has_value());
  EXPECT_EQ(doc.format(), ConfigDocument::Format::Json);
}

TEST(ConfigDocument, InterpolationsResolveWithinTheFile) {
  const auto doc = parse_ok("c.yaml",
                            "base: 0.0\nmodel:\n  eps: ${base}\n  rel: ${.eps}\n  up: ${..base}\n  env: ${oc.env:EPS}\n");
  std::vector<ProvenanceStep> steps;
  const ConfigScalar* end = doc.resolve(*doc.find("model.rel"), steps);
  ASSERT_NE(end, nullptr);
  EXPECT_EQ(end->dotted(), "base");
  EXPECT_EQ(steps.size(), 3u);  // rel -> model.eps -> base, and where base is set
  std::vector<ProvenanceStep> none;
  EXPECT_EQ(doc.resolve(*doc.find("model.up"), none)->dotted(), "base");
  EXPECT_EQ(doc.resolve(*doc.find("model.env"), none), nullptr);  // a resolver: not this file's value
}

TEST(ConfigDocument, InterpolationsFromTheRootAndUnderAMount) {
  // A document that is one scalar has no siblings: `${.x}` there resolves to nothing (it once
  // popped an empty path).
  const auto root = parse_ok("r.yaml", "--- ${.x}\n");
  ASSERT_EQ(root.scalars().size(), 1u);
  std::vector<ProvenanceStep> steps;
  EXPECT_EQ(root.resolve(root.scalars()[0], steps), nullptr);
  const auto self = parse_ok("s.yaml", "bn_eps: ${.}\n");
  EXPECT_EQ(self.resolve(*self.find("bn_eps"), steps), nullptr);
  // In a file Hydra mounts at `model`, `${model.base}` is the file's own `base`.
  const auto group = parse_ok("conf/model/r.yaml", "base: 0.0\nbn_eps: ${model.base}\n");
  steps.clear();
  EXPECT_EQ(group.resolve(*group.find("bn_eps"), steps), nullptr);  // no mount given: not in this file
  const std::vector<std::string> mounts{"", "model"};
  steps.clear();
  const ConfigScalar* value = group.resolve(*group.find("bn_eps"), steps, mounts);
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(value, group.find("base"));
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps.back().what, "base: 0.0 is set here");
}

TEST(ConfigDocument, TheLastOfRepeatedKeysWinsAndOnlyTheFirstDocumentIsRead) {
  const auto doc = parse_ok("d.yaml",
                            "a:\n  eps: -1.0\n  deep: {x: 1}\na:\n  eps: 1.0e-3\nb: {eps: -1.0}\nb: 3\n---\nc: {eps: -1.0}\n");
  ASSERT_NE(doc.find("a.eps"), nullptr);
  EXPECT_DOUBLE_EQ(*doc.find("a.eps")->yaml_number, 1e-3);  // PyYAML keeps the last value
  EXPECT_EQ(doc.find("a.deep.x"), nullptr);                  // the whole first mapping is replaced
  EXPECT_EQ(doc.find("b.eps"), nullptr);                     // replaced by a scalar
  ASSERT_NE(doc.find("b"), nullptr);
  EXPECT_EQ(doc.find("c.eps"), nullptr);                     // a second document is not read
}

TEST(ConfigDocument, HydraTargetsAndPackage) {
  const auto doc = parse_ok("conf/model/bn.yaml",
                            "# @package _global_\nnorm:\n  _target_: torch.nn.BatchNorm2d\n  num_features: 64\n"
                            "  eps: 0.0\nargs_form:\n  _target_: torch.nn.BatchNorm1d\n  _args_: [8, -1.0]\n");
  EXPECT_EQ(doc.package(), "_global_");
  ASSERT_EQ(doc.targets().size(), 2u);
  EXPECT_EQ(doc.targets()[0].target, "torch.nn.BatchNorm2d");
  EXPECT_EQ(doc.targets()[0].keywords.size(), 2u);
  EXPECT_EQ(doc.targets()[1].positional.size(), 2u);
  EXPECT_DOUBLE_EQ(*doc.scalars()[doc.targets()[1].positional[1]].yaml_number, -1.0);
}

TEST(ConfigDocument, MalformedAndTooDeepAreErrorsNamingTheFile) {
  auto broken = ConfigDocument::parse(SourceFile("bad.yaml", "a: [1, 2\nb: {\n"));
  ASSERT_TRUE(std::holds_alternative<FileDiagnostic>(broken));
  const auto& diag = std::get<FileDiagnostic>(broken);
  EXPECT_EQ(diag.path, "bad.yaml");
  EXPECT_NE(diag.message.find("malformed YAML"), std::string::npos);
  auto deep = ConfigDocument::parse(SourceFile("deep.json", std::string(300, '[') + std::string(300, ']')));
  ASSERT_TRUE(std::holds_alternative<FileDiagnostic>(deep));
  EXPECT_NE(std::get<FileDiagnostic>(deep).message.find("nested"), std::string::npos);
  EXPECT_TRUE(nested_too_deep(std::string(kMaxConfigNesting + 1, '{')));
  EXPECT_FALSE(nested_too_deep(std::string(kMaxConfigNesting, '[') + "]]]" + std::string(3, '[')));
  // Aliases are not expanded (no blow-up), and an alias is no value.
  const auto aliases = parse_ok("a.yaml", "x: &a [1, 2]\ny: *a\nz: 3\n");
  EXPECT_EQ(aliases.find("y"), nullptr);
  EXPECT_NE(aliases.find("z"), nullptr);
}

}  // namespace
}  // namespace cudnnlint::config
