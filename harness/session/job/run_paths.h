// Names and places of a run: its output directory, its timestamps, its command line.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>

#include "model/utc_time.h"

namespace opcert {

/// "out/20261123T101500Z": the default --out of a run started at `t`.
std::filesystem::path default_out_dir(std::chrono::system_clock::time_point t);

/// Where a run or bench (`what`) writes: the folder of --resume, else --out, else the default.
/// Throws InputError when --resume and --out name two folders.
std::filesystem::path chosen_out_dir(const std::string& out, const std::string& resume,
                                     std::chrono::system_clock::time_point started, const std::string& what);

/// Creates `dir` (and its parents) and its logs/ folder. Throws InputError "--out '<dir>': ..."
/// when it exists as a non-directory or cannot be created or written.
void prepare_out_dir(const std::filesystem::path& dir);

/// This process's command line from /proc/self/cmdline, each argument shell-quoted as needed.
std::string current_command_line();

/// The absolute path of this executable (what workers exec), from /proc/self/exe.
std::string current_executable();

/// Creates a folder of this process's own under the system's temporary folder (TMPDIR):
/// "<prefix>XXXXXX" with the X's made unique (mkdtemp), so that processes at the same time never
/// share one. Throws std::runtime_error "cannot create <pattern>: <reason>" when it cannot.
std::filesystem::path make_private_temp_dir(const std::string& prefix);

/// A backend name made safe as a file name ("logs/<name>.worker.log").
std::string file_safe(const std::string& name);

}  // namespace opcert
