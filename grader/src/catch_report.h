// Reading Catch2's XML report (`--reporter xml`) of a run that selected exactly one test case. The
// grader decides pass or fail from this report and the process's exit status alone.
#pragma once

#include <string>

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

}  // namespace synclab::grade
