// Deciding which parts of a module to parse. Parsing is the cost, and in a file that names an
// API of the run's families most top-level functions and classes cannot matter: only imports, module
// statements (constants, aliases, partials) and the definitions that mention a trigger token
// or a name bound to one can produce facts. The rest is left out of the parse through
// tree-sitter's included ranges; the names those definitions bind are still recorded, so
// constant folding sees exactly the bindings a full parse would.
#pragma once

#include "core/text_search.h"  // has_small_float_literal

#include <tree_sitter/api.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cudnnlint::python {

struct TopLevelChunk {
  std::uint32_t begin = 0;   // byte offset of the statement's first line (decorators included)
  std::uint32_t end = 0;     // byte offset where the next statement starts
  bool is_definition = false;  // def / async def / class
  bool is_class = false;
  std::string_view name;     // the definition's name
};

// Splits a module into top-level statements with a small lexer that follows brackets,
// strings, comments and line continuations. nullopt when the text confuses it (unbalanced
// brackets, an unterminated string): the caller then parses everything.
std::optional<std::vector<TopLevelChunk>> split_top_level(std::string_view source);

struct ParsePlan {
  std::vector<TSRange> ranges;                   // what to parse, in order
  std::vector<std::string_view> skipped_names;   // names bound by the definitions left out
  std::size_t parsed_bytes = 0;
  // No statement can produce a fact (the file was chosen for words that only its comments hold, or
  // for the two halves of a pair that no one definition holds): nothing needs parsing.
  bool nothing_relevant = false;
};

// Words that make a chunk relevant only together: one of `first` and one of `second` in the same
// definition (a dtype source such as `randint` and a layer such as `Conv2d`), or both among the
// module's own statements. `second` may hold kSmallFloatLiteral: a float literal written with an
// exponent of -5 or below (`1e-8`), the epsilons that vanish in float16.
struct WordPair {
  std::vector<std::string> first;
  std::vector<std::string> second;
  bool first_anywhere = false;  // `first` may sit anywhere in the file, strings included
  // Whether a class may hold the pair. Most pairs are read from a function's own statements
  // (`x = torch.randint(...)` then `conv(x)`), which in a class are a method's; a class is one
  // chunk, and a model class naming both `torch.long` and `nn.Conv2d` somewhere is common.
  bool classes = false;
  // A class of the file naming a word of `second` (a model class building nn.Conv2d) counts as a
  // word of `second` itself where its name is used (`model = Net()`); it is then parsed too.
  bool second_classes = false;
  // With second_classes: `second`'s words mark the classes that stand for the second half, and
  // count only through them (a function naming `randn` and `nn.Conv2d` is not a pair; one naming
  // `randn` and a model class building nn.Conv2d is).
  bool second_only_through_classes = false;
  // Whether one method of a class holding both halves makes the class relevant (then that method is
  // kept), for a pair `classes` leaves out. Off where the halves meet in methods that produce no
  // fact far more often than in those that do (a model class's __init__ holding `torch.zeros` for
  // a parameter and a block class's name).
  bool methods = true;
  // In a method, a word of `second` counts only where it is called or constructed (`Conv2d(`): a
  // model class's `_init_weights` naming `nn.Conv1d` in an isinstance test next to `torch.int64`
  // holds no integer input to a convolution.
  bool second_called_in_methods = false;
  // Whether __init__ counts among those methods. Not where the extractor reads what a method applies
  // (a layer run on a tensor): __init__ builds layers and parameters (`nn.Sequential(...)`,
  // `torch.zeros(...)` for a parameter) and applies none.
  bool init_counts = true;
  // A module-level function that a relevant chunk calls is parsed whole when it names a word of a
  // pair's half (the extractors follow calls into such helpers), or one of these: what a helper
  // returning a value the extractor reads may name without naming a half (`np` for
  // `def load(): return np.random.rand(8, 3)`).
  std::vector<std::string> helper_words = {};
  // Whether a class a relevant chunk uses is parsed whole too, as such a function is, when it names
  // one of helper_words (a Keras layer class whose `call` applies `layers.Activation`, on the way
  // of a functional graph).
  bool helper_classes = false;
};
inline constexpr std::string_view kSmallFloatLiteral = "<small float literal>";

