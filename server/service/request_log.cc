#include "server/service/request_log.h"

#include <string>

#include <grpcpp/server_context.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "server/log/log.h"

namespace informerd::service {
namespace {

using grpc::experimental::InterceptionHookPoints;

class RequestLog final : public grpc::experimental::Interceptor {
 public:
  explicit RequestLog(grpc::experimental::ServerRpcInfo* info) : info_(info) {}

  // gRPC's codes are Abseil's, number for number.
  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      grpc::Status status = methods->GetSendStatus();
      std::string peer = info_->server_context() != nullptr ? info_->server_context()->peer() : "";
      log::Debug("request",
                 absl::StrCat(info_->method(), " from ", peer, ": ",
                              absl::StatusCodeToString(
                                  static_cast<absl::StatusCode>(status.error_code())),
                              status.error_message().empty() ? "" : " ", status.error_message(),
                              " after ", absl::FormatDuration(absl::Now() - start_)));
    }
    methods->Proceed();
  }

 private:
  grpc::experimental::ServerRpcInfo* const info_;
  const absl::Time start_ = absl::Now();
};

class RequestLogFactory final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    if (!log::Enabled(log::Level::kDebug)) return nullptr;
    return new RequestLog(info);
  }
};

}  // namespace

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> NewRequestLogFactory() {
  return std::make_unique<RequestLogFactory>();
}

}  // namespace informerd::service
