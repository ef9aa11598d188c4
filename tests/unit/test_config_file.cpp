// Config files as code reads them: key paths with positions, both number readings (PyYAML's
// YAML 1.1 and literal_eval/OmegaConf's), interpolations, Hydra targets, and errors as values.
#include "config/config_file.h"

#include <gtest/gtest.h>

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
  EXPECT_EQ(steps.size(), 2u);  // rel -> model.eps -> base
  std::vector<ProvenanceStep> none;
  EXPECT_EQ(doc.resolve(*doc.find("model.up"), none)->dotted(), "base");
  EXPECT_EQ(doc.resolve(*doc.find("model.env"), none), nullptr);  // a resolver: not this file's value
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
  // Aliases are not expanded (no blow-up), and an alias is no value.
  const auto aliases = parse_ok("a.yaml", "x: &a [1, 2]\ny: *a\nz: 3\n");
  EXPECT_EQ(aliases.find("y"), nullptr);
  EXPECT_NE(aliases.find("z"), nullptr);
}

}  // namespace
}  // namespace cudnnlint::config
