// Every Location a file's facts hold, visited in place: the language server moves the facts it
// kept for an unchanged part of a module when an edit above it shifts its lines.
#pragma once

#include "core/facts.h"

#include <functional>

namespace cudnnlint {

void for_each_location(FileFacts& facts, const std::function<void(Location&)>& visit);

}  // namespace cudnnlint
