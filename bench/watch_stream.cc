#include "bench/watch_stream.h"

namespace informerd::bench {

void WatchStream::Start(v1::Cache::Stub* stub, const v1::WatchRequest& request) {
  stub->async()->Watch(&context_, &request, this);
  StartRead(&event_);
  StartCall();
}

void WatchStream::OnReadDone(bool ok) {
  if (!ok) return;
  OnEvent(event_);
  StartRead(&event_);
}

void WatchStream::OnDone(const grpc::Status& status) {
  absl::MutexLock lock(&mu_);
  status_ = status;
  done_ = true;
}

grpc::Status WatchStream::status() {
  absl::MutexLock lock(&mu_);
  return status_;
}

void WatchStream::AwaitDone() {
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(&done_));
}

std::unique_ptr<v1::Cache::Stub> NewStubOnOwnConnection(const std::string& address) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  args.SetMaxReceiveMessageSize(-1);
  return v1::Cache::NewStub(
      grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args));
}

}  // namespace informerd::bench
