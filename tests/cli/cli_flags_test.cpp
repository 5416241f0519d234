// Every flag of every verb, given a bad value, is refused while the command line is parsed, in the
// one line of docs/CLI.md ("Bad usage"): the whole app is built in-process (cli/verbs.h) and stopped
// when its parse is done, so no verb runs, and each option is found through CLI11's own lists.
// The opcert binary itself is run on a representative few in cli_test.cpp.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cli/flag_checks.h"
#include "cli/usage_error.h"
#include "cli/verbs.h"

namespace opcert {
namespace {

// The options that take any text, with why a bad value cannot be told at parse time. Each is
// checked when the verb uses it, and a bad one is still one line (cli_test.cpp tests several).
const std::map<std::string, std::string> kAnyText = {
    {"--backend", "globs: one that matches no usable backend is exit 3, said when the backends are loaded"},
    {"--plugin-dir", "a directory that cannot be read is listed as unavailable and the other backends go on"},
    {"--plugin", "a library that cannot be loaded is listed as unavailable and the other backends go on"},
    {"--platform", "a name looked up in the catalogue, which --platform-config (parsed with it) extends"},
    {"--peer", "a backend's name: one that is not usable is exit 3, said when the backends are loaded"},
    {"--out", "a directory that is made, or a file that is written: any path"},
    {"--suite", "a suite name or file, resolved (and refused, naming it) when the suite is loaded"},
    {"--plan", "a plan name or file, resolved (and refused, naming it) when the plan is loaded"},
    {"--impl", "implementation globs (compare: two keys), matched against what the backends have"},
    {"--backends", "two backend names of a run, looked up in its report"},
    {"--mutant", "globs over the mutants' keys"},
    {"--history", "a SQLite file (created if missing) or a postgresql:// URL, opened before the run starts"},
    {"--db", "a SQLite file or a postgresql:// URL, opened when the verb starts"},
    {"--project-commit", "any label of the project under test"},
    {"--json", "compare: a file to write"},
    {"--markdown", "a file to write"},
    {"--junit", "a file to write"},
    {"--host", "history list: any host name filters"},
    {"--platform-config-text", "worker (internal): the runner's own text of a platform config"},
    {"--bench", "worker (internal): the bench runner's settings as JSON; a bad one is the worker's fatal greeting, "
                "which the runner reports as every job's ERROR"},
    {"--resume", "a folder to finish; one that does not exist yet is where the run starts (a run killed before it made "
                 "its folder goes on with the same command); another job's folder is exit 2 before anything runs"},
    {"--skip-plugin-step", "internal: a plugin step the runner's probe refused, handed to its workers and probes"},
};

// compare's --platform-config also comes from OPCERT_PLATFORM_JSON, a ':'-separated list.
const std::map<std::string, std::string> kAnyTextIn = {
    {"compare --platform-config", "may come from OPCERT_PLATFORM_JSON (':'-separated); each file is read, and "
                                  "refused naming it, when the gates are resolved"},
    {"history list --platform", "a filter: any name"},
    {"history list --suite", "a filter: any name"},
};

// Values each named check must refuse.
const std::map<std::string, std::vector<std::string>> kBadValues = {
    {kCheckWholeNumber, {"abc", "-1", "1.5", "99999999999999999999999"}},
    {kCheckNumber, {"abc", "-1", "nan"}},
    {kCheckChoice, {"nosuch"}},
    {kCheckByteSize, {"lots", "-1"}},
    {kCheckRegex, {"("}},
    {kCheckExistingPath, {"/nonexistent/opcert-flag-test"}},
    {kCheckList, {"no such"}},
};

struct Verb {
  std::string path;  // "history add"
  CLI::App* app;
};

// Every verb and sub-verb of `app`.
void collect(CLI::App& app, const std::string& prefix, std::vector<Verb>& out) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    const std::string path = prefix.empty() ? sub->get_name() : prefix + " " + sub->get_name();
    out.push_back({path, sub});
    collect(*sub, path, out);
  }
}

struct Outcome {
  bool refused = false;
  bool ran = false;  // the parse went through: the verb would have run next
  std::string line;
};

// Thrown when the parse is done and every check passed, before any verb's action runs (the app's
// own parse-complete callback comes first).
struct ParsedWithoutError {};

Outcome parse(const std::vector<std::string>& args) {
  CLI::App app{"opcert", "opcert"};
  int exit_code = 0;
  add_all_verbs(app, exit_code);
  app.parse_complete_callback([] { throw ParsedWithoutError{}; });
  Outcome o;
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    app.parse(reversed);
  } catch (const ParsedWithoutError&) {
    o.ran = true;
  } catch (const CLI::Success&) {
  } catch (const CLI::ParseError& e) {
    o.refused = true;
    o.line = parse_error_line(app, e);
  }
  return o;
}

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

void expect_one_line(const Outcome& o, const std::string& verb, const std::string& name, const std::string& said) {
  EXPECT_TRUE(o.refused) << said << ": accepted";
  EXPECT_FALSE(o.ran) << said << ": the verb ran";
  EXPECT_EQ(o.line.rfind("opcert: error: ", 0), 0u) << said << ": " << o.line;
  EXPECT_EQ(o.line.find('\n'), std::string::npos) << said << ": " << o.line;
  EXPECT_NE(o.line.find("(opcert " + verb + " " + name + ")"), std::string::npos) << said << ": " << o.line;
  EXPECT_NE(o.line.find("; see opcert " + verb + " --help"), std::string::npos) << said << ": " << o.line;
  for (const char* raw : {"Run with --help", "Could not convert", "1.79769e+308", "  "})
    EXPECT_EQ(o.line.find(raw), std::string::npos) << said << ": " << o.line;
}

