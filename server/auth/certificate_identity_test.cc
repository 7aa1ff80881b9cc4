#include "server/auth/certificate_identity.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace informerd::auth {
namespace {

// A self-signed certificate with `subject`, made by the openssl command.
std::string Certificate(const std::string& subject) {
  const std::string dir = std::getenv("TEST_TMPDIR") != nullptr ? std::getenv("TEST_TMPDIR") : "/tmp";
  const std::string command =
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 "
      "-subj '" + subject + "' -keyout " + dir + "/id.key -out " + dir + "/id.crt 2>/dev/null";
  EXPECT_EQ(std::system(command.c_str()), 0);
  std::ifstream file(dir + "/id.crt");
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST(CertificateIdentity, CommonNameIsTheUserAndOrganizationsAreGroups) {
  absl::StatusOr<UserInfo> user = UserFromCertificate(Certificate("/O=devs/O=ops/CN=alice"));
  ASSERT_TRUE(user.ok()) << user.status();
  EXPECT_EQ(user->username, "alice");
  EXPECT_EQ(user->groups, (std::vector<std::string>{"devs", "ops", "system:authenticated"}));
}

TEST(CertificateIdentity, NoCommonNameOrNoCertificateIsUnauthenticated) {
  EXPECT_EQ(UserFromCertificate(Certificate("/O=devs")).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(UserFromCertificate("not a certificate").status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(UserFromCertificate("").status().code(), absl::StatusCode::kUnauthenticated);
}

}  // namespace
}  // namespace informerd::auth
