// GitHub code scanning's partialFingerprints.primaryLocationLineHash, computed exactly as
// codeql-action's fingerprints.ts does (reference: shared/tools/primary_location_line_hash.py):
// a base-37 rolling hash over the next 100 non-space, non-tab UTF-16 code units from the
// start of each line, CR and CRLF read as LF, suffixed with ":<n>" counting repeats.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cudnnlint {

// One "hash:count" per line of `utf8_text`; element 0 is line 1.
std::vector<std::string> primary_location_line_hashes(std::string_view utf8_text);

}  // namespace cudnnlint
