// The example programs' one way to print a result line: the uniform example
// and the example controller both report on stdout, one line at a time,
// where a reader (hack/example.sh, the e2e harness, a test) waits for it.

#ifndef INFORMERD_CLIENT_CPP_EXAMPLE_STDOUT_LINE_H_
#define INFORMERD_CLIENT_CPP_EXAMPLE_STDOUT_LINE_H_

#include <string>

namespace informerd {
namespace example {

// Writes `line` and a newline to stdout with one fwrite under one lock and
// flushes, so a reader sees whole lines at once even when several threads
// print. If stdout fails (the reader went away) there is nothing left to
// report to: the process ends at once with status 1.
//
// Thread safe.
void EmitLineToStdout(const std::string& line);

}  // namespace example
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_EXAMPLE_STDOUT_LINE_H_
