// Reading Catch2's XML report (`--reporter xml`) of a run that selected exactly one test case. The
// grader decides pass or fail from this report and the process's exit status alone.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace synclab::grade {

struct CaseReport {
  bool parsed = false;  // the document is complete and well formed
  std::string parse_error;
  int test_cases = 0;  // <TestCase> elements found
  bool name_matches = false;
  bool success = false;  // the case's <OverallResult success="true"> and no failures overall
  int failures = -1;     // from the last <OverallResults>, -1 when absent
  std::string messages;  // the failed checks, failures, exceptions and fatal errors, readable
  std::string first;     // one line: the first of them
};

// `xml` is the report's text; `case_name` the case that was selected.
CaseReport read_case_report(const std::string& xml, const std::string& case_name);

// A test case's name as a Catch2 test spec that selects exactly that case: the characters the
// spec syntax gives a meaning ("," "[" "]" "\\" quotes "~" "*") escaped with a backslash.
std::string catch_test_spec(const std::string& name);

// Every case's tags from one `--list-tests` (without a test spec): a name on a line indented by two
// spaces, its tags on the next, indented further ("[lab01][task1][pts:2]" gives lab01, task1,
// pts:2). `exit_code` is the listing's: Catch2 2.x exits with the number of cases listed (at most
// 255), 3.x with 0; any other status gives an empty map (the caller then asks case by case).
using CaseTags = std::map<std::string, std::vector<std::string>>;
CaseTags read_tag_listing(const std::string& output, int exit_code);

// The tags of one line of a listing ("[lab01][task1][pts:2]"), appended in order.
void append_catch_tags(const std::string& line, std::vector<std::string>& tags);

}  // namespace synclab::grade
