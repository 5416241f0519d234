// `opcert dashboard`: the results store as a static site (docs/HISTORY.md).
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "cli/history_flags.h"
#include "cli/verbs.h"
#include "dashboard/dashboard_site.h"
#include "history/history_store.h"
#include "model/exit_codes.h"
#include "model/input_error.h"

namespace opcert {

void add_dashboard_verb(CLI::App& app, int& exit_code) {
  auto* verb = app.add_subcommand("dashboard",
                                  "Write the results store as a static site that opens from disk: status matrix, "
                                  "trends with regressions marked, roofline, busbw curves, run pages (docs/HISTORY.md)");
  struct Args {
    std::string db = kDefaultHistoryStore;
    std::string out;
  };
  auto args = std::make_shared<Args>();
  add_db_option(*verb, args->db);
  verb->add_option("--out", args->out, "Directory to write the site into (new, empty, or an earlier dashboard)")
      ->required()
      ->type_name("DIR");
  verb->callback([args, &exit_code] {
    if (args->out.empty()) throw InputError("--out: give the directory to write the site into");
    auto store = HistoryStore::open(args->db, /*create=*/false);
    const DashboardSummary s = write_dashboard(*store, args->out);
    std::printf("dashboard of %zu runs, %zu series (%zu regressed in their latest run): %zu pages in %s; open %s/index.html\n",
                s.runs, s.series, s.regressions, s.pages, args->out.c_str(), args->out.c_str());
    exit_code = kExitOk;
  });
}

}  // namespace opcert
