// Test certificates made with the openssl command line in $TEST_TMPDIR:
// CAs, and localhost serving or client certificates they sign.
#ifndef INFORMERD_TESTS_CERTIFICATES_TEST_CERTIFICATES_H_
#define INFORMERD_TESTS_CERTIFICATES_TEST_CERTIFICATES_H_

#include <string>

namespace informerd::testing {

// $TEST_TMPDIR/<name> (or /tmp/<name> outside Bazel).
std::string CertPath(const std::string& name);

// The whole file, or "" if it cannot be read.
std::string ReadFile(const std::string& path);

// A self-signed CA: CertPath(name + ".crt") and CertPath(name + ".key").
void MakeCa(const std::string& name);

// Signs `key` (created if missing) as `cert`, valid for localhost and
// 127.0.0.1, with CA `ca`, for `subject` (openssl's -subj form). Names are
// relative to CertPath.
void MakeCert(const std::string& ca, const std::string& key, const std::string& cert,
              const std::string& subject = "/CN=localhost");

}  // namespace informerd::testing

#endif  // INFORMERD_TESTS_CERTIFICATES_TEST_CERTIFICATES_H_
