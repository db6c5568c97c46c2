// Writes report.html from a report.json: write_html_report REPORT.json OUT.html. The browser
// test uses it until `kscope report` writes both.
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "report/html_report.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: write_html_report REPORT.json OUT.html\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  const nlohmann::json report = nlohmann::json::parse(in, nullptr, false);
  if (report.is_discarded()) {
    std::cerr << "write_html_report: " << argv[1] << ": not JSON\n";
    return 1;
  }
  std::ofstream out(argv[2], std::ios::binary);
  if (const kscope::Status st = kscope::report::WriteHtmlReport(report, out); !st.ok()) {
    std::cerr << st.error().Line() << "\n";
    return 1;
  }
  return 0;
}
