// The spatial size a torchvision transform pipeline gives an image: `preprocess(img).unsqueeze(0)`
// where `preprocess = transforms.Compose([transforms.Resize(256), transforms.CenterCrop(224),
// transforms.ToTensor(), ...])`. The last step that sets the size must fix both sides
// (`CenterCrop`, `RandomCrop`, `RandomResizedCrop`, `Resize((h, w))`; `Resize(256)` fixes only the
// shorter side and is not used), every other step must keep the size (`ToTensor`, `Normalize`,
// flips, colour changes), and one must make a tensor. The channels are not known.
#pragma once

#include "python/resolver.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cudnnlint::python {

struct TransformedSize {
  std::vector<std::int64_t> dims;  // (1, 0, H, W) batched by .unsqueeze(0), or (0, H, W): 0 = channels unknown
  std::string text;                // the transformed tensor as written: "preprocess(img).unsqueeze(0)"
  Location source;                 // the transform that fixes the size
  std::string source_text;         // "transforms.CenterCrop(224)"
};

// `node` (inline, or a name bound once in the walk's scope) as a transformed image.
std::optional<TransformedSize> transformed_size(TSNode node, Resolver& r);

// One sample of a dataset the API table knows (`torchvision.datasets.MNIST(root, transform=
// transforms.ToTensor())`): (C, H, W) as its transform leaves it (C 0 when a Grayscale step sets
// it); nullopt when the transform is not one whose every step the reader knows, or makes no tensor.
std::optional<TransformedSize> dataset_sample(TSNode dataset, Resolver& r);

}  // namespace cudnnlint::python