TEST(CliFlags, EveryFlagOfEveryVerbRefusesABadValueInOneLine) {
  CLI::App app{"opcert", "opcert"};
  int exit_code = 0;
  add_all_verbs(app, exit_code);
  std::vector<Verb> verbs;
  collect(app, "", verbs);
  int walked = 0;
  for (const Verb& verb : verbs) {
    for (CLI::Option* option : verb.app->get_options()) {
      // CLI11 names a hidden option (group "") "": its long name, as it is typed.
      const std::string name = option->get_lnames().empty() ? option->get_name() : "--" + option->get_lnames().front();
      if (option == verb.app->get_help_ptr() || option == verb.app->get_help_all_ptr()) continue;
      std::vector<std::string> verb_words = words(verb.path);
      if (option->get_expected_max() == 0) {  // a flag: it takes no value but true or false
        verb_words.push_back(name + "=maybe");
        expect_one_line(parse(verb_words), verb.path, name, verb.path + " " + name + "=maybe");
        ++walked;
        continue;
      }
      const std::string key = verb.path + " " + name;
      if (kAnyText.count(name) || kAnyTextIn.count(key)) continue;
      std::string check;
      for (const auto& [check_name, values] : kBadValues) {
        try {
          (void)option->get_validator(check_name);
          check = check_name;
        } catch (const CLI::OptionNotFound&) {
        }
      }
      ASSERT_FALSE(check.empty()) << key << " takes a value with no check: give it one (cli/flag_checks.h), or list "
                                  << "it in kAnyText with the reason any text will do";
      for (const std::string& bad : kBadValues.at(check)) {
        std::vector<std::string> args = verb_words;
        if (!option->get_positional()) args.push_back(name);
        args.push_back(bad);
        const Outcome o = parse(args);
        expect_one_line(o, verb.path, name, key + " " + bad);
        EXPECT_NE(o.line.find("'" + bad + "'"), std::string::npos) << key << " " << bad << ": " << o.line;
        ++walked;
      }
    }
  }
  EXPECT_GT(walked, 100);  // every verb's options were found
}

TEST(CliFlags, ANumberMustBeInItsRangeSaidInWords) {
  const Outcome zero = parse({"run", "--timeout", "0"});
  EXPECT_EQ(zero.line, "opcert: error: '0' is not a number of seconds greater than 0 (opcert run --timeout); see opcert run --help");
  const Outcome negative = parse({"run", "--seed", "-1"});
  EXPECT_EQ(negative.line,
            "opcert: error: '-1' is not a whole number from 0 to 18446744073709551615 (opcert run --seed); see opcert run "
            "--help");
  EXPECT_EQ(parse({"bench", "--iters", "0"}).line,
            "opcert: error: '0' is out of range: give a whole number from 1 to 2147483647 (opcert bench --iters); see "
            "opcert bench --help");
  EXPECT_FALSE(parse({"run", "--seed", "18446744073709551615", "--timeout", "0.5"}).refused);
}

TEST(CliFlags, CliElevenErrorsAreTheSameLine) {
  EXPECT_EQ(parse({"run", "--verbose=maybe"}).line,
            "opcert: error: 'maybe' cannot be read as true or false (opcert run --verbose); see opcert run --help");
  EXPECT_EQ(parse({"list", "--no-such-flag"}).line,
            "opcert: error: unknown flag '--no-such-flag' (opcert list); see opcert list --help");
  EXPECT_EQ(parse({"run", "--seed"}).line,
            "opcert: error: needs a value (UINT) (opcert run --seed); see opcert run --help");
  EXPECT_EQ(parse({"run", "--peer", "x", "--no-peer"}).line,
            "opcert: error: --peer and --no-peer cannot be given together: give one (opcert run --peer); see opcert run "
            "--help");
  EXPECT_EQ(parse({"golden"}).line,
            "opcert: error: no subcommand given: give one of export (opcert golden); see opcert golden --help");
  EXPECT_EQ(parse({"dashboard"}).line,
            "opcert: error: --out is missing: this verb needs it (opcert dashboard --out); see opcert dashboard --help");
}

TEST(CliFlags, GoogleBenchmarkFlagsAreCheckedBeforeTheyPassThrough) {
  const auto bench = [](const std::string& flag) { return parse({"bench", flag}); };
  EXPECT_EQ(bench("--benchmark_repetitions=abc").line,
            "opcert: error: 'abc' is not a whole number from 1 to 2147483647 (opcert bench --benchmark_repetitions); see "
            "opcert bench --help");
  for (const char* bad : {"--benchmark_enable_random_interleaving=maybe", "--benchmark_time_unit=h",
                          "--benchmark_min_time=soon", "--benchmark_repetitions", "--benchmark_nosuch=1",
                          "--benchmark_out=x.json", "--nosuch"}) {
    const Outcome o = bench(bad);
    EXPECT_TRUE(o.refused) << bad;
    EXPECT_EQ(o.line.rfind("opcert: error: ", 0), 0u) << bad << ": " << o.line;
    const std::string flag = std::string(bad).substr(0, std::string(bad).find('='));
    EXPECT_NE(o.line.find(flag), std::string::npos) << bad << ": " << o.line;
    EXPECT_NE(o.line.find("(opcert bench"), std::string::npos) << bad << ": " << o.line;
  }
  // Good values get through the parse (the verb, replaced here, is what runs next).
  EXPECT_TRUE(bench("--benchmark_repetitions=3").ran);
  EXPECT_TRUE(bench("--benchmark_counters_tabular").ran);
}

}  // namespace
}  // namespace opcert