// nullopt: parse the whole file (nothing to gain, or the lexer could not split it). A definition
// is kept when it contains one of `trigger_tokens` (substrings, anywhere: quoted registry names),
// names one of `trigger_words` in code (whole identifiers: API leaf names, the project's own
// callables), assigns one of `attributes` on an object (`m.eps = ...`), or uses a name that
// something kept binds, or satisfies one of `pairs`. Without `own_names_count`, a definition's own
// name in its header does not make it relevant (the first pass: a library defining an API is not
// using it); a later pass looking for project callables needs their definitions, so it counts there.
// Without `class_uses_count`, a relevant class's name does not make the code naming it relevant
// (`block = ConvBlock(3)`, `class Net(ConvBlock)`): only the facts of a family that reads a class's
// constructions where they stand need it (Relevance::follows_class_uses).
std::optional<ParsePlan> plan_parse(std::string_view source, const std::vector<std::string>& trigger_tokens,
                                    const std::vector<std::string>& trigger_words,
                                    const std::vector<std::string>& attributes,
                                    const std::vector<WordPair>& pairs = {}, bool own_names_count = true,
                                    bool class_uses_count = true);

// Whether plan_parse would answer nothing_relevant, with the same arguments; answered at the first
// relevant chunk (the language server asks it of its document on every keystroke, and walks the
// tree it keeps when something is relevant).
bool nothing_relevant(std::string_view source, const std::vector<std::string>& trigger_tokens,
                      const std::vector<std::string>& trigger_words, const std::vector<std::string>& attributes,
                      const std::vector<WordPair>& pairs = {}, bool own_names_count = true);

// What to parse of a module to read what it exports (its module-level names: constants, imports):
// every top-level statement but the definitions, except those a kept statement names (a class
// whose attribute a constant reads) and those that rebind a module name (`global`). The names of
// the definitions left out are listed: they still bind their names. nullopt: parse the whole file.
struct ModuleStatementsPlan {
  std::vector<TSRange> ranges;
  std::vector<std::string_view> definition_names;
};
std::optional<ModuleStatementsPlan> plan_module_statements(std::string_view source);
// Whether `text` names `word` as a whole identifier.
bool mentions_identifier(std::string_view text, std::string_view word);

// Whether one method of the class `chunk` may hold both halves of `pair`, read as the planner reads
// a method (code identifiers; `second_called_in_methods`), for the prefilter of files no word chose.
// `first_elsewhere` / `second_elsewhere`: that half counts in every method (an alias the prefilter
// does not follow, a small module constant); `second_words`: more words of the second half (the
// classes standing for it). True when the lexer cannot split the class.
bool a_method_may_hold(std::string_view source, const TopLevelChunk& chunk, const WordPair& pair, bool first_elsewhere,
                       bool second_elsewhere, std::span<const std::string> second_words);

}  // namespace cudnnlint::python

namespace cudnnlint::python {

// A module cut into parts that can be analysed apart (the language server re-analyses only the
// part an edit touched). Two top-level statements are in the same part when one names a name the
// other binds (a class and the code that calls it, a constant and its readers), and every
// module statement that is not a plain import is in one part with all the others (the module's
// own statements are read as one script). Plain imports are in every part's parse.
struct ModuleParts {
  std::vector<TopLevelChunk> chunks;       // the module's top-level statements, in order
  std::vector<std::size_t> shared;         // the plain imports: parsed with every part
  std::vector<std::vector<std::size_t>> parts;  // chunk indices, each in order; parts ordered by first chunk
};

// Where a chunk's first line of code starts: past the comment lines and blank lines above the
// statement, which its chunk holds (chunk.size() when it holds nothing else).
std::size_t code_start(std::string_view chunk);

// nullopt when the text confuses the lexer (the caller analyses the module whole).
std::optional<ModuleParts> split_into_parts(std::string_view source);

// tree-sitter ranges covering `chunks` (indices into parts.chunks, in order), adjacent ones joined.
std::vector<TSRange> ranges_of(std::string_view source, const ModuleParts& parts, std::span<const std::size_t> chunks);

}  // namespace cudnnlint::python
