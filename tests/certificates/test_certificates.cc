#include "tests/certificates/test_certificates.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

namespace informerd::testing {
namespace {

void Shell(const std::string& command) {
  ASSERT_EQ(std::system(absl::StrCat(command, " 2>/dev/null").c_str()), 0) << command;
}

}  // namespace

std::string CertPath(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/", name);
}

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

void MakeCa(const std::string& name) {
  Shell(absl::StrCat("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes",
                     " -days 1 -subj /CN=", name, " -keyout ", CertPath(name + ".key"), " -out ",
                     CertPath(name + ".crt")));
}

void MakeCert(const std::string& ca, const std::string& key, const std::string& cert,
              const std::string& subject) {
  if (ReadFile(CertPath(key)).empty()) {
    Shell(absl::StrCat("openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:prime256v1 -out ",
                       CertPath(key)));
  }
  std::ofstream(CertPath("san.cnf")) << "subjectAltName=DNS:localhost,IP:127.0.0.1\n";
  Shell(absl::StrCat("openssl req -new -key ", CertPath(key), " -subj '", subject, "' -out ",
                     CertPath(cert + ".csr")));
  Shell(absl::StrCat("openssl x509 -req -days 1 -in ", CertPath(cert + ".csr"), " -CA ",
                     CertPath(ca + ".crt"), " -CAkey ", CertPath(ca + ".key"),
                     " -CAcreateserial -extfile ", CertPath("san.cnf"), " -out ", CertPath(cert)));
}

}  // namespace informerd::testing
