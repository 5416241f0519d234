// `opcert history add|list|show|remove|export`: the results store (docs/HISTORY.md).
#include <limits>
#include <memory>

#include "cli/cli_context.h"
#include "cli/flag_checks.h"
#include "cli/history_flags.h"
#include "cli/verbs.h"
#include "history/history_commands.h"
#include "model/exit_codes.h"

namespace opcert {
namespace {

struct HistoryArgs {
  std::string db = kDefaultHistoryStore;
  std::vector<std::string> runs;  // add
  std::vector<int64_t> ids;       // show, remove, export
  std::string project_commit;
  std::vector<std::string> platform_configs;
  bool json = false;
  RunFilter filter;
  int64_t limit = 0;
  std::string out;
};

using Args = std::shared_ptr<HistoryArgs>;

// Each subcommand: its flags, then one call with the store it opens.
void history_add(CLI::App& verb, const Args& args, int& exit_code) {
  auto* add = verb.add_subcommand("add", "Add runs (output directories or report.json files); adding a run twice "
                                         "changes nothing, and a resumed run's newer report replaces its older one");
  add->add_option("RUN", args->runs, "Run output directories or report.json files")->required()->check(existing_path());
  add_db_option(*add, args->db);
  add_project_commit_flag(*add, args->project_commit);
  add->add_option("--platform-config", args->platform_configs,
                  "Extra platform config file whose peaks are kept with the runs (after the built-ins)")
      ->type_name("FILE")
      ->check(existing_path());
  add->callback([args, &exit_code] {
    CommonOptions common;
    common.platform_configs = args->platform_configs;
    const PlatformCatalog platforms = load_platform_catalog(common);
    add_runs(*HistoryStore::open(args->db, /*create=*/true), args->runs, args->project_commit, platforms);
    exit_code = kExitOk;
  });
}

void history_list(CLI::App& verb, const Args& args, int& exit_code) {
  auto* list = verb.add_subcommand("list", "List the runs in the store, oldest first");
  add_db_option(*list, args->db);
  list->add_flag("--json", args->json, "Print JSON: an array of runs");
  list->add_option("--platform", args->filter.platform, "Only runs of this platform config");
  list->add_option("--suite", args->filter.suite, "Only runs of this suite");
  list->add_option("--kind", args->filter.kind, "Only runs of this kind")->check(one_of({"run", "bench"}));
  list->add_option("--host", args->filter.host, "Only runs on this host");
  list->add_option("--limit", args->limit, "Only the latest N runs")->check(whole_number(1, std::numeric_limits<int64_t>::max()));
  list->callback([args, &exit_code] {
    auto store = HistoryStore::open(args->db, /*create=*/false);
    if (args->limit > 0) args->filter.limit = args->limit;
    print_runs(*store, args->filter, args->json);
    exit_code = kExitOk;
  });
}

void history_show(CLI::App& verb, const Args& args, int& exit_code) {
  auto* show = verb.add_subcommand("show", "Show one run: its environment, counts, failures with repro lines, and "
                                           "benchmark summary");
  show->add_option("ID", args->ids, "The run's id (`opcert history list`)")
      ->required()
      ->expected(1)
      ->check(whole_number(1, std::numeric_limits<int64_t>::max()));
  add_db_option(*show, args->db);
  show->add_flag("--json", args->json, "Print JSON");
  show->callback([args, &exit_code] {
    print_run(*HistoryStore::open(args->db, /*create=*/false), args->ids.front(), args->json);
    exit_code = kExitOk;
  });
}

void history_remove(CLI::App& verb, const Args& args, int& exit_code) {
  auto* remove = verb.add_subcommand("remove", "Remove runs and everything recorded of them");
  remove->add_option("ID", args->ids, "The runs' ids")->required()->check(whole_number(1, std::numeric_limits<int64_t>::max()));
  add_db_option(*remove, args->db);
  remove->callback([args, &exit_code] {
    remove_runs(*HistoryStore::open(args->db, /*create=*/false), args->ids);
    exit_code = kExitOk;
  });
}

void history_export(CLI::App& verb, const Args& args, int& exit_code) {
  auto* exported = verb.add_subcommand("export", "Write the store's runs, results, benchmarks and every repetition "
                                                 "as one JSON document (docs/HISTORY.md, \"Export\")");
  add_db_option(*exported, args->db);
  exported->add_flag("--json", args->json, "JSON, the export's format (the default; named for scripts that say so)");
  exported->add_option("--run", args->ids, "Only these runs (ids); default: all")
      ->type_name("ID")
      ->check(whole_number(1, std::numeric_limits<int64_t>::max()));
  exported->add_option("--out", args->out, "Write to this file instead of stdout")->type_name("FILE");
  exported->callback([args, &exit_code] {
    export_runs(*HistoryStore::open(args->db, /*create=*/false), args->ids, args->out);
    exit_code = kExitOk;
  });
}

}  // namespace

void add_history_verb(CLI::App& app, int& exit_code) {
  auto* verb = app.add_subcommand("history",
                                  "Keep runs in a results store (SQLite file or PostgreSQL) and read them back: add, "
                                  "list, show, remove, export (docs/HISTORY.md)");
  verb->require_subcommand(1);
  auto args = std::make_shared<HistoryArgs>();
  history_add(*verb, args, exit_code);
  history_list(*verb, args, exit_code);
  history_show(*verb, args, exit_code);
  history_remove(*verb, args, exit_code);
  history_export(*verb, args, exit_code);
}

}  // namespace opcert
