// A folder and everything in it removed, with the C library's calls alone.
//
// Not std::filesystem::remove_all: a process that loads a pip wheel's LibTorch (the GPU machine's,
// docs/TORCH.md) binds that name to the copy libtorch.so exports, which jumps to a null address
// on a folder that holds files (seen on the H200 machine, 2026-11-29: every runner that removed its
// shared-inputs folder, or a dead runner's, died with SIGSEGV there).
#pragma once

#include <filesystem>

namespace opcert {

/// Removes `path` (a file, a link or a folder with all it holds; links are removed, never
/// followed). True when nothing is left there, a path already absent included.
bool remove_tree(const std::filesystem::path& path);

}  // namespace opcert
