// Where cuDNN's headers may be beside the CUDA toolkit: the nvidia-cudnn wheels (`pip install
// nvidia-cudnn-cu12`, or torch's own dependency) put cudnn.h in site-packages/nvidia/cudnn/include.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cudnnlint::cpp {

// The folders holding an nvidia-cudnn wheel's cudnn.h under the Python environments of `prefixes`
// (each PREFIX/lib/python3.*/{site,dist}-packages/nvidia/cudnn/include), each followed by the CUDA
// runtime wheel's include folder beside it (nvidia/cu13/include or nvidia/cuda_runtime/include,
// where cuda_runtime_api.h is), in that order, each once. At most 32 python3.* folders per prefix.
std::vector<std::string> wheel_cudnn_include_dirs(std::span<const std::string> prefixes);

// The prefixes of the environment the user works in, read from the process's environment (never from
// the analysed tree): $VIRTUAL_ENV, $CONDA_PREFIX, ~/.local, /usr/local and /usr; relative values
// are ignored.
std::vector<std::string> python_environment_prefixes();

// wheel_cudnn_include_dirs(python_environment_prefixes()), computed once per process.
const std::vector<std::string>& environment_cudnn_include_dirs();

}  // namespace cudnnlint::cpp
