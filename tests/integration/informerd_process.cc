#include "tests/integration/informerd_process.h"

#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <httplib.h>

#include "absl/strings/str_cat.h"

namespace informerd::testing {

int FreeLoopbackPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t length = sizeof(address);
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  close(fd);
  return ntohs(address.sin_port);
}

int64_t ProcStatusKiB(pid_t pid, const std::string& field) {
  std::ifstream status(pid == 0 ? std::string("/proc/self/status")
                                : absl::StrCat("/proc/", pid, "/status"));
  const std::string prefix = field + ":";
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    // "VmRSS:     12345 kB"
    std::istringstream value(line.substr(prefix.size()));
    int64_t kib = -1;
    value >> kib;
    return kib;
  }
  return -1;
}

std::string HttpGet(int port, const std::string& path) {
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(2);
  auto response = client.Get(path);
  return response ? absl::StrCat(response->status, " ", response->body) : "no answer";
}

InformerdProcess::InformerdProcess(const std::vector<std::string>& args,
                                   const std::string& log_name,
                                   std::optional<uint64_t> descriptor_limit) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* tmpdir = std::getenv("TEST_TMPDIR");
  if (srcdir == nullptr || tmpdir == nullptr) {
    ADD_FAILURE() << "TEST_SRCDIR and TEST_TMPDIR must be set: run under bazel test";
    return;
  }
  const std::string binary = absl::StrCat(srcdir, "/informerd/server/informerd");
  log_path_ = absl::StrCat(tmpdir, "/", log_name);
  std::vector<std::string> argv_strings = {binary};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& arg : argv_strings) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_ = fork();
  if (pid_ == 0) {
    if (std::freopen(log_path_.c_str(), "w", stderr) == nullptr) _exit(126);
    dup2(fileno(stderr), fileno(stdout));
    if (descriptor_limit.has_value()) {
      const rlimit limit{*descriptor_limit, *descriptor_limit};
      if (setrlimit(RLIMIT_NOFILE, &limit) != 0) _exit(125);
    }
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  EXPECT_GT(pid_, 0) << "fork failed";
}

InformerdProcess::~InformerdProcess() {
  if (pid_ > 0 && !exit_code_.has_value()) {
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
}

std::optional<int> InformerdProcess::WaitForExit(absl::Duration timeout) {
  if (exit_code_.has_value() || pid_ <= 0) return exit_code_;
  Eventually(
      [&] {
        int status = 0;
        pid_t done = waitpid(pid_, &status, WNOHANG);
        if (done != pid_) return false;
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return true;
      },
      timeout);
  return exit_code_;
}

std::optional<int> InformerdProcess::Stop(absl::Duration timeout) {
  if (!exit_code_.has_value() && pid_ > 0) kill(pid_, SIGTERM);
  std::optional<int> code = WaitForExit(timeout);
  if (!code.has_value() && pid_ > 0) {
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
    exit_code_ = 128 + SIGKILL;
    return std::nullopt;
  }
  return code;
}

std::string InformerdProcess::Log() const {
  std::ifstream file(log_path_);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace informerd::testing
